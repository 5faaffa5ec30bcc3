"""pass^k (docs/rules.md#passk; tau2-bench's estimator, docs/tau2.md).

pass^k = C(c, k) / C(n, k): the chance that k attempts drawn without
replacement from the n observed all succeed. For every k = 1..n it is the
running product prod_{i<k} (c - i) / (n - i), kept as a 128-bit integer
mantissa and a power of two (``Scaled``): each step truncates by less than
2^-126 of the value, so after k steps the kept value is within k * 2^-126 of
the exact one and its double is the exact value's nearest double, or the next
one when the exact value lies that close to a rounding midpoint: within 1 ulp
(docs/decisions.md). One task of n trials costs O(n) small-integer steps, where
C(c, k) and C(n, k) for every k grow to n-bit integers (O(n^2) digits).
A track's mean is the sum of its tasks' kept values, exact in integers, divided once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from functools import lru_cache

DEFAULT_THRESHOLDS = {"theorem": 1.0, "conjecture": 1.0, "construction": 1.0, "solver": 0.5}

PRECISION = 128  # bits of the mantissa a running product keeps

Scaled = tuple[int, int]  # (m, e): the value m * 2^e, m of about PRECISION bits (0 for zero)


def running_ratios(n: int, c: int, top: int) -> Iterator[Scaled]:
    """C(c, k) / C(n, k) for k = 1..top (top <= n) as ``Scaled`` values, each from the one before
    times (c - k + 1) / (n - k + 1), truncated to PRECISION bits."""
    m, e = 1 << PRECISION, -PRECISION  # 1
    for k in range(1, top + 1):
        if k > c:
            m = 0
        if m:
            den = n - k + 1
            shift = den.bit_length()
            m = ((m * (c - k + 1)) << shift) // den
            e -= shift
            extra = m.bit_length() - PRECISION
            if extra > 0:
                m >>= extra
                e += extra
        yield m, e


def scaled_float(m: int, e: int) -> float:
    """The double nearest m * 2^e (correctly rounded: int / int); 0.0 below the smallest double."""
    if m == 0 or m.bit_length() + e < -1076:
        return 0.0
    return m / (1 << -e) if e < 0 else float(m << e)


def scaled_mean(terms: list[tuple[int, int, int]]) -> float:
    """The mean of ``times`` copies of each value m * 2^e in ``terms`` ((times, m, e)): the values
    summed exactly in integers, divided by their count once; a value below 2^-(PRECISION+64) of the
    largest is left out of the sum (it changes it by less than the values' own truncation)."""
    count = sum(times for times, _, _ in terms)
    live = [(times, m, e) for times, m, e in terms if m]
    if not live:
        return 0.0
    top = max(m.bit_length() + e for _, m, e in live)
    live = [(times, m, e) for times, m, e in live if m.bit_length() + e >= top - PRECISION - 64]
    low = min(e for _, _, e in live)
    total = sum(times * (m << (e - low)) for times, m, e in live)
    shift = count.bit_length() + PRECISION
    return scaled_float((total << shift) // count, low - shift)


def task_pass_hat_k(n: int, c: int) -> dict[int, float]:
    """pass^k of one task for k = 1..n."""
    return {k: scaled_float(m, e) for k, (m, e) in enumerate(running_ratios(n, c, n), start=1)}


def mean_pass_hat_k(counts: list[tuple[int, int]], max_k: int | None = None) -> dict[int, float]:
    """Mean of pass^k over the tasks with n >= k (docs/rules.md#passk), for k = 1..max_k (default:
    the largest n). ``counts`` holds (n, c) per task; tasks with n = 0 are left out. The same
    counts recur across the models of a leaderboard (a track of 2 tasks and 1 attempt has 3
    possible): their means are computed once."""
    return dict(_mean_pass_hat_k(tuple(counts), max_k))


@lru_cache(maxsize=4096)
def _mean_pass_hat_k(counts: tuple[tuple[int, int], ...], max_k: int | None) -> dict[int, float]:
    """``mean_pass_hat_k`` of ``counts`` (a tuple, so that it can be remembered; the caller copies
    the dict)."""
    tally = Counter((n, c) for n, c in counts if n >= 1)  # tasks share few (n, c) pairs: each once
    if not tally:
        return {}
    top = max(n for n, _ in tally) if max_k is None else max_k
    ratios = {(n, c): list(running_ratios(n, c, min(n, top))) for n, c in tally}
    out: dict[int, float] = {}
    for k in range(1, top + 1):
        terms = [(times, *ratios[n, c][k - 1]) for (n, c), times in tally.items() if n >= k]
        if terms:
            out[k] = scaled_mean(terms)
    return out


def successes(scores: list[float], threshold: float) -> int:
    """c = the number of scores at or above the track's success threshold (docs/rules.md#passk)."""
    return sum(1 for s in scores if s >= threshold)
