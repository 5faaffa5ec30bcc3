"""Where does a model fail: its worst instances across every solver task (``w`` in the Overview),
lowest Phi first; Enter opens the instance in Instances (docs/dashboard.md#find-and-order)."""

from __future__ import annotations

from collections import Counter

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from ...find import WORST_COLUMNS, WorstInstance, filtered, sort_choice, sort_worst, worst_name
from ...textual_ext.data_table import SteadyDataTable
from ...views import cells, text
from ...widgets.filter_bar import FilterBar, FiltersRows
from ...widgets.footer import DashboardFooter
from ...widgets.loading import FILTER_BINDING, SORT_BINDINGS


def failure_counts(rows: list[WorstInstance]) -> str:
    """The listed instances per status, the solver failures by count, most first ("13 timeout · 4 crash"),
    then the scored ones: where the model fails, by reason, at a glance."""
    counts = Counter(row.status for row in rows)
    failures = sorted(((n, s) for s, n in counts.items() if s != "ok"), key=lambda ns: (-ns[0], ns[1]))
    listed = " · ".join(f"{n:,} {s}" for n, s in failures) or "no solver failure"
    return f"Listed: {listed}; {counts.get('ok', 0):,} scored"


class WorstTable(SteadyDataTable):
    BINDINGS = [Binding("enter", "select_cursor", "Open in Instances")]


class WorstScreen(FiltersRows, ModalScreen[WorstInstance | None]):
    """Dismissed with the instance chosen (Enter), or None (escape). ``/`` filters by task, attempt,
    instance or ``status:``; ``s`` sorts by a column, ``S`` reverses (docs/dashboard.md#find-and-order)."""

    DEFAULT_CSS = """
    WorstScreen { align: center middle; }
    #worst-body { width: 100; max-width: 98%; height: 90%; border: round $accent; background: $surface;
                  padding: 0 1; }
    #worst-summary { height: auto; }
    #worst-counts { height: auto; padding-bottom: 1; }
    #worst-table { height: 1fr; }
    """
    BINDINGS = [Binding("escape,q", "dismiss(None)", "Close"), FILTER_BINDING, *SORT_BINDINGS]

    def __init__(self, model: str, rows: list[WorstInstance], total: int, attempts: int) -> None:
        super().__init__()
        self.model, self.rows, self.total, self.attempts = model, rows, total, attempts
        self.sort_column, self.sort_reverse = WORST_COLUMNS.index("Phi"), False  # the list's own order
        self.shown = list(rows)  # the rows in the table, in its order: a row's key is its place here

    def compose(self) -> ComposeResult:
        listed = "all" if len(self.rows) == self.total else f"the worst {len(self.rows):,} of"
        with Vertical(id="worst-body"):
            yield Static(
                text(
                    "Worst instances of ",
                    (self.model, "bold"),
                    f": {listed} {self.total:,} instances of {self.attempts:,} re-scored solver attempt"
                    f"{'s' if self.attempts != 1 else ''}, lowest Phi first (a solver failure scores 0). "
                    "Enter opens one in Instances; escape closes.",
                ),
                id="worst-summary",
            )
            yield Static(Text(failure_counts(self.rows)), id="worst-counts")
            yield FilterBar("filter: task, attempt, instance, or status:timeout", id="worst-filter")
            table: DataTable[Text] = WorstTable(id="worst-table", cursor_type="row", zebra_stripes=True)
            table.add_columns(*WORST_COLUMNS)
            yield table
        yield DashboardFooter()

    def on_mount(self) -> None:
        self._fill()
        self.query_one(DataTable).focus()

    def _fill(self) -> None:
        """The table: the rows the filter leaves, in the chosen order; the cursor on the first."""
        bar = self.query_one(FilterBar)
        kept = filtered(self.rows, bar.filter_query, worst_name, lambda r: r.status)
        self.shown = sort_worst(kept, self.sort_column, self.sort_reverse)
        table = self.query_one(DataTable)
        table.clear()
        for i, row in enumerate(self.shown):
            table.add_row(*cells(*row.cells()), key=str(i))
        if not bar.filter_query.empty:
            bar.show_count(f"{len(self.shown):,} of {len(self.rows):,}")
        table.move_cursor(row=0)

    @on(FilterBar.Changed)
    def _filter_changed(self, event: FilterBar.Changed) -> None:
        event.stop()
        self._fill()

    @on(FilterBar.Done)
    def _filter_done(self, event: FilterBar.Done) -> None:
        event.stop()
        self.query_one(DataTable).focus()

    def action_sort_pick(self) -> None:
        from ...screens.sort_picker import SortPicker

        def picked(at: int | None) -> None:
            if at is not None:
                natural = False  # names A first, Phi and z low first (the failures on top)
                self.sort_column, self.sort_reverse = sort_choice(at, self.sort_column, self.sort_reverse, natural)
                self._fill()

        self.app.push_screen(
            SortPicker("the worst instances", WORST_COLUMNS, self.sort_column, self.sort_reverse), picked
        )

    def action_sort_reverse(self) -> None:
        self.sort_reverse = not self.sort_reverse
        self._fill()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        # a second Enter of the same burst arrives while the screen is being dismissed: only the first counts
        if self.is_current and event.row_key is not None and event.row_key.value is not None:
            self.dismiss(self.shown[int(event.row_key.value)])
