"""docs/formats.md#reference: the reference file, R4 and R5."""

from __future__ import annotations

import copy
import json

import pytest

from tcsexam.scoring.errors import InputError
from tcsexam.scoring.pipeline.benchmark import resolve_reference
from tcsexam.scoring.pipeline.reference import load_reference
from tests.support.runs import MINI_REFERENCE


def write(tmp_path, obj, name="ref.json"):
    path = tmp_path / name
    path.write_text(json.dumps(obj) if not isinstance(obj, str) else obj)
    return path


def problems_of(tmp_path, obj):
    with pytest.raises(InputError) as info:
        load_reference(write(tmp_path, obj))
    return info.value.problems


def test_valid_reference_loads(tmp_path):
    ref = load_reference(write(tmp_path, MINI_REFERENCE))
    assert ref.reference_id == "ref-test"
    assert ref.task("s1").n_scored == 2
    assert ref.task("s1").unscored == {"u"}


def test_r4_one_usable_value_is_rejected(tmp_path):
    bad = copy.deepcopy(MINI_REFERENCE)
    bad["tasks"]["s1"]["instances"]["c"] = [5, None, None]
    (p,) = problems_of(tmp_path, bad)
    assert p.field == "c" and "R4" in p.message and "found 1" in p.message


@pytest.mark.parametrize("floor", ["relative", "absolute"])
def test_r5_both_scale_floors_are_required(tmp_path, floor):
    bad = copy.deepcopy(MINI_REFERENCE)
    del bad["scale_floor"][floor]
    (p,) = problems_of(tmp_path, bad)
    assert p.field == floor and "required" in p.message


def test_absolute_floor_must_be_positive(tmp_path):
    bad = copy.deepcopy(MINI_REFERENCE)
    bad["scale_floor"]["absolute"] = 0
    (p,) = problems_of(tmp_path, bad)
    assert p.field == "absolute"


def test_values_beyond_1e150_are_rejected(tmp_path):
    bad = copy.deepcopy(MINI_REFERENCE)
    bad["tasks"]["s1"]["instances"]["a"] = [1e151, 1e151]
    (p,) = problems_of(tmp_path, bad)
    assert "1e150" in p.message


def test_non_finite_json_is_rejected(tmp_path):
    text = json.dumps(MINI_REFERENCE).replace("[10, 12, 14]", "[10, 1e400, 14]")
    (p,) = problems_of(tmp_path, text)
    assert "out of range" in p.message and (p.where, p.field) == ("tasks.s1.instances", "a[1]")
    text = json.dumps(MINI_REFERENCE).replace("[10, 12, 14]", "[10, NaN, 14]")
    (p,) = problems_of(tmp_path, text)
    assert "invalid JSON" in p.message


def test_every_problem_is_listed(tmp_path):
    bad = copy.deepcopy(MINI_REFERENCE)
    bad["tasks"]["s1"]["direction"] = "max"
    bad["tasks"]["s2"]["kind"] = "solved"
    del bad["scale_floor"]["relative"]
    fields = {p.field for p in problems_of(tmp_path, bad)}
    assert fields == {"direction", "kind", "relative"}


def test_solve_values_must_be_zero_or_one(tmp_path):
    bad = copy.deepcopy(MINI_REFERENCE)
    bad["tasks"]["s2"]["instances"]["x"] = [1, 2]
    (p,) = problems_of(tmp_path, bad)
    assert p.field == "x" and "solve" in p.message


def test_instance_both_scored_and_unscored_is_rejected(tmp_path):
    bad = copy.deepcopy(MINI_REFERENCE)
    bad["unscored_reference_instances"].append({"task": "s1", "instance": "a", "values": [1]})
    (p,) = problems_of(tmp_path, bad)
    assert "also a scored instance" in p.message


def test_resolve_by_suite_name_and_id(tmp_path):
    path = tmp_path / "references" / "ref-test" / "lite.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(MINI_REFERENCE))
    assert resolve_reference("lite", tmp_path, "ref-test").reference_id == "ref-test"
    # docs/commands.md: without an id, the benchmark folder's only reference id
    assert resolve_reference("lite", tmp_path, None).reference_id == "ref-test"
    other = tmp_path / "references" / "other" / "lite.json"
    other.parent.mkdir(parents=True)
    other.write_text(json.dumps({**MINI_REFERENCE, "reference_id": "other"}))
    with pytest.raises(InputError, match="available: other, ref-test"):
        resolve_reference("lite", tmp_path, None)  # two ids: the default paper-k3-fixed-260925, not there


def test_file_under_another_id_is_rejected(tmp_path):
    path = tmp_path / "references" / "other" / "lite.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(MINI_REFERENCE))
    with pytest.raises(InputError, match="looked up as 'other'"):
        resolve_reference("lite", tmp_path, "other")


def test_custom_path_is_taken_as_it_stands(tmp_path):
    path = write(tmp_path, MINI_REFERENCE, "custom.json")
    assert resolve_reference(str(path), tmp_path, None).reference_id == "ref-test"
