"""One pair's paired comparison as scalars, for tests and the planner simulation to check the
vectorised code of tcsexam.scoring.stats.ranks against values worked out by hand (docs/rules.md#ranks)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from tcsexam.scoring.stats.differences import TaskMeans, paired_index_rows, task_matrices
from tcsexam.scoring.stats.ranks import holm_array, pair_p_values


def _none(x: float) -> float | None:
    return None if np.isnan(x) else float(x)


def paired_index_difference(a: TaskMeans, b: TaskMeans, weights: Mapping[str, float]) -> dict:
    """d, se and df of one pair (``paired_index_rows`` of a two-model matrix); None for no value."""
    d, se, df = paired_index_rows(task_matrices([a, b], weights), np.array([0]), np.array([1]), weights)
    return {"difference": _none(d[0]), "se": _none(se[0]), "df": _none(df[0])}


def pair_p_value(difference: float | None, se: float | None, df: float | None) -> float | None:
    """``pair_p_values`` of one pair (None for no value)."""
    arrays = [np.array([np.nan if x is None else x], dtype=float) for x in (difference, se, df)]
    return _none(pair_p_values(*arrays)[0])


def holm(p_values: list[float]) -> list[float]:
    """``holm_array`` of a list."""
    return holm_array(np.array(p_values, dtype=float)).tolist()
