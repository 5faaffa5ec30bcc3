"""Compare: the paired difference of two models per track and for the index (docs/rules.md#intervals), the per-task
differences largest first with the solver tasks' per-instance counts (docs/rules.md#per-task-differences), a drill-down to the
instances where the two differ most, and the MDE by attempts per task (docs/rules.md#planning-attempts)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Select, Static

from tcsexam.scoring.vocab import RUN_STATUSES

from ...find import count_note, filtered, neighbour
from ...messages import CompareComputed, InstanceDiffsComputed
from ...textual_ext.data_table import SteadyDataTable
from ...textual_ext.workers import released
from ...views import cells, middle_ellipsis, plain, text
from ...widgets.filter_bar import FilterBar, FiltersRows
from ...widgets.loading import CLEAR_FILTER_BINDING, FILTER_BINDING, ShowsRun
from .views import COMPARE_COLUMNS, TASK_DIFF_COLUMNS, compare_rows, mde_text, task_difference_rows

if TYPE_CHECKING:
    from ...run_view import RunView

EXPLAIN = (
    "Paired difference A − B over the tasks both models have scored, with 95% intervals (a t interval over "
    "the tasks; df, the index's degrees of freedom, combine the tracks': tcsexam docs rules#intervals). An interval that excludes 0 is a difference the task "
    "sample supports. A follows the model selected in the Overview. Below: each task's share of the index "
    "difference in points (A − B × its track's weight ÷ the track's tasks), largest first; Enter on a solver "
    "task lists the instances where the two differ most (tcsexam docs rules#per-task-differences)."
)


PICKER_WIDTH = 48  # a model's name in the pickers, at most (its start and end kept)


class TaskDiffTable(SteadyDataTable):
    """The per-task differences: Enter opens a solver task's largest instance differences."""

    BINDINGS = [Binding("enter", "select_cursor", "Instances A vs B")]


class ComparePane(FiltersRows, ShowsRun, Vertical):
    """A follows the selected model; B is the model next to A in the Overview's order until one is
    picked (the picker, or the palette's "Compare A vs B"); ``/`` narrows both pickers."""

    BINDINGS = [CLEAR_FILTER_BINDING, FILTER_BINDING]

    # The pane's own rules. Not scoped: the size classes (-short) sit on the screen, above the pane.
    SCOPED_CSS = False
    DEFAULT_CSS = """
    #compare-explain { height: auto; padding: 0 0 1 0; color: $text-muted; }
    .-short #compare-explain { padding: 0; }
    #compare-controls { height: 1; margin-bottom: 1; }
    #compare-controls Select { width: 1fr; margin-right: 2; }
    #compare-controls Select:focus > SelectCurrent { background: $block-cursor-blurred-background; }
    .compare-label { width: 2; text-style: bold; }
    #compare-table { height: auto; }
    #compare-verdict { padding-top: 1; height: auto; text-style: bold; }
    #compare-mde { height: auto; color: $text-muted; padding-bottom: 1; }
    #compare-tasks { height: 1fr; min-height: 4; }
    .-short #compare-explain { display: none; }
    .-short #compare-verdict { padding-top: 0; }
    .-short #compare-mde { padding-bottom: 0; }
    """

    HELP = """\
The paired difference A − B per track and for the index, with 95% intervals, and the smallest detectable gap by attempts
per task. A follows the selected model; B starts as the model next to A in the Overview's order, until you pick one
(the two selects, or the palette's "Compare A vs B"); `/` narrows both pickers by name or status. Below, every task's
share of the index difference in points (A − B × its track's weight ÷ the track's tasks both scored; the shares sum
to the index difference), largest first, its A − B, and the solver tasks' instance counts (A better / B better / equal): `Enter`
on a solver task lists the instances where the two differ most.
"""  # its section of the help (tui/help_text.py)

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.state = None
        self.result: dict | None = None
        self.order: list[str] = []  # the Overview's order of the models
        self.b_chosen = False  # B was picked: it no longer follows A
        self._offered: dict[str | None, list[str]] = {}  # per picker, the models it was last given
        self._shown: tuple[str, str] | None = None  # the pair last compared (``_changed`` keeps it)

    def compose(self) -> ComposeResult:
        with Horizontal(id="compare-controls"):
            yield Static("A", classes="compare-label")
            yield Select([], prompt="model A", id="compare-a", compact=True)
            yield Static("B", classes="compare-label")
            yield Select([], prompt="model B", id="compare-b", compact=True)
        yield FilterBar("narrow the pickers: name, or status:incomplete", id="compare-filter")
        yield Static(EXPLAIN, id="compare-explain", markup=False)
        yield SteadyDataTable(id="compare-table", cursor_type="row", fixed_columns=1)
        yield Static("", id="compare-verdict", markup=False)
        yield Static("", id="compare-mde", markup=False)
        yield TaskDiffTable(id="compare-tasks", cursor_type="row", zebra_stripes=True, fixed_columns=1)

    def on_mount(self) -> None:
        # the columns are made once; a new pair of models replaces only the rows (widths then follow the rows)
        table = self.query_one("#compare-table", DataTable)
        for name in COMPARE_COLUMNS:
            table.add_column(name, key=name)
        tasks = self.query_one("#compare-tasks", DataTable)
        for name in TASK_DIFF_COLUMNS:
            tasks.add_column(name, key=name)

    def _parts(self, hidden: bool) -> None:
        for selector in ("#compare-controls", "#compare-table", "#compare-tasks", "#compare-mde"):
            self.query_one(selector).set_class(hidden, "gone")

    def show_empty(self, message: str) -> None:
        self.document, self.state, self.result = None, None, None
        self.query_one("#compare-verdict", Static).update(message)
        self._parts(True)

    def show_run(self, view: RunView) -> None:
        self.show(view.state, view.model, view.order)

    def show(self, state, selected: str | None, order: list[str] | None = None) -> None:
        """A newly loaded run (tui.state.DashboardState): keep the pair where both models are still there;
        ``order``: the Overview's order of the models (B's default is A's neighbour in it)."""
        self.state = state
        self.document = document = state.document
        models = list(document["models"])
        self.order = [m for m in order or [] if m in document["models"]] or models
        a, b = self.query_one("#compare-a", Select), self.query_one("#compare-b", Select)
        keep_a, keep_b = a.value, b.value
        self._parts(len(models) < 2)
        if len(models) >= 2:
            first = keep_a if isinstance(keep_a, str) and keep_a in models else None
            first = first or (selected if selected in models else None) or self.order[0]
            second = (
                keep_b if isinstance(keep_b, str) and self.b_chosen and keep_b in models and keep_b != first else None
            )
            second = second or neighbour(self.order, first)
            self._offer(first, second)
        else:
            self._offer(None, None)
        self._update()

    def set_order(self, order: list[str]) -> None:
        """The Overview's order changed (a sort): B, unless picked, is A's neighbour in the new order."""
        if self.document is None:
            return
        self.order = [m for m in order if m in self.document["models"]]
        a = self.query_one("#compare-a", Select).value
        if not self.b_chosen and isinstance(a, str) and len(self.order) >= 2:
            b = neighbour(self.order, a)
            if b != self.query_one("#compare-b", Select).value:
                self._offer(a, b)
                self._update()

    def follow(self, model: str) -> None:
        """Model A follows the selection; B is its neighbour in the Overview's order unless B was picked,
        and moves off A when they would be the same."""
        if self.document is None or model not in self.document["models"] or len(self.document["models"]) < 2:
            return
        b = self.query_one("#compare-b", Select).value
        if not self.b_chosen or b == model or not isinstance(b, str):
            b = neighbour(self.order, model)
        self._offer(model, b)
        self._update()

    def choose(self, a: str, b: str) -> None:
        """The palette's "Compare A vs B": both picked."""
        self.b_chosen = True
        self._offer(a, b)
        self._update()

    def _offer(self, a: str | None, b: str | None) -> None:
        """Both pickers' options (the models the filter leaves, A and B always among them) and values."""
        models = list(self.document["models"]) if self.document is not None else []
        if len(models) < 2:
            a = b = None
        query = self.query_one(FilterBar).filter_query
        left = filtered(models, query, lambda m: m, lambda m: self._status(m))
        self.query_one(FilterBar).show_count(
            count_note(len(left), len(models), "models in the pickers", query, list(RUN_STATUSES))
        )
        with self.prevent(Select.Changed):
            for select, value in ((self.query_one("#compare-a", Select), a), (self.query_one("#compare-b", Select), b)):
                offered = left if value is None or value in left else [value, *left]
                if offered != self._offered.get(select.id):  # a reset restyles the select: only when it changes
                    select.set_options([(Text(middle_ellipsis(m, PICKER_WIDTH)), m) for m in offered])
                    self._offered[select.id] = offered
                if value is not None and select.value != value:
                    select.value = value

    def _status(self, model: str) -> str:
        return self.document["models"][model]["status"] if self.document is not None else ""

    @on(FilterBar.Changed)
    def _filter_changed(self, event: FilterBar.Changed) -> None:
        event.stop()
        pair = self.pair()
        self._offer(*(pair if pair is not None else (None, None)))

    @on(FilterBar.Done)
    def _filter_done(self, event: FilterBar.Done) -> None:
        event.stop()
        self.query_one("#compare-a", Select).focus()

    def pair(self) -> tuple[str, str] | None:
        a, b = self.query_one("#compare-a", Select).value, self.query_one("#compare-b", Select).value
        return (a, b) if isinstance(a, str) and isinstance(b, str) else None

    @on(Select.Changed)
    def _changed(self, event: Select.Changed) -> None:
        if not isinstance(event.value, str):  # the picker's blank line ("model B") picked: the pair stays
            if self._shown is not None:
                self._offer(*self._shown)
            return
        if event.select.id == "compare-b":
            self.b_chosen = True  # picked by hand: B no longer follows A
        elif not self.b_chosen:
            self._offer(event.value, neighbour(self.order, event.value))
        self._update()

    def _update(self) -> None:
        table = self.query_one("#compare-table", DataTable)
        verdict = self.query_one("#compare-verdict", Static)
        table.clear()
        self.query_one("#compare-tasks", DataTable).clear()
        self.query_one("#compare-mde", Static).update("")
        self.result = None
        if self.document is None:
            return
        if len(self.document["models"]) < 2:
            verdict.update("Only one model in this run: nothing to compare.")
            return
        pair = self.pair()
        if pair is None:  # a picker set to its blank line
            verdict.update("Pick a model A and a model B to compare them.")
            return
        if pair[0] == pair[1]:
            verdict.update("A and B are the same model: pick another B.")
            return
        verdict.update("Comparing…")
        self._shown = pair
        self._compare_worker(self.state, pair)

    @work(thread=True, exclusive=True, group="compare", description="compare two models")
    @released
    def _compare_worker(self, state, pair: tuple) -> None:
        from tcsexam.scoring.errors import InputError

        from ...state import compare_pair

        try:
            result = compare_pair(state, *pair)
        except InputError as exc:
            self.post_message(CompareComputed(pair, None, exc.problems[0].message))
            return
        self.post_message(CompareComputed(pair, result))

    @on(CompareComputed)
    def _computed(self, message: CompareComputed) -> None:
        message.stop()
        if message.pair != self.pair() or self.document is None:
            return  # the pair changed while this one was computed
        from tcsexam.scoring.reports.compare import incomplete_note, mde_plain_note, no_common_note

        verdict = self.query_one("#compare-verdict", Static)
        if message.result is None:
            verdict.update(plain(message.error or ""))
            return
        result = self.result = message.result
        a, b = message.pair
        table = self.query_one("#compare-table", DataTable)
        table.clear()
        for row in compare_rows(result):
            table.add_row(*cells(*row))
        idx = result["index"]
        pair = text("A ", (middle_ellipsis(a, 32), "bold"), " − B ", (middle_ellipsis(b, 32), "bold"), ": ")
        lead = "Index difference"
        if note := incomplete_note(result):  # not a difference of indices: said first
            pair, lead = text(pair, f"{note}. "), "Difference over the common tasks"
        if idx is None:
            note = no_common_note(result) or ""
            verdict.update(text(pair, f"{note[:1].upper()}{note[1:]}."))
        elif idx["lo"] is None:
            verdict.update(
                text(
                    pair,
                    f"{lead} {idx['value']:+.2f} points; no interval (a track has fewer than 2 common tasks).",
                )
            )
        else:
            excl = (
                "excludes 0: the lead is supported" if idx["lo"] > 0 or idx["hi"] < 0 else "includes 0: could be noise"
            )
            verdict.update(
                text(
                    pair,
                    f"{lead} {idx['value']:+.2f} points, 95% [{idx['lo']:+.2f}, {idx['hi']:+.2f}] — {excl}.",
                )
            )
        self.query_one("#compare-mde", Static).update(mde_text(result["mde"], mde_plain_note(result)))
        tasks = self.query_one("#compare-tasks", DataTable)
        tasks.clear()
        for item, row in task_difference_rows(result):
            tasks.add_row(*cells(*row), key=item)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if event.data_table.id != "compare-tasks" or self.result is None or event.row_key.value is None:
            return
        item = event.row_key.value
        pair = self.pair()
        if pair is None:
            return
        if item not in self.result["instances"]:
            track = next(t["track"] for t in self.result["tasks"] if t["item"] == item)
            reason = (
                "not a solver task: it has no instances"
                if track != "solver"
                else self.result["instances_left_out"].get(item, "no per-instance scores from records")
            )
            self.app.notify(f"{plain(item)}: {reason}.", markup=False)
            return
        self._instances_worker(self.state, pair, item)

    @work(thread=True, exclusive=True, group="compare-instances", description="largest instance differences")
    @released
    def _instances_worker(self, state, pair: tuple[str, str], item: str) -> None:
        from ...state import instance_drilldown

        self.post_message(InstanceDiffsComputed(pair, item, instance_drilldown(state, *pair, item)))

    @on(InstanceDiffsComputed)
    def _instances_computed(self, message: InstanceDiffsComputed) -> None:
        message.stop()
        if message.pair != self.pair() or self.result is None:
            return
        from .instance_diffs import InstanceDiffsScreen

        self.app.push_screen(
            InstanceDiffsScreen(*message.pair, message.item, message.diffs, self.result["instances"].get(message.item))
        )
