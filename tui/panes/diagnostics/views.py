"""The Diagnostics pane's pure functions.

No textual here: each function is testable without a terminal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    pass


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
