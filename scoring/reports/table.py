"""Leaderboard tables of index.json files (SPEC section 11, ``tcsexam table``).

Models are grouped by (suite, solver_protocol) — R3 never mixes Full with Lite nor online with
offline — and rendered as markdown, LaTeX (booktabs), CSV (unrounded) or one self-contained HTML
file. The dashboard's Leaderboard shows the same groups and cells.
"""

from __future__ import annotations

import csv
import html
import io
import math
from collections.abc import Callable
from dataclasses import dataclass

from scoring.errors import Problems
from scoring.reports.index_file import _interval, _is_number
from scoring.safety.terminal import escape_for_terminal
from scoring.vocab import NOT_RANKED_REASON, TRACK_LETTERS, TRACKS, rank_text

GROUP_ORDER = [("full", "offline"), ("full", "online"), ("lite", "offline"), ("lite", "online")]


NULL, NULL_LATEX = "—", "--"


PROVISIONAL_MARK = "†"


@dataclass
class Cell:
    """A value with its 95% interval (either may be missing)."""

    value: float | None
    lo: float | None
    hi: float | None

    @property
    def half_width(self) -> float | None:
        return None if self.lo is None or self.hi is None else (self.hi - self.lo) / 2


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

    @property
    def provisional(self) -> bool:
        return self.status == "provisional"


@dataclass
class Group:
    suite: str
    protocol: str
    rows: list[Row]
    ranked: bool  # every document of the group carries a ranks block
    not_ranked: str | None = None  # why a document of the group has no ranks (its ``ranks.reason``)

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
        rows.append(Row(name, m["status"], rank, Cell(m.get("index"), lo, hi), tracks, complete, len(tasks), source))
    return rows


def group_key(key: tuple[str, str]) -> tuple:
    return (GROUP_ORDER.index(key), "", "") if key in GROUP_ORDER else (len(GROUP_ORDER), *key)


def build_groups(docs: list[tuple[str, dict]]) -> list[Group]:
    """SPEC 11: one group per (suite, solver_protocol), in the SPEC's order; a model in two files
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
        groups.append(Group(key[0], key[1], rows, ranked[key], not_ranked.get(key)))
    return groups


def number(x: float | None, digits: int, null: str = NULL) -> str:
    if x is None:
        return null
    text = f"{x:.{digits}f}"
    return "0" + text[2:] if text.startswith("-0") and float(text) == 0 else text  # never "-0.00"


def with_hw(cell: Cell, digits: int, pm: str, null: str = NULL) -> str:
    if cell.value is None:
        return null
    hw = cell.half_width
    return number(cell.value, digits, null) + ("" if hw is None else f"{pm}{number(hw, digits, null)}")


HEADER = ["rank", "model", "status", "index", *(TRACK_LETTERS[t] for t in TRACKS), "tasks"]


def text_cells(
    row: Row, di: int, dt: int, pm: str, null: str, dash: str, mark: str, name: Callable[[str], str] = str
) -> list[str]:
    """The cells of a row; ``name`` escapes the model name for the format (numbers, statuses and
    ranks need no escaping), ``pm`` and ``mark`` are the format's own ± and provisional mark."""
    return [
        "" if row.rank is None else rank_text(*row.rank, dash),
        name(row.model) + (mark if row.provisional else ""),
        row.status,
        with_hw(row.index, di, pm, null),
        *(with_hw(row.tracks[t], dt, pm, null) for t in TRACKS),
        f"{row.complete}/{row.total}",
    ]


def markdown_escape(text: str) -> str:
    return escape_for_terminal(text.replace("\\", "\\\\").replace("|", "\\|"))


def render_markdown(groups: list[Group], di: int, dt: int) -> str:
    out = []
    for g in groups:
        out.append(f"### {markdown_escape(g.title)}\n")
        out.append("| " + " | ".join(HEADER) + " |")
        out.append("|" + "|".join(["---:", ":---", ":---", *["---:"] * 5, "---:"]) + "|")
        for row in g.rows:
            cells = text_cells(row, di, dt, " ± ", NULL, "–", " " + PROVISIONAL_MARK, markdown_escape)
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
        out.extend(footnotes(g))
    return "\n".join(out).rstrip("\n") + "\n"


def footnotes(g: Group) -> list[str]:
    notes = []
    if any(r.provisional for r in g.rows):
        notes.append(f"{PROVISIONAL_MARK} provisional: some adopted attempt is selected_provisional.")
    if not g.ranked:
        notes.append("rank: not in the index.json (no ranks block).")
    elif g.not_ranked is not None:
        notes.append(f"rank: not computed ({g.not_ranked}).")
    return notes + ([""] if notes else [])


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
    "\n": " ",
}


def latex_escape(text: str) -> str:
    """Names as LaTeX text: every special character escaped; non-ASCII is left to inputenc (UTF-8)."""
    return "".join(LATEX_SPECIAL.get(c, c) for c in escape_for_terminal(text))


def render_latex(groups: list[Group], di: int, dt: int) -> str:
    out = ["% requires \\usepackage{booktabs}"]
    for g in groups:
        out.append(f"% {latex_escape(g.title)}")
        out.append(r"\begin{tabular}{rlllrrrrr}")
        out.append(r"\toprule")
        out.append(r"\multicolumn{9}{l}{" + latex_escape(g.title) + r"} \\")
        out.append(r"\midrule")
        out.append(" & ".join(HEADER) + r" \\")
        out.append(r"\midrule")
        for row in g.rows:
            cells = text_cells(row, di, dt, r"${}\pm{}$", NULL_LATEX, "-", r"$^\dagger$", latex_escape)
            out.append(" & ".join(cells) + r" \\")
        out.append(r"\bottomrule")
        out.append(r"\end{tabular}")
        for note in footnotes(g):
            if note:
                out.append("% " + latex_escape(note))
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def render_csv(groups: list[Group]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    cols = [
        "suite",
        "solver_protocol",
        "rank_best",
        "rank_worst",
        "model",
        "status",
        "provisional",
        "index",
        "index_lo",
        "index_hi",
    ]
    for t in TRACKS:
        cols += [TRACK_LETTERS[t], f"{TRACK_LETTERS[t]}_lo", f"{TRACK_LETTERS[t]}_hi"]
    w.writerow(cols + ["tasks_complete", "tasks_total", "source"])

    def r(x) -> str:  # unrounded: the shortest decimal that reads back as the same double
        return "" if x is None else repr(float(x))

    for g in groups:
        for row in g.rows:
            line = [
                g.suite,
                g.protocol,
                row.rank[0] if row.rank else "",
                row.rank[1] if row.rank else "",
                row.model,
                row.status,
                "true" if row.provisional else "false",
                r(row.index.value),
                r(row.index.lo),
                r(row.index.hi),
            ]
            for t in TRACKS:
                c = row.tracks[t]
                line += [r(c.value), r(c.lo), r(c.hi)]
            w.writerow(line + [row.complete, row.total, row.source])
    return buf.getvalue()


def chart_svg(g: Group, di: int) -> str:
    """Per group: each model's index as a dot with its 95% interval as a bar (inline SVG)."""
    rows = [r for r in g.rows if r.index.value is not None]
    left_out = [r.model for r in g.rows if r.index.value is None]
    caption = (
        '<p class="caption">Index (points) of each model, with its 95% interval where it has one.'
        + (f" No index (not charted): {html.escape(escape_for_terminal(', '.join(left_out)))}." if left_out else "")
        + "</p>"
    )
    if not rows:
        return caption
    values = [v for r in rows for v in (r.index.value, r.index.lo, r.index.hi) if v is not None]
    lo, hi = min(0.0, *values), max(100.0, *values)
    left, width, step = 200, 560, 28
    height = 30 + step * len(rows)

    def x(v: float) -> float:
        return left + (v - lo) / (hi - lo) * width

    parts = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 90}" height="{height + 20}" '
            f'role="img" aria-label="index of each model with its 95% interval, {html.escape(g.title)}">'
        )
    ]
    for tick in range(math.ceil(lo / 20) * 20, int(hi) + 1, 20):
        parts.append(
            f'<line x1="{x(tick):.1f}" y1="10" x2="{x(tick):.1f}" y2="{height}" class="grid"/>'
            f'<text x="{x(tick):.1f}" y="{height + 15}" class="tick">{number(float(tick), 0)}</text>'
        )
    for k, r in enumerate(rows):
        assert r.index.value is not None  # rows are the charted ones
        y = 25 + step * k
        label = html.escape(escape_for_terminal(r.model) + (" " + PROVISIONAL_MARK if r.provisional else ""))
        parts.append(f'<text x="{left - 8}" y="{y + 4}" class="label">{label}</text>')
        if r.index.lo is not None and r.index.hi is not None:
            parts.append(f'<line x1="{x(r.index.lo):.1f}" y1="{y}" x2="{x(r.index.hi):.1f}" y2="{y}" class="ci"/>')
        parts.append(
            f'<circle cx="{x(r.index.value):.1f}" cy="{y}" r="5" class="dot"/>'
            f'<text x="{left + width + 8}" y="{y + 4}" class="value">{with_hw(r.index, di, " ± ")}</text>'
        )
    parts.append("</svg>")
    return caption + "".join(parts)


HTML_STYLE = """
body { font-family: sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { padding: 0.3em 0.8em; border-bottom: 1px solid #ccc; text-align: right; }
td.l, th.l { text-align: left; }
thead th { border-bottom: 2px solid #222; }
svg .grid { stroke: #ddd; } svg .tick { font-size: 11px; text-anchor: middle; fill: #555; }
svg .label { font-size: 13px; text-anchor: end; } svg .value { font-size: 12px; }
svg .ci { stroke: #36c; stroke-width: 3; } svg .dot { fill: #c33; }
"""


def render_html(groups: list[Group], di: int, dt: int) -> str:
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>TCSExam leaderboard</title>",
        f"<style>{HTML_STYLE}</style></head><body>",
        "<h1>TCSExam leaderboard</h1>",
    ]
    for g in groups:
        out.append(f"<h2>{html.escape(g.title)}</h2>")
        out.append(
            "<table><thead><tr>"
            + "".join(f'<th class="{"l" if h in ("model", "status") else ""}">{html.escape(h)}</th>' for h in HEADER)
            + "</tr></thead><tbody>"
        )
        for row in g.rows:
            cells = text_cells(row, di, dt, " ± ", NULL, "–", " " + PROVISIONAL_MARK, escape_for_terminal)
            out.append(
                "<tr>"
                + "".join(
                    f'<td class="{"l" if k in (1, 2) else ""}">{html.escape(c)}</td>' for k, c in enumerate(cells)
                )
                + "</tr>"
            )
        out.append("</tbody></table>")
        out.extend(f"<p>{html.escape(n)}</p>" for n in footnotes(g) if n)
        out.append(chart_svg(g, di))
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def render_table(docs: list[tuple[str, dict]], fmt: str = "markdown", digits: int | None = None) -> str:
    """SPEC 11 table of the given (source name, index.json) documents in one format."""
    groups = build_groups(docs)
    di, dt = (2, 3) if digits is None else (digits, digits)
    if fmt == "latex":
        return render_latex(groups, di, dt)
    if fmt == "csv":
        return render_csv(groups)
    if fmt == "html":
        return render_html(groups, di, dt)
    return render_markdown(groups, di, dt)
