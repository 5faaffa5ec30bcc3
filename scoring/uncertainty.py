"""Task-clustered t intervals (SPEC section 9).

Per track: se = sd/sqrt(m) with sd over the m task scores (n-1), interval
mean ± t(0.975, m-1)·se. Index: var = Σ w²·se², Welch–Satterthwaite df,
interval index ± t(0.975, df)·sqrt(var). Intervals are not clipped.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from scipy.special import stdtrit

LEVEL = 0.95
METHOD = "task-clustered-t"


def t_quantile(df: float, level: float = LEVEL) -> float:
    """Two-sided Student t quantile, t((1+level)/2, df)."""
    return float(stdtrit(df, (1.0 + level) / 2.0))


def mean_se(values: list[float]) -> tuple[float, float | None]:
    """Mean and standard error sd/sqrt(m) (sd with m-1); se is None when m < 2."""
    m = len(values)
    mean = math.fsum(values) / m
    if m < 2:
        return mean, None
    var = math.fsum((v - mean) ** 2 for v in values) / (m - 1)
    return mean, math.sqrt(var) / math.sqrt(m)


def track_interval(values: list[float], level: float = LEVEL) -> dict:
    """SPEC 9 per track: {mean, se, lo, hi, df, m}; no interval when m < 2."""
    m = len(values)
    mean, se = mean_se(values)
    if se is None:
        return {"mean": mean, "se": None, "lo": None, "hi": None, "df": None, "m": m}
    half = t_quantile(m - 1, level) * se
    return {"mean": mean, "se": se, "lo": mean - half, "hi": mean + half, "df": float(m - 1), "m": m}


def welch_satterthwaite(terms: list[tuple[float, int]]) -> float | None:
    """df = (Σ v_i)² / Σ (v_i² / (m_i - 1)) for variance terms v_i = w²·se² with m_i tasks."""
    var = math.fsum(v for v, _ in terms)
    denom = math.fsum(v * v / (m - 1) for v, m in terms)
    if denom == 0.0:
        return None
    return var * var / denom


def weighted_interval(
    value: float, tracks: dict[str, dict], weights: Mapping[str, float], level: float = LEVEL
) -> dict:
    """SPEC 9 index interval from the per-track intervals; None parts when a track has m < 2."""
    if any(tracks[t]["se"] is None for t in weights):
        return {"value": value, "se": None, "lo": None, "hi": None, "df": None}
    terms = [(weights[t] ** 2 * tracks[t]["se"] ** 2, tracks[t]["m"]) for t in weights]
    var = math.fsum(v for v, _ in terms)
    se = math.sqrt(var)
    df = welch_satterthwaite(terms)
    if df is None:  # every track has zero spread: the interval is the point
        return {"value": value, "se": se, "lo": value, "hi": value, "df": None}
    half = t_quantile(df, level) * se
    return {"value": value, "se": se, "lo": value - half, "hi": value + half, "df": df}


def ci_block(track_values: dict[str, list[float] | None], index: float | None, weights: Mapping[str, float]) -> dict:
    """The ``ci`` block of a model (SPEC 9): tracks with a mean, and the index when it is not null."""
    tracks = {t: track_interval(v) for t, v in track_values.items() if v}
    idx = weighted_interval(index, tracks, weights) if index is not None and all(t in tracks for t in weights) else None
    return {"method": METHOD, "level": LEVEL, "tracks": tracks, "index": idx}
