"""The simulations of one tau2-bench task (docs/tau2.md#browsing-the-simulations): Enter opens one."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from tcsexam.scoring.grammar import counted

from ...textual_ext.data_table import SteadyDataTable
from ...views import cells, plain
from ...widgets.footer import DashboardFooter
from .browser import Tau2BrowserScreen
from .views import TAU2_SIMULATION_COLUMNS, tau2_simulation_rows


class Tau2SimulationsScreen(Tau2BrowserScreen):
    DEFAULT_CSS = """
    #tau2-simulations-body { height: auto; max-height: 90%; }
    #tau2-simulations-title { height: auto; padding-bottom: 1; }
    #tau2-simulations { height: auto; }
    """

    def __init__(self, results, task_id: str) -> None:
        from tcsexam.scoring.tau2.trajectory import task_simulations

        super().__init__()
        self.results, self.task_id = results, task_id
        self.simulations = task_simulations(results, task_id)

    def compose(self) -> ComposeResult:
        with Vertical(id="tau2-simulations-body", classes="tau2-browser"):
            yield Static(
                Text(
                    f"task {plain(self.task_id)}: {counted(len(self.simulations), 'simulation')}. "
                    "Enter shows a simulation's messages and reward; escape closes."
                ),
                id="tau2-simulations-title",
            )
            table: DataTable[Text | str] = SteadyDataTable(id="tau2-simulations", cursor_type="row", zebra_stripes=True)
            table.add_columns(*TAU2_SIMULATION_COLUMNS)
            for sim, row in zip(self.simulations, tau2_simulation_rows(self.simulations), strict=True):
                table.add_row(*cells(*row), key=str(sim["slot"]))
            yield table
        yield DashboardFooter()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        from .trajectory import Tau2TrajectoryScreen

        event.stop()
        slot = int(str(event.row_key.value))
        sim = next(s for s in self.simulations if s["slot"] == slot)
        self.app.push_screen(Tau2TrajectoryScreen(self.results, sim, self.task_id))
