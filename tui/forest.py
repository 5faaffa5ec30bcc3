"""The Overview's forest plot: each model's index and its 95% interval drawn as text in a column of the
table (docs/dashboard.md#tabs), one row per model, on one scale from 0 shared by every row.

Pure functions (no textual, no rich): the scale, the column header with the scale's ticks, and each row's
gauge. Every loop is bounded by the gauge's width or a fixed count, whatever the values: an index of
1e13 (a construction score of 1e13 makes one) gives a scale to 1e13, drawn in the same few characters.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable

POINT = "●"
NULL = "○"
LINE = "─"
HALF_LEFT, HALF_RIGHT = "╶", "╴"  # a line end in the outer half of its character
CUT_LEFT = "◂"  # an interval reaching below 0, the scale's start: it goes on past the plot's edge
TICK = "·"
# the scale's possible ends (× 10^k), each with the number of parts its ticks cut it in, so that every
# tick is a round number: 100 in quarters, 150 in thirds (50 each), 250 and 500 in fifths
PARTS = {1.0: 4, 1.5: 3, 2.0: 4, 2.5: 5, 5.0: 5}
INDEX_TOP = 100.0  # the index is in points: the scale reaches 100 at least, so runs read alike


def nice_ceiling(x: float) -> float:
    """The smallest of 1, 1.5, 2, 2.5, 5 × 10^k that is ≥ ``x`` (> 0, finite)."""
    power = 10.0 ** math.floor(math.log10(x))
    for m in PARTS:
        if m * power >= x * (1 - 1e-12):
            return m * power
    return 10 * power


def mantissa(top: float) -> float:
    """``top``'s leading part: 1.5 for 150 or 1.5e13."""
    return round(top / 10.0 ** math.floor(math.log10(top)), 6)


def round_ceiling(x: float) -> float:
    """The smallest multiple of a tenth of ``x``'s power of ten that is ≥ ``x`` (> 0, finite): 107.64 -> 110,
    1.234e13 -> 1.3e13; the scale then ends just above the largest upper end."""
    step = 10.0 ** (math.floor(math.log10(x)) - 1)
    top = math.ceil(x / step * (1 - 1e-12)) * step
    return float(f"{top:.6g}")


def forest_top(values: Iterable[tuple[float | None, float | None]]) -> float:
    """The scale's end: 100 points, or the round value just above the largest upper end of an interval
    (index + half-width) when one is higher (110 for 107.64). Non-finite values are left out; so is a sum
    that overflows."""
    top = INDEX_TOP
    for value, pm in values:
        if value is None or not math.isfinite(value):
            continue
        hi = value + (pm if pm is not None and math.isfinite(pm) and pm > 0 else 0.0)
        if math.isfinite(hi) and hi > top:
            top = hi
    return top if top == INDEX_TOP else round_ceiling(top)


def position(x: float, top: float, width: int) -> int:
    """The character (0 .. width-1) where ``x`` lies on a scale of 0 .. ``top`` drawn in ``width`` characters."""
    if not math.isfinite(x) or x <= 0:
        return 0
    return min(width - 1, max(0, round(x / top * (width - 1))))


def tick_values(top: float, width: int) -> list[float]:
    """The scale's labelled ticks: 0, the end, and between them round steps (those of ``PARTS`` for an end
    such as 100 or 150, else multiples of a round step below the end: 50 and 100 for 110) when the gauge is
    wide enough for their labels (else the middle alone, or none)."""
    parts = PARTS.get(mantissa(top))
    if parts is None:  # an end such as 110: round steps from 0, then the end itself
        step = nice_ceiling(top / 4)
        inner = [step * k for k in range(1, math.ceil(top / step * (1 - 1e-12)))]
        if width < (len(inner) + 1) * (len(tick_label(top)) + 2):
            inner = inner[len(inner) // 2 : len(inner) // 2 + 1] if width >= 2 * (len(tick_label(top)) + 2) else []
        return [0.0, *inner, top]
    if width < parts * (len(tick_label(top)) + 2):
        parts = 1 if parts == 3 else 2
    return [top * k / parts for k in range(parts + 1)]


def tick_label(value: float) -> str:
    """A tick as a short number: 0, 25, 50, 2.5e+13."""
    return f"{value:g}"


@functools.lru_cache(maxsize=16)  # one scale and width for every row of a table
def labelled_ticks(top: float, width: int) -> tuple[tuple[float, int], ...]:
    """The ticks of ``tick_values`` whose labels fit, as (value, where the label starts): the first
    left-aligned at 0, the last right-aligned at the end, each other centred on its place unless it
    would touch a label already placed (the ends' are placed first)."""
    placed: list[tuple[float, int]] = []
    taken = [False] * width
    ticks = tick_values(top, width)
    last = len(ticks) - 1
    for k in [0, last, *range(1, last)]:
        label = tick_label(ticks[k])
        at = position(ticks[k], top, width)
        start = 0 if k == 0 else width - len(label) if k == last else at - len(label) // 2
        start = max(0, min(start, width - len(label)))
        if not any(taken[max(0, start - 1) : start + len(label) + 1]):
            taken[start : start + len(label)] = [True] * len(label)
            placed.append((ticks[k], start))
    return tuple(sorted(placed))


@functools.lru_cache(maxsize=16)
def tick_places(top: float, width: int) -> tuple[int, ...]:
    """Where the rows draw a tick: at each of ``tick_values``, those without a label too (100 on a
    scale to 120), but none under another tick's label, where it reads as that one (100 under 110)."""
    labels = [(start, start + len(tick_label(v)), v) for v, start in labelled_ticks(top, width)]
    places = []
    for tick in tick_values(top, width):
        at = position(tick, top, width)
        if not any(a <= at < b for a, b, v in labels if v != tick):
            places.append(at)
    return tuple(places)


def forest_header(top: float, width: int) -> str:
    """The gauge column's header: the labels of ``labelled_ticks`` at their places, exactly ``width``
    characters."""
    line = [" "] * width
    for value, start in labelled_ticks(top, width):
        label = tick_label(value)
        line[start : start + len(label)] = label
    return "".join(line)[:width]


def forest_gauge(value: float | None, pm: float | None, top: float, width: int, reason: str = "no index") -> str:
    """One model's row of the forest plot, ``width`` characters: ● at the index, ─ over its 95% interval
    (cut at the scale's ends; none when there is no interval), · at the ticks elsewhere. No index: ○ and
    the reason (``incomplete``), never a point at 0."""
    if value is None or not math.isfinite(value):
        return (f"{NULL} {reason}")[:width].ljust(width)
    line = [" "] * width
    for at in tick_places(top, width):
        line[at] = TICK
    at = position(value, top, width)
    if pm is not None and math.isfinite(pm) and pm > 0:
        draw_whiskers(line, value, pm, top, at)
    line[at] = POINT
    return "".join(line)


def draw_whiskers(line: list[str], value: float, pm: float, top: float, at: int) -> None:
    """The interval's line on both sides of the point at ``at``: at least one character each side (within the
    scale), so a short interval still shows both whiskers; an end that lies in the outer half of its
    character is drawn as a half line (╶ on the left, ╴ on the right). A lower end below 0, where the scale
    starts, is drawn as ◂ at the scale's start: the interval is not clipped, the plot is (docs/rules.md#intervals)."""
    width = len(line)
    scale = (width - 1) / top

    def place(x: float) -> float:
        return min(max(x * scale, 0.0), width - 1.0) if math.isfinite(x) else (width - 1.0 if x > 0 else 0.0)

    lo_x, hi_x = place(value - pm), place(value + pm)
    lo, hi = max(min(round(lo_x), at - 1), 0), min(max(round(hi_x), at + 1), width - 1)
    line[lo : hi + 1] = LINE * (hi - lo + 1)
    if (lo < at and lo_x - lo > 0.25) or (lo == at - 1 and lo_x > lo):
        line[lo] = HALF_LEFT
    if value - pm < 0 and lo == 0 < at:
        line[0] = CUT_LEFT
    if (hi > at and hi - hi_x > 0.25) or (hi == at + 1 and hi_x < hi):
        line[hi] = HALF_RIGHT


def gauge_width(screen_width: int) -> int:
    """How wide the gauge is drawn: 17 characters on an 80-column terminal, up to 31 on a wide one."""
    return max(17, min(31, 17 + (screen_width - 80) // 4))
