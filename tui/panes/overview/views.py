"""The Overview's pure functions: its rows, their order, the status line and the cursor row's line.

No textual here: each function is testable without a terminal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tcsexam.scoring.reports.numbers import INDEX_DIGITS, TRACK_DIGITS, with_half_width
from tcsexam.scoring.vocab import STATUS_ORDER, TRACKS, rank_text
from tcsexam.scoring.vocab import TRACK_LETTERS as LETTERS

from ...find import natural_key
from ...views import (
    DASH,
    fmt,
    half_width,
    middle_ellipsis,
    shares_text,
)

if TYPE_CHECKING:
    from tcsexam.scoring.formats.results import Ranks


def fmt_pm(x: float | None, pm: float | None, digits: int) -> str:
    """``x ± h`` (the 95% half-width; scoring.reports.numbers.with_half_width), ``x`` alone without an
    interval, — for null."""
    return with_half_width(x, pm, digits, null=DASH)


STATUS_STYLE = {"complete": "bold green", "provisional": "bold yellow", "incomplete": "bold red"}


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
            return (0, natural_key(self.model))
        if column == 1:
            return (0, STATUS_ORDER[self.status])
        if column == RANK_COLUMN:
            return (1, (0, 0)) if self.rank is None else (0, self.rank)
        if column == BUDGET_COLUMN:
            return (0, natural_key(self.model))  # percents of four tracks have no order: by model
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
    """' among models with an index (k of n)' when some model of the run has none (it is incomplete and
    not ranked, docs/rules.md#ranks), else '': what a leader or a top group is chosen among."""
    models = document["models"]
    ranked = sum(1 for m in models.values() if m["index"] is not None)
    return "" if ranked == len(models) else f" among models with an index ({ranked:,} of {len(models):,})"


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
    ends, its rank among the ranked models, or why it has none. The interval's ends come last: a line
    too long for the screen is cut there, not in the rank (80 columns cut 'rank 1–2 o…')."""
    ranked = sum(m["index"] is not None for m in document["models"].values())
    parts: list = [(row.model, "bold"), (f" · {row.status}", "")]
    if row.index is None:
        incomplete = sum(row.total[t] - row.complete[t] for t in TRACKS)
        parts.append((f" · no index: {incomplete} of {sum(row.total.values())} tasks incomplete", ""))
    else:
        parts.append((f" · index {fmt_pm(row.index, row.index_pm, INDEX_DIGITS)}", ""))
        if row.rank is not None:
            parts.append((f" · rank {rank_label(row.rank)} of {ranked:,}", ""))
        if row.index_pm is not None:
            lo, hi = row.index - row.index_pm, row.index + row.index_pm
            parts.append((f" · 95%: {lo:.{INDEX_DIGITS}f} to {hi:.{INDEX_DIGITS}f}", ""))
    return tuple(parts)
