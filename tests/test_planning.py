"""docs/rules.md#planning-attempts (the planner, the MDE) and 12.4 (the variance shares), on hand-worked examples.

Quantiles come from scipy.stats.t.ppf as the oracle; the variances are worked out in the comments.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from scipy import stats

from tcsexam.scoring.formats.results import TrackVariance
from tcsexam.scoring.stats.planning import (
    attempts_for_target,
    clipped_tracks,
    mde,
    mde_clipped,
    mde_parts,
    plan,
    plan_model,
    projected_half_width,
    shares,
    shares_of_ci,
    track_variance,
    within_variance,
)
from tcsexam.scoring.vocab import WEIGHTS

# theorem: task means .5, 1, 0; within SS .5 over Σ(r_i − 1) = 3 -> s_w² = 1/6;
#          S² = (0 + .25 + .25)/2 = .25; mean(1/r) = .5; σ_b² = .25 − (1/6)(.5) = 1/6
# solver: means .5, .5 -> S² = 0; within SS (.09 + .09)·2 = .36 over 2 -> s_w² = .18; σ_b² = max(0, 0 − .09) = 0
# construction: single attempts add nothing to s_w²: SS 0 over 1 (the third task) -> s_w² = 0;
#          S² of 1, 2, 1.5 = .25 -> σ_b² = .25
# conjecture: as theorem -> s_w² = 1/6, σ_b² = 1/6
RUN = {
    "theorem": [[1, 0], [1, 1], [0, 0]],
    "solver": [[0.2, 0.8], [0.8, 0.2]],
    "construction": [[1.0], [2.0], [1.5, 1.5]],
    "conjecture": [[0, 1], [1, 1], [0, 0]],
}


def hand_half_width(terms):
    var = sum(v for v, _ in terms)
    df = var**2 / sum(v * v / (m - 1) for v, m in terms)
    return df, stats.t.ppf(0.975, df) * math.sqrt(var)


def test_track_variances_by_hand_with_sigma_b_floored_at_zero():
    assert track_variance(RUN["theorem"]) == TrackVariance(
        m=3, s_w2=pytest.approx(1 / 6), sigma_b2=pytest.approx(1 / 6)
    )
    solver = track_variance(RUN["solver"])
    assert solver.s_w2 == pytest.approx(0.18, abs=1e-15) and solver.sigma_b2 == 0.0  # floored, not −.09
    assert track_variance(RUN["construction"]) == TrackVariance(m=3, s_w2=0.0, sigma_b2=pytest.approx(0.25))


# σ_b² exactly 0 in rationals, a last-bit remainder in floats: S² = s_w²·mean(1/r_i) = 1/27 (below: 5/48)
ZERO_BELOW = [[0, 0, 0], [0, 0, 0], [0, 0, 1]]  # floats leave −6.9e-18: a clip that is not one
ZERO_ABOVE = [[0, 0, 1], [0, 0, 1], [0, 0, 1], [0, 0, 1], [1, 1, 1]]  # floats leave +1.4e-17: "σ_b²=1.388e-17"


@pytest.mark.parametrize("tasks", [ZERO_BELOW, ZERO_ABOVE])
def test_a_between_task_variance_within_rounding_of_zero_is_zero_and_no_clip(tasks):
    assert track_variance(tasks).sigma_b2 == 0.0  # exactly: not a variance of 1e-17
    assert clipped_tracks({"theorem": tasks}, {"theorem": 1.0}) == []
    assert clipped_tracks({"theorem": RUN["solver"]}, {"theorem": 1.0}) == ["theorem"]  # a real clip still is one
    small = [[0, 0, 1], [0, 0, 1], [0, 0, 1], [0, 0, 1], [1, 1, 1 + 1e-6]]  # a real σ_b², 1e-6 of its terms, stays
    assert track_variance(small).sigma_b2 == pytest.approx(exact_between(small), rel=1e-6)
    assert 8e-8 < exact_between(small) < 9e-8


def exact_between(tasks) -> float:
    """S² − s_w²·mean(1/r_i) in rationals, from the floats as given."""
    tasks = [[Fraction(x) for x in xs] for xs in tasks]
    means = [sum(xs) / len(xs) for xs in tasks]
    within = sum(sum((x - mu) ** 2 for x in xs) for xs, mu in zip(tasks, means, strict=True))
    s_w2 = within / sum(len(xs) - 1 for xs in tasks)
    grand = sum(means) / len(means)
    s2 = sum((mu - grand) ** 2 for mu in means) / (len(means) - 1)
    return float(s2 - s_w2 * sum(Fraction(1, len(xs)) for xs in tasks) / len(tasks))


def test_a_paired_between_task_variance_within_rounding_of_zero_is_zero_and_no_clip():
    pairs = [([0, 0, 0], [1, 0, 0]), ([0, 0, 0], [0, 0, 0]), ([0, 0, 0], [0, 0, 0])]  # floats leave −6.9e-18
    weights = {"theorem": 1.0}
    # s_wA² = 0, s_wB² = (2/3)/6 = 1/9; S_d² = 1/27 = mean(0/3 + (1/9)/3)
    assert mde_parts({"theorem": pairs}, weights) == {"theorem": (0.0, pytest.approx(1 / 9, rel=1e-15), 3)}
    assert mde_clipped({"theorem": pairs}, weights) == []


def test_s_w2_is_null_without_a_task_run_twice():
    assert within_variance([[0], [1], [1]]) is None
    assert track_variance([[0], [1], [1]]) == TrackVariance(m=3, s_w2=None, sigma_b2=None)
    assert track_variance([[0, 1]]) == TrackVariance(m=1, s_w2=None, sigma_b2=None)  # m < 2
    assert track_variance([[0, 1], []]).m == 1  # a task without an attempt has no task mean


def test_half_width_by_hand():
    tracks = {t: track_variance(v) for t, v in RUN.items()}
    # r = 1: se_t² = (σ_b² + s_w²)/m: theorem (1/6 + 1/6)/3 = 1/9, solver .18/2 = .09,
    #        construction .25/3, conjecture 1/9; w²·se²: 100, 81, 75, 100/9
    df1, h1 = hand_half_width([(100.0, 3), (81.0, 2), (75.0, 3), (100 / 9, 3)])
    assert df1 == pytest.approx(4.94266, abs=1e-5)
    assert projected_half_width(tracks, WEIGHTS, 1) == pytest.approx(h1, rel=1e-12)
    # r = 2: theorem (1/6 + 1/12)/3 = 1/12 -> 75; solver .09/2 -> 40.5; construction 75 (s_w² = 0);
    #        conjecture 100/12
    _, h2 = hand_half_width([(75.0, 3), (40.5, 2), (75.0, 3), (100 / 12, 3)])
    assert projected_half_width(tracks, WEIGHTS, 2) == pytest.approx(h2, rel=1e-12)
    # r → large: only σ_b² remains; r = 10: 900(1/6 + 1/60)/3 = 55, 900·.018/2 = 8.1, 75, 100(11/60)/3
    _, h10 = hand_half_width([(55.0, 3), (8.1, 2), (75.0, 3), (100 * 11 / 180, 3)])
    assert projected_half_width(tracks, WEIGHTS, 10) == pytest.approx(h10, rel=1e-12)
    # unlimited attempts (None): σ_b² alone, 900/6/3 = 50, 0 (solver's σ_b² is 0), 900·.25/3 = 75, 100/6/3
    _, limit = hand_half_width([(50.0, 3), (0.0, 2), (75.0, 3), (100 / 18, 3)])
    assert projected_half_width(tracks, WEIGHTS, None) == pytest.approx(limit, rel=1e-12)
    assert plan_model(RUN, WEIGHTS).half_width_limit == pytest.approx(limit, rel=1e-12)


def test_a_target_not_reached_says_where_more_attempts_would_take_the_half_width():
    from tcsexam.scoring.reports.plan import unreached

    assert unreached(10, 8.554, 5.0) == (
        "not reached with up to 10 attempts; with more it levels off at 8.55 points, "
        "the spread between tasks: more tasks narrow it, more attempts do not"
    )
    assert unreached(4, 8.554, 9.5) == "not reached with up to 4 attempts; with more it levels off at 8.55 points"
    assert unreached(3, None, 9.5) == "not reached with up to 3 attempts"


def test_plan_model_document_and_attempts_for_target():
    _, h1 = hand_half_width([(100.0, 3), (81.0, 2), (75.0, 3), (100 / 9, 3)])
    _, h2 = hand_half_width([(75.0, 3), (40.5, 2), (75.0, 3), (100 / 12, 3)])
    target = (h1 + h2) / 2  # between: the first r that reaches it is 2
    p = plan_model(RUN, WEIGHTS, max_attempts=4, target=target)
    assert list(p.half_width) == ["1", "2", "3", "4"]
    assert p.half_width["2"] == pytest.approx(h2, rel=1e-12) and p.attempts_for_target == 2
    assert p.tracks["solver"] == TrackVariance(m=2, s_w2=pytest.approx(0.18), sigma_b2=0.0)
    assert plan_model(RUN, WEIGHTS, max_attempts=4).attempts_for_target is None  # no target
    assert plan_model(RUN, WEIGHTS, max_attempts=4, target=1e-3).attempts_for_target is None  # never reached
    doc = plan({"m1": RUN}, WEIGHTS, max_attempts=2, target=target)
    assert doc.target == target and doc.level == 0.95 and list(doc.models) == ["m1"]
    assert list(plan({"x": RUN}, WEIGHTS).models["x"].half_width) == [str(r) for r in range(1, 11)]


def test_half_width_null_when_a_track_cannot_be_planned():
    one_attempt = dict(RUN, conjecture=[[0], [1], [1]])  # s_w² null
    assert all(v is None for v in plan_model(one_attempt, WEIGHTS, target=100.0).half_width.values())
    assert plan_model(one_attempt, WEIGHTS, target=100.0).attempts_for_target is None
    one_task = dict(RUN, conjecture=[[0, 1]])  # m < 2
    assert projected_half_width({t: track_variance(v) for t, v in one_task.items()}, WEIGHTS, 3) is None
    missing = {t: v for t, v in RUN.items() if t != "solver"}
    p = plan_model(missing, WEIGHTS)
    assert p.tracks["solver"] == TrackVariance(m=0, s_w2=None, sigma_b2=None) and p.half_width["1"] is None


def test_half_width_zero_when_var_is_zero():
    flat = {t: [[1, 1], [1, 1]] for t in WEIGHTS}  # s_w² = 0, S² = 0 -> σ_b² = 0
    p = plan_model(flat, WEIGHTS, max_attempts=3, target=0.0)
    assert p.half_width == {"1": 0.0, "2": 0.0, "3": 0.0} and p.attempts_for_target == 1


def test_attempts_for_target_reads_keys_as_numbers():
    hw = {str(r): 10.0 / r for r in range(1, 11)}  # "10" sorts before "2" as text
    assert attempts_for_target(hw, 1.0) == 10 and attempts_for_target(hw, 5.0) == 2


# MDE pair. theorem: A [[1,0],[1,1]] (means .5, 1), B [[0,0],[0,1]] (means 0, .5): d = .5, .5 -> S_d² = 0;
#   s_wA² = (.5 + 0)/2 = .25, s_wB² = .25; mean(s_wA²/2 + s_wB²/2) = .25 -> σ_bd² = max(0, −.25) = 0;
#   se_dt(r)² = (0 + .5/r)/2 = .25/r -> w²·se² = 225/r. construction and conjecture the same: 225/r, 25/r.
# solver: A [[.9,.7],[.2,.2]] (means .8, .2), B [[.1,.3],[.2,.2]] (.2, .2): d = .6, 0 -> S_d² = .18;
#   s_wA² = (.01 + .01)/2 = .01 = s_wB²; noise mean (.005 + .005 + .005 + .005)/2 = .01 -> σ_bd² = .17;
#   se_dt(r)² = (.17 + .02/r)/2 -> w²·se² = 76.5 + 9/r.
THEOREM_PAIR = [([1, 0], [0, 0]), ([1, 1], [0, 1])]
PAIR = {
    "theorem": THEOREM_PAIR,
    "solver": [([0.9, 0.7], [0.1, 0.3]), ([0.2, 0.2], [0.2, 0.2])],
    "construction": THEOREM_PAIR,
    "conjecture": THEOREM_PAIR,
}


def hand_mde(terms):
    var = sum(v for v, _ in terms)
    df = var**2 / sum(v * v / (m - 1) for v, m in terms)
    return df, (stats.t.ppf(0.975, df) + stats.t.ppf(0.80, df)) * math.sqrt(var)


def test_mde_by_hand():
    out = mde(PAIR, WEIGHTS)
    assert list(out) == [str(r) for r in range(1, 11)]
    df1, m1 = hand_mde([(225.0, 2), (85.5, 2), (225.0, 2), (25.0, 2)])  # var 560.5
    assert df1 == pytest.approx(560.5**2 / 109185.25, rel=1e-12)
    assert out["1"] == pytest.approx(m1, rel=1e-12)
    _, m5 = hand_mde([(45.0, 2), (78.3, 2), (45.0, 2), (5.0, 2)])  # r = 5: 225/5, 76.5 + 9/5, 225/5, 25/5
    assert out["5"] == pytest.approx(m5, rel=1e-12)


def test_mde_scales_as_one_over_sqrt_r_when_between_variance_is_zero():
    pair = dict(PAIR, solver=THEOREM_PAIR)  # every track σ_bd² = 0: var_d(r) = var_d(1)/r, df unchanged
    out = mde(pair, WEIGHTS)
    _, m1 = hand_mde([(225.0, 2), (225.0, 2), (225.0, 2), (25.0, 2)])
    assert out["1"] == pytest.approx(m1, rel=1e-12) and out["4"] == pytest.approx(m1 / 2, rel=1e-12)


def test_mde_null_rules():
    nulls = dict.fromkeys([str(r) for r in range(1, 11)])
    assert mde(dict(PAIR, conjecture=THEOREM_PAIR[:1]), WEIGHTS) == nulls  # m < 2
    assert mde(dict(PAIR, conjecture=[([1, 0], [0]), ([1, 1], [1])]), WEIGHTS) == nulls  # s_wB² null
    assert mde({t: v for t, v in PAIR.items() if t != "solver"}, WEIGHTS) == nulls  # no common task
    flat = {t: [([1, 1], [0, 0]), ([1, 1], [0, 0])] for t in WEIGHTS}  # constant differences: var_d = 0
    assert mde(flat, WEIGHTS) == dict.fromkeys(nulls, 0.0)


def test_shares_by_hand_sum_to_one():
    # se: theorem .25, solver .1, construction .5/sqrt(3), conjecture .5 -> w²·se²: 56.25, 9, 75, 25; var 165.25
    s = shares({"theorem": 0.25, "solver": 0.1, "construction": 0.5 / math.sqrt(3), "conjecture": 0.5}, WEIGHTS)
    assert s == pytest.approx(
        {"theorem": 56.25 / 165.25, "solver": 9 / 165.25, "construction": 75 / 165.25, "conjecture": 25 / 165.25},
        rel=1e-12,
    )
    assert math.fsum(s.values()) == pytest.approx(1.0, abs=1e-15)


def test_shares_left_out_when_var_is_zero_or_a_track_has_no_se():
    assert shares(dict.fromkeys(WEIGHTS, 0.0), WEIGHTS) is None
    assert shares({"theorem": 0.1, "solver": 0.1, "construction": 0.1, "conjecture": None}, WEIGHTS) is None
    # a track with se 0 keeps a share of exactly 0
    assert shares({"theorem": 0.0, "solver": 0.1, "construction": 0.0, "conjecture": 0.0}, WEIGHTS) == {
        "theorem": 0.0,
        "solver": 1.0,
        "construction": 0.0,
        "conjecture": 0.0,
    }


def test_shares_of_a_ci_block():
    from tcsexam.scoring.stats.uncertainty import ci_block

    # docs/rules.md#intervals example of tests/test_uncertainty.py: w²·se² = 56.25, 9, 75, 25 over var 165.25
    values = {"theorem": [1, 0, 1, 1], "solver": [0.2, 0.4], "construction": [1.0, 1.5, 0.5], "conjecture": [0, 1]}
    s = shares_of_ci(ci_block(values, 66.5, WEIGHTS), WEIGHTS)
    assert s == pytest.approx(
        {"theorem": 56.25 / 165.25, "solver": 9 / 165.25, "construction": 75 / 165.25, "conjecture": 25 / 165.25},
        rel=1e-12,
    )
    assert shares_of_ci(ci_block(dict(values, conjecture=[1]), 66.5, WEIGHTS), WEIGHTS) is None  # m < 2: no se


def test_plan_and_mde_are_json_without_nan():
    import json

    import msgspec

    json.dumps(
        msgspec.to_builtins(plan({"m": RUN, "n": dict(RUN, conjecture=[[0], [1]])}, WEIGHTS, target=20.0)),
        allow_nan=False,
    )
    json.dumps(mde(PAIR, WEIGHTS), allow_nan=False)


# The first-contact run of docs/rules.md#planning-attempts: two tasks a track; theorem and conjecture
# with task means equal (σ_b² = 0), solver and construction with spread between tasks.
NARROWEST = {
    "theorem": TrackVariance(m=2, s_w2=0.25, sigma_b2=0.0),
    "solver": TrackVariance(m=2, s_w2=0.002639, sigma_b2=0.02085),
    "construction": TrackVariance(m=2, s_w2=0.05, sigma_b2=0.155),
    "conjecture": TrackVariance(m=2, s_w2=0.25, sigma_b2=0.0),
}


def oracle_half_width(tracks: dict[str, TrackVariance], r: int) -> float:
    """t(0.975, df)·sqrt(var) worked out here: var terms w²·(σ_b² + s_w²/r)/m, Welch–Satterthwaite df."""
    terms = [(WEIGHTS[t] ** 2 * (v.sigma_b2 + v.s_w2 / r) / v.m, v.m) for t, v in tracks.items()]
    var = sum(v for v, _ in terms)
    df = var**2 / sum(v * v / (m - 1) for v, m in terms)
    return float(stats.t.ppf(0.975, df)) * math.sqrt(var)


def test_the_projected_half_width_can_be_narrowest_before_the_most_attempts():
    """docs/rules.md#planning-attempts: var(r) only falls, but with σ_b² = 0 in two tracks the degrees of
    freedom fall too, and the half-width is narrowest at r = 3 (44.6 points), 52.0 at r = 10."""
    widths = {r: projected_half_width(NARROWEST, WEIGHTS, r) for r in range(1, 11)}
    for r, h in widths.items():
        assert h == pytest.approx(oracle_half_width(NARROWEST, r), rel=1e-12)
    assert min(widths, key=lambda r: widths[r]) == 3
    assert [round(widths[r], 1) for r in (1, 2, 3, 4, 10)] == [55.2, 45.8, 44.6, 45.2, 52.0]


def test_plan_says_where_a_projection_that_widens_again_is_narrowest():
    from tcsexam.scoring.commands.text import plan_notes

    widens = {"half_width": {"1": 55.23, "2": 45.81, "3": 44.59, "4": 45.19}}
    assert plan_notes(widens)[0].startswith("  note: the projection is narrowest at r=3 (44.59); beyond it")
    falls = {"half_width": {"1": 55.23, "2": 45.81, "3": 44.59, "4": 44.0}}
    assert plan_notes(falls) == []
    flat = {"half_width": dict.fromkeys(("1", "2", "3", "4"), 12.5)}  # s_w² = 0 everywhere: the same at every r
    assert plan_notes(flat) == []
