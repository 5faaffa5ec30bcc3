"""The dashboard's charts: each draws one chart from plain data on a textual-plotext ``plt``.

The choices a reader relies on (ticks, which series are identical, what is
drawn where, when a plot becomes a sentence) are pure functions returning
plain data, tested without a terminal; the ``draw_*`` functions only turn
their results into plotext calls. Nothing here imports textual or rich.

Rules kept by every chart:
- no in-plot legend: each point is drawn as its own letter (I index,
  P S C O the tracks), so nothing covers the data;
- a null value is never drawn as 0: it sits on a separate row labelled
  "null" below the 0 tick;
- ticks are round numbers (0, 0.25, …; integer counts);
- a single point is a sentence, not a dot.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from tcsexam.scoring.safety.terminal import escape_for_terminal

TRACKS = ("theorem", "solver", "construction", "conjecture")
LETTERS = {"theorem": "P", "solver": "S", "construction": "C", "conjecture": "O"}
INDEX_COLOR = (0, 130, 200)
TRACK_COLORS = {
    "theorem": (170, 90, 230),
    "solver": (60, 180, 75),
    "construction": (230, 25, 75),
    "conjecture": (245, 130, 48),
}
NULL_ROW = -0.2  # in units of the y step: where null values are drawn, below the 0 tick
MAX_GROUPED = 6  # up to this many models the Overview shows index and tracks per model; beyond, the index only
TIE_TOLERANCE = 1e-12


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
    """The smallest of 1, 2, 5 × 10^k that cuts ``span`` into at most ``most`` steps."""
    power = 1
    while True:
        for m in (1, 2, 5):
            if m * power * most >= span:
                return m * power
        power *= 10


MOST_TICKS = 12  # a scale never has more ticks than this, whatever the values (a reward of 1e13 included)


def unit_ticks(top: float) -> list[float]:
    """Ticks for a [0, 1]-like scale: 0, 0.25, 0.5, 0.75, 1, and on by 0.25 up to ``top`` (C may exceed 1);
    a scale too long for MOST_TICKS quarters takes a rounder step (0.5, 1, 2, 5, 10, 20, 50, ...), so that the
    ticks stay few for any finite ``top``."""
    top = top if math.isfinite(top) else 1.0
    step = 0.25
    while max(1.0, top) / step > MOST_TICKS:
        step *= 2.5 if str(step).startswith("2") else 2.0  # 0.25 -> 0.5 -> 1 -> 2 -> 5 -> 10 -> 20 -> 50 ...
    last = max(1.0, math.ceil(round(top / step, 9)) * step)
    return [k * step for k in range(round(last / step) + 1)]


def points_ticks(top: float) -> list[float]:
    """Ticks for the index in points: 0, 25, 50, 75, 100 (and on by 25 if an interval reaches higher)."""
    return [t * 100 for t in unit_ticks(top / 100)]


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


def rank_ticks(n: int, most: int = 10) -> list[int]:
    """Which of the positions 1..n get a tick: 1 and multiples of a round step, at most about ``most``."""
    if n <= most:
        return list(range(1, n + 1))
    step = int_step(n, most)
    return [1] + list(range(step, n + 1, step))


def short_label(name: str, budget: int) -> str:
    """A model name, escaped as every name on screen is (``escape_for_terminal``: a bidi override or a
    zero-width space never reaches the terminal raw), cut to ``budget`` characters with an ellipsis, so
    that neighbouring labels never collide."""
    name = escape_for_terminal(name)
    budget = max(budget, 2)
    return name if len(name) <= budget else name[: budget - 1] + "…"


def fit_title(titles: Sequence[str], width: int) -> str:
    """The first (longest, most explicit) of ``titles`` that fits in ``width`` columns; plotext drops a title
    that does not fit, so the last, shortest one is kept whatever the width."""
    for title in titles:
        if len(title) <= width - 2:
            return title
    return titles[-1]


def overview_mode(n_models: int) -> str:
    """'tracks' (index and the four track means of each model) for few models, else 'index' (one point each)."""
    return "tracks" if n_models <= MAX_GROUPED else "index"


def whisker(value: float | None, pm: float | None, top: float, row: float = 0.0) -> tuple[float, float] | None:
    """The drawn part of value ± pm: cut at 0 (the null row lies below) and at the frame's ``top``; None when
    there is no interval, or when it is shorter than one text ``row`` on each side (drawn, it would stick out
    on one side only and look lopsided). The exported interval is never cut (docs/rules.md#intervals); only its drawing is."""
    if value is None or pm is None or not math.isfinite(pm) or pm <= 0 or pm < row:
        return None
    return max(value - pm, 0.0), min(value + pm, top)


def scale_top(values: Sequence[float | None]) -> float:
    """The largest value to show (intervals do not widen the scale: their whiskers are cut at the frame)."""
    return max((v for v in values if v is not None), default=0.0)


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

    from .views import histogram_counts

    phi = np.asarray(phi)
    ok = np.asarray(status) == 0
    counts = histogram_counts(phi[ok], bins)
    edges = [tick_label(round(k / bins, 6)).lstrip("0") or "0" for k in range(bins + 1)]
    labels = [f"{edges[k]}–{edges[k + 1]}" for k in range(bins)] + ["fail"]
    return labels, counts + [int((~ok).sum())]


# --- drawing ------------------------------------------------------------------------------------------------------


def row_size(low: float, high: float, height: int) -> float:
    """The y span of one text row of a plot ``height`` lines tall (five lines go to title, frame and labels)."""
    return (high - low) / max(height - 5, 1)


def y_axis(ticks: list[float], height: int) -> tuple[list[float], float, float, float]:
    """The y axis of a plot ``height`` lines tall: the ticks that get a label, the y of the 'null' row below
    0, the y limits. Labels are at least one text row apart (every s-th tick, s as small as that allows) and
    so is the null row from 0: two labels never fall on one row, where the terminal would show either.
    The stride keeps the top tick when one can."""
    step = ticks[1] - ticks[0]
    rows = max(height - 5, 3)  # the dashboard's plots are at least 8 lines tall (min-height in app.tcss)
    # the null row sits 0.4 step below 0, or one text row when that is more; a row is the span over ``rows``
    row = (ticks[-1] + 0.15 * step) / (rows - 1)
    null_distance = max(-NULL_ROW * 2 * step, row)
    low, high = -null_distance - 0.1 * step, ticks[-1] + 0.05 * step
    row = row_size(low, high, height)
    steps = len(ticks) - 1
    wide = [s for s in range(1, steps + 1) if s * step >= row] or [steps]
    stride = next((s for s in wide if steps % s == 0), wide[0])  # one that keeps the top tick, if any does
    return ticks[::stride], -null_distance, low, high


def _set_y(plt, ticks: list[float], height: int) -> tuple[float, float]:
    """Round y ticks and, below 0, a 'null' row; returns the y of the null row and the span of one text row."""
    shown, null_y, low, high = y_axis(ticks, height)
    plt.yticks([null_y] + shown, ["null"] + [tick_label(t) for t in shown])
    plt.ylim(low, high)
    return null_y, row_size(low, high, height)


def _points(
    plt,
    xs: Sequence[float],
    ys: Sequence[float | None],
    pms: Sequence[float | None],
    letter: str,
    color,
    top: float,
    null_y: float,
    row: float,
) -> None:
    for x, y, pm in zip(xs, ys, pms, strict=True):
        span = whisker(y, pm, top, row)
        if span is not None:
            plt.plot([x, x], list(span), marker="│", color=color)
    shown = [(x, y) for x, y in zip(xs, ys, strict=True) if y is not None]
    missing = [x for x, y in zip(xs, ys, strict=True) if y is None]
    if shown:
        plt.scatter([x for x, _ in shown], [y for _, y in shown], marker=letter, color=color)
    if missing:
        plt.scatter(missing, [null_y] * len(missing), marker=letter, color=color)


def draw_overview(
    plt,
    models: list[str],
    index: list[float | None],
    index_pm: list[float | None],
    means: dict[str, list[float | None]],
    pms: dict[str, list[float | None]],
    width: int = 80,
    height: int = 16,
) -> None:
    """Overview chart, models in the given order (the table's). Few models: per model the index/100 (I) and
    the four track means (P S C O), each ± its 95% half-width (docs/rules.md#intervals). Many: the index in points per model,
    at its position in the table."""
    n = len(models)
    if n == 0:
        plt.title("No model in the cohort")
        return
    if overview_mode(n) == "index":
        ticks = points_ticks(scale_top(index))
        null_y, row = _set_y(plt, ticks, height)
        xs = list(range(1, n + 1))
        _points(plt, xs, index, index_pm, "●", INDEX_COLOR, ticks[-1], null_y, row)
        plt.xticks(rank_ticks(n))
        plt.xlim(0.3, n + 0.7)
        plt.xlabel("model, by its row in the table above")
        plt.title(
            fit_title(
                [
                    "Index (points) ±95% CI (if over a row), in the table's order · null: no index",
                    "Index ±95% CI, in the table's order · null: no index",
                    "Index ±95% CI",
                ],
                width,
            )
        )
        return
    scaled = [None if v is None else v / 100 for v in index]
    scaled_pm = [None if p is None else p / 100 for p in index_pm]
    ticks = unit_ticks(scale_top(scaled + [v for t in TRACKS for v in means[t]]))
    null_y, row = _set_y(plt, ticks, height)
    slots = 1 + len(TRACKS) + 1  # I P S C O and a gap
    centre = [i * slots + 2.0 for i in range(n)]
    _points(plt, [c - 2 for c in centre], scaled, scaled_pm, "I", INDEX_COLOR, ticks[-1], null_y, row)
    for j, t in enumerate(TRACKS):
        _points(plt, [c - 1 + j for c in centre], means[t], pms[t], LETTERS[t], TRACK_COLORS[t], ticks[-1], null_y, row)
    budget = max((width - 6) // n - 1, 2)
    plt.xticks(centre, [short_label(m, budget) for m in models])
    plt.xlim(-1, n * slots - 1)
    plt.title(
        fit_title(
            [
                "I index/100 · P S C O track means · ±95% CI (if over a row) · null: no mean",
                "I index/100 · P S C O means · ±95% CI · null: no mean",
                "I P S C O ±95% CI",
            ],
            width,
        )
    )


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
    ticks = unit_ticks(1.0)
    plt.yticks(ticks, [tick_label(t) for t in ticks])
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


def draw_histogram(plt, labels: list[str], counts: list[int], shown: int, height: int = 12, width: int = 80) -> None:
    """Phi histogram of the rows shown (scored rows in bins, failures apart), integer count ticks."""
    xs = list(range(1, len(counts) + 1))
    plt.bar(xs[:-1], counts[:-1], color=INDEX_COLOR, width=0.8)
    plt.bar(xs[-1:], counts[-1:], color=TRACK_COLORS["construction"], width=0.8)  # failures, apart
    plt.xticks(xs, labels)
    ticks = count_ticks(max(counts, default=0), tick_budget(height))
    plt.yticks(ticks, [f"{t:,}" for t in ticks])
    plt.ylim(0, ticks[-1])
    plt.xlabel(
        fit_title(["Phi (bins over [0, 1]); fail = solver failures, scored 0", "Phi; fail = failures"], width - 8)
    )
    plt.ylabel("count")
    plt.title(fit_title([f"Phi of the {shown:,} instances shown", f"Phi, {shown:,} shown"], width))
