"""A virtual table over numpy columns: renders only the visible lines.

Sorting and filtering reorder an index array (numpy), never the data; a
frame costs O(visible rows), whatever the row count (10^6 included).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ..state import STATUS_CODES, InstanceColumns

COLUMNS = ("instance", "status", "A", "mu", "s", "scale", "z", "phi")
WIDTHS = (18, 18, 14, 14, 12, 12, 10, 8)


def _num(x: float, width: int) -> str:
    if np.isnan(x):
        return "—".rjust(width)
    text = f"{x:.{max(width - 7, 3)}g}"
    return text.rjust(width)[:width]


def format_row(cols: InstanceColumns, i: int) -> str:
    """One line of the table for data row ``i`` (pure)."""
    name = cols.name(i)
    name = name if len(name) <= WIDTHS[0] else name[: WIDTHS[0] - 1] + "…"
    ok = cols.status[i] == 0
    parts = [name.ljust(WIDTHS[0]), STATUS_CODES[cols.status[i]].ljust(WIDTHS[1]),
             _num(cols.A[i] if ok else np.nan, WIDTHS[2]), _num(cols.mu[i], WIDTHS[3]), _num(cols.s[i], WIDTHS[4]),
             _num(cols.scale[i], WIDTHS[5]), _num(cols.z[i], WIDTHS[6]), f"{cols.phi[i]:.4f}".rjust(WIDTHS[7])]
    return " ".join(parts)


def header_line() -> str:
    return " ".join(c.ljust(w) if k < 2 else c.rjust(w) for k, (c, w) in enumerate(zip(COLUMNS, WIDTHS)))


class InstanceTable(ScrollView, can_focus=True):
    """Scrollable instance rows; the cursor row is highlighted."""

    BINDINGS = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "jump(0)", "First", show=False),
        Binding("end", "jump(-1)", "Last", show=False),
    ]
    DEFAULT_CSS = """
    InstanceTable { height: 1fr; }
    """
    cursor = reactive(0)

    @dataclass
    class CursorMoved(Message):
        row: int | None  # the data row under the cursor

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.cols: InstanceColumns | None = None
        self.order = np.zeros(0, dtype=np.int64)
        self._cursor_style = Style(reverse=True)
        self._failure_style = Style(dim=True)

    # --- data -------------------------------------------------------------------
    def set_data(self, cols: InstanceColumns | None, order: np.ndarray | None = None) -> None:
        self.cols = cols
        n = 0 if cols is None else len(cols)
        self.order = np.arange(n, dtype=np.int64) if order is None else order
        self._update_size()
        self.cursor = 0
        self.scroll_to(0, 0, animate=False)
        self.refresh()
        self._announce()

    def apply(self, column: str, descending: bool, status: int | None) -> None:
        """Filter by status code (None: all) and sort by a column."""
        if self.cols is None:
            return
        self.order = self.cols.order(column, descending, status)
        self._update_size()
        self.cursor = 0
        self.scroll_to(0, 0, animate=False)
        self.refresh()
        self._announce()

    def find(self, name: str) -> bool:
        """Move the cursor to the instance called ``name`` (exact, else first prefix match)."""
        if self.cols is None:
            return False
        names = self.cols.names[self.order]
        query = name.encode("utf-8")
        hits = np.flatnonzero(names == query)
        if not hits.size:
            hits = np.flatnonzero(np.char.startswith(names, query))
        if not hits.size:
            return False
        self.move_to(int(hits[0]))
        return True

    def _update_size(self) -> None:
        self.virtual_size = Size(sum(WIDTHS) + len(WIDTHS), len(self.order))

    # --- cursor -------------------------------------------------------------------
    def current_row(self) -> int | None:
        return int(self.order[self.cursor]) if len(self.order) else None

    def move_to(self, position: int) -> None:
        if not len(self.order):
            return
        self.cursor = max(0, min(position, len(self.order) - 1))
        top = self.scroll_offset.y
        height = max(self.scrollable_content_region.height, 1)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False)
        elif self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False)
        self._announce()

    def _announce(self) -> None:
        self.post_message(self.CursorMoved(self.current_row()))

    def watch_cursor(self, old: int, new: int) -> None:
        self.refresh()

    def action_cursor(self, delta: int) -> None:
        self.move_to(self.cursor + delta)

    def action_page(self, direction: int) -> None:
        height = max(self.scrollable_content_region.height, 1)
        self.move_to(self.cursor + direction * height)

    def action_jump(self, where: int) -> None:
        self.move_to(0 if where == 0 else len(self.order) - 1)

    def on_click(self, event) -> None:
        self.move_to(self.scroll_offset.y + event.y)

    # --- rendering ------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        position = self.scroll_offset.y + y
        width = self.scrollable_content_region.width
        if self.cols is None or position >= len(self.order):
            return Strip.blank(width)
        i = int(self.order[position])
        text = format_row(self.cols, i)
        style = self._cursor_style if position == self.cursor else (
            self._failure_style if self.cols.status[i] != 0 else Style())
        strip = Strip([Segment(text, style)]).crop(self.scroll_offset.x, self.scroll_offset.x + width)
        return strip.extend_cell_length(width, style if position == self.cursor else Style())
