"""A virtual table over numpy columns: renders only the visible lines.

Sorting and filtering reorder an index array (numpy), never the data; a
frame costs O(visible rows), whatever the row count (10^6 included).
"""

from __future__ import annotations

from collections.abc import Sequence
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

from ...state import STATUS_CODES, InstanceColumns
from ...textual_ext.data_table import cut_line
from ...views import Z_WIDTH, fmt, fmt_sig, fmt_z, plain

COLUMNS = ("instance", "status", "A", "mu", "s", "scale", "z", "phi")
WIDTHS = (18, 18, 11, 11, 9, 9, Z_WIDTH, 6)
NAME_WIDTH = (10, 28)  # the instance column fits the longest name within these bounds


LEAST = (8, 8)  # what a cut leaves of the name and status columns: 'MAXCUT_…', 'certifi…'


def column_widths(cols: InstanceColumns | None, room: int | None = None) -> tuple[int, ...]:
    """Widths that fit the data: names and statuses as long as the longest (bounded), numbers fixed.
    With ``room`` (the columns the table has), a line too wide for it cuts the status column first,
    then the name column, down to ``LEAST``, so that z and Phi stay on screen at 80 columns (the
    instance and its status are spelled out in full on the line under the table)."""
    if cols is None or not len(cols):
        return WIDTHS
    name = min(max(int(cols.names.dtype.itemsize), NAME_WIDTH[0]), NAME_WIDTH[1])
    status = max(6, max(len(STATUS_CODES[c]) for c in np.unique(cols.status)))
    widths = [name, status, *WIDTHS[2:]]
    excess = line_width(widths) - room if room is not None else 0
    for k in (1, 0):
        cut = min(max(excess, 0), max(widths[k] - LEAST[k], 0))
        widths[k] -= cut
        excess -= cut
    return tuple(widths)


def line_width(widths: Sequence[int]) -> int:
    """The cells of a line of ``format_row``: its columns and one space between each two."""
    return sum(widths) + len(widths) - 1


def _cut(text: str, width: int) -> str:
    """``text`` in ``width`` columns, ending with … where it is cut."""
    return text if len(text) <= width else text[: width - 1] + "…"


def _num(x: float, width: int) -> str:
    """An objective value (A, mu, s, scale) with the same significant digits in every row (views.fmt_sig)."""
    return _right(fmt_sig(float(x)), width)


def _right(text: str, width: int) -> str:
    return text.rjust(width)[:width]


def format_row(cols: InstanceColumns, i: int, widths: tuple[int, ...] = WIDTHS) -> str:
    """One line of the table for data row ``i`` (pure); names are shown with control characters escaped."""
    ok = cols.status[i] == 0
    parts = [
        _cut(plain(cols.name(i)), widths[0]).ljust(widths[0]),
        _cut(STATUS_CODES[cols.status[i]], widths[1]).ljust(widths[1]),
        _num(cols.A[i] if ok else np.nan, widths[2]),
        _num(cols.mu[i], widths[3]),
        _num(cols.s[i], widths[4]),
        _num(cols.scale[i], widths[5]),
        _right(fmt_z(float(cols.z[i])), widths[6]),  # a z too large for its decimals: 2 significant digits
        _right(fmt(float(cols.phi[i])), widths[7]),
    ]
    return " ".join(parts)


def shown_part(text: str, widths: tuple[int, ...], start: int, width: int) -> str:
    """The part [start, start + width) of a line of ``format_row`` that the screen shows, where a cell the
    edge cuts ends (or, scrolled, starts) with … as in every other table (textual_ext.data_table.cut_line):
    never ``0.97`` for ``0.979``."""
    end = start + width
    chars = list(text[start:end].ljust(width))
    x = 0
    for w in widths:
        if x < end and x + w > start and (x < start or x + w > end):
            cut = cut_line([Segment(text[x : x + w])], w, max(start - x, 0), min(end - x, w))
            shown = "".join(s.text for s in cut)[max(start - x, 0) : min(end - x, w)]
            chars[max(x, start) - start : min(x + w, end) - start] = shown
        x += w + 1
    return "".join(chars)


def header_line(widths: tuple[int, ...] = WIDTHS, sort: tuple[str, bool] | None = None) -> str:
    """Column names over the rows, the sorted one marked ▲ (ascending) or ▼ (descending)."""
    out = []
    for k, (c, w) in enumerate(zip(COLUMNS, widths, strict=True)):
        mark = ("▼" if sort[1] else "▲") if sort and sort[0] == c else ""
        label = f"{c} {mark}" if mark else c
        if len(label) > w:  # 'instance▲' in 9 columns, 'instan…▲' in 8: a cut name says it is cut
            label = c + mark if len(c + mark) <= w else c[: max(w - 1 - len(mark), 1)] + "…" + mark
        out.append(label.ljust(w) if k < 2 else label.rjust(w))
    return " ".join(out)


def column_at(x: int, widths: tuple[int, ...] = WIDTHS) -> str | None:
    """The column under character offset ``x`` of a line (a header click)."""
    left = 0
    for c, w in zip(COLUMNS, widths, strict=True):
        if left <= x < left + w + 1:
            return c
        left += w + 1
    return None


def name_matches(lowered: np.ndarray, order: np.ndarray, query: str) -> np.ndarray:
    """Positions in the view (indices into ``order``) of the instances whose name contains ``query``,
    ASCII letters in either case. ``lowered`` is the name column with its ASCII letters lowered
    (``np.strings.lower``); one vectorised pass over it, whatever the row count."""
    needle = query.encode("utf-8").lower()
    if not needle or not len(order):
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero((np.strings.find(lowered, needle) >= 0)[order])


def step_match(matches: np.ndarray, cursor: int, step: int) -> int:
    """Which match (index into ``matches``, positions ascending) the cursor goes to: the first at
    or after ``cursor`` (step 0), the next after it (1) or the previous before it (-1), wrapping
    around the view's ends. ``matches`` must not be empty."""
    if step < 0:
        i = int(np.searchsorted(matches, cursor, side="left")) - 1
        return i % len(matches)
    i = int(np.searchsorted(matches, cursor, side="left" if step == 0 else "right"))
    return i % len(matches)


class InstanceTable(ScrollView, can_focus=True):
    """Scrollable instance rows; the cursor row is highlighted."""

    BINDINGS = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "jump(0)", "First", show=False),
        Binding("end", "jump(-1)", "Last", show=False),
        Binding("j", "cursor(1)", "Down", show=False),
        Binding("k", "cursor(-1)", "Up", show=False),
        Binding("g", "jump(0)", "First", show=False),
        Binding("G", "jump(-1)", "Last", show=False),
    ]
    DEFAULT_CSS = """
    InstanceTable { height: 1fr; }
    """
    cursor = reactive(0)
    focus_when_loaded = False  # the tab opened while loading: take the keyboard once loaded

    def watch_loading(self, loading: bool) -> None:
        if not loading and self.focus_when_loaded:
            self.focus_when_loaded = False
            if self.screen.focused is None:  # unless the user has put it elsewhere meanwhile
                self.focus()

    @dataclass
    class CursorMoved(Message):
        row: int | None  # the data row under the cursor

    @dataclass
    class ScrolledX(Message):
        x: int  # horizontal scroll offset (the header follows it)

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.cols: InstanceColumns | None = None
        self.widths: tuple[int, ...] = WIDTHS
        self.order = np.zeros(0, dtype=np.int64)
        self._cursor_style = Style(reverse=True)
        self._blurred_cursor_style = Style(underline=True, bold=True)  # the cursor row while the table has no focus
        self._failure_style = Style(dim=True)
        self._lowered: tuple[InstanceColumns, np.ndarray] | None = None  # the name column, lowered once

    # --- data -------------------------------------------------------------------
    def set_data(self, cols: InstanceColumns | None, order: np.ndarray | None = None) -> None:
        self.cols = cols
        self.widths = column_widths(cols, self._room())
        n = 0 if cols is None else len(cols)
        self.order = np.arange(n, dtype=np.int64) if order is None else order
        self._update_size()
        self.cursor = 0
        self.scroll_to(0, 0, animate=False)
        self.refresh()
        self._announce()

    def apply(self, column: str, descending: bool, status: int | None, top: bool = False) -> None:
        """Filter by status code (None: all) and sort by a column; the cursor stays on its instance, or
        with ``top`` (a sort asked for) goes to the first row."""
        if self.cols is None:
            return
        current = None if top else self.current_row()
        self.order = self.cols.order(column, descending, status)
        self._update_size()
        hit = np.flatnonzero(self.order == current) if current is not None else None
        self.cursor = int(hit[0]) if hit is not None and len(hit) else 0
        height = max(self.scrollable_content_region.height, 1)
        self.scroll_to(0, max(self.cursor - height // 2, 0), animate=False)
        self.refresh()
        self._announce()

    def search(self, query: str) -> np.ndarray:
        """Positions in the current view (sorted and filtered) of the names containing ``query``."""
        if self.cols is None:
            return np.zeros(0, dtype=np.int64)
        if self._lowered is None or self._lowered[0] is not self.cols:
            self._lowered = (self.cols, np.strings.lower(self.cols.names))
        return name_matches(self._lowered[1], self.order, query)

    def _update_size(self) -> None:
        self.virtual_size = Size(line_width(self.widths), len(self.order))

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

    def watch_scroll_x(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_x(old_value, new_value)
        self.post_message(self.ScrolledX(int(new_value)))

    def _room(self) -> int | None:
        """The columns the rows have on screen; None while the table has no size (its tab hidden). The
        vertical scrollbar's room is kept whether it shows or not, so that the columns stay where they are
        when a status filter or another task changes the number of rows (2 cells, at 80 columns too)."""
        return self.size.width - self.styles.scrollbar_size_vertical if self.size.width else None

    def on_resize(self) -> None:
        """Columns fitted to the new width (the header follows, by ``ScrolledX``); the cursor in view
        once the table has a size (a drill-down moves it while its tab is hidden)."""
        widths = column_widths(self.cols, self._room())
        if widths != self.widths:
            self.widths = widths
            self._update_size()
            self.refresh()
            self.post_message(self.ScrolledX(int(self.scroll_x)))
        height = self.scrollable_content_region.height
        if height and len(self.order) and not self.scroll_offset.y <= self.cursor < self.scroll_offset.y + height:
            self.scroll_to(y=max(self.cursor - height // 2, 0), animate=False)

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def on_click(self, event) -> None:
        self.move_to(self.scroll_offset.y + event.y)

    # --- rendering ------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        position = self.scroll_offset.y + y
        width = self.scrollable_content_region.width
        if self.cols is None or position >= len(self.order):
            return Strip.blank(width)
        i = int(self.order[position])
        text = shown_part(format_row(self.cols, i, self.widths), self.widths, self.scroll_offset.x, width)
        cursor_style = self._cursor_style if self.has_focus else self._blurred_cursor_style
        style = (
            cursor_style if position == self.cursor else (self._failure_style if self.cols.status[i] != 0 else Style())
        )
        strip = Strip([Segment(text, style)])
        return strip.extend_cell_length(width, style if position == self.cursor else Style())
