"""The Leaderboard pane's pure functions: the runs' models grouped as the leaderboard table groups them.

No textual here: each function is testable without a terminal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tcsexam.scoring.reports.numbers import INDEX_DIGITS, PM, TRACK_DIGITS

from ...views import (
    middle_ellipsis,
)

if TYPE_CHECKING:
    pass


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
        out.append(LeaderboardGroup(g.title, list(HEADER), rows, keys, [n for n in footnotes(g, marks=True) if n]))
    return out, []
