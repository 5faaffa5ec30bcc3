"""Leaderboard tables of index.json files (docs/commands.md#table, ``tcsexam table``).

Models are grouped by (suite, solver_protocol) — R3 never mixes Full with Lite nor online with
offline — and rendered in one of the registered formats (``FORMATS``: a class per format, registered
with ``table_format``). Every string a document holds reaches a table
through its format's ``text`` (docs/safety.md#tables-are-safe-to-paste). The dashboard's
Leaderboard shows the same groups and cells.
"""

from __future__ import annotations

import csv
import html
import io
import math
import re
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from tcsexam.scoring.errors import Problems
from tcsexam.scoring.reports.findings import model_warnings
from tcsexam.scoring.reports.index_file import _interval, _is_number
from tcsexam.scoring.reports.numbers import INDEX_DIGITS, NULL, PM, TRACK_DIGITS, half_width, number, with_half_width
from tcsexam.scoring.safety.terminal import escape_for_terminal
from tcsexam.scoring.vocab import NOT_RANKED_REASON, SCORE_RANGES, TRACK_LETTERS, TRACKS, rank_text

GROUP_ORDER = [("full", "offline"), ("full", "online"), ("lite", "offline"), ("lite", "online")]


NULL_LATEX = "--"


PROVISIONAL_MARK = "†"


WARNED_MARK = "‡"  # the model has warnings in its index.json (``findings.model_warnings``)


@dataclass
class Cell:
    """A value with its 95% interval (either may be missing)."""

    value: float | None
    lo: float | None
    hi: float | None

    @property
    def half_width(self) -> float | None:
        return half_width(self.lo, self.hi)


@dataclass
class Row:
    model: str
    status: str
    rank: tuple[int, int] | None
    index: Cell
    tracks: dict[str, Cell]
    complete: int
    total: int
    source: str
    warnings: int = 0  # the model's issues of kind warning in its index.json

    @property
    def provisional(self) -> bool:
        return self.status == "provisional"

    @property
    def beyond_range(self) -> bool:
        """An interval of the row reaches past the range its value lies in: below 0, or above 1 for
        a track bounded there (docs/rules.md#intervals: intervals are not clipped)."""
        cells = [(self.index, INDEX_RANGE), *((self.tracks[t], SCORE_RANGES[t]) for t in TRACKS)]
        return any(
            (c.lo is not None and c.lo < low) or (high is not None and c.hi is not None and c.hi > high)
            for c, (low, high) in cells
        )


# the index is a weighted sum of the track means with positive weights: at least 0, and with no
# upper bound, as construction has none
INDEX_RANGE: tuple[float, float | None] = (0.0, None)


@dataclass
class Group:
    suite: str
    protocol: str
    rows: list[Row]
    ranked: bool  # every document of the group carries a ranks block
    not_ranked: str | None = None  # why a document of the group has no ranks (its ``ranks.reason``)
    files: int = 1  # the index.json files its rows come from: each ranked its own models only

    @property
    def ranks_per_file(self) -> bool:
        """The group joins files whose ranks were computed, each over its own models (``joined_ranks``)."""
        return self.ranked and self.not_ranked is None and self.files > 1

    @property
    def title(self) -> str:
        return f"{self.suite} / {self.protocol}"


def rows_of(doc: dict, source: str) -> list[Row]:
    ranks = doc.get("ranks") if isinstance(doc.get("ranks"), dict) else None
    rank_models = ranks.get("models", {}) if ranks and isinstance(ranks.get("models"), dict) else {}
    rows = []
    for name, m in doc["models"].items():
        ci = m.get("ci") or {}
        lo, hi = _interval(ci.get("index"))
        tracks = {}
        for t in TRACKS:
            tlo, thi = _interval((ci.get("tracks") or {}).get(t))
            tracks[t] = Cell(m["track_means"].get(t), tlo, thi)
        tasks = m.get("tasks") or {}
        complete = sum(
            1 for t in tasks.values() if isinstance(t, dict) and t.get("status") in ("complete", "provisional")
        )
        r = rank_models.get(name)
        rank = (
            (int(r["best"]), int(r["worst"]))
            if isinstance(r, dict) and _is_number(r.get("best")) and _is_number(r.get("worst"))
            else None
        )
        warnings = model_warnings(m)
        rows.append(
            Row(name, m["status"], rank, Cell(m.get("index"), lo, hi), tracks, complete, len(tasks), source, warnings)
        )
    return rows


def group_key(key: tuple[str, str]) -> tuple:
    return (GROUP_ORDER.index(key), "", "") if key in GROUP_ORDER else (len(GROUP_ORDER), *key)


def build_groups(docs: list[tuple[str, dict]]) -> list[Group]:
    """docs/commands.md: one group per (suite, solver_protocol), in the order of docs/commands.md#table; a model in two files
    of one group is rejected; rows by index, highest first, null last (ties keep file order)."""
    problems = Problems()
    grouped: dict[tuple[str, str], list[Row]] = {}
    seen: dict[tuple[str, str, str], str] = {}
    ranked: dict[tuple[str, str], bool] = {}
    not_ranked: dict[tuple[str, str], str] = {}
    for source, doc in docs:
        key = (doc["suite"], doc["solver_protocol"])
        ranked[key] = ranked.get(key, True) and isinstance(doc.get("ranks"), dict)
        if ranked[key] and doc["ranks"].get("models") is None and doc["ranks"].get("reason") == NOT_RANKED_REASON:
            not_ranked.setdefault(key, NOT_RANKED_REASON)
        for row in rows_of(doc, source):
            first = seen.get((*key, row.model))
            if first is not None:
                problems.add(
                    source,
                    f"models.{row.model}",
                    "",
                    f"model '{row.model}' of group {key[0]}/{key[1]} is also in {first}: a group takes each model once",
                )
                continue
            seen[(*key, row.model)] = source
            grouped.setdefault(key, []).append(row)
    problems.raise_if_any()
    groups = []
    for key in sorted(grouped, key=group_key):
        rows = sorted(grouped[key], key=lambda r: (r.index.value is None, -(r.index.value or 0.0)))
        files = len({r.source for r in rows})
        groups.append(Group(key[0], key[1], rows, ranked[key], not_ranked.get(key), files))
    return groups


HEADER = ["rank", "model", "status", "index", *(TRACK_LETTERS[t] for t in TRACKS), "tasks"]
LEFT = ("model", "status")  # the columns of words, aligned left; the numbers right, in every format


def with_hw(cell: Cell, digits: int, pm: str, null: str = NULL) -> str:
    return with_half_width(cell.value, cell.half_width, digits, pm=pm, null=null)


def text_cells(
    row: Row,
    di: int,
    dt: int,
    pm: str,
    null: str,
    dash: str,
    mark: str,
    text: Callable[[str], str] = str,
    warned: str = " " + WARNED_MARK,
) -> list[str]:
    """The cells of a row; ``text`` writes the document's strings (model, status) as the format's
    text, ``pm``, ``null``, ``dash``, ``mark`` and ``warned`` are the format's own ±, missing value,
    rank dash, provisional mark and mark of a model with warnings (numbers and ranks are the tool's
    own and need no escaping)."""
    return [
        "" if row.rank is None else rank_text(*row.rank, dash),
        text(row.model) + (mark if row.provisional else "") + (warned if row.warnings else ""),
        text(row.status),
        with_hw(row.index, di, pm, null),
        *(with_hw(row.tracks[t], dt, pm, null) for t in TRACKS),
        f"{row.complete}/{row.total}",
    ]


# The legend every format prints with each table (docs/commands.md#table): {pm}, {dash}, {mark} and
# {warned} are the format's own ±, rank dash, provisional mark and mark of a model with warnings; the
# rest is text, written through the format's ``text``. The last two parts are said only of a table
# that has such a row.
LEGEND = (
    "{pm} is the half-width of the 95% t interval, clustered by task; "
    "rank best{dash}worst: the ranks not ruled out by paired t-tests with Holm's correction at 5%; "
    "{mark} provisional (some adopted attempt is selected_provisional)"
)
WARNED_LEGEND = "{warned} the model has warnings in its index.json (tcsexam validate lists them)"
BEYOND_LEGEND = "intervals are not clipped: one may reach below 0, or above 1 for P, S and O, the range of their scores"


def joined_ranks(g: Group) -> str:
    """What the ranks of a group joining files are (``tcsexam plot`` says it too): each file's own."""
    return (
        f"within each file's models (the group joins {g.files} index.json files; score the models as one run "
        "to rank them together)"
    )


def legend(text: Callable[[str], str], pm: str, dash: str, mark: str, g: Group, warned: str = WARNED_MARK) -> str:
    """The legend of group ``g``'s table in a format: ``LEGEND``, and the parts its rows call for,
    the words through ``text``, the symbols as the format's own."""
    parts = [LEGEND]
    parts += [f"ranks {joined_ranks(g)}"] if g.ranks_per_file else []
    parts += [WARNED_LEGEND] if any(r.warnings for r in g.rows) else []
    parts += [BEYOND_LEGEND] if any(r.beyond_range for r in g.rows) else []
    symbols = {"{pm}": pm, "{dash}": dash, "{mark}": mark, "{warned}": warned}
    return "".join(
        symbols[part] if part in symbols else text(part) for part in re.split(r"(\{\w+\})", "; ".join(parts))
    )


def footnotes(g: Group, marks: bool = False) -> list[str]:
    """The notes under a group's table; with ``marks``, what the marks of a row mean and that an
    interval may reach past the range of its scores (a table's legend says them; the dashboard's
    Leaderboard has no legend)."""
    notes = []
    if marks and any(r.provisional for r in g.rows):
        notes.append(f"{PROVISIONAL_MARK} provisional: some adopted attempt is selected_provisional.")
    if marks and any(r.warnings for r in g.rows):
        notes.append(WARNED_LEGEND.format(warned=WARNED_MARK) + ".")
    if marks and any(r.beyond_range for r in g.rows):
        notes.append(f"{BEYOND_LEGEND[0].upper()}{BEYOND_LEGEND[1:]}.")
    if marks and g.ranks_per_file:
        notes.append(f"Ranks {joined_ranks(g)}.")
    if not g.ranked:
        notes.append("rank: not in the index.json (no ranks block).")
    elif g.not_ranked is not None:
        notes.append(f"rank: not computed ({g.not_ranked}).")
    return notes + ([""] if notes else [])


class TableFormat(ABC):
    """One output of ``tcsexam table`` (docs/architecture.md#where-to-add): ``name`` on the command
    line, ``label`` in the dashboard, ``clipboard`` when the dashboard offers to copy it. ``text``
    writes any string of a document (a name, a status, a suite, a file name) as this format's
    literal text, inert for the program that reads it (docs/safety.md#tables-are-safe-to-paste);
    ``render`` writes the groups' tables, every document string through ``text``."""

    name: ClassVar[str]
    label: ClassVar[str]
    clipboard: ClassVar[bool] = False

    @abstractmethod
    def text(self, s: str) -> str: ...

    @abstractmethod
    def render(self, groups: list[Group], di: int, dt: int) -> str: ...


FORMATS: dict[str, TableFormat] = {}


def table_format(cls: type[TableFormat]) -> type[TableFormat]:
    """Register a format under its name (its one instance): the command line's ``--format``
    choices, ``render_table``, the dashboard's copy commands and the tests all read ``FORMATS``."""
    FORMATS[cls.name] = cls()
    return cls


# markdown: a backslash before what markdown acts on inside a line (emphasis, code, links,
# strikethrough, math, the cell's |), entities for raw HTML's < > &
MARKDOWN_SPECIAL = {c: "\\" + c for c in "\\`*_[]~|$"} | {"<": "&lt;", ">": "&gt;", "&": "&amp;"}


@table_format
class Markdown(TableFormat):
    """A pipe table per group (GitHub's and markdown-it's tables)."""

    name, label, clipboard = "markdown", "Markdown", True

    def text(self, s: str) -> str:
        return "".join(MARKDOWN_SPECIAL.get(c, c) for c in escape_for_terminal(s))

    def render(self, groups: list[Group], di: int, dt: int) -> str:
        out = []
        for g in groups:
            out.append(f"### {self.text(g.suite)} / {self.text(g.protocol)}\n")
            out.append("| " + " | ".join(HEADER) + " |")
            out.append("|" + "|".join(":---" if h in LEFT else "---:" for h in HEADER) + "|")
            for row in g.rows:
                cells = text_cells(row, di, dt, PM, NULL, "–", " " + PROVISIONAL_MARK, self.text)
                out.append("| " + " | ".join(cells) + " |")
            out += ["", legend(self.text, PM.strip(), "–", PROVISIONAL_MARK, g), ""]
            out.extend(footnotes(g))
        return "\n".join(out).rstrip("\n") + "\n"


LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}
# Greek letters as math letters, which every engine sets without a package (pdflatex has no Greek
# text font by default); a capital that LaTeX has no command for looks like its Latin letter
_SMALL = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi o pi rho varsigma sigma tau upsilon phi chi psi omega"
_CAPITAL = "A B Gamma Delta E Z H Theta I K Lambda M N Xi O Pi P - Sigma T Upsilon Phi X Psi Omega"
LATEX_GREEK = {
    chr(first + k): (rf"\ensuremath{{\{word}}}" if len(word) > 1 else word)
    for first, words in ((0x3B1, _SMALL), (0x391, _CAPITAL))
    for k, word in enumerate(words.split())
    if word != "-"
}


def latex_escape(text: str) -> str:
    """A string as LaTeX text: control characters escaped as on a terminal, every character TeX
    acts on written as the command that prints it, Greek letters as math letters; other non-ASCII
    stays UTF-8 (docs/commands.md#table says which engine sets which)."""
    return "".join(LATEX_SPECIAL.get(c) or LATEX_GREEK.get(c) or c for c in escape_for_terminal(text))


@table_format
class Latex(TableFormat):
    """A ``tabular`` per group with booktabs rules, ``$\\pm$``, ASCII minus, ``--`` for null."""

    name, label, clipboard = "latex", "LaTeX", True

    def text(self, s: str) -> str:
        return latex_escape(s)

    def render(self, groups: list[Group], di: int, dt: int) -> str:
        out = ["% requires \\usepackage{booktabs}"]
        for g in groups:
            title = f"{self.text(g.suite)} / {self.text(g.protocol)}"  # its one place: the first row
            out.append(r"\begin{tabular}{" + "".join("l" if h in LEFT else "r" for h in HEADER) + "}")
            out.append(r"\toprule")
            out.append(r"\multicolumn{9}{l}{" + title + r"} \\")
            out.append(r"\midrule")
            out.append(" & ".join(HEADER) + r" \\")
            out.append(r"\midrule")
            for row in g.rows:
                cells = text_cells(
                    row, di, dt, r"${}\pm{}$", NULL_LATEX, "--", r"$^\dagger$", self.text, r"$^\ddagger$"
                )
                out.append(" & ".join(cells) + r" \\")
            out.append(r"\bottomrule")
            out.append(r"\end{tabular}")
            out.append(
                r"\par\smallskip{\footnotesize "
                + legend(self.text, r"$\pm$", "--", r"$^\dagger$", g, r"$^\ddagger$")
                + r"\par}"
            )
            out.extend("% " + self.text(note) for note in footnotes(g) if note)
            out.append("")
        return "\n".join(out).rstrip("\n") + "\n"


# a cell a spreadsheet would run as a formula begins with one of these (OWASP, CSV injection);
# tab and CR cannot begin a cell here: control characters are escaped first
_FORMULA = re.compile(r"(?:^|(?<=;))(?=[=+\-@])")


def csv_text(text: str) -> str:
    """A text cell a spreadsheet shows as text: control characters escaped as on a terminal, and a
    ``'`` before a cell that begins like a formula (``=``, ``+``, ``-``, ``@``), or before such a
    part after a ``;`` (the separator of spreadsheets in some locales)."""
    return _FORMULA.sub("'", escape_for_terminal(text))


@table_format
class Csv(TableFormat):
    """One row per model, unrounded, value, lo and hi columns. Text cells are quoted and inert;
    number cells are bare numbers (a negative number stays a number)."""

    name, label = "csv", "CSV"

    def text(self, s: str) -> str:
        return csv_text(s)

    def render(self, groups: list[Group], di: int, dt: int) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)  # numbers are int/float
        cols = ["suite", "solver_protocol", "rank_best", "rank_worst", "model", "status", "provisional", "warnings"]
        cols += ["index", "index_ci95_lo", "index_ci95_hi"]  # the names say what the interval is
        for t in TRACKS:
            cols += [TRACK_LETTERS[t], f"{TRACK_LETTERS[t]}_ci95_lo", f"{TRACK_LETTERS[t]}_ci95_hi"]
        buf.write(",".join([*cols, "tasks_complete", "tasks_total", "source"]) + "\n")  # plain names, unquoted

        def r(x: float | None) -> float | str:  # unrounded: the shortest decimal that reads back as the same double
            return "" if x is None else float(x)

        for g in groups:
            for row in g.rows:
                line: list[object] = [self.text(g.suite), self.text(g.protocol)]
                line += [row.rank[0], row.rank[1]] if row.rank else ["", ""]
                line += [self.text(row.model), self.text(row.status), "true" if row.provisional else "false"]
                line += [row.warnings]
                line += [r(row.index.value), r(row.index.lo), r(row.index.hi)]
                for t in TRACKS:
                    c = row.tracks[t]
                    line += [r(c.value), r(c.lo), r(c.hi)]
                w.writerow(line + [row.complete, row.total, self.text(row.source)])
        return buf.getvalue()


CHART_TICKS = 10  # at most this many grid lines per chart, whatever the values


def tick_step(lo: float, hi: float, ticks: int = CHART_TICKS) -> float:
    """The chart's grid step: the smallest 1, 2 or 5 times a power of ten that covers lo..hi in at
    most ``ticks`` - 1 steps (lo < hi, both finite; halves keep the span finite)."""
    raw = (hi / 2 - lo / 2) / ((ticks - 1) / 2)
    power = 10.0 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def tick_label(v: float) -> str:
    return number(v, 0) if abs(v) < 1e6 else f"{v:.3g}"


def chart_svg(g: Group, di: int, text: Callable[[str], str]) -> str:
    """Per group: each model's index as a dot with its 95% interval as a bar (inline SVG); its work
    is bounded for any finite values (at most CHART_TICKS grid lines)."""
    rows = [r for r in g.rows if r.index.value is not None]
    left_out = [r.model for r in g.rows if r.index.value is None]
    caption = (
        '<p class="caption">Index (points) of each model, with its 95% interval where it has one.'
        + (f" No index (not charted): {', '.join(text(m) for m in left_out)}." if left_out else "")
        + "</p>"
    )
    if not rows:
        return caption
    values = [v for r in rows for v in (r.index.value, r.index.lo, r.index.hi) if v is not None]
    lo, hi = min(0.0, *values), max(100.0, *values)
    left, width, step = 200, 560, 28
    height = 30 + step * len(rows)

    def x(v: float) -> float:
        return left + (v / 2 - lo / 2) / (hi / 2 - lo / 2) * width

    title = f"{text(g.suite)} / {text(g.protocol)}"
    parts = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 90}" height="{height + 20}" '
            f'role="img" aria-label="index of each model with its 95% interval, {title}">'
        )
    ]
    grid = tick_step(lo, hi)
    for k in range(math.ceil(lo / grid), math.floor(hi / grid) + 1):
        tick = k * grid
        parts.append(
            f'<line x1="{x(tick):.1f}" y1="10" x2="{x(tick):.1f}" y2="{height}" class="grid"/>'
            f'<text x="{x(tick):.1f}" y="{height + 15}" class="tick">{tick_label(tick)}</text>'
        )
    for k, r in enumerate(rows):
        assert r.index.value is not None  # rows are the charted ones
        y = 25 + step * k
        label = (
            text(r.model)
            + (" " + PROVISIONAL_MARK if r.provisional else "")
            + (" " + WARNED_MARK if r.warnings else "")
        )
        parts.append(f'<text x="{left - 8}" y="{y + 4}" class="label">{label}</text>')
        if r.index.lo is not None and r.index.hi is not None:
            parts.append(f'<line x1="{x(r.index.lo):.1f}" y1="{y}" x2="{x(r.index.hi):.1f}" y2="{y}" class="ci"/>')
        parts.append(
            f'<circle cx="{x(r.index.value):.1f}" cy="{y}" r="5" class="dot"/>'
            f'<text x="{left + width + 8}" y="{y + 4}" class="value">{with_hw(r.index, di, PM)}</text>'
        )
    parts.append("</svg>")
    return caption + "".join(parts)


HTML_STYLE = """
body { font-family: sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { padding: 0.3em 0.8em; border-bottom: 1px solid #ccc; text-align: right; }
td.l, th.l { text-align: left; }
caption { caption-side: bottom; text-align: left; font-size: 0.85em; color: #555; padding-top: 0.4em; }
thead th { border-bottom: 2px solid #222; }
svg .grid { stroke: #ddd; } svg .tick { font-size: 11px; text-anchor: middle; fill: #555; }
svg .label { font-size: 13px; text-anchor: end; } svg .value { font-size: 12px; }
svg .ci { stroke: #36c; stroke-width: 3; } svg .dot { fill: #c33; }
"""


@table_format
class Html(TableFormat):
    """One self-contained page: the tables and, per group, a chart of each model's index."""

    name, label = "html", "HTML"

    def text(self, s: str) -> str:
        return html.escape(escape_for_terminal(s))

    def render(self, groups: list[Group], di: int, dt: int) -> str:
        out = [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            "<title>TCSExam leaderboard</title>",
            f"<style>{HTML_STYLE}</style></head><body>",
            "<h1>TCSExam leaderboard</h1>",
        ]
        for g in groups:
            out.append(f"<h2>{self.text(g.suite)} / {self.text(g.protocol)}</h2>")
            out.append(
                f"<table><caption>{legend(self.text, PM.strip(), '–', PROVISIONAL_MARK, g)}</caption><thead><tr>"
                + "".join(f'<th class="{"l" if h in LEFT else ""}">{h}</th>' for h in HEADER)
                + "</tr></thead><tbody>"
            )
            for row in g.rows:
                cells = text_cells(row, di, dt, PM, NULL, "–", " " + PROVISIONAL_MARK, self.text)
                out.append(
                    "<tr>"
                    + "".join(f'<td class="{"l" if k in (1, 2) else ""}">{c}</td>' for k, c in enumerate(cells))
                    + "</tr>"
                )
            out.append("</tbody></table>")
            out.extend(f"<p>{html.escape(n)}</p>" for n in footnotes(g) if n)
            out.append(chart_svg(g, di, self.text))
        out.append("</body></html>")
        return "\n".join(out) + "\n"


def render_table(docs: list[tuple[str, dict]], fmt: str = "markdown", digits: int | None = None) -> str:
    """The table (docs/commands.md#table) of the given (source name, index.json) documents in the
    registered format ``fmt``; an unknown name is a ValueError (the command line offers only
    ``FORMATS``)."""
    form = FORMATS.get(fmt)
    if form is None:
        raise ValueError(f"no table format {fmt!r}; the formats are {', '.join(FORMATS)}")
    groups = build_groups(docs)
    di, dt = (INDEX_DIGITS, TRACK_DIGITS) if digits is None else (digits, digits)
    return form.render(groups, di, dt)
