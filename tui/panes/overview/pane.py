"""Overview: one line of status, one row per model (sortable) with its index drawn as a forest plot in a column
(tui/forest.py), and a line naming the cursor row's model in full."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Static
from textual.widgets.data_table import ColumnKey

from tcsexam.scoring.vocab import STATUS_ORDER

from ...find import count_note, filtered, sort_choice
from ...forest import forest_gauge, forest_header, forest_top, gauge_width
from ...messages import DrillDown, ModelOrder, ModelSelected, WorstComputed
from ...textual_ext.data_table import SteadyDataTable
from ...textual_ext.workers import released
from ...views import cells, text
from ...widgets.filter_bar import FilterBar, FiltersRows
from ...widgets.loading import CLEAR_FILTER_BINDING, FILTER_BINDING, SORT_BINDINGS, ShowsRun
from .views import (
    COLUMN_TIPS,
    GAUGE_COLUMN,
    INDEX_COLUMN,
    LOWER_END,
    LOWER_END_LABEL,
    OVERVIEW_COLUMNS,
    RANK_COLUMN,
    STATUS_STYLE,
    OverviewRow,
    column_under,
    overview_detail,
    overview_rows,
    sort_rows,
    status_line,
)

if TYPE_CHECKING:
    from ...run_view import RunView

FILL_CHUNK = 200  # rows added to the table per turn of the event loop
TURN_S = 0.005  # a timer, not call_later: the messages of one widget are handled back to back, keys wait


class OverviewTable(SteadyDataTable):
    """The Overview's table: Enter opens the model's instances (shown in the footer)."""

    BINDINGS = [
        Binding("enter", "select_cursor", "Instances"),
        Binding("p", "passk", "pass^k"),
        Binding("w", "worst", "Worst instances"),
    ]

    def cursor_model(self) -> str | None:
        if not self.row_count:
            return None
        return self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value

    def on_mouse_move(self, event: events.MouseMove) -> None:
        """Over a column's header, its meaning as the tooltip (views.COLUMN_TIPS)."""
        tip = None
        if self.show_header and event.y < self.header_height:
            widths = [column.get_render_width(self) for column in self.ordered_columns]
            at = column_under(widths, self.fixed_columns, round(self.scroll_x), event.x)
            if at is not None:
                tip = COLUMN_TIPS.get(OVERVIEW_COLUMNS[at])
        if tip != self.tooltip:
            self.tooltip = tip

    def action_passk(self) -> None:
        model = self.cursor_model()
        if model is not None:
            self.post_message(DrillDown("passk", model))

    def action_worst(self) -> None:
        """The model's worst instances across its solver tasks (worst.py beside it)."""
        model = self.cursor_model()
        if model is not None:
            self.query_ancestor(OverviewPane).worst(model)


class OverviewPane(FiltersRows, ShowsRun, Vertical):
    # The pane's own rules. Not scoped: the size classes (-short) sit on the screen, above the pane.
    SCOPED_CSS = False
    DEFAULT_CSS = """
    #overview-summary, #overview-detail { height: 1; padding: 0; text-wrap: nowrap; text-overflow: ellipsis; }
    #overview-summary { margin-bottom: 1; }
    #overview-table { height: 1fr; }
    #overview-detail { color: $text; }
    #overview-summary.-message { height: auto; text-wrap: wrap; }
    .-short #overview-summary { margin-bottom: 0; }
    """

    HELP = """\
One row per model: status, index and P/S/C/O means (± = the half-width of the 95% interval, a t interval
over the tasks; then tasks complete/total), the forest plot (● the index, ─ its 95% interval, one scale from
0 for every row; ○ and the reason without an index), "Uncertainty from" (how much of the index's variance each
track brings, in percent; `tcsexam docs rules#variance-budget`) and the rank (`best–worst`: the places the model could
hold among the models it is not clearly separated from, paired tests at 95% corrected for the number of pairs;
`tcsexam docs rules#ranks`). The top line names a leader only when rank 1 holds one model alone. A column header's
tooltip says what it means; the line under the table names the cursor row's model in full.
Moving the cursor selects the model for every other tab. `Enter` opens its Instances, `p` its pass^k,
`w` its worst instances across every solver task (lowest Phi first; `Enter` on one opens it in Instances).
`/` filters the rows by name or `status:WORD` ("12 of 2,000 models"); `s` picks the column to sort by
(the cursor then goes to row 1), `S` reverses;
`c` copies the run's table as Markdown, `C` as LaTeX (the same text as `tcsexam table`).
"""  # its section of the help (tui/help_text.py)

    BINDINGS = [
        CLEAR_FILTER_BINDING,
        FILTER_BINDING,
        *SORT_BINDINGS,
        Binding("c", "app.copy_table('markdown')", "Copy Markdown"),
        Binding("C", "app.copy_table('latex')", "Copy LaTeX"),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.rows: list[OverviewRow] = []
        self.sort_column = 2
        self.sort_reverse = True
        self._model_of: dict[int, str] = {}  # id() of each row's Model cell -> the model (DataTable.sort's key)
        self._filling: object | None = None  # while rows are still being added, a turn at a time
        self._row_of: dict[str, OverviewRow] = {}
        self._scale = (100.0, 17)  # the forest plot's (top, width), shared by every row (tui/forest.py)
        self._kept_column = 0  # the first column in view when the table was emptied (``show_empty``)

    def compose(self) -> ComposeResult:
        yield Static("Loading the run…", id="overview-summary", markup=False)
        yield FilterBar(id="overview-filter")
        yield OverviewTable(id="overview-table", cursor_type="row", zebra_stripes=True, fixed_columns=1)
        yield Static("", id="overview-detail", markup=False)

    def show_empty(self, message: str) -> None:
        """No run to show (rejected inputs, or --tau2 alone): a sentence instead of an empty table and plot."""
        self.document, self.rows, self._row_of = None, [], {}
        summary = self.query_one("#overview-summary", Static)
        summary.update(message)
        summary.tooltip = None
        summary.set_class(True, "-message")  # a sentence, wrapped, instead of the status line
        self._kept_column = self._first_column_in_view() or self._kept_column  # for the run shown next
        self.query_one(DataTable).clear(columns=True)
        self.query_one(DataTable).set_class(True, "gone")
        self.query_one("#overview-detail").set_class(True, "gone")

    def show_run(self, view: RunView) -> None:
        self.show(view.document, view.model, demo=view.demo)

    def keep_showing(self, document: dict) -> None:
        """Hold the checked run's ``document`` in place of the cached view shown while it was checked,
        found to hold the same numbers (tui/app_loading.py): the rows, the cursor and the scroll stay,
        and the view, a second copy of every model's tasks, is let go (docs/dashboard-large-runs.md#memory-over-reloads)."""
        self.document = document

    def show(self, document: dict, selected: str | None, demo: bool = False) -> None:
        self.document = document
        self.rows = overview_rows(document)
        self._row_of = {r.model: r for r in self.rows}
        self.query_one(DataTable).set_class(False, "gone")
        self.query_one("#overview-detail").set_class(False, "gone")
        line = text(*status_line(document, demo))
        summary = self.query_one("#overview-summary", Static)
        summary.update(line)
        summary.set_class(False, "-message")
        summary.tooltip = line.plain  # the whole line, where a narrow terminal cuts it
        self._fill(selected)

    def order(self) -> list[str]:
        """Models in the table's current order."""
        return [r.model for r in sort_rows(self.rows, self.sort_column, self.sort_reverse)]

    def shown(self) -> list[OverviewRow]:
        """The rows the table holds: in the table's order, those the filter (``/``) leaves."""
        rows = sort_rows(self.rows, self.sort_column, self.sort_reverse)
        return filtered(rows, self.query_one(FilterBar).filter_query, lambda r: r.model, lambda r: r.status)

    def overtaken(self, model: str) -> bool:
        """Whether a selection of ``model`` was posted while the cursor was elsewhere by the time it
        arrives (the highlight of row 0 when the table is refilled, or a row the cursor has since left):
        following it would move the cursor back and start a ping-pong of selections."""
        table = self.query_one("#overview-table", DataTable)
        if model not in table.rows or not table.row_count:
            return False
        return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value != model

    def top_model(self) -> str | None:
        models = [r.model for r in self.shown()] or self.order()
        return models[0] if models else None

    def follow(self, model: str) -> None:
        """Put the cursor on the selected model's row (the selection was made elsewhere)."""
        table = self.query_one(DataTable)
        if model in table.rows and table.cursor_row != table.get_row_index(model):
            table.move_cursor(row=table.get_row_index(model))

    def on_resize(self) -> None:
        """The plot takes the free width at every size, a terminal resized too: a new width redraws it."""
        if self.rows and self._gauge_width() != self._scale[1]:
            self._fill()

    def _first_column_in_view(self) -> int:
        """The scrollable column the table's horizontal scroll shows first (0: not scrolled)."""
        table = self.query_one(DataTable)
        if not isinstance(table, SteadyDataTable) or not table.scroll_x:
            return 0
        return sum(1 for edge in table.column_edges()[1:] if edge <= table.scroll_x)

    def _fill(self, selected: str | None = None) -> None:
        table = self.query_one(DataTable)
        current = selected
        if current is None and table.row_count:
            current = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        # a reload or a filter keeps the first column in view (its edge once the new cells are measured); a
        # large run's reload emptied the table meanwhile (``show_empty``), which kept it
        first, self._kept_column = self._first_column_in_view() or self._kept_column, 0
        if first and isinstance(table, SteadyDataTable):
            table.call_after_refresh(
                lambda: table.scroll_to(x=table.column_edges()[min(first, len(table.columns) - 1)], animate=False)
            )
        table.clear(columns=True)
        self._scale = (forest_top((r.index, r.index_pm) for r in self.rows), self._gauge_width())
        for i, label in enumerate(self._labels()):
            table.add_column(label, key=str(i), width=self._scale[1] if i == GAUGE_COLUMN else None)
        self._model_of = {}
        rows = self.shown()
        self._count(len(rows))
        self._filling = token = object()
        self._add_rows(table, rows[:FILL_CHUNK])
        if len(rows) <= FILL_CHUNK:
            self._ordered(table, current)
            return
        # many models: the other rows a chunk per turn of the event loop (DataTable formats and measures
        # each new row's cells at once: 2,000 rows held the dashboard half a second)
        table.move_cursor(row=0)

        def more(at: int) -> None:
            if self._filling is not token:
                return  # refilled meanwhile
            self._add_rows(table, rows[at : at + FILL_CHUNK])
            if at + FILL_CHUNK < len(rows):
                self.set_timer(TURN_S, partial(more, at + FILL_CHUNK))
            else:
                self._filling = None
                self._ordered(table, current)

        self.set_timer(TURN_S, partial(more, FILL_CHUNK))

    def _gauge_width(self) -> int:
        """The forest plot's width: the screen's width less every other column's (the widest of its label and
        cells, padded), when that leaves more than ``gauge_width``'s least, so the plot takes the free width."""
        from rich.cells import cell_len

        widths = [cell_len(label) + 2 for label in OVERVIEW_COLUMNS]
        for row in self.rows:
            for i, cell in enumerate(row.cells()):
                widths[i] = max(widths[i], cell_len(cell) + 2)
        others = sum(w for i, w in enumerate(widths) if i != GAUGE_COLUMN)
        free = self.app.size.width - others - 2 - 2 - 2  # the scrollbar, the plot's padding, a sort arrow
        return max(gauge_width(self.app.size.width), free)

    def _add_rows(self, table: DataTable, rows: list) -> None:
        top, width = self._scale
        for row in rows:
            gauge = forest_gauge(row.index, row.index_pm, top, width, row.null_reason())
            values: list = cells(*row.cells(gauge))
            values[1] = Text(str(values[1]), style=STATUS_STYLE[row.status])
            values[GAUGE_COLUMN].stylize("bold" if row.index is not None else "dim")
            self._model_of[id(values[0])] = row.model
            table.add_row(*values, key=row.model)

    def _labels(self) -> list[str]:
        arrow = "▼" if self.sort_reverse else "▲"
        labels = [label + (f" {arrow}" if i == self.sort_column else "") for i, label in enumerate(OVERVIEW_COLUMNS)]
        labels[GAUGE_COLUMN] = forest_header(*self._scale)  # the scale's ticks (sorting by it sorts by the index)
        return labels

    def _count(self, shown: int) -> None:
        bar = self.query_one(FilterBar)
        bar.show_count(count_note(shown, len(self.rows), "models", bar.filter_query, list(STATUS_ORDER)))
        if not shown:  # no row, no cursor: the line under the table describes no model (it kept the last one)
            self.query_one("#overview-detail", Static).update("No model passes the filter: escape clears it.")

    @on(FilterBar.Changed)
    def _filter_changed(self, event: FilterBar.Changed) -> None:
        """A new filter: the table made again from the rows it leaves, the cursor kept on its model
        when the filter leaves it (a burst of keys is one filter: FilterBar's pause)."""
        event.stop()
        if self.document is not None:
            self._fill()

    @on(FilterBar.Done)
    def _filter_done(self, event: FilterBar.Done) -> None:
        event.stop()
        self.query_one(DataTable).focus()

    def _resort(self) -> None:
        """A new sort, asked for (s, S, a header): the rows the table holds put in the new order
        (DataTable.sort), not made again (a refill formats and measures every cell: about a second at
        2,000 models), and the cursor on the first row."""
        table = self.query_one(DataTable)
        if not table.row_count or self._filling is not None:
            self._fill(self._first_model())
            return
        current = self._first_model()
        for i, label in enumerate(self._labels()):
            column = table.columns[ColumnKey(str(i))]
            column.label = Text(label)
            column.content_width = max(column.content_width, column.label.cell_len)
        position = {model: i for i, model in enumerate(self.order())}
        model_of = self._model_of
        table.sort("0", key=lambda cell: position[model_of[id(cell)]])
        self._ordered(table, current)

    def _first_model(self) -> str | None:
        shown = self.shown()
        return shown[0].model if shown else None

    def _ordered(self, table: DataTable, current: str | None) -> None:
        """After a fill or a sort: the cursor on ``current`` (else the top row), the order announced, the chart."""
        if current is not None and current in table.rows:
            row = table.get_row_index(current)
            table.move_cursor(row=row, scroll=False)
            # the cursor's row in the middle of the view (a reload kept it there; a sort put it on top)
            table.scroll_to(y=max(row - table.scrollable_content_region.height // 2, 0), animate=False)
        else:
            table.move_cursor(row=0)
        self.post_message(ModelOrder(self.order()))

    def sort_by(self, column: int) -> None:
        """Sort by a column in its natural direction (numbers high first, names and ranks low first); the
        current column again reverses; the interval column sorts as the index does."""
        column = INDEX_COLUMN if column == GAUGE_COLUMN else column
        natural = column >= 2 and column != RANK_COLUMN
        self.sort_column, self.sort_reverse = sort_choice(column, self.sort_column, self.sort_reverse, natural)
        self._resort()

    def action_sort_pick(self) -> None:
        from ...screens.sort_picker import SortPicker

        # the interval column sorts as the index; its lower end is a choice of its own (the cautious ranking)
        columns = [i for i in range(len(OVERVIEW_COLUMNS)) if i != GAUGE_COLUMN] + [LOWER_END]
        labels = [OVERVIEW_COLUMNS[i] for i in columns[:-1]] + [LOWER_END_LABEL]
        picker = SortPicker("the models", labels, columns.index(self.sort_column), self.sort_reverse)
        self.app.push_screen(picker, lambda at: self.sort_by(columns[at]) if at is not None else None)

    def action_sort_reverse(self) -> None:
        self.sort_reverse = not self.sort_reverse
        self._resort()

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        self.sort_by(event.column_index)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if event.row_key is not None and event.row_key.value is not None:
            row = self._row_of.get(event.row_key.value)
            if row is not None and self.document is not None:
                self.query_one("#overview-detail", Static).update(text(*overview_detail(row, self.document)))
            self.post_message(ModelSelected(event.row_key.value))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key is not None and event.row_key.value is not None:
            self.post_message(DrillDown("instances", event.row_key.value))

    # --- where does the model fail: its worst instances (worst.py beside it) -------------------
    def worst(self, model: str) -> None:
        state = getattr(self.app, "state", None)
        if state is None or model not in state.document["models"]:
            return
        self._worst_worker(state, model)

    @work(thread=True, exclusive=True, group="worst", description="a model's worst instances")
    @released
    def _worst_worker(self, state, model: str) -> None:
        from ...find import worst_instances
        from ...state import STATUS_CODES

        rows, total, attempts = worst_instances(state.columns, model, STATUS_CODES)
        self.post_message(WorstComputed(model, rows, total, attempts))

    @on(WorstComputed)
    def _worst_computed(self, message: WorstComputed) -> None:
        from ...views import plain
        from .worst import WorstScreen

        message.stop()
        if self.document is None or message.model not in self.document["models"]:
            return
        if not message.rows:
            self.app.notify(
                f"{plain(message.model)} has no instances to list: no solver attempt of it was re-scored from "
                "records (the run has no records/ folder, or none of its solver attempts is adopted and valid).",
                severity="warning",
                markup=False,
            )
            return

        def chosen(row) -> None:
            if row is not None:
                self.post_message(DrillDown("instances", message.model, row.item, row.attempt, row.instance))

        self.app.push_screen(WorstScreen(message.model, message.rows, message.total, message.attempts), chosen)
