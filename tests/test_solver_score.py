"""SPEC section 3: the solver relative score against the fixed reference."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from scoring.errors import InputError
from scoring.reference import reference_from_dict
from scoring.solver_score import parse_records, score_task


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
    # SPEC 3: reference [10, 12, 14] -> mu 12, s 2, scale max(2, 0.24, 1e-9) = 2; A = 12 -> Phi(0) = 0.5;
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
        ([], "have no record", "instance"),
        (
            [{"instance": "e", "status": "ok", "A": 12}, {"instance": "e", "status": "ok", "A": 13}],
            "duplicate",
            "instance",
        ),
        ([{"instance": "e", "status": "missing"}], "incomplete observation", "status"),
        ([{"instance": "e", "status": "infra_error"}], "incomplete observation", "status"),
        ([{"instance": "e", "status": "finished"}], "Input should be", "status"),
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


record = st.fixed_dictionaries(
    {"instance": st.one_of(st.sampled_from(["e", "f", "g", ""]), st.integers(0, 2))},
    optional={
        "status": st.sampled_from(["ok", "timeout", "missing", "crash", "bogus", None]),
        "A": st.one_of(st.none(), st.integers(-2, 2), st.floats(-5, 5), st.booleans(), st.just("1")),
        "solved": st.one_of(st.none(), st.booleans(), st.just(1)),
    },
)


@settings(max_examples=400, deadline=None)
@given(st.lists(record, max_size=5), st.sampled_from(["objective", "solve"]))
def test_bulk_record_check_accepts_exactly_what_the_record_by_record_pass_accepts(raw, kind):
    from scoring.solver_score import parse_records_fast, parse_records_slow

    fast = parse_records_fast(raw, "r", kind)
    try:
        slow = parse_records_slow(raw, "r", kind)
    except InputError:
        slow = None
    if fast is not None:  # the fast path may decline valid input, but never accept invalid input
        assert slow is not None
        assert fast.names == slow.names and fast.status == slow.status
        assert np.array_equal(fast.A, slow.A, equal_nan=True)


good_record = st.one_of(
    st.fixed_dictionaries({"status": st.just("ok"), "A": st.one_of(st.integers(-2, 2), st.floats(-1e3, 1e3))}),
    st.fixed_dictionaries({"status": st.just("ok"), "solved": st.booleans()}),
    st.fixed_dictionaries(
        {"status": st.sampled_from(["timeout", "crash", "invalid"])},
        optional={"A": st.one_of(st.none(), st.floats(-5, 5))},
    ),
)
bad_record = st.fixed_dictionaries(
    {"status": st.sampled_from(["ok", "missing", "bogus"])},
    optional={
        "A": st.one_of(st.none(), st.just(1e308), st.just("1"), st.booleans()),
        "solved": st.one_of(st.none(), st.just(1)),
    },
)


@st.composite
def attempts_of_one_task(draw):
    """Files of one task: in reference order, in a shared other order, with an unscored instance
    added, with a repeated or a missing instance, not a list; values good and bad."""
    names = ["e", "f", "g"]
    shared_order = draw(st.permutations(names + ["x"]))  # x: not a scored instance
    files = []
    for k in range(draw(st.integers(1, 6))):
        shape = draw(
            st.sampled_from(["in_order", "in_order", "shared", "shared", "shuffled", "repeated", "short", "object"])
        )
        order = {
            "shared": shared_order,
            "shuffled": draw(st.permutations(names)),
            "repeated": names + ["e"],
            "short": names[:2],
        }.get(shape, names)
        bad = draw(st.integers(0, 3)) == 0  # one file in four may hold a bad record
        recs = [{"instance": n, **draw(st.one_of(good_record, bad_record) if bad else good_record)} for n in order]
        files.append((f"a{k}.json", recs if shape != "object" else {"records": recs}))
    return files


def outcome(result):
    if isinstance(result, InputError):
        return ("rejected", [(p.file, p.where, p.field, p.message) for p in result.problems])
    return (
        "scored",
        result.status,
        result.A.tolist(),
        result.z.tolist(),
        result.phi.tolist(),
        result.relative_score,
        result.unscored_instances,
    )


@settings(max_examples=300, deadline=None)
@given(attempts_of_one_task(), st.sampled_from(["objective", "solve"]), st.sampled_from(["maximize", "minimize"]))
def test_attempts_scored_together_equal_each_scored_alone(files, kind, direction):
    # SPEC 4's re-scoring takes a task's attempts in one batch; every attempt's result (its z, Phi,
    # relative score, or its problems) must be what scoring that file alone gives, to the bit.
    from scoring.solver_score import score_attempts, score_one

    # 'g' has scale = the absolute floor 1e-300, so A = 1e308 makes z overflow
    instances = (
        {"e": [1.0, 0.0, 1.0], "f": [0, 0, 1], "g": [1, 1]}
        if kind == "solve"
        else {"e": [10.0, 12.0, 14.5], "f": [-3, 2.5, 1e3], "g": [0.0, 0.0, 0.0]}
    )
    ref = task_ref(instances, kind=kind, direction=direction, absolute=1e-300)
    together = [outcome(r) for r in score_attempts(ref, files)]
    alone = [outcome(score_one(ref, raw, file)) for file, raw in files]
    assert repr(together) == repr(alone)  # repr: NaN compares equal to NaN, -0.0 differs from 0.0


def test_a_batch_with_one_bad_file_still_scores_the_others():
    from scoring.solver_score import score_attempts

    ref = task_ref({"e": [10, 12, 14], "f": [10, 12, 14]})
    good = [{"instance": "e", "status": "ok", "A": 12}, {"instance": "f", "status": "timeout"}]
    bad = [{"instance": "e", "status": "ok", "A": "12"}, {"instance": "f", "status": "timeout"}]
    results = score_attempts(ref, [("a.json", good), ("b.json", bad), ("c.json", good)])
    assert [r.relative_score for r in (results[0], results[2])] == [0.25, 0.25]
    assert isinstance(results[1], InputError) and results[1].problems[0].file == "b.json"
    assert results[1].problems[0].field == "A"


def test_a_batch_with_an_overflowing_z_rejects_that_attempt_only():
    from scoring.solver_score import score_attempts

    ref = task_ref({"e": [0.0, 0.0, 0.0], "f": [10, 12, 14]}, absolute=1e-300)  # scale of e: 1e-300
    good = [{"instance": "e", "status": "ok", "A": 0.0}, {"instance": "f", "status": "ok", "A": 12}]
    huge = [{"instance": "e", "status": "ok", "A": 1e308}, {"instance": "f", "status": "ok", "A": 12}]
    results = score_attempts(ref, [("a.json", good), ("b.json", huge)])
    assert results[0].relative_score == 0.5
    assert isinstance(results[1], InputError)
    assert (results[1].problems[0].where, results[1].problems[0].field) == ("record 0 ('e')", "A")
    assert "overflows" in results[1].problems[0].message


def test_files_of_one_layout_are_scored_as_one_batch(monkeypatch):
    # the point of the batch: good files of a shared layout never take the one-file path
    import scoring.solver_score as ss

    alone = []
    monkeypatch.setattr(ss, "score_one", lambda ref, raw, file: alone.append(file) or ss.InputError([]))
    ref = task_ref({"e": [10, 12, 14], "f": [10, 12, 14]})
    layout = [
        {"instance": "x", "status": "crash"},
        {"instance": "f", "status": "timeout"},
        {"instance": "e", "status": "ok", "A": 12},
    ]
    short = layout[:2]  # e has no record: scored alone, to word that
    results = ss.score_attempts(
        ref, [("a.json", layout), ("b.json", layout[::-1]), ("c.json", layout), ("d.json", short)]
    )
    assert alone == ["d.json"]
    assert [r.relative_score for r in results[:3]] == [0.25, 0.25, 0.25]
    assert results[0].unscored_instances == ["x"] and results[0].status == ["ok", "timeout"]
