"""pass^k per track for the selected model: a table, each track's pass^1..n as a sparkline and as numbers; below it the planner (docs/rules.md#planning-attempts):
the projected index half-width by attempts per task and the attempts a target half-width needs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Input, Static

from ...textual_ext.data_table import SteadyDataTable
from ...views import cells, shares_text, text
from ...widgets.loading import ShowsRun
from .target import TargetField
from .views import parse_target, passk_rows, plan_row, plan_summary, target_text

if TYPE_CHECKING:
    from ...run_view import RunView

EXPLAIN = (
    "pass^k = C(c, k) / C(n, k) per task: n = adopted attempts with score_status valid, c = those scoring at or "
    "above the track's threshold; a track's pass^k is the mean over its tasks with n ≥ k (tcsexam docs rules#passk)."
)


PARTS = ("#passk-explain", "#passk-table", "#plan-title", "#plan-table", "#plan-controls")


class PassKPane(ShowsRun, Vertical):
    # The pane's own rules. Not scoped: the size classes (-short) sit on the screen, above the pane.
    SCOPED_CSS = False
    DEFAULT_CSS = """
    #passk-explain { height: auto; padding: 0 0 1 0; color: $text-muted; }
    .-short #passk-explain { padding: 0; }
    #passk-table { height: auto; }
    #plan-title { height: auto; color: $text-muted; padding-top: 1; }
    #plan-table { height: auto; }
    #plan-controls { height: auto; }
    .plan-label { width: 10; text-style: bold; }
    #plan-target { width: 12; margin-right: 2; }
    #plan-needed { width: 1fr; height: auto; }  /* the answer wraps: at 80 columns it takes 2 or 3 lines */
    .-short #plan-title { padding-top: 0; }
    """

    HELP = """\
pass^k = C(c,k)/C(n,k) per task, averaged over the tasks with n ≥ k, for the selected model.
Planning (`tcsexam docs rules#planning-attempts`): the projected 95% index half-width by attempts per task r = 1..10; type a
target H (index points) to see the attempts per task it needs.
"""  # its section of the help (tui/help_text.py)

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.plan_entry: dict | None = None
        self.plan: dict | None = None  # the run's planning document (tui.state.DashboardState.plan)

    def compose(self) -> ComposeResult:
        yield Static("", id="passk-title", classes="section-title", markup=False)
        yield Static(EXPLAIN, id="passk-explain")
        yield SteadyDataTable(id="passk-table", cursor_type="none", zebra_stripes=True)
        yield Static("", id="plan-title", markup=False)
        # one row to read, nothing to move to: Tab from the pass^k table goes straight to the target field
        plan = SteadyDataTable(id="plan-table", cursor_type="none", show_cursor=False)
        plan.can_focus = False
        yield plan
        with Horizontal(id="plan-controls"):
            yield Static("target H", classes="plan-label")
            yield TargetField(id="plan-target")
            yield Static("", id="plan-needed", markup=False)

    def show_empty(self, message: str) -> None:
        self.document = None
        self.query_one("#passk-title", Static).update(message)
        for selector in PARTS:
            self.query_one(selector).set_class(True, "gone")

    def show_run(self, view: RunView) -> None:
        self.document, self.plan = view.document, view.plan
        self.show(view.document, view.model, view.plan)

    def follow(self, model: str) -> None:
        if self.document is not None:
            self.show(self.document, model, self.plan)

    def show(self, document: dict, model: str | None, plan: dict | None = None) -> None:
        if model is None or model not in document["models"]:
            return
        for selector in PARTS:
            self.query_one(selector).set_class(False, "gone")
        self._plan(document, model, plan)
        self.query_one("#passk-title", Static).update(
            text("pass^k of ", (model, "bold"), " (the model selected in the Overview)")
        )
        kmax, rows = passk_rows(document, model)
        table = self.query_one("#passk-table", DataTable)
        table.clear(columns=True)
        table.add_columns("track", "threshold", "tasks", "pass^k", *[f"pass^{k}" for k in range(1, kmax + 1)])
        for r in rows:
            table.add_row(*cells(*r))

    def _plan(self, document: dict, model: str, plan: dict | None) -> None:
        """The planner's projection for the model (`tcsexam plan`'s document, made by the state loader)."""
        entry = self.plan_entry = None if plan is None else plan["models"].get(model)
        table = self.query_one("#plan-table", DataTable)
        table.clear(columns=True)
        index_ci = document["models"][model]["ci"]["index"]
        budget = shares_text(index_ci.get("shares") if index_ci else None)
        title = self.query_one("#plan-title", Static)
        if entry is None:
            title.update(text("Planning: no plan for ", (model, "bold"), "."))
            return
        labels, values = plan_row(entry)
        table.add_columns("", *labels)
        table.add_row(*cells("half-width", *values))
        lines = [
            text(
                "Planning: ",
                (model, "bold"),
                "'s projected 95% index half-width (points) "
                "by attempts per task r; its interval's uncertainty now from ",
                budget,
                ".",
            ),
            text("The planner's inputs per track: its tasks, the variance within a task / between tasks:"),
            *(text(line) for line in plan_summary(entry)),
        ]
        title.update(Text("\n").join(lines))
        self._target()

    @on(Input.Changed, "#plan-target")
    def _target_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._target()

    @on(Input.Submitted, "#plan-target")
    def _target_done(self, event: Input.Submitted) -> None:
        """Enter or escape in the target field: the keyboard goes back to the pass^k table."""
        event.stop()
        self.query_one("#passk-table").focus()

    def _target(self) -> None:
        from ...state import attempts_needed

        needed = self.query_one("#plan-needed", Static)
        if self.plan_entry is None:
            needed.update("")
            return
        typed = self.query_one("#plan-target", Input).value
        widths = self.plan_entry["half_width"]
        needed.update(
            target_text(
                typed,
                widths,
                attempts_needed(self.plan_entry, parse_target(typed)),
                self.plan_entry.get("half_width_limit"),
            )
        )
