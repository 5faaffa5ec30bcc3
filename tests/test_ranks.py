"""docs/rules.md#ranks: paired p-values, Holm's correction, rank intervals, the top group."""

from __future__ import annotations

import functools
import json
import math
import operator
import random

import msgspec
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcsexam.scoring.formats.results import RankInterval, RankPair
from tcsexam.scoring.stats.ranks import leader, rank_models, top_group
from tcsexam.scoring.vocab import WEIGHTS, rank_text
from tests.support.ranks import holm, pair_p_value, paired_index_difference


def task_means(per_track: dict[str, list[float | None]]) -> dict[str, tuple[str, float | None]]:
    return {f"{t}-{i}": (t, v) for t, vs in per_track.items() for i, v in enumerate(vs)}


# Three models, two tasks per track. Against C, A is higher by the same amount on every task (se = 0);
# B differs from the others only on the theorem track, where the difference varies (se > 0).
A = task_means({"theorem": [1, 1], "solver": [0.6, 0.6], "construction": [1, 1], "conjecture": [1, 1]})  # 88
B = task_means({"theorem": [1, 0], "solver": [0.2, 0.2], "construction": [0, 0], "conjecture": [0, 0]})  # 21
C = task_means({"theorem": [0, 0], "solver": [0.2, 0.2], "construction": [0, 0], "conjecture": [0, 0]})  # 6


def test_holm_textbook_example():
    # Holm–Bonferroni, the standard four-hypothesis example: p = .01, .04, .03, .005 at alpha .05.
    # Sorted .005, .01, .03, .04; multipliers 4, 3, 2, 1: .02, .03, .06, .04 -> running max .02, .03, .06, .06.
    # H1 (.01) and H4 (.005) are rejected, H2 and H3 are not.
    adjusted = holm([0.01, 0.04, 0.03, 0.005])
    assert adjusted == pytest.approx([0.03, 0.06, 0.06, 0.02], abs=1e-15)
    assert [p < 0.05 for p in adjusted] == [True, False, False, True]


def test_holm_caps_at_one_and_keeps_monotone():
    # 3·.4 = 1.2 -> 1; 2·.7 = 1.4 -> 1; .9 -> max(1.4, .9) -> 1
    assert holm([0.9, 0.4, 0.7]) == [1.0, 1.0, 1.0]
    # ties: 2·.02 = .04 for both
    assert holm([0.02, 0.02]) == pytest.approx([0.04, 0.04])
    assert holm([]) == []


def test_paired_difference_by_hand():
    # A − B per task: theorem [0, 1] (mean .5, sd sqrt(.5), se .5), solver [.4, .4], construction [1, 1],
    # conjecture [1, 1] (se 0). d = 30·.5 + 30·.4 + 30·1 + 10·1 = 67; var = 900·.25 = 225, se 15;
    # df = 225² / (225²/1) = 1.
    d = paired_index_difference(A, B, WEIGHTS)
    assert d["difference"] == pytest.approx(67.0, abs=1e-12)
    assert d["se"] == pytest.approx(15.0, abs=1e-12) and d["df"] == pytest.approx(1.0, abs=1e-12)


def test_p_value_from_t_and_the_se_zero_rules():
    # df = 1 is the Cauchy distribution: p = 2·(1 − F(x)) = 1 − (2/π)·atan(x), an oracle independent of scipy
    assert pair_p_value(67.0, 15.0, 1.0) == pytest.approx(1 - 2 / math.pi * math.atan(67 / 15), abs=1e-14)
    assert pair_p_value(-15.0, 15.0, 1.0) == pytest.approx(0.5, abs=1e-14)
    assert pair_p_value(82.0, 0.0, None) == 0.0  # se = 0, d != 0
    assert pair_p_value(0.0, 0.0, None) == 1.0  # se = 0, d = 0
    assert pair_p_value(3.0, None, None) is None  # no se: no p


def test_rank_interval_with_one_separated_and_one_unseparated_pair():
    # pairs (a has the higher index): A–B p = 1 − (2/π)atan(67/15) = .14021; A–C se 0, d 82: p = 0;
    # B–C d = 15, se = 15, df 1: p = 1 − (2/π)atan(1) = .5.
    # Holm, K = 3: sorted 0, .14021, .5 -> 3·0 = 0, 2·.14021 = .28043, 1·.5 = .5. Only A–C is separated.
    # best = 1 + separated above, worst = 3 − separated below: A 1–2, B 1–3, C 2–3.
    r = rank_models({"C": 6.0, "A": 88.0, "B": 21.0}, {"A": A, "B": B, "C": C}, WEIGHTS)
    assert r.method == "paired-t-holm" and r.alpha == 0.05
    assert list(r.models) == ["A", "B", "C"]  # by index, highest first
    assert r.models == {
        "A": RankInterval(best=1, worst=2),
        "B": RankInterval(best=1, worst=3),
        "C": RankInterval(best=2, worst=3),
    }
    pairs = {(p.a, p.b): p for p in r.pairs}
    assert list(pairs) == [("A", "B"), ("A", "C"), ("B", "C")]
    p_ab = 1 - 2 / math.pi * math.atan(67 / 15)
    assert pairs["A", "B"].p == pytest.approx(p_ab, abs=1e-14)
    assert pairs["A", "B"].p_holm == pytest.approx(2 * p_ab, abs=1e-14) and not pairs["A", "B"].separated
    assert pairs["A", "C"] == RankPair(
        a="A", b="C", difference=pytest.approx(82.0), se=0.0, df=None, p=0.0, p_holm=0.0, separated=True
    )
    assert pairs["B", "C"].p_holm == pytest.approx(0.5, abs=1e-14) and not pairs["B", "C"].separated
    assert top_group(r) == ["A", "B"] and leader(r) is None
    assert [rank_text(r.models[m].best, r.models[m].worst) for m in "ABC"] == ["1–2", "1–3", "2–3"]


def test_a_lone_top_model_is_the_leader():
    # without B: A–C is the only pair, p = 0, Holm K = 1 -> separated; A ranks 1, C 2
    r = rank_models({"A": 88.0, "C": 6.0}, {"A": A, "C": C}, WEIGHTS)
    assert r.models == {"A": RankInterval(best=1, worst=1), "C": RankInterval(best=2, worst=2)}
    assert leader(r) == "A" and rank_text(r.models["C"].best, r.models["C"].worst) == "2"


def test_separation_is_strictly_below_alpha():
    # the threshold is strict: alpha equal to the adjusted p does not separate, the next float above does
    p = rank_models({"A": 88.0, "B": 21.0}, {"A": A, "B": B}, WEIGHTS).pairs[0].p_holm
    at = rank_models({"A": 88.0, "B": 21.0}, {"A": A, "B": B}, WEIGHTS, alpha=p)
    above = rank_models({"A": 88.0, "B": 21.0}, {"A": A, "B": B}, WEIGHTS, alpha=math.nextafter(p, 1.0))
    assert at.pairs[0].separated is False and at.models["B"] == RankInterval(best=1, worst=2)
    assert above.pairs[0].separated is True and above.models["B"] == RankInterval(best=2, worst=2)


def test_pairs_without_se_are_never_separated():
    # one conjecture task: no se, so no p; with no separated pair every model spans ranks 1–3
    a = task_means({"theorem": [1, 1], "solver": [1, 1], "construction": [2, 2], "conjecture": [1]})
    b = task_means({"theorem": [0, 0], "solver": [0, 0], "construction": [0, 0], "conjecture": [0]})
    c = task_means({"theorem": [0, 0], "solver": [0, 0], "construction": [0, 0], "conjecture": [0]})
    r = rank_models({"a": 130.0, "b": 0.0, "c": 0.0}, {"a": a, "b": b, "c": c}, WEIGHTS)
    assert all(p.se is None and p.p is None and p.p_holm is None and not p.separated for p in r.pairs)
    assert r.pairs[0].difference == pytest.approx(130.0)
    assert all(v == RankInterval(best=1, worst=3) for v in r.models.values())


def test_identical_models_tie_in_cohort_order_with_p_one():
    r = rank_models({"second": 6.0, "first": 6.0}, {"second": C, "first": C}, WEIGHTS)
    assert list(r.models) == ["second", "first"]  # tie: cohort order
    (pair,) = r.pairs
    assert (pair.a, pair.b, pair.difference, pair.se, pair.p) == ("second", "first", 0.0, 0.0, 1.0)
    assert r.models["second"] == RankInterval(best=1, worst=2) and top_group(r) == ["second", "first"]


def test_null_index_models_are_absent_and_a_single_model_ranks_one():
    r = rank_models({"A": 88.0, "late": None}, {"A": A, "late": C}, WEIGHTS)
    assert r.models == {"A": RankInterval(best=1, worst=1)} and r.pairs == []
    assert leader(r) == "A"
    assert rank_models({"late": None}, {"late": C}, WEIGHTS).models == {}


def test_holm_counts_only_pairs_with_a_p():
    # c lacks the second conjecture task: pairs with c have no se (one common conjecture task), so K = 1
    # for A–B alone: p_holm = p, not 3·p
    c = {k: v for k, v in C.items() if k != "conjecture-1"}
    r = rank_models({"A": 88.0, "B": 21.0, "c": 6.0}, {"A": A, "B": B, "c": c}, WEIGHTS)
    pairs = {(p.a, p.b): p for p in r.pairs}
    assert pairs["A", "B"].p_holm == pairs["A", "B"].p
    assert pairs["A", "c"].p is None and pairs["B", "c"].p is None


def test_demo_run_ranks_agree_with_compare(cli, tmp_path):
    # the demo run: atlas-70b complete, borealis-8x22b provisional, cirrus-mini incomplete (no index)
    from pathlib import Path

    from scipy import stats

    from tcsexam.scoring.reports.compare import compare_models
    from tcsexam.scoring.stats.ranks import ranks_of_document

    demo = Path(__file__).resolve().parents[1] / "sample_runs" / "demo"
    out = tmp_path / "index.json"
    code, _, _ = cli("score", str(demo), "--output", str(out))
    assert code == 3  # incomplete: cirrus-mini
    doc = json.loads(out.read_text(encoding="utf-8"))
    r = ranks_of_document(doc, WEIGHTS)
    assert list(r.models) == ["atlas-70b", "borealis-8x22b"]  # cirrus-mini has no index
    (pair,) = r.pairs
    # the same docs/rules.md#intervals difference as `compare` computes from the document by its own code
    index = compare_models(doc, "atlas-70b", "borealis-8x22b")["index"]
    assert pair.difference == pytest.approx(index["value"], rel=1e-12)
    assert pair.difference == pytest.approx(
        doc["models"]["atlas-70b"]["index"] - doc["models"]["borealis-8x22b"]["index"], rel=1e-12
    )
    assert (pair.se, pair.df) == pytest.approx((index["se"], index["df"]), rel=1e-12)
    assert pair.p == pytest.approx(2 * stats.t.sf(pair.difference / pair.se, pair.df), rel=1e-12)
    # one pair: Holm leaves p as it is; p > .05 (the 95% paired interval includes 0), so no leader
    assert pair.p_holm == pair.p and pair.p > 0.05 and index["lo"] < 0 < index["hi"]
    assert leader(r) is None and top_group(r) == ["atlas-70b", "borealis-8x22b"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=12), st.sampled_from([0.01, 0.05, 0.1]))
def test_holm_decisions_match_the_step_down_procedure(p_values, alpha):
    # Holm (1979) as a procedure: walk the sorted p-values, reject while p_(j) <= alpha/(K − j + 1)
    # (strict < in docs/rules.md#ranks), stop at the first that is not; the adjusted values must give the same decisions.
    k = len(p_values)
    order = sorted(range(k), key=lambda i: p_values[i])
    rejected = set()
    for j, i in enumerate(order):
        if not p_values[i] * (k - j) < alpha:
            break
        rejected.add(i)
    adjusted = holm(p_values)
    assert {i for i in range(k) if adjusted[i] < alpha} == rejected
    assert all(p <= q <= 1.0 for p, q in zip(p_values, adjusted, strict=True))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.floats(0.0, 1.0), min_size=8, max_size=8), min_size=1, max_size=6))
def test_rank_intervals_are_consistent(rows):
    # random models over 2 tasks per track: best <= worst; a separated pair's b cannot rank first nor its a last;
    # the top group is never empty and holds the highest index
    tracks = list(WEIGHTS)
    models = {
        f"m{n}": {f"{t}-{i}": (t, row[2 * k + i]) for k, t in enumerate(tracks) for i in range(2)}
        for n, row in enumerate(rows)
    }
    indexes = {
        m: math.fsum(WEIGHTS[t] * (tm[f"{t}-0"][1] + tm[f"{t}-1"][1]) / 2 for t in tracks) for m, tm in models.items()
    }
    r = rank_models(indexes, models, WEIGHTS)
    json.dumps(msgspec.to_builtins(r), allow_nan=False)  # the block goes into index.json as it is
    n = len(rows)
    assert len(r.pairs) == n * (n - 1) // 2
    assert all(1 <= v.best <= v.worst <= n for v in r.models.values())
    for pair in r.pairs:
        assert indexes[pair.a] >= indexes[pair.b]
        if pair.separated:
            assert r.models[pair.b].best >= 2 and r.models[pair.a].worst <= n - 1
    group = top_group(r)
    assert group and group[0] == max(indexes, key=lambda m: (indexes[m], -list(indexes).index(m)))


@pytest.mark.parametrize("df", [0.5, 1.0, 2.0, 3.7, 29.0, 1e6])
def test_the_pair_p_value_is_the_two_sided_tail_of_scipy_stats_t(df):
    from scipy import stats

    from tests.support.ranks import pair_p_value

    for difference, se in ((0.0, 1.0), (0.3, 0.1), (-0.3, 0.1), (2.5, 1.0), (1.0, 1e-12)):
        assert pair_p_value(difference, se, df) == float(2.0 * stats.t.sf(abs(difference) / se, df))


# --- thousands of models: the pairs listed up to 100, no ranks above 5,000 (docs/rules.md#ranks) -----------


def cohort(n: int, tasks_per_track: int, seed: int) -> tuple[dict, dict]:
    rng = random.Random(seed)
    models = {
        f"m{i:04d}": {f"{t}-{k}": (t, rng.choice((0.0, 0.5, 1.0))) for t in WEIGHTS for k in range(tasks_per_track)}
        for i in range(n)
    }
    indexes = {
        m: math.fsum(WEIGHTS[t] * math.fsum(v for tt, v in tm.values() if tt == t) / tasks_per_track for t in WEIGHTS)
        for m, tm in models.items()
    }
    return indexes, models


def test_the_pairs_are_listed_up_to_100_models_and_not_above():
    indexes, models = cohort(101, 2, seed=5)
    hundred = {m: indexes[m] for m in list(indexes)[:100]}
    listed = msgspec.to_builtins(rank_models(hundred, models, WEIGHTS))
    assert "pairs_listed" not in listed and "reason" not in listed  # the document as before
    assert len(listed["pairs"]) == 100 * 99 // 2
    above = rank_models(indexes, models, WEIGHTS)
    block = msgspec.to_builtins(above)
    assert block["pairs"] == [] and block["pairs_listed"] is False and "reason" not in block
    # the ranks themselves are still computed over every pair
    assert {m: (r.best, r.worst) for m, r in above.models.items()} == reference_ranks(indexes, models)[0]


def test_no_ranks_above_5000_models():
    # one task per track: the cohort is cheap; 5,001 models with an index (one more without)
    indexes, models = cohort(5002, 1, seed=6)
    indexes["m0000"] = None
    block = msgspec.to_builtins(rank_models(indexes, models, WEIGHTS))
    assert block == {
        "method": "paired-t-holm",
        "alpha": 0.05,
        "models": None,
        "pairs": [],
        "pairs_listed": False,
        "reason": "more than 5,000 models",
    }
    assert top_group(rank_models(indexes, models, WEIGHTS)) == []


def test_exactly_the_limit_is_still_ranked(monkeypatch):
    # 5,000 models are ranked, 5,001 are not; checked at a limit of 3 (12.5 M pairs take seconds)
    import tcsexam.scoring.stats.ranks

    assert tcsexam.scoring.stats.ranks.RANKED_MAX == 5000
    monkeypatch.setattr(tcsexam.scoring.stats.ranks, "RANKED_MAX", 3)
    indexes, models = cohort(4, 1, seed=7)
    assert rank_models(dict(list(indexes.items())[:3]), models, WEIGHTS).models is not None
    assert rank_models(indexes, models, WEIGHTS).models is None


# --- the array computation against docs/rules.md#ranks written out pair by pair ------------------------------


def reference_pair(a: dict, b: dict) -> tuple[float | None, float | None, float | None]:
    """docs/rules.md#intervals paired difference of one pair, from the text: per track the differences over the tasks
    both scored, their mean and se = sd/sqrt(m) (sd with m − 1); d = Σ w·mean, var = Σ w²·se²,
    df = var² / Σ (w²·se²)²/(m − 1). None where the text gives no value."""
    means, terms = {}, {}
    for t in WEIGHTS:
        diffs = [
            a[i][1] - b[i][1] for i in a if a[i][0] == t and a[i][1] is not None and b.get(i, (t, None))[1] is not None
        ]
        if not diffs:
            return None, None, None
        m = len(diffs)
        means[t] = math.fsum(diffs) / m
        if m >= 2:
            sd = math.sqrt(math.fsum((x - means[t]) ** 2 for x in diffs) / (m - 1))
            terms[t] = (WEIGHTS[t] ** 2 * (sd / math.sqrt(m)) ** 2, m)
    d = math.fsum(WEIGHTS[t] * means[t] for t in WEIGHTS)
    if len(terms) < len(WEIGHTS):
        return d, None, None
    var = math.fsum(v for v, _ in terms.values())
    denom = math.fsum(v * v / (m - 1) for v, m in terms.values())
    return d, math.sqrt(var), (var * var / denom if denom > 0 else None)


def reference_ranks(indexes: dict, models: dict, alpha: float = 0.05) -> tuple[dict, list]:
    from scipy import stats

    scored = [m for m in indexes if indexes[m] is not None]
    ordered = sorted(scored, key=lambda m: -indexes[m])
    pairs = []
    for i, a in enumerate(ordered):
        for b in ordered[i + 1 :]:
            d, se, df = reference_pair(models[a], models[b])
            if se is None:
                p = None
            elif se == 0:
                p = 0.0 if d != 0 else 1.0
            else:
                p = 2 * stats.t.sf(abs(d) / se, df)
            pairs.append({"a": a, "b": b, "difference": d, "se": se, "df": df, "p": p})
    tested = sorted((q for q in pairs if q["p"] is not None), key=lambda q: q["p"])
    k, running = len(tested), 0.0
    for j, q in enumerate(tested):  # Holm: min(1, max over j' <= j of (K − j' + 1)·p_(j'))
        running = max(running, (k - j) * q["p"])
        q["p_holm"] = min(1.0, running)
    for q in pairs:
        q.setdefault("p_holm", None)
        q["separated"] = q["p_holm"] is not None and q["p_holm"] < alpha
    n = len(ordered)
    ranks = {
        m: (
            1 + sum(q["separated"] for q in pairs if q["b"] == m),
            n - sum(q["separated"] for q in pairs if q["a"] == m),
        )
        for m in ordered
    }
    return ranks, pairs


def close(x: float | None, y: float | None) -> bool:
    if x is None or y is None:
        return x is y
    return abs(x - y) <= 1e-12 * max(1.0, abs(y))


@pytest.mark.parametrize("seed", range(40))
def test_the_ranks_are_spec_12_1_pair_by_pair(seed):
    # random cohorts with ties (scores from a few values), se = 0 (identical differences), tracks with
    # fewer than 2 common tasks (null task means; no se, no p) and models with a null index
    rng = random.Random(seed)
    n, per_track = rng.randint(1, 14), rng.randint(1, 3)
    values = rng.choice(((0.0, 1.0), (0.0, 0.25, 0.5, 1.0), None))
    models, indexes = {}, {}
    for i in range(n):
        tm = {}
        for t in WEIGHTS:
            for k in range(per_track):
                v = rng.choice(values) if values else rng.uniform(0, 1)
                tm[f"{t}-{k}"] = (t, None if rng.random() < 0.12 else v)
        models[f"m{i}"] = tm
        indexes[f"m{i}"] = None if rng.random() < 0.15 else rng.choice((50.0, 40.0, rng.uniform(0, 100)))
    if n >= 2 and rng.random() < 0.5:  # a model equal to another up to a constant on each track: se = 0
        models["m1"] = {item: (t, None if v is None else v + 0.125) for item, (t, v) in models["m0"].items()}
    ranks, pairs = reference_ranks(indexes, models)
    r = rank_models(indexes, models, WEIGHTS)
    assert {m: (v.best, v.worst) for m, v in r.models.items()} == ranks
    assert list(r.models) == list(ranks)
    assert len(r.pairs) == len(pairs)
    for got, want in zip(r.pairs, pairs, strict=True):
        assert (got.a, got.b, got.separated) == (want["a"], want["b"], want["separated"])
        for key in ("difference", "se", "df", "p", "p_holm"):
            assert close(getattr(got, key), want[key]), (key, got, want)


def test_compare_gives_any_pair_at_any_size_with_the_numbers_of_the_ranks():
    # compare reads the two models' task means, never the listed pairs: on a cohort of 101 (pairs not
    # listed) it gives a pair the same difference, se and df as the ranks computed for it at 100
    from tcsexam.scoring.reports.compare import compare_models

    indexes, models = cohort(101, 3, seed=8)
    document = {
        "models": {
            m: {"tasks": {item: {"track": t, "mean": v} for item, (t, v) in tm.items()}} for m, tm in models.items()
        },
        "ranks": msgspec.to_builtins(rank_models(indexes, models, WEIGHTS)),
    }
    assert document["ranks"]["pairs"] == []
    listed = rank_models({m: indexes[m] for m in list(indexes)[:100]}, models, WEIGHTS).pairs
    for pair in listed[:: len(listed) // 40]:
        index = compare_models(document, pair.a, pair.b)["index"]
        assert (index["value"], index["se"], index["df"]) == (pair.difference, pair.se, pair.df)


def test_the_overview_shows_no_rank_when_ranks_were_not_computed():
    from tcsexam.scoring.pipeline.benchmark import demo_run
    from tcsexam.scoring.pipeline.index import build_index
    from tcsexam.scoring.pipeline.run import load_run, resolve_run_paths
    from tcsexam.scoring.stats.ranks import not_ranked
    from tcsexam.tui.panes.overview.views import leader, overview_rows

    document = build_index(load_run(resolve_run_paths(str(demo_run()))))
    assert any(r.rank is not None for r in overview_rows(document))
    document["ranks"] = msgspec.to_builtins(not_ranked())
    assert [r.rank for r in overview_rows(document)] == [None] * len(document["models"])
    assert leader(document) is None


def test_holm_separation_without_a_full_sort_textbook_example():
    """docs/rules.md#ranks: sorted 0.005·4 = 0.02 and 0.01·3 = 0.03 are below 0.05, 0.03·2 = 0.06 is not:
    it and every larger p stay together; a pair without a p (NaN) is never separated."""
    from tcsexam.scoring.stats.ranks import holm_separated

    p = np.array([0.01, 0.04, 0.03, 0.005, np.nan])
    assert holm_separated(p).tolist() == [True, False, False, True, False]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from([0.0, 0.05, 0.025, 0.0125, 0.01, 1.0, float("nan")]),  # ties at the cut-offs
            st.floats(0.0, 1.0),
        ),
        max_size=60,
    )
)
def test_holm_separation_is_the_full_adjustments_below_alpha(values):
    from tcsexam.scoring.stats.ranks import holm_array, holm_separated

    p = np.array(values, dtype=float)
    assert holm_separated(p).tolist() == (holm_array(p) < 0.05).tolist()


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(-5, 5),
            st.one_of(st.just(0.0), st.just(float("nan")), st.floats(0.01, 3)),
            st.one_of(st.just(float("nan")), st.floats(1, 1e6)),
        ),
        max_size=80,
    )
)
def test_p_values_skipped_below_the_t_cut_off_never_change_a_separation(pairs):
    """A pair whose |d|/se is below 1.958 gets p = 1 instead of its t tail when the pairs are not listed:
    its true p is above 0.05 at every df, so Holm separates exactly the same pairs."""
    from tcsexam.scoring.stats.ranks import holm_separated, pair_p_values, pair_p_values_for_holm

    d, se, df = (np.array(c, dtype=float) for c in zip(*pairs, strict=True)) if pairs else (np.empty(0),) * 3
    full, skipped = pair_p_values(d, se, df), pair_p_values_for_holm(d, se, df, 0.05)
    assert np.isnan(full).tolist() == np.isnan(skipped).tolist()
    assert holm_separated(full).tolist() == holm_separated(skipped).tolist()


# --- pairs without an se are not computed when the pairs are not listed ---------------------------------------

plain_values = st.one_of(
    st.sampled_from([0.0, 0.5, 1.0]),  # discrete scores: many exact ties and zero variances
    st.floats(0.0, 1.0),
)
# tiny and huge magnitudes (some differences overflow)
extreme_values = st.one_of(plain_values, st.sampled_from([1e-300, 5e-324, 1e300, -1e300, 1e308, -1.7e308]))


@st.composite
def cohorts(draw):
    """Up to 9 models, 0-3 tasks a track (mostly 2-3), about one task mean in 8 missing."""
    n = draw(st.integers(2, 9))
    per_track = {t: draw(st.sampled_from([0, 1, 2, 2, 3, 3, 3])) for t in WEIGHTS}
    values = draw(st.sampled_from([plain_values, plain_values, extreme_values]))

    def value() -> float | None:
        return None if draw(st.integers(0, 7)) == 0 else draw(values)

    models = {}
    for i in range(n):
        models[f"m{i}"] = {f"{t}-{k}": (t, value()) for t in WEIGHTS for k in range(per_track[t])}
    if draw(st.booleans()):  # a model equal to another up to a constant on each task: se = 0
        models["m1"] = {item: (t, None if v is None else v + 0.25) for item, (t, v) in models["m0"].items()}
    indexes = {m: draw(st.sampled_from([10.0, 20.0, 50.0])) for m in models}
    return indexes, models


def ranks_or_error(indexes: dict, models: dict) -> tuple:
    from tcsexam.scoring.safety.numbers import NumberTooLarge

    try:
        r = rank_models(indexes, models, WEIGHTS)
    except NumberTooLarge as error:
        return ("error", str(error))
    return ("ranks", {m: (v.best, v.worst) for m, v in r.models.items()})


@settings(max_examples=300, deadline=None)
@given(cohorts())
def test_skipping_pairs_without_an_se_keeps_every_rank_and_every_error(drawn):
    """Ranks computed without the pairs that lack an se (the pairs not listed) are those of every pair
    computed (the pairs listed), and so is a NumberTooLarge."""
    import tcsexam.scoring.stats.ranks as ranks

    indexes, models = drawn
    every_pair = ranks_or_error(indexes, models)  # at most 9 models: the pairs are listed, all computed
    saved = ranks.PAIRS_LISTED_MAX
    ranks.PAIRS_LISTED_MAX = 1
    try:
        skipping = ranks_or_error(indexes, models)
    finally:
        ranks.PAIRS_LISTED_MAX = saved
    assert skipping == every_pair


def every_pair_p(matrices: dict, n: int) -> np.ndarray:
    """``pair_p_values_for_holm`` of every pair, in list order: what the ranks were computed from."""
    from tcsexam.scoring.stats.differences import paired_index_rows
    from tcsexam.scoring.stats.ranks import pair_p_values_for_holm

    a, b = np.triu_indices(n, 1)
    return pair_p_values_for_holm(*paired_index_rows(matrices, a, b, WEIGHTS), 0.05)


@settings(max_examples=300, deadline=None)
@given(cohorts())
def test_holm_p_values_separate_exactly_the_pairs_every_pair_computed_separates(drawn):
    """The p-values Holm gets when the pairs are not listed: NaN exactly where a pair has no p, the
    exact p where not 1, and the same separations, as every pair computed (or the same error)."""
    import tcsexam.scoring.stats.ranks as ranks
    from tcsexam.scoring.safety.numbers import NumberTooLarge
    from tcsexam.scoring.stats.differences import task_matrices

    indexes, models = drawn
    matrices = task_matrices(list(models.values()), WEIGHTS)
    n = len(models)
    try:
        want = every_pair_p(matrices, n)
    except NumberTooLarge:
        with pytest.raises(NumberTooLarge):
            ranks.holm_p_values(matrices, n, WEIGHTS)
        return
    got = ranks.holm_p_values(matrices, n, WEIGHTS)
    assert np.isnan(got).tolist() == np.isnan(want).tolist()
    computed = ~np.isnan(got) & (got != 1.0)
    np.testing.assert_array_equal(got[computed], want[computed])
    assert ranks.holm_separated(got).tolist() == ranks.holm_separated(want).tolist()


def test_a_pair_without_an_se_still_overflows_when_the_pairs_are_not_listed(monkeypatch):
    """One conjecture task: no pair has an se, yet a theorem difference of 1e308 − (−1e308) is refused
    as when every pair is computed (docs/safety.md)."""
    import tcsexam.scoring.stats.ranks as ranks
    from tcsexam.scoring.safety.numbers import NumberTooLarge

    def model(theorem: float) -> dict:
        return task_means({"theorem": [theorem, 0.0], "solver": [0, 1], "construction": [0, 1], "conjecture": [1]})

    models = {"A": model(1e308), "B": model(-1e308), "C": model(0.0)}
    indexes = {"A": 3.0, "B": 2.0, "C": 1.0}
    with pytest.raises(NumberTooLarge):
        rank_models(indexes, models, WEIGHTS)
    monkeypatch.setattr(ranks, "PAIRS_LISTED_MAX", 1)
    with pytest.raises(NumberTooLarge):
        rank_models(indexes, models, WEIGHTS)


def test_pairs_without_two_common_tasks_get_no_p_and_the_others_are_computed():
    """Counts decide which pairs have an se: B lacks a theorem task, so A–B and B–C have no p; A–C has
    one (se = 0 and d ≠ 0: p = 0), and K = 1 counts only it."""
    from tcsexam.scoring.stats.differences import task_matrices
    from tcsexam.scoring.stats.ranks import holm_p_values

    a = task_means({"theorem": [1, 1], "solver": [1, 1], "construction": [1, 1], "conjecture": [1, 1]})
    b = task_means({"theorem": [1, None], "solver": [1, 1], "construction": [1, 1], "conjecture": [1, 1]})
    c = task_means({"theorem": [0, 0], "solver": [0, 0], "construction": [0, 0], "conjecture": [0, 0]})
    p = holm_p_values(task_matrices([a, b, c], WEIGHTS), 3, WEIGHTS)
    assert np.isnan(p[0]) and p[1] == 0.0 and np.isnan(p[2])


# --- the screen: bounds in plain floating point decide the pairs that cannot be separated --------------------

screen_values = st.one_of(
    st.sampled_from([0.0, 0.5, 1.0, 0.1, 0.3]),  # ties, zero variances, sums that round
    st.floats(0.0, 1.0),
    st.floats(-1e6, 1e6),
    st.sampled_from([2.0**-400, -(2.0**-400), 2.0**400, -(2.0**399), 1e-100]),  # the ends of the screen's range
)


@st.composite
def screen_cohorts(draw):
    """Up to 8 models, 2-4 tasks a track, some near-equal (differences at the last bits), some missing."""
    n = draw(st.integers(2, 8))
    per_track = {t: draw(st.integers(2, 4)) for t in WEIGHTS}
    base = {f"{t}-{k}": (t, draw(screen_values)) for t in WEIGHTS for k in range(per_track[t])}
    models = {}
    for i in range(n):
        model = {}
        for item, (t, v) in base.items():
            how = draw(st.integers(0, 9))
            if how == 0:
                model[item] = (t, None)
            elif how <= 3:  # the base, shifted by a constant a model (se = 0) or by a few ulps
                model[item] = (t, v + i * 0.125 if how == 1 else float(np.nextafter(v, np.inf)) if how == 2 else v)
            else:
                model[item] = (t, draw(screen_values))
        models[f"m{i}"] = model
    return models


@settings(max_examples=400, deadline=None)
@given(screen_cohorts())
def test_the_screen_bounds_the_exact_t_and_df_of_every_testable_pair(models):
    """docs/performance.md#the-screen: the plain computation's bound is at least the |d|/se and the
    Welch–Satterthwaite df that ``paired_index_rows`` gives, bit for bit as computed."""
    from tcsexam.scoring.stats.differences import paired_index_rows, task_matrices
    from tcsexam.scoring.stats.ranks import screenable, t_upper_rows, testable_rows

    matrices = task_matrices(list(models.values()), WEIGHTS)
    if not screenable(matrices, WEIGHTS):
        return
    a, b = np.triu_indices(len(models), 1)
    rows = testable_rows(matrices, a, b)
    a, b = a[rows], b[rows]
    d, se, df = paired_index_rows(matrices, a, b, WEIGHTS)
    t_upper, df_upper = t_upper_rows(matrices, a, b, WEIGHTS)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(d) / se
    finite = np.isfinite(t_upper)
    assert (t[finite] <= t_upper[finite]).all()
    assert (se[finite] > 0).all()  # a bound only where the se is not 0
    tested = ~np.isnan(df)
    assert (df[tested] <= df_upper[tested] * (1 + 2.0**-30)).all()


def test_the_screen_keeps_a_pair_whose_se_is_zero_only_after_rounding():
    """Differences 0.1, 0.1, 0.1 + 1 ulp: the se is a few ulps, |d|/se is huge; the bound must not
    call the pair unseparable however small the se."""
    from tcsexam.scoring.stats.differences import paired_index_rows, task_matrices
    from tcsexam.scoring.stats.ranks import t_upper_rows

    up = float(np.nextafter(0.1, 1.0))
    a = task_means(
        {"theorem": [0.1, 0.1, up], "solver": [0.1, 0.1], "construction": [0.1, 0.1], "conjecture": [0.1, 0.1]}
    )
    b = task_means({"theorem": [0.0, 0.0, 0.0], "solver": [0, 0], "construction": [0, 0], "conjecture": [0, 0]})
    matrices = task_matrices([a, b], WEIGHTS)
    one = np.array([0])
    d, se, _ = paired_index_rows(matrices, one, one + 1, WEIGHTS)
    assert 0 < se[0] < 1e-14 and abs(d[0]) / se[0] > 1e10
    assert t_upper_rows(matrices, one, one + 1, WEIGHTS)[0][0] >= abs(d[0]) / se[0]


@pytest.mark.parametrize("tail", [0.05, 1e-3, 2.5e-8, 1e-12])
def test_the_t_cut_offs_leave_a_p_of_at_least_the_tail_at_every_df_up_to_the_bound(tail):
    """Below the cut-off q for a df bound D the two-sided p is at least ``tail`` at D and at every
    df under it (scipy.stats, independently of scipy.special: the t's tail falls as df grows)."""
    from scipy import stats

    from tcsexam.scoring.stats.ranks import t_cutoffs

    bounds = np.array([1.0, 2.0, 3.0, 4.0, 7.0, 30.0, 400.0])
    q = t_cutoffs(bounds, tail)
    for bound, cut in zip(bounds, q, strict=True):
        for df in np.linspace(0.5, bound, 9):
            assert 2 * stats.t.sf(cut, df) >= tail
        assert 2 * stats.t.sf(cut * 1.001, bound) < tail * 1.01  # not needlessly low


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(st.sampled_from([0.0, 0.05, 0.025, 0.0125, 0.01, 1.0, float("nan")]), st.floats(0.0, 1.0)),
        max_size=60,
    ),
    st.lists(st.booleans(), max_size=60),
)
def test_raising_unseparated_p_values_to_one_keeps_every_separation(values, raise_it):
    """docs/performance.md#the-screen: Holm separates the p-values below a cut; any p at or above it
    may become 1 (and stays among the K) without changing a separation."""
    from tcsexam.scoring.stats.ranks import holm_separated

    p = np.array(values, dtype=float)
    separated = holm_separated(p)
    raised = p.copy()
    for i, r in enumerate(raise_it[: p.size]):
        if r and not separated[i] and not np.isnan(p[i]):
            raised[i] = 1.0
    assert holm_separated(raised).tolist() == separated.tolist()


@pytest.mark.parametrize("v", [0.1, 0.2, 0.7, 0.9])
def test_the_screen_gives_no_bound_where_the_plain_mean_rounds_off_a_zero_variance(v):
    """Seven equal differences v: the exact mean is v and the se 0 (|d|/se infinite), while the plain
    sum of seven v's divided by 7 is not v, leaving deviations of a few ulps. The bound subtracts
    what the plain mean's error can add to the squares, so it gives no finite bound."""
    from tcsexam.scoring.stats.differences import paired_index_rows, task_matrices
    from tcsexam.scoring.stats.ranks import t_upper_rows

    # the plain mean, added left to right as t_upper_rows does (builtin sum is compensated from Python 3.12)
    assert functools.reduce(operator.add, [v] * 7) / 7 != v
    a = task_means({t: [v] * 7 for t in WEIGHTS})
    b = task_means({t: [0.0] * 7 for t in WEIGHTS})
    matrices = task_matrices([a, b], WEIGHTS)
    one = np.array([0])
    assert paired_index_rows(matrices, one, one + 1, WEIGHTS)[1][0] == 0.0
    assert t_upper_rows(matrices, one, one + 1, WEIGHTS)[0][0] == np.inf


def test_the_bounds_kept_in_float32_are_rounded_up():
    from tcsexam.scoring.stats.ranks import upward_float32

    x = np.array([0.1, 1 / 3, 2.0, 1e-50, 0.0, 3.5e38, np.inf, 0.9])  # 0.9 is above its nearest float32
    y = upward_float32(x).astype(float)
    assert (y >= x).all()
    assert y[2] == 2.0 and y[4] == 0.0  # exact values stay
    assert (y[[0, 1, 7]] < x[[0, 1, 7]] * (1 + 2.0**-22)).all()  # the next float32 up, no further


def test_a_cut_off_that_is_not_a_number_proves_nothing(monkeypatch):
    """Should scipy give no cut-off (NaN), every pair with a p is computed exactly."""
    import tcsexam.scoring.stats.ranks as ranks
    from tcsexam.scoring.stats.differences import task_matrices

    indexes, models = cohort(12, 2, seed=3)
    matrices = task_matrices(list(models.values()), WEIGHTS)
    monkeypatch.setattr(ranks, "t_cutoffs", lambda df, tail: np.full(df.shape, np.nan))
    got = ranks.holm_p_values(matrices, 12, WEIGHTS)
    np.testing.assert_array_equal(got, every_pair_p(matrices, 12))


@pytest.mark.parametrize(("seed", "values"), [(0, None), (1, (0.0, 1.0)), (2, (0.0, 0.5, 1.0)), (3, None)])
def test_the_screen_on_cohorts_of_300_models_separates_as_every_pair_computed(seed, values):
    """300 models, 2-3 tasks a track, continuous or discrete scores (many ties, se = 0), a few missing:
    thousands of pairs near and far from Holm's cut."""
    from tcsexam.scoring.stats.differences import task_matrices
    from tcsexam.scoring.stats.ranks import holm_p_values, holm_separated

    rng = random.Random(seed)
    per = 2 + seed % 2
    models = []
    for _ in range(300):
        level = rng.random()
        models.append(
            {
                f"{t}-{k}": (
                    t,
                    None
                    if rng.random() < 0.03
                    else rng.choice(values)
                    if values
                    else min(1.0, max(0.0, level + rng.gauss(0, 0.1))),
                )
                for t in WEIGHTS
                for k in range(per)
            }
        )
    matrices = task_matrices(models, WEIGHTS)
    got, want = holm_p_values(matrices, 300, WEIGHTS), every_pair_p(matrices, 300)
    assert np.isnan(got).tolist() == np.isnan(want).tolist()
    assert holm_separated(got).tolist() == holm_separated(want).tolist()
    assert holm_separated(want).sum() > 0


def test_the_screen_keeps_a_pair_that_holm_separates_only_by_stepping_down():
    """Three pairs, df 4 each (the bound's df is exact): p(A, C) ≈ 0.001 is below 0.05/3, p(A, B) ≈ 0.02
    only below 0.05/2, separated after A–C. A screen that started from alpha/(K + 1) = 0.0125
    would prove p(A, B) above it and lose that separation."""
    from scipy import stats

    from tcsexam.scoring.stats.differences import task_matrices
    from tcsexam.scoring.stats.ranks import holm_p_values, holm_separated

    def model(c: float, s: float) -> dict:
        # per track, tasks f·(c ± s) with f = 10 / w: every pair's w·se is the same on each track
        return task_means({t: [10 / w * (c + s), 10 / w * (c - s)] for t, w in WEIGHTS.items()})

    t_ac, t_ab = stats.t.isf(0.0005, 4), stats.t.isf(0.01, 4)  # two-sided p 0.001 and 0.02
    a, c = model(t_ac / 2, 1.0), model(0.0, 0.0)
    b = model(t_ac / 2 - t_ab, 3.0)  # |cA - cB| / |sA - sB| · 2 = t_ab
    matrices = task_matrices([a, b, c], WEIGHTS)
    want = every_pair_p(matrices, 3)
    assert want == pytest.approx([0.02, 0.001, want[2]], rel=1e-6) and want[2] > 0.5
    assert holm_separated(want).tolist() == [True, True, False]
    got = holm_p_values(matrices, 3, WEIGHTS)
    assert holm_separated(got).tolist() == [True, True, False]
