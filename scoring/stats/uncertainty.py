"""Task-clustered t intervals (docs/rules.md#intervals).

Per track: se = sd/sqrt(m) with sd over the m task scores (n-1), interval
mean ± t(0.975, m-1)·se. Index: var = Σ w²·se², Welch–Satterthwaite df,
interval index ± t(0.975, df)·sqrt(var). Intervals are not clipped.

Squares are taken scale-free (docs/safety.md): deviations and standard errors are
divided by a power of two near their largest before squaring and the result
multiplied back, so that values up to the largest double give a finite sd and
df (a power of two scales exactly: ordinary values give the same bits as the
plain formula). What still cannot be finite (an end of an interval beyond the
largest double) raises ``safety.numbers.NumberTooLarge`` naming the value.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Final

import numpy as np

from tcsexam.scoring.safety.numbers import NumberTooLarge

LEVEL = 0.95


METHOD: Final = "task-clustered-t"


def stdtrit(df: Any, p: Any) -> Any:
    """scipy.special.stdtrit, imported on first use: commands that need no t quantile (table, diff,
    --version) load no scipy (docs/performance.md#start-up)."""
    from scipy.special import stdtrit as inverse_t

    return inverse_t(df, p)


def t_quantile(df: float, level: float = LEVEL) -> float:
    """Two-sided Student t quantile, t((1+level)/2, df)."""
    return float(stdtrit(df, (1.0 + level) / 2.0))


def power_of_two_scale(largest: float) -> float:
    """A power of two near ``largest`` (> 0, finite): dividing by it is exact and leaves values of
    magnitude at most 1, whose squares cannot overflow (docs/safety.md)."""
    return math.ldexp(1.0, math.frexp(largest)[1])


def largest_of(values: list[float]) -> float:
    return max(values, key=abs)


def fsum_rows(x: np.ndarray) -> np.ndarray:
    """The sum of each row of ``x`` as ``math.fsum`` gives it: each column is added by an error-free
    transformation (TwoSum) and the rounding errors are summed apart, then added once. This is the
    correctly rounded sum unless the exact sum lies within about k²·2^-106 of its own size from a
    rounding boundary (k columns); a row that overflows gives a non-finite sum."""
    total = np.zeros(x.shape[0])
    error = np.zeros(x.shape[0])
    with np.errstate(invalid="ignore", over="ignore"):
        for j in range(x.shape[1]):
            b = x[:, j]
            t = total + b
            bp = t - total
            error += (total - (t - bp)) + (b - bp)
            total = t
        return total + error


def power_of_two_rows(largest: np.ndarray) -> np.ndarray:
    """``power_of_two_scale`` of each element (1 where it is 0)."""
    return np.ldexp(1.0, np.frexp(largest)[1])


def _first_row(bad: Any) -> int:
    return int(np.flatnonzero(bad)[0])


def _row_max(x: np.ndarray) -> np.ndarray:
    """The largest of each row of a non-negative array (0 for no columns; NaN where a row holds NaN),
    column by column: a reduction along a short last axis is slow in numpy."""
    out = np.zeros(x.shape[0])
    for j in range(x.shape[1]):
        np.maximum(out, x[:, j], out=out)
    return out


def mean_se_rows(values: np.ndarray, valid: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row, over its ``valid`` cells (None: every cell, as when no value is missing): the mean (by
    ``fsum_rows``), the standard error sd/sqrt(m) (sd with m - 1, squares taken scale-free: a finite sd
    for values up to the largest double) and m. The mean is NaN where m = 0, the se where m < 2. A row
    whose mean, deviations or sd would not be finite raises NumberTooLarge naming the value that made
    it so (docs/safety.md). Both forms of ``valid`` give the same numbers, bit for bit."""

    def row_values(i: int) -> list[float]:
        return (values[i] if valid is None else values[i][valid[i]]).tolist()

    if valid is None:
        m = np.full(values.shape[0], values.shape[1], dtype=np.int64)
    else:
        m = np.zeros(valid.shape[0], dtype=np.int64)
        for j in range(valid.shape[1]):  # column by column, as ``_row_max``
            m += valid[:, j]
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        mean = fsum_rows(values if valid is None else np.where(valid, values, 0.0)) / m
        bad = (m > 0) & ~np.isfinite(mean)
        if bad.any():
            row = row_values(_first_row(bad))
            raise NumberTooLarge("the mean of a track", max(row, key=lambda v: math.inf if math.isnan(v) else abs(v)))
        deviations = values - mean[:, None]
        if valid is not None:
            deviations = np.where(valid, deviations, 0.0)
        bad_cells = ~np.isfinite(deviations)  # 0 where not valid
        if bad_cells.any():
            i = _first_row(bad_cells.any(axis=1))
            raise NumberTooLarge("a deviation from the mean", float(values[i][np.flatnonzero(bad_cells[i])[0]]))
        c = power_of_two_rows(_row_max(np.abs(deviations)))
        sd = np.sqrt(fsum_rows(np.square(deviations / c[:, None])) / (m - 1)) * c
        bad = (m >= 2) & ~np.isfinite(sd)
        if bad.any():
            raise NumberTooLarge("the standard deviation of a track", largest_of(row_values(_first_row(bad))))
        se = np.where(m >= 2, sd / np.sqrt(m), np.nan)
    return mean, se, m


def welch_satterthwaite_rows(terms: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Per row, df = (Σ v_i)² / Σ (v_i² / (m_i - 1)) for variance terms v_i = w²·se² with m_i tasks
    (NaN where every term is 0: no df). df does not change when every v_i is divided by one number:
    they are divided by a power of two near the largest before squaring (docs/safety.md)."""
    largest = _row_max(terms)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        scaled = terms / power_of_two_rows(largest)[:, None]
        var = fsum_rows(scaled)
        denom = fsum_rows(scaled * scaled / (m - 1))
        df = var * var / denom
    return np.where((largest == 0.0) | (denom == 0.0), np.nan, df)


def index_se_df_rows(se: np.ndarray, m: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row, docs/rules.md#intervals's index se = sqrt(Σ w²·se²) and its Welch–Satterthwaite df from the tracks' se
    and m (one column per track, in the order of ``weights``). Both NaN where a track has no se; df
    NaN where every se is 0. The squares are taken scale-free (docs/safety.md)."""
    with np.errstate(invalid="ignore", over="ignore"):
        largest = _row_max(se)  # NaN where a track has no se (np.maximum keeps NaN)
        c = np.where(largest > 0.0, power_of_two_rows(largest), 1.0)
        terms = weights**2 * np.square(se / c[:, None])
        index_se = np.sqrt(fsum_rows(terms)) * c
    return index_se, welch_satterthwaite_rows(terms, m)


def index_value_rows(means: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Per row, the index Σ w·mean over the tracks (one column per track, in the order of ``weights``)."""
    with np.errstate(invalid="ignore", over="ignore"):
        return fsum_rows(means * weights)


def track_intervals(values: Sequence[Sequence[float]], level: float = LEVEL) -> list[dict]:
    """docs/rules.md#intervals per track, for many lists of task scores at once (one model's track each): {mean, se,
    lo, hi, df, m}; no interval when m < 2. An end beyond the largest double raises NumberTooLarge."""
    if any(len(v) == 0 for v in values):
        raise ValueError("mean of no values (the mean of a track)")
    lengths = [len(v) for v in values]
    x = np.zeros((len(values), max(lengths, default=0)))
    valid = np.zeros(x.shape, dtype=bool)
    for i, v in enumerate(values):
        x[i, : lengths[i]] = v
        valid[i, : lengths[i]] = True
    mean, se, m = mean_se_rows(x, valid)
    with np.errstate(invalid="ignore", over="ignore"):
        half = stdtrit(np.maximum(m - 1, 1), (1.0 + level) / 2.0) * se
        lo, hi = mean - half, mean + half
    bad = (m >= 2) & ~(np.isfinite(lo) & np.isfinite(hi))
    if bad.any():
        raise NumberTooLarge("the interval of a track", largest_of(list(values[_first_row(bad)])))
    out = []
    for mi, mean_i, se_i, lo_i, hi_i in zip(lengths, mean.tolist(), se.tolist(), lo.tolist(), hi.tolist(), strict=True):
        if mi < 2:
            out.append({"mean": mean_i, "se": None, "lo": None, "hi": None, "df": None, "m": mi})
        else:
            out.append({"mean": mean_i, "se": se_i, "lo": lo_i, "hi": hi_i, "df": float(mi - 1), "m": mi})
    return out


def track_interval(values: list[float], level: float = LEVEL) -> dict:
    """docs/rules.md#intervals per track: {mean, se, lo, hi, df, m}; no interval when m < 2 (``track_intervals``)."""
    return track_intervals([values], level)[0]


def welch_satterthwaite(terms: list[tuple[float, int]]) -> float | None:
    """df = (Σ v_i)² / Σ (v_i² / (m_i - 1)) for variance terms v_i = w²·se² with m_i tasks
    (``welch_satterthwaite_rows``); None when every term is 0, NaN when one is not finite."""
    if not all(math.isfinite(v) for v, _ in terms):
        return math.nan
    df = welch_satterthwaite_rows(np.array([[v for v, _ in terms]]), np.array([[m for _, m in terms]]))[0]
    return None if math.isnan(df) else float(df)


def weighted_intervals(
    values: Sequence[float], tracks: Sequence[Mapping[str, dict]], weights: Mapping[str, float], level: float = LEVEL
) -> list[dict]:
    """docs/rules.md#intervals index intervals of many models (or pairs) at once, from each one's index ``values[i]``
    and per-track intervals ``tracks[i]`` (every track of ``weights``); None parts when a track has
    m < 2. An se or an end beyond the largest double raises NumberTooLarge naming the index."""
    out: list[dict] = [{"value": v, "se": None, "lo": None, "hi": None, "df": None} for v in values]
    rows = [i for i, tr in enumerate(tracks) if all(tr[t]["se"] is not None for t in weights)]
    if not rows:
        return out
    se, df = index_se_df_rows(
        np.array([[tracks[i][t]["se"] for t in weights] for i in rows]),
        np.array([[tracks[i][t]["m"] for t in weights] for i in rows]),
        np.array([weights[t] for t in weights], dtype=float),
    )
    value = np.array([values[i] for i in rows], dtype=float)
    bad = ~np.isfinite(se)
    if bad.any():
        raise NumberTooLarge("the index's standard error", values[rows[_first_row(bad)]])
    with np.errstate(invalid="ignore", over="ignore"):
        half = stdtrit(df, (1.0 + level) / 2.0) * se
        lo, hi = value - half, value + half
    point = np.isnan(df)  # every track has zero spread: the interval is the point
    bad = ~point & ~(np.isfinite(lo) & np.isfinite(hi))
    if bad.any():
        raise NumberTooLarge("the index's interval", values[rows[_first_row(bad)]])
    for k, i in enumerate(rows):
        v = values[i]
        if point[k]:
            out[i] = {"value": v, "se": float(se[k]), "lo": v, "hi": v, "df": None}
        else:
            out[i] = {"value": v, "se": float(se[k]), "lo": float(lo[k]), "hi": float(hi[k]), "df": float(df[k])}
    return out


def weighted_interval(
    value: float, tracks: dict[str, dict], weights: Mapping[str, float], level: float = LEVEL
) -> dict:
    """docs/rules.md#intervals index interval from the per-track intervals; None parts when a track has m < 2."""
    return weighted_intervals([value], [tracks], weights, level)[0]


def ci_blocks(
    track_values: Sequence[Mapping[str, list[float] | None]],
    indexes: Sequence[float | None],
    weights: Mapping[str, float],
) -> list[dict]:
    """The ``ci`` blocks of many models (docs/rules.md#intervals) at once: per model the tracks with a mean, and the
    index when it is not null. Each track's intervals of all models are one array computation."""
    by_track: dict[str, list[int]] = {}
    for i, tv in enumerate(track_values):
        for t, v in tv.items():
            if v:
                by_track.setdefault(t, []).append(i)
    intervals: dict[tuple[int, str], dict] = {}
    for t, rows in by_track.items():
        for i, interval in zip(rows, track_intervals([track_values[i][t] or [] for i in rows]), strict=True):
            intervals[i, t] = interval
    tracks = [{t: intervals[i, t] for t, v in tv.items() if v} for i, tv in enumerate(track_values)]
    indexed = [i for i, x in enumerate(indexes) if x is not None and all(t in tracks[i] for t in weights)]
    index: list[dict | None] = [None] * len(indexes)
    values = [indexes[i] for i in indexed]
    for i, block in zip(indexed, weighted_intervals(values, [tracks[i] for i in indexed], weights), strict=True):  # type: ignore[arg-type]
        index[i] = block
    return [{"method": METHOD, "level": LEVEL, "tracks": tr, "index": ix} for tr, ix in zip(tracks, index, strict=True)]


def ci_block(track_values: dict[str, list[float] | None], index: float | None, weights: Mapping[str, float]) -> dict:
    """The ``ci`` block of a model (docs/rules.md#intervals): tracks with a mean, and the index when it is not null."""
    return ci_blocks([track_values], [index], weights)[0]
