"""Instances' search of the names (`/`, then `n` / `N`): the cursor follows the text as it is typed,
then steps through the matches in the view's order (docs/dashboard.md#keys)."""

from __future__ import annotations

import numpy as np
from textual import on
from textual.containers import Vertical
from textual.widgets import Input

from ...state import InstanceColumns
from ...views import plain
from .table import InstanceTable, step_match


class NameSearch(Vertical):
    """The search of the Instances pane: its jump box is ``#instances-jump``, its table an InstanceTable,
    whose columns and view (the rows the sort and the status filter leave, in order) it searches."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.query_text: str | None = None  # the last search (/), stepped through with n and N
        self._origin: int | None = None  # the instance (data row) under the cursor when the typing began
        self._matches: tuple | None = None  # (query, view order, positions of its matches)

    @property
    def _cols(self) -> InstanceColumns | None:
        return self.query_one(InstanceTable).cols

    @on(Input.Changed, "#instances-jump")
    def _search_as_typed(self, event: Input.Changed) -> None:
        """The cursor follows the search as it is typed: to the instance of that very name, else to the
        first name containing the text at or after where the cursor was when the typing began; back
        there when no name matches (the line under the table says so) or the text is erased."""
        table = self.query_one(InstanceTable)
        if self._cols is None:
            return
        if self._origin is None:
            self._origin = table.current_row()
        start = self._position(self._origin)  # where that instance is in the view now (a reload may move it)
        query = event.value.strip()
        self.query_text = query or None
        exact = self._exact(query)
        matches = self.matches() if query and exact is None else np.zeros(0, dtype=np.int64)
        if exact is not None:
            table.move_to(exact)
        elif len(matches):
            table.move_to(int(matches[step_match(matches, start, 0)]))
        else:
            table.move_to(start)

    def forget_search(self) -> None:
        """Another attempt shown: the search typed for the last one goes (its note said 'no instance
        name contains ...' of names the new task never had)."""
        self.query_text, self._origin, self._matches = None, None, None
        box = self.query_one("#instances-jump", Input)
        with box.prevent(Input.Changed):
            box.value = ""

    @on(Input.Blurred, "#instances-jump")
    def _typing_ended(self, event: Input.Blurred) -> None:
        """The box let go of the keyboard (enter, escape, Tab, a click): a search typed next begins anew."""
        self._origin = None

    @on(Input.Submitted, "#instances-jump")
    def _jump(self, event: Input.Submitted) -> None:
        """Enter: the table takes the keyboard back, its cursor on the instance of that very name if
        the view has it, else on the first name containing the text at or after the cursor (a
        notification when none does); `n` / `N` then step through the matches."""
        query = event.value.strip()
        table = self.query_one(InstanceTable)
        self.query_text = query or None
        if query and self._cols is not None:
            exact = self._exact(query)
            if exact is not None:
                table.move_to(exact)
            else:
                self._step(0)
        table.focus()

    def _exact(self, query: str) -> int | None:
        """The position in the view of the instance named ``query`` exactly, if the view has it (the name
        column compared as it is, then the row found in the view: no copy of the column per key)."""
        if not query or self._cols is None:
            return None
        named = np.flatnonzero(self._cols.names == query.encode("utf-8"))
        return self._position(int(named[0])) if len(named) else None

    def _filtered(self) -> bool:
        """Whether the status filter hides rows of the attempt."""
        table = self.query_one(InstanceTable)
        return table.cols is not None and len(table.order) < len(table.cols)

    def _position(self, row: int | None) -> int:
        """Where the data row ``row`` is in the table's view (0 when it is not there)."""
        if row is None:
            return 0
        found = np.flatnonzero(self.query_one(InstanceTable).order == row)
        return int(found[0]) if len(found) else 0

    def matches(self) -> np.ndarray:
        """Positions in the table's current view of the names containing the search (computed again
        when the view or the search changes)."""
        table = self.query_one(InstanceTable)
        query = self.query_text or ""
        cached = self._matches
        if cached is None or cached[0] != query or cached[1] is not table.order:
            cached = self._matches = (query, table.order, table.search(query))
        return cached[2]

    def _step(self, step: int) -> None:
        """The cursor to the first match at or after it (0), the next (1) or the previous (-1)."""
        matches = self.matches()
        if not len(matches):
            self.app.notify(
                f"No instance name contains '{plain(self.query_text or '')}' in the current view"
                + (" (the status filter hides some rows)" if self._filtered() else ""),
                severity="warning",
                markup=False,
            )
            return
        table = self.query_one(InstanceTable)
        table.move_to(int(matches[step_match(matches, table.cursor, step)]))

    def action_search_next(self) -> None:
        if self.query_text and self._cols is not None:
            self._step(1)

    def action_search_previous(self) -> None:
        if self.query_text and self._cols is not None:
            self._step(-1)

    def match_note(self) -> str:
        """'match i of m for "text" · ' when the cursor is on a match of the search, else ''."""
        if not self.query_text or self._cols is None:
            return ""
        matches = self.matches()
        cursor = self.query_one(InstanceTable).cursor
        i = int(np.searchsorted(matches, cursor))
        if i < len(matches) and matches[i] == cursor:
            return f"match {i + 1:,} of {len(matches):,} for '{plain(self.query_text)}' (n / N) · "
        if not len(matches):
            return f"no instance name contains '{plain(self.query_text)}' in this view · "
        return f"{len(matches):,} matches for '{plain(self.query_text)}' (n / N) · "

    def action_focus_jump(self) -> None:
        """Focus the jump box now, not after the next frame: keys typed right after / land in it."""
        self.screen.set_focus(self.query_one("#instances-jump", Input))
