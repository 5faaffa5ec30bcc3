"""Pure functions from plain data (the scoring outputs) to what the panes display.

No textual here: each function is testable without a terminal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tcsexam.scoring.reports.numbers import INDEX_DIGITS, PM, TRACK_DIGITS, number, with_half_width
from tcsexam.scoring.safety.terminal import escape_for_terminal
from tcsexam.scoring.vocab import STATUS_ORDER, TRACKS, rank_text
from tcsexam.scoring.vocab import TRACK_LETTERS as LETTERS

if TYPE_CHECKING:
    from rich.text import Text

    from tcsexam.scoring.formats.results import Ranks

DASH = "—"

STATUS_STYLE = {"complete": "bold green", "provisional": "bold yellow", "incomplete": "bold red"}
KIND_STYLE = {"complete": "green", "provisional": "yellow", "missing": "bold red", "not_valid": "bold red"}


def plain(value) -> str:
    """A name or typed text as it may be shown on a terminal, escaped exactly as the command line
    escapes it (``scoring.safety.terminal.escape_for_terminal``): ESC becomes the four characters ``\\x1b``,
    bidi controls and line separators ``\\u202e`` and the like; everything else is kept as written.
    The result is still data: show it as rich ``Text`` or ``Content`` (``cells``, ``text``), never as
    markup.
    """
    return escape_for_terminal(str(value))


def text(*parts, style: str = ""):
    """Plain rich Text from strings (never markup) or (string, style) pairs; strings are ``plain``-ed."""
    from rich.text import Text

    out = Text(style=style)
    for part in parts:
        if isinstance(part, Text):
            out.append_text(part)
        elif isinstance(part, tuple):
            out.append(plain(part[0]), style=part[1])
        else:
            out.append(plain(part))
    return out


def cells(*values) -> list[Text]:
    """Table cells as plain rich Text: user data such as '[mobile]task' is never read as markup."""
    from rich.text import Text

    return [v if isinstance(v, Text) else Text(plain(v)) for v in values]


# --- number conventions: one format per quantity, in every tab (docs/dashboard.md#numbers) ---------------------
# Digits, ± and rounding are scoring.reports.numbers' (what ``tcsexam table`` writes): the index, its half-widths
# and differences INDEX_DIGITS decimals; track means, pass^k, Phi, z and tau2 rewards TRACK_DIGITS.
SIGNIFICANT = 4  # objective values (A, mu, s, scale), whose size depends on the task


def fmt(x: float | None, digits: int = TRACK_DIGITS, signed: bool = False) -> str:
    """A number with ``digits`` decimals (scoring.reports.numbers.number: no minus on a zero); — for null."""
    return number(x, digits, null=DASH, signed=signed)


def fmt_pm(x: float | None, pm: float | None, digits: int) -> str:
    """``x ± h`` (the 95% half-width; scoring.reports.numbers.with_half_width), ``x`` alone without an
    interval, — for null."""
    return with_half_width(x, pm, digits, null=DASH)


def fmt_sig(x: float | None, digits: int = SIGNIFICANT) -> str:
    """An objective value with ``digits`` significant digits, written out (47560, 479.1, 0.07830) from 10^-3 to
    below 10^9, in e-notation outside (1.235e+13); — for null or NaN."""
    import math

    if x is None or math.isnan(x):
        return DASH
    if x == 0 or math.isinf(x):
        return f"{x:g}"
    magnitude = math.floor(math.log10(abs(x)))
    if -3 <= magnitude < 9:
        rounded = float(f"{x:.{digits - 1}e}")  # rounding may carry to the next power (9999.7 -> 1.000e4)
        magnitude = math.floor(math.log10(abs(rounded)))
        if magnitude < 9:
            return f"{rounded:.{max(digits - 1 - magnitude, 0)}f}"
    return f"{x:.{digits - 1}e}"


def fmt_cost(cost: float | None) -> str:
    """tau2's agent cost in US dollars (what tau2-bench records): $0.0471; — for null."""
    return DASH if cost is None else f"${cost:.4f}"


def half_width(ci: dict | None) -> float | None:
    if not ci or ci.get("hi") is None:
        return None
    return ci["hi"] - ci.get("mean", ci.get("value"))


# --- names: capped so that they never hide the numbers (docs/dashboard.md#names) ---------------------------------
NAME_WIDTH = 24  # the Model column's width at most: the full name is on the line under the table


def middle_ellipsis(name: str, width: int = NAME_WIDTH) -> str:
    """A name shown in at most ``width`` terminal cells, escaped (``plain``): a longer one keeps its start and
    its end with … between (``anthropic/clau…-20250929``), where model ids differ most."""
    from rich.cells import cell_len

    shown = plain(name)
    if cell_len(shown) <= width:
        return shown
    width = max(width, 3)
    head: list[str] = []
    tail: list[str] = []
    room = width - 1
    chars = list(shown)
    i, j = 0, len(chars) - 1
    while i <= j:  # alternately from the start (which gets the extra cell) and from the end, cells counted
        take_head = cell_len("".join(head)) <= cell_len("".join(tail))
        c = chars[i] if take_head else chars[j]
        if cell_len("".join(head)) + cell_len("".join(tail)) + cell_len(c) > room:
            break
        if take_head:
            head.append(c)
            i += 1
        else:
            tail.insert(0, c)
            j -= 1
    return "".join(head) + "…" + "".join(tail)


@dataclass(frozen=True)
class OverviewRow:
    model: str
    status: str
    index: float | None
    index_pm: float | None
    rank: (
        tuple[int, int] | None
    )  # (best, worst) from the document's ``ranks`` block (docs/rules.md#ranks); None: no index
    shares: (
        dict[str, float] | None
    )  # the index interval's variance budget (docs/rules.md#variance-budget); None: left out
    means: dict[str, float | None]
    pms: dict[str, float | None]
    complete: dict[str, int]
    total: dict[str, int]

    def cells(self, gauge: str = "") -> list[str]:
        """The row's cells in OVERVIEW_COLUMNS order; ``gauge`` is its forest-plot cell (tui/forest.py), made
        by the pane, which knows the scale all rows share. The name is capped (``middle_ellipsis``)."""
        out = [
            middle_ellipsis(self.model),
            self.status,
            fmt_pm(self.index, self.index_pm, INDEX_DIGITS),
            gauge,
            rank_label(self.rank),
            shares_text(self.shares),
        ]
        for t in TRACKS:
            out.append(f"{fmt_pm(self.means[t], self.pms[t], TRACK_DIGITS)}  {self.complete[t]}/{self.total[t]}")
        return out

    def sort_key(self, column: int):
        """Sort key for a column; nulls sort last in ascending order (the interval column sorts by the index)."""
        if column == 0:
            return (0, self.model)
        if column == 1:
            return (0, STATUS_ORDER[self.status])
        if column == RANK_COLUMN:
            return (1, (0, 0)) if self.rank is None else (0, self.rank)
        if column == BUDGET_COLUMN:
            return (0, self.model)  # percents of four tracks have no order: by model
        if column == LOWER_END:
            if self.index is None:
                return (1, 0.0)
            return (0, self.index - (self.index_pm or 0.0))
        value = self.index if column in (INDEX_COLUMN, GAUGE_COLUMN) else self.means[TRACKS[column - FIRST_TRACK]]
        return (1, 0.0) if value is None else (0, value)

    def null_reason(self) -> str:
        """Why the row has no index: the model is incomplete (docs/rules.md#the-index), or its reason otherwise."""
        return "incomplete" if self.status == "incomplete" else "no index"


OVERVIEW_COLUMNS = [
    "Model",
    "Status",
    "Index",
    "95% interval",
    "Rank",
    "Uncertainty from",
    *[f"{LETTERS[t]} ({t})" for t in TRACKS],
]
INDEX_COLUMN, GAUGE_COLUMN, RANK_COLUMN, BUDGET_COLUMN, FIRST_TRACK = 2, 3, 4, 5, 6
LOWER_END = len(OVERVIEW_COLUMNS)  # a sort with no column of its own: the 95% interval's lower end
LOWER_END_LABEL = "95% interval lower end"

# what each column means, shown as the header's tooltip and in help (plain words; the rules in docs/rules.md)
COLUMN_TIPS = {
    "Model": "The model's name; a long one is shortened in the middle (…), the line under the table gives it in full.",
    "Status": "complete: every planned attempt adopted and valid; provisional: some adopted as provisional; "
    "incomplete: attempts missing or not valid (no index).",
    "Index": "The index in points (the weighted track means × 100) ± the half-width of its 95% interval "
    "(a t interval over the tasks, the tasks of a track taken as a sample).",
    "95% interval": "The index (●) and its 95% interval (─) on one scale from 0 for every row, the scale's ticks in "
    "the header; ○ and the reason for a model without an index.",
    "Uncertainty from": "How much of the index's uncertainty (its variance) comes from each track, in percent: "
    "P theorem, S solver, C construction, O conjecture. More tasks in the largest share narrow the interval most.",
    "Rank": "best–worst: the places the model could hold, given the models it is not clearly separated from "
    "(paired tests over the tasks, 95%, corrected for the number of pairs). One number: a clear place.",
    **{
        f"{LETTERS[t]} ({t})": f"The {t} track's mean score ± its 95% half-width, then tasks complete / total."
        for t in TRACKS
    },
}


def column_under(widths: list[int], fixed: int, scroll_x: int, x: int) -> int | None:
    """Which column of a table lies under offset ``x`` of its line: the first ``fixed`` columns stay in place,
    the others are scrolled ``scroll_x`` cells left (DataTable's fixed_columns); None past the last."""
    pinned = sum(widths[:fixed])
    left = 0
    for i, w in enumerate(widths):
        start = left if i < fixed else left - scroll_x
        visible_from = start if i < fixed else max(start, pinned)  # a scrolled column slides under the fixed ones
        if visible_from <= x < start + w:
            return i
        left += w
    return None


def rank_label(rank: tuple[int, int] | None) -> str:
    """A rank as docs/rules.md#ranks shows it: ``best`` or ``best–worst`` (scoring.vocab.rank_text); — without an index."""
    return DASH if rank is None else rank_text(*rank)


def ranks_block(document: dict) -> Ranks | None:
    """The document's ``ranks`` block (docs/rules.md#ranks) without its pairs, which the panes do not show (they
    are N(N-1)/2, or not listed); None when the ranks were not computed (``ranks.models`` null, the
    reason in ``ranks_reason``). An index.json written before ranks existed gets them from scoring.stats.ranks
    with the document's own weights."""
    import msgspec

    from tcsexam.scoring.formats.results import Ranks
    from tcsexam.scoring.stats.ranks import ranks_of_document

    if "ranks" not in document:
        return ranks_of_document(document, document["weights"])
    ranks = document["ranks"]
    if ranks.get("models") is None:
        return None
    fields = {key: value for key, value in ranks.items() if key in Ranks.__struct_fields__}
    return msgspec.convert({**fields, "pairs": []}, Ranks)


def ranks_reason(document: dict) -> str | None:
    """Why the document has no ranks (``ranks.models`` null, docs/rules.md#ranks), or None when it has them."""
    ranks = document.get("ranks")
    if ranks is None or ranks.get("models") is not None:
        return None
    return str(ranks.get("reason") or "the ranks were not computed")


def overview_rows(document: dict) -> list[OverviewRow]:
    rows = []
    ranks = ranks_block(document)
    ranked = (
        (ranks.models or {}) if ranks is not None else {}
    )  # models null: not ranked (scoring.stats.ranks.top_group)
    for name, m in document["models"].items():
        tracks_ci = m.get("ci", {}).get("tracks", {})
        complete = {t: 0 for t in TRACKS}
        total = {t: 0 for t in TRACKS}
        for task in m["tasks"].values():
            total[task["track"]] += 1
            complete[task["track"]] += task["status"] != "incomplete"
        rows.append(
            OverviewRow(
                model=name,
                status=m["status"],
                index=m["index"],
                index_pm=half_width(m.get("ci", {}).get("index")),
                rank=(ranked[name].best, ranked[name].worst) if name in ranked else None,
                shares=(m.get("ci", {}).get("index") or {}).get("shares"),
                means=dict(m["track_means"]),
                pms={t: half_width(tracks_ci.get(t)) for t in TRACKS},
                complete=complete,
                total=total,
            )
        )
    return rows


def sort_rows(rows: list[OverviewRow], column: int, reverse: bool = False) -> list[OverviewRow]:
    """Sort by a column; null values always go last."""
    present = [r for r in rows if r.sort_key(column)[0] == 0]
    absent = [r for r in rows if r.sort_key(column)[0] != 0]
    return sorted(present, key=lambda r: r.sort_key(column), reverse=reverse) + absent


def leader(document: dict) -> str | None:
    """The leader only when the top rank group holds one model alone (docs/rules.md#ranks, scoring.stats.ranks.leader)."""
    from tcsexam.scoring.stats.ranks import leader as ranks_leader

    ranks = ranks_block(document)
    return ranks_leader(ranks) if ranks is not None else None


def top_group(document: dict) -> list[str]:
    """The models whose best rank is 1 (docs/rules.md#ranks, scoring.stats.ranks.top_group)."""
    from tcsexam.scoring.stats.ranks import top_group as ranks_top_group

    ranks = ranks_block(document)
    return ranks_top_group(ranks) if ranks is not None else []


def ranked_scope(document: dict) -> str:
    """' among complete models (k of n)' when some model of the run has no index (it is incomplete and
    not ranked, docs/rules.md#ranks), else '': what a leader or a top group is chosen among."""
    models = document["models"]
    ranked = sum(1 for m in models.values() if m["index"] is not None)
    return "" if ranked == len(models) else f" among complete models ({ranked:,} of {len(models):,})"


def top_line(document: dict) -> tuple:
    """Who leads, as ``text`` parts: the leader only when the top group (best rank 1, docs/rules.md#ranks) holds
    one model alone, else the group as a count, within ``ranked_scope``."""
    reason = ranks_reason(document)
    if reason is not None:  # said once here; the Rank column shows — for every model
        return ((f"No ranks: {reason}", ""),)
    group = top_group(document)
    if not group:
        return (("No model has an index yet", ""),)
    scope = ranked_scope(document)
    if len(group) == 1:
        lead = group[0]
        return (
            (f"Leader{scope}: ", ""),
            (middle_ellipsis(lead, 32), "bold"),
            (f" with {fmt(document['models'][lead]['index'], INDEX_DIGITS)} points", ""),
        )
    return (("No single leader: ", ""), (f"{len(group):,} share rank 1", "bold"), (scope, ""))


def status_line(document: dict, demo: bool = False) -> tuple:
    """The Overview's one line, as ``text`` parts, most needed first (a narrow terminal cuts its end): the
    run's status with the models that are not complete (what decides whether it can be published), who
    leads, suite/protocol/reference (docs/dashboard.md#tabs)."""
    models = document["models"].values()
    counts = [(s, sum(m["status"] == s for m in models)) for s in STATUS_ORDER if s != "complete"]
    counted = ", ".join(f"{n:,} {s}" for s, n in counts if n)
    return (
        *((("DEMO", "bold reverse"), (" · ", "")) if demo else ()),
        ("Run ", ""),
        (document["status"], "bold"),
        (f" ({counted})" if counted else "", ""),
        (" · ", ""),
        *top_line(document),
        (f" · {document['suite']}/{document['solver_protocol']}/{document['solver_reference_id']}", ""),
    )


def overview_detail(row: OverviewRow, document: dict) -> tuple:
    """The line under the Overview's table: the cursor row's model in full, its index with the interval's
    ends, its rank among the ranked models, or why it has none."""
    ranked = sum(m["index"] is not None for m in document["models"].values())
    parts: list = [(row.model, "bold"), (f" · {row.status}", "")]
    if row.index is None:
        incomplete = sum(row.total[t] - row.complete[t] for t in TRACKS)
        parts.append((f" · no index: {incomplete} of {sum(row.total.values())} tasks incomplete", ""))
    else:
        parts.append((f" · index {fmt_pm(row.index, row.index_pm, INDEX_DIGITS)}", ""))
        if row.index_pm is not None:
            lo, hi = row.index - row.index_pm, row.index + row.index_pm
            parts.append((f" (95%: {lo:.{INDEX_DIGITS}f} to {hi:.{INDEX_DIGITS}f})", ""))
        if row.rank is not None:
            parts.append((f" · rank {rank_label(row.rank)} of {ranked:,}", ""))
    return tuple(parts)


def coverage_cell(task: dict, model_coverage: dict, item: str) -> tuple[str, str]:
    """(glyph, kind) of one model × task cell."""
    excluded = any(e["item"] == item for e in model_coverage["excluded"])
    suffix = "+x" if excluded else ""
    if any(e["item"] == item for e in model_coverage["not_valid"]):
        return "✗" + suffix, "not_valid"
    if task["adopted"] < task["planned"]:
        return f"{task['adopted']}/{task['planned']}" + suffix, "missing"
    if task["status"] == "provisional":
        return "◐" + suffix, "provisional"
    return "●" + suffix, "complete"


def coverage_grid(document: dict) -> tuple[list[str], dict[str, list[tuple[str, str]]]]:
    """Items (columns) and, per model, the glyph of each task."""
    models = document["models"]
    items = list(next(iter(models.values()))["tasks"]) if models else []
    grid = {
        name: [coverage_cell(m["tasks"][item], m["coverage"], item) for item in items] for name, m in models.items()
    }
    return items, grid


LEGEND = "● complete  ◐ provisional  n/m adopted of planned  ✗ not valid  +x excluded too"
COMPACT_GLYPHS = {"complete": "●", "provisional": "◐", "missing": "○", "not_valid": "✗"}
COMPACT_LEGEND = "● complete ◐ provisional ○ missing ✗ not valid + excluded too · columns: Overview rows"


def legend_text(compact: bool = False) -> str:
    """The grid's glyphs in one line (? gives the long form); ``compact``: those of the two-character cells."""
    return COMPACT_LEGEND if compact else LEGEND


def compact_cell(glyph: str, kind: str) -> str:
    """A grid cell in two characters (the grid at many models): the kind's glyph, then + when the task also
    has excluded attempts; n/m becomes ○ (the line under the grid gives the counts)."""
    return COMPACT_GLYPHS[kind] + ("+" if glyph.endswith("+x") else " ")


def vertical_number(n: int, digits: int) -> str:
    """A column's number written downward in ``digits`` lines, right-aligned (a two-character header)."""
    return "\n".join(str(n).rjust(digits))


def attempts_file(document: dict) -> str:
    """The attempts file's name as the run's provenance gives it (attempts.csv)."""
    import os

    path = ((document.get("provenance") or {}).get("inputs") or {}).get("attempts", {}).get("path")
    return os.path.basename(path) if path else "attempts.csv"


def records_file(document: dict, model: str, item: str, attempt: str) -> str | None:
    """Where a solver attempt's records are (records/MODEL/ITEM/ATTEMPT.json under the run's records folder),
    None when the run has none."""
    root = ((document.get("provenance") or {}).get("inputs") or {}).get("records", {}).get("path")
    return None if not root else f"{root}/{model}/{item}/{attempt}.json"


def coverage_detail(document: dict, model: str, item: str) -> tuple:
    """The line under the grid: the cell under the cursor in words, with the model's full name and the
    attempts.csv lines it comes from."""
    m = document["models"][model]
    task, coverage = m["tasks"][item], m["coverage"]
    glyph, kind = coverage_cell(task, coverage, item)
    source = attempts_file(document)
    parts: list = [(model, "bold"), (f" · {LETTERS[task['track']]} {item} · ", "")]
    if kind == "not_valid":
        bad = [e for e in coverage["not_valid"] if e["item"] == item]
        parts.append((f"not valid: adopted attempt {bad[0]['attempt']} is {bad[0]['score_status']}", "bold"))
        parts.append((f" ({source} line {bad[0]['line']})", ""))
    elif kind == "missing":
        parts.append((f"{task['adopted']} of {task['planned']} planned attempts adopted", "bold"))
        parts.append((f" ({task['planned'] - task['adopted']} without a row in {source})", ""))
    else:
        parts.append((f"{kind}: {task['adopted']} of {task['planned']} planned attempts adopted", "bold"))
        provisional = [e for e in coverage["provisional"] if e["item"] == item]
        if provisional:
            lines = ", ".join(str(e["line"]) for e in provisional)
            parts.append((f", provisional ({source} line {lines})", ""))
    excluded = [e for e in coverage["excluded"] if e["item"] == item]
    if excluded:
        lines = ", ".join(str(e["line"]) for e in excluded)
        parts.append((f" · {len(excluded)} excluded ({source} line {lines}): {excluded[0]['note'] or 'no note'}", ""))
    return tuple(parts)


@dataclass(frozen=True)
class IssueRow:
    model: str
    item: str
    attempt: str
    kind: str
    reason: str
    line: int | None = None  # the attempts.csv line it comes from; None: no row (a planned attempt missing)
    source: str = ""  # where it comes from, in words (issue_source)


def issue_rows(document: dict) -> list[IssueRow]:
    """Every issue of every model, then every ignored row (a likely typo as a warning), then every records
    file that no adopted row uses, worded as ``tcsexam validate`` words them: what a researcher must fix, each with the file and line it comes from."""
    from tcsexam.scoring.pipeline.aggregate import ignored_row_finding, unused_records_finding

    out = []
    source = attempts_file(document)
    for name, m in document["models"].items():
        for i in m["issues"]:
            where = (
                f"{source} line {i['line']}"
                if i.get("line") is not None
                else f"no row in {source} for an attempt the cohort plans"
            )
            track = m["tasks"].get(i["item"], {}).get("track")
            records = records_file(document, name, i["item"], i["attempt"]) if i["attempt"] else None
            if track == "solver" and records is not None:
                where += f"; records {records}"
            out.append(
                IssueRow(name, i["item"] or DASH, i["attempt"] or DASH, i["kind"], i["message"], i.get("line"), where)
            )
        for p in m["coverage"]["provisional"]:
            out.append(
                IssueRow(
                    name,
                    p["item"],
                    p["attempt"],
                    "provisional",
                    "adopted as selected_provisional (counted, and the model marked provisional)",
                    p.get("line"),
                    f"{source} line {p['line']}" if p.get("line") is not None else source,
                )
            )
    for r in document["ignored_rows"]["rows"]:
        kind, message = ignored_row_finding(r)
        where = f"{source} line {r['line']}"
        out.append(
            IssueRow(r["model"], r["item"], r["attempt"], kind, f"line {r['line']}: {message}", r["line"], where)
        )
    for u in document.get("unused_records", []):
        model, item, attempt = u["model"] or DASH, u["item"] or DASH, u["attempt"] or DASH
        out.append(IssueRow(model, item, attempt, "unused records", unused_records_finding(u), None, source))
    return out


def issue_detail(issue: IssueRow) -> tuple:
    """The line under the issues: the issue in full (the table cuts long reasons) and where it comes from."""
    return (
        (f"{issue.kind}: ", ""),
        (issue.reason, "bold"),
        (f" — {issue.source}" if issue.source else "", ""),
        (f" · {issue.model} · {issue.item} · attempt {issue.attempt}", ""),
    )


def passk_rows(document: dict, model: str) -> tuple[int, list[list[str]]]:
    """(largest k, rows of track, threshold, tasks, pass^1..pass^K)."""
    pk = document["models"][model]["pass_hat_k"]
    kmax = max((len(v["by_k"]) for v in pk.values()), default=0)
    rows = []
    for t in TRACKS:
        v = pk[t]
        rows.append(
            [f"{LETTERS[t]} {t}", f"{v['threshold']:g}", str(v["tasks"])]
            + [fmt(v["by_k"].get(str(k))) for k in range(1, kmax + 1)]
        )
    return kmax, rows


def histogram_counts(phi, bins: int = 10) -> list[int]:
    """Counts of Phi over [0, 1] in equal bins (the last bin includes 1)."""
    import numpy as np

    counts, _ = np.histogram(phi, bins=bins, range=(0.0, 1.0))
    return counts.tolist()


def binding_floor(s: float, mu: float, scale: float, relative: float) -> str:
    """Which term of scale = max(s, relative·|mu|, absolute) is the maximum."""
    if scale == s:
        return "s"
    if scale == relative * abs(mu):
        return f"relative floor {relative:g}·|mu|"
    return "absolute floor"


def explain_instance(
    name: str,
    status: str,
    A: float,
    mu: float,
    s: float,
    scale: float,
    z: float,
    phi: float,
    direction: str,
    relative: float,
) -> str:
    """Why an instance scored its Phi, in the contract's words (docs/rules.md#solver-score)."""
    if status != "ok":
        return f"{name}: status '{status}' is a solver failure, so the instance scores 0 (tcsexam docs rules#solver-score)."
    formula = "(A − mu)/scale" if direction == "maximize" else "(mu − A)/scale"
    return (
        f"{name}: A = {fmt_sig(A)}; mu = {fmt_sig(mu)}, s = {fmt_sig(s)}; scale = max(s, relative·|mu|, absolute) "
        f"= {fmt_sig(scale)} ({binding_floor(s, mu, scale, relative)}); {direction}: z = {formula} = {fmt(z)}; "
        f"Phi(z) = {fmt(phi)}"
    )


def short(name: str, width: int) -> str:
    """A long name cut to ``width`` characters with an ellipsis (the full name is shown elsewhere)."""
    name = plain(name)
    return name if len(name) <= width else name[: max(width - 1, 0)] + "…"


TAU2_ID_MIN = 12  # the task_id column never narrower than this (the table then scrolls sideways)


def tau2_columns(metrics: dict) -> list[str]:
    kmax = max((len(t["pass_hat_k"]) for t in metrics["tasks"]), default=0)
    return ["task_id", "n", "successes", "avg reward", *[f"pass^{k}" for k in range(1, kmax + 1)], "termination"]


def _task_id_key(task_id):
    """Task ids sort as numbers when they are numbers, else as text: 2 before 10."""
    text_id = str(task_id)
    return (0, int(text_id), "") if text_id.lstrip("-").isdigit() else (1, 0, text_id)


def tau2_sorted(metrics: dict, column: int = 0, reverse: bool = False) -> list[dict]:
    """The per-task results sorted by a column of ``tau2_columns`` (nulls last either way)."""
    columns = tau2_columns(metrics)
    name = columns[column]

    def value(t):
        if name == "task_id":
            return _task_id_key(t["task_id"])
        if name == "termination":
            return ", ".join(sorted(t["termination_reasons"]))
        if name.startswith("pass^"):
            return t["pass_hat_k"].get(name[5:])
        return t[{"n": "n", "successes": "successes", "avg reward": "avg_reward"}[name]]

    present = [t for t in metrics["tasks"] if value(t) is not None]
    absent = [t for t in metrics["tasks"] if value(t) is None]
    return sorted(present, key=value, reverse=reverse) + absent


def tau2_task_rows(
    metrics: dict, tasks: list[dict] | None = None, width: int | None = None
) -> tuple[int, list[list[str]]]:
    """(largest k, one row per task: id, n, successes, avg reward, pass^k…, reasons). The id takes the
    width the other columns leave of ``width`` (the table's, in cells: each column pads 1 either side,
    and a scrollbar may take 2), cut with an ellipsis only beyond it; no cut without ``width``."""
    kmax = max((len(t["pass_hat_k"]) for t in metrics["tasks"]), default=0)
    rows = []
    for t in metrics["tasks"] if tasks is None else tasks:
        reasons = ", ".join(f"{k} {v}" for k, v in sorted(t["termination_reasons"].items()))
        rows.append(
            [plain(str(t["task_id"])), str(t["n"]), str(t["successes"]), fmt(t["avg_reward"])]
            + [fmt(t["pass_hat_k"].get(str(k))) for k in range(1, kmax + 1)]
            + [reasons]
        )
    if width is not None and rows:
        headers = tau2_columns(metrics)
        others = sum(max(len(h), *(len(r[i]) for r in rows)) + 2 for i, h in enumerate(headers) if i)
        free = max(TAU2_ID_MIN, width - others - 2 - 2)
        for r in rows:
            r[0] = short(r[0], free)
    return kmax, rows


TAU2_SIMULATION_COLUMNS = ("trial", "reward", "success", "termination reason", "agent cost")


def tau2_simulation_rows(simulations: list[dict]) -> list[list[str]]:
    """One row per simulation of a task (scoring.tau2.trajectory.task_simulations), as the table shows it."""
    return [
        [
            DASH if s["trial"] is None else str(s["trial"]),
            fmt(s["reward"]),
            "✓" if s["success"] else "✗",
            s["termination_reason"],
            cost_text(s["agent_cost"]),
        ]
        for s in simulations
    ]


def plain_lines(value: str) -> str:
    """Multi-line text shown as plain text: each line escaped (``plain``), the line breaks kept."""
    return "\n".join(plain(line) for line in str(value).split("\n"))


def tau2_message_blocks(trajectory: dict) -> list[tuple[str, str]]:
    """(heading, body) per message of a simulation (scoring.tau2.trajectory.simulation_trajectory): the
    turn and role, then its text and each tool call as ``→ name(arguments)``; escaped, plain text."""
    blocks = []
    for m in trajectory["messages"]:
        heading = " · ".join(
            x
            for x in (
                "" if m["turn"] is None else f"turn {m['turn']}",
                plain(m["role"]),
                "tool error" if m["error"] else "",
            )
            if x
        )
        body = [plain_lines(m["text"])] if m["text"] else []
        body += [f"→ {plain_lines(call)}" for call in m["tool_calls"]]
        blocks.append((heading, "\n".join(body) or DASH))
    return blocks


TAU2_REWARD_COLUMNS = ("outcome", "value", "part", "name")
OUTCOME_STYLE = {"✗ not met": "bold red", "✓ met": "green"}


def tau2_reward_rows(reward: dict) -> list[list[str]]:
    """The reward of a simulation, one row each, the outcome first (why it failed is the question): each named
    check with its outcome (✓ met, ✗ not met) and reward, then the stored and re-derived reward and each
    component of its reward_basis (its value and where it was read)."""

    def outcome(met) -> str:
        return DASH if met is None else ("✓ met" if met else "✗ not met")

    rows = [
        [outcome(check["met"]), fmt(check["reward"]), check["section"], check["name"]] for check in reward["checks"]
    ]
    rows += [
        ["", fmt(reward["stored"]), "reward", "stored"],
        ["", fmt(reward["derived"]), "reward", f"re-derived ({reward.get('gate') or 'product of the basis'})"],
    ]
    for c in reward["components"]:
        where = f"from {c['source']}" if c["source"] else "not evaluated"
        rows.append(["", fmt(c["value"]), "basis", f"{c['component']} ({where})"])
    return rows


def tau2_meta_line(meta: dict) -> str:
    """Domain, agent, user simulator and trials of a tau2-bench run, as far as its ``info`` names them."""
    parts = [
        f"domain {meta.get('domain') or DASH}",
        f"agent {meta.get('agent') or DASH}",
        f"user {meta.get('user') or DASH}",
        f"trials {meta.get('trials') or DASH}",
    ]
    return " · ".join(parts)


def cost_text(cost: float | None) -> str:
    """tau2's avg_agent_cost in dollars (``fmt_cost``): 0 means that no cost was recorded, not a free agent."""
    if cost is None:
        return DASH
    return "$0 (no cost recorded)" if cost == 0 else fmt_cost(cost)


def status_counts(status) -> dict[str, int]:
    """Instances per status code, in STATUS_CODES order, only the statuses that occur."""
    import numpy as np

    from .state import STATUS_CODES

    counts = np.bincount(np.asarray(status, dtype=np.int64), minlength=len(STATUS_CODES))
    return {s: int(counts[i]) for i, s in enumerate(STATUS_CODES) if counts[i]}


def counts_text(counts: dict[str, int]) -> str:
    return ", ".join(f"{n:,} {s}" for s, n in counts.items()) or "no instances"


def filter_note(shown: int, total: int, status: str | None) -> str:
    """What the filter leaves: a sentence when it leaves nothing."""
    if status is None:
        return f"{total:,} instances"
    if shown == 0:
        return f"0 of {total:,} instances have status {status}: nothing to show (f changes the filter)"
    return f"{shown:,} of {total:,} instances with status {status}"


def problem_rows(problems: list, base=None) -> list[list[str]]:
    """Rows (file, where, field, message) of rejected inputs; a file under ``base`` is named relative to it."""
    import os

    rows = []
    for p in problems:
        name = p.file
        if base is not None:
            try:
                rel = os.path.relpath(p.file, base)
                name = rel if not rel.startswith("..") else p.file
            except ValueError:
                pass
        rows.append([name, p.where or DASH, p.field or DASH, p.message])
    return rows


def wrap_messages(rows: list[list[str]], width: int, least: int = 40) -> list[list]:
    """``problem_rows`` with each message as the list of its lines that fit what the table leaves of ``width``
    columns beside file, where and field (each cell padded by 1 on both sides, a scrollbar of 2), never
    narrower than ``least``: a Diagnostics row is read in full, not cut at the screen's edge."""
    import textwrap

    beside = sum(
        max([len(header), *(len(r[i]) for r in rows)]) + 2 for i, header in enumerate(("file", "where", "field"))
    )
    fits = max(least, width - beside - 2 - 2)
    return [[*r[:3], textwrap.wrap(r[3], fits, break_on_hyphens=False) or [r[3]]] for r in rows]


COMPARE_COLUMNS = ("track", "A − B", "se", "95% interval", "tasks", "df")


def compare_rows(result: dict) -> list[list[str]]:
    """Rows of COMPARE_COLUMNS: per track and for the index (df only for the index)."""
    rows = []
    for t in TRACKS:
        r = result["tracks"].get(t)
        if r is None:
            rows.append([f"{LETTERS[t]} {t}", DASH, DASH, DASH, "0", ""])
        else:
            ci = (
                DASH
                if r["lo"] is None
                else f"[{fmt(r['lo'], TRACK_DIGITS, signed=True)}, {fmt(r['hi'], TRACK_DIGITS, signed=True)}]"
            )
            rows.append(
                [
                    f"{LETTERS[t]} {t}",
                    fmt(r["mean"], TRACK_DIGITS, signed=True),
                    fmt(r["se"], TRACK_DIGITS),
                    ci,
                    str(r["m"]),
                    "",
                ]
            )
    idx = result["index"]
    if idx is None:
        rows.append(["Index (points)", DASH, DASH, DASH, "", DASH])
    else:
        ci = (
            DASH
            if idx["lo"] is None
            else f"[{fmt(idx['lo'], INDEX_DIGITS, signed=True)}, {fmt(idx['hi'], INDEX_DIGITS, signed=True)}]"
        )
        rows.append(
            [
                "Index (points)",
                fmt(idx["value"], INDEX_DIGITS, signed=True),
                fmt(idx["se"], INDEX_DIGITS),
                ci,
                "",
                DASH if idx["df"] is None else f"{idx['df']:.1f}",
            ]
        )
    return rows


TASK_DIFF_COLUMNS = ("task", "track", "index points", "A", "B", "A − B", "inst. A>B/B>A/=")


def task_difference_rows(result: dict) -> list[tuple[str, list[str]]]:
    """(item, row of TASK_DIFF_COLUMNS) per task both models scored, the largest contribution to the index
    difference first (its points: A − B × the track's weight ÷ the track's tasks both scored, as compare
    computes it, docs/rules.md#per-task-differences; ties in suite order); solver tasks with per-instance
    counts show them, others —."""
    counts = result.get("instances", {})
    order = sorted(result["tasks"], key=lambda t: -abs(t["contribution"]))  # sorted() is stable
    rows = []
    for t in order:
        c = counts.get(t["item"])
        inst = DASH if c is None else f"{c['a_better']} / {c['b_better']} / {c['equal']}"
        rows.append(
            (
                t["item"],
                [
                    t["item"],
                    f"{LETTERS[t['track']]} {t['track']}",
                    fmt(t["contribution"], INDEX_DIGITS, signed=True),
                    fmt(t["a"]),
                    fmt(t["b"]),
                    fmt(t["difference"], TRACK_DIGITS, signed=True),
                    inst,
                ],
            )
        )
    return rows


INSTANCE_DIFF_COLUMNS = ("instance", "A", "B", "A − B")


def instance_difference_rows(diffs: list[dict]) -> list[list[str]]:
    """Rows of INSTANCE_DIFF_COLUMNS from scoring.stats.differences.largest_instance_differences (its order kept)."""
    return [[d["instance"], fmt(d["a"]), fmt(d["b"]), fmt(d["difference"], TRACK_DIGITS, signed=True)] for d in diffs]


def mde_text(mde: dict, note: str | None = None) -> str:
    """``compare``'s ``mde`` (docs/rules.md#planning-attempts) in one line: index points detectable with r attempts per task;
    ``note`` (scoring.reports.compare.mde_note) after it when a variance was clipped at 0."""
    values = sorted(((int(r), v) for r, v in mde.items()), key=lambda rv: rv[0])
    if not values or all(v is None for _, v in values):
        return (
            "Smallest detectable gap (found 80% of the time at 5%, two-sided): not available — a track has < 2 "
            "common tasks, or a model "
            "has no task with 2 valid attempts."
        )
    line = "Smallest detectable gap (found 80% of the time at 5%), index points by attempts per task r: " + "  ".join(
        f"r={r} {fmt(v, 2)}" for r, v in values
    )
    return f"{line}. Note: {note}." if note else line


def shares_text(shares: dict | None) -> str:
    """docs/rules.md#variance-budget's variance budget of an index interval as whole percents in track order (P S C O);
    — when the document leaves ``shares`` out (var = 0 or a track without se)."""
    if not shares:
        return DASH
    return " ".join(f"{LETTERS[t]}{round(100 * shares[t])}" for t in TRACKS if t in shares) + " %"


def plan_row(plan_entry: dict) -> tuple[list[str], list[str]]:
    """(column labels r=1.., the projected 95% index half-widths in points) of one model's plan (docs/rules.md#planning-attempts)."""
    keys = sorted(plan_entry["half_width"], key=int)
    return [f"r={k}" for k in keys], [fmt(plan_entry["half_width"][k], 2) for k in keys]


def plan_summary(plan_entry: dict) -> str:
    """Per track the planner's inputs (m tasks, s_w² within, σ_b² between) in one line."""
    parts = []
    for t in TRACKS:
        v = plan_entry["tracks"][t]
        parts.append(f"{LETTERS[t]} m={v['m']} s_w²={fmt(v['s_w2'], 4)} σ_b²={fmt(v['sigma_b2'], 4)}")
    return "m tasks, variance within a task s_w², between tasks σ_b²:   " + "   ".join(parts)


def target_text(target: float | None, needed: int | None, attempts: int) -> str:
    """What the target half-width H asks for (docs/rules.md#planning-attempts attempts_for_target)."""
    if target is None:
        return "Type a target half-width H (index points) to see the attempts per task it needs."
    if needed is None:
        return f"H = {target:g}: not reached with up to {attempts} attempts per task."
    return f"H = {target:g}: {needed} attempt{'s' if needed != 1 else ''} per task."


def parse_target(value: str) -> float | None:
    """The target field: a positive number of index points, else None (nothing asked)."""
    try:
        x = float(value)
    except ValueError:
        return None
    return x if x > 0 and x != float("inf") else None


# --- Leaderboard (docs/commands.md: the groups and cells of `tcsexam table`) -----------------------------------


@dataclass
class LeaderboardGroup:
    """One (suite, solver_protocol) table of the Leaderboard: its title, the rows' cells as
    scoring.reports.table.text_cells gives them, and per row the source (run) and model it came from."""

    title: str
    header: list[str]
    rows: list[list[str]]
    keys: list[tuple[str, str]]  # (source, model) per row
    notes: list[str]


def leaderboard_groups(docs: list[tuple[str, dict]]) -> tuple[list[LeaderboardGroup], list]:
    """The Leaderboard of the loaded runs' index documents: (groups, []) in docs/commands.md's order, or
    ([], problems) when ``tcsexam table`` would reject them (a model twice in a group). Every cell is
    scoring.reports.table's (build_groups, text_cells: 2 decimals for the index, 3 for the tracks, † for a
    provisional row, — for null, rank ``best–worst``); nothing is rounded here. Names are capped
    (``middle_ellipsis``): the pane's line under the tables gives the cursor row's in full."""
    from tcsexam.scoring.errors import InputError
    from tcsexam.scoring.reports.table import HEADER, NULL, PROVISIONAL_MARK, build_groups, footnotes, text_cells

    try:
        groups = build_groups(docs)
    except InputError as exc:
        return [], list(exc.problems)
    out = []
    for g in groups:
        rows = [
            text_cells(r, INDEX_DIGITS, TRACK_DIGITS, PM, NULL, "–", " " + PROVISIONAL_MARK, middle_ellipsis)
            for r in g.rows
        ]
        keys = [(r.source, r.model) for r in g.rows]
        out.append(
            LeaderboardGroup(g.title, list(HEADER), rows, keys, [n for n in footnotes(g, provisional=True) if n])
        )
    return out, []


RUN_COLUMNS = ("run", "name", "suite / protocol", "status", "RUN_DIR")


def run_row(number: int, current: bool, name: str, source: str, document: dict | None, note: str) -> list[str]:
    """A row of the run switcher: its number (▶ the run shown), name, group, status (or why there is
    none: ``note``) and the RUN_DIR as typed. Names are data: the caller shows them as Text (``cells``)."""
    group = f"{document['suite']} / {document['solver_protocol']}" if document is not None else DASH
    status = document["status"] if document is not None else note
    if document is not None and note:
        status += f" ({note})"
    return [("▶ " if current else "  ") + str(number), name, group, status, source]


def run_header(name: str, document: dict | None, number: int, count: int) -> list[str]:
    """The header's parts naming the run shown (docs/commands.md ``tcsexam tui RUN_DIR...``): its folder name, suite
    and solver protocol, and ``run N/M`` when several are open; control characters escaped (``plain``)."""
    parts = [plain(name)]
    if document is not None:
        parts.append(f"{plain(document['suite'])}/{plain(document['solver_protocol'])}")
    if count > 1:
        parts.append(f"run {number}/{count}")
    return parts


def run_source(slot, tau2_path: str | None) -> str:
    """What the header calls the run ``slot`` (a tui.state.RunSlot) when it is the only one: the folder as
    typed (its name when that is '.' or '..'), the attempts or cohort file, the bundled demo; with no run,
    the tau2-bench file open."""
    from pathlib import Path

    from .state import uses_demo

    config = slot.config
    if uses_demo(config):
        return "DEMO (bundled synthetic run)"
    if config.run_dir:
        return config.run_dir if Path(config.run_dir).name not in ("", "..") else slot.name
    if config.attempts or config.cohort:
        return config.attempts or config.cohort or ""
    return f"tau2-bench {tau2_path}" if tau2_path else "no run"


def load_clock(slot, now: float | None) -> str:
    """How long a run has been loading, in whole seconds (``now``: time.monotonic(), else unknown: 0 s)."""
    return f"{max(0.0, (now or slot.load_started) - slot.load_started):.0f} s"


def subtitle(slot, number: int, count: int, tau2_path: str | None, watching: bool, now: float | None = None) -> str:
    """The header's sub-title (plain text, never markup: names are data, docs/safety.md) for run ``slot``
    (number ``number`` of ``count`` open): the run, its status or its loader's progress, --watch, and a
    stale marker while its inputs are rejected."""
    document = slot.state.document if slot.state is not None else None
    if count > 1:
        parts = run_header(slot.name, document, number, count)
    else:
        parts = [plain(run_source(slot, tau2_path))]
        if document is not None:
            parts.append(f"{plain(document['suite'])}/{plain(document['solver_protocol'])}")
    if document is not None:
        parts.insert(1, document["status"])  # after the run's name: a narrow header cuts the suite, not the status
        if slot.loading:  # a reload or a --watch re-score: how long, then the load's progress line, up front
            parts.insert(1, f"reloading {load_clock(slot, now)} · {plain(slot.progress)}")
    elif slot.loading:
        parts.append(f"loading {load_clock(slot, now)} · {plain(slot.progress)}")
    elif slot.problems:
        parts.append("inputs rejected")
    if watching:
        parts.append("watching")
    if slot.stale:
        stale = slot.stale
        marker = (
            f"STALE: inputs rejected at {stale['at']} ({stale['count']} problem"
            f"{'s' if stale['count'] != 1 else ''}); showing {stale['loaded_at']}"
        )
        # first, so that a narrow terminal keeps it; with several runs after the run's (short) name
        parts.insert(1 if count > 1 else 0, marker)
    return " · ".join(parts)
