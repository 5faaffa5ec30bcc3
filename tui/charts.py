"""The dashboard's charts as rows of text (the Overview's forest plot: tui/forest.py): pass^k's sparkline, the
Phi histogram's bars. Each is a pure function from plain data to strings, tested without a terminal; nothing
here imports textual or rich.

Rules kept by every chart:
- one scale per chart, fixed where the quantity has one (pass^k: 0..1), so that rows compare;
- every value is also written as a number beside it (a glyph only shows where it lies);
- a value above 0 never draws as none.
"""

from __future__ import annotations

from collections.abc import Sequence

SPARKS = "▁▂▃▄▅▆▇█"  # a sparkline's glyphs, lowest to highest


def sparkline(values: Sequence[float | None]) -> str:
    """pass^1..pass^n as one glyph each on the 0..1 scale (0 ▁, 1 █, in sevenths, rounded half up), so that
    the decay reads at a glance; the values up to the first missing one (a track with fewer attempts
    per task stops early), — when there is none."""
    glyphs = []
    for v in values:
        if v is None:
            break
        glyphs.append(SPARKS[min(max(int(7 * v + 0.5), 0), 7)])
    return "".join(glyphs) or "—"


def tick_label(value: float) -> str:
    """A bin edge as a short round number: 0, 0.25, 0.5, 1."""
    return f"{value:g}"


def fit_title(titles: Sequence[str], width: int) -> str:
    """The first (longest, most explicit) of ``titles`` that fits in ``width`` columns, else the last, shortest."""
    for title in titles:
        if len(title) <= width - 2:
            return title
    return titles[-1]


def histogram_bars(phi, status, bins: int = 10) -> tuple[list[str], list[int]]:
    """Bars of the Phi histogram of the rows shown: ``bins`` bins over [0, 1] of the scored rows
    (status 0, ok), then one bar 'fail' counting the solver failures (which score 0, docs/rules.md#solver-score)."""
    import numpy as np

    phi = np.asarray(phi)
    ok = np.asarray(status) == 0
    counts = histogram_counts(phi[ok], bins)
    edges = [tick_label(round(k / bins, 6)).lstrip("0") or "0" for k in range(bins + 1)]
    labels = [f"{edges[k]}–{edges[k + 1]}" for k in range(bins)] + ["fail"]
    return labels, counts + [int((~ok).sum())]


EIGHTHS = " ▏▎▍▌▋▊▉"  # a bar's last cell, in eighths of a cell
BAR_CELLS = 60  # the longest bar: its count stays near it on a wide screen


def bar(count: int, largest: int, width: int) -> str:
    """A horizontal bar of ``count`` on a scale where ``largest`` fills ``width`` cells, in eighths of a cell;
    a count above 0 shows at least one eighth, so that it never reads as none."""
    if count <= 0 or largest <= 0 or width <= 0:
        return ""
    eighths = max(1, round(8 * width * count / largest))
    return "█" * (eighths // 8) + (EIGHTHS[eighths % 8] if eighths % 8 else "")


def histogram_lines(labels: list[str], counts: list[int], shown: int, width: int = 80) -> list[str]:
    """The Phi histogram of the rows shown as text, one row per bin (label, a bar, the count), failures
    last: a title line, then one line per bar. The bars share one scale, the largest count filling the
    width the labels and counts leave (at most BAR_CELLS)."""
    label_width = max((len(label) for label in labels), default=0)
    count_width = max((len(f"{c:,}") for c in counts), default=1)
    room = min(max(width - label_width - count_width - 4, 1), BAR_CELLS)
    largest = max(counts, default=0)
    title = fit_title(
        [
            f"Phi of the {shown:,} instances shown: bins over [0, 1], then fail (solver failures, scored 0)",
            f"Phi of the {shown:,} instances shown",
            f"Phi, {shown:,} shown",
        ],
        width,
    )
    return [title] + [
        f"{label:>{label_width}} │{bar(count, largest, room):<{room}} {count:>{count_width},}"
        for label, count in zip(labels, counts, strict=True)
    ]


def histogram_counts(phi, bins: int = 10) -> list[int]:
    """Counts of Phi over [0, 1] in equal bins (the last bin includes 1)."""
    import numpy as np

    counts, _ = np.histogram(phi, bins=bins, range=(0.0, 1.0))
    return counts.tolist()
