"""A DataTable that keeps its rendered cells while its styles stay the same.

Textual's DataTable empties every render cache (rows, cells, lines) on each style update,
and a style update reaches a table whenever it gains or loses the focus, so each tab switch
renders every visible line of the tables swapped in again, every cell of each line. The caches are already
keyed by the table's pseudo-class state (focus, hover, enabled) and base style; what they
are not keyed by is the CSS of the table's components (cursor, header, fixed columns, rows).
This table records those component styles per pseudo-class state at each render and empties
the caches only when they differ from the ones its cached lines were rendered with (a new
theme, a changed stylesheet), so an unchanged table is shown from its caches and a changed
one is rendered anew. Likewise a table shown again receives a Resize of the size it already
had, and DataTable starts a new cache generation on every Resize: here a new generation starts
when the table is rendered at a size or with column widths other than the last ones, Resize or not
(a size it had only between two Resize events, or before its first, once left a header row cut to the
narrower width; and rows drawn in a frame before DataTable's idle measured their cells, which
Textual's DataTable keeps drawing at the header widths when no Resize follows, once left the
Overview's names cut to five characters).
Data changes clear the caches as before (DataTable does it itself).

DataTable also renders every cell of a row, through rich, to show the few columns its width
shows: a 60-model Coverage grid drew all 61 cells of each line on first sight (about 250 ms
at 120 columns). This table renders the cells of the columns in view (and the fixed ones);
the others are blanks of their width, which the row's crop drops. A horizontal scroll that
brings other columns into view renders the rows again (their cells come from the cell cache).

Textual's private names used here (DataTable's and Widget's, as of Textual 8.2): ``_render_cell`` and
``_on_resize`` (overridden), ``_get_component_classes``, ``_styles_cache``, ``_get_styles_to_render_cell``,
``_clear_caches``, ``_update_count``, ``_row_render_cache`` and ``_line_cache``. tests/test_steady_tables.py fails if the
table stops drawing what DataTable draws or stops keeping its caches.
"""

from __future__ import annotations

from itertools import accumulate

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import DataTable

NULL_STYLE = Style.null()


class SteadyDataTable(DataTable):
    """DataTable whose render caches survive style updates that change nothing it draws; it also takes the
    keys a terminal user knows from vim, less and k9s (j/k, g/G), and Home / End go to the first / last
    row, as in the Instances table and the help (Textual's own Home / End scroll to the first / last
    column, which → and ← reach)."""

    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("g", "scroll_top", "First row", show=False),
        Binding("G", "scroll_bottom", "Last row", show=False),
        Binding("home", "scroll_top", "First row", show=False),
        Binding("end", "scroll_bottom", "Last row", show=False),
    ]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._rendered_styles: dict[object, tuple] = {}  # pseudo-class state -> style signature
        self._sized: tuple[Size, tuple[int, ...]] | None = None  # the size and column widths of the cached lines
        self._view_height = 0  # the lines the table showed at its last Resize (``_on_resize``)
        self._in_view: tuple[int, int] = (0, 0)  # [first, last) of the scrollable columns in view
        self._cuts: dict[int, tuple[int, int]] = {}  # columns the edges cut: the part of their cells shown

    def style_signature(self) -> tuple:
        """Every style the cached lines depend on apart from their cache keys: the table's own and those
        of its component classes (as resolved now, colours included). A table drawn in the frame it is
        mounted in has no component styles yet: they count as null, and differ once they are set."""
        return (
            self.rich_style,
            *(
                self.get_component_rich_style(name, default=NULL_STYLE)
                for name in sorted(self._get_component_classes())
            ),
        )

    def notify_style_update(self) -> None:
        # Widget's part only (its style caches), not DataTable's emptying of the render caches:
        # the component styles are resolved after this call, so the check is made at render time
        Widget.notify_style_update(self)
        self._styles_cache.clear()
        self._get_styles_to_render_cell.cache_clear()  # keyed without the pseudo-class state
        self.refresh()

    def column_widths(self) -> tuple[int, ...]:
        """Every column's drawn width, in order."""
        return tuple(column.get_render_width(self) for column in self.ordered_columns)

    def cut_columns(self, widths: tuple[int, ...]) -> dict[int, tuple[int, int]]:
        """The scrollable columns that the table's edges cut, each with the [start, end) of its cells that
        shows (offsets into the cell)."""
        fixed = self.fixed_columns
        left = int(self.scroll_x) + sum(widths[:fixed])
        right = int(self.scroll_x) + self.scrollable_content_region.width  # a vertical scrollbar covers the rest
        cuts = {}
        x = sum(widths[:fixed])
        for index in range(fixed, len(widths)):
            start, end = max(left - x, 0), min(right - x, widths[index])
            if start < end and (start, end) != (0, widths[index]):
                cuts[index] = (start, end)
            x += widths[index]
        return cuts

    def columns_in_view(self, widths: tuple[int, ...] | None = None) -> tuple[int, int]:
        """[first, last) indices of the scrollable columns that the table's width shows at its scroll
        (``widths``: column_widths(), when the caller has them)."""
        widths = self.column_widths() if widths is None else widths
        fixed = self.fixed_columns
        # the scrollable part of a row starts at column 0 and is cropped to these columns (DataTable._render_line)
        left = int(self.scroll_x) + sum(widths[:fixed])
        right = int(self.scroll_x) + self.size.width
        first = last = fixed
        x = sum(widths[:fixed])
        for index in range(fixed, len(widths)):
            if x + widths[index] <= left:
                first = index + 1
            elif x < right:
                last = index + 1
            x += widths[index]
        return first, max(first, last)

    def render_lines(self, crop):
        widths = self.column_widths()
        if (self.size, widths) != self._sized:  # rows cut or padded to other widths: a new cache generation
            self._update_count += 1
            self._styles_cache.clear()  # the widget's own copy of the lines too: every line is drawn anew
            self._sized = (self.size, widths)
        state, signature = self.get_pseudo_class_state(), self.style_signature()
        if self._rendered_styles.setdefault(state, signature) != signature:
            self._clear_caches()
            self._rendered_styles = {state: signature}
        in_view, cuts = self.columns_in_view(widths), self.cut_columns(widths)
        if (in_view, cuts) != (self._in_view, self._cuts):  # rows were joined from blanks where cells now show
            self._row_render_cache.clear()
            self._line_cache.clear()
            self._in_view, self._cuts = in_view, cuts
        return super().render_lines(crop)

    def _render_cell(self, row_index, column_index, base_style, width, cursor=False, hover=False):
        first, last = self._in_view
        cut = self._cuts.get(column_index)
        if (column_index < self.fixed_columns or first <= column_index < last) and (cut is None or cut[0] == 0):
            lines = super()._render_cell(row_index, column_index, base_style, width, cursor, hover)
            return lines if cut is None else [cut_line(line, width, *cut) for line in lines]
        # out of view, or cut by the left edge: the tail of a column beside the fixed ones ('al' of
        # 'provisional' after a model's name) would read as part of the name; blanks of its width
        height = self.header_height if row_index == -1 else self.ordered_rows[row_index].height
        return [[Segment(" " * width, base_style)] for _ in range(height)]

    def action_cursor_right(self) -> None:
        """Without a cell or column cursor, scroll right by one column: the next column's left edge
        meets the fixed ones, and the last step shows the last column whole."""
        if self.show_cursor and self.cursor_type in ("cell", "column"):
            super().action_cursor_right()
            return
        edges = self.column_edges()
        self.scroll_to(
            x=min(next((e for e in edges if e > self.scroll_x), edges[-1]), self.max_scroll_x), animate=False
        )

    def action_cursor_left(self) -> None:
        """Without a cell or column cursor, scroll left by one column (to the edge of the column cut)."""
        if self.show_cursor and self.cursor_type in ("cell", "column"):
            super().action_cursor_left()
            return
        self.scroll_to(x=max((e for e in self.column_edges() if e < self.scroll_x), default=0), animate=False)

    def column_edges(self) -> list[int]:
        """The scroll of each scrollable column's left edge (0 for the first)."""
        return list(accumulate(self.column_widths()[self.fixed_columns :], initial=0))

    def _on_resize(self, event: events.Resize) -> None:
        """A table that gets shorter keeps its cursor in view when it was in view: a terminal made
        smaller, or a line above or below the table shown or wrapped (the Overview's filter bar, the line
        under Coverage's grid). A table of the same height or taller keeps its scroll (a tab shown again
        gets a Resize of its size: a scroll of the mouse wheel away from the cursor stays), as does one
        whose cursor the user had scrolled out of view. (Textual calls one handler a class,
        ``_on_resize`` before ``on_resize``: this is the class's.)"""
        event.prevent_default()  # DataTable's handler (a new cache generation): render_lines starts one on a new size
        before, self._view_height = self._view_height, self.scrollable_content_region.height
        if not (self.row_count and self.cursor_type != "none" and 0 < self._view_height < before):
            return
        row = self._get_row_region(self.cursor_row)
        top = int(self.scroll_y) + (self.header_height if self.show_header else 0)
        if top <= row.y < int(self.scroll_y) + before:
            self.move_cursor(row=self.cursor_row, column=self.cursor_column)


def cut_line(line: list[Segment], width: int, start: int, end: int) -> list[Segment]:
    """One line of a cell of ``width`` cells of which only [start, end) shows: when text lies outside that
    part, the shown part ends (or starts) with … where the text goes on, so that a cut never shows a
    shorter number as if it were the value (``1–2`` for ``1–22``); blanks stay blanks."""
    strip = Strip(line, width)
    before, after = strip.crop(0, start).text.strip(), strip.crop(end, width).text.strip()
    if not before and not after:
        return line
    middle = list(strip.crop(start, end))
    style = middle[-1].style if middle else None
    if after:
        middle = [*Strip(middle).crop(0, end - start - 1), Segment("…", style)]
    if before:
        middle = [Segment("…", style), *Strip(middle).crop(1, end - start)]
    return [*strip.crop(0, start), *middle, *strip.crop(end, width)]
