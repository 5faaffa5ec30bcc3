"""Where does a model fail: its worst instances across every solver task (``w`` in the Overview),
lowest Phi first; Enter opens the instance in Instances (docs/dashboard.md#find-and-order)."""

from __future__ import annotations

from collections import Counter

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from ..find import WORST_COLUMNS, WorstInstance
from ..textual_ext.data_table import SteadyDataTable
from ..views import cells, text
from ..widgets.footer import DashboardFooter


def failure_counts(rows: list[WorstInstance]) -> str:
    """The listed instances per status, the solver failures by count, most first ("13 timeout · 4 crash"),
    then the scored ones: where the model fails, by reason, at a glance."""
    counts = Counter(row.status for row in rows)
    failures = sorted(((n, s) for s, n in counts.items() if s != "ok"), key=lambda ns: (-ns[0], ns[1]))
    listed = " · ".join(f"{n:,} {s}" for n, s in failures) or "no solver failure"
    return f"Listed: {listed}; {counts.get('ok', 0):,} scored"


class WorstTable(SteadyDataTable):
    BINDINGS = [Binding("enter", "select_cursor", "Open in Instances")]


class WorstScreen(ModalScreen[WorstInstance | None]):
    """Dismissed with the instance chosen (Enter), or None (escape)."""

    DEFAULT_CSS = """
    WorstScreen { align: center middle; }
    #worst-body { width: 100; max-width: 98%; height: 90%; border: round $accent; background: $surface;
                  padding: 0 1; }
    #worst-summary { height: auto; }
    #worst-counts { height: auto; padding-bottom: 1; }
    #worst-table { height: 1fr; }
    """
    BINDINGS = [Binding("escape,q", "dismiss(None)", "Close")]

    def __init__(self, model: str, rows: list[WorstInstance], total: int, attempts: int) -> None:
        super().__init__()
        self.model, self.rows, self.total, self.attempts = model, rows, total, attempts

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
            table: DataTable[Text] = WorstTable(id="worst-table", cursor_type="row", zebra_stripes=True)
            table.add_columns(*WORST_COLUMNS)
            for i, row in enumerate(self.rows):
                table.add_row(*cells(*row.cells()), key=str(i))
            yield table
        yield DashboardFooter()

    def on_mount(self) -> None:
        self.query_one(DataTable).focus()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        # a second Enter of the same burst arrives while the screen is being dismissed: only the first counts
        if self.is_current and event.row_key is not None and event.row_key.value is not None:
            self.dismiss(self.rows[int(event.row_key.value)])
