"""Overflow is rejected input naming the value, never an internal error."""

from __future__ import annotations

import math
from collections.abc import Iterable


class NumberTooLarge(ValueError):
    """A result that would not be finite; ``value`` is the input that made it so. The caller
    turns it into a Problem naming the file, line and field of that value."""

    def __init__(self, what: str, value: float):
        self.what, self.value = what, value
        super().__init__(f"{what} would overflow: the value {value!r} is too large")


def _largest(values: list[float]) -> float:
    return max(values, key=lambda v: math.inf if math.isnan(v) else abs(v)) if values else math.nan


def finite_fsum(values: Iterable[float], what: str) -> float:
    """``math.fsum(values)``, or NumberTooLarge naming the largest value when the sum is not
    finite: fsum raises OverflowError when finite values overflow and gives inf (or raises
    ValueError for inf + -inf) when a value already is infinite."""
    values = list(values)
    try:
        total = math.fsum(values)
    except (OverflowError, ValueError):
        raise NumberTooLarge(what, _largest(values)) from None
    if not math.isfinite(total):
        raise NumberTooLarge(what, _largest(values))
    return total


def finite_mean(values: Iterable[float], what: str) -> float:
    """The mean by ``math.fsum`` (docs/rules.md#aggregation), or NumberTooLarge naming the largest value."""
    values = list(values)
    if not values:
        raise ValueError(f"mean of no values ({what})")
    return finite_fsum(values, what) / len(values)


def require_finite(result: float, what: str, culprit: float) -> float:
    """``result`` when it is finite, else NumberTooLarge naming ``culprit`` (for products and
    squares, e.g. 30·mean in the index or (x-mu)² in a standard deviation)."""
    if not math.isfinite(result):
        raise NumberTooLarge(what, culprit)
    return result


RELATIVE_FLOOR_MAX = 1.0


def check_relative_floor(value: float) -> str | None:
    """README "Safety": a reference's ``scale_floor.relative`` above 1 (a scale larger than the
    mean itself; 1e300 overflows the scale) is rejected; the problem message, or None."""
    if not (0 <= value <= RELATIVE_FLOOR_MAX):
        return f"relative scale floor {value!r} is outside [0, {RELATIVE_FLOOR_MAX:g}]"
    return None
