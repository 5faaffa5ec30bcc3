"""One tau2-bench simulation: its reward breakdown and its messages (docs/tau2.md#browsing-the-simulations)."""

from __future__ import annotations

import textwrap

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import DataTable, Static

from tcsexam.scoring.grammar import counted

from ...textual_ext.data_table import SteadyDataTable
from ...textual_ext.workers import released
from ...views import cells, fmt, plain
from ...widgets.footer import DashboardFooter
from .browser import Tau2BrowserScreen
from .views import OUTCOME_STYLE, TAU2_REWARD_COLUMNS, tau2_message_blocks, tau2_reward_rows


class Tau2TrajectoryScreen(Tau2BrowserScreen):
    DEFAULT_CSS = """
    #tau2-trajectory-title, #tau2-trajectory-note { height: auto; padding-bottom: 1; }
    #tau2-trajectory-note { padding-bottom: 0; }
    #tau2-trajectory-scroll { height: 1fr; }
    #tau2-reward { height: auto; }
    #tau2-messages { height: auto; }
    .tau2-message { height: auto; padding-top: 1; }
    """

    def __init__(self, results, simulation: dict, task_id: str) -> None:
        super().__init__()
        self.results, self.simulation, self.task_id = results, simulation, task_id
        self.trajectory: dict | None = None

    def compose(self) -> ComposeResult:
        s = self.simulation
        trial = "—" if s["trial"] is None else s["trial"]
        with Vertical(id="tau2-trajectory-body", classes="tau2-browser"):
            yield Static(
                Text(
                    f"task {plain(self.task_id)} · trial {trial} · reward {fmt(s['reward'])} · "
                    f"{plain(s['termination_reason'])}   escape goes back"
                ),
                id="tau2-trajectory-title",
            )
            with VerticalScroll(id="tau2-trajectory-scroll"):
                yield Static(Text("Reading the simulation…"), id="tau2-trajectory-note")
                reward: DataTable[Text | str] = SteadyDataTable(
                    id="tau2-reward", cursor_type="none", zebra_stripes=True
                )
                reward.add_columns(*TAU2_REWARD_COLUMNS)
                yield reward
                yield Vertical(id="tau2-messages")
        yield DashboardFooter()

    def on_mount(self) -> None:
        self._read(self.simulation["slot"])

    @work(thread=True, exclusive=True, description="read a tau2-bench simulation")
    @released
    def _read(self, slot: int) -> None:
        from tcsexam.scoring.errors import InputError
        from tcsexam.scoring.tau2.trajectory import simulation_trajectory

        try:
            found = simulation_trajectory(self.results, slot)
        except InputError as exc:
            p = exc.problems[0]
            self.app.call_from_thread(self._failed, f"{p.file}: {p.where} {p.field}: {p.message}")
            return
        self.app.call_from_thread(self._show, found)

    def _failed(self, message: str) -> None:
        self.query_one("#tau2-trajectory-note", Static).update(Text(f"Cannot show this simulation: {plain(message)}"))

    def _show(self, trajectory: dict) -> None:
        self.trajectory = trajectory
        blocks = tau2_message_blocks(trajectory)
        self.query_one("#tau2-trajectory-note", Static).update(
            Text(f"Reward (reward_info), then {counted(len(blocks), 'message')}.")
        )
        table = self.query_one("#tau2-reward", DataTable)
        rows = tau2_reward_rows(trajectory["reward"])
        # the name (a long NL assertion) wraps in the width the other columns leave, so no outcome is off screen
        beside = sum(max(len(c), *(len(r[i]) for r in rows)) + 2 for i, c in enumerate(TAU2_REWARD_COLUMNS[:-1]))
        room = max(table.size.width - beside - 4, 20)
        table.clear(columns=True)
        for label in TAU2_REWARD_COLUMNS[:-1]:
            table.add_column(label, key=label)
        table.add_column(TAU2_REWARD_COLUMNS[-1], key="name", width=room)
        for row in rows:
            shown = cells(*row)
            shown[0].stylize(OUTCOME_STYLE.get(row[0], ""))
            shown[-1] = Text("\n".join(textwrap.wrap(shown[-1].plain, room, break_on_hyphens=False)) or "")
            table.add_row(*shown, height=None)
        messages = self.query_one("#tau2-messages", Vertical)
        messages.mount_all(
            Static(Text.assemble((heading, "bold"), "\n", body), classes="tau2-message") for heading, body in blocks
        )
