"""docs/safety.md primitives (scoring/safety/), tested by class: names, special files, records paths,
outputs, atomic writes under faults, terminal escaping, overflow, duplicate keys, floors."""

from __future__ import annotations

import argparse
import errno
import json
import math
import os
import posixpath
import socket
import stat
import threading

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import tcsexam.scoring.formats.json
from tcsexam.scoring.commands.options import output_argument
from tcsexam.scoring.errors import InputError
from tcsexam.scoring.formats.json import find_duplicate_key
from tcsexam.scoring.safety import files, outputs
from tcsexam.scoring.safety.files import RecordsRoot, read_regular_file, records_file
from tcsexam.scoring.safety.names import NAME_KINDS, check_name
from tcsexam.scoring.safety.numbers import (
    NumberTooLarge,
    check_relative_floor,
    finite_fsum,
    finite_mean,
    require_finite,
)
from tcsexam.scoring.safety.outputs import WriteFailed, check_output, write_atomic
from tcsexam.scoring.safety.terminal import escape_for_terminal
from tests.support.invisible import is_invisible

# ---------------------------------------------------------------- names

HOSTILE = st.text(
    alphabet=st.sampled_from(
        ["a", "b", "/", "\\", ".", "\x00", " ", "\t", "\x1b", "[", "]", "\u202e", "é", ":", "~", "\n"]
    ),
    max_size=12,
)
ROOT = "/run/records"


def path_safe(name: str, kind: str) -> bool:
    """Independent oracle: the name, appended to a folder, names a path that stdlib's normpath
    leaves as written (no '.', '..', empty part, absolute jump) with as many parts as the name
    has; no NUL, backslash or surrounding blanks; '/' only in model names."""
    if "\x00" in name or "\\" in name or name != name.strip():
        return False
    if kind != "model" and "/" in name:
        return False
    joined = ROOT + "/" + name
    return posixpath.normpath(joined) == joined and joined.startswith(ROOT + "/") and not name.startswith("/")


@settings(max_examples=600, deadline=None)
@given(name=HOSTILE, kind=st.sampled_from(NAME_KINDS))
@example(name="org/model", kind="model")
@example(name="..", kind="item")
@example(name="a/../../x", kind="model")
@example(name="/abs", kind="model")
@example(name="", kind="suite")
@example(name="a ", kind="model")
def test_a_name_is_accepted_exactly_when_it_stays_in_its_folder(name, kind):
    problem = check_name(name, kind)
    assert (problem is None) == path_safe(name, kind), (name, kind, problem)
    if problem is not None:
        assert kind in problem  # the message says what kind of name it is


@pytest.mark.parametrize("kind", NAME_KINDS)
@pytest.mark.parametrize(
    "name, words",
    [
        ("", "empty"),
        ("a\x00b", "NUL"),
        ("a\\b", "backslash"),
        (" a", "white space"),
        ("a\t", "white space"),
        ("/a", "absolute"),
        ("..", "'..'"),
        (".", "'.'"),
    ],
)
def test_every_kind_rejects_each_rule_with_its_own_words(name, words, kind):
    problem = check_name(name, kind)
    assert problem is not None and (words in problem or (kind == "model" and "part" in problem)), problem


@pytest.mark.parametrize(
    "name", ["org/model", "a/b/c", "m-1.5", "..a", "a..", "[bold]x[/b]", "[/x", "é\u202e", "x\x1by"]
)
def test_model_names_may_nest_and_hold_any_other_character(name):
    assert check_name(name, "model") is None


@pytest.mark.parametrize("kind", ["item", "attempt", "suite", "reference id"])
def test_only_model_names_hold_a_slash(kind):
    assert "'/'" in check_name("a/b", kind)
    assert check_name("a/b", "model") is None


def test_a_name_that_is_not_a_string_is_a_problem():
    assert "string" in check_name(3, "attempt")


# ---------------------------------------------------------------- special files


def make_special(tmp_path, kind: str) -> str:
    path = tmp_path / f"in-{kind}"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "null-device":  # a /dev/null-like target, reached through a link in a temp folder
        os.symlink("/dev/null", path)
    elif kind == "zero-device":
        os.symlink("/dev/zero", path)
    elif kind == "directory":
        path.mkdir()
    elif kind == "socket":
        s = socket.socket(socket.AF_UNIX)
        s.bind(str(path))
        s.close()
    elif kind == "dangling-link":
        os.symlink(tmp_path / "nothing-here", path)
    else:
        raise AssertionError(kind)
    return str(path)


SPECIAL = {
    "fifo": "a FIFO",
    "null-device": "a device",
    "zero-device": "a device",
    "directory": "a directory",
    "socket": "a socket",
    "dangling-link": "symbolic link to nothing",
}


def call_with_deadline(fn, *args, seconds=10.0):
    """Run fn in a thread: a read that blocks (a FIFO opened without O_NONBLOCK) fails the test
    instead of hanging it."""
    out: dict = {}

    def run():
        try:
            out["value"] = fn(*args)
        except BaseException as exc:
            out["error"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"{fn.__name__} blocked on {args}"
    return out


@pytest.mark.parametrize("kind", sorted(SPECIAL))
def test_a_special_file_is_rejected_at_once_naming_it(tmp_path, kind):
    reader = read_regular_file
    path = make_special(tmp_path, kind)
    out = call_with_deadline(reader, path, "records file")
    error = out.get("error")
    assert isinstance(error, InputError), out
    (problem,) = error.problems
    assert problem.file == path and SPECIAL[kind] in problem.message, problem


def test_a_fifo_swapped_in_after_the_stat_is_caught_by_fstat_without_blocking(tmp_path, monkeypatch):
    fifo = make_special(tmp_path, "fifo")
    regular = tmp_path / "regular"
    regular.write_bytes(b"{}")
    real_stat = os.stat
    monkeypatch.setattr(files.os, "stat", lambda p, *a, **k: real_stat(regular))  # the stat saw a file
    out = call_with_deadline(read_regular_file, fifo, "records file")
    assert isinstance(out.get("error"), InputError) and "a FIFO" in out["error"].problems[0].message


def test_regular_files_are_read_whole_and_through_links(tmp_path):
    data = bytes(range(256)) * 70_000  # more than one read chunk
    (tmp_path / "f").write_bytes(data)
    os.symlink(tmp_path / "f", tmp_path / "link")
    assert read_regular_file(tmp_path / "f") == data
    assert read_regular_file(tmp_path / "link") == data
    (tmp_path / "empty").write_bytes(b"")
    assert read_regular_file(tmp_path / "empty") == b""


def test_nothing_at_the_path_is_a_problem_naming_the_file(tmp_path):
    with pytest.raises(InputError, match="records file not found"):
        read_regular_file(tmp_path / "absent", "records file")


def test_a_size_cap_rejects_a_larger_file_naming_both_sizes(tmp_path):
    (tmp_path / "f").write_bytes(b"x" * 101)
    with pytest.raises(InputError, match="101 bytes, more than the 100 allowed"):
        read_regular_file(tmp_path / "f", "cohort file", max_bytes=100)
    assert read_regular_file(tmp_path / "f", max_bytes=101) == b"x" * 101


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_an_unreadable_file_names_the_permission(tmp_path):
    (tmp_path / "f").write_bytes(b"{}")
    os.chmod(tmp_path / "f", 0)
    with pytest.raises(InputError, match="permission denied"):
        read_regular_file(tmp_path / "f", "reference file")


# ---------------------------------------------------------------- records files


@settings(max_examples=400, deadline=None)
@given(model=HOSTILE, item=HOSTILE, attempt=HOSTILE)
def test_a_records_path_never_leaves_the_records_folder(model, item, attempt):
    names_ok = all(check_name(v, k) is None for v, k in ((model, "model"), (item, "item"), (attempt, "attempt")))
    if not names_ok:
        with pytest.raises(ValueError):
            records_file(ROOT, model, item, attempt)
        return
    path = records_file(ROOT, model, item, attempt)
    assert posixpath.normpath(path) == path and path.startswith(ROOT + "/")
    assert path == f"{ROOT}/{model}/{item}/{attempt}.json"


def test_records_file_of_a_nested_model_sits_in_nested_folders():
    assert records_file("R", "org/model", "s1", "2") == "R/org/model/s1/2.json"


@pytest.fixture
def run_with_links(tmp_path):
    """records/ with a file, a link to a file outside, a folder link outside, a link inside."""
    records = tmp_path / "run" / "records"
    (records / "m" / "s1").mkdir(parents=True)
    (records / "m" / "s1" / "1.json").write_text("[]")
    outside = tmp_path / "elsewhere"
    (outside / "s1").mkdir(parents=True)
    (outside / "secret.json").write_text('{"secret": 1}')
    (outside / "s1" / "1.json").write_text("[]")
    os.symlink(outside / "secret.json", records / "m" / "s1" / "2.json")
    os.symlink(outside, records / "evil")
    os.symlink("1.json", records / "m" / "s1" / "3.json")
    return tmp_path, records


def test_a_records_link_pointing_out_of_the_run_is_rejected(run_with_links):
    _, records = run_with_links
    root = RecordsRoot(records)
    for model, item, attempt in (("m", "s1", "2"), ("evil", "s1", "1")):
        with pytest.raises(InputError, match="outside the records folder") as info:
            root.read(model, item, attempt)
        assert info.value.problems[0].file == os.path.join(str(records), model, item, attempt + ".json")


def test_records_links_inside_and_a_linked_records_folder_are_read(run_with_links):
    tmp_path, records = run_with_links
    root = RecordsRoot(records)
    assert root.read("m", "s1", "1") == (str(records / "m" / "s1" / "1.json"), b"[]")
    assert root.read("m", "s1", "3")[1] == b"[]"  # a link to its neighbour
    assert root.read("m", "s1", "9")[1] is None and root.read("nobody", "s1", "1")[1] is None
    os.symlink(records, tmp_path / "records-link")  # the records folder itself may be a link
    assert RecordsRoot(tmp_path / "records-link").read("m", "s1", "1")[1] == b"[]"


def test_a_records_folder_named_like_the_root_with_a_suffix_is_outside(tmp_path):
    (tmp_path / "records" / "m" / "s1").mkdir(parents=True)
    (tmp_path / "records2").mkdir()
    (tmp_path / "records2" / "x.json").write_text("[]")
    os.symlink(tmp_path / "records2" / "x.json", tmp_path / "records" / "m" / "s1" / "x.json")
    with pytest.raises(InputError, match="outside"):
        RecordsRoot(tmp_path / "records").read("m", "s1", "x")


@pytest.mark.parametrize("kind", sorted(SPECIAL))
def test_a_special_file_where_a_records_file_belongs_is_a_problem_not_no_file(tmp_path, kind):
    (tmp_path / "records" / "m" / "s1").mkdir(parents=True)
    made = make_special(tmp_path, kind)
    os.rename(made, tmp_path / "records" / "m" / "s1" / "1.json")
    out = call_with_deadline(RecordsRoot(tmp_path / "records").read, "m", "s1", "1")
    assert isinstance(out.get("error"), InputError), out
    links_out = ("null-device", "zero-device", "dangling-link")  # made as links to outside records/
    expected = "outside the records folder" if kind in links_out else SPECIAL[kind]
    assert expected in out["error"].problems[0].message


def test_a_bad_name_never_becomes_a_records_path(tmp_path):
    for model, item, attempt in (
        ("../x", "s1", "1"),
        ("m", "..", "1"),
        ("m", "s1", "../../../../x"),
        ("/abs", "s", "1"),
    ):
        with pytest.raises(ValueError):
            RecordsRoot(tmp_path).read(model, item, attempt)


# ---------------------------------------------------------------- outputs


@pytest.fixture
def an_input(tmp_path):
    path = tmp_path / "attempts.csv"
    path.write_bytes(b"model,track\nm,theorem\n")
    return path


def spellings_of(an_input, tmp_path):
    os.link(an_input, tmp_path / "hard")
    os.symlink(an_input, tmp_path / "soft")
    (tmp_path / "sub").mkdir()
    return {
        "itself": str(an_input),
        "hard link": str(tmp_path / "hard"),
        "symlink": str(tmp_path / "soft"),
        "dotted": str(tmp_path / "sub" / ".." / "attempts.csv"),
        "relative": os.path.relpath(an_input),
    }


def test_an_output_that_is_an_input_by_any_spelling_is_rejected_and_nothing_changes(an_input, tmp_path):
    for label, spelling in spellings_of(an_input, tmp_path).items():
        with pytest.raises(InputError, match="output is the input") as info:
            check_output(spelling, [str(an_input)])
        assert info.value.problems[0].file == spelling, label
    assert an_input.read_bytes() == b"model,track\nm,theorem\n"


def test_an_input_named_by_a_link_is_caught_when_the_output_is_the_real_file(an_input, tmp_path):
    os.symlink(an_input, tmp_path / "soft")
    with pytest.raises(InputError, match="output is the input"):
        check_output(an_input, [tmp_path / "soft"])


@pytest.mark.parametrize("kind", ["fifo", "null-device", "directory", "socket"])
def test_an_output_that_is_a_special_file_is_rejected_and_left_as_it_was(tmp_path, kind):
    path = make_special(tmp_path, kind)
    before = os.lstat(path)
    with pytest.raises(InputError, match="an output must be a regular file"):
        check_output(path, [])
    after = os.lstat(path)
    assert (stat.S_IFMT(after.st_mode), after.st_ino) == (stat.S_IFMT(before.st_mode), before.st_ino)


def test_an_output_inside_an_input_folder_is_rejected(tmp_path):
    (tmp_path / "records" / "m").mkdir(parents=True)
    with pytest.raises(InputError, match="inside the input folder"):
        check_output(tmp_path / "records" / "m" / "new.json", [], folders=[tmp_path / "records"])
    assert check_output(tmp_path / "records-out.json", [], folders=[tmp_path / "records"]) is not None


def test_dash_is_standard_output_a_new_or_other_file_is_fine(an_input, tmp_path):
    assert check_output("-", [an_input]) is None
    assert check_output(tmp_path / "new" / "index.json", [an_input]) == tmp_path / "new" / "index.json"
    (tmp_path / "old.json").write_text("{}")
    assert check_output(tmp_path / "old.json", [an_input, tmp_path / "absent"]) == tmp_path / "old.json"


def test_an_empty_output_is_a_usage_error_exit_2(capsys):
    parser = argparse.ArgumentParser(prog="tcsexam score")
    parser.add_argument("--output", type=output_argument)
    with pytest.raises(SystemExit) as info:
        parser.parse_args(["--output", ""])
    assert info.value.code == 2 and "empty --output" in capsys.readouterr().err
    assert parser.parse_args(["--output", "-"]).output == "-"
    with pytest.raises(ValueError):
        check_output("", [])


# ---------------------------------------------------------------- atomic writes under faults


def listing(folder) -> list[str]:
    return sorted(os.listdir(folder))


def test_a_write_replaces_the_file_and_keeps_its_mode(tmp_path):
    target = tmp_path / "out.json"
    target.write_bytes(b"old")
    os.chmod(target, 0o640)
    write_atomic(target, [b"new ", memoryview(b"content")])
    assert target.read_bytes() == b"new content" and stat.S_IMODE(os.stat(target).st_mode) == 0o640
    assert listing(tmp_path) == ["out.json"]


def test_disk_full_names_the_file_removes_the_temp_and_the_made_folders_and_keeps_nothing(tmp_path, monkeypatch):
    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(outputs.os, "fsync", full)
    target = tmp_path / "a" / "b" / "c" / "index.json"
    with pytest.raises(WriteFailed) as info:
        write_atomic(target, b"x" * 10_000)
    assert str(info.value) == f"cannot write {target}: No space left on device"
    assert info.value.errno == errno.ENOSPC and isinstance(info.value, OSError)
    assert listing(tmp_path) == []  # a/, a/b/ and a/b/c/ made by the write are gone


class FillingDisk:
    """A file object whose writes fail with ENOSPC once ``room`` bytes are written."""

    def __init__(self, real, room):
        self.real, self.room = real, room

    def write(self, chunk):
        if len(chunk) > self.room:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.room -= len(chunk)
        return self.real.write(chunk)

    def __getattr__(self, name):
        return getattr(self.real, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return self.real.__exit__(*exc)


def test_the_disk_filling_up_mid_write_names_the_file_and_keeps_the_old_one(tmp_path, monkeypatch):
    target = tmp_path / "out" / "index.json"
    target.parent.mkdir()
    target.write_bytes(b"old index")
    real_fdopen = os.fdopen
    monkeypatch.setattr(outputs.os, "fdopen", lambda fd, mode: FillingDisk(real_fdopen(fd, mode), room=3000))
    with pytest.raises(WriteFailed, match=f"^cannot write {target}: No space left on device$"):
        write_atomic(target, [b"x" * 1000] * 10)
    assert target.read_bytes() == b"old index" and listing(tmp_path / "out") == ["index.json"]


def test_a_failed_write_keeps_the_existing_file_byte_identical_and_its_folder(tmp_path, monkeypatch):
    target = tmp_path / "index.json"
    target.write_bytes(b"precious\x00bytes")
    (tmp_path / "other").write_text("keep")

    def chunks():
        yield b"half of the new "
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    with pytest.raises(WriteFailed, match=f"cannot write {target}: Input/output error"):
        write_atomic(target, chunks())
    assert target.read_bytes() == b"precious\x00bytes" and listing(tmp_path) == ["index.json", "other"]

    def bug():
        yield b"x"
        raise RuntimeError("not an OSError")

    with pytest.raises(RuntimeError):
        write_atomic(target, bug())
    assert target.read_bytes() == b"precious\x00bytes" and listing(tmp_path) == ["index.json", "other"]


def test_a_fifo_put_at_the_target_during_the_write_is_not_replaced(tmp_path):
    target = tmp_path / "out"

    def chunks():
        yield b"data"
        os.mkfifo(target)

    with pytest.raises(InputError, match="a FIFO"):
        write_atomic(target, chunks())
    assert stat.S_ISFIFO(os.lstat(target).st_mode) and listing(tmp_path) == ["out"]


def test_the_signal_handlers_are_those_of_before_after_a_write_and_after_a_failed_one(tmp_path):
    import signal

    before = {s: signal.getsignal(s) for s in outputs.WRITE_SIGNALS}
    write_atomic(tmp_path / "f", b"x")

    def broken():
        yield b"x"
        raise RuntimeError("while writing")

    with pytest.raises(RuntimeError):
        write_atomic(tmp_path / "g", broken())
    assert {s: signal.getsignal(s) for s in outputs.WRITE_SIGNALS} == before


# ---------------------------------------------------------------- terminal text

C0 = [chr(c) for c in range(0x20)]
C1 = [chr(c) for c in range(0x80, 0xA0)]
BIDI = [
    "\u061c",
    "\u200e",
    "\u200f",
    "\u202a",
    "\u202b",
    "\u202c",
    "\u202d",
    "\u202e",
    "\u2066",
    "\u2067",
    "\u2068",
    "\u2069",
]


@pytest.mark.parametrize("char", C0 + ["\x7f"] + C1)
def test_every_control_character_is_shown_as_backslash_x(char):
    assert escape_for_terminal(f"a{char}b") == f"a\\x{ord(char):02x}b"


@pytest.mark.parametrize("char", BIDI + ["\u2028", "\u2029", "\udc80"])
def test_bidi_controls_line_separators_and_lone_surrogates_are_shown_as_backslash_u(char):
    assert escape_for_terminal(f"m{char}") == f"m\\u{ord(char):04x}"


def test_the_attacks_of_the_issue_are_inert():
    osc_title, clear, osc52 = "\x1b]2;pwned\x07", "\x1b[2J", "\x1b]52;c;ZWNobyBoaQ==\x07"
    assert escape_for_terminal(osc_title + clear + osc52) == ("\\x1b]2;pwned\\x07\\x1b[2J\\x1b]52;c;ZWNobyBoaQ==\\x07")


@settings(max_examples=500, deadline=None)
@given(st.text())
def test_escaped_text_holds_no_character_a_terminal_acts_on_and_safe_text_is_unchanged(text):
    out = escape_for_terminal(text)
    assert not any(is_invisible(c) for c in out)  # the bidi controls are format characters (Cf)
    if not any(is_invisible(c) for c in text):
        assert out == text
    out.encode("utf-8")  # printable on a UTF-8 terminal, whatever came in


def test_a_stream_encoding_that_cannot_hold_a_character_gets_it_escaped():
    assert escape_for_terminal("modèle\x1b", "ascii") == "mod\\xe8le\\x1b"
    assert escape_for_terminal("模型🙂", "latin-1") == "\\u6a21\\u578b\\U0001f642"
    assert escape_for_terminal("[bold]x[/", "utf-8") == "[bold]x[/"  # markup is the dashboard's concern


# ---------------------------------------------------------------- overflow


def test_a_sum_of_finite_values_that_overflows_names_the_value():
    with pytest.raises(NumberTooLarge) as info:
        finite_fsum([1.0, 1e308, 1e308], "mean of construction rewards")
    assert info.value.value == 1e308 and "1e+308" in str(info.value) and "construction" in str(info.value)


@pytest.mark.parametrize(
    "values, culprit",
    [([math.inf, 1.0], math.inf), ([-math.inf, math.inf], -math.inf), ([2.0, -1.7e308, -1.7e308], -1.7e308)],
)
def test_infinite_values_and_negative_overflow_are_named(values, culprit):
    with pytest.raises(NumberTooLarge) as info:
        finite_mean(values, "track mean")
    assert abs(info.value.value) == abs(culprit)


def test_finite_means_are_exact_fsum_means():
    assert finite_fsum([0.1] * 10, "x") == 1.0  # plain sum() gives 0.9999999999999999
    assert finite_mean([1e307, 1e307], "x") == 1e307
    assert finite_mean([0.25, 0.5, 1.0], "x") == 0.5833333333333334  # 1.75 / 3


def test_a_product_that_overflows_names_its_input():
    mean = 1e307
    with pytest.raises(NumberTooLarge) as info:
        require_finite(30 * mean, "index", mean)  # 3e308 > max double 1.797e308
    assert info.value.value == 1e307
    assert require_finite(30 * 0.5, "index", 0.5) == 15.0
    big = 2e154
    with pytest.raises(NumberTooLarge):
        require_finite(big * big, "variance", big)  # 4e308


# ---------------------------------------------------------------- decisions: duplicate keys, relative floor


@pytest.mark.parametrize(
    "text, key",
    [
        ('{"a": 1, "a": 2}', "a"),
        ('{"x": {"b": 1, "c": 2, "b": 3}}', "b"),
        ('[{"instance": "i", "A": 1}, {"instance": "j", "A": 2, "A": 3}]', "A"),
        ('{"\\u0061": 1, "a": 2}', "a"),  # the same key spelled with an escape
        ('\ufeff{"k": 1, "k": 1}', "k"),
    ],
)
def test_a_key_twice_in_one_object_is_found(text, key):
    assert find_duplicate_key(text) == key
    assert find_duplicate_key(text.encode("utf-8")) == key
    parsed = orjson.loads(text.removeprefix("\ufeff"))
    assert find_duplicate_key(text.encode("utf-8"), orjson.dumps(parsed)) == key


def test_the_fast_check_of_a_file_without_duplicates_does_not_parse_it_again(monkeypatch):
    monkeypatch.setattr(tcsexam.scoring.formats.json, "_DUPLICATE_DECODER", None)  # a second parse would fail
    text = b'{"a": "x:y", "b:": [{"\\u003a": 1}], "c": "\\\\u003a"}'
    assert find_duplicate_key(text, orjson.dumps(orjson.loads(text))) is None


@pytest.mark.parametrize(
    "text", ['{"a": 1, "b": {"a": 2}}', '[{"a": 1}, {"a": 2}]', '{"a": "a", "b": ["a", "a"]}', "[]", '"a"']
)
def test_the_same_key_in_different_objects_is_not_a_duplicate(text):
    assert find_duplicate_key(text) is None
    assert find_duplicate_key(text, orjson.dumps(orjson.loads(text))) is None


@pytest.mark.parametrize(
    "value, ok",
    [
        (0, True),
        (0.02, True),
        (1, True),
        (1.0000001, False),
        (1e300, False),
        (-0.1, False),
        (math.nan, False),
        (math.inf, False),
    ],
)
def test_a_relative_floor_above_1_is_rejected(value, ok):
    problem = check_relative_floor(value)
    assert (problem is None) == ok
    if not ok:
        assert repr(value) in problem


def oracle_duplicate(text: str) -> str | None:
    """Independent oracle: the standard library's list of pairs of every object."""
    found: list[str] = []

    def hook(pairs):
        keys = [k for k, _ in pairs]
        found.extend(k for i, k in enumerate(keys) if k in keys[:i])
        return dict(pairs)

    json.loads(text, object_pairs_hook=hook)
    return found[0] if found else None


KEYS = st.sampled_from(['"a"', '"a:"', '"\\u003a"', '":"', '"\\\\u003a"', '"\\\\\\u003A"', '"b"', '"b\\"c:"'])
SCALARS = st.sampled_from(["1", '"x:y"', '"\\u003a"', "null", '"\\\\"', "2.5e3", '":::"'])


def objects(children):
    pairs = st.lists(st.tuples(KEYS, children), max_size=4)
    return pairs.map(lambda ps: "{" + ", ".join(f"{k} :{v}" for k, v in ps) + "}")


JSON_TEXT = st.recursive(
    SCALARS, lambda c: objects(c) | st.lists(c, max_size=3).map(lambda xs: "[" + ",".join(xs) + "]"), max_leaves=12
)


@settings(max_examples=800, deadline=None)
@given(JSON_TEXT)
def test_the_fast_duplicate_check_agrees_with_the_standard_library(text):
    expected = oracle_duplicate(text)
    assert find_duplicate_key(text) == expected
    assert find_duplicate_key(text.encode(), orjson.dumps(orjson.loads(text))) == expected


def test_the_safety_module_loads_the_standard_library_only():
    import subprocess
    import sys

    code = (
        "import sys, tcsexam.scoring.safety.names, tcsexam.scoring.safety.files, tcsexam.scoring.safety.outputs, tcsexam.scoring.safety.terminal, tcsexam.scoring.safety.numbers; heavy = {'numpy', 'pydantic', 'orjson', 'msgspec', 'textual', 'rich'}; "
        "print(sorted(heavy & set(sys.modules)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
    )
    assert out.stdout.strip() == "[]"


def test_a_signal_while_the_temp_file_is_made_or_removed_waits_until_that_step_is_done():
    import signal
    import threading

    steps = []
    with pytest.raises(outputs.Interrupted) as info, outputs._signals_raise():
        with outputs._signals_held():
            # sent to this thread, which blocks it: it is delivered as the step unblocks it. Sent to the
            # process (os.kill), another thread of the test runner could take it at any moment (the
            # case the next test covers), and this one failed once in CI when it came after the block
            signal.pthread_kill(threading.get_ident(), signal.SIGTERM)
            steps.append("step finished with the signal pending")
        steps.append("not reached: the signal arrives as the held block ends")
    assert info.value.signum == signal.SIGTERM
    assert steps == ["step finished with the signal pending"]


def test_a_handler_run_during_a_held_step_waits_until_the_step_is_done():
    # the thread mask cannot hold every case: a signal another thread takes, or one already
    # received before the step, makes Python run the handler in the main thread during the step
    # (seen once in the full suite); calling the installed handler there is exactly that
    import signal

    steps = []
    with pytest.raises(outputs.Interrupted) as info, outputs._signals_raise():
        with outputs._signals_held():
            signal.getsignal(signal.SIGTERM)(signal.SIGTERM, None)
            steps.append("step finished")
        steps.append("not reached")
    assert info.value.signum == signal.SIGTERM
    assert steps == ["step finished"]


# ---------------------------------------------------------------- what a write keeps (docs/safety.md)


def test_a_write_to_a_link_goes_to_the_file_it_names_and_the_link_stays(tmp_path):
    (tmp_path / "dated").mkdir()
    dated = tmp_path / "dated" / "index-2025-11-30.json"
    dated.write_bytes(b"old")
    (tmp_path / "latest.json").symlink_to("dated/index-2025-11-30.json")
    (tmp_path / "chain.json").symlink_to("latest.json")  # a link to a link
    write_atomic(tmp_path / "chain.json", b"new")
    assert os.readlink(tmp_path / "chain.json") == "latest.json"
    assert os.readlink(tmp_path / "latest.json") == "dated/index-2025-11-30.json"
    assert dated.read_bytes() == b"new" and listing(tmp_path) == ["chain.json", "dated", "latest.json"]
    assert listing(tmp_path / "dated") == ["index-2025-11-30.json"]  # the temp file was made there


def test_a_link_to_nothing_makes_the_file_it_names(tmp_path):
    (tmp_path / "out.json").symlink_to("made/later.json")
    assert check_output(tmp_path / "out.json") == tmp_path / "out.json"
    write_atomic(tmp_path / "out.json", b"data")
    assert os.readlink(tmp_path / "out.json") == "made/later.json"
    assert (tmp_path / "made" / "later.json").read_bytes() == b"data"


def test_a_proc_link_that_is_not_the_file_it_opens_is_refused(tmp_path):
    # /proc/self/fd/N of a deleted file resolves to "NAME (deleted)": writing there would make a stray file
    gone = tmp_path / "gone.json"
    with gone.open("wb") as fh:
        gone.unlink()
        (tmp_path / "out").symlink_to(f"/proc/self/fd/{fh.fileno()}")
        for call in (lambda: check_output(tmp_path / "out"), lambda: write_atomic(tmp_path / "out", b"x")):
            with pytest.raises(InputError, match="which is not the file it opens"):
                call()
    assert listing(tmp_path) == ["out"]


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_a_write_keeps_the_owner_and_group_of_the_file_it_replaces(tmp_path):
    target = tmp_path / "attempts.csv"
    target.write_bytes(b"old")
    os.chown(target, 65534, 65534)
    os.chmod(target, 0o2640)  # a set-group-id bit survives the change of owner
    write_atomic(target, b"new")
    st = os.stat(target)
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode), target.read_bytes()) == (65534, 65534, 0o2640, b"new")
    new = tmp_path / "new.json"
    write_atomic(new, b"x")  # a new file is the running user's
    assert (os.stat(new).st_uid, os.stat(new).st_gid) == (os.geteuid(), os.getegid())


def test_a_file_with_several_hard_links_is_never_replaced(tmp_path):
    target = tmp_path / "index.json"
    target.write_bytes(b"shared")
    os.link(target, tmp_path / "backup.json")
    with pytest.raises(InputError, match="output has 2 names \\(hard links\\)"):
        check_output(target)
    with pytest.raises(InputError, match="output has 2 names \\(hard links\\)"):
        write_atomic(target, b"new")
    assert target.read_bytes() == (tmp_path / "backup.json").read_bytes() == b"shared"
    assert os.stat(target).st_nlink == 2 and listing(tmp_path) == ["backup.json", "index.json"]


def test_a_file_changed_since_it_was_read_is_not_replaced(tmp_path):
    target = tmp_path / "attempts.csv"
    target.write_bytes(b"as read")
    data, stamp = files.read_regular_file_stamped(target)
    assert data == b"as read"
    write_atomic(target, b"edited once", unchanged=stamp)  # nothing changed: replaced
    _, stamp = files.read_regular_file_stamped(target)
    with target.open("ab") as fh:  # another program appends
        fh.write(b" and by someone else")
    with pytest.raises(InputError, match="changed while the command ran") as info:
        write_atomic(target, b"edited twice", unchanged=stamp)
    assert info.value.problems[0].file == str(target)
    assert target.read_bytes() == b"edited once and by someone else" and listing(tmp_path) == ["attempts.csv"]
    _, stamp = files.read_regular_file_stamped(target)
    (tmp_path / "other").write_bytes(b"edited once and by someone else")
    os.replace(tmp_path / "other", target)  # replaced by a file of the same bytes (sed -i): another file
    with pytest.raises(InputError, match="changed while the command ran"):
        write_atomic(target, b"edited twice", unchanged=stamp)


def run_score_to(output: str, stdout, tmp_path):
    import subprocess
    import sys

    demo = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "sample_runs", "demo")
    return subprocess.run(
        [sys.executable, "-m", "tcsexam.scoring", "score", demo, "--output", output],
        stdout=stdout,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        timeout=120,
    )


def test_output_to_a_link_to_standard_output_writes_the_file_standard_output_is(tmp_path):
    # `--output /dev/stdout > out.json`: the file behind the link gets the output, the link stays.
    # A link of the test's own stands for /dev/stdout (a machine-wide link a bug would replace).
    os.symlink("/proc/self/fd/1", tmp_path / "stdout-link")
    with (tmp_path / "out.txt").open("wb") as stdout:
        done = run_score_to(str(tmp_path / "stdout-link"), stdout, tmp_path)
    assert done.returncode == 3, done.stderr  # the demo leaves one model incomplete
    assert os.readlink(tmp_path / "stdout-link") == "/proc/self/fd/1"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt", "stdout-link"]
    assert json.loads((tmp_path / "out.txt").read_bytes())["suite"] == "lite"  # the index itself
    import subprocess

    piped = run_score_to(str(tmp_path / "stdout-link"), subprocess.PIPE, tmp_path)  # a pipe: refused as before
    assert piped.returncode == 1 and b"output is a FIFO" in piped.stderr
    assert os.readlink(tmp_path / "stdout-link") == "/proc/self/fd/1"
