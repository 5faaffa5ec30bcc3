"""Per-task and per-instance differences between two models (SPEC section 12.2).

``compare``'s ``tasks`` list (the task means of both models, in suite order)
and, for solver tasks, its ``instances`` dict: per scored instance, a model's
score is the mean Phi over its re-scored adopted attempts, and the counts say
where A or B is better. The inputs are plain: task means by item, and per
solver task one Phi array (over the reference's scored instances, in
reference order) per adopted attempt.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TypedDict

import numpy as np

EQUAL_TOLERANCE = 1e-12  # SPEC 12.2: equal means |difference| <= 1e-12

# item -> (track, task mean or None), in suite order
TaskMeans = Mapping[str, tuple[str, float | None]]
# solver item -> one Phi array per adopted attempt (all of the same length)
PhiByItem = Mapping[str, Sequence[np.ndarray]]


class TaskDifference(TypedDict):
    item: str
    track: str
    a: float
    b: float
    difference: float


class InstanceCounts(TypedDict):
    a_better: int
    b_better: int
    equal: int
    mean_difference: float


class InstanceDifference(TypedDict):
    instance: str
    a: float
    b: float
    difference: float


class Differences(TypedDict):
    tasks: list[TaskDifference]
    instances: dict[str, InstanceCounts]


def task_differences(a: TaskMeans, b: TaskMeans) -> list[TaskDifference]:
    """SPEC 12.2: one entry per task both models have scored (non-null means), in A's (suite) order."""
    out: list[TaskDifference] = []
    for item, (track, mean_a) in a.items():
        other = b.get(item)
        if other is None or mean_a is None or other[1] is None:
            continue
        out.append({"item": item, "track": track, "a": mean_a, "b": other[1], "difference": mean_a - other[1]})
    return out


def instance_scores(attempts: Sequence[np.ndarray]) -> np.ndarray:
    """A model's score of each scored instance: the mean Phi over its adopted attempts (SPEC 12.2)."""
    stacked = np.vstack([np.asarray(p, dtype=float) for p in attempts])
    return stacked.mean(axis=0)


def _instance_diff(a_attempts: Sequence[np.ndarray], b_attempts: Sequence[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    sa, sb = instance_scores(a_attempts), instance_scores(b_attempts)
    if sa.shape != sb.shape:
        raise ValueError(f"the two models' Phi arrays cover different instances ({sa.size} and {sb.size})")
    return sa, sb


def instance_counts(a_attempts: Sequence[np.ndarray], b_attempts: Sequence[np.ndarray]) -> InstanceCounts:
    """SPEC 12.2 for one solver task: counts of A better / B better / equal, and the mean difference A − B."""
    sa, sb = _instance_diff(a_attempts, b_attempts)
    diff = sa - sb
    equal = np.abs(diff) <= EQUAL_TOLERANCE
    return {
        "a_better": int(np.count_nonzero((diff > 0) & ~equal)),
        "b_better": int(np.count_nonzero((diff < 0) & ~equal)),
        "equal": int(np.count_nonzero(equal)),
        "mean_difference": math.fsum(diff.tolist()) / diff.size,
    }


def differences(
    a: TaskMeans, b: TaskMeans, a_phi: PhiByItem | None = None, b_phi: PhiByItem | None = None
) -> Differences:
    """``compare``'s ``tasks`` and ``instances`` (SPEC 12.2).

    ``a_phi``/``b_phi`` hold only the solver tasks where every adopted attempt
    of that model has a records file; ``instances`` covers the tasks present in
    both, in A's (suite) order.
    """
    a_phi, b_phi = a_phi or {}, b_phi or {}
    items = [item for item in a if item in a_phi and item in b_phi and a_phi[item] and b_phi[item]]
    return {
        "tasks": task_differences(a, b),
        "instances": {item: instance_counts(a_phi[item], b_phi[item]) for item in items},
    }


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
