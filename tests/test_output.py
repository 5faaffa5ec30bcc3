"""docs/formats.md#indexjson (index.json and provenance) and atomic writes."""

from __future__ import annotations

import hashlib
import json
import os

import msgspec
import pytest

from tcsexam.scoring.formats.json import content_sha256, dumps
from tcsexam.scoring.formats.results import IndexDocument, SolverScoreOutput
from tcsexam.scoring.safety.outputs import write_atomic
from tests.support.runs import full_rows


def test_index_json_has_the_contract_shape(ws, cli):
    ws.write_rows(full_rows())
    assert cli(*ws.score_args())[0] == 0
    doc = json.loads(ws.out.read_text())
    typed = msgspec.json.decode(ws.out.read_bytes(), type=IndexDocument)
    assert typed.models["m"].tasks["c1"].mean == 1.2 and typed.provenance.content_sha256
    # the types are strict: a key the contract does not have is a bug, not an extra
    doc["models"]["m"]["tasks"]["c1"]["median"] = 1.2
    with pytest.raises(msgspec.ValidationError, match="median"):
        msgspec.convert(doc, IndexDocument)
    del doc["models"]["m"]["tasks"]["c1"]["median"]
    assert doc["metric_id"] == "tcsexam-index-original-30303010-v0.1"
    assert doc["weights"] == {"theorem": 30, "solver": 30, "construction": 30, "conjecture": 10}
    assert set(doc["models"]["m"]) >= {
        "status",
        "index",
        "track_means",
        "tasks",
        "coverage",
        "pass_hat_k",
        "issues",
        "ci",
    }


def test_provenance_hashes_the_inputs(ws, cli):
    ws.write_rows(full_rows())
    cli(*ws.score_args())
    prov = json.loads(ws.out.read_text())["provenance"]
    for name, file in (
        ("attempts", ws.run / "attempts.csv"),
        ("cohort", ws.run / "cohort.json"),
        ("suite", ws.bench / "suites" / "lite.json"),
    ):
        assert prov["inputs"][name]["sha256"] == hashlib.sha256(file.read_bytes()).hexdigest()
    assert prov["adoption_rule"] == "first valid attempt"
    assert prov["solver_reference_id"] == "ref-test"


def test_same_inputs_same_content_hash(ws, cli):
    ws.write_rows(full_rows())
    cli(*ws.score_args())
    first = json.loads(ws.out.read_text())
    cli(*ws.score_args())
    second = json.loads(ws.out.read_text())
    assert first["provenance"]["content_sha256"] == second["provenance"]["content_sha256"]
    # the hash is recomputable from the file itself
    assert content_sha256(second) == second["provenance"]["content_sha256"]


def test_content_hash_ignores_generated_at_but_not_content(ws, cli):
    ws.write_rows(full_rows())
    cli(*ws.score_args())
    doc = json.loads(ws.out.read_text())
    doc["provenance"]["generated_at"] = "1999-01-01T00:00:00+00:00"
    assert content_sha256(doc) == doc["provenance"]["content_sha256"]
    ws.write_rows(full_rows(scores={"c1": 1.25}))
    cli(*ws.score_args())
    assert json.loads(ws.out.read_text())["provenance"]["content_sha256"] != doc["provenance"]["content_sha256"]


def test_a_run_copied_elsewhere_has_the_same_content_hash(ws, cli, tmp_path):
    import shutil

    ws.write_rows(full_rows())
    ws.write_records(
        "m", "s1", "1", [{"instance": "a", "status": "ok", "A": 12}, {"instance": "b", "status": "timeout"}]
    )
    assert cli(*ws.score_args())[0] == 0
    here = json.loads(ws.out.read_text())
    assert here["provenance"]["inputs"]["records"]["files"] == 1
    elsewhere = tmp_path / "moved"
    shutil.copytree(ws.run, elsewhere / "run")
    shutil.copytree(ws.bench, elsewhere / "bench")
    out = elsewhere / "index.json"
    assert cli("score", str(elsewhere / "run"), "--benchmark", str(elsewhere / "bench"), "--output", str(out))[0] == 0
    there = json.loads(out.read_text())
    assert there["provenance"]["inputs"]["attempts"]["path"] != here["provenance"]["inputs"]["attempts"]["path"]
    assert there["provenance"]["content_sha256"] == here["provenance"]["content_sha256"]
    # an input's content still counts: its sha256 stays in the hashed document
    there["provenance"]["inputs"]["attempts"]["sha256"] = "0" * 64
    assert content_sha256(there) != here["provenance"]["content_sha256"]


def test_writer_refuses_nan():
    with pytest.raises(ValueError, match="non-finite"):
        dumps({"a": [1.0, float("nan")]})


def test_atomic_write_keeps_the_old_file_when_replace_fails(tmp_path, monkeypatch):
    target = tmp_path / "index.json"
    target.write_bytes(b"old contents")

    def boom(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        write_atomic(target, b"new contents")
    assert target.read_bytes() == b"old contents"
    assert [p.name for p in tmp_path.iterdir()] == ["index.json"]


def test_solver_score_output_shape(tmp_path, cli):
    from tests.support.runs import MINI_REFERENCE

    ref = tmp_path / "ref.json"
    ref.write_text(json.dumps(MINI_REFERENCE))
    recs = tmp_path / "r.json"
    recs.write_text(
        json.dumps(
            [
                {"instance": "a", "status": "ok", "A": 12},
                {"instance": "b", "status": "crash"},
                {"instance": "zz", "status": "ok", "A": 3},
            ]
        )
    )
    out = tmp_path / "o.json"
    code, stdout, _ = cli(
        "solver-score", "--task", "s1", "--records", str(recs), "--reference", str(ref), "--output", str(out)
    )
    assert code == 0
    doc = msgspec.json.decode(out.read_bytes(), type=SolverScoreOutput)
    assert doc.relative_score == 0.25 and doc.n_scored == 2 and doc.unscored_instances == ["zz"]
    assert doc.instances[1].z is None and doc.instances[1].phi == 0.0
    assert doc.reference_id == "ref-test" and doc.suite == "lite"


def test_compact_and_pretty_solver_output_hold_the_same_document():
    import msgspec

    from tcsexam.scoring.formats.records import parse_records
    from tcsexam.scoring.formats.results import SolverScoreOutput, encode
    from tcsexam.scoring.pipeline.reference import reference_from_dict
    from tcsexam.scoring.pipeline.solver import score_task, solver_score_output

    instances = {f"i{k}": [10 + k, 12 + k, 14 + k] for k in range(7)}
    ref = reference_from_dict(
        {
            "reference_id": "r",
            "suite": "lite",
            "scale_floor": {"relative": 0.02, "absolute": 1e-9},
            "tasks": {"t": {"kind": "objective", "direction": "maximize", "instances": instances}},
        },
        "ref.json",
    ).task("t")
    recs = [{"instance": f"i{k}", "status": "ok" if k % 3 else "crash", "A": 12.5 + k} for k in range(7)]
    recs.append({"instance": "extra", "status": "ok", "A": 1})
    doc = solver_score_output(score_task(ref, parse_records(recs, "r.json", "objective")), "lite", "r")
    compact, pretty = encode(doc, pretty=False), encode(doc, pretty=True)
    assert compact.endswith(b"}\n") and b"\n" not in compact[:-1] and pretty.count(b"\n") > 8 * 7
    assert json.loads(compact) == json.loads(pretty)
    assert msgspec.json.decode(compact, type=SolverScoreOutput) == doc
    row = json.loads(compact)["instances"][0]  # i0 crashed: A and z null, phi 0; values 10, 12, 14: mu 12, s 2
    assert row == {
        "instance": "i0",
        "status": "crash",
        "A": None,
        "mu": 12.0,
        "s": 2.0,
        "scale": 2.0,
        "z": None,
        "phi": 0.0,
    }


def test_records_read_tells_no_file_from_a_folder_or_a_file_it_cannot_read(tmp_path, monkeypatch):
    # re-scoring skips an attempt without a records file; a folder there or an unreadable file is a
    # problem (docs/safety.md), read through the one records reader
    import os

    from tcsexam.scoring.errors import InputError
    from tcsexam.scoring.safety.files import RecordsRoot

    root = RecordsRoot(tmp_path)
    (tmp_path / "a.json").write_bytes(b"[]")
    (tmp_path / "folder.json").mkdir()
    assert root.read_path(str(tmp_path / "a.json")) == b"[]"
    assert root.read_path(str(tmp_path / "missing.json")) is None
    assert root.read_path(str(tmp_path / "a.json" / "below.json")) is None
    with pytest.raises(InputError) as info:
        root.read_path(str(tmp_path / "folder.json"))
    assert "is a directory" in info.value.problems[0].message

    def denied(file, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(file))

    monkeypatch.setattr(os, "open", denied)
    with pytest.raises(InputError) as info:
        root.read_path(str(tmp_path / "a.json"))
    assert info.value.problems[0].file == str(tmp_path / "a.json")
    assert "permission denied" in info.value.problems[0].message
