"""Instances: per-instance z and Phi of one solver attempt, with sorting, filtering, search and a histogram."""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, Select, Static
from textual_plotext import PlotextPlot

from ..charts import draw_histogram, histogram_bars, redraw
from ..messages import InstancesFailed, InstancesLoaded
from ..state import STATUS_CODES, DashboardState, InstanceColumns, load_instances
from ..views import explain_instance
from .chart_plot import ChartPlot
from .instance_table import COLUMNS, InstanceTable, header_line

SORT_OPTIONS = [(f"sort: {c} {'↓' if d else '↑'}", f"{c}:{int(d)}") for c in COLUMNS for d in (False, True)]
FILTER_OPTIONS = [("status: all", -1)] + [(f"status: {s}", i) for i, s in enumerate(STATUS_CODES)]


class InstancesPane(Vertical):
    BINDINGS = [Binding("slash", "focus_jump", "Find instance"), Binding("escape", "focus_table", "Table", show=False)]
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.state: DashboardState | None = None
        self.model: str | None = None
        self.columns: InstanceColumns | None = None
        self.key: tuple | None = None
        self.relative_floor = 0.02
        self._histogram_of: tuple | None = None  # (columns, status filter) the histogram was drawn for

    def compose(self) -> ComposeResult:
        with Horizontal(id="instances-controls"):
            yield Select([], prompt="solver task", id="instances-task", allow_blank=True)
            yield Select([], prompt="attempt", id="instances-attempt", allow_blank=True)
            yield Select(FILTER_OPTIONS, value=-1, id="instances-filter", allow_blank=False)
            yield Select(SORT_OPTIONS, value="instance:0", id="instances-sort", allow_blank=False)
            yield Input(placeholder="jump to instance…", id="instances-jump")
        yield Static("Select a model in the overview, then a solver task and attempt.", id="instances-status", markup=False)
        yield Static(header_line(), id="instances-header")
        yield InstanceTable(id="instances-table")
        yield Static("", id="instances-detail", markup=False)
        yield ChartPlot(id="instances-histogram")

    # --- context -------------------------------------------------------------------
    def set_context(self, state: DashboardState, model: str | None) -> None:
        self.state, self.model = state, model
        if state.relative_floor is not None:
            self.relative_floor = state.relative_floor
        items = state.solver_items()
        task = self.query_one("#instances-task", Select)
        previous = task.value if task.value in items else None
        task.set_options([(i, i) for i in items])
        if items:
            task.value = previous or items[0]
        self._fill_attempts()

    def _fill_attempts(self) -> None:
        task = self.query_one("#instances-task", Select).value
        select = self.query_one("#instances-attempt", Select)
        if self.state is None or self.model is None or not isinstance(task, str):
            select.set_options([])
            return
        rows = [r for r in self.state.attempts_of(self.model, task)
                if self.state.records_path(self.model, task, r.attempt) is not None]
        select.set_options([(f"attempt {r.attempt} ({r.adoption_status})", r.attempt) for r in rows])
        if rows:
            select.value = rows[0].attempt
        else:
            self._status(f"{self.model} has no records file for {task}.")
            self.query_one(InstanceTable).set_data(None)

    @on(Select.Changed, "#instances-task")
    def _task_changed(self, event: Select.Changed) -> None:
        self._fill_attempts()

    @on(Select.Changed, "#instances-attempt")
    def _attempt_changed(self, event: Select.Changed) -> None:
        task = self.query_one("#instances-task", Select).value
        if self.state is None or self.model is None or not isinstance(event.value, str) or not isinstance(task, str):
            return
        key = (self.model, task, event.value)
        if key == self.key and self.columns is not None:
            return
        self._status(f"Scoring {task} attempt {event.value} of {self.model}…")
        self.load(self.state, key)

    @work(thread=True, exclusive=True, group="instances")
    def load(self, state: DashboardState, key: tuple) -> None:
        from scoring.errors import InputError
        try:
            columns = load_instances(state, *key)
        except InputError as exc:
            self.post_message(InstancesFailed(key, "\n".join(str(p) for p in exc.problems)))
            return
        self.post_message(InstancesLoaded(key, columns))

    def on_instances_loaded(self, message: InstancesLoaded) -> None:
        self.key, self.columns = message.key, message.columns
        cols = message.columns
        self._status(f"{message.key[0]} · {cols.task} · attempt {message.key[2]}: relative_score "
                     f"{cols.relative_score:.6f} over {len(cols):,} scored instances ({cols.kind}, {cols.direction}); "
                     f"{len(cols.unscored)} unscored records excluded.")
        self.query_one(InstanceTable).set_data(cols)
        self._apply()

    def on_instances_failed(self, message: InstancesFailed) -> None:
        self._status(f"Cannot score these records:\n{message.message}")
        self.query_one(InstanceTable).set_data(None)

    # --- view controls -------------------------------------------------------------
    @on(Select.Changed, "#instances-filter")
    @on(Select.Changed, "#instances-sort")
    def _controls_changed(self, event: Select.Changed) -> None:
        self._apply()

    def _apply(self) -> None:
        if self.columns is None:
            return
        sort_value = self.query_one("#instances-sort", Select).value
        column, desc = str(sort_value).split(":")
        status = self.query_one("#instances-filter", Select).value
        self.query_one(InstanceTable).apply(column, desc == "1", None if status in (-1, Select.BLANK) else int(status))
        self._histogram(status)

    def sort(self, column: str, descending: bool) -> None:
        self.query_one("#instances-sort", Select).value = f"{column}:{int(descending)}"

    def filter_status(self, status: str | None) -> None:
        self.query_one("#instances-filter", Select).value = -1 if status is None else STATUS_CODES.index(status)

    @on(Input.Submitted, "#instances-jump")
    def _jump(self, event: Input.Submitted) -> None:
        table = self.query_one(InstanceTable)
        if event.value and not table.find(event.value.strip()):
            self.app.notify(f"No instance matching '{event.value}' in the current view", severity="warning")
        else:
            table.focus()

    def on_instance_table_cursor_moved(self, message: InstanceTable.CursorMoved) -> None:
        cols = self.columns
        detail = self.query_one("#instances-detail", Static)
        if cols is None or message.row is None:
            detail.update("")
            return
        i = message.row
        detail.update(explain_instance(cols.name(i), STATUS_CODES[cols.status[i]], float(cols.A[i]),
                                       float(cols.mu[i]), float(cols.s[i]), float(cols.scale[i]), float(cols.z[i]),
                                       float(cols.phi[i]), cols.direction, self.relative_floor))

    def _histogram(self, status) -> None:
        """Histogram of the rows the table shows (it follows the status filter; a re-sort keeps the rows)."""
        drawn = self._histogram_of
        if self.columns is None or drawn is not None and drawn[0] is self.columns and drawn[1] == status:
            return
        self._histogram_of = (self.columns, status)
        order = self.query_one(InstanceTable).order
        labels, counts = histogram_bars(self.columns.phi[order], self.columns.status[order])
        plot = self.query_one("#instances-histogram", PlotextPlot)
        redraw(plot, lambda plt: draw_histogram(plt, labels, counts, len(order), plot.size.height or 12,
                                                plot.size.width or 80))

    def action_focus_jump(self) -> None:
        self.query_one("#instances-jump", Input).focus()

    def action_focus_table(self) -> None:
        self.query_one(InstanceTable).focus()

    def _status(self, text: str) -> None:
        self.query_one("#instances-status", Static).update(text)
