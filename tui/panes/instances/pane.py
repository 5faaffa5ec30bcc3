"""Instances: per-instance z and Phi of one solver attempt, with sorting, filtering, search and a histogram."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.timer import Timer
from textual.widgets import Input, Select, Static

from tcsexam.scoring.grammar import counted

from ...charts import histogram_bars
from ...messages import InstancesFailed, InstancesLoaded
from ...state import STATUS_CODES, DashboardState, InstanceColumns, load_instances
from ...textual_ext.workers import released
from ...views import plain, text
from ...widgets.loading import SORT_BINDINGS, ShowsRun
from .parts import HistogramRows, InstancesHeader
from .search import NameSearch
from .table import COLUMNS, InstanceTable, column_at, header_line
from .views import counts_text, explain_instance, filter_note, status_counts

if TYPE_CHECKING:
    from ...run_view import RunView

SORT_OPTIONS = [(f"{c} {'↓' if d else '↑'}", f"{c}:{int(d)}") for c in COLUMNS for d in (False, True)]
# a load that takes longer shows the loading indicator; a quicker one would only flash it (and
# mounting and pruning the indicator cost 15-30 ms of a frame)
LOADING_DELAY_S = 0.2
FILTER_OPTIONS = [("all statuses", -1)] + [(s, i) for i, s in enumerate(STATUS_CODES)]


class InstancesPane(ShowsRun, NameSearch):
    # The pane's own rules. Not scoped: the size classes (-short) sit on the screen, above the pane.
    SCOPED_CSS = False
    DEFAULT_CSS = """
    #instances-status { height: auto; padding: 0 0 1 0; color: $text-muted; }
    .-short #instances-histogram { display: none; }
    .-short #instances-status { padding: 0; }
    #instances-controls { height: 1; margin-bottom: 1; }
    #instances-controls Select { width: 1fr; margin-right: 1; }
    #instances-controls #instances-task { width: 2fr; }  /* a task's name is the longest: whole at 80 columns */
    #instances-controls Input { width: 1fr; }
    .-short #instances-controls { margin-bottom: 0; }
    #instances-header { text-style: bold; height: 1; background: $boost; }
    #instances-table { height: 1fr; min-height: 6; }
    #instances-detail { height: auto; min-height: 2; color: $text; padding: 0 0; }
    #instances-histogram { height: 12; }
    """

    HELP = """\
Per-instance A, mu, s, scale, z and Phi of the selected model, solver task and attempt (the task, the
attempt, the sort and the status filter are also the selects above the table: `Tab` reaches them).
`s` / `S` sort, `f` cycles the status filter, `/` searches the names as you type (the instance of
that name, else the first at or after the cursor whose name contains the text, letters in either
case; `enter` or `escape` back to the table, `n` / `N` next / previous match, "match i of m" under
the table).
The line under the table explains how the instance under the cursor got its Phi.
"""  # its section of the help (tui/help_text.py)

    # "/" is a priority binding: it runs before the keys after it are routed, so a fast burst
    # ("/MAX0025") lands in the jump box rather than in the widget that had the focus
    BINDINGS = [
        Binding("slash", "focus_jump", "Search names", priority=True),
        Binding("escape", "focus_table", "Table", show=False),
        *SORT_BINDINGS,
        Binding("f", "filter_next", "Filter status"),
        Binding("n", "search_next", "Next match"),
        Binding("N", "search_previous", "Prev match"),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.state: DashboardState | None = None
        self.model: str | None = None
        self.columns: InstanceColumns | None = None
        self.key: tuple | None = None  # what is shown
        self._wanted: tuple | None = None  # what was asked for last: (key, state)
        self._attempts_for: tuple | None = None
        self._indicator: Timer | None = None  # shows the loading indicator if the load is slow
        self.relative_floor = 0.02
        self._histogram_of: tuple | None = None  # (columns, status filter) the histogram was drawn for
        self._scroll_x = 0
        self._goto: tuple | None = None  # (model, item, attempt, instance) a drill-down puts the cursor on
        # the options each Select was last given, as (label, value): what it offers, kept here rather than
        # read back from the Select (which keeps them in a private list)
        self.select_options: dict[str, list[tuple[str, str]]] = {"instances-task": [], "instances-attempt": []}

    def compose(self) -> ComposeResult:
        with Horizontal(id="instances-controls"):
            yield Select([], prompt="solver task", id="instances-task", allow_blank=True, compact=True)
            yield Select([], prompt="attempt", id="instances-attempt", allow_blank=True, compact=True)
            yield Select(FILTER_OPTIONS, value=-1, id="instances-filter", allow_blank=False, compact=True)
            yield Select(SORT_OPTIONS, value="instance:0", id="instances-sort", allow_blank=False, compact=True)
            yield Input(placeholder="/ search names", id="instances-jump", compact=True)
        yield Static(
            "Select a model in the overview, then a solver task and attempt.", id="instances-status", markup=False
        )
        yield InstancesHeader(header_line(), id="instances-header", markup=False)
        yield InstanceTable(id="instances-table")
        yield Static("", id="instances-detail", markup=False)
        yield HistogramRows(id="instances-histogram")

    def show_empty(self, message: str) -> None:
        self.state, self.model, self.columns, self.key, self._wanted, self._attempts_for = (None,) * 6
        self._histogram_of = None  # it holds the columns drawn, and with them the file they are read from
        self._status(message)
        self.query_one(InstanceTable).set_data(None)

    # --- context: a reload re-reads, choices are kept where they still exist ------------------
    def show_run(self, view: RunView) -> None:
        self.set_context(view.state, view.model)

    def follow(self, model: str) -> None:
        if self.state is not None:
            self.set_context(self.state, model)

    def set_context(self, state: DashboardState, model: str | None) -> None:
        self.state, self.model = state, model
        if state.relative_floor is not None:
            self.relative_floor = state.relative_floor
        items = state.solver_items()
        task = self.query_one("#instances-task", Select)
        previous = task.value if task.value in items else None
        self._offer(task, [(Text(plain(i)), i) for i in items])
        if items:
            task.value = previous or items[0]
        else:
            self._status("This run has no solver task: nothing is scored per instance.")
        self._fill_attempts()

    def go_to(self, model: str, item: str, attempt: str | None = None, instance: str | None = None) -> None:
        """Show a solver task of the selected model (a drill-down from the Coverage grid), and with
        ``attempt`` and ``instance`` that attempt with the cursor on that instance (one of the model's
        worst instances): every status shown, so that the filter does not hide it. ``model`` is the one
        selected already (the app selects it first)."""
        task = self.query_one("#instances-task", Select)
        if item not in {v for _, v in self.select_options["instances-task"]}:
            return
        self._goto = (self.model, item, attempt, instance) if attempt is not None and instance is not None else None
        if self._goto is not None:
            self.filter_status(None)
        task.value = item
        self._fill_attempts()
        self._go_to_instance()

    def _go_to_instance(self) -> None:
        """The cursor on the instance a drill-down asked for, once its attempt is shown (then forgotten)."""
        goto, cols = self._goto, self.columns
        if goto is None or cols is None or self.key != goto[:3]:
            return
        table = self.query_one(InstanceTable)
        hit = np.flatnonzero(cols.names[table.order] == goto[3].encode("utf-8"))
        if len(hit):
            self._goto = None
            table.move_to(int(hit[0]))
            height = max(table.scrollable_content_region.height, 1)
            table.scroll_to(y=max(int(hit[0]) - height // 2, 0), animate=False)

    def _fill_attempts(self) -> None:
        task = self.query_one("#instances-task", Select).value
        select = self.query_one("#instances-attempt", Select)
        if self.state is None or self.model is None or not isinstance(task, str):
            select.set_options([])
            self.select_options["instances-attempt"] = []
            return
        if self._attempts_for == (self.state, self.model, task):
            goto = self._goto
            if (
                goto is not None
                and goto[1] == task
                and goto[2] in {v for _, v in self.select_options["instances-attempt"]}
            ):
                select.value = goto[2]  # a drill-down to another attempt of the task shown
            return
        self._attempts_for = (self.state, self.model, task)
        previous = select.value
        rows = [
            r
            for r in self.state.attempts_of(self.model, task)
            if self.state.records_path(self.model, task, r.attempt) is not None
            or (self.model, task, r.attempt) in self.state.columns
        ]
        options = [(Text(f"{plain(r.attempt)} · {r.adoption_status}"), r.attempt) for r in rows]
        self._offer(select, options)
        if rows:
            wanted = self._goto[2] if self._goto is not None and self._goto[1] == task else previous
            kept = [r.attempt for r in rows if r.attempt == wanted]
            select.value = kept[0] if kept else rows[0].attempt
            self._request()
        else:
            self._wanted = self.key = self.columns = None
            self._status(f"{plain(self.model)} has no records file for {plain(task)}.")
            self.query_one(InstanceTable).set_data(None)

    def _offer(self, select: Select, options: list[tuple[Text, str]]) -> None:
        """Give ``select`` these options unless they are the ones it has: each reset restyles the select
        (tens of ms)."""
        assert select.id is not None
        given = [(str(label), value) for label, value in options]
        if given != self.select_options[select.id]:
            select.set_options(options)
            self.select_options[select.id] = given

    @on(Select.Changed, "#instances-task")
    def _task_changed(self, event: Select.Changed) -> None:
        self._fill_attempts()

    @on(Select.Changed, "#instances-attempt")
    def _attempt_changed(self, event: Select.Changed) -> None:
        self._request()

    def _request(self) -> None:
        """Score the chosen attempt unless it is what is shown (or on its way) for this very state."""
        task = self.query_one("#instances-task", Select).value
        attempt = self.query_one("#instances-attempt", Select).value
        if self.state is None or self.model is None or not isinstance(task, str) or not isinstance(attempt, str):
            return
        key = (self.model, task, attempt)
        if self._wanted == (key, self.state):
            return
        self._wanted = (key, self.state)
        self._status(f"Scoring {plain(task)} attempt {plain(attempt)} of {plain(self.model)}…")
        if self._indicator is not None:  # a shown indicator stays; a pending one waits anew
            self._indicator.stop()
        self._indicator = self.set_timer(LOADING_DELAY_S, self._show_loading)
        self.load(key)

    def _show_loading(self) -> None:
        if self._wanted is not None and self.key != self._wanted[0]:
            self.query_one(InstanceTable).loading = True

    def _stop_loading(self) -> None:
        if self._indicator is not None:
            self._indicator.stop()
            self._indicator = None
        self.query_one(InstanceTable).loading = False

    @work(thread=True, exclusive=True, group="instances", description="score one attempt's instances")
    @released
    def load(self, key: tuple) -> None:
        """Worker: reads the state itself (a worker's arguments are formatted on the UI thread)."""
        from tcsexam.scoring.errors import InputError

        state = self.state
        if state is None:  # emptied (show_empty) since _request: nothing is wanted any more
            return
        try:
            columns = load_instances(state, *key)
        except InputError as exc:
            self.post_message(InstancesFailed(key, "\n".join(str(p) for p in exc.problems)))
            return
        self.post_message(InstancesLoaded(key, columns))
        columns.precompute_orders()  # after the table is on its way: at 10^6 this takes about a second

    def _current(self, key: tuple) -> bool:
        """A drill-down for a model, task or attempt no longer selected is dropped."""
        return self._wanted is not None and self._wanted[0] == key and key[0] == self.model

    def on_instances_loaded(self, message: InstancesLoaded) -> None:
        if not self._current(message.key):
            return
        if message.key != self.key:  # another attempt, not the same one reloaded
            self.forget_search()
        self.key, self.columns = message.key, message.columns
        self._stop_loading()
        self.query_one(InstanceTable).set_data(message.columns)
        self._apply()

    def on_instances_failed(self, message: InstancesFailed) -> None:
        if not self._current(message.key):
            return
        self.key, self.columns = message.key, None
        self._status(f"Cannot score these records:\n{plain(message.message)}")
        self._stop_loading()
        self.query_one(InstanceTable).set_data(None)

    # --- view controls -------------------------------------------------------------
    @on(Select.Changed, "#instances-filter")
    def _controls_changed(self, event: Select.Changed) -> None:
        self._apply()

    @on(Select.Changed, "#instances-sort")
    def _sort_changed(self, event: Select.Changed) -> None:
        """A sort asked for: the cursor on the first row (docs/dashboard.md#find-and-order)."""
        self._apply(top=True)

    def _sort_value(self) -> tuple[str, bool]:
        column, desc = str(self.query_one("#instances-sort", Select).value).split(":")
        return column, desc == "1"

    def _status_value(self) -> int | None:
        status = self.query_one("#instances-filter", Select).value
        return status if isinstance(status, int) and status != -1 else None  # FILTER_OPTIONS: -1 is all

    def _apply(self, top: bool = False) -> None:
        column, desc = self._sort_value()
        table = self.query_one(InstanceTable)
        self.query_one("#instances-header", InstancesHeader).update(
            header_line(table.widths, (column, desc))[self._scroll_x :]
        )
        if self.columns is None:
            return
        status = self._status_value()
        table.apply(column, desc, status, top)
        self._describe()
        self._histogram(status)
        self._go_to_instance()

    def _describe(self) -> None:
        """The status line: which attempt, its relative score, per-status counts and what the filter leaves."""
        cols, key = self.columns, self.key
        assert cols is not None and key is not None  # _apply describes loaded columns only
        status = self._status_value()
        shown = len(self.query_one(InstanceTable).order)
        self._status(
            f"{plain(key[0])} · {plain(cols.task)} · attempt {plain(key[2])}: relative_score "
            f"{cols.relative_score:.6f} over {len(cols):,} scored instances ({cols.kind}, {cols.direction}): "
            f"{counts_text(status_counts(cols.status))}; {counted(len(cols.unscored), 'unscored record')} excluded. "
            f"Showing {filter_note(shown, len(cols), None if status is None else STATUS_CODES[status])}."
        )

    def sort(self, column: str, descending: bool) -> None:
        self.query_one("#instances-sort", Select).value = f"{column}:{int(descending)}"

    def filter_status(self, status: str | None) -> None:
        self.query_one("#instances-filter", Select).value = -1 if status is None else STATUS_CODES.index(status)

    def action_sort_pick(self) -> None:
        """The sort picker (tui/screens/sort_picker.py): a column in its natural direction (z and Phi low
        first: the failures on top), the current one reversed."""
        from ...find import sort_choice
        from ...screens.sort_picker import SortPicker

        column, desc = self._sort_value()

        def picked(at: int | None) -> None:
            if at is not None:
                chosen, descending = sort_choice(at, COLUMNS.index(column), desc, False)
                self.sort(COLUMNS[chosen], descending)

        self.app.push_screen(SortPicker("the instances", COLUMNS, COLUMNS.index(column), desc), picked)

    def action_sort_reverse(self) -> None:
        column, desc = self._sort_value()
        self.sort(column, not desc)

    def action_filter_next(self) -> None:
        """Cycle the status filter through 'all' and the statuses this attempt has."""
        present = [-1] + ([STATUS_CODES.index(s) for s in status_counts(self.columns.status)] if self.columns else [])
        current = self._status_value()
        current = -1 if current is None else current
        nxt = present[(present.index(current) + 1) % len(present)] if current in present else -1
        self.query_one("#instances-filter", Select).value = nxt

    def on_instances_header_clicked(self, message: InstancesHeader.Clicked) -> None:
        column = column_at(message.x + self._scroll_x, self.query_one(InstanceTable).widths)
        if column is None:
            return
        current, desc = self._sort_value()
        self.sort(column, not desc if column == current else False)

    def on_instance_table_scrolled_x(self, message: InstanceTable.ScrolledX) -> None:
        self._scroll_x = message.x
        column, desc = self._sort_value()
        self.query_one("#instances-header", InstancesHeader).update(
            header_line(self.query_one(InstanceTable).widths, (column, desc))[message.x :]
        )

    def on_instance_table_cursor_moved(self, message: InstanceTable.CursorMoved) -> None:
        cols = self.columns
        detail = self.query_one("#instances-detail", Static)
        table = self.query_one(InstanceTable)
        if cols is None:
            detail.update("")
            return
        if message.row is None:
            status = self._status_value()
            detail.update(
                filter_note(0, len(cols), None if status is None else STATUS_CODES[status])
                if status is not None
                else ""
            )
            return
        i = message.row
        detail.update(
            text(
                f"{self.match_note()}row {table.cursor + 1:,} of {len(table.order):,} · ",
                explain_instance(
                    cols.name(i),
                    STATUS_CODES[cols.status[i]],
                    float(cols.A[i]),
                    float(cols.mu[i]),
                    float(cols.s[i]),
                    float(cols.scale[i]),
                    float(cols.z[i]),
                    float(cols.phi[i]),
                    cols.direction,
                    self.relative_floor,
                ),
            )
        )

    def _histogram(self, status) -> None:
        """Histogram of the rows the table shows (it follows the status filter; a re-sort keeps the rows)."""
        drawn = self._histogram_of
        if self.columns is None or (drawn is not None and drawn[0] is self.columns and drawn[1] == status):
            return
        self._histogram_of = (self.columns, status)
        order = self.query_one(InstanceTable).order
        labels, counts = histogram_bars(self.columns.phi[order], self.columns.status[order])
        self.query_one(HistogramRows).show(labels, counts, len(order))

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action in ("search_next", "search_previous"):
            return True if self.query_text else None  # shown, greyed, until there is a search
        return not (action == "focus_jump" and isinstance(self.screen.focused, Input))  # "/" typed in the jump box

    def action_focus_table(self) -> None:
        self.query_one(InstanceTable).focus()

    def _status(self, message: str) -> None:
        self.query_one("#instances-status", Static).update(message)
