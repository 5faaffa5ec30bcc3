"""The instances of one solver task where two models differ most (docs/rules.md#per-task-differences drill-down)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from ...textual_ext.data_table import SteadyDataTable
from ...views import cells, text
from ...widgets.footer import DashboardFooter
from .views import INSTANCE_DIFF_COLUMNS, instance_difference_rows


class InstanceDiffsScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    InstanceDiffsScreen { align: center middle; }
    #instance-diffs-body { width: 90; max-width: 95%; height: auto; max-height: 85%; border: round $accent;
                           background: $surface; padding: 0 1; }
    #instance-diffs-summary { height: auto; padding-bottom: 1; }
    #instance-diffs-table { height: auto; }
    """
    BINDINGS = [Binding("escape,q", "dismiss", "Close")]

    def __init__(self, a: str, b: str, item: str, diffs: list[dict], counts: dict | None) -> None:
        super().__init__()
        self.a, self.b, self.item, self.diffs, self.counts = a, b, item, diffs, counts

    def compose(self) -> ComposeResult:
        c = self.counts
        summary = (
            "" if c is None else f" {c['a_better']} instances A better, {c['b_better']} B better, {c['equal']} equal."
        )
        with Vertical(id="instance-diffs-body"):
            yield Static(
                text(
                    self.item,
                    ": A ",
                    (self.a, "bold"),
                    " vs B ",
                    (self.b, "bold"),
                    ".",
                    summary,
                    f" The {len(self.diffs)} largest |A − B| of the per-instance mean Phi over the adopted "
                    "attempts, unequal instances only.   escape closes",
                ),
                id="instance-diffs-summary",
            )
            table: DataTable[Text | str] = SteadyDataTable(
                id="instance-diffs-table", cursor_type="row", zebra_stripes=True
            )
            table.add_columns(*INSTANCE_DIFF_COLUMNS)
            for row in instance_difference_rows(self.diffs):
                table.add_row(*cells(*row))
            if not self.diffs:
                table.add_row("—", "—", "—", "no instance differs")
            yield table
        yield DashboardFooter()
