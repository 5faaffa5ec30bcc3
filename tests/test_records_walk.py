"""The records folder is walked once and its files read without resolving each path
(docs/performance.md#runs-with-records-against-their-floor), and every rule of docs/safety.md
still holds: a link is followed only inside the records folder, a FIFO never blocks, a file
swapped after the walk is judged as what it is now."""

from __future__ import annotations

import os
import shutil

import pytest

from tcsexam.scoring.errors import InputError
from tcsexam.scoring.pipeline.lineup import discover_records
from tcsexam.scoring.safety.files import RecordsRoot
from tests.test_safety import call_with_deadline


@pytest.fixture
def records(tmp_path):
    """records/m/s1/{1,2}.json and records/m/s2/1.json, each holding its own name; an outside folder."""
    root = tmp_path / "records"
    for item, attempt in (("s1", "1"), ("s1", "2"), ("s2", "1")):
        (root / "m" / item).mkdir(parents=True, exist_ok=True)
        (root / "m" / item / f"{attempt}.json").write_text(f'["m/{item}/{attempt}"]')
    outside = tmp_path / "elsewhere"
    (outside / "s1").mkdir(parents=True)
    (outside / "s1" / "1.json").write_text('["secret"]')
    (outside / "secret.json").write_text('["secret"]')
    return root


def walked(root) -> RecordsRoot:
    """A RecordsRoot whose walk is done (as ``score`` walks before it reads)."""
    found = RecordsRoot(root)
    found.listing()
    return found


def test_a_link_to_a_folder_inside_the_run_is_followed(records):
    os.symlink("m", records / "alias")  # records/alias -> records/m: stays inside
    root = walked(records)
    assert root.read("alias", "s1", "2")[1] == b'["m/s1/2"]'
    assert root.exists(root.path("alias", "s1", "2"))
    assert [f.rel for f in discover_records(root)] == ["m/s1/1.json", "m/s1/2.json", "m/s2/1.json"]  # not walked


def test_a_link_to_a_folder_outside_the_run_is_refused(records, tmp_path):
    os.symlink(tmp_path / "elsewhere", records / "evil")
    root = walked(records)
    with pytest.raises(InputError, match="outside the records folder"):
        root.read("evil", "s1", "1")


def test_a_link_to_a_file_inside_is_listed_and_read_and_one_outside_refused(records, tmp_path):
    os.symlink("2.json", records / "m" / "s1" / "3.json")
    os.symlink(tmp_path / "elsewhere" / "secret.json", records / "m" / "s1" / "4.json")
    root = walked(records)
    assert [f.attempt for f in discover_records(root) if f.item == "s1"] == ["1", "2", "3", "4"]
    assert root.read("m", "s1", "3")[1] == b'["m/s1/2"]'
    with pytest.raises(InputError, match="outside the records folder"):
        root.read("m", "s1", "4")


def test_a_fifo_named_like_a_records_file_neither_blocks_the_walk_nor_the_read(records):
    os.mkfifo(records / "m" / "s1" / "5.json")
    root = RecordsRoot(records)
    listed = call_with_deadline(discover_records, root)
    assert [f.rel for f in listed["value"]] == ["m/s1/1.json", "m/s1/2.json", "m/s2/1.json"]
    out = call_with_deadline(root.read, "m", "s1", "5")
    assert "is a FIFO" in out["error"].problems[0].message


def test_a_file_replaced_by_a_link_out_after_the_walk_is_refused(records, tmp_path):
    root = walked(records)
    target = records / "m" / "s1" / "1.json"
    target.unlink()
    os.symlink(tmp_path / "elsewhere" / "secret.json", target)
    with pytest.raises(InputError, match="outside the records folder") as info:
        root.read("m", "s1", "1")
    assert info.value.problems[0].file == str(target)


def test_a_folder_replaced_by_a_link_out_after_the_walk_is_refused(records, tmp_path):
    root = walked(records)
    shutil.rmtree(records / "m")
    os.symlink(tmp_path / "elsewhere", records / "m")  # holds s1/1.json too
    with pytest.raises(InputError, match="outside the records folder"):
        root.read("m", "s1", "1")


def test_a_file_replaced_by_a_fifo_after_the_walk_is_a_fifo_and_does_not_block(records):
    root = walked(records)
    target = records / "m" / "s1" / "2.json"
    target.unlink()
    os.mkfifo(target)
    out = call_with_deadline(root.read, "m", "s1", "2")
    assert "is a FIFO" in out["error"].problems[0].message


def test_a_file_replaced_or_deleted_after_the_walk_is_read_as_it_is_now(records):
    root = walked(records)
    (records / "m" / "s1" / "1.json").unlink()
    (records / "m" / "s2" / "new.json").write_text('["new"]')
    os.replace(records / "m" / "s2" / "new.json", records / "m" / "s2" / "1.json")  # another file, same name
    assert root.read("m", "s1", "1")[1] is None
    assert root.read("m", "s2", "1")[1] == b'["new"]'


def test_exists_answers_as_lexists_does(records, tmp_path):
    os.symlink(tmp_path / "nothing-here", records / "m" / "s1" / "7.json")  # a link to nothing exists
    os.symlink("m", records / "alias")
    root = walked(records)
    for model, item, attempt in (("m", "s1", "1"), ("m", "s1", "7"), ("m", "s1", "8"), ("alias", "s2", "1")):
        path = root.path(model, item, attempt)
        assert root.exists(path) == os.path.lexists(path), path
    assert root.exists(root.path("alias", "s2", "1")) and not root.exists(root.path("m", "s1", "8"))


def test_reading_many_files_resolves_no_path_per_file(records, monkeypatch):
    # the cost rule of docs/performance.md: one walk, then each file opened relative to the records
    # folder without following links; no realpath, lexists or stat of a path per file
    for n in range(3, 40):
        (records / "m" / "s1" / f"{n}.json").write_text("[]")
    calls = []
    for name in ("realpath", "lexists", "islink"):
        real = getattr(os.path, name)
        monkeypatch.setattr(os.path, name, lambda *a, _real=real, _name=name: calls.append(_name) or _real(*a))
    real_stat = os.stat
    monkeypatch.setattr(os, "stat", lambda *a, **k: calls.append("stat") or real_stat(*a, **k))
    root = walked(records)
    paths = [root.path("m", "s1", str(n)) for n in range(1, 40)]
    assert all(root.exists(p) for p in paths)
    assert [root.read_path(p) for p in paths][:2] == [b'["m/s1/1"]', b'["m/s1/2"]']
    assert calls == ["realpath"]  # the records folder's, once


def test_a_folder_swapped_for_a_link_out_during_the_walk_is_not_walked(records, tmp_path, monkeypatch):
    # records/m is listed, then replaced by a link out of the run before the walk enters m/s1:
    # what the walk finds there is not the folder m listed, so it is neither walked nor read unchecked
    real_open = os.open

    def swap_then_open(path, flags, mode=0o777, *, dir_fd=None):
        if path == "m/s1" and not os.path.islink(records / "m"):
            shutil.rmtree(records / "m")
            os.symlink(tmp_path / "elsewhere", records / "m")
        return real_open(path, flags, mode, dir_fd=dir_fd)

    monkeypatch.setattr(os, "open", swap_then_open)
    root = RecordsRoot(records)
    assert [f.rel for f in discover_records(root)] == []
    monkeypatch.setattr(os, "open", real_open)
    with pytest.raises(InputError, match="outside the records folder"):
        root.read("m", "s1", "1")


def test_score_checks_no_path_under_records_one_by_one(demo_copy, cli, tmp_path, monkeypatch):
    # the whole of `score` on the demo (25 records files, every one re-scored): the line-up and the
    # cross-check take what is there from the one walk; no path below records/ is resolved, tested
    # for existence or stat'ed by name (docs/performance.md#runs-with-records-against-their-floor)
    records = str(demo_copy / "records") + os.sep
    below = []
    for module, name in ((os.path, "realpath"), (os.path, "lexists"), (os.path, "islink"), (os, "stat")):
        real = getattr(module, name)

        def counted(path, *args, _real=real, _name=name, **kwargs):
            if isinstance(path, (str, os.PathLike)) and os.fspath(path).startswith(records):
                below.append((_name, os.fspath(path)))
            return _real(path, *args, **kwargs)

        monkeypatch.setattr(module, name, counted)
    code, _, err = cli("score", str(demo_copy), "--output", str(tmp_path / "index.json"))
    assert code in (0, 3), err
    assert below == []


def test_a_copy_for_another_process_leaves_the_walk_behind_and_still_refuses_links_out(records, tmp_path):
    # the dashboard's loader pickles the run: the walk's descriptor means nothing in the other process
    import pickle

    os.symlink(tmp_path / "elsewhere" / "secret.json", records / "m" / "s1" / "4.json")
    copy = pickle.loads(pickle.dumps(walked(records)))
    assert copy._listing is None
    assert copy.read("m", "s1", "2")[1] == b'["m/s1/2"]'
    assert copy.exists(copy.path("m", "s2", "1")) and not copy.exists(copy.path("m", "s2", "9"))
    with pytest.raises(InputError, match="outside the records folder"):
        copy.read("m", "s1", "4")
