"""Ranks from pairwise comparisons (SPEC section 12.1).

Every pair of models with an index is compared by the paired index difference
of SPEC 9 (task-clustered t over the per-task differences); the p-values are
corrected with Holm's step-down procedure, and a model's rank interval counts
the models it is separated from. The inputs are plain: each model's index and
its task means by item (in suite order); the result is the ``ranks`` block of
index.json.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, TypedDict

from scipy.special import stdtr

from .differences import TaskMeans, paired_comparison, task_means_of
from .results import RankInterval, RankPair, Ranks

METHOD: Final = "paired-t-holm"
ALPHA = 0.05


class PairedDifference(TypedDict):
    difference: float | None
    se: float | None
    df: float | None


def paired_index_difference(a: TaskMeans, b: TaskMeans, weights: Mapping[str, float]) -> PairedDifference:
    """The index part of SPEC 9's paired comparison (``differences.paired_comparison``): d, se and df.

    ``difference`` is None when a track has no task both models scored; ``se``
    is None when a track has fewer than 2 (SPEC 12.1: such a pair has no p);
    ``df`` is None when se = 0.
    """
    idx = paired_comparison(a, b, weights)["index"]
    if idx is None:
        return {"difference": None, "se": None, "df": None}
    return {"difference": idx["value"], "se": idx["se"], "df": idx["df"]}


def pair_p_value(difference: float | None, se: float | None, df: float | None) -> float | None:
    """SPEC 12.1: p = 2·(1 − F_t(|d|/se; df)); when se = 0, p = 0 if d ≠ 0 else 1; None without an se."""
    if difference is None or se is None:
        return None
    if se == 0.0:
        return 0.0 if difference != 0.0 else 1.0
    return float(2.0 * stdtr(df, -abs(difference) / se))  # F_t's upper tail at |d|/se


def holm(p_values: list[float]) -> list[float]:
    """Holm's step-down adjustment (SPEC 12.1), returned in the input's order.

    Sorted ascending p_(1) ≤ … ≤ p_(K): adjusted p_(i) = min(1, max over j ≤ i of (K − j + 1)·p_(j)).
    """
    k = len(p_values)
    order = sorted(range(k), key=lambda i: p_values[i])
    adjusted = [0.0] * k
    running = 0.0
    for rank, i in enumerate(order):  # rank = j - 1
        running = max(running, (k - rank) * p_values[i])
        adjusted[i] = min(1.0, running)
    return adjusted


def rank_models(
    indexes: Mapping[str, float | None],
    task_means: Mapping[str, TaskMeans],
    weights: Mapping[str, float],
    alpha: float = ALPHA,
) -> Ranks:
    """The ``ranks`` block of index.json (SPEC 12.1).

    ``indexes`` holds every cohort model in cohort order (index None when
    incomplete: such models are left out); ``task_means`` each model's task
    means by item. Models are listed by index, highest first (ties in cohort
    order); pairs by a's then b's position in that list, a the higher index.
    """
    scored = {m: v for m, v in indexes.items() if v is not None}
    ordered = sorted(scored, key=lambda m: -scored[m])  # sorted() is stable: ties keep cohort order
    pairs: list[RankPair] = []
    for i, a in enumerate(ordered):
        for b in ordered[i + 1 :]:
            d = paired_index_difference(task_means[a], task_means[b], weights)
            p = pair_p_value(d["difference"], d["se"], d["df"])
            pairs.append(RankPair(a, b, d["difference"], d["se"], d["df"], p, p_holm=None, separated=False))
    tested = [(pair, pair.p) for pair in pairs if pair.p is not None]
    for (pair, _), adjusted in zip(tested, holm([p for _, p in tested]), strict=True):
        pair.p_holm = adjusted
        pair.separated = adjusted < alpha
    n = len(ordered)
    above = {m: 0 for m in ordered}  # separated models with a higher index
    below = {m: 0 for m in ordered}  # separated models with a lower index
    for pair in pairs:
        if pair.separated:
            above[pair.b] += 1
            below[pair.a] += 1
    models = {m: RankInterval(best=1 + above[m], worst=n - below[m]) for m in ordered}
    return Ranks(method=METHOD, alpha=alpha, models=models, pairs=pairs)


def ranks_of_document(document: Mapping, weights: Mapping[str, float]) -> Ranks:
    """The ``ranks`` block for an index.json document (SPEC 7 shape), models in its (cohort) order."""
    models = document["models"]
    return rank_models(
        {m: e["index"] for m, e in models.items()}, {m: task_means_of(e) for m, e in models.items()}, weights
    )


def top_group(ranks: Ranks) -> list[str]:
    """The models whose best rank is 1 (SPEC 12.1), highest index first."""
    return [m for m, r in ranks.models.items() if r.best == 1]


def leader(ranks: Ranks) -> str | None:
    """The leader only when the top group holds one model alone (SPEC 12.1), else None."""
    group = top_group(ranks)
    return group[0] if len(group) == 1 else None


def format_rank(r: RankInterval) -> str:
    """A rank as the Overview and ``table`` show it: ``best`` or ``best–worst``."""
    return str(r.best) if r.best == r.worst else f"{r.best}–{r.worst}"
