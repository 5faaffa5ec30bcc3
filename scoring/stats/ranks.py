"""Ranks from pairwise comparisons (docs/rules.md#ranks).

Every pair of models with an index is compared by the paired index difference
of docs/rules.md#intervals (task-clustered t over the per-task differences); the p-values are
corrected with Holm's step-down procedure, and a model's rank interval counts
the models it is separated from. The inputs are plain: each model's index and
its task means by item (in suite order); the result is the ``ranks`` block of
index.json.

The N(N−1)/2 pairs are computed over arrays, a block of pairs at a time
(``differences.paired_index_rows``), and Holm's adjustment is one sort of all
their p-values. The document lists the pairs only while N ≤ 100
(``PAIRS_LISTED_MAX``); above 5,000 models (``RANKED_MAX``) ranks are not computed.
When the pairs are not listed only Holm's separations are needed: a pair without 2
common tasks in some track (no se, so no p) is not computed, and of the others only
those that a bound in plain floating point cannot prove unseparated
(docs/performance.md#the-screen).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Final

import numpy as np

from tcsexam.scoring.formats.results import RankInterval, RankPair, Ranks
from tcsexam.scoring.stats.differences import TaskMeans, paired_index_rows, task_matrices, task_means_of
from tcsexam.scoring.vocab import NOT_RANKED_REASON

METHOD: Final = "paired-t-holm"


ALPHA = 0.05


PAIRS_LISTED_MAX: Final = 100  # docs/rules.md#ranks: ``pairs`` lists every pair while N <= 100


RANKED_MAX: Final = 5000  # docs/rules.md#ranks: no ranks above 5,000 models


BLOCK_PAIRS = 1 << 18  # pairs computed at once (memory: a few arrays of this many rows per track)


def _none(x: float) -> float | None:
    return None if np.isnan(x) else float(x)


def pair_p_values(difference: np.ndarray, se: np.ndarray, df: np.ndarray) -> np.ndarray:
    """docs/rules.md#ranks per pair: p = 2·(1 − F_t(|d|/se; df)); when se = 0, p = 0 if d ≠ 0 else 1; NaN
    (no p) without an se."""
    p = np.full(difference.shape, np.nan)
    zero = se == 0.0
    p[zero] = np.where(difference[zero] != 0.0, 0.0, 1.0)
    tested = se > 0.0  # False for NaN
    from scipy.special import stdtr  # imported on use (docs/performance.md#start-up)

    p[tested] = 2.0 * stdtr(df[tested], -np.abs(difference[tested]) / se[tested])  # F_t's upper tail at |d|/se
    return p


# A t statistic below this has a two-sided p above 0.0502 at every df (the t's tails are heavier than the
# normal's, and 2·(1 − Phi(1.958)) = 0.05022): such a pair is never separated at alpha = 0.05.
NEVER_SEPARATED_T = 1.958


def pair_p_values_for_holm(difference: np.ndarray, se: np.ndarray, df: np.ndarray, alpha: float) -> np.ndarray:
    """``pair_p_values`` where Holm's separation needs them: a pair whose t statistic is below
    ``NEVER_SEPARATED_T`` (at alpha 0.05) has p > alpha and is never separated, so it gets p = 1
    instead of its t tail (it still counts among the K pairs with a p). Used when the pairs' p-values
    are not listed."""
    if alpha != ALPHA:
        return pair_p_values(difference, se, df)
    with np.errstate(invalid="ignore", divide="ignore"):
        small = (np.abs(difference) / se < NEVER_SEPARATED_T) & ~np.isnan(df)  # False for NaN and for se = 0
    p = np.ones(difference.shape)
    rest = ~small
    p[rest] = pair_p_values(difference[rest], se[rest], df[rest])
    return p


def holm_array(p_values: np.ndarray) -> np.ndarray:
    """Holm's step-down adjustment (docs/rules.md#ranks) of the p-values that are not NaN, in the input's order
    (NaN stays NaN): sorted ascending p_(1) ≤ … ≤ p_(K), adjusted p_(i) = min(1, max over j ≤ i of
    (K − j + 1)·p_(j)). One sort of all K."""
    adjusted = np.full(p_values.shape, np.nan)
    tested = np.flatnonzero(~np.isnan(p_values))
    order = tested[np.argsort(p_values[tested], kind="stable")]
    k = order.size
    adjusted[order] = np.minimum(1.0, np.maximum.accumulate((k - np.arange(k)) * p_values[order]))
    return adjusted


def holm_separated(p_values: np.ndarray, alpha: float = ALPHA) -> np.ndarray:
    """Which p-values Holm's step-down separates at ``alpha`` (``holm_array(p) < alpha``, exactly), without
    sorting them all: only a p below alpha can be, and those are the smallest, so their ranks are
    1, 2, ... in sorted order. The first of them whose (K − j + 1)·p_(j) reaches alpha ends the
    separated ones: no tie straddles it (an equal p one place earlier has a larger factor and would
    have ended them first), so they are exactly the p-values below it. NaN is never separated."""
    k = int(np.count_nonzero(~np.isnan(p_values)))
    below = np.sort(p_values[p_values < alpha])  # NaN compares False
    failing = np.flatnonzero((k - np.arange(below.size)) * below >= alpha)
    cut = below[failing[0]] if failing.size else alpha
    return p_values < cut


def _row_starts(n: int) -> np.ndarray:
    """Where each a's pairs start in the list of all pairs (a's position, then b's)."""
    i = np.arange(n, dtype=np.int64)
    return i * (2 * n - i - 1) // 2


def pair_blocks(n: int, block: int = BLOCK_PAIRS) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """The pairs (i, j), i < j < n, in order (i, then j), as blocks of whole rows of about ``block``
    pairs: (position of the block's first pair, i's, j's)."""
    starts = _row_starts(n)
    i = 0
    while i < n - 1:
        j = i + 1
        while j < n - 1 and (n - 1 - j) + (starts[j] - starts[i]) <= block:
            j += 1
        rows = np.arange(i, j)
        counts = n - 1 - rows
        a = np.repeat(rows, counts)
        offset = np.arange(a.size) - np.repeat(starts[i:j] - starts[i], counts)
        yield int(starts[i]), a, a + 1 + offset
        i = j


def testable_rows(matrices: Mapping[str, np.ndarray], a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Which pairs ``a[k]``, ``b[k]`` have at least 2 tasks both scored in every track of ``matrices``
    (``task_matrices``): only they have an se (docs/rules.md#intervals), and so a p. Counts of the
    tasks, no arithmetic on the means."""
    testable = np.ones(a.size, dtype=bool)
    for x in matrices.values():
        present = ~np.isnan(x)
        if present.all():
            testable &= x.shape[1] >= 2
            continue
        m = np.zeros(a.size, dtype=np.int64)
        for j in range(x.shape[1]):
            m += present[a, j] & present[b, j]
        testable &= m >= 2
    return testable


# Headroom below the largest double (2^1024) for the bound of ``cannot_overflow``.
OVERFLOW_HEADROOM = 2.0**1000


def cannot_overflow(matrices: Mapping[str, np.ndarray], weights: Mapping[str, float]) -> bool:
    """True when no pair of these models can raise NumberTooLarge (docs/safety.md): every task mean is
    finite (or missing), and with B the largest magnitude, k the most tasks of a track and W = Σ |w|,
    16·(k + 1)·(W + 1)·B stays below 2^1000. Every number of a pair is at most that: a per-task
    difference 2B, a track mean 2B, a deviation 4B, an sd sqrt(k)·8B (squares of deviations divided by
    a power of two at most twice the largest), the index difference 2B·W, its se 16·sqrt(k)·B·W
    (docs/performance.md#the-screen)."""
    w = np.array([abs(weights[t]) for t in weights], dtype=float)
    if not np.isfinite(w).all():
        return False
    largest, k = 0.0, 0
    for x in matrices.values():
        values = x[~np.isnan(x)]
        if not np.isfinite(values).all():
            return False
        if values.size:
            largest = max(largest, float(np.abs(values).max()))
        k = max(k, x.shape[1])
    return 16.0 * (k + 1) * (float(w.sum()) + 1.0) * largest < OVERFLOW_HEADROOM


# The screen of ``t_upper_rows`` holds for task means 0 or of magnitude in [2^-400, 2^400], weights of
# magnitude in [2^-200, 2^200] and at most 1,000 tasks a track and 1,000 tracks (docs/performance.md#the-screen).
SCREEN_RANGE: Final = (2.0**-400, 2.0**400)
SCREEN_WEIGHTS: Final = (2.0**-200, 2.0**200)
SCREEN_TASKS_MAX: Final = 1000
SCREEN_SLACK: Final = 2.0**-38  # relative error allowed for every sum of the exact and the plain computation
ULP_MIN: Final = 5e-324  # 2^-1074, the least double: what a square loses when it underflows


def screenable(matrices: Mapping[str, np.ndarray], weights: Mapping[str, float]) -> bool:
    """Whether ``t_upper_rows`` bounds the pairs of these models (docs/performance.md#the-screen)."""
    w = np.abs(np.array([weights[t] for t in weights], dtype=float))
    if w.size > SCREEN_TASKS_MAX or not ((w >= SCREEN_WEIGHTS[0]) & (w <= SCREEN_WEIGHTS[1])).all():
        return False
    for x in matrices.values():
        values = np.abs(x[~np.isnan(x)])
        inside = (values == 0.0) | ((values >= SCREEN_RANGE[0]) & (values <= SCREEN_RANGE[1]))
        if x.shape[1] > SCREEN_TASKS_MAX or not inside.all():
            return False
    return True


def t_upper_rows(
    matrices: Mapping[str, np.ndarray], a: np.ndarray, b: np.ndarray, weights: Mapping[str, float]
) -> tuple[np.ndarray, np.ndarray]:
    """For pairs with 2 common tasks in every track (``testable_rows``) of ``screenable`` models: an
    upper bound of the |d|/se that ``paired_index_rows`` gives (inf where there is none), computed
    in plain floating point, and an upper bound of its df, Σ (m − 1) over the tracks
    (docs/performance.md#the-screen)."""
    d = np.zeros(a.size)
    scale = np.zeros(a.size)  # Σ |w|·Σ|x|/m: what the errors of d are relative to
    var = np.zeros(a.size)  # a lower bound of Σ w²·SS/((m − 1)·m), SS about the exact mean
    df = np.zeros(a.size, dtype=np.int64)
    with np.errstate(invalid="ignore", divide="ignore", under="ignore"):
        for t, w in weights.items():
            x = matrices[t]
            gaps = bool(np.isnan(x).any())
            columns, present = [], []
            for j in range(x.shape[1]):  # column by column: a reduction along a short last axis is slow
                column = np.ascontiguousarray(x[:, j])
                diff = column[a] - column[b]
                if gaps:
                    here = ~np.isnan(diff)
                    diff = np.where(here, diff, 0.0)
                    present.append(here)
                columns.append(diff)
            m = sum(present, np.zeros(a.size, dtype=np.int64)) if gaps else x.shape[1]  # an array or one count
            total, size = columns[0].copy(), np.abs(columns[0])
            for c in columns[1:]:
                total += c
                size += np.abs(c)
            mean = total / m
            ss = np.zeros(a.size)
            for j, c in enumerate(columns):
                deviation = np.subtract(c, mean, out=total)  # total is no longer needed
                if gaps:
                    deviation[~present[j]] = 0.0
                ss += np.square(deviation, out=deviation)
            # |mean − the exact mean| ≤ e = SCREEN_SLACK·size/m, and ss exceeds the squares about the exact
            # mean by at most m·e² (+ m·ULP_MIN for squares that underflow)
            ss *= 1.0 - SCREEN_SLACK
            ss -= np.square(size) * (SCREEN_SLACK * SCREEN_SLACK * (1.0 + SCREEN_SLACK) / m) + m * ULP_MIN
            var += np.maximum(ss, 0.0, out=ss) * (w * w / ((m - 1) * m))
            mean *= w
            d += mean
            size *= abs(w) / m
            scale += size
            df += m - 1
        t_upper = (np.abs(d) + SCREEN_SLACK * scale) / np.sqrt(var * (1.0 - SCREEN_SLACK)) * (1.0 + SCREEN_SLACK)
    t_upper[~(var > 0.0)] = np.inf
    return t_upper, df


def upward_float32(x: np.ndarray) -> np.ndarray:
    """``x`` as float32, each value rounded up (to inf above float32's range): still an upper bound."""
    with np.errstate(over="ignore"):
        y = x.astype(np.float32)
        low = y < x
        y[low] = np.nextafter(y[low], np.float32(np.inf))
    return y


P_SLACK: Final = 1e-5  # scipy's t tail is taken to be within 1e-6 of the true one, relatively


def t_cutoffs(df: np.ndarray, tail: float) -> np.ndarray:
    """Per df (an upper bound of a pair's df), a t below which every df up to it gives a two-sided p
    of at least ``tail``, with room for scipy's error: 2·stdtr(df·(1 + 2^-30), −q) ≥ tail·(1 + 1e-5)
    (the t's two-sided tail falls as df grows: docs/performance.md#the-screen)."""
    from scipy.special import stdtr, stdtrit  # imported on use (docs/performance.md#start-up)

    top = df * (1.0 + 2.0**-30)
    q = -stdtrit(top, tail * (1.0 + 2 * P_SLACK) / 2.0)
    for _ in range(100):
        short = 2.0 * stdtr(top, -q) < tail * (1.0 + P_SLACK)
        if not short.any():
            return q
        q = np.where(short, q * (1.0 - 1e-9), q)
    return np.zeros_like(q)  # no cut-off found: nothing is screened


def holm_p_values(
    matrices: Mapping[str, np.ndarray], n: int, weights: Mapping[str, float], alpha: float = ALPHA
) -> np.ndarray:
    """p-values of all pairs of the ``n`` models of ``matrices`` in list order that give the same
    Holm separations as ``pair_p_values_for_holm`` of every pair (docs/performance.md#the-screen):
    NaN where a pair has no p (fewer than 2 common tasks in a track: counted, not computed), 1 for a
    pair that the screen proves unseparated, the exact p of the others. Every pair is computed when
    a number of some pair could overflow (``cannot_overflow``), so that the same NumberTooLarge is
    raised; no pair is screened when the screen's bounds do not hold (``screenable``)."""
    total = n * (n - 1) // 2
    p = np.full(total, np.nan)
    if not cannot_overflow(matrices, weights):
        for start, a, b in pair_blocks(n):
            p[start : start + a.size] = pair_p_values_for_holm(*paired_index_rows(matrices, a, b, weights), alpha)
        return p
    screen = screenable(matrices, weights)
    testable = np.zeros(total, dtype=bool)
    t_upper = np.full(total, np.inf, dtype=np.float32)  # rounded up (``upward_float32``): half the memory
    df_upper = np.zeros(total, dtype=np.int32)
    for start, a, b in pair_blocks(n):
        rows = testable_rows(matrices, a, b)
        testable[start : start + a.size] = rows
        if screen and rows.all():
            here: slice | np.ndarray = slice(start, start + a.size)
            t, df = t_upper_rows(matrices, a, b, weights)
            t_upper[here], df_upper[here] = upward_float32(t), df
        elif screen and rows.any():
            here = start + np.flatnonzero(rows)
            t, df = t_upper_rows(matrices, a[rows], b[rows], weights)
            t_upper[here], df_upper[here] = upward_float32(t), df
    k = int(np.count_nonzero(testable))
    candidates = testable
    if screen and k:
        # Holm separates only p < alpha / (K − S + 1) for S separated pairs; S is at most the number of
        # pairs whose p is not proved to be at least the current bound, which lowers the bound in turn
        every = k == total  # then no copies: at 5,000 models each array holds 12.5 million pairs
        df_of_testable = df_upper if every else df_upper[testable]
        t_of_testable = t_upper if every else t_upper[testable]
        values = np.flatnonzero(np.bincount(df_of_testable))  # the few df bounds there are
        bound, count = alpha, k + 1
        while True:
            cutoffs = t_cutoffs(values.astype(float), bound)
            # "not below" rather than ">=": a cut-off that is NaN proves nothing
            if values.size == 1:
                unproved = ~(t_of_testable < cutoffs[0])
            else:
                cutoff = np.zeros(int(values[-1]) + 1)
                cutoff[values] = cutoffs
                unproved = ~(t_of_testable < cutoff[df_of_testable])
            if int(np.count_nonzero(unproved)) >= count:
                break
            count = int(np.count_nonzero(unproved))
            bound = alpha / (k - count + 1)
        candidates = np.zeros(total, dtype=bool)
        candidates[testable] = unproved
        p[testable & ~candidates] = 1.0
    picked = np.flatnonzero(candidates)
    starts = _row_starts(n)
    for chunk in range(0, picked.size, BLOCK_PAIRS):
        hits = picked[chunk : chunk + BLOCK_PAIRS]
        a = np.searchsorted(starts, hits, side="right") - 1
        b = a + 1 + (hits - starts[a])
        p[hits] = pair_p_values_for_holm(*paired_index_rows(matrices, a, b, weights), alpha)
    return p


def not_ranked(alpha: float = ALPHA) -> Ranks:
    """docs/rules.md#ranks: the ``ranks`` block of a cohort of more than 5,000 models with an index."""
    return Ranks(method=METHOD, alpha=alpha, models=None, pairs=[], pairs_listed=False, reason=NOT_RANKED_REASON)


def rank_models(
    indexes: Mapping[str, float | None],
    task_means: Mapping[str, TaskMeans],
    weights: Mapping[str, float],
    alpha: float = ALPHA,
) -> Ranks:
    """The ``ranks`` block of index.json (docs/rules.md#ranks).

    ``indexes`` holds every cohort model in cohort order (index None when
    incomplete: such models are left out); ``task_means`` each model's task
    means by item. Models are listed by index, highest first (ties in cohort
    order); pairs by a's then b's position in that list, a the higher index.
    """
    scored = {m: v for m, v in indexes.items() if v is not None}
    ordered = sorted(scored, key=lambda m: -scored[m])  # sorted() is stable: ties keep cohort order
    n = len(ordered)
    if n > RANKED_MAX:
        return not_ranked(alpha)
    listed = n <= PAIRS_LISTED_MAX
    matrices = task_matrices([task_means[m] for m in ordered], weights)
    kept: list[tuple[np.ndarray, ...]] = []
    if listed:
        p = np.empty(n * (n - 1) // 2)
        for start, a, b in pair_blocks(n):
            d, se, df = paired_index_rows(matrices, a, b, weights)
            p[start : start + a.size] = pair_p_values(d, se, df)
            kept.append((a, b, d, se, df))
    else:
        p = holm_p_values(matrices, n, weights, alpha)
    separated = holm_separated(p, alpha)  # False where there is no p
    hits = np.flatnonzero(separated)
    starts = _row_starts(n)
    a_hit = np.searchsorted(starts, hits, side="right") - 1
    b_hit = a_hit + 1 + (hits - starts[a_hit])
    above = np.bincount(b_hit, minlength=n)  # separated models with a higher index
    below = np.bincount(a_hit, minlength=n)  # separated models with a lower index
    models = {m: RankInterval(best=1 + int(above[i]), worst=n - int(below[i])) for i, m in enumerate(ordered)}
    if not listed:
        return Ranks(method=METHOD, alpha=alpha, models=models, pairs=[], pairs_listed=False)
    adjusted = holm_array(p)
    pairs: list[RankPair] = []
    columns = [np.concatenate(c) for c in zip(*kept, strict=True)] if kept else [np.empty(0)] * 5
    for k, (i, j, d, se, df) in enumerate(zip(*(c.tolist() for c in columns), strict=True)):
        pairs.append(
            RankPair(
                ordered[int(i)],
                ordered[int(j)],
                _none(d),
                _none(se),
                _none(df),
                _none(p[k]),
                _none(adjusted[k]),
                bool(separated[k]),
            )
        )
    return Ranks(method=METHOD, alpha=alpha, models=models, pairs=pairs)


def ranks_of_document(document: Mapping, weights: Mapping[str, float]) -> Ranks:
    """The ``ranks`` block for an index.json document (docs/formats.md#indexjson shape), models in its (cohort) order."""
    models = document["models"]
    return rank_models(
        {m: e["index"] for m, e in models.items()}, {m: task_means_of(e) for m, e in models.items()}, weights
    )


def top_group(ranks: Ranks) -> list[str]:
    """The models whose best rank is 1 (docs/rules.md#ranks), highest index first; none when ranks were not computed."""
    return [m for m, r in (ranks.models or {}).items() if r.best == 1]


def leader(ranks: Ranks) -> str | None:
    """The leader only when the top group holds one model alone (docs/rules.md#ranks), else None."""
    group = top_group(ranks)
    return group[0] if len(group) == 1 else None
