"""docs/commands.md ``tcsexam schema``: every file the tool writes validates against its schema, and every
input it accepts against its own. ``jsonschema`` (a test-only dependency) is the independent
validator; the schemas come from the types (scoring/formats/schemas.py)."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import jsonschema
import pytest

from tcsexam.scoring.formats.schemas import NAMES, _types, schema
from tcsexam.scoring.pipeline.benchmark import demo_run, sample_root
from tests.support.runs import MINI_REFERENCE, full_rows, row

ROOT = Path(__file__).resolve().parents[1]
TAU2 = ROOT / "tests" / "data" / "tau2"


def validator(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schema(name), format_checker=jsonschema.FormatChecker())


def assert_valid(name: str, document) -> None:
    errors = sorted(validator(name).iter_errors(document), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]


def assert_invalid(name: str, document) -> None:
    assert not validator(name).is_valid(document)


def csv_rows(path: Path) -> list[dict]:
    """The rows of an attempts table as the loader sees them: cells stripped, blank lines skipped."""
    text = path.read_text(encoding="utf-8-sig")
    return [
        {k.strip(): v.strip() for k, v in r.items()}
        for r in csv.DictReader(io.StringIO(text, newline=""))
        if "".join(r.values()).strip()
    ]


def test_every_schema_is_a_draft_2020_12_schema_and_every_name_has_one():
    assert set(_types()) == set(NAMES)
    assert {"suite", "reference", "records", "cohort", "attempts-row", "index", "solver-score"} <= set(NAMES)
    assert {"compare", "tau2", "plan"} <= set(NAMES)
    for name in NAMES:
        s = schema(name)
        assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        jsonschema.Draft202012Validator.check_schema(s)


# --- inputs the tool accepts -----------------------------------------------------------------


def test_the_bundled_inputs_validate_against_their_schemas():
    bench = sample_root() / "benchmark"
    suites = sorted((bench / "suites").glob("*.json"))
    references = sorted((bench / "references").glob("*/*.json"))
    records = sorted((demo_run() / "records").rglob("*.json"))
    assert len(suites) == 2 and len(references) == 2 and len(records) >= 25
    for path in suites:
        assert_valid("suite", json.loads(path.read_text()))
    for path in references:
        assert_valid("reference", json.loads(path.read_text()))
    for path in records:
        assert_valid("records", json.loads(path.read_text()))
    assert_valid("cohort", json.loads((demo_run() / "cohort.json").read_text()))
    rows = csv_rows(demo_run() / "attempts.csv")
    assert len(rows) == 102
    for r in rows:
        assert_valid("attempts-row", r)


def test_the_input_schemas_reject_what_the_loaders_reject():
    cohort = json.loads((demo_run() / "cohort.json").read_text())
    assert_invalid("cohort", {**cohort, "solver_refrence_id": "x"})  # misspelt key: rejected by the loader
    assert_invalid("cohort", {**cohort, "solver_protocol": "hybrid"})
    assert_invalid("suite", {"suite": "lite", "tasks": []})
    assert_invalid("suite", {"suite": "lite", "tasks": [{"item": "t", "track": "proof"}]})
    assert_invalid("reference", {k: v for k, v in MINI_REFERENCE.items() if k != "scale_floor"})
    assert_invalid("reference", {**MINI_REFERENCE, "scale_floor": {"relative": 0.02, "absolute": 0}})
    assert_invalid("records", [{"instance": "a", "status": "fine", "A": 1}])
    assert_invalid("records", [{"instance": "", "status": "ok", "A": 1}])
    assert_invalid("records", [{"instance": "a", "status": "ok", "A": "1"}])
    good = {k: v for k, v in row().items()}
    assert_valid("attempts-row", {**good, "extra column": "kept"})
    assert_valid("attempts-row", {**good, "score": "", "score_status": "missing"})
    for bad in ({"score": "0.5x"}, {"score": "nan"}, {"track": "proof"}, {"score_status": "done"}, {"model": ""}):
        assert_invalid("attempts-row", {**good, **bad})
    assert_invalid("attempts-row", {k: v for k, v in good.items() if k != "adoption_status"})
    assert_invalid("attempts-row", {**good, "score": ""})  # empty with score_status valid
    excluded = {**good, "adoption_status": "excluded", "note": "judge crashed"}
    for kept in ("nan", "NaN", "-inf", "+Infinity", "INF"):  # an excluded row keeps its score, not judged
        assert_valid("attempts-row", {**excluded, "score": kept})
        assert_invalid("attempts-row", {**good, "score": kept})
    assert_invalid("attempts-row", {**excluded, "score": "nanx"})


# One cell of the construction task c1 (its only planned attempt), as the schema and as the loader judge it:
# (score, adoption_status, score_status). The loader's verdict is `validate`'s exit code (1: rejected).
SCORE_CELLS = [
    (score, adoption, status)
    for score in (
        "1.5",
        "1e3",
        ".5",
        "",
        "nan",
        "NaN",
        "-inf",
        "+Infinity",
        "infinity",
        "inf ",
        "0.5x",
        "infinit",
        "1,5",
    )
    for adoption in ("selected", "selected_provisional", "excluded")
    for status in ("valid", "missing")
]


@pytest.mark.parametrize(("score", "adoption", "status"), SCORE_CELLS)
def test_the_attempts_row_schema_accepts_a_score_cell_exactly_when_validate_does(ws, cli, score, adoption, status):
    rows = [r for r in full_rows() if r["item"] != "c1"]
    cell = row(track="construction", item="c1", score=score, adoption=adoption, status=status, note="replaced")
    ws.write_rows([*rows, cell])
    code, _, err = cli("validate", str(ws.run), "--benchmark", str(ws.bench))
    accepted = code != 1
    (read,) = [r for r in csv_rows(ws.run / "attempts.csv") if r["item"] == "c1"]  # as the loader sees it
    assert validator("attempts-row").is_valid(read) == accepted, (read, code, err)


# --- every file the tool writes ------------------------------------------------------------


def test_index_json_validates_and_a_broken_one_does_not(ws, cli):
    ws.write_rows(full_rows())
    assert cli(*ws.score_args())[0] == 0
    doc = json.loads(ws.out.read_text())
    assert_valid("index", doc)
    assert_invalid("index", {**doc, "extra": 1})
    assert_invalid("index", {**doc, "status": "done"})
    broken = json.loads(ws.out.read_text())
    broken["models"]["m"]["index"] = "50.25"
    assert_invalid("index", broken)


def demo_index(cli, tmp_path) -> dict:
    out = tmp_path / "demo-index.json"
    assert cli("score", str(demo_run()), "--output", str(out))[0] == 3
    return json.loads(out.read_text())


def edited(doc: dict, *path_and_value) -> dict:
    """A copy of ``doc`` with the value at ``path`` (keys, then the new value) replaced."""
    *path, value = path_and_value
    out = json.loads(json.dumps(doc))
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return out


def renamed(doc: dict, *path_and_keys) -> dict:
    """A copy of ``doc`` with the key ``old`` of the object at ``path`` renamed ``new``."""
    *path, old, new = path_and_keys
    out = json.loads(json.dumps(doc))
    node = out
    for key in path:
        node = node[key]
    node[new] = node.pop(old)
    return out


def test_the_index_schema_holds_the_fixed_parts_of_the_format(cli, tmp_path):
    doc = demo_index(cli, tmp_path)
    assert_valid("index", doc)
    # the constants: the weights 30/30/30/10, the metric id, the interval and rank methods
    assert_invalid("index", edited(doc, "weights", "theorem", 25))
    assert_invalid("index", edited(doc, "provenance", "weights", "conjecture", 11))
    assert_invalid("index", edited(doc, "weights", {**doc["weights"], "extra": 0}))
    assert_invalid("index", edited(doc, "metric_id", "tcsexam-index-original-30303010-v0.2"))
    assert_invalid("index", edited(doc, "provenance", "metric_id", "another"))
    assert_invalid("index", edited(doc, "models", "atlas-70b", "ci", "method", "bootstrap"))
    assert_invalid("index", edited(doc, "ranks", "method", "bonferroni"))
    # track keys are the four tracks: a misspelt one is rejected, and each full map holds all four
    for where in (["track_means"], ["pass_hat_k"], ["ci", "tracks"], ["ci", "index", "shares"]):
        assert_invalid("index", renamed(doc, "models", "atlas-70b", *where, "theorem", "thoerem"))
    means = doc["models"]["atlas-70b"]["track_means"]
    assert_invalid("index", edited(doc, "models", "atlas-70b", "track_means", {**means, "extra": 0.5}))
    assert_invalid(
        "index", edited(doc, "models", "atlas-70b", "track_means", {k: v for k, v in means.items() if k != "solver"})
    )
    # a model's ci.tracks lists only the tracks with a mean: cirrus-mini has two
    assert sorted(doc["models"]["cirrus-mini"]["ci"]["tracks"]) == ["conjecture", "solver"]
    # hashes are 64 lowercase hex digits, and the content hash is there
    assert_invalid("index", edited(doc, "provenance", "content_sha256", "xyz"))
    assert_invalid("index", edited(doc, "provenance", "content_sha256", doc["provenance"]["content_sha256"].upper()))
    assert_invalid("index", edited(doc, "provenance", "inputs", "attempts", "sha256", "0" * 63))
    assert_invalid(
        "index", edited(doc, "provenance", {k: v for k, v in doc["provenance"].items() if k != "content_sha256"})
    )
    # an ignored row may name a close cohort model or suite item, and nothing else
    row0 = doc["ignored_rows"]["rows"][0]
    assert_valid("index", edited(doc, "ignored_rows", "rows", 0, {**row0, "did_you_mean": "atlas-70b"}))
    assert_invalid("index", edited(doc, "ignored_rows", "rows", 0, {**row0, "did_you_mean_": "atlas-70b"}))


def test_the_schemas_carry_no_id_and_no_internal_notes():
    for name in NAMES:
        s = schema(name)
        assert "$id" not in s
        text = json.dumps(s)
        for internal in ("SPEC", "omit_defaults", "decode.", "``", "R5"):
            assert internal not in text, (name, internal)
    assert schema("index")["$defs"]["Provenance"]["properties"]["weights"]["const"] == {
        "theorem": 30,
        "solver": 30,
        "construction": 30,
        "conjecture": 10,
    }


def test_the_demo_index_compare_and_diff_outputs_validate(cli, tmp_path):
    run = demo_run()
    index = tmp_path / "index.json"
    assert cli("score", str(run), "--output", str(index))[0] == 3
    assert_valid("index", json.loads(index.read_text()))
    out = tmp_path / "compare.json"
    assert cli("compare", str(run), "--models", "atlas-70b", "borealis-8x22b", "--output", str(out))[0] == 0
    compare = json.loads(out.read_text())
    assert_valid("compare", compare)
    assert_invalid("compare", {**compare, "models": ["atlas-70b"]})
    # a changed run: diff --output between the two documents
    moved = tmp_path / "run"
    shutil.copytree(run, moved)
    text = (moved / "attempts.csv").read_text()
    (moved / "attempts.csv").write_text(
        text.replace("atlas-70b,theorem,thm-sensitivity,1,1,", "atlas-70b,theorem,thm-sensitivity,1,0,", 1)
    )
    assert (moved / "attempts.csv").read_text() != text
    second = tmp_path / "second.json"
    assert cli("score", str(moved), "--output", str(second))[0] == 3
    diff = tmp_path / "diff.json"
    assert cli("diff", str(index), str(second), "--output", str(diff))[0] == 0
    d = json.loads(diff.read_text())
    assert d["inputs_changed"] and d["inputs_changed"][0]["input"] == "attempts"
    assert_valid("diff", d)
    assert_invalid("diff", {**d, "added": "x"})
    # validate --json, of an accepted run and of a rejected one
    code, out, _ = cli("validate", str(moved), "--json")
    accepted = json.loads(out)
    assert code == 3 and accepted["accepted"] and accepted["findings"]
    assert_valid("validate", accepted)
    assert_invalid("validate", {**accepted, "findings": [{"kind": "warning"}]})
    (moved / "cohort.json").write_text("{")
    code, out, _ = cli("validate", str(moved), "--json")
    rejected = json.loads(out)
    assert code == 1 and not rejected["accepted"] and rejected["problems"]
    assert_valid("validate", rejected)


REAL_AND_DERIVED = sorted(p.relative_to(TAU2).as_posix() for p in TAU2.rglob("*.json"))


@pytest.mark.parametrize("name", REAL_AND_DERIVED)
def test_tau2_output_validates(cli, tmp_path, name):
    out = tmp_path / "tau2.json"
    assert cli("tau2", str(TAU2 / name), "--output", str(out))[0] == 0
    doc = json.loads(out.read_text())
    assert_valid("tau2", doc)
    assert_invalid("tau2", {k: v for k, v in doc.items() if k != "audit"})


def test_solver_score_and_fill_outputs_validate(ws, cli, tmp_path):
    rows = [r for r in full_rows()]
    for r in rows:
        if r["track"] == "solver":
            r["score"], r["score_status"] = "", "missing"
    ws.write_rows(rows)
    ws.write_records(
        "m", "s1", "1", [{"instance": "a", "status": "ok", "A": 12}, {"instance": "b", "status": "timeout"}]
    )
    ws.write_records(
        "m", "s2", "1", [{"instance": "x", "status": "ok", "solved": True}, {"instance": "y", "status": "ok", "A": 0}]
    )
    assert cli("fill", str(ws.run), "--benchmark", str(ws.bench))[0] == 0
    written = sorted((ws.run / "solver-scores").rglob("*.json"))
    assert len(written) == 2
    for path in written:
        assert_valid("solver-score", json.loads(path.read_text()))
    for r in csv_rows(ws.run / "attempts.csv"):  # fill's other output: the edited table
        assert_valid("attempts-row", r)
    own = tmp_path / "own.json"
    args = ["solver-score", "--task", "s1", "--records", str(ws.run / "records/m/s1/1.json")]
    assert cli(*args, "--benchmark", str(ws.bench), "--output", str(own))[0] == 0
    doc = json.loads(own.read_text())
    assert_valid("solver-score", doc)
    assert_invalid("solver-score", {**doc, "direction": "up"})


def test_a_plan_document_validates():
    import msgspec

    from tcsexam.scoring.stats.planning import plan
    from tcsexam.scoring.vocab import WEIGHTS

    tasks = {"theorem": [[1.0, 0.0], [1.0, 1.0]], "solver": [[0.2, 0.4, 0.3]], "construction": [[0.5]]}
    doc = json.loads(msgspec.json.encode(plan({"a": tasks, "b": {}}, WEIGHTS, target=5.0)))
    assert_valid("plan", doc)
    assert_invalid("plan", {**doc, "level": "95%"})


# --- the command ---------------------------------------------------------------------------


def test_schema_command_writes_one_or_every_schema(cli, tmp_path):
    code, out, err = cli("schema", "index")
    assert code == 0 and err == "" and json.loads(out) == schema("index")
    code, out, _ = cli("schema")
    assert code == 0 and set(json.loads(out)) == set(NAMES)
    folder = tmp_path / "made" / "schemas"
    code, out, _ = cli("schema", "--output", str(folder))
    assert code == 0 and f"13 files written to {folder}" in out
    assert sorted(p.name for p in folder.iterdir()) == sorted(f"{n}.schema.json" for n in NAMES)
    assert json.loads((folder / "cohort.schema.json").read_text()) == schema("cohort")
    code, _, _ = cli("schema", "tau2", "--output", str(tmp_path / "one"))
    assert code == 0 and [p.name for p in (tmp_path / "one").iterdir()] == ["tau2.schema.json"]


def test_schema_command_errors(cli, tmp_path):
    assert cli("schema", "nonsense")[0] == 2
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, _, err = cli("schema", "--output", str(blocker))
    assert code == 1 and "is not a folder" in err and blocker.read_text() == "x"


def test_the_demo_plan_validates_and_its_track_keys_are_the_four_tracks(cli, tmp_path):
    out = tmp_path / "plan.json"
    assert cli("plan", str(demo_run()), "--output", str(out))[0] in (0, 3)
    doc = json.loads(out.read_text())
    assert_valid("plan", doc)
    assert_invalid("plan", renamed(doc, "models", "atlas-70b", "tracks", "solver", "solvr"))
