"""The dashboard's charts (pass^k, the Phi histogram; the Overview's forest plot is text: tui/forest.py): each draws one chart from plain data on a textual-plotext ``plt``.

The choices a reader relies on (ticks, which series are identical, what is
drawn where, when a plot becomes a sentence) are pure functions returning
plain data, tested without a terminal; the ``draw_*`` functions only turn
their results into plotext calls. Nothing here imports textual or rich.

Rules kept by every chart:
- no in-plot legend: each point is drawn as its own letter (P S C O the
  tracks), so nothing covers the data;
- ticks are round numbers (0, 0.25, …; integer counts), their loops
  bounded whatever the values;
- a single point is a sentence, not a dot.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

TRACKS = ("theorem", "solver", "construction", "conjecture")
LETTERS = {"theorem": "P", "solver": "S", "construction": "C", "conjecture": "O"}
INDEX_COLOR = (0, 130, 200)
TRACK_COLORS = {
    "theorem": (170, 90, 230),
    "solver": (60, 180, 75),
    "construction": (230, 25, 75),
    "conjecture": (245, 130, 48),
}
TIE_TOLERANCE = 1e-12
PASSK_TICKS = [0.0, 0.25, 0.5, 0.75, 1.0]  # pass^k lies in [0, 1]


def redraw(plot, draw: Callable) -> None:
    """Clear a PlotextPlot, let ``draw(plt)`` draw on it, and ask for a repaint; ``draw`` is kept on the plot
    (``last_draw``) so that a resize can draw again for the new size (tui/widgets/chart_plot.py)."""
    plot.last_draw = draw
    plt = plot.plt
    plt.clear_data()
    plt.clear_figure()
    draw(plt)
    plot.refresh()


# --- pure choices -----------------------------------------------------------------------------------------------


def int_step(span: int, most: int) -> int:
    """The smallest of 1, 2, 5 × 10^k that cuts ``span`` into at most ``most`` steps (at most one pass per bit of
    ``span``: bounded for any count)."""
    power = 1
    for _ in range(max(span, 1).bit_length() + 1):
        for m in (1, 2, 5):
            if m * power * max(most, 1) >= span:
                return m * power
        power *= 10
    return power


def tick_label(value: float) -> str:
    """A tick as a short round number: 0, 0.25, 0.5, 1, 25."""
    return f"{value:g}"


def count_ticks(largest: int, most: int = 5) -> list[int]:
    """Integer ticks from 0 covering ``largest`` in round steps (1, 2, 5 × 10^k), at most ``most`` steps."""
    if largest <= 0:
        return [0, 1]
    step = int_step(largest, most)
    top = -(-largest // step) * step
    return list(range(0, top + 1, step))


def fit_title(titles: Sequence[str], width: int) -> str:
    """The first (longest, most explicit) of ``titles`` that fits in ``width`` columns; plotext drops a title
    that does not fit, so the last, shortest one is kept whatever the width."""
    for title in titles:
        if len(title) <= width - 2:
            return title
    return titles[-1]


def tie_groups(series: Mapping[str, Sequence[float | None]]) -> list[list[str]]:
    """Series with identical values, grouped in their first-seen order: [['P', 'S'], ['C'], ['O']]."""
    groups: list[list[str]] = []
    reps: list[Sequence[float | None]] = []
    for name, values in series.items():
        for group, rep in zip(groups, reps, strict=True):
            if len(rep) == len(values) and all(
                (a is None and b is None) or (a is not None and b is not None and abs(a - b) <= TIE_TOLERANCE)
                for a, b in zip(rep, values, strict=True)
            ):
                group.append(name)
                break
        else:
            groups.append([name])
            reps.append(values)
    return groups


def tie_note(groups: list[list[str]]) -> str:
    """Names the identical series ('P = S'), which are drawn once."""
    return "; ".join(" = ".join(g) for g in groups if len(g) > 1)


def single_point_note(kmax: int, unit: str) -> str | None:
    """The sentence shown instead of a pass^k plot that would have at most one point; None when a plot is due."""
    if kmax <= 0:
        return "no pass^k: no valid attempt"
    if kmax == 1:
        return f"only pass^1: one {unit} (its value is in the table)"
    return None


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


# --- drawing ------------------------------------------------------------------------------------------------------


def draw_passk(
    plt,
    series: dict[str, list[float]],
    colors: dict[str, tuple] | None = None,
    unit: str = "attempt per task",
    width: int = 80,
) -> None:
    """pass^k against k (docs/rules.md#passk): each series' value at each integer k drawn as its letter (the first
    character of its name), joined by a line; identical series drawn once and named ('P = S'); with a
    single k, a sentence instead."""
    kmax = max((len(v) for v in series.values()), default=0)
    note = single_point_note(kmax, unit)
    if note is not None:
        plt.frame(False)
        plt.xticks([])
        plt.yticks([])
        plt.xlim(0, 1)
        plt.ylim(0, 1)
        plt.text(fit_title([note, note.split(" (")[0]], width), 0.5, 0.5, alignment="center")
        return
    groups = tie_groups(series)
    for group in groups:
        values = series[group[0]]
        color = (colors or {}).get(group[0])
        ks = list(range(1, len(values) + 1))
        if len(ks) > 1:
            plt.plot(ks, values, marker="·", color=color)
        plt.scatter(ks, values, marker=group[0][0], color=color)
    plt.yticks(PASSK_TICKS, [tick_label(t) for t in PASSK_TICKS])
    plt.ylim(-0.04, 1.04)
    plt.xticks(list(range(1, kmax + 1)))
    plt.xlim(0.8, kmax + 0.2)
    plt.xlabel("k")
    plt.ylabel("pass^k")
    ties = tie_note(groups)
    plt.title(
        fit_title(
            [f"pass^k by k   ({ties}: identical, drawn once)", f"pass^k · {ties}: identical", ties]
            if ties
            else ["pass^k by k"],
            width,
        )
    )


def tick_budget(height: int) -> int:
    """How many tick steps a plot of ``height`` lines can show evenly: one per two data rows (title, frame and
    axis labels take five lines)."""
    return max(1, (height - 5) // 2)


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
