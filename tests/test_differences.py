"""docs/rules.md#per-task-differences: per-task differences and per-instance counts of solver tasks."""

from __future__ import annotations

import numpy as np
import pytest

from tcsexam.scoring.formats.results import InstanceCounts, TaskDifference
from tcsexam.scoring.stats.differences import (
    instance_counts,
    instance_differences,
    instance_scores,
    largest_instance_differences,
    task_differences,
)

A = {
    "p1": ("theorem", 1.0),
    "s1": ("solver", 0.6),
    "s2": ("solver", 0.25),
    "c1": ("construction", None),
    "o1": ("conjecture", 0.0),
}
B = {
    "o1": ("conjecture", 1.0),
    "s2": ("solver", 0.5),
    "p1": ("theorem", 0.0),
    "c1": ("construction", 1.2),
    "s1": ("solver", 0.6),
}


def test_task_differences_in_suite_order_over_tasks_both_scored():
    # c1 has no mean for A: left out; order is A's (the suite's), not B's
    out = task_differences(A, B)
    assert [d.item for d in out] == ["p1", "s1", "s2", "o1"]
    # p1 is the one theorem task both scored: 1.0 × 30 ÷ 1 = 30 index points
    assert out[0] == TaskDifference(item="p1", track="theorem", a=1.0, b=0.0, difference=1.0, contribution=30.0)
    assert out[1].difference == 0.0 and out[2].difference == -0.25 and out[3].difference == -1.0
    assert task_differences(A, {"p1": ("theorem", 0.0)}) == [out[0]]  # a task B lacks is left out


def test_each_task_contributes_its_difference_times_its_track_weight_over_the_tracks_common_tasks():
    # docs/rules.md#per-task-differences, by hand: s1 and s2 are the two solver tasks both scored
    # (weight 30): 0 × 30 / 2 = 0 and −0.25 × 30 / 2 = −3.75; o1 the one conjecture task (weight 10):
    # −1 × 10 / 1 = −10; p1 +30 (c1 has no mean for A). Their sum is the index difference over the common tasks:
    # 30·(1) + 30·(−0.125) + 10·(−1) = 16.25 (construction has no common task here).
    out = {d.item: d.contribution for d in task_differences(A, B)}
    assert out == pytest.approx({"p1": 30.0, "s1": 0.0, "s2": -3.75, "o1": -10.0}, abs=1e-12)
    assert sum(out.values()) == pytest.approx(16.25, abs=1e-12)


def test_instance_counts_by_hand():
    # A's two attempts average to [.5, .5, 0, .3]; B's single attempt is [.5, .2, .1, .3]
    # differences [0, .3, −.1, 0]: A better once, B better once, equal twice; mean (.3 − .1)/4 = .05
    a = [np.array([1.0, 0.5, 0.0, 0.3]), np.array([0.0, 0.5, 0.0, 0.3])]
    b = [np.array([0.5, 0.2, 0.1, 0.3])]
    assert instance_scores(a).tolist() == [0.5, 0.5, 0.0, 0.3]
    out = instance_counts(a, b)
    assert (out.a_better, out.b_better, out.equal) == (1, 1, 2)
    assert out.mean_difference == pytest.approx(0.05, abs=1e-15)


def test_equal_means_within_1e_12():
    a = [np.array([0.5, 0.5, 0.5])]
    b = [np.array([0.5 + 1e-13, 0.5 - 1e-12, 0.5 - 1e-11])]  # equal, equal (|d| = 1e-12), A better
    out = instance_counts(a, b)
    assert (out.a_better, out.b_better, out.equal) == (1, 0, 2)


def test_instances_cover_solver_tasks_with_records_for_both():
    phi_a = {"s1": [np.array([0.5, 1.0])], "s2": [np.array([0.0, 0.5])]}
    phi_b = {"s2": [np.array([0.5, 0.5]), np.array([0.5, 0.0])]}  # s1: some attempt of B has no records
    out = instance_differences(A, phi_a, phi_b)
    assert list(out) == ["s2"]
    # B averages to [.5, .25]; differences [−.5, .25]: A better once, B better once; mean −.125
    assert out["s2"] == InstanceCounts(a_better=1, b_better=1, equal=0, mean_difference=-0.125)
    assert instance_differences(A, {}, {}) == {}


def test_instance_arrays_must_cover_the_same_instances():
    with pytest.raises(ValueError, match="different instances"):
        instance_counts([np.array([0.5, 0.5])], [np.array([0.5])])


def test_drill_down_orders_by_absolute_difference_and_drops_equal():
    names = ["i0", "i1", "i2", "i3", "i4"]
    a = [np.array([0.5, 0.75, 0.25, 0.375, 0.625])]
    b = [np.array([0.5, 0.25, 0.75, 0.25, 0.5])]  # differences (exact in binary) 0, .5, −.5, .125, .125
    out = largest_instance_differences(names, a, b, limit=3)
    assert [d["instance"] for d in out] == ["i1", "i2", "i3"]  # |.5| ties in reference order, then .125 (i3 before i4)
    assert out[1] == {"instance": "i2", "a": 0.25, "b": 0.75, "difference": -0.5}
    assert [d["instance"] for d in largest_instance_differences(names, a, b, limit=10)] == ["i1", "i2", "i3", "i4"]
