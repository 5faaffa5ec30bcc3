"""pass^k = C(c, k) / C(n, k) (docs/rules.md#passk); track mean over tasks with n >= k."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction
from math import comb

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcsexam.scoring.stats.passk import mean_pass_hat_k, task_pass_hat_k
from tests.support.runs import full_rows, row


def test_estimator_values():
    # n = 4, c = 3: pass^1 = 3/4, pass^2 = C(3,2)/C(4,2) = 3/6, pass^3 = 1/4, pass^4 = 0
    assert task_pass_hat_k(4, 3) == {1: 0.75, 2: 0.5, 3: 0.25, 4: 0.0}


def test_mean_only_over_tasks_with_enough_attempts():
    # task A: n=3, c=3 -> 1, 1, 1; task B: n=1, c=0 -> 0.  k=1: (1+0)/2; k=2, 3: only A.
    assert mean_pass_hat_k([(3, 3), (1, 0)]) == {1: 0.5, 2: 1.0, 3: 1.0}


def test_tasks_without_valid_attempts_are_left_out():
    assert mean_pass_hat_k([(2, 1), (0, 0)]) == {1: 0.5, 2: 0.0}
    assert mean_pass_hat_k([(0, 0)]) == {}


def test_the_same_counts_again_give_the_same_means_in_a_dict_of_the_callers_own():
    # a leaderboard's models repeat their counts: a caller that changes what it got changes nothing later
    first = mean_pass_hat_k([(2, 1), (1, 1)])
    first[1] = -1.0
    first[7] = 0.0
    assert mean_pass_hat_k([(2, 1), (1, 1)]) == {1: 0.75, 2: 0.0}
    assert mean_pass_hat_k([(2, 1), (1, 1)], 1) == {1: 0.75}


task_counts = st.lists(st.integers(0, 6).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))), max_size=40)


@settings(max_examples=300, deadline=None)
@given(task_counts)
def test_track_mean_is_the_exact_mean_rounded_once(counts):
    # docs/rules.md#passk: the mean over the tasks with n >= k of C(c,k)/C(n,k), computed exactly, one rounding
    got = mean_pass_hat_k(counts)
    for k in range(1, 7):
        terms = [Fraction(comb(c, k), comb(n, k)) for n, c in counts if n >= k]
        if terms:
            assert got[k] == float(sum(terms) / len(terms))
        else:
            assert k not in got


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=1, max_value=40).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))))
def test_in_unit_interval_and_non_increasing(nc):
    n, c = nc
    values = list(task_pass_hat_k(n, c).values())
    assert all(0 <= v <= 1 for v in values)
    assert all(a >= b for a, b in itertools.pairwise(values))
    assert values[0] == c / n


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=1, max_value=12).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))))
def test_equals_the_without_replacement_probability(nc):
    # pass^k = probability that k attempts drawn without replacement are all successes
    n, c = nc
    for k in range(1, n + 1):
        prob = Fraction(1)
        for i in range(k):
            prob *= Fraction(max(c - i, 0), n - i)
        assert task_pass_hat_k(n, c)[k] == float(prob)


def test_run_pass_hat_k_uses_threshold_and_valid_adopted_attempts(ws):
    # c1 planned 3: scores 1.0, 0.99, 1.5 -> c = 2 of n = 3 at threshold 1.0; c2: 1 attempt 0.4 -> c = 0
    ws.write_cohort(models={"m": {"attempts_per_task": 1, "attempts_per_item": {"c1": 3}}})
    rows = [r for r in full_rows() if r["item"] != "c1"]
    rows += [row(track="construction", item="c1", attempt=a, score=s) for a, s in ((1, 1.0), (2, 0.99), (3, 1.5))]
    rows += [row(track="construction", item="c1", attempt="0", score=1, adoption="excluded", note="x")]
    ws.write_rows(rows)
    pk = ws.load()["models"]["m"]["pass_hat_k"]["construction"]
    assert pk["threshold"] == 1.0
    assert pk["by_k"] == {"1": pytest.approx((2 / 3 + 0) / 2), "2": pytest.approx(comb(2, 2) / comb(3, 2)), "3": 0.0}
    # overridden threshold 0.9: c1 has c = 3
    pk = ws.load({"construction": 0.9})["models"]["m"]["pass_hat_k"]["construction"]
    assert pk["threshold"] == 0.9 and pk["by_k"]["3"] == 1.0


def test_solver_threshold_is_one_half(ws):
    ws.write_rows(full_rows(scores={"s1": 0.5, "s2": 0.4999}))
    pk = ws.load()["models"]["m"]["pass_hat_k"]["solver"]
    assert pk["threshold"] == 0.5 and pk["by_k"] == {"1": 0.5}


def test_threshold_override_from_the_command_line(ws, cli):
    import json

    ws.write_rows(full_rows(scores={"s1": 0.3, "s2": 0.4}))
    code, _, _ = cli(*ws.score_args("--threshold", "solver=0.35"))
    assert code == 0
    doc = json.loads(ws.out.read_text())
    assert doc["models"]["m"]["pass_hat_k"]["solver"] == {"threshold": 0.35, "tasks": 2, "by_k": {"1": 0.5}}
    code, _, err = cli(*ws.score_args("--threshold", "solvr=0.35"))
    assert code == 2 and "TRACK=VALUE" in err and "did you mean 'solver'?" in err
    code, _, err = cli(*ws.score_args("--threshold", "Theorem=0.5"))
    assert code == 2 and "did you mean 'theorem'?" in err
    code, _, err = cli(*ws.score_args("--threshold", "0.5"))  # no TRACK at all: nothing to suggest
    assert code == 2 and "got '0.5'" in err and "did you mean" not in err


def ulps_off(got: float, exact: Fraction) -> Fraction:
    """How many ulps of the exact value's nearest double ``got`` is away from the exact value."""
    return abs(Fraction(got) - exact) / Fraction(math.ulp(float(exact)))


def test_every_k_of_small_tasks_is_the_exact_value_rounded():
    # the values as the exact integers give them (C(c,k)/C(n,k) rounded once), for every n <= 40
    for n in range(1, 41):
        for c in range(n + 1):
            got = task_pass_hat_k(n, c)
            assert got == {k: float(Fraction(comb(c, k), comb(n, k))) for k in range(1, n + 1)}


def test_many_trials_are_within_one_ulp_of_the_exact_value():
    # docs/decisions.md: a running product of 128-bit precision is within 1 ulp of C(c,k)/C(n,k)
    rng = random.Random(29)
    cases = [(10_000, 7_000), (10_000, 9_999), (10_000, 1), (4_096, 2_048), (3_001, 3_000)]
    cases += [(n, rng.randint(0, n)) for n in (rng.randint(50, 3_000) for _ in range(30))]
    for n, c in cases:
        got = task_pass_hat_k(n, c)
        assert len(got) == n
        for k in {1, 2, n, *rng.sample(range(1, n + 1), 12)}:
            exact = Fraction(comb(c, k), comb(n, k))
            assert ulps_off(got[k], exact) <= 1, (n, c, k)
            if exact == 0:
                assert got[k] == 0.0


def test_track_means_of_large_tasks_are_within_one_ulp():
    rng = random.Random(31)
    for _ in range(20):
        counts = [(n, rng.randint(0, n)) for n in (rng.randint(1, 400) for _ in range(rng.randint(1, 12)))]
        got = mean_pass_hat_k(counts)
        for k in rng.sample(range(1, max(n for n, _ in counts) + 1), 8):
            terms = [Fraction(comb(c, k), comb(n, k)) for n, c in counts if n >= k]
            assert ulps_off(got[k], sum(terms) / len(terms)) <= 1, (counts, k)
