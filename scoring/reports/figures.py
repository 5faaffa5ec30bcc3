"""The paper's figures of index.json documents (docs/commands.md#plot, ``tcsexam plot``).

``build_figure`` turns documents into a matplotlib ``Figure`` of one kind (``KINDS``) and
``figure_bytes`` writes it as PDF, SVG or PNG. Both build on matplotlib's object API (``Figure``,
no pyplot state) and import matplotlib only when called: it is the optional extra ``plot``.

Every name a document holds is data (docs/safety.md#names-are-data-never-paths): control and
invisible characters escaped as on a terminal, long names shortened in the middle, and every text
drawn with mathtext off, so a ``$`` stays a ``$``. The rows of models are those of ``tcsexam
table`` (``table.build_groups``: by index, highest first, one suite and protocol).
"""

from __future__ import annotations

import io
import re
import textwrap
import warnings
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from tcsexam.scoring.errors import InputError, Problem
from tcsexam.scoring.grammar import counted
from tcsexam.scoring.reports.compare import compare_models
from tcsexam.scoring.reports.table import Group, Row, build_groups
from tcsexam.scoring.safety.terminal import escape_for_terminal
from tcsexam.scoring.vocab import TRACK_LETTERS, TRACKS, WEIGHTS, rank_text

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

KINDS = ("forest", "tracks", "passk", "compare")
SUFFIXES = (".pdf", ".svg", ".png")
WIDTHS = {"column": 3.3, "full": 7.0}  # inches: a LaTeX column and the full text width of a two-column paper
MOST_ROWS = {"forest": 60, "tracks": 60, "passk": 6, "compare": 40}  # models (compare: tasks) drawn, the top ones
NAME_CHARS = {"column": 22, "full": 40}  # a longer name is shortened in the middle
NOTE_CHARS = {"column": 52, "full": 110}  # a note's line
ROW_INCHES = 0.16  # one model (or task) row
FONT_POINTS = 7
PNG_DPI = 300
TIED_MARK = "★"
PROVISIONAL_MARK = "†"
TRACK_COLOURS = {"theorem": "#1f77b4", "solver": "#d62728", "construction": "#2ca02c", "conjecture": "#9467bd"}
STYLE: dict[Any, Any] = {
    "pdf.fonttype": 42,  # TrueType fonts, embedded whole (FontFile2): what journals ask for
    "ps.fonttype": 42,
    "svg.fonttype": "none",  # SVG keeps text as text: searchable, editable, drawn in the reader's font
    "svg.hashsalt": "tcsexam",  # the same figure gives the same file
    "text.usetex": False,
    "text.parse_math": False,
    "font.family": "DejaVu Sans",  # ships with matplotlib: the same metrics everywhere
    "font.size": FONT_POINTS,
    "axes.titlesize": FONT_POINTS,
    "figure.labelsize": FONT_POINTS,
    "figure.titlesize": FONT_POINTS,
    "axes.labelsize": FONT_POINTS,
    "xtick.labelsize": FONT_POINTS - 1,
    "ytick.labelsize": FONT_POINTS - 1,
    "legend.fontsize": FONT_POINTS - 1,
    "axes.linewidth": 0.6,
    "lines.linewidth": 1.0,
}
MISSING_GLYPH = re.compile(r"Glyph (\d+) .*missing from font")  # matplotlib's warning
METADATA = {".pdf": {"CreationDate": None}, ".svg": {"Date": None}, ".png": {}}


def shown_name(name: str, chars: int) -> str:
    """A name as a figure shows it: escaped (docs/safety.md), and when longer than ``chars``,
    its start and end with ``…`` between them."""
    text = escape_for_terminal(name)
    if len(text) <= chars:
        return text
    head = chars // 2
    tail = chars - 1 - head
    return text[:head] + "…" + (text[-tail:] if tail else "")


@contextmanager
def figure_style():
    """matplotlib's settings for every figure: embedded TrueType fonts in PDF, no mathtext, 7 pt."""
    import matplotlib as mpl

    with mpl.rc_context(STYLE):
        yield


def build_figure(
    docs: list[tuple[str, dict]], kind: str, width: str = "column", models: tuple[str, str] | None = None
) -> Figure:
    """The figure ``kind`` of the index.json documents ``docs`` ((file, document) pairs, all of one
    suite and protocol), ``width`` one of ``WIDTHS``; ``models`` the pair of ``compare``."""
    with figure_style():
        if kind == "compare":
            if models is None or len(docs) != 1:
                raise ValueError("compare takes one document and two models")
            return compare_figure(docs[0], models, width)
        group = one_group(docs)
        return {"forest": forest_figure, "tracks": tracks_figure, "passk": passk_figure}[kind](group, docs, width)


def figure_bytes(fig: Figure, suffix: str, missing: list[str] | None = None) -> bytes:
    """``fig`` as a PDF, SVG or PNG file's bytes (``suffix`` one of ``SUFFIXES``). The characters
    that the font has no glyph for (drawn as boxes) go to ``missing``, in the order met, instead
    of matplotlib's warnings."""
    out = io.BytesIO()
    with figure_style(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig.savefig(out, format=suffix[1:], dpi=PNG_DPI, metadata=METADATA[suffix])
    for w in caught:
        glyph = MISSING_GLYPH.search(str(w.message))
        if glyph is None:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        elif missing is not None and chr(int(glyph.group(1))) not in missing:
            missing.append(chr(int(glyph.group(1))))
    return out.getvalue()


def one_group(docs: list[tuple[str, dict]]) -> Group:
    """The documents' models as one group of ``table`` (docs/commands.md#table); documents of
    another suite or protocol than the first are refused: one figure never mixes them."""
    first_file, first = docs[0]
    key = (first["suite"], first["solver_protocol"])
    problems = [
        Problem(
            file,
            "",
            "suite" if doc["suite"] != key[0] else "solver_protocol",
            f"is {doc['suite']}/{doc['solver_protocol']}, {first_file} is {key[0]}/{key[1]}: "
            "a figure shows one suite and one solver protocol (draw one figure per file)",
        )
        for file, doc in docs[1:]
        if (doc["suite"], doc["solver_protocol"]) != key
    ]
    if problems:
        raise InputError(problems)
    (group,) = build_groups(docs)
    return group


def new_figure(width: str, rows: float, extra_inches: float) -> Figure:
    from matplotlib.figure import Figure

    return Figure(figsize=(WIDTHS[width], rows * ROW_INCHES + extra_inches), layout="constrained")


def capped(rows: list, kind: str) -> tuple[list, int]:
    """The first ``MOST_ROWS[kind]`` rows, and how many are left out."""
    most = MOST_ROWS[kind]
    return rows[:most], max(0, len(rows) - most)


def provisional_note(rows: list[Row]) -> list[str]:
    """What the mark beside a provisional model's name means, when one is drawn."""
    return [f"{PROVISIONAL_MARK} provisional"] if any(r.provisional for r in rows) else []


def left_out_note(left: int, what: str, kind: str) -> list[str]:
    return [f"{counted(left, 'more ' + what)} not shown (the top {MOST_ROWS[kind]} are)"] if left else []


def note_text(lines: list[str], width: str) -> str:
    return "\n".join(textwrap.fill(line, NOTE_CHARS[width]) for line in lines)


def label_rows(ax: Axes, labels: list[str], x: float = -0.03, gid: str = "label") -> None:
    """One text per row at the left of ``ax`` (rows at y = 0, 1, ...), never mathtext."""
    for y, label in enumerate(labels):
        ax.text(x, y, label, transform=ax.get_yaxis_transform(), ha="right", va="center", parse_math=False, gid=gid)


def row_axes(ax: Axes, n: int) -> None:
    """``ax`` with ``n`` rows, the first at the top (an axes without rows keeps the place of one)."""
    ax.set_ylim(max(n, 1) - 0.5, -0.5)
    ax.set_yticks([])
    ax.grid(axis="x", linewidth=0.3, color="#cccccc")
    ax.set_axisbelow(True)


def model_label(row: Row, width: str) -> str:
    return shown_name(row.model, NAME_CHARS[width]) + (" " + PROVISIONAL_MARK if row.provisional else "")


def no_index_reason(doc: dict) -> str:
    """Why a model has no index: its status, and its tasks without a mean."""
    tasks = doc.get("tasks") or {}
    without = sum(1 for t in tasks.values() if t.get("mean") is None)
    return f"no index: {doc['status']}, {without} of {counted(len(tasks), 'task')} without a result"


def model_doc(docs: list[tuple[str, dict]], row: Row) -> dict:
    return next(doc for file, doc in docs if file == row.source)["models"][row.model]


def errorbars(ax: Axes, xs, ys, los, his, colour: str = "black", gid: str = "interval") -> None:
    """Points at (xs, ys), with a 95% interval [lo, hi] where both ends are known."""
    with_ci = [
        (x, y, lo, hi) for x, y, lo, hi in zip(xs, ys, los, his, strict=True) if lo is not None and hi is not None
    ]
    without = [(x, y) for x, y, lo, hi in zip(xs, ys, los, his, strict=True) if lo is None or hi is None]
    if with_ci:
        x, y, lo, hi = (list(c) for c in zip(*with_ci, strict=True))
        container = ax.errorbar(
            x,
            y,
            xerr=[[a - b for a, b in zip(x, lo, strict=True)], [b - a for a, b in zip(x, hi, strict=True)]],
            fmt="o",
            markersize=3,
            color=colour,
            elinewidth=0.9,
            capsize=0,
        )
        container.lines[0].set_gid(gid)  # the points; lines[2] holds the intervals' segments
        for segments in container.lines[2]:
            segments.set_gid(gid)
    if without:
        x, y = (list(c) for c in zip(*without, strict=True))
        ax.plot(x, y, "o", markersize=3, color=colour, gid=gid + "-point")


def forest_figure(group: Group, docs: list[tuple[str, dict]], width: str) -> Figure:
    """docs/commands.md#plot forest: each model's index and 95% interval, highest first, its rank
    interval beside it (★: the top group holds more than one model); models without an index below,
    with the reason."""
    rows, apart, left = forest_rows(group)
    tied = tied_sources(group.rows)
    fig = new_figure(width, len(rows) + 1.2 * len(apart), 0.85)
    ax = fig.add_subplot()
    row_axes(ax, len(rows))
    label_rows(ax, [model_label(r, width) for r in rows])
    errorbars(
        ax,
        [r.index.value for r in rows],
        list(range(len(rows))),
        [r.index.lo for r in rows],
        [r.index.hi for r in rows],
    )
    if group.ranked and rows:
        rank_column(ax, rows, tied)
    if rows:
        ax.set_xlabel("Index (points), 95% interval")
    else:
        ax.set_axis_off()
    notes = [f"{model_label(r, width)}: {no_index_reason(model_doc(docs, r))}" for r in apart]
    if group.not_ranked:
        notes.append(f"ranks not computed: {group.not_ranked}")
    elif group.ranks_per_file:
        notes.append("ranks within each file's models")
    if tied:
        notes.append(f"{TIED_MARK} rank 1 shared: not separated from each other")
    notes += provisional_note(rows)
    fig.supxlabel(note_text(notes + left_out_note(left, "model", "forest"), width), parse_math=False, gid="notes")
    return fig


def forest_rows(group: Group) -> tuple[list[Row], list[Row], int]:
    """The models drawn (with an index), those listed apart (without), and how many are left out:
    at most ``MOST_ROWS["forest"]`` in all, those with an index first."""
    indexed = [r for r in group.rows if r.index.value is not None]
    shown, left = capped(indexed + [r for r in group.rows if r.index.value is None], "forest")
    return shown[: len(indexed)], shown[len(indexed) :], left


def tied_sources(rows: list[Row]) -> set[str]:
    """The files whose first rank is shared: more than one of their models has best rank 1 (ranks are
    those of each file's own models, docs/rules.md#ranks)."""
    firsts = [r.source for r in rows if r.rank is not None and r.rank[0] == 1]
    return {source for source in firsts if firsts.count(source) > 1}


def rank_column(ax: Axes, rows: list[Row], tied: set[str]) -> None:
    """Each row's rank interval at the right of ``ax`` (docs/rules.md#ranks), ★ on the models of a
    shared first rank."""
    ax.text(1.03, -0.5, "rank", transform=ax.get_yaxis_transform(), va="bottom", gid="rank-header")
    for y, r in enumerate(rows):
        if r.rank is not None:
            mark = f" {TIED_MARK}" if r.source in tied and r.rank[0] == 1 else ""
            ax.text(1.03, y, rank_text(*r.rank) + mark, transform=ax.get_yaxis_transform(), va="center", gid="rank")


def tracks_figure(group: Group, docs: list[tuple[str, dict]], width: str) -> Figure:
    """docs/commands.md#plot tracks: one panel per track, each model's track mean and its 95% interval,
    models in the order of the forest."""
    rows, left = capped(group.rows, "tracks")
    fig = new_figure(width, len(rows), 0.85)
    axes = fig.subplots(1, len(TRACKS), sharey=True)
    for ax, track in zip(axes, TRACKS, strict=True):
        row_axes(ax, len(rows))
        cells = [r.tracks[track] for r in rows]
        ys = [y for y, c in enumerate(cells) if c.value is not None]
        errorbars(
            ax,
            [cells[y].value for y in ys],
            ys,
            [cells[y].lo for y in ys],
            [cells[y].hi for y in ys],
            colour=TRACK_COLOURS[track],
            gid=f"interval-{track}",
        )
        ax.set_title(TRACK_LETTERS[track] if width == "column" else f"{TRACK_LETTERS[track]} {track}")
        # narrow panels at column width: two ticks, which never run together
        ax.xaxis.set_major_locator(max_ticks(3 if width == "full" else 2))
    label_rows(axes[0], [model_label(r, width) for r in rows], x=-0.08)
    notes = ["Track mean, 95% interval; no point: the track has no mean"]
    if width == "column":
        notes.append(", ".join(f"{TRACK_LETTERS[t]} {t}" for t in TRACKS))
    notes += provisional_note(rows)
    fig.supxlabel(note_text(notes + left_out_note(left, "model", "tracks"), width), parse_math=False, gid="notes")
    return fig


def max_ticks(n: int):
    from matplotlib.ticker import MaxNLocator

    return MaxNLocator(n, min_n_ticks=2)


def tasks_at(model: dict, track: str, k: int) -> int:
    """The tasks of ``track`` that pass^k at ``k`` averages over: those with k valid attempts or more
    (docs/rules.md#passk)."""
    return sum(1 for t in (model.get("tasks") or {}).values() if t.get("track") == track and t.get("valid", 0) >= k)


def most_k(docs: list[tuple[str, dict]], rows: list[Row]) -> int:
    """The largest k of any pass^k drawn."""
    return max(
        (
            int(k)
            for r in rows
            for p in (model_doc(docs, r).get("pass_hat_k") or {}).values()
            for k in p.get("by_k", {})
        ),
        default=1,
    )


PASSK_MARKERS = "os^Dvp"  # one a model (at most MOST_ROWS['passk']): models with equal values tell apart in grey too
PASSK_APART = 0.12  # the sideways step between two models' points at one k, in units of k


def passk_offset(n: int, count: int) -> float:
    """How far sideways of its k the ``n``-th of ``count`` models' points are drawn: centred on k, one
    PASSK_APART apart, so that models with the same pass^k (every one passes at k = 1, say) do not
    hide each other."""
    return (n - (count - 1) / 2) * PASSK_APART


def passk_figure(group: Group, docs: list[tuple[str, dict]], width: str) -> Figure:
    """docs/commands.md#plot passk: one panel per track, pass^k against k for each model, each point
    with the number of tasks it averages over."""
    rows, left = capped(group.rows, "passk")
    fig = new_figure(width, 0, 2.9 + 0.12 * len(rows))
    axes = fig.subplots(2, 2, sharex=True, sharey=True).flatten()
    for ax, track in zip(axes, TRACKS, strict=True):
        ax.set_title(f"{TRACK_LETTERS[track]} {track}", parse_math=False)
        ax.set_ylim(-0.05, 1.15)
        ax.set_xlim(0.6, max(2, most_k(docs, rows)) + 0.5)
        ax.grid(linewidth=0.3, color="#cccccc")
        ax.xaxis.set_major_locator(max_ticks(6))
        ax.xaxis.get_major_locator().set_params(integer=True)
    for n, r in enumerate(rows):
        model = model_doc(docs, r)
        apart = passk_offset(n, len(rows))
        for ax, track in zip(axes, TRACKS, strict=True):
            by_k = (model.get("pass_hat_k") or {}).get(track, {}).get("by_k", {})
            ks = sorted(int(k) for k in by_k)
            values = [by_k[str(k)] for k in ks]
            at = [k + apart for k in ks]
            marker = PASSK_MARKERS[n % len(PASSK_MARKERS)]
            (line,) = ax.plot(at, values, f"{marker}-", markersize=3, color=f"C{n}", gid="passk")
            if ax is axes[0]:
                line.set_label(model_label(r, width))
            for x, k, v in zip(at, ks, values, strict=True):
                ax.annotate(
                    str(tasks_at(model, track, k)),
                    (x, v),
                    xytext=(2, 2),
                    textcoords="offset points",
                    fontsize=FONT_POINTS - 2,
                    color=f"C{n}",
                    parse_math=False,
                    gid="tasks-at-k",
                )
    legend = fig.legend(loc="outside upper center", ncols=2 if width == "column" else 3, frameon=False)
    for text in legend.get_texts():
        text.set_parse_math(False)
    notes = ["pass^k against k; beside each point: the tasks with k valid attempts or more"]
    if len(rows) > 1:
        notes.append("the models' points at each k are set apart sideways, so that equal values stay apart")
    notes += provisional_note(rows)
    fig.supxlabel(note_text(notes + left_out_note(left, "model", "passk"), width), parse_math=False, gid="notes")
    return fig


def compare_rows(result: dict) -> tuple[list[tuple[str, str | None, float | None, float | None, float | None]], list]:
    """The compare figure's summary rows (label, track or None, value, lo, hi) in index points (a track:
    its weight times the mean difference, its part of the index difference), and its tasks as
    (item, track, part of the index difference: weight × difference ÷ the track's common tasks),
    largest part first (docs/commands.md#plot)."""
    idx = result["index"]
    summary: list[tuple[str, str | None, float | None, float | None, float | None]] = []
    if idx is not None:
        summary.append(("Index", None, idx["value"], idx["lo"], idx["hi"]))
    for t in TRACKS:
        r = result["tracks"].get(t)
        if r is not None:
            w = WEIGHTS[t]
            lo, hi = (None, None) if r["lo"] is None else (w * r["lo"], w * r["hi"])
            summary.append((f"{TRACK_LETTERS[t]} {t} ({counted(r['m'], 'task')})", t, w * r["mean"], lo, hi))
    parts = [(task.item, task.track, task.contribution) for task in result["tasks"]]
    parts.sort(key=lambda p: -abs(p[2]))  # stable: ties keep suite order
    return summary, parts


def compare_figure(doc: tuple[str, dict], models: tuple[str, str], width: str) -> Figure:
    """docs/commands.md#plot compare: the paired difference A − B (docs/rules.md#per-task-differences)
    of the index and each track with their 95% intervals, then each task's part of it, largest first."""
    a, b = models
    result = compare_models(doc[1], a, b)
    summary, parts = compare_rows(result)
    tasks, left = capped(parts, "compare")
    n = len(summary) + len(tasks)
    fig = new_figure(width, n, 1.0)
    ax = fig.add_subplot()
    row_axes(ax, n)
    ax.axvline(0, color="#666666", linewidth=0.6)
    for y, (_, track, value, lo, hi) in enumerate(summary):
        errorbars(ax, [value], [y], [lo], [hi], colour="black" if track is None else TRACK_COLOURS[track])
    for y, (_, track, part) in enumerate(tasks, start=len(summary)):
        ax.plot([0, part], [y, y], color=TRACK_COLOURS[track], linewidth=2.2, solid_capstyle="butt", gid="task-part")
    if tasks:
        ax.axhline(len(summary) - 0.5, color="#999999", linewidth=0.5, linestyle="--")
    chars = NAME_CHARS[width]
    labels = [label for label, *_ in summary] + [
        f"{TRACK_LETTERS[track]} {shown_name(item, chars)}" for item, track, _ in tasks
    ]
    label_rows(ax, labels)
    ax.set_title(f"{shown_name(a, chars)} − {shown_name(b, chars)}", parse_math=False)
    ax.set_xlabel("Index points, 95% interval")
    notes = ["A task's bar: its part of the index difference (weight × difference ÷ the track's tasks)"]
    for model, items in result["incomplete"].items():
        notes.append(
            f"{shown_name(model, chars)} is incomplete: {counted(len(items), 'task')} left out, "
            f"a difference over the {counted(len(result['tasks']), 'task')} both scored"
        )
    notes += left_out_note(left, "task", "compare")
    fig.supxlabel(note_text(notes, width), parse_math=False, gid="notes")
    return fig
