"""tau2-bench tab: per-task table, pass^k by k (a sparkline and the numbers), termination reasons and the reward-gate audit."""

from __future__ import annotations

from textual import events, on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import DataTable, Static

from tcsexam.scoring.grammar import counted
from tcsexam.scoring.tau2.metrics import audit_line, largest_k_note

from ...charts import sparkline
from ...find import count_note, filtered, sort_choice
from ...textual_ext.data_table import SteadyDataTable
from ...views import cells, fmt, middle_ellipsis, plain
from ...widgets.filter_bar import FilterBar, FiltersRows
from ...widgets.loading import CLEAR_FILTER_BINDING, FILTER_BINDING, SORT_BINDINGS
from .views import (
    TAU2_AUDIT_COLUMNS,
    cost_text,
    tau2_audit_rows,
    tau2_columns,
    tau2_meta_line,
    tau2_sorted,
    tau2_task_rows,
)

NO_FILE = (
    "No tau2-bench results open. Start the dashboard with --tau2 RESULTS_JSON (a results.json of "
    "tau2-bench, or its run folder) to see pass^k, termination reasons and the reward-gate audit here. "
    "This tab is independent of the run and of the model selected in the Overview."
)


TAB_PADDING = 2  # the columns of a tab's padding (app.tcss: TabPane { padding: 0 1; })


class Tau2Pane(FiltersRows, Vertical):
    """The summary pinned on top; below it, scrolling, the per-task table (Enter lists a task's
    simulations: simulations.py beside it), pass^k by k, the reasons and the audit. ``/``
    filters the tasks by id, and by termination reason as their status."""

    # The pane's own rules. Not scoped: the size classes (-short) sit on the screen, above the pane.
    SCOPED_CSS = False
    DEFAULT_CSS = """
    #tau2-summary { height: auto; padding: 0 0 1 0; color: $text-muted; }
    .-short #tau2-summary { padding: 0; }
    #tau2-scroll { height: 1fr; }
    #tau2-body { height: auto; }
    #tau2-tasks { height: auto; max-height: 70vh; }
    #tau2-task-detail { height: auto; color: $text-muted; }
    #tau2-bottom { height: auto; }
    #tau2-passk { width: 2fr; height: auto; }
    #tau2-reasons { width: 1fr; height: auto; }
    .-short #tau2-reasons { width: 1fr; }
    #tau2-audit { height: auto; max-height: 80vh; }
    """

    HELP = """\
With `--tau2 RESULTS_JSON`: the run's domain, agent and trials, per-task pass^k (`/` filters the tasks
by id or `status:REASON`, `s` picks the sort column, `S` reverses it;
Enter lists a task's simulations, Enter on one shows its messages and reward breakdown),
termination reasons and the reward-gate audit. Independent of the selected model.
"""  # its section of the help (tui/help_text.py)

    BINDINGS = [CLEAR_FILTER_BINDING, FILTER_BINDING, *SORT_BINDINGS]

    def action_sort_pick(self) -> None:
        from ...screens.sort_picker import SortPicker

        if self.metrics is None:
            return
        picker = SortPicker("the tasks", tau2_columns(self.metrics), self.sort_column, self.sort_reverse)
        self.app.push_screen(picker, lambda column: self.sort_by(column) if column is not None else None)

    def action_sort_reverse(self) -> None:
        self.sort_by(-1)

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.metrics: dict | None = None
        self.meta: dict = {}
        self.results = None  # scoring.tau2.files.Tau2Results of the file shown, for its simulations
        self.sort_column = 0
        self.sort_reverse = False
        self.tasks_shown = False  # the tasks' table and the parts under it are shown (``_parts``)
        self.rejected_note = ""  # above the summary while the last good read is shown (``show_rejected``)
        self.beside_a_run = True  # a run is open beside the file (``show``)

    def compose(self) -> ComposeResult:
        yield Static("Loading the tau2-bench results…", id="tau2-summary", markup=False)
        yield FilterBar("filter tasks: id, or status:TERMINATION_REASON", id="tau2-filter")
        with VerticalScroll(id="tau2-scroll"):
            with Horizontal(id="tau2-body"):
                yield SteadyDataTable(id="tau2-tasks", cursor_type="row", zebra_stripes=True)
            yield Static("", id="tau2-task-detail", markup=False)
            with Horizontal(id="tau2-bottom"):
                yield SteadyDataTable(id="tau2-passk", cursor_type="none")
                yield SteadyDataTable(id="tau2-reasons", cursor_type="none")
            yield Static("Audit", id="tau2-audit-title", classes="section-title", markup=False)
            yield SteadyDataTable(id="tau2-audit", cursor_type="row", zebra_stripes=True)
            yield Static("", id="tau2-audit-detail", markup=False)

    def _parts(self, shown: bool) -> None:
        parts = (
            "#tau2-body",
            "#tau2-task-detail",
            "#tau2-bottom",
            "#tau2-audit-title",
            "#tau2-audit",
            "#tau2-audit-detail",
        )
        for selector in parts:
            self.query_one(selector).set_class(not shown, "gone")
        self.tasks_shown = shown
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        """No tasks shown (no file, or one rejected): no filter or sort to offer; a review's '/' stayed
        'filtering…' for good on the empty tab."""
        if action in ("filter", "sort_pick", "sort_reverse") and not self.tasks_shown:
            return False
        return super().check_action(action, parameters)

    def show_empty(self) -> None:
        self.query_one("#tau2-summary", Static).update(NO_FILE)
        self._parts(False)

    def show_rejected(self, count: int, kept: bool, where: str) -> None:
        """The file was rejected: its ``count`` problems are listed in the tab ``where`` names."""
        note = f"tau2-bench results rejected: {counted(count, 'problem')}, listed in {where}. " + (
            "Showing the last good read of the file until it is fixed (r reloads)."
            if kept
            else "Fix the file and press r to reload."
        )
        if not kept:
            self.query_one("#tau2-summary", Static).update(note)
            self._parts(False)
        else:
            self.rejected_note = note
            self._show_summary()

    def _show_summary(self) -> None:
        summary = self.query_one("#tau2-summary", Static)
        width = summary.content_size.width
        summary.update("\n".join(filter(None, (self.rejected_note, self._summary(width)))))

    def _summary(self, width: int) -> str:
        """The file's summary; its path in one line of ``width`` cells (0: not laid out yet), cut in the
        middle, so that a long name is never broken mid-word across two lines."""
        m = self.metrics
        assert m is not None  # the summary of a file read (show, or show_rejected keeping the last good read)
        source = middle_ellipsis(m["source"], width, lead=width // 3) if width else plain(m["source"])
        pk = "  ".join(f"pass^{k} {fmt(v)}" for k, v in m["pass_hat_k"].items())
        pk += f" ({plain(note)})" if (note := largest_k_note(m)) else ""
        return (
            f"{source}\n{plain(tau2_meta_line(self.meta))}\n"
            f"{counted(m['num_simulations'], 'run')}, {counted(m['num_tasks'], 'task')}, "
            f"{counted(m['infra_errors'], 'infrastructure error')} dropped; avg_reward {fmt(m['avg_reward'])}, avg_agent_cost {cost_text(m['avg_agent_cost'])}; "
            f"{pk}; DB match {m['db']['match']} / mismatch {m['db']['mismatch']} / not checked "
            f"{m['db']['not_checked']}. Success = reward within 1e-6 of 1; pass^k = C(c,k)/C(n,k) averaged over "
            "tasks." + (" Independent of the model selected in the Overview." if self.beside_a_run else "")
        )

    def show(self, m: dict, meta: dict | None = None, results=None, beside_a_run: bool = True) -> None:
        """The file read: ``beside_a_run``, a run is open too (the summary says the tab does not follow
        its selected model; with --tau2 alone there is none to follow)."""
        self.metrics, self.meta, self.results = m, meta or {}, results
        self.beside_a_run = beside_a_run
        self.rejected_note = ""
        self._parts(True)
        self._show_summary()
        self._tasks()
        reasons = self.query_one("#tau2-reasons", DataTable)
        reasons.clear(columns=True)
        reasons.add_columns("termination reason", "runs")
        for k, v in m["termination_reasons"].items():
            reasons.add_row(*cells(k, v))
        self._passk(m)
        self._audit()
        self.query_one("#tau2-audit-title", Static).update(
            f"Reward-gate audit: {counted(len(m['audit']), 'finding')} (reward re-derived from reward_info under its "
            "reward_basis)"
            if m["audit"]
            else "Reward-gate audit: no findings. Every evaluated run's stored reward matches the reward re-derived "
            "from its reward_info under its reward_basis."
        )

    def _audit(self) -> None:
        """The reward-gate findings, their task ids cut to the width the other columns leave (filled
        again on a resize, as the tasks' table is); the line under it gives the one under the cursor."""
        m = self.metrics
        assert m is not None
        audit = self.query_one("#tau2-audit", DataTable)
        row = audit.cursor_row
        audit.clear(columns=True)
        audit.add_columns(*TAU2_AUDIT_COLUMNS)
        for i, r in enumerate(tau2_audit_rows(m["audit"], self._width())):
            audit.add_row(*cells(*r), key=str(i))
        if m["audit"]:
            audit.move_cursor(row=min(row, len(m["audit"]) - 1))
        audit.set_class(not m["audit"], "gone")
        self.query_one("#tau2-audit-detail", Static).set_class(not m["audit"], "gone")

    def _width(self) -> int:
        """The tab's width, or before it is laid out (a file read while the tab is hidden) the width it will
        have: the screen's less the tab's padding (see ``_tasks``)."""
        return self.size.width or max(self.app.size.width - TAB_PADDING, 1)

    def _passk(self, m: dict) -> None:
        """The run's pass^k by k, one row as in the pass^k tab: a sparkline on the 0..1 scale, then the numbers."""
        values = [m["pass_hat_k"][str(k)] for k in range(1, len(m["pass_hat_k"]) + 1)]
        table = self.query_one("#tau2-passk", DataTable)
        table.clear(columns=True)
        table.add_columns("pass^k", *[f"pass^{k}" for k in range(1, len(values) + 1)])
        table.add_row(*cells(sparkline(values), *[fmt(v) for v in values]))

    # --- the per-task table: sortable, the cursor kept on its task ---------------------------
    def _tasks(self, top: bool = False) -> None:
        """The per-task table: the tasks the filter leaves in the sort's order, the cursor on the first row
        (``top``: a sort asked for) or kept on its task."""
        m = self.metrics
        assert m is not None  # called by show and sort_by, once a file was read
        # not laid out yet (a file read before the first frame, or the tab hidden): the width the tab will
        # have, the screen's less the tab's padding. on_resize fills the table again at its width, but a
        # tab shown while the screen lays out a scroll gets its size without a Resize (Tab to the
        # Leaderboard's second table, then 6): a table left empty until a Resize stayed empty then.
        # A table filled uncut first and cut after kept its horizontal scrollbar (and a blank line)
        # at some sizes, so it is cut from the first fill
        width = self._width()
        tasks = self.query_one("#tau2-tasks", DataTable)
        current = tasks.coordinate_to_cell_key(tasks.cursor_coordinate).row_key.value if tasks.row_count else None
        bar = self.query_one(FilterBar)
        reasons = sorted({r for t in m["tasks"] for r in t["termination_reasons"]})
        ordered = filtered(
            tau2_sorted(m, self.sort_column, self.sort_reverse),
            bar.filter_query,
            lambda t: str(t["task_id"]),
            lambda t: list(t["termination_reasons"]),
        )
        bar.show_count(count_note(len(ordered), len(m["tasks"]), "tasks", bar.filter_query, reasons))
        _, rows = tau2_task_rows(m, ordered, width)
        tasks.clear(columns=True)
        arrow = " ▼" if self.sort_reverse else " ▲"
        for i, name in enumerate(tau2_columns(m)):
            tasks.add_column(name + (arrow if i == self.sort_column else ""), key=str(i))
        for t, r in zip(ordered, rows, strict=True):
            tasks.add_row(*cells(*r), key=str(t["task_id"]))
        if not top and current is not None and current in tasks.rows:
            tasks.move_cursor(row=tasks.get_row_index(current))
        else:
            tasks.move_cursor(row=0)
        if not ordered:  # no row, so no highlight to name one: the line names none
            self.query_one("#tau2-task-detail", Static).update("")

    def sort_by(self, column: int) -> None:
        """Sort by a column (-1: reverse the current one; the current one again: reverse); the cursor
        goes to the first row."""
        if self.metrics is None:
            return
        if column == -1:
            self.sort_reverse = not self.sort_reverse
        else:
            self.sort_column, self.sort_reverse = sort_choice(column, self.sort_column, self.sort_reverse, False)
        self._tasks(top=True)

    @on(FilterBar.Changed)
    def _filter_changed(self, event: FilterBar.Changed) -> None:
        event.stop()
        if self.metrics is not None:
            self._tasks()

    @on(FilterBar.Done)
    def _filter_done(self, event: FilterBar.Done) -> None:
        event.stop()
        self.query_one("#tau2-tasks", DataTable).focus()

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        if event.data_table.id == "tau2-tasks":
            event.stop()
            self.sort_by(event.column_index)

    def on_resize(self, event: events.Resize) -> None:
        if self.metrics is not None:  # the task_id columns take the width the others leave; the path one line
            self._show_summary()
            self._tasks()
            self._audit()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id == "tau2-tasks" and event.row_key is not None and self.results is not None:
            from .simulations import Tau2SimulationsScreen

            event.stop()
            self.app.push_screen(Tau2SimulationsScreen(self.results, str(event.row_key.value)))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id == "tau2-audit" and event.row_key is not None and self.metrics is not None:
            event.stop()
            finding = self.metrics["audit"][int(str(event.row_key.value))]
            self.query_one("#tau2-audit-detail", Static).update(plain(audit_line(finding)))
        if event.data_table.id == "tau2-tasks" and event.row_key is not None:
            event.stop()
            self.query_one("#tau2-task-detail", Static).update(
                f"task {plain(event.row_key.value)}" + ("   Enter lists its simulations" if self.results else "")
            )
