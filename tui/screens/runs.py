"""The run switcher: the runs the dashboard opened; Enter shows one in every tab."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from ..textual_ext.data_table import SteadyDataTable
from ..views import RUN_COLUMNS, cells
from ..widgets.footer import DashboardFooter


class RunsScreen(ModalScreen[int | None]):
    """Dismissed with the chosen run's position, or None (escape)."""

    BINDINGS = [Binding("escape,q", "dismiss(None)", "Close")]

    def __init__(self, rows: list[list[str]], current: int) -> None:
        super().__init__()
        self.rows, self.current = rows, current

    def compose(self) -> ComposeResult:
        with Vertical(id="runs-body"):
            yield Static("Show which run? Enter switches every tab to it; escape closes.", markup=False)
            table: DataTable[Text] = SteadyDataTable(id="runs-table", cursor_type="row")
            table.add_columns(*RUN_COLUMNS)
            for i, row in enumerate(self.rows):
                table.add_row(*cells(*row), key=str(i))
            yield table
        yield DashboardFooter()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.move_cursor(row=self.current)
        table.focus()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        # a second Enter of the same burst arrives while the screen is being dismissed: only the first counts
        if self.is_current and event.row_key is not None and event.row_key.value is not None:
            self.dismiss(int(event.row_key.value))
