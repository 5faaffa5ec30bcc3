"""pass^k (SPEC section 5; tau2-bench's estimator, SPEC section 8).

pass^k = C(c, k) / C(n, k): the chance that k attempts drawn without
replacement from the n observed all succeed. Computed with exact integers
(a track mean over a common denominator); converted to float once, at the end
(Python's int / int is correctly rounded).
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from math import comb, lcm

DEFAULT_THRESHOLDS = {"theorem": 1.0, "conjecture": 1.0, "construction": 1.0, "solver": 0.5}


def pass_hat_k(n: int, c: int, k: int) -> Fraction:
    """C(c, k) / C(n, k) exactly; requires 1 <= k <= n and 0 <= c <= n."""
    if not (1 <= k <= n and 0 <= c <= n):
        raise ValueError(f"pass^k needs 1 <= k <= n and 0 <= c <= n (n={n}, c={c}, k={k})")
    return Fraction(comb(c, k), comb(n, k))


def task_pass_hat_k(n: int, c: int) -> dict[int, float]:
    """pass^k of one task for k = 1..n."""
    return {k: float(pass_hat_k(n, c, k)) for k in range(1, n + 1)}


def mean_pass_hat_k(counts: list[tuple[int, int]], max_k: int | None = None) -> dict[int, float]:
    """Mean of pass^k over the tasks with n >= k (SPEC 5), for k = 1..max_k (default: the largest n).

    ``counts`` holds (n, c) per task; tasks with n = 0 are left out.
    """
    tally = Counter((n, c) for n, c in counts if n >= 1)  # tasks share few (n, c) pairs: sum each once
    if not tally:
        return {}
    top = max(n for n, _ in tally) if max_k is None else max_k
    out: dict[int, float] = {}
    for k in range(1, top + 1):
        eligible = [(n, c, times) for (n, c), times in tally.items() if n >= k]
        if eligible:
            # sum of times * C(c,k)/C(n,k) over a common denominator, in integers; int / int rounds once
            common = lcm(*{comb(n, k) for n, _, _ in eligible})
            numerator = sum(times * comb(c, k) * (common // comb(n, k)) for n, c, times in eligible)
            out[k] = numerator / (common * sum(times for _, _, times in eligible))
    return out


def successes(scores: list[float], threshold: float) -> int:
    """c = the number of scores at or above the track's success threshold (SPEC 5)."""
    return sum(1 for s in scores if s >= threshold)
