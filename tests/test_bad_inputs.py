"""The bad-input corpus (tests/bad_inputs/): every case through the command line.

For each case: the exit code; the message fragment; a fragment naming where
(line, record or field); the file named; no traceback; on rejection no output
appears and an existing output is left byte-identical with no temporary file
beside it; files listed as ``unchanged`` (inputs an output was aimed at) keep
their bytes; nothing printed holds a raw control character (docs/safety.md). Special
files (FIFOs, links to devices) are made in the case's temporary folder.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
from pathlib import Path

import pytest

from tcsexam.scoring.commands.main import main

CORPUS = Path(__file__).resolve().parent / "bad_inputs"
CASES = sorted(p.name for p in CORPUS.iterdir() if (p / "case.json").is_file())
PREVIOUS = b'{"previous": "output"}\n'


def test_the_corpus_is_large_enough():
    kinds = {name.split("-")[0] for name in CASES}
    assert len(CASES) >= 60 and kinds == {"csv", "cohort", "suite", "reference", "records", "tau2", "output"}


def lay_out(case: str, tmp: Path) -> tuple[dict, dict]:
    spec = json.loads((CORPUS / case / "case.json").read_text())
    work = tmp / "w"
    shutil.copytree(CORPUS / "_base", work)
    case_dir = work / "case"
    case_dir.mkdir()
    for src in (CORPUS / case).rglob("*"):
        if src.is_file() and src.name != "case.json":
            rel = src.relative_to(CORPUS / case)
            dest = (work / rel) if rel.parts[0] in ("run", "bench") else (case_dir / rel)
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(src.read_bytes())

    def place(rel: str) -> Path:
        return (work / rel) if rel.split("/")[0] in ("run", "bench") else (case_dir / rel)

    for rel in spec.get("remove", []):
        place(rel).unlink()
    for rel in spec.get("make_dir", []):
        target = place(rel)
        if target.exists():
            target.unlink()
        target.mkdir(parents=True)
    out = tmp / "out" / "result.json"
    out.parent.mkdir()
    out.write_bytes(PREVIOUS)
    values = {"run": str(work / "run"), "bench": str(work / "bench"), "case": str(case_dir), "out": str(out)}
    for rel in spec.get("make_fifo", []):  # docs/safety.md: a FIFO where a file belongs, made here (no root needed)
        target = place(rel)
        if target.exists():
            target.unlink()
        target.parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(target)
    for rel, target in spec.get("symlink", {}).items():  # targets such as /dev/null are only pointed at
        link = place(rel)
        if link.exists() or link.is_symlink():
            link.unlink()
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(target.format(**values))
    for rel, source in spec.get("hardlink", {}).items():
        link = place(rel)
        link.parent.mkdir(parents=True, exist_ok=True)
        os.link(place(source), link)
    argv = [a.format(**values) for a in spec["argv"]]
    unreadable = [str(place(rel)) for rel in spec.get("unreadable", [])]
    unchanged = {rel: (place(rel).read_bytes(), place(rel).is_symlink()) for rel in spec.get("unchanged", [])}
    links = {rel: os.readlink(place(rel)) for rel in spec.get("symlink", {})}
    return {
        "argv": argv,
        "out": out,
        "unreadable": unreadable,
        "unchanged": unchanged,
        "place": place,
        "links": links,
    }, spec


def no_raw_control(text: str) -> bool:
    """docs/safety.md: no ESC, BEL, C1 control or bidi override reaches the terminal raw."""
    return not any(c in text for c in "\x1b\x07\x9b\u202e\u202d")


class Blocked(Exception):
    pass


def _blocked(signum, frame):
    raise Blocked("the command blocked (a FIFO read?)")


@pytest.mark.parametrize("case", CASES)
def test_bad_input_case(case, tmp_path, capsys, monkeypatch):
    setup, spec = lay_out(case, tmp_path)
    if setup["unreadable"]:  # running as root, chmod cannot deny reading: make the read fail instead
        real_open = os.open

        def guarded_open(file, *args, **kwargs):
            if os.fspath(file) in setup["unreadable"]:
                raise PermissionError(13, "Permission denied", os.fspath(file))
            return real_open(file, *args, **kwargs)

        monkeypatch.setattr(os, "open", guarded_open)  # safety.read_regular_file, the one reader
    previous = signal.signal(signal.SIGALRM, _blocked)
    signal.alarm(60)  # a FIFO read that blocks fails the case instead of hanging the suite
    try:
        code = main(setup["argv"])
    except SystemExit as exc:  # usage errors
        code = exc.code
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    out, err = capsys.readouterr()
    assert code == spec["exit"], err or out
    assert "Traceback" not in err and "Traceback" not in out
    assert no_raw_control(out) and no_raw_control(err), (out, err)
    if spec.get("escaped"):  # the name is shown, escaped
        assert spec["escaped"] in out + err, (out, err)
    for rel, (before, was_link) in setup["unchanged"].items():  # an output aimed at an input left it alone
        assert setup["place"](rel).read_bytes() == before and setup["place"](rel).is_symlink() == was_link, rel
    for rel, target in setup["links"].items():  # a link (e.g. to /dev/null) is never replaced
        assert os.readlink(setup["place"](rel)) == target, rel
    out_file: Path = setup["out"]
    if spec.get("stdout_json"):  # --output -: the JSON document on stdout, the summary on stderr
        assert code == 0 and json.loads(out) and spec["message"] in err, err
        assert out_file.read_bytes() == PREVIOUS
        return
    if spec["exit"] == 2:
        assert spec["message"] in err, err
        assert out_file.read_bytes() == PREVIOUS
        return
    if spec["exit"] == 1:
        assert spec["message"] in err, err
        assert spec["where"] in err, err
        assert out_file.read_bytes() == PREVIOUS  # nothing written, nothing lost
        assert [p.name for p in out_file.parent.iterdir()] == ["result.json"]  # no temporary file left
        assert "problem" in err.splitlines()[-1]  # the count closes the report
    else:
        assert spec["message"] in out, out
        if spec.get("writes_nothing"):
            assert out_file.read_bytes() == PREVIOUS
        else:
            assert out_file.read_bytes() != PREVIOUS and json.loads(out_file.read_text())


def test_the_corpus_is_what_make_cases_writes(tmp_path):
    from tests.bad_inputs.make_cases import write_all

    write_all(tmp_path)
    written = {p.relative_to(tmp_path): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    stored = {
        p.relative_to(CORPUS): p.read_bytes()
        for p in CORPUS.rglob("*")
        if p.is_file() and p.suffix != ".py" and "__pycache__" not in p.parts
    }
    assert written == stored
