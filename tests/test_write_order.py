"""docs/safety.md#how-a-file-is-written: what fill syncs, and when. Its solver-score outputs are written
to temporary files, their data flushed once (``os.sync``), renamed into place and their names flushed
once more; attempts.csv is then written, synced, renamed and its folder synced. Checked by recording the
calls, and by failures at each step: a file is always absent, old or complete."""

from __future__ import annotations

import os
import signal
import stat
from pathlib import Path

import pytest

from tcsexam.scoring.errors import InputError
from tcsexam.scoring.safety import outputs
from tcsexam.scoring.safety.outputs import Interrupted, Output, WriteFailed, check_outputs, write_atomic_all
from tests.support.runs import full_rows

S1_HALF = [{"instance": "a", "status": "ok", "A": 12}, {"instance": "b", "status": "timeout"}]
S2_ALL = [{"instance": "x", "status": "ok", "solved": True}, {"instance": "y", "status": "crash"}]


def blank_solver(rows):
    for r in rows:
        if r["track"] == "solver":
            r["score"], r["score_status"] = "", "missing"
    return rows


def record_calls(monkeypatch) -> list[tuple[str, str]]:
    """(call, path) of every fsync, sync and rename the writes make, in order (the real calls run)."""
    calls: list[tuple[str, str]] = []
    real_fsync, real_sync, real_replace = os.fsync, os.sync, os.replace

    def fsync(fd):
        calls.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        return real_fsync(fd)

    def sync():
        calls.append(("sync", ""))
        return real_sync()

    def replace(src, dst):
        calls.append(("rename", os.path.realpath(dst)))
        return real_replace(src, dst)

    monkeypatch.setattr(outputs.os, "fsync", fsync)
    monkeypatch.setattr(outputs.os, "sync", sync)
    monkeypatch.setattr(outputs.os, "replace", replace)
    return calls


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="names a descriptor's file through /proc")
def test_fill_flushes_the_outputs_once_then_renames_then_syncs_each_folder_then_replaces_the_table(
    ws, cli, monkeypatch
):
    ws.write_cohort(models={"m": {"attempts_per_task": 1}, "n": {"attempts_per_task": 1}})
    ws.write_rows(blank_solver(full_rows("m") + full_rows("n")))
    for model in ("m", "n"):
        ws.write_records(model, "s1", "1", S1_HALF)
        ws.write_records(model, "s2", "1", S2_ALL)
    run = Path(os.path.realpath(ws.run))
    outs = {str(run / "solver-scores" / m / i / "1.json") for m in ("m", "n") for i in ("s1", "s2")}
    folders = {os.path.dirname(p) for p in outs}  # four: a folder per model and item
    calls = record_calls(monkeypatch)
    code, _, err = cli("fill", str(ws.run), "--benchmark", str(ws.bench))
    assert code == 0, err
    table = str(run / "attempts.csv")
    # the outputs: one flush of their data, their four renames, one flush of the four folders' names
    assert calls[0] == ("sync", "")
    assert {c for c in calls[1:5]} == {("rename", p) for p in outs} and len(folders) == 4
    assert calls[5] == ("sync", "")
    # then the table: its temporary file synced, renamed over it, its folder synced; nothing else
    (what, temporary), rest = calls[6], calls[7:]
    assert what == "fsync" and Path(temporary).parent == run and Path(temporary).name.startswith(".attempts.csv.")
    assert rest == [("rename", table), ("fsync", str(run))]
    assert all(Path(p).stat().st_size > 0 for p in outs) and "0.25" in Path(table).read_text()


def checked(files: list[tuple[Path, bytes]]) -> list[tuple[Output, bytes]]:
    """The files as write_atomic_all takes them: each output as check_outputs found it."""
    return list(zip(check_outputs([path for path, _ in files]), [data for _, data in files], strict=True))


def old_and_new(tmp_path: Path) -> tuple[list[tuple[Output, bytes]], Path]:
    """Three files to write under tmp_path: an existing one (its content 'old') and two in a new folder."""
    kept = tmp_path / "kept.json"
    kept.write_bytes(b"old")
    new = tmp_path / "new" / "deeper"
    return checked([(kept, b"new kept"), (new / "a.json", b"new a"), (new / "b.json", b"new b")]), kept


def temporaries(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.name.endswith(".tmp")]


def test_a_signal_while_the_files_are_written_leaves_every_file_as_it_was(tmp_path, monkeypatch):
    files, kept = old_and_new(tmp_path)
    monkeypatch.setattr(outputs, "WRITES_HELD", 1)  # a group a file: two are written before the signal
    temporary_files = []
    real_mkstemp = outputs.tempfile.mkstemp

    def mkstemp(*args, **kwargs):
        made = real_mkstemp(*args, **kwargs)
        temporary_files.append(made[1])
        return made

    monkeypatch.setattr(outputs.tempfile, "mkstemp", mkstemp)

    def written():
        yield files[0]
        yield files[1]
        raise Interrupted(signal.SIGINT)  # as the handler raises it while the third is made

    with pytest.raises(Interrupted):
        write_atomic_all(written())
    assert len(temporary_files) == 2  # the two were written, then removed
    assert kept.read_bytes() == b"old" and not (tmp_path / "new").exists() and temporaries(tmp_path) == []


def test_an_output_that_becomes_a_link_into_the_records_after_its_check_is_not_written_through(tmp_path):
    """The write lands where the check found the name leads: a solver-scores file swapped for a link to a
    record between the check and the write is refused at the rename, and the record stays as it was."""
    record = tmp_path / "records" / "m" / "s1" / "1.json"
    record.parent.mkdir(parents=True)
    record.write_bytes(b"RECORD")
    output = tmp_path / "solver-scores" / "m" / "s1" / "1.json"
    output.parent.mkdir(parents=True)
    output.write_bytes(b"old score")
    files = list(zip(check_outputs([output], [], [tmp_path / "records"]), [b"new score"], strict=True))
    output.unlink()
    output.symlink_to(record)  # after the check: a link into records/
    with pytest.raises(InputError) as caught:
        write_atomic_all(files)
    assert caught.value.problems[0].message == "output became a symbolic link during the write: not replaced"
    assert record.read_bytes() == b"RECORD" and output.is_symlink() and temporaries(tmp_path) == []


def test_a_file_that_appears_after_the_check_keeps_its_mode(tmp_path):
    """The mode (and, as root, the owner) of the file replaced is read when it is written, not at the
    check: a file another program made in between keeps its mode."""
    output = tmp_path / "out" / "a.json"
    files = checked([(output, b"mine")])
    assert files[0][0].found is None
    output.parent.mkdir()
    output.write_bytes(b"theirs")
    os.chmod(output, 0o640)
    write_atomic_all(files)
    assert output.read_bytes() == b"mine" and stat.S_IMODE(output.stat().st_mode) == 0o640


def test_a_name_through_a_missing_folder_and_back_is_checked_as_the_file_it_lands_on(tmp_path):
    """'missing/../x': the kernel finds no file at the name, the write would land on x; x is a folder, or
    a file of two names: refused at the check, as x itself is."""
    (tmp_path / "folder").mkdir()
    (tmp_path / "linked").write_bytes(b"x")
    os.link(tmp_path / "linked", tmp_path / "other-name")
    for name, words in (("folder", "output is a directory"), ("linked", "output has 2 names (hard links)")):
        for spelled in (tmp_path / name, tmp_path / "missing" / ".." / name):
            with pytest.raises(InputError) as caught:
                check_outputs([spelled])
            assert caught.value.problems[0].message.startswith(words), (spelled, caught.value.problems)


@pytest.mark.parametrize(("held", "written_before_it_raises"), [(256, 3), (2, 2), (1, 1)])
def test_a_real_signal_waits_for_the_files_written_while_it_came_then_leaves_every_file_as_it_was(
    tmp_path, monkeypatch, held, written_before_it_raises
):
    """Signals are held while WRITES_HELD files are written (each temporary file created and
    recorded as one step): a SIGTERM during the first file's write is raised once that group is
    written, and the clean-up then removes every temporary file; nothing is renamed."""
    files, kept = old_and_new(tmp_path)
    real_write_all, writes = outputs._write_all, []

    def write_all(fd, data):
        writes.append(data)
        if len(writes) == 1:
            os.kill(os.getpid(), signal.SIGTERM)
        return real_write_all(fd, data)

    monkeypatch.setattr(outputs, "_write_all", write_all)
    monkeypatch.setattr(outputs, "WRITES_HELD", held)
    with pytest.raises(Interrupted) as caught:
        write_atomic_all(files)
    assert caught.value.signum == signal.SIGTERM and len(writes) == written_before_it_raises
    assert kept.read_bytes() == b"old" and not (tmp_path / "new").exists() and temporaries(tmp_path) == []


def test_a_failed_flush_renames_nothing_and_names_the_file(tmp_path, monkeypatch):
    files, kept = old_and_new(tmp_path)

    def full(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(outputs.os, "sync", full)
    with pytest.raises(WriteFailed) as caught:
        write_atomic_all(files)
    assert str(caught.value) == f"cannot write {files[2][0].shown}: No space left on device"
    assert kept.read_bytes() == b"old" and not (tmp_path / "new").exists() and temporaries(tmp_path) == []


def test_a_rename_that_fails_leaves_the_files_before_it_new_and_the_rest_old(tmp_path, monkeypatch):
    files, kept = old_and_new(tmp_path)
    real = os.replace

    def replace(src, dst):
        if str(dst).endswith("b.json"):
            raise OSError(5, "Input/output error")
        return real(src, dst)

    monkeypatch.setattr(outputs.os, "replace", replace)
    with pytest.raises(WriteFailed) as caught:
        write_atomic_all(files)
    assert str(caught.value) == f"cannot write {files[2][0].shown}: Input/output error"
    assert kept.read_bytes() == b"new kept" and Path(files[1][0].shown).read_bytes() == b"new a"
    assert not Path(files[2][0].shown).exists() and temporaries(tmp_path) == []


def test_a_batch_with_nothing_to_write_flushes_nothing(monkeypatch):
    """fill with every output up to date writes none: no sync of the whole machine for nothing."""
    synced: list[int] = []
    monkeypatch.setattr(outputs.os, "sync", lambda: synced.append(1))
    write_atomic_all(iter(()))
    assert synced == []


def test_a_batch_writes_through_links_where_each_path_leads(tmp_path):
    """write_atomic_all writes each output where check_outputs resolved it, as write_atomic does (a folder's resolved name kept for the
    batch): through a folder that is a link, '..' after that link, and a file that is a link."""
    deep = tmp_path / "deep"
    real = deep / "real"
    real.mkdir(parents=True)
    (tmp_path / "via").symlink_to(real)  # a folder that is a link
    (real / "target.json").write_bytes(b"old")
    (tmp_path / "via" / "latest.json").symlink_to(real / "target.json")  # a file that is a link, in that folder
    write_atomic_all(
        checked(
            [
                (tmp_path / "via" / "a.json", b"a"),
                (tmp_path / "via" / "sub" / "d.json", b"d"),  # a new folder under the link
                (tmp_path / "via" / "latest.json", b"t"),
                (tmp_path / "via" / ".." / "up.json", b"up"),  # .. of via's target: deep/, not tmp_path/
            ]
        )
    )
    assert (real / "a.json").read_bytes() == b"a" and (real / "sub" / "d.json").read_bytes() == b"d"
    assert (real / "latest.json").is_symlink() and (real / "target.json").read_bytes() == b"t"
    assert (deep / "up.json").read_bytes() == b"up" and not (tmp_path / "up.json").exists()
    assert temporaries(tmp_path) == []


def test_a_batch_keeps_the_mode_of_each_file_it_replaces_and_gives_a_new_one_the_usual_mode(tmp_path):
    """A file the batch replaces keeps its mode, also when its name reaches it through '..' after a
    folder that is not there (the kernel finds no file at that name; the write lands on the one
    it resolves to); one it creates has 0666 less the umask, not the 0600 of a temporary file."""
    modes_before = {"kept.json": 0o640, "sub/private.json": 0o600, "spelled.json": 0o640}
    for name, mode in modes_before.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_bytes(b"old")
        os.chmod(tmp_path / name, mode)
    write_atomic_all(
        checked(
            [
                (tmp_path / "kept.json", b"k"),
                (tmp_path / "new.json", b"n"),
                (tmp_path / "sub" / "private.json", b"p"),
                (tmp_path / "a" / "b.json", b"b"),
                (tmp_path / "missing" / ".." / "spelled.json", b"s"),
            ]
        )
    )
    mask = os.umask(0)
    os.umask(mask)  # the process's, as the write found it
    usual = 0o666 & ~mask
    names = ["kept.json", "new.json", "sub/private.json", "a/b.json", "spelled.json"]
    assert {n: stat.S_IMODE(os.stat(tmp_path / n).st_mode) for n in names} == {
        "kept.json": 0o640,
        "new.json": usual,
        "sub/private.json": 0o600,
        "a/b.json": usual,
        "spelled.json": 0o640,
    }
    assert [(tmp_path / n).read_bytes() for n in names] == [b"k", b"n", b"p", b"b", b"s"]
    assert not (tmp_path / "missing").exists()


def test_each_of_many_outputs_is_checked_against_the_inputs_and_folders(tmp_path):
    table, records = tmp_path / "attempts.csv", tmp_path / "records"
    table.write_text("x")
    records.mkdir()
    (tmp_path / "alias").symlink_to(records)
    fine = [tmp_path / "out" / "a.json", tmp_path / "out" / "b.json"]
    assert [output.shown for output in check_outputs(fine, [table], [records])] == [str(path) for path in fine]
    with pytest.raises(InputError) as caught:
        check_outputs([*fine, tmp_path / "out" / ".." / "attempts.csv"], [table], [records])
    assert caught.value.problems[0].message == f"output is the input {table}: writing it would destroy the input"
    with pytest.raises(InputError) as caught:
        check_outputs([*fine, tmp_path / "alias" / "c.json"], [table], [records])
    assert caught.value.problems[0].message == f"output lies inside the input folder {records}"
