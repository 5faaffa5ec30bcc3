"""Overview: one row per model, sortable; a bar chart of the four track means."""

from __future__ import annotations

from rich.markup import escape
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Static
from textual_plotext import PlotextPlot

from ..charts import draw_overview, redraw
from ..messages import ModelSelected
from ..views import OVERVIEW_COLUMNS, STATUS_STYLE, TRACKS, cells, fmt, leader, overview_rows, sort_rows
from .chart_plot import ChartPlot


class OverviewPane(Vertical):
    BINDINGS = [Binding("s", "sort_next", "Sort column"), Binding("S", "sort_reverse", "Reverse sort")]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.rows = []
        self.sort_column = 2
        self.sort_reverse = True
        self.document: dict | None = None

    def compose(self) -> ComposeResult:
        yield Static("Loading the run…", id="overview-summary")
        table = DataTable(id="overview-table", cursor_type="row", zebra_stripes=True)
        yield table
        yield ChartPlot(id="overview-chart")

    def show(self, document: dict, selected: str | None) -> None:
        self.document = document
        self.rows = overview_rows(document)
        lead = leader(document)
        counts = {s: sum(r.status == s for r in self.rows) for s in ("complete", "provisional", "incomplete")}
        lead_text = (f"Leader: [b]{escape(lead)}[/b] with {fmt(document['models'][lead]['index'], 2)} points"
                     if lead else "No model has an index yet")
        self.query_one("#overview-summary", Static).update(
            f"{lead_text}.   Run status: [b]{document['status']}[/b] "
            f"({counts['complete']} complete, {counts['provisional']} provisional, {counts['incomplete']} incomplete)."
            f"   Suite {document['suite']}, {document['solver_protocol']} protocol, reference "
            f"{document['solver_reference_id']}.   ± is the 95% task-clustered t half-width.")
        self._fill(selected)

    def _fill(self, selected: str | None = None) -> None:
        table = self.query_one(DataTable)
        current = selected
        if current is None and table.row_count:
            current = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        table.clear(columns=True)
        arrow = "▼" if self.sort_reverse else "▲"
        for i, label in enumerate(OVERVIEW_COLUMNS):
            table.add_column(label + (f" {arrow}" if i == self.sort_column else ""), key=str(i))
        for row in sort_rows(self.rows, self.sort_column, self.sort_reverse):
            values: list = row.cells()
            values[1] = Text(values[1], style=STATUS_STYLE[row.status])
            table.add_row(*cells(*values), key=row.model)
        if current is not None and current in table.rows:
            table.move_cursor(row=table.get_row_index(current))
        self._chart()

    def _chart(self) -> None:
        """The chart in the table's order (tui/charts.py draws it)."""
        plot = self.query_one(PlotextPlot)
        rows = sort_rows(self.rows, self.sort_column, self.sort_reverse)
        redraw(plot, lambda plt: draw_overview(
            plt, [r.model for r in rows], [r.index for r in rows], [r.index_pm for r in rows],
            {t: [r.means[t] for r in rows] for t in TRACKS}, {t: [r.pms[t] for r in rows] for t in TRACKS},
            width=plot.size.width or 80, height=plot.size.height or 16))

    def sort_by(self, column: int) -> None:
        if column == self.sort_column:
            self.sort_reverse = not self.sort_reverse
        else:
            self.sort_column, self.sort_reverse = column, column >= 2
        self._fill()

    def action_sort_next(self) -> None:
        self.sort_column = (self.sort_column + 1) % len(OVERVIEW_COLUMNS)
        self.sort_reverse = self.sort_column >= 2
        self._fill()

    def action_sort_reverse(self) -> None:
        self.sort_reverse = not self.sort_reverse
        self._fill()

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        self.sort_by(event.column_index)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if event.row_key is not None and event.row_key.value is not None:
            self.post_message(ModelSelected(event.row_key.value))
