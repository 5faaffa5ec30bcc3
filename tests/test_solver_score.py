"""docs/rules.md#solver-score: the solver relative score against the fixed reference."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from tcsexam.scoring.errors import InputError
from tcsexam.scoring.formats.records import parse_records, read_records
from tcsexam.scoring.pipeline.reference import reference_from_dict
from tcsexam.scoring.pipeline.solver import score_task


def task_ref(instances, kind="objective", direction="maximize", relative=0.02, absolute=1e-9):
    ref = reference_from_dict(
        {
            "reference_id": "r",
            "suite": "lite",
            "scale_floor": {"relative": relative, "absolute": absolute},
            "tasks": {"t": {"kind": kind, "direction": direction, "instances": instances}},
        },
        "ref.json",
    )
    return ref.task("t")


def score(instances, records, **kw):
    ref = task_ref(instances, **kw)
    return score_task(ref, parse_records(records, "recs.json", ref.kind))


def test_worked_example_half_and_quarter():
    # docs/rules.md#solver-score: reference [10, 12, 14] -> mu 12, s 2, scale max(2, 0.24, 1e-9) = 2; A = 12 -> Phi(0) = 0.5;
    # a timeout scores 0; relative_score = (0.5 + 0) / 2 = 0.25.
    result = score(
        {"e1": [10, 12, 14], "e2": [10, 12, 14]},
        [{"instance": "e1", "status": "ok", "A": 12}, {"instance": "e2", "status": "timeout"}],
    )
    assert result.ref.mu[0] == 12 and result.ref.s[0] == 2 and result.ref.scale[0] == 2
    assert result.phi.tolist() == [0.5, 0.0]
    assert result.relative_score == 0.25
    assert math.isnan(result.z[1])


def test_maximize_z_and_phi():
    # A = 15 on [10, 12, 14]: z = (15 - 12) / 2 = 1.5
    result = score({"e": [10, 12, 14]}, [{"instance": "e", "status": "ok", "A": 15}])
    assert result.z[0] == pytest.approx(1.5, abs=1e-15)
    assert result.phi[0] == pytest.approx(norm.cdf(1.5), abs=1e-15)


def test_minimize_flips_the_sign():
    # minimizing: z = (mu - A) / scale = (12 - 15) / 2 = -1.5
    result = score({"e": [10, 12, 14]}, [{"instance": "e", "status": "ok", "A": 15}], direction="minimize")
    assert result.z[0] == pytest.approx(-1.5, abs=1e-15)
    assert result.phi[0] == pytest.approx(norm.cdf(-1.5), abs=1e-15)


def test_relative_floor_applies_when_spread_is_small():
    # [1000, 1000, 1000]: s = 0, relative floor 0.02*1000 = 20 wins; A = 1010 -> z = 0.5
    result = score({"e": [1000, 1000, 1000]}, [{"instance": "e", "status": "ok", "A": 1010}])
    assert result.ref.scale[0] == pytest.approx(20.0)
    assert result.z[0] == pytest.approx(0.5)


def test_absolute_floor_applies_when_mu_is_zero():
    # [0, 0]: s = 0, relative floor 0, absolute floor 0.5 declared in the file; A = 1 -> z = 2
    result = score({"e": [0, 0]}, [{"instance": "e", "status": "ok", "A": 1}], absolute=0.5)
    assert result.ref.scale[0] == 0.5
    assert result.z[0] == pytest.approx(2.0)


def test_floors_are_read_from_the_file():
    a = score({"e": [1000, 1000]}, [{"instance": "e", "status": "ok", "A": 1010}], relative=0.01)
    assert a.ref.scale[0] == pytest.approx(10.0)  # 0.01 * 1000, not the paper's 0.02


def test_null_reference_runs_are_unusable_and_ignored():
    # [10, null, 14]: mu 12, s = sd(10, 14) = 2.828...
    ref = task_ref({"e": [10, None, 14]})
    assert ref.mu[0] == 12
    assert ref.s[0] == pytest.approx(statistics.stdev([10, 14]), rel=1e-15)


def test_solve_kind_uses_one_and_zero():
    # values [1, 0, 1]: mu 2/3, s = 0.57735; solved -> A = 1; unsolved -> A = 0
    ref_values = {"x": [1, 0, 1], "y": [1, 0, 1], "w": [1, 0, 1]}
    result = score(
        ref_values,
        [
            {"instance": "x", "status": "ok", "solved": True},
            {"instance": "y", "status": "ok", "A": 0},
            {"instance": "w", "status": "ok", "solved": False},
        ],
        kind="solve",
    )
    mu, s = 2 / 3, statistics.stdev([1, 0, 1])
    assert result.z.tolist() == pytest.approx([(1 - mu) / s, (0 - mu) / s, (0 - mu) / s])


def test_solve_kind_rejects_other_values_and_disagreement():
    with pytest.raises(InputError, match="0 or 1"):
        score({"x": [1, 0]}, [{"instance": "x", "status": "ok", "A": 0.5}], kind="solve")
    with pytest.raises(InputError, match="disagrees"):
        score({"x": [1, 0]}, [{"instance": "x", "status": "ok", "A": 0, "solved": True}], kind="solve")


def test_unscored_records_are_listed_and_excluded_from_the_mean():
    result = score(
        {"e": [10, 12, 14]}, [{"instance": "e", "status": "ok", "A": 12}, {"instance": "G81", "status": "ok", "A": 1e6}]
    )
    assert result.unscored_instances == ["G81"]
    assert result.relative_score == 0.5


@pytest.mark.parametrize("status", ["timeout", "invalid", "certificate_failed", "crash", "out_of_memory"])
def test_every_failure_status_scores_zero(status):
    result = score({"e": [10, 12, 14]}, [{"instance": "e", "status": status, "A": 99}])
    assert result.phi[0] == 0.0 and result.relative_score == 0.0


@pytest.mark.parametrize(
    "records, fragment, field",
    [
        ([], "has no record", "instance"),
        (
            [{"instance": "e", "status": "ok", "A": 12}, {"instance": "e", "status": "ok", "A": 13}],
            "duplicate",
            "instance",
        ),
        ([{"instance": "e", "status": "missing"}], "incomplete observation", "status"),
        ([{"instance": "e", "status": "infra_error"}], "incomplete observation", "status"),
        (
            [{"instance": "e", "status": "finished"}],
            "must be one of ok, timeout, invalid, certificate_failed, crash, out_of_memory, missing, infra_error; got 'finished'",
            "status",
        ),
        ([{"instance": "e", "status": "ok"}], "needs a finite value A", "A"),
        ([{"instance": "e", "status": "ok", "A": "12"}], "must be a number", "A"),
        ([{"instance": "e", "status": "ok", "A": True}], "must be a number", "A"),
        ([{"status": "ok", "A": 1}], "required", "instance"),
        (["e"], "expected an object", ""),
    ],
)
def test_rejected_records(records, fragment, field):
    with pytest.raises(InputError) as info:
        score({"e": [10, 12, 14]}, records)
    problem = info.value.problems[0]
    assert fragment in problem.message
    assert problem.field == field
    assert problem.file == "recs.json"


def test_every_bad_record_is_reported_at_once():
    with pytest.raises(InputError) as info:
        score(
            {"e": [10, 12, 14]},
            [
                {"instance": "e", "status": "missing"},
                {"instance": "f", "status": "bogus"},
                {"instance": "g", "status": "ok"},
            ],
        )
    wheres = [p.where for p in info.value.problems]
    assert [w.split(" (")[0] for w in wheres] == ["record 0", "record 1", "record 2"]


def test_records_must_be_a_list():
    with pytest.raises(InputError, match="expected a JSON list"):
        parse_records({"instance": "e"}, "recs.json", "objective")


def test_z_overflow_is_rejected_not_scored():
    with pytest.raises(InputError, match="overflows"):
        score({"e": [0, 0]}, [{"instance": "e", "status": "ok", "A": 1e308}], absolute=1e-300, relative=0)


def test_two_pass_sd_is_exact_for_large_offsets():
    # the naive one-pass formula loses everything at 1e9 offsets; two-pass keeps it
    vals = [1e9 + 1, 1e9 + 2, 1e9 + 3]
    ref = task_ref({"e": vals})
    assert ref.s[0] == pytest.approx(1.0, rel=1e-12)


finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(st.lists(finite, min_size=2, max_size=5), finite, finite, st.sampled_from(["maximize", "minimize"]))
def test_phi_in_unit_interval_and_monotone(values, a1, a2, direction):
    lo, hi = min(a1, a2), max(a1, a2)
    result = score(
        {"p": values, "q": values},
        [{"instance": "p", "status": "ok", "A": lo}, {"instance": "q", "status": "ok", "A": hi}],
        direction=direction,
    )
    p_lo, p_hi = result.phi.tolist()
    assert 0.0 <= p_lo <= 1.0 and 0.0 <= p_hi <= 1.0
    if direction == "maximize":
        assert p_lo <= p_hi
    else:
        assert p_lo >= p_hi


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(min_value=-(10**6), max_value=10**6), min_size=2, max_size=5),
    st.sampled_from(["maximize", "minimize"]),
)
def test_value_equal_to_mu_scores_half(values, direction):
    ref = task_ref({"p": values}, direction=direction)
    mu = float(ref.mu[0])
    result = score_task(ref, parse_records([{"instance": "p", "status": "ok", "A": mu}], "r", "objective"))
    assert result.phi[0] == 0.5


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(min_value=-1e9, max_value=1e9, allow_nan=False), min_size=2, max_size=6))
def test_mu_and_s_match_the_statistics_module(values):
    ref = task_ref({"p": values})
    assert ref.mu[0] == pytest.approx(math.fsum(values) / len(values), rel=1e-15, abs=1e-12)
    assert ref.s[0] == pytest.approx(statistics.stdev(values), rel=1e-9, abs=1e-6)
    assert ref.scale[0] >= 1e-9


def test_vectorised_scores_equal_a_per_instance_loop():
    rng = np.random.default_rng(3)
    instances = {f"i{k}": [float(v) for v in rng.normal(100, 5, 3)] for k in range(200)}
    records = [{"instance": f"i{k}", "status": "ok", "A": float(rng.normal(100, 8))} for k in range(200)]
    result = score(instances, records)
    for k, rec in enumerate(records):
        vals = instances[f"i{k}"]
        mu = math.fsum(vals) / 3
        scale = max(statistics.stdev(vals), 0.02 * abs(mu), 1e-9)
        assert result.phi[k] == pytest.approx(norm.cdf((rec["A"] - mu) / scale), abs=1e-14)


def test_records_in_any_order_score_the_same_and_others_are_listed():
    instances = {"e": [10, 12, 14], "f": [100, 100], "g": [1, 2, 3]}
    in_order = [
        {"instance": "e", "status": "ok", "A": 12},
        {"instance": "f", "status": "timeout"},
        {"instance": "g", "status": "ok", "A": 2},
    ]
    shuffled = [in_order[2], {"instance": "x", "status": "crash"}, in_order[0], in_order[1]]
    a, b = score(instances, in_order), score(instances, shuffled)
    assert a.relative_score == b.relative_score == (0.5 + 0 + 0.5) / 3
    assert b.status == ["ok", "timeout", "ok"] and b.unscored_instances == ["x"] and a.unscored_instances == []


def test_a_number_beyond_a_double_is_a_problem_not_a_crash():
    with pytest.raises(InputError) as info:
        parse_records([{"instance": "e", "status": "ok", "A": 10**400}], "r.json", "objective")
    assert [(p.where, p.field) for p in info.value.problems] == [("record 0 ('e')", "A")]
    assert "out of range" in info.value.problems[0].message


def test_bad_types_and_broken_rules_are_listed_together_in_record_order():
    with pytest.raises(InputError) as info:
        score(
            {"e": [10, 12, 14]},
            [
                {"instance": "e", "status": "ok"},
                {"instance": "f", "status": "ok", "A": True},
                {"instance": "e", "status": "timeout"},
                {"instance": "g", "status": "infra_error"},
            ],
        )
    assert [(p.where, p.field) for p in info.value.problems] == [
        ("record 0 ('e')", "A"),
        ("record 1 ('f')", "A"),
        ("record 2 ('e')", "instance"),
        ("record 3 ('g')", "status"),
    ]
    assert "first at record 0" in info.value.problems[2].message


def test_a_syntax_or_encoding_error_after_a_bad_record_is_what_is_reported():
    for data, where in (
        (b'[-1e400{"instance": "a"}]', "line 1 column 8"),
        (
            b'[{"instance": "a", "status": "ok"}, {"instance": "\x80b", "status": "ok"}, 1]',
            "line 1 column 51",
        ),  # 1 + 33 + 2 + 15 chars precede the bad byte
    ):
        with pytest.raises(InputError) as info:
            read_records(data, "r.json", "objective")
        (problem,) = info.value.problems
        assert problem.where == where and problem.message.startswith("invalid JSON")


@pytest.mark.parametrize("field", ["z", "A", "phi", "mu", "s", "scale", "relative_score"])
def test_a_non_finite_number_never_reaches_a_solver_score_file(field):
    """The last guard before a solver-score file is written (pipeline.solver.output_is_finite): the
    null of a failure's A and z is allowed, an infinity or a NaN anywhere else is not."""
    import dataclasses

    from tcsexam.scoring.pipeline.solver import output_is_finite

    good = score(
        {"e1": [10, 12, 14], "e2": [10, 12, 14]},
        [{"instance": "e1", "status": "ok", "A": 12}, {"instance": "e2", "status": "timeout"}],
    )
    assert math.isnan(good.z[1]) and math.isnan(good.A[1]) and output_is_finite(good)
    if field == "relative_score":
        bad = dataclasses.replace(good, relative_score=math.inf)
    elif field in ("mu", "s", "scale"):
        values = getattr(good.ref, field).copy()
        values[1] = math.inf
        bad = dataclasses.replace(good, ref=dataclasses.replace(good.ref, **{field: values}))
    else:
        values = getattr(good, field).copy()
        values[0] = -math.inf if field != "phi" else math.nan  # instance e1 did not fail
        bad = dataclasses.replace(good, **{field: values})
    assert not output_is_finite(bad)
    assert output_is_finite(good)  # the check changed nothing it was given


def test_a_bad_record_does_not_hide_a_scored_instance_with_no_record():
    """A record's bad field rejected the file, and the scored instance it had no record of was named only
    once that was mended: both are listed at once, as for a file that is otherwise good."""
    from tcsexam.scoring.pipeline.solver import score_attempt_bytes

    ref = task_ref({"e": [10, 12, 14], "f": [1, 2, 3], "g": [5, 6, 7]})
    data = b'[{"instance": "e", "status": "ok", "A": "12"}, {"instance": "f", "status": "ok", "A": 2}]'
    with pytest.raises(InputError) as info:
        score_attempt_bytes(ref, data, "recs.json")
    assert [(p.where, p.field) for p in info.value.problems] == [("record 0 ('e')", "A"), ("", "instance")]
    assert info.value.problems[1].message == "1 scored instance of task 't' has no record: g"
    other = b'[{"instance": "q", "status": "ok", "A": "12"}]'  # no name of the task: another task's, not 3 missing
    with pytest.raises(InputError) as info:
        score_attempt_bytes(ref, other, "recs.json")
    assert [p.field for p in info.value.problems] == ["A"] and "another task" in str(info.value.hint)


def test_a_run_names_the_missing_instance_of_the_file_with_the_bad_record(ws, cli):
    """The same in a run's re-scoring, where a task's files are read together: the missing instance is
    told of the file that lacks it, not of another file of the task."""
    ws.write_checked_run(models=("m", "n"))
    bad = ws.write_records("m", "s1", "1", [{"instance": "a", "status": "ok", "A": "12"}])  # 'b' has none
    code, _, err = cli("validate", str(ws.run), "--benchmark", str(ws.bench))
    assert code == 1 and "2 problems in 1 file" in err, err
    assert f"{bad}: record 0 ('a'): field 'A': must be a number or null, got '12'" in err
    assert f"{bad}: field 'instance': 1 scored instance of task 's1' has no record: b" in err
