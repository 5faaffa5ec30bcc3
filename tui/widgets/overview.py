"""Overview: one row per model, sortable; a bar chart of the four track means."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Static
from textual.widgets.data_table import ColumnKey
from textual_plotext import PlotextPlot

from tcsexam.scoring.vocab import STATUS_ORDER

from ..charts import draw_overview, redraw
from ..messages import DrillDown, ModelOrder, ModelSelected
from ..textual_ext.data_table import SteadyDataTable
from ..views import (
    OVERVIEW_COLUMNS,
    RANK_COLUMN,
    STATUS_STYLE,
    TRACKS,
    OverviewRow,
    cells,
    overview_rows,
    sort_rows,
    text,
    top_line,
)
from .chart_plot import ChartPlot
from .loading import SORT_BINDINGS, ShowsRun

if TYPE_CHECKING:
    from ..panes import RunView

FILL_CHUNK = 200  # rows added to the table per turn of the event loop
TURN_S = 0.005  # a timer, not call_later: the messages of one widget are handled back to back, keys wait


class OverviewTable(SteadyDataTable):
    """The Overview's table: Enter opens the model's instances (shown in the footer)."""

    BINDINGS = [Binding("enter", "select_cursor", "Instances"), Binding("k", "passk", "pass^k")]

    def action_passk(self) -> None:
        if self.row_count:
            model = self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
            assert model is not None  # every row is added with its model as key
            self.post_message(DrillDown("passk", model))


class OverviewPane(ShowsRun, Vertical):
    HELP = """\
One row per model: status, index and P/S/C/O means (± = 95% half-width, then tasks complete/total),
the variance budget of the index interval (each track's share; docs/rules.md#variance-budget) and the rank
(`best` or `best–worst`; docs/rules.md#ranks). The top line names a leader only when rank 1 holds one model alone.
Moving the cursor selects the model for every other tab. `Enter` opens its Instances, `k` its pass^k;
`c` copies the run's table as Markdown, `C` as LaTeX (the same text as `tcsexam table`).
"""  # its section of the help screen (tui/screens/help.py)

    BINDINGS = [
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

    def compose(self) -> ComposeResult:
        yield Static("Loading the run…", id="overview-summary", markup=False)
        table = OverviewTable(id="overview-table", cursor_type="row", zebra_stripes=True)
        yield table
        yield ChartPlot(id="overview-chart")

    def show_empty(self, message: str) -> None:
        """No run to show (rejected inputs, or --tau2 alone): a sentence instead of an empty table and plot."""
        self.document, self.rows = None, []
        self.query_one("#overview-summary", Static).update(message)
        self.query_one(DataTable).clear(columns=True)
        self.query_one(DataTable).set_class(True, "gone")
        self.query_one(PlotextPlot).set_class(True, "gone")

    def show_run(self, view: RunView) -> None:
        self.show(view.document, view.model, demo=view.demo)

    def show(self, document: dict, selected: str | None, demo: bool = False) -> None:
        self.document = document
        self.rows = overview_rows(document)
        self.query_one(DataTable).set_class(False, "gone")
        self.query_one(PlotextPlot).set_class(False, "gone")
        counts = {s: sum(r.status == s for r in self.rows) for s in STATUS_ORDER}
        lead_part = top_line(document)
        self.query_one("#overview-summary", Static).update(
            text(
                *((("DEMO: the bundled synthetic sample run, not yours.   ", "bold reverse"),) if demo else ()),
                *lead_part,
                ".   Run status: ",
                (document["status"], "bold"),
                f" ({counts['complete']} complete, {counts['provisional']} provisional, {counts['incomplete']} incomplete)."
                f"   Suite ",
                document["suite"],
                f", {document['solver_protocol']} protocol, reference ",
                document["solver_reference_id"],
                ".   ± is the 95% task-clustered t half-width; Var. budget is each track's share of its variance "
                "(docs/rules.md#variance-budget); Rank is best–worst over the "
                "models not separated from it (paired t, Holm-corrected; docs/rules.md#ranks).",
            )
        )
        self._fill(selected)

    def order(self) -> list[str]:
        """Models in the table's current order."""
        return [r.model for r in sort_rows(self.rows, self.sort_column, self.sort_reverse)]

    def top_model(self) -> str | None:
        models = self.order()
        return models[0] if models else None

    def follow(self, model: str) -> None:
        """Put the cursor on the selected model's row (the selection was made elsewhere)."""
        table = self.query_one(DataTable)
        if model in table.rows and table.cursor_row != table.get_row_index(model):
            table.move_cursor(row=table.get_row_index(model))

    def _fill(self, selected: str | None = None) -> None:
        table = self.query_one(DataTable)
        current = selected
        if current is None and table.row_count:
            current = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        table.clear(columns=True)
        for i, label in enumerate(self._labels()):
            table.add_column(label, key=str(i))
        self._model_of = {}
        rows = sort_rows(self.rows, self.sort_column, self.sort_reverse)
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

    def _add_rows(self, table: DataTable, rows: list) -> None:
        for row in rows:
            values: list = cells(*row.cells())
            values[1] = Text(str(values[1]), style=STATUS_STYLE[row.status])
            self._model_of[id(values[0])] = row.model
            table.add_row(*values, key=row.model)

    def _labels(self) -> list[str]:
        arrow = "▼" if self.sort_reverse else "▲"
        return [label + (f" {arrow}" if i == self.sort_column else "") for i, label in enumerate(OVERVIEW_COLUMNS)]

    def _resort(self) -> None:
        """A new sort: the rows the table holds put in the new order (DataTable.sort), not made again
        (a refill formats and measures every cell: about a second at 2,000 models)."""
        table = self.query_one(DataTable)
        if not table.row_count or self._filling is not None:
            self._fill()
            return
        current = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        for i, label in enumerate(self._labels()):
            column = table.columns[ColumnKey(str(i))]
            column.label = Text(label)
            column.content_width = max(column.content_width, column.label.cell_len)
        position = {model: i for i, model in enumerate(self.order())}
        model_of = self._model_of
        table.sort("0", key=lambda cell: position[model_of[id(cell)]])
        self._ordered(table, current)

    def _ordered(self, table: DataTable, current: str | None) -> None:
        """After a fill or a sort: the cursor on ``current`` (else the top row), the order announced, the chart."""
        if current is not None and current in table.rows:
            table.move_cursor(row=table.get_row_index(current))
        else:
            table.move_cursor(row=0)
        self.post_message(ModelOrder(self.order()))
        self._chart()

    def _chart(self) -> None:
        """The chart in the table's order (tui/charts.py draws it)."""
        plot = self.query_one(PlotextPlot)
        rows = sort_rows(self.rows, self.sort_column, self.sort_reverse)
        redraw(
            plot,
            lambda plt: draw_overview(
                plt,
                [r.model for r in rows],
                [r.index for r in rows],
                [r.index_pm for r in rows],
                {t: [r.means[t] for r in rows] for t in TRACKS},
                {t: [r.pms[t] for r in rows] for t in TRACKS},
                width=plot.size.width or 80,
                height=plot.size.height or 16,
            ),
        )

    def sort_by(self, column: int) -> None:
        if column == self.sort_column:
            self.sort_reverse = not self.sort_reverse
        else:
            self.sort_column, self.sort_reverse = column, column >= 2 and column != RANK_COLUMN
        self._resort()

    def action_sort_next(self) -> None:
        self.sort_column = (self.sort_column + 1) % len(OVERVIEW_COLUMNS)
        self.sort_reverse = self.sort_column >= 2 and self.sort_column != RANK_COLUMN
        self._resort()

    def action_sort_reverse(self) -> None:
        self.sort_reverse = not self.sort_reverse
        self._resort()

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        self.sort_by(event.column_index)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        if event.row_key is not None and event.row_key.value is not None:
            self.post_message(ModelSelected(event.row_key.value))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.row_key is not None and event.row_key.value is not None:
            self.post_message(DrillDown("instances", event.row_key.value))
