"""A run's records packed in one file, RUN_DIR/records.jsonl (docs/formats.md#packed-records,
docs/commands.md#pack): scored exactly as the same records in records/, refused line by line with
the folder layout's words, written by ``pack`` without touching records/, read by fill and verify."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tcsexam.scoring.pipeline.benchmark import sample_root
from tests.bench.synth import write_run

BENCH = str(sample_root() / "benchmark")
LINE_KEYS = ("model", "item", "attempt", "records")


def packed_by_hand(run: Path) -> bytes:
    """records.jsonl written from records/ by this test, not by ``pack``: one line per file, the file's
    list as it is parsed, in path order."""
    lines = []
    for path in sorted((run / "records").rglob("*.json")):
        parts = path.relative_to(run / "records").parts
        line = {"model": "/".join(parts[:-2]), "item": parts[-2], "attempt": parts[-1][: -len(".json")]}
        line["records"] = json.loads(path.read_text(encoding="utf-8"))
        lines.append(json.dumps(line) + "\n")
    return "".join(lines).encode()


def packed_copy(run: Path, target: Path, data: bytes | None = None) -> Path:
    """``run`` without records/, with records.jsonl holding ``data`` (default: its records packed by hand)."""
    shutil.copytree(run, target, ignore=shutil.ignore_patterns("records", "build", "solver-scores"))
    (target / "records.jsonl").write_bytes(packed_by_hand(run) if data is None else data)
    return target


def scored(cli, run: Path, out: Path) -> dict:
    code, _, err = cli("score", str(run), "--benchmark", BENCH, "--output", str(out))
    assert code in (0, 3), err  # 3: written, some model incomplete (the demo's)
    return json.loads(out.read_text(encoding="utf-8"))


def apart_from_records_input(doc: dict) -> dict:
    skip = ("generated_at", "content_sha256", "inputs")
    inputs = {k: v for k, v in doc["provenance"]["inputs"].items() if k != "records"}
    return {**doc, "provenance": {**{k: v for k, v in doc["provenance"].items() if k not in skip}, "inputs": inputs}}


def same_but_records_input(folder_doc: dict, packed_doc: dict, packed_run: Path) -> None:
    a, b = apart_from_records_input(folder_doc), apart_from_records_input(packed_doc)
    for doc in (a, b):  # the other inputs' paths differ only by the run folder's name
        for entry in doc["provenance"]["inputs"].values():
            entry["path"] = Path(entry["path"]).name
    assert a == b
    records = packed_doc["provenance"]["inputs"]["records"]
    assert records["path"] == str((packed_run / "records.jsonl").resolve())
    assert records["files"] == folder_doc["provenance"]["inputs"]["records"]["files"]


# --- scored as the folder layout ---------------------------------------------------------------------


def test_the_demo_packed_is_scored_as_its_records_folder(cli, demo_copy, tmp_path):
    folder_doc = scored(cli, demo_copy, tmp_path / "folder.json")
    packed = packed_copy(demo_copy, tmp_path / "packed")
    packed_doc = scored(cli, packed, tmp_path / "packed.json")
    same_but_records_input(folder_doc, packed_doc, packed)
    assert folder_doc["provenance"]["inputs"]["records"]["files"] == 25  # every records file of the demo checked


def test_a_generated_run_with_unused_and_unchecked_records_is_scored_as_its_folder(cli, tmp_path):
    run = tmp_path / "run"
    write_run(run, models=3, attempts=2, suite_name="lite")
    # a file of a model outside the cohort, and a solver row whose file is missing: findings, not problems
    ghost = run / "records" / "ghost-model" / "sat-race" / "1.json"
    ghost.parent.mkdir(parents=True)
    ghost.write_text('[{"instance": "x", "status": "ok", "solved": true}]')
    (run / "records" / "model-001" / "sat-race" / "2.json").unlink()
    folder_doc = scored(cli, run, tmp_path / "folder.json")
    packed = packed_copy(run, tmp_path / "packed")
    packed_doc = scored(cli, packed, tmp_path / "packed.json")
    same_but_records_input(folder_doc, packed_doc, packed)
    unused = packed_doc["unused_records"]
    assert [(u["file"], u["reason"]) for u in unused] == [
        ("ghost-model/sat-race/1.json", "model 'ghost-model' is not in the cohort")
    ]
    warned = [i["message"] for i in packed_doc["models"]["model-001"]["issues"]]
    assert any("no records file records/model-001/sat-race/2.json" in m for m in warned)


def test_records_named_with_the_records_option_may_be_a_packed_file(cli, demo_copy, tmp_path):
    folder_doc = scored(cli, demo_copy, tmp_path / "folder.json")
    packed = tmp_path / "elsewhere.jsonl"
    packed.write_bytes(packed_by_hand(demo_copy))
    shutil.rmtree(demo_copy / "records")
    out = tmp_path / "option.json"
    code, _, err = cli("score", str(demo_copy), "--records", str(packed), "--benchmark", BENCH, "--output", str(out))
    assert code in (0, 3), err
    doc = json.loads(out.read_text())
    assert apart_from_records_input(doc) == apart_from_records_input(folder_doc)
    assert doc["provenance"]["inputs"]["records"]["path"] == str(packed.resolve())


# --- refused ------------------------------------------------------------------------------------------


def test_a_file_that_is_no_packed_records_file_is_one_problem_not_one_a_line(cli, demo_copy):
    """--records attempts.csv (a slip): one problem saying what a packed records file holds, not a
    hundred 'invalid JSON' lines; a packed file whose one line is cut short keeps its own line and column."""
    table = demo_copy / "attempts.csv"
    lines = len(table.read_text().splitlines())
    code, _, err = cli("validate", str(demo_copy), "--records", str(table), "--benchmark", BENCH)
    assert code == 1
    assert err.splitlines()[:2] == [
        f"{table}: 1 problem",
        f"  {table}: not a packed records file: none of its {lines} lines is JSON (each line holds one object of "
        "model, item, attempt, records); line 1: invalid JSON: invalid character",
    ]
    cut = demo_copy / "cut.jsonl"
    cut.write_text('{"model": "atlas-70b"')
    code, _, err = cli("validate", str(demo_copy), "--records", str(cut), "--benchmark", BENCH)
    assert code == 1 and f"{cut}: line 1 column 22: invalid JSON" in err


def test_a_run_with_both_records_and_records_jsonl_is_refused(cli, demo_copy):
    (demo_copy / "records.jsonl").write_bytes(packed_by_hand(demo_copy))
    code, _, err = cli("score", str(demo_copy), "--benchmark", BENCH)
    assert code == 1
    assert f"{demo_copy / 'records.jsonl'}: the run holds both records/ and records.jsonl" in err
    assert not (demo_copy / "build").exists()


def demo_lines(demo: Path) -> list[dict]:
    return [json.loads(line) for line in packed_by_hand(demo).decode().splitlines()]


def dumped(lines: list) -> bytes:
    return "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines).encode()


def bad_lines(case: str, lines: list[dict]) -> list:
    """The demo's lines with one broken as ``case`` says; the broken line is line 2."""
    second = dict(lines[1])
    if case == "bad JSON":
        return [lines[0], json.dumps(second)[:-1], *lines[2:]]
    if case == "missing field":
        del second["attempt"]
    elif case == "wrong type":
        second["attempt"] = 1
    elif case == "records not a list":
        second["records"] = {"instance": "x"}
    elif case == "unknown field":
        second["task"] = second.pop("item")
    elif case == "name out of the folder":
        second["model"] = "../elsewhere"
    elif case == "duplicate key":
        text = json.dumps(second)
        return [lines[0], text.replace('"model": ', '"model": "x", "model": ', 1), *lines[2:]]
    elif case == "duplicate key in a record":
        text = json.dumps(second)  # the second record's status twice
        at = text.index('"status": ', text.index('"status": ') + 1)
        return [lines[0], text[:at] + '"status": "ok", ' + text[at:], *lines[2:]]
    elif case == "duplicate line":
        return [lines[0], lines[0], *lines[2:]]
    elif case == "empty line":
        return [lines[0], "", *lines[2:]]
    return [lines[0], second, *lines[2:]]


BAD = {
    "bad JSON": ("line 2 column", "", "invalid JSON"),
    "missing field": ("line 2", "attempt", "missing"),
    "wrong type": ("line 2", "attempt", "string"),
    "records not a list": ("line 2", "records", "expected a JSON list of instance records, found object"),
    "unknown field": ("line 2", "task", ""),
    "name out of the folder": ("line 2", "model", "model name has an empty, '.' or '..' part between its '/'"),
    "duplicate key": ("line 2", "model", "key 'model' appears twice in one object"),
    "duplicate key in a record": ("line 2, record 1:", "status", "key 'status' appears twice in one object"),
    "duplicate line": ("line 2", "", "line 1 holds the same model 'atlas-70b', item 'maxcut-mqlib', attempt '1'"),
    "empty line": ("line 2", "", "empty line"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_line_is_refused_naming_file_line_and_field(cli, demo_copy, tmp_path, case):
    packed = packed_copy(demo_copy, tmp_path / "packed", dumped(bad_lines(case, demo_lines(demo_copy))))
    code, _, err = cli("score", str(packed), "--benchmark", BENCH)
    where, field, words = BAD[case]
    assert code == 1
    problem = next(line for line in err.splitlines() if line.startswith(f"  {packed / 'records.jsonl'}: {where}"))
    if field:
        assert f"field '{field}'" in problem
    assert words.lower() in problem.lower()
    assert "Traceback" not in err
    assert not (packed / "build").exists()


def test_a_bad_record_in_a_line_is_refused_in_the_folder_layouts_words(cli, demo_copy, tmp_path):
    path = demo_copy / "records" / "atlas-70b" / "maxcut-mqlib" / "1.json"
    records = json.loads(path.read_text())
    records[3]["A"] = "many"
    lost = records[5]["instance"]  # scored, and now without a record: named too (docs/commands.md#validate)
    records[5]["instance"] = records[4]["instance"]
    path.write_text(json.dumps(records))
    code, _, folder_err = cli("score", str(demo_copy), "--benchmark", BENCH)
    assert code == 1
    packed = packed_copy(demo_copy, tmp_path / "packed")
    code, _, packed_err = cli("score", str(packed), "--benchmark", BENCH)
    assert code == 1

    def problems(err: str, prefix: str) -> list[str]:
        return [line.removeprefix(f"  {prefix}") for line in err.splitlines() if line.startswith(f"  {prefix}")]

    line = 1 + sorted(p.relative_to(demo_copy / "records") for p in (demo_copy / "records").rglob("*.json")).index(
        Path("atlas-70b/maxcut-mqlib/1.json")
    )
    in_folder = problems(folder_err, f"{path}: ")
    # 'records.jsonl: line 5, record 3 ...' for a record, 'records.jsonl: line 5: field ...' for the file
    at_line = problems(packed_err, f"{packed / 'records.jsonl'}: line {line}")
    in_packed = [p.removeprefix(", ").removeprefix(": ") for p in at_line]
    assert len(in_folder) == 3 and in_packed == in_folder
    assert in_folder[0].startswith("record 3 ('MAX0032'): field 'A'") and "field 'instance'" in in_folder[1]
    assert in_folder[2].startswith("field 'instance': ") and in_folder[2].endswith(f"has no record: {lost}")


@pytest.mark.parametrize("command", [("score",), ("compare", "--models", "atlas-70b", "cirrus-mini")])
def test_an_output_over_the_packed_file_is_refused(cli, demo_copy, tmp_path, command):
    packed = packed_copy(demo_copy, tmp_path / "packed")
    before = (packed / "records.jsonl").read_bytes()
    code, _, err = cli(
        command[0], str(packed), *command[1:], "--benchmark", BENCH, "--output", str(packed / "records.jsonl")
    )
    assert code == 1
    assert "writing it would destroy the input" in err
    assert (packed / "records.jsonl").read_bytes() == before


# --- pack -----------------------------------------------------------------------------------------------


def test_pack_writes_the_lines_of_records_and_keeps_records(cli, demo_copy, tmp_path):
    before = {p: p.read_bytes() for p in (demo_copy / "records").rglob("*.json")}
    code, out, err = cli("pack", str(demo_copy))
    assert code == 0, err
    assert "25 records files" in out
    assert {p: p.read_bytes() for p in (demo_copy / "records").rglob("*.json")} == before  # records/ untouched
    lines = [json.loads(line) for line in (demo_copy / "records.jsonl").read_text().splitlines()]
    assert lines == demo_lines(demo_copy)  # the same names, the same records, in path order
    assert all(tuple(line) == LINE_KEYS for line in lines)
    # a run holding both is refused: with records/ moved away, it is scored as the folder was
    moved = tmp_path / "run"
    shutil.copytree(demo_copy, moved)
    shutil.rmtree(moved / "records")
    (demo_copy / "records.jsonl").unlink()
    same_but_records_input(scored(cli, demo_copy, tmp_path / "f.json"), scored(cli, moved, tmp_path / "p.json"), moved)


def test_pack_refuses_to_replace_records_jsonl_without_overwrite(cli, demo_copy):
    target = demo_copy / "records.jsonl"
    target.write_bytes(b"old\n")
    code, _, err = cli("pack", str(demo_copy))
    assert code == 1
    assert "already there: pass --overwrite" in err
    assert target.read_bytes() == b"old\n"
    code, _, err = cli("pack", str(demo_copy), "--overwrite")
    assert code == 0, err
    assert target.read_bytes() == packed_by_hand(demo_copy).replace(b", ", b",").replace(b": ", b":")


@pytest.mark.parametrize("case", ["not a list", "bad JSON", "not at model/item/attempt"])
def test_pack_refuses_a_records_file_it_cannot_pack_and_writes_nothing(cli, demo_copy, case):
    if case == "not a list":
        bad = demo_copy / "records" / "atlas-70b" / "sat-race" / "2.json"
        bad.write_text('{"instance": "x"}')
        words = "expected a JSON list of instance records, found object"
    elif case == "bad JSON":
        bad = demo_copy / "records" / "atlas-70b" / "sat-race" / "2.json"
        bad.write_text('[{"instance": "x",]')
        words = "line 1 column"
    else:
        bad = demo_copy / "records" / "stray.json"
        bad.write_text("[]")
        words = "not at records/<model>/<item>/<attempt>.json"
    code, _, err = cli("pack", str(demo_copy))
    assert code == 1
    assert f"  {bad}: " in err and words in err
    assert not (demo_copy / "records.jsonl").exists()


def test_pack_without_records_is_refused(cli, demo_copy):
    shutil.rmtree(demo_copy / "records")
    code, _, err = cli("pack", str(demo_copy))
    assert code == 1
    assert "records folder not found" in err
    assert not (demo_copy / "records.jsonl").exists()


@pytest.mark.parametrize(
    "command", [("score",), ("compare", "--models", "atlas-70b", "cirrus-mini"), ("plan", "--target", "5")]
)
def test_an_output_where_the_run_would_read_packed_records_is_refused(cli, demo_copy, command):
    """A run with records/ and no records.jsonl: an output named records.jsonl in the run would make
    a run that every command refuses (both layouts), or read as its records once records/ is gone;
    --records naming the records for this command does not change what the folder holds."""
    before = sorted(p.relative_to(demo_copy) for p in demo_copy.rglob("*"))
    output = demo_copy / "records.jsonl"
    for records in ((), ("--records", str(demo_copy / "records"))):
        code, _, err = cli(
            command[0], str(demo_copy), *command[1:], *records, "--benchmark", BENCH, "--output", str(output)
        )
        assert code == 1, err
        assert f"{output}: output is {output}, which the run reads as an input once it is there" in err
        assert "Traceback" not in err
        assert sorted(p.relative_to(demo_copy) for p in demo_copy.rglob("*")) == before


def test_a_suite_or_reference_named_by_name_is_no_file_an_output_must_avoid(cli, demo_copy, tmp_path, monkeypatch):
    """--suite lite and --reference lite name the benchmark's own files, not a file 'lite' here."""
    monkeypatch.chdir(tmp_path)
    code, _, err = cli("score", str(demo_copy), "--suite", "lite", "--benchmark", BENCH, "--output", "lite")
    assert code in (0, 3) and (tmp_path / "lite").is_file(), err
    records = str(demo_copy / "records" / "atlas-70b" / "maxcut-mqlib" / "1.json")
    code, _, err = cli(
        "solver-score", "--task", "maxcut-mqlib", "--reference", "lite", "--records", records,
        "--benchmark", BENCH, "--output", "full",
    )  # fmt: skip
    assert code == 0 and (tmp_path / "full").is_file(), err


# --- fill and verify ----------------------------------------------------------------------------------------


def emptied_row(run: Path, prefix: str) -> tuple[str, str]:
    """Empty the score of the attempts.csv row starting with ``prefix``; (its line, its score)."""
    table = (run / "attempts.csv").read_text()
    row = next(line for line in table.splitlines() if line.startswith(prefix))
    cells = row.split(",")
    score = cells[4]
    cells[4], cells[6] = "", "missing"
    (run / "attempts.csv").write_text(table.replace(row, ",".join(cells)))
    return ",".join(cells), score


def test_fill_scores_a_packed_run(cli, demo_copy, tmp_path):
    packed = packed_copy(demo_copy, tmp_path / "packed")
    _, score = emptied_row(packed, "atlas-70b,solver,maxcut-mqlib,2,")
    code, out, err = cli("fill", str(packed), "--benchmark", BENCH)
    assert code == 0, err
    assert "filled 1," in out
    row = next(
        r
        for r in (packed / "attempts.csv").read_text().splitlines()
        if r.startswith("atlas-70b,solver,maxcut-mqlib,2,")
    )
    assert float(row.split(",")[4]) == pytest.approx(float(score), abs=1e-12)  # the demo's own score
    assert (packed / "solver-scores" / "atlas-70b" / "maxcut-mqlib" / "2.json").is_file()


def test_a_conflict_of_a_packed_run_names_the_line_its_score_came_from(cli, demo_copy, tmp_path):
    lines = demo_lines(demo_copy)
    packed = packed_copy(demo_copy, tmp_path / "packed")
    at = next(k for k, line in enumerate(lines) if line["item"] == "maxcut-mqlib" and line["attempt"] == "2")
    table = (packed / "attempts.csv").read_text()
    row = next(r for r in table.splitlines() if r.startswith(f"{lines[at]['model']},solver,maxcut-mqlib,2,"))
    cells = row.split(",")
    cells[4] = "0.125"  # not what its records give
    (packed / "attempts.csv").write_text(table.replace(row, ",".join(cells)))
    code, _, err = cli("fill", str(packed), "--benchmark", BENCH)
    assert code == 1
    assert f"CSV score 0.125 of ({lines[at]['model']}, maxcut-mqlib, attempt 2)" in err
    assert f"scored from {packed / 'records.jsonl'} line {at + 1} against" in err


def test_fill_refuses_a_bad_record_of_a_packed_run_by_line(cli, demo_copy, tmp_path):
    lines = demo_lines(demo_copy)
    lines[1]["records"][0]["status"] = "fine"
    packed = packed_copy(demo_copy, tmp_path / "packed", dumped(lines))
    emptied_row(packed, f"{lines[1]['model']},solver,{lines[1]['item']},{lines[1]['attempt']},")
    before = (packed / "attempts.csv").read_bytes()
    code, _, err = cli("fill", str(packed), "--benchmark", BENCH)
    assert code == 1
    assert f"{packed / 'records.jsonl'}: line 2, record 0" in err and "field 'status'" in err
    assert (packed / "attempts.csv").read_bytes() == before
    assert not (packed / "solver-scores").exists()


def test_verify_checks_a_packed_run_and_sees_it_change(cli, demo_copy, tmp_path):
    packed = packed_copy(demo_copy, tmp_path / "packed")
    out = tmp_path / "index.json"
    scored(cli, packed, out)
    code, text, err = cli("verify", str(out))
    assert code == 0, text + err
    data = (packed / "records.jsonl").read_bytes()
    assert data.count(b'"wall_seconds": 63.0') >= 1  # a key the score does not read
    (packed / "records.jsonl").write_bytes(data.replace(b'"wall_seconds": 63.0', b'"wall_seconds": 64.0', 1))
    code, text, err = cli("verify", str(out))
    assert code != 0
    assert f"input records: {(packed / 'records.jsonl').resolve()}" in text + err


def test_every_line_pack_writes_validates_against_the_schema_of_a_line(cli, demo_copy):
    import jsonschema

    from tcsexam.scoring.formats.schemas import schema

    validator = jsonschema.Draft202012Validator(schema("packed-records-line"))
    assert cli("pack", str(demo_copy))[0] == 0
    lines = [json.loads(line) for line in (demo_copy / "records.jsonl").read_text().splitlines()]
    assert len(lines) == 25
    for line in lines:
        assert validator.is_valid(line), list(validator.iter_errors(line))
    good = lines[0]
    for bad in (
        {k: v for k, v in good.items() if k != "attempt"},
        {**good, "attempt": 1},
        {**good, "task": good["item"]},
        {**good, "records": {"instance": "x"}},
        {**good, "records": [{"instance": "x", "status": "fine"}]},
    ):
        assert not validator.is_valid(bad)


# --- read by offset -------------------------------------------------------------------------------------


def test_a_line_is_read_again_only_from_the_file_that_was_loaded(demo_copy, tmp_path):
    import os
    import pickle

    from tcsexam.scoring.errors import InputError
    from tcsexam.scoring.formats.packed import PackedRecords

    file = tmp_path / "records.jsonl"
    file.write_bytes(packed_by_hand(demo_copy))
    root = PackedRecords.load(file)
    path, data = root.read("atlas-70b", "maxcut-mqlib", "2")
    expected = (demo_copy / "records" / "atlas-70b" / "maxcut-mqlib" / "2.json").read_text()
    assert data is not None and json.loads(data) == json.loads(expected)
    again = pickle.loads(pickle.dumps(root))  # as the dashboard's loader process sends it back
    assert again.read_path(path) == data
    # the same bytes written again (a new mtime and ctime), then a line replaced: never read as checked
    os.utime(file, ns=(0, 0))
    with pytest.raises(InputError) as caught:
        root.read_path(path)
    assert (
        str(caught.value)
        == f"{file}: changed or moved since it was read (another program wrote to it): run the command again"
    )
    file.unlink()
    with pytest.raises(InputError):
        again.read_path(path)
