"""The bad-input corpus (tests/bad_inputs/): every case through the command line.

For each case: the exit code; the message fragment; a fragment naming where
(line, record or field); the file named; no traceback; on rejection no output
appears and an existing output is left byte-identical with no temporary file
beside it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from scoring.cli import main

CORPUS = Path(__file__).resolve().parent / "bad_inputs"
CASES = sorted(p.name for p in CORPUS.iterdir() if (p / "case.json").is_file())
PREVIOUS = b'{"previous": "output"}\n'


def test_the_corpus_is_large_enough():
    kinds = {name.split("-")[0] for name in CASES}
    assert len(CASES) >= 60 and kinds == {"csv", "cohort", "suite", "reference", "records", "tau2"}


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
    argv = [a.format(**values) for a in spec["argv"]]
    unreadable = [str(place(rel)) for rel in spec.get("unreadable", [])]
    return {"argv": argv, "out": out, "unreadable": unreadable}, spec


@pytest.mark.parametrize("case", CASES)
def test_bad_input_case(case, tmp_path, capsys, monkeypatch):
    setup, spec = lay_out(case, tmp_path)
    if setup["unreadable"]:  # running as root, chmod cannot deny reading: make the read fail instead
        import scoring.jsonio

        def guarded_open(file, *args, **kwargs):
            if str(file) in setup["unreadable"]:
                raise PermissionError(13, "Permission denied", str(file))
            return open(file, *args, **kwargs)

        monkeypatch.setattr(scoring.jsonio, "open", guarded_open, raising=False)  # the module's reads only
    try:
        code = main(setup["argv"])
    except SystemExit as exc:  # usage errors
        code = exc.code
    out, err = capsys.readouterr()
    assert code == spec["exit"], err or out
    assert "Traceback" not in err and "Traceback" not in out
    out_file: Path = setup["out"]
    if spec["exit"] == 1:
        assert spec["message"] in err, err
        assert spec["where"] in err, err
        assert out_file.read_bytes() == PREVIOUS  # nothing written, nothing lost
        assert [p.name for p in out_file.parent.iterdir()] == ["result.json"]  # no temporary file left
        assert "problem" in err.splitlines()[-1]  # the count closes the report
    else:
        assert spec["message"] in out, out
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
