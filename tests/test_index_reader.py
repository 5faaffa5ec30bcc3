"""The one reader of index.json (scoring/reports/index_file.py): ``table``, ``diff`` and ``verify``
reject a document that does not fit the index's schema, naming the file and the field, and say when
a document does not hash to its content_sha256 (docs/commands.md#table, docs/decisions.md#reports).
The fuzzing at the end: any mutation of a valid document ends with exit 0 or 1 and a message."""

from __future__ import annotations

import atexit
import contextlib
import copy
import json
import shutil
import tempfile
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tcsexam.scoring.commands.main import main
from tcsexam.scoring.formats.json import content_sha256
from tcsexam.scoring.formats.schemas import schema
from tcsexam.scoring.pipeline.benchmark import demo_run
from tcsexam.scoring.reports.table import FORMATS

WORK = Path(tempfile.mkdtemp(prefix="tcsexam-index-reader-"))  # one scored demo for the whole module
atexit.register(shutil.rmtree, WORK, True)
RUN = WORK / "demo"
INDEX = WORK / "index.json"
shutil.copytree(demo_run(), RUN)
assert main(["score", str(RUN), "--output", str(INDEX)]) == 3
VALID = json.loads(INDEX.read_text())


def rehashed(doc: dict) -> dict:
    """``doc`` with the content_sha256 of its content (an edit that the hash alone does not reveal)."""
    doc["provenance"]["content_sha256"] = content_sha256(doc)
    return doc


def save(tmp_path: Path, name: str, doc: dict) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


def mutate(path: list, value, rehash: bool = True):
    """A copy of the valid document with the value at ``path`` replaced (and its hash made anew)."""
    doc = copy.deepcopy(VALID)
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return rehashed(doc) if rehash else doc


MALFORMED = [
    (["provenance", "inputs", "suite"], 1.5, "provenance.inputs: field 'suite': must be an object, got 1.5"),
    (["models", "atlas-70b", "ci", "tracks"], -1e308, "models.atlas-70b.ci: field 'tracks': must be an object"),
    (["models", "atlas-70b", "tasks", "thm-sensitivity", "adopted"], "3", "field 'adopted': must be a whole number"),
    (["models", "atlas-70b", "status"], "done", "field 'status': must be one of complete, provisional, incomplete"),
    (["models", "atlas-70b", "track_means"], {"theorem": 1}, "track_means: field 'solver': required field is missing"),
    (["weights", "solver"], 40, "field 'weights': must be {'theorem': 30, 'solver': 30"),
    (["ranks", "alpha"], None, "ranks: field 'alpha': must be a number, got null"),
    (["provenance", "inputs", "suite", "sha256"], "abc", "field 'sha256'"),
    (["models", "atlas-70b", "issues"], [{"kind": "warning"}], "issues[0]: field 'item': required field is missing"),
    (["models", "atlas-70b", "coverage", "excluded"], [{"line": 10**20}], "excluded[0]"),
]


@pytest.mark.parametrize(("path", "value", "expected"), MALFORMED, ids=[".".join(map(str, m[0])) for m in MALFORMED])
def test_a_malformed_index_is_rejected_naming_file_and_field(tmp_path, cli, path, value, expected):
    doc = mutate(path, value, rehash=False)
    with pytest.raises(jsonschema.ValidationError):  # the index's own schema says the same
        jsonschema.Draft202012Validator(schema("index")).validate(doc)
    bad = save(tmp_path, "bad.json", doc)
    for args in (["table", bad], ["table", bad, "--format", "csv"], ["diff", str(INDEX), bad], ["verify", bad]):
        code, out, err = cli(*args)
        assert code == 1 and f"{bad}: " in err and expected in err, (args, err)
        assert "internal error" not in err and "Traceback" not in err and out == ""


@pytest.mark.parametrize("big", [10**40, 2**53, -(2**53)])
def test_a_whole_number_beyond_what_rfc8785_writes_is_rejected_naming_it(tmp_path, cli, big):
    # docs/formats.md#indexjson: RFC 8785 writes numbers as doubles, whole ones up to 2**53 - 1
    bad = tmp_path / "big.json"
    text = json.dumps(VALID).replace('"adopted": 3,', f'"adopted": {big},', 1)
    assert text != json.dumps(VALID)
    bad.write_text(text)
    code, _, err = cli("table", str(bad))
    assert code == 1 and "field 'adopted': must be a whole number of at most 9007199254740991" in err


def test_an_index_edited_after_scoring_is_tabled_with_a_warning(tmp_path, cli):
    doc = copy.deepcopy(VALID)
    doc["models"]["atlas-70b"]["index"] = 99.0
    edited = save(tmp_path, "edited.json", doc)
    code, out, err = cli("table", edited)
    assert code == 0 and "| atlas-70b |" in out and "99.00" in out
    assert f"warning: {edited}: the document does not hash to its content_sha256" in err
    assert f"tcsexam verify {edited} lists what changed" in err
    code, out, err = cli("diff", str(INDEX), edited)
    assert code == 0 and "atlas-70b: index 76.91 -> 99.00" in out and f"warning: {edited}:" in err
    code, _, err = cli("table", str(INDEX))
    assert code == 0 and err == ""  # an untouched document: no warning


def test_diff_of_changes_beyond_a_double_is_rejected_naming_the_values(tmp_path, cli):
    low = save(tmp_path, "low.json", mutate(["models", "atlas-70b", "index"], -1.7e308))
    high = save(tmp_path, "high.json", mutate(["models", "atlas-70b", "index"], 1.7e308))
    code, _, err = cli("diff", low, high)
    assert code == 1 and f"{high}: models.atlas-70b: field 'index': the change from -1.7e+308" in err
    wide = mutate(["models", "atlas-70b", "ci", "index", "lo"], -1.7e308)
    wide["models"]["atlas-70b"]["ci"]["index"]["hi"] = 1.7e308
    out_json = tmp_path / "d.json"
    code, _, err = cli("diff", str(INDEX), save(tmp_path, "wide.json", rehashed(wide)), "--output", str(out_json))
    assert code == 0, err  # the half-width of [-1.7e308, 1.7e308] is 1.7e308, not infinity
    assert json.loads(out_json.read_text())["models"]["atlas-70b"]["index"]["half_width"] == 1.7e308


# --- fuzzing ----------------------------------------------------------------------------------------

FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],  # capsys: read after each call
)

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([1e308, -1e308, 5e-324, 0.0, -0.0, 1e13])
    | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)


def every_path(node, path=()) -> list[tuple]:
    paths = [path]
    if isinstance(node, dict):
        for k, v in node.items():
            paths += every_path(v, (*path, k))
    elif isinstance(node, list):
        for k, v in enumerate(node):
            paths += every_path(v, (*path, k))
    return paths


PATHS_BY_DEPTH: dict[int, list[tuple]] = {}
for _path in every_path(VALID)[1:]:
    PATHS_BY_DEPTH.setdefault(len(_path), []).append(_path)
# a depth first, then a path of that depth: the few keys near the top, which every reader reads, are
# drawn as often as the thousands of task fields
A_PATH = st.sampled_from(sorted(PATHS_BY_DEPTH)).flatmap(lambda depth: st.sampled_from(PATHS_BY_DEPTH[depth]))


@st.composite
def mutated_document(draw) -> bytes:
    """The valid document with one to four values replaced, removed or added, sometimes re-hashed;
    or its bytes cut, flipped or spliced."""
    if draw(st.integers(0, 4)) == 0:
        data = bytearray(json.dumps(VALID).encode())
        for _ in range(draw(st.integers(1, 4))):
            pos = draw(st.integers(0, len(data) - 1))
            op = draw(st.sampled_from(["flip", "delete", "insert"]))
            if op == "flip":
                data[pos] = draw(st.integers(0, 255))
            elif op == "delete":
                del data[pos : pos + draw(st.integers(1, 40))]
            else:
                data[pos:pos] = draw(st.sampled_from([b"1e400", b'"', b"{", b"]", b"null", b"\xff", b"-"]))
        return bytes(data)
    doc = copy.deepcopy(VALID)
    for _ in range(draw(st.integers(1, 4))):
        path = draw(A_PATH)
        parent = doc
        try:
            for key in path[:-1]:
                parent = parent[key]
            op = draw(st.sampled_from(["replace", "replace", "delete", "add"]))
            if op == "replace":
                parent[path[-1]] = draw(JSON_VALUES)
            elif op == "delete" and isinstance(parent, dict):
                del parent[path[-1]]
            elif op == "delete":
                parent.pop(path[-1])
            elif isinstance(parent, dict):
                parent[draw(st.text(max_size=8))] = draw(JSON_VALUES)
        except (KeyError, IndexError, TypeError, AttributeError):  # an earlier mutation took the path away
            continue
    if draw(st.booleans()):
        with contextlib.suppress(Exception):  # a document no hash can be made of is written as it is
            rehashed(doc)
    return json.dumps(doc).encode()


def runs_cleanly(capsys, *args: str) -> None:
    code = main(list(args))
    out, err = capsys.readouterr()
    assert code in (0, 1), (args, code, err)
    assert "internal error" not in err and "Traceback" not in err, (args, err)
    assert code == 0 or err.strip() or "NOT verified" in out, args  # a rejection says why


@FUZZ
@given(data=mutated_document())
def test_table_and_diff_on_a_mutated_index(capsys, data):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "index.json"
        path.write_bytes(data)
        for fmt in FORMATS:  # every registered format, html and its chart included
            runs_cleanly(capsys, "table", str(path), "--format", fmt)
        runs_cleanly(capsys, "diff", str(INDEX), str(path))
        runs_cleanly(capsys, "diff", str(path), str(INDEX), "--output", str(Path(tmp) / "d.json"))


@FUZZ
@given(data=mutated_document())
def test_verify_on_a_mutated_index(capsys, data):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "index.json"
        path.write_bytes(data)
        runs_cleanly(capsys, "verify", str(path))
        runs_cleanly(capsys, "verify", str(path), str(RUN))
