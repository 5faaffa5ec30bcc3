"""docs/formats.md#instance-records, docs/rules.md#solver-score and docs/formats.md#indexjson: records files of one task checked and scored together, and the
solver-score output on records in shuffled order, against values worked out by hand."""

from __future__ import annotations

import json
import math

import msgspec
import pytest

from tcsexam.scoring.errors import InputError
from tcsexam.scoring.formats.records import check_records, read_records
from tcsexam.scoring.pipeline.crosscheck import rescore_task
from tcsexam.scoring.pipeline.reference import reference_from_dict
from tcsexam.scoring.pipeline.solver import TaskScore, score_records, score_task
from tcsexam.scoring.safety.files import RecordsRoot

# mu and s by hand: [10, 12, 14] -> mu 12, s 2; [100, 104, None, 108] -> mu 104, s 4;
# [1, 1, 1] -> mu 1, s 0 (scale = the relative floor 0.5 * |1| = 0.5).
INSTANCES = {"a": [10, 12, 14], "b": [100, 104, None, 108], "c": [1, 1, 1]}
REFERENCE = {
    "reference_id": "r",
    "suite": "lite",
    "scale_floor": {"relative": 0.5, "absolute": 1e-9},
    "tasks": {"t": {"kind": "objective", "direction": "maximize", "instances": INSTANCES}},
}


def phi(z: float) -> float:
    return 0.5 * math.erfc(-z / math.sqrt(2))  # an oracle independent of scipy's ndtr


@pytest.fixture
def ref():
    return reference_from_dict(REFERENCE, "ref.json").task("t")


def encoded(records: list[dict]) -> bytes:
    return msgspec.json.encode(records)


GOOD = [  # shuffled, with a record of an instance the reference does not score
    {"instance": "c", "status": "ok", "A": 2},  # z = (2 - 1)/0.5 = 2
    {"instance": "zz", "status": "ok", "A": 5},
    {"instance": "a", "status": "ok", "A": 16},  # z = (16 - 12)/max(2, 6) = 4/6
    {"instance": "b", "status": "timeout"},  # 0
]


def test_files_of_one_task_are_checked_together_but_each_in_its_own_terms(ref):
    duplicate_and_incomplete = [
        {"instance": "a", "status": "ok", "A": 1},
        {"instance": "b", "status": "missing"},
        {"instance": "a", "status": "ok", "A": 2},
        {"instance": "c", "status": "ok"},
    ]
    lacking = [{"instance": "a", "status": "ok", "A": 12}]
    second = [{"instance": n, "status": "ok", "A": 12} for n in ("b", "c", "a")]
    datas = [encoded(GOOD), encoded(duplicate_and_incomplete), b"[1,", encoded(lacking), encoded(second)]
    files = ["good.json", "bad.json", "broken.json", "lacking.json", "second.json"]
    records, problems = check_records(datas, files, "objective")
    # the same names in different files are no duplicates; each problem names its own file and record
    assert problems[0] == [] and problems[3] == [] and problems[4] == []
    assert [(p.file, p.where, p.field) for p in problems[1]] == [
        ("bad.json", "record 1 ('b')", "status"),
        ("bad.json", "record 2 ('a')", "instance"),
        ("bad.json", "record 3 ('c')", "A"),
    ]
    assert "first at record 0" in problems[1][1].message
    assert [(p.file, p.where) for p in problems[2]] == [("broken.json", "line 1 column 4")]
    assert records.files == ["good.json", "lacking.json", "second.json"]
    assert records.bounds.tolist() == [0, 4, 5, 8]
    good, lacks, other = score_records(ref, records)
    assert isinstance(good, TaskScore) and isinstance(other, TaskScore)
    assert good.relative_score == pytest.approx((phi(2.0) + phi(4 / 6) + 0.0) / 3, abs=1e-15)
    assert good.unscored_instances == ["zz"] and other.unscored_instances == []
    assert good.status == ["ok", "timeout", "ok"]  # in the reference's order a, b, c
    # second: z = 0 for a; (12 - 104)/max(4, 52) for b; (12 - 1)/0.5 = 22 for c
    assert other.z.tolist() == [0.0, (12 - 104) / 52, 22.0]
    assert isinstance(lacks, list) and lacks[0].file == "lacking.json"
    assert lacks[0].message == "2 scored instances of task 't' have no record: b, c"


def test_a_z_overflow_names_the_record_in_its_own_file(ref):
    fine = [{"instance": n, "status": "ok", "A": 12} for n in ("a", "b", "c")]
    huge = [{"instance": "b", "status": "ok", "A": 1e308}, *fine[::2], {"instance": "c", "status": "ok", "A": -1e308}]
    huge = [r for r in huge if not (r["instance"] == "c" and r["A"] == 12)]
    records, problems = check_records([encoded(fine), encoded(huge)], ["f.json", "h.json"], "objective")
    assert problems == [[], []]
    first, second = score_records(ref, records)
    assert isinstance(first, TaskScore)
    # c's z = (-1e308 - 1)/0.5 overflows; it is record 2 of h.json (records there: b, a, c)
    assert [(p.file, p.where, p.field) for p in second] == [("h.json", "record 2 ('c')", "A")]


def test_the_cross_check_reads_and_scores_every_file_of_a_task_at_once(ref, tmp_path):
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "1.json").write_bytes(encoded(GOOD))
    (tmp_path / "m" / "3.json").write_bytes(encoded([{"instance": "a", "status": "infra_error"}]))
    out = rescore_task(ref, RecordsRoot(str(tmp_path)), ["m/1.json", "m/2.json", "m/3.json"])
    (score, digest, found), absent, (bad, bad_digest, problems) = out
    assert isinstance(score, TaskScore) and found == [] and len(digest) == 64
    assert absent == (None, None, [])  # no file: not re-scored
    assert bad is None and bad_digest is None and problems[0].field == "status"


def test_one_file_is_the_one_file_case(ref):
    with pytest.raises(InputError) as exc:
        score_task(ref, read_records(encoded(GOOD[:2]), "r.json", "objective"))
    assert exc.value.problems[0].message.startswith("2 scored instances of task 't' have no record: a, b")


def test_solver_score_output_on_shuffled_records_is_worked_out_by_hand(tmp_path):
    from tcsexam.tui.cli import main

    ref_path, recs_path, out = tmp_path / "ref.json", tmp_path / "recs.json", tmp_path / "out.json"
    ref_path.write_text(json.dumps(REFERENCE))
    recs_path.write_text(json.dumps(GOOD))
    code = main(
        ["solver-score", "--task", "t", "--records", str(recs_path), "--reference", str(ref_path), "--output", str(out)]
    )
    assert code == 0
    doc = json.loads(out.read_bytes())
    rows = doc.pop("instances")
    expected_rows = [
        {"instance": "a", "status": "ok", "A": 16.0, "mu": 12.0, "s": 2.0, "scale": 6.0, "z": 4 / 6},
        {"instance": "b", "status": "timeout", "A": None, "mu": 104.0, "s": 4.0, "scale": 52.0, "z": None},
        {"instance": "c", "status": "ok", "A": 2.0, "mu": 1.0, "s": 0.0, "scale": 0.5, "z": 2.0},
    ]
    phis = [phi(4 / 6), 0.0, phi(2.0)]
    assert [{k: v for k, v in row.items() if k != "phi"} for row in rows] == expected_rows
    assert [row["phi"] for row in rows] == pytest.approx(phis, abs=1e-15)
    assert doc == {
        "task": "t",
        "suite": "lite",
        "reference_id": "r",
        "kind": "objective",
        "direction": "maximize",
        "relative_score": pytest.approx(sum(phis) / 3, abs=1e-15),
        "n_scored": 3,
        "unscored_instances": ["zz"],
        "unknown_instances": ["zz"],  # the reference lists no unscored instance: it does not know 'zz'
    }
    # the file is written in the key order of docs/formats.md#indexjson, indented (3 instances), with a final newline
    text = out.read_text()
    assert text.endswith("}\n") and text.startswith('{\n  "task": "t",\n  "suite": "lite",')


def test_invalid_utf8_in_a_value_the_decoder_skips_is_rejected_naming_the_place():
    # msgspec skips an extra key's value without reading its text; the file must still be UTF-8
    data = b'[{"instance": "a", "status": "ok", "A": 1, "note": "\xff"}]'
    with pytest.raises(InputError) as info:
        read_records(data, "r.json", "objective")
    (problem,) = info.value.problems
    column = data.index(b"\xff") + 1  # the bad byte, counted from 1
    assert problem.file == "r.json" and f"line 1 column {column}" in str(problem) and "UTF-8" in str(problem)
