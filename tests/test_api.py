"""The Python API (docs/api.md): what it returns is what the commands write, from a folder or from
objects in memory, and a rejected input raises InputError naming the object, the row or record and
the field, as the command line names file, line and field."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

import tcsexam
from tcsexam import api
from tcsexam.scoring.pipeline.benchmark import demo_run

MODELS = ("atlas-70b", "borealis-8x22b")


def without_place_and_time(document: dict) -> dict:
    """The document less what differs between two scorings of the same inputs: when, and where the inputs sat."""
    prov = dict(document["provenance"])
    del prov["generated_at"]
    prov["inputs"] = {name: {k: v for k, v in e.items() if k != "path"} for name, e in prov["inputs"].items()}
    return {**document, "provenance": prov}


def without_bytes(document: dict) -> dict:
    """The document less the hashes of its inputs' bytes (and so its own): objects written as files
    are the same values in other bytes than a folder's."""
    prov = {k: v for k, v in document["provenance"].items() if k not in ("generated_at", "content_sha256", "inputs")}
    return {**document, "provenance": prov}


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> dict[str, dict]:
    """What the commands write for the demo: index.json and the compare output of MODELS."""
    from tcsexam.scoring.commands.main import main

    folder = tmp_path_factory.mktemp("cli")
    assert main(["score", str(demo_run()), "--output", str(folder / "index.json")]) == 3
    assert main(["compare", str(demo_run()), "--models", *MODELS, "--output", str(folder / "compare.json")]) == 0
    return {name: json.loads((folder / f"{name}.json").read_text()) for name in ("index", "compare")}


@pytest.fixture(scope="module")
def scored() -> api.Index:
    return api.score(api.load_run(api.demo_run()))


def demo_objects() -> tuple[dict, list[dict], dict]:
    """The demo run read by hand into the objects ``run_from_objects`` takes."""
    folder = demo_run()
    cohort = json.loads((folder / "cohort.json").read_text())
    with open(folder / "attempts.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    root = folder / "records"
    records = {
        (str(p.parent.parent.relative_to(root)), p.parent.name, p.stem): json.loads(p.read_text())
        for p in root.rglob("*.json")
    }
    return cohort, rows, records


def test_score_is_what_tcsexam_score_writes(scored, written):
    assert without_place_and_time(scored.data) == without_place_and_time(written["index"])
    assert scored.data["provenance"]["content_sha256"] == written["index"]["provenance"]["content_sha256"]
    assert isinstance(scored.document, api.IndexDocument)
    assert msgspec.to_builtins(scored.document) == scored.data
    assert scored.status == written["index"]["status"] == "incomplete"


def test_compare_is_what_tcsexam_compare_writes(scored, written):
    result = api.compare(scored, *MODELS)
    assert isinstance(result, api.CompareDocument)
    assert json.loads(msgspec.json.encode(result)) == written["compare"]


def test_findings_are_what_tcsexam_validate_json_lists(scored, capsys):
    from tcsexam.scoring.commands.main import main

    assert main(["validate", str(demo_run()), "--json"]) == 3
    listed = json.loads(capsys.readouterr().out)["findings"]
    assert [msgspec.to_builtins(f) for f in scored.findings] == listed and len(listed) == 6
    assert all(isinstance(f, api.ValidateFinding) for f in scored.findings)


def test_a_stored_index_reads_back_as_written(scored, written, tmp_path):
    scored.write(tmp_path / "index.json")
    stored = api.read_index(tmp_path / "index.json")
    assert stored.data == scored.data and stored.edited is None and stored.file == str(tmp_path / "index.json")
    with pytest.raises(ValueError, match=r"score\(load_run"):
        stored.instances_frame()
    with pytest.raises(ValueError, match=r"score\(load_run"):
        api.compare(stored, *MODELS)


def test_an_edited_index_says_so_and_a_malformed_one_names_the_field(scored, tmp_path):
    edited = json.loads(json.dumps(scored.data))
    edited["models"]["atlas-70b"]["index"] = 99.0
    (tmp_path / "edited.json").write_text(json.dumps(edited))
    assert "edited after tcsexam score" in api.read_index(tmp_path / "edited.json").edited
    edited["models"]["atlas-70b"]["index"] = "high"
    (tmp_path / "bad.json").write_text(json.dumps(edited))
    with pytest.raises(api.InputError) as error:
        api.read_index(tmp_path / "bad.json")
    (problem,) = error.value.problems
    assert problem.file == str(tmp_path / "bad.json") and "models.atlas-70b" in problem.where
    assert problem.field == "index"


def test_a_run_from_objects_scores_as_its_folder_and_names_its_inputs(scored):
    same = api.score(api.run_from_objects(*demo_objects()))
    assert without_bytes(same.data) == without_bytes(scored.data)
    assert (
        same.data["provenance"]["inputs"]["records"]["files"] == scored.data["provenance"]["inputs"]["records"]["files"]
    )
    assert {name: e["path"] for name, e in same.data["provenance"]["inputs"].items() if name != "suite"} == {
        "cohort": "cohort",
        "attempts": "rows",
        "records": "records",
        "reference": str(same.data["provenance"]["inputs"]["reference"]["path"]),
    }
    assert "tcsexam-run-" not in json.dumps(same.data)


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_rows_as_a_data_frame_and_the_cohort_as_its_type(library):
    module = pytest.importorskip(library)
    from tcsexam.scoring.formats.inputs import Cohort

    cohort, rows, records = demo_objects()
    numbers = [{**row, "score": float(row["score"]) if row["score"] else None} for row in rows]  # None: empty
    frame = module.DataFrame(numbers)
    by_frame = api.score(api.run_from_objects(Cohort.model_validate(cohort), frame, records))
    by_rows = api.score(api.run_from_objects(cohort, rows, records))
    assert without_bytes(by_frame.data) == without_bytes(by_rows.data)


def test_problems_in_objects_name_the_object_the_row_and_the_field():
    cohort, rows, records = demo_objects()
    rows[3]["score"] = "85%"  # rows[3] is line 5 of the demo's attempts.csv
    rows[7]["track"] = "theorems"
    with pytest.raises(api.InputError) as error:
        api.score(api.run_from_objects(cohort, rows, records))
    found = {(p.file, p.where, p.field) for p in error.value.problems}
    assert found == {("rows", "rows[3]", "score"), ("rows", "rows[7]", "track")}
    assert "rows: rows[3]: field 'score': not a number: '85%'" in str(error.value)


def test_a_row_that_is_no_dict_is_named_not_an_internal_error():
    cohort, rows, records = demo_objects()
    rows[2] = list(rows[2].values())
    with pytest.raises(api.InputError) as error:
        api.run_from_objects(cohort, rows, records)
    assert [(p.file, p.where, p.message) for p in error.value.problems] == [
        ("rows", "rows[2]", "a row is a dict of column names to values, not a list")
    ]


def test_a_key_no_row_has_is_named_as_a_key_not_a_header():
    """Objects have no header: a column every row needs and no row holds is said so, for every row."""
    cohort, rows, records = demo_objects()
    for r in rows:
        del r["solver_protocol"]
    with pytest.raises(api.InputError) as error:
        api.run_from_objects(cohort, rows, records)
    (problem,) = error.value.problems
    assert (problem.file, problem.where, problem.field) == ("rows", "every row", "solver_protocol")
    assert problem.message.startswith("no row has the key 'solver_protocol', a column every row needs")


def test_a_bad_cohort_and_bad_records_are_named_so():
    cohort, rows, records = demo_objects()
    cohort["models"]["atlas-70b"]["attempts_per_task"] = "3"
    with pytest.raises(api.InputError) as error:
        api.run_from_objects(cohort, rows, records)
    assert [(p.file, p.field) for p in error.value.problems] == [("cohort", "attempts_per_task")]

    cohort, rows, records = demo_objects()
    key = ("atlas-70b", "maxcut-mqlib", "1")
    dropped = records[key][0]["instance"]
    records[key] = records[key][1:]
    with pytest.raises(api.InputError) as error:
        api.score(api.run_from_objects(cohort, rows, records))
    (problem,) = error.value.problems
    assert problem.file == f"records[{key!r}]" and dropped in problem.message

    with pytest.raises(api.InputError) as error:
        api.run_from_objects(cohort, rows, {("../elsewhere", "maxcut-mqlib", "1"): []})
    assert [(p.file, p.field) for p in error.value.problems] == [("records", "model")]


def test_a_folder_that_is_no_run_is_named():
    with pytest.raises(api.InputError) as error:
        api.load_run("no-such-run-folder")
    assert [(p.file, p.message) for p in error.value.problems] == [("no-such-run-folder", "run directory not found")]


def copied_demo(folder: Path) -> Path:
    import shutil

    run = folder / "run.v1"  # a dot in the folder's name: a problem's file name keeps it
    shutil.copytree(demo_run(), run)
    return run


def test_problems_of_a_folder_run_name_its_files_as_the_command_does(tmp_path):
    """A run read from a folder: a problem of score() names the file and says the value as
    ``tcsexam validate`` does (no part of it is taken for a run in memory's private folder)."""
    run = copied_demo(tmp_path)
    table = run / "attempts.csv"
    lines = table.read_text().splitlines(keepends=True)
    cells = lines[1].split(",")
    cells[4] = "1.0o"
    lines[1] = ",".join(cells)
    table.write_text("".join(lines))
    with pytest.raises(api.InputError) as error:
        api.score(api.load_run(run))
    assert [(p.file, p.where, p.field, p.message) for p in error.value.problems] == [
        (str(table), "line 2", "score", "not a number: '1.0o'")
    ]


def test_writing_an_index_never_replaces_an_input_of_its_run(tmp_path):
    """docs/safety.md, as ``tcsexam score --output`` refuses it: index.write() over the run's
    attempts.csv or cohort.json, into its records folder, or at the records.jsonl its folder would be
    read with, raises InputError and leaves the run as it was; elsewhere it writes index.json."""
    run = copied_demo(tmp_path)
    index = api.score(api.load_run(run))
    before = {p: p.read_bytes() for p in run.rglob("*") if p.is_file()}
    for target, says in (
        (run / "attempts.csv", "writing it would destroy the input"),
        (run / "cohort.json", "writing it would destroy the input"),
        (run / "records" / "index.json", "inside the input folder"),
        (run / "records.jsonl", "which the run reads as an input once it is there"),
    ):
        with pytest.raises(api.InputError) as error:
            index.write(target)
        assert says in error.value.problems[0].message
    assert {p: p.read_bytes() for p in run.rglob("*") if p.is_file()} == before
    index.write(tmp_path / "out" / "index.json")
    assert api.read_index(tmp_path / "out" / "index.json").data == index.data


def test_compare_names_a_model_outside_the_cohort(scored):
    with pytest.raises(api.InputError) as error:
        api.compare(scored, "atlas-70b", "atlas-7b")
    (problem,) = error.value.problems
    assert (problem.file, problem.field) == ("compare", "atlas-7b")


def test_the_top_of_the_package_gives_the_same_names_lazily():
    assert tcsexam.score is api.score and tcsexam.Index is api.Index
    assert set(tcsexam.__all__) == {"__version__", *api.__all__}
    code = (
        "import sys, tcsexam; "
        "assert not [m for m in ('numpy', 'pydantic', 'msgspec', 'tcsexam.api') if m in sys.modules]; "
        "tcsexam.load_run; assert 'tcsexam.api' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parent)


def test_an_index_shows_where_it_comes_from_its_status_and_size(tmp_path):
    """A notebook showed '<tcsexam.scoring.api.results.Index object at 0x...>' (a review)."""
    from tcsexam.api import demo_run, load_run, read_index, score

    scored = score(load_run(demo_run()))
    assert repr(scored) == "<Index: incomplete, 3 models, suite lite>"
    scored.write(tmp_path / "index.json")
    assert (
        repr(read_index(tmp_path / "index.json"))
        == f"<Index from {tmp_path / 'index.json'}: incomplete, 3 models, suite lite>"
    )
