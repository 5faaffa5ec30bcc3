"""The attempts of one (model, task), as they stand in attempts.csv."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from ..textual_ext.data_table import SteadyDataTable
from ..views import cells, text
from ..widgets.footer import DashboardFooter


class AttemptsScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q", "dismiss", "Close")]

    def __init__(self, model: str, item: str, task: dict, rows: list) -> None:
        super().__init__()
        self.model, self.item, self.task_result, self.rows = model, item, task, rows

    def compose(self) -> ComposeResult:
        t = self.task_result
        with Vertical(id="attempts-body"):
            yield Static(
                text(
                    (self.model, "bold"),
                    " · ",
                    self.item,
                    f" ({t['track']}): {t['status']}, {t['adopted']} of {t['planned']} planned attempts "
                    f"adopted, {t['valid']} valid; task mean "
                    f"{'—' if t['mean'] is None else format(t['mean'], '.3f')}.   escape closes",
                )
            )
            table: DataTable[Text | str] = SteadyDataTable(id="attempts-table", cursor_type="row")
            table.add_columns("line", "attempt", "adoption_status", "score_status", "score", "note")
            for r in self.rows:
                table.add_row(
                    *cells(
                        r.line,
                        r.attempt,
                        r.adoption_status,
                        r.score_status,
                        "—" if r.score is None else f"{r.score:g}",
                        r.note,
                    )
                )
            if not self.rows:
                table.add_row("—", "—", "no row in attempts.csv", "", "", "")
            yield table
        yield DashboardFooter()
