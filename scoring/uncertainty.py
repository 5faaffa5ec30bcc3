"""Task-clustered t intervals (SPEC section 9).

Per track: se = sd/sqrt(m) with sd over the m task scores (n-1), interval
mean ± t(0.975, m-1)·se. Index: var = Σ w²·se², Welch–Satterthwaite df,
interval index ± t(0.975, df)·sqrt(var). Intervals are not clipped.

Squares are taken scale-free (SPEC 13): deviations and standard errors are
divided by a power of two near their largest before squaring and the result
multiplied back, so that values up to the largest double give a finite sd and
df (a power of two scales exactly: ordinary values give the same bits as the
plain formula). What still cannot be finite (an end of an interval beyond the
largest double) raises ``safety.NumberTooLarge`` naming the value.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from scipy.special import stdtrit

from .safety import finite_mean, require_finite

LEVEL = 0.95
METHOD = "task-clustered-t"


def t_quantile(df: float, level: float = LEVEL) -> float:
    """Two-sided Student t quantile, t((1+level)/2, df)."""
    return float(stdtrit(df, (1.0 + level) / 2.0))


def power_of_two_scale(largest: float) -> float:
    """A power of two near ``largest`` (> 0, finite): dividing by it is exact and leaves values of
    magnitude at most 1, whose squares cannot overflow (SPEC 13)."""
    return math.ldexp(1.0, math.frexp(largest)[1])


def largest_of(values: list[float]) -> float:
    return max(values, key=abs)


def mean_se(values: list[float]) -> tuple[float, float | None]:
    """Mean and standard error sd/sqrt(m) (sd with m-1); se is None when m < 2. The squares are
    taken scale-free (a finite sd for values up to the largest double)."""
    m = len(values)
    mean = finite_mean(values, "the mean of a track")
    if m < 2:
        return mean, None
    deviations = [require_finite(v - mean, "a deviation from the mean", v) for v in values]
    largest = max(map(abs, deviations))
    if largest == 0.0:
        return mean, 0.0
    c = power_of_two_scale(largest)
    sd = math.sqrt(math.fsum((d / c) ** 2 for d in deviations) / (m - 1)) * c
    return mean, require_finite(sd, "the standard deviation of a track", largest_of(values)) / math.sqrt(m)


def track_interval(values: list[float], level: float = LEVEL) -> dict:
    """SPEC 9 per track: {mean, se, lo, hi, df, m}; no interval when m < 2."""
    m = len(values)
    mean, se = mean_se(values)
    if se is None:
        return {"mean": mean, "se": None, "lo": None, "hi": None, "df": None, "m": m}
    half = t_quantile(m - 1, level) * se
    culprit = largest_of(values)
    lo = require_finite(mean - half, "the interval of a track", culprit)
    hi = require_finite(mean + half, "the interval of a track", culprit)
    return {"mean": mean, "se": se, "lo": lo, "hi": hi, "df": float(m - 1), "m": m}


def welch_satterthwaite(terms: list[tuple[float, int]]) -> float | None:
    """df = (Σ v_i)² / Σ (v_i² / (m_i - 1)) for variance terms v_i = w²·se² with m_i tasks.

    df does not change when every v_i is divided by one number: they are divided by a power of
    two near the largest before squaring (SPEC 13), so that large terms give a finite df."""
    largest = max((v for v, _ in terms), default=0.0)
    if largest == 0.0 or not math.isfinite(largest):
        return None if largest == 0.0 else math.nan
    c = power_of_two_scale(largest)
    scaled = [(v / c, m) for v, m in terms]
    var = math.fsum(u for u, _ in scaled)
    denom = math.fsum(u * u / (m - 1) for u, m in scaled)
    if denom == 0.0:
        return None
    return var * var / denom


def weighted_interval(
    value: float, tracks: dict[str, dict], weights: Mapping[str, float], level: float = LEVEL
) -> dict:
    """SPEC 9 index interval from the per-track intervals; None parts when a track has m < 2."""
    if any(tracks[t]["se"] is None for t in weights):
        return {"value": value, "se": None, "lo": None, "hi": None, "df": None}
    largest = max(tracks[t]["se"] for t in weights)
    c = power_of_two_scale(largest) if largest > 0.0 else 1.0  # scale-free squares (SPEC 13)
    terms = [(weights[t] ** 2 * (tracks[t]["se"] / c) ** 2, tracks[t]["m"]) for t in weights]
    se = require_finite(math.sqrt(math.fsum(v for v, _ in terms)) * c, "the index's standard error", value)
    df = welch_satterthwaite(terms)  # the same df as for the unscaled terms
    if df is None:  # every track has zero spread: the interval is the point
        return {"value": value, "se": se, "lo": value, "hi": value, "df": None}
    half = t_quantile(df, level) * se
    lo = require_finite(value - half, "the index's interval", value)
    hi = require_finite(value + half, "the index's interval", value)
    return {"value": value, "se": se, "lo": lo, "hi": hi, "df": df}


def ci_block(track_values: dict[str, list[float] | None], index: float | None, weights: Mapping[str, float]) -> dict:
    """The ``ci`` block of a model (SPEC 9): tracks with a mean, and the index when it is not null."""
    tracks = {t: track_interval(v) for t, v in track_values.items() if v}
    idx = weighted_interval(index, tracks, weights) if index is not None and all(t in tracks for t in weights) else None
    return {"method": METHOD, "level": LEVEL, "tracks": tracks, "index": idx}
