"""Per-task and per-instance differences between two models (docs/rules.md#per-task-differences).

``compare``'s ``tasks`` list (the task means of both models, in suite order)
and, for solver tasks, its ``instances`` dict: per scored instance, a model's
score is the mean Phi over its re-scored adopted attempts, and the counts say
where A or B is better. The inputs are plain: task means by item, and per
solver task one Phi array (over the reference's scored instances, in
reference order) per adopted attempt.

docs/rules.md#intervals's paired comparison (the per-task differences A − B, their task-clustered t
intervals per track and the weighted index interval) is computed over arrays:
``paired_index_rows`` gives the index difference, se and df of any number of pairs at once
(``ranks`` tests every pair of a cohort through it) from the formulas of
``uncertainty`` (``mean_se_rows``, ``index_se_df_rows``), and ``paired_comparison`` (what
``compare`` shows of one pair) applies the same formulas to one row.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TypedDict

import numpy as np

from tcsexam.scoring.formats.results import InstanceCounts, TaskDifference
from tcsexam.scoring.safety.numbers import NumberTooLarge
from tcsexam.scoring.stats.uncertainty import (
    index_se_df_rows,
    index_value_rows,
    mean_se_rows,
    track_interval,
    weighted_interval,
)
from tcsexam.scoring.vocab import WEIGHTS, Track, task_points

EQUAL_TOLERANCE = 1e-12  # docs/rules.md#per-task-differences: equal means |difference| <= 1e-12


# item -> (track, task mean or None), in suite order
TaskMeans = Mapping[str, tuple[Track, float | None]]


# solver item -> one Phi array per adopted attempt (all of the same length)
PhiByItem = Mapping[str, Sequence[np.ndarray]]


class InstanceDifference(TypedDict):
    instance: str
    a: float
    b: float
    difference: float


class PairedComparison(TypedDict):
    tasks: list[TaskDifference]
    tracks: dict[
        str, dict
    ]  # docs/rules.md#intervals {mean, se, lo, hi, df, m} of the differences, tracks with a common task
    index: dict | None  # docs/rules.md#intervals {value, se, lo, hi, df}; None when a track has no common task


def task_differences(a: TaskMeans, b: TaskMeans, weights: Mapping[str, float] = WEIGHTS) -> list[TaskDifference]:
    """docs/rules.md#per-task-differences: one entry per task both models have scored (non-null means), in A's (suite)
    order, with its contribution to the paired index difference in points (A − B × the track's weight ÷ the
    number of the track's tasks both scored: the index difference is the sum of the contributions)."""
    common = []
    for item, (track, mean_a) in a.items():
        other = b.get(item)
        if other is None or mean_a is None or other[1] is None:
            continue
        common.append((item, track, mean_a, other[1]))
    per_track = Counter(track for _, track, _, _ in common)
    return [
        TaskDifference(item, track, x, y, x - y, (x - y) * task_points(weights.get(track, 0.0), per_track[track]))
        for item, track, x, y in common
    ]


def task_means_of(model: Mapping) -> dict[str, tuple[Track, float | None]]:
    """A model entry of index.json (docs/formats.md#indexjson: ``tasks`` -> {item: {"track", "mean", ...}}) as TaskMeans."""
    return {item: (t["track"], t["mean"]) for item, t in model["tasks"].items()}


def paired_comparison(a: TaskMeans, b: TaskMeans, weights: Mapping[str, float]) -> PairedComparison:
    """docs/rules.md#intervals's paired comparison of two models: the per-task differences A − B (docs/rules.md#per-task-differences ``tasks``),
    per track the task-clustered t interval of their mean, and the index difference Σ w·mean with its
    Welch–Satterthwaite interval (None when a track of ``weights`` has no task both models scored;
    se None when a track has fewer than 2, df None when se = 0)."""
    tasks = task_differences(a, b, weights)
    tracks = {}
    for t in weights:
        diffs = [x.difference for x in tasks if x.track == t]
        if diffs:
            tracks[t] = track_interval(diffs)
    index = None
    if all(t in tracks for t in weights):
        means = np.array([[tracks[t]["mean"] for t in weights]])
        value = float(index_value_rows(means, np.array([weights[t] for t in weights], dtype=float))[0])
        index = weighted_interval(value, tracks, dict(weights))
    return {"tasks": tasks, "tracks": tracks, "index": index}


def task_matrices(task_means: Sequence[TaskMeans], weights: Mapping[str, float]) -> dict[str, np.ndarray]:
    """Per track of ``weights``: the task means of the models as a (models × the track's tasks) array,
    NaN where a task has no mean; tasks in the order they first appear (suite order)."""
    items: dict[str, Track] = {}
    for means in task_means:
        for item, (track, _) in means.items():
            items.setdefault(item, track)
    out = {}
    for t in weights:
        names = [item for item, track in items.items() if track == t]
        matrix = np.full((len(task_means), len(names)), np.nan)
        for row, means in enumerate(task_means):
            for col, item in enumerate(names):
                value = means.get(item, (t, None))[1]
                if value is not None:
                    matrix[row, col] = value
        out[t] = matrix
    return out


def paired_index_rows(
    matrices: Mapping[str, np.ndarray], a: np.ndarray, b: np.ndarray, weights: Mapping[str, float]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """docs/rules.md#intervals's paired index difference of the models in rows ``a[k]`` − ``b[k]`` of ``matrices``
    (``task_matrices``), over the tasks both have scored: per pair the difference Σ w·mean of the
    per-task differences (NaN when a track has no common task), its se (NaN when a track has fewer
    than 2) and its Welch–Satterthwaite df (NaN when se = 0 or has no value)."""
    means, ses, ms = [], [], []
    for t in weights:
        x = matrices[t]
        xa, xb = x[a], x[b]
        # every model of the ranks is complete: its task means have no gap, and no mask is needed
        valid = None if not np.isnan(x).any() else ~(np.isnan(xa) | np.isnan(xb))
        with np.errstate(invalid="ignore", over="ignore"):
            mean, se, m = mean_se_rows(xa - xb, valid)
        means.append(mean)
        ses.append(se)
        ms.append(m)
    w = np.array([weights[t] for t in weights], dtype=float)
    m_all = np.stack(ms, axis=1)
    track_means = np.stack(means, axis=1)
    difference = index_value_rows(track_means, w)
    difference[(m_all == 0).any(axis=1)] = np.nan
    se, df = index_se_df_rows(np.stack(ses, axis=1), m_all, w)
    bad = np.isinf(difference) | np.isinf(se)
    if bad.any():  # docs/safety.md: named by the largest of the pair's track means
        row = track_means[int(np.flatnonzero(bad)[0])].tolist()
        raise NumberTooLarge("the index difference of two models", max(row, key=abs))
    return difference, se, df


def instance_scores(attempts: Sequence[np.ndarray]) -> np.ndarray:
    """A model's score of each scored instance: the mean Phi over its adopted attempts (docs/rules.md#per-task-differences)."""
    stacked = np.vstack([np.asarray(p, dtype=float) for p in attempts])
    return stacked.mean(axis=0)


def _instance_diff(a_attempts: Sequence[np.ndarray], b_attempts: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    sa, sb = instance_scores(a_attempts), instance_scores(b_attempts)
    if sa.shape != sb.shape:
        raise ValueError(f"the two models' Phi arrays cover different instances ({sa.size} and {sb.size})")
    return sa, sb


def instance_counts(a_attempts: Sequence[np.ndarray], b_attempts: Sequence[np.ndarray]) -> InstanceCounts:
    """docs/rules.md#per-task-differences for one solver task: counts of A better / B better / equal, and the mean difference A − B."""
    sa, sb = _instance_diff(a_attempts, b_attempts)
    diff = sa - sb
    equal = np.abs(diff) <= EQUAL_TOLERANCE
    return InstanceCounts(
        a_better=int(np.count_nonzero((diff > 0) & ~equal)),
        b_better=int(np.count_nonzero((diff < 0) & ~equal)),
        equal=int(np.count_nonzero(equal)),
        mean_difference=math.fsum(diff.tolist()) / diff.size,
    )


def instance_differences(order: Mapping[str, object], a_phi: PhiByItem, b_phi: PhiByItem) -> dict[str, InstanceCounts]:
    """``compare``'s ``instances`` (docs/rules.md#per-task-differences): the solver tasks with Phi arrays for both models, in the
    order of ``order``'s keys (suite order)."""
    items = [item for item in order if item in a_phi and item in b_phi and a_phi[item] and b_phi[item]]
    return {item: instance_counts(a_phi[item], b_phi[item]) for item in items}


def largest_instance_differences(
    names: Sequence[str], a_attempts: Sequence[np.ndarray], b_attempts: Sequence[np.ndarray], limit: int = 20
) -> list[InstanceDifference]:
    """The drill-down of a solver task: the ``limit`` instances where |A − B| is largest, unequal ones only
    (ties in reference order). ``names`` are the reference's scored instances, in the Phi arrays' order."""
    sa, sb = _instance_diff(a_attempts, b_attempts)
    if len(names) != sa.size:
        raise ValueError(f"{len(names)} instance names for {sa.size} Phi values")
    diff = sa - sb
    order = np.argsort(-np.abs(diff), kind="stable")
    out: list[InstanceDifference] = []
    for i in order[:limit]:
        if abs(diff[i]) <= EQUAL_TOLERANCE:
            break
        out.append({"instance": names[i], "a": float(sa[i]), "b": float(sb[i]), "difference": float(diff[i])})
    return out
