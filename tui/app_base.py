"""What the parts of the dashboard's App (tui/app_*.py, one concern each) share: the App they extend and, for
the type checker, the members they use of one another (docs/architecture.md#the-dashboard).

``TcsexamApp`` (tui/app.py) is made of these parts; each is an ``App`` so that Textual finds the message
handlers it defines. The declarations below exist for mypy only: at run time each member is the one its
part defines.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import App

if TYPE_CHECKING:
    from textual.widget import Widget

    from . import workers
    from .heap import Heap
    from .run_view import RunPane
    from .state import DashboardConfig, DashboardState, RunSlot

STEPPED_FROM = 200  # runs of more models are shown pane by pane (refresh_panes)


class AppBase(App):
    if TYPE_CHECKING:
        # the app's own (tui/app.py), its attributes first
        config: DashboardConfig
        runs: list[RunSlot]
        current: int
        selected_model: str | None
        heap: Heap
        loaders: workers.Loaders
        watch_debounce_ms: int
        _watch_targets: tuple | None
        _exported: tuple[int, str, Path] | None
        tau2_metrics: dict | None
        tau2_problems: list
        tau2_path: str | None
        _tau2_generation: int
        _tau2_request: tuple[str | None, bool]
        _leaderboard_problems: list
        _leaderboard_stale: bool
        _focus_to_restore: Widget | None

        @property
        def shown(self) -> RunSlot: ...
        @property
        def state(self) -> DashboardState | None: ...
        @property
        def problems(self) -> list: ...
        @property
        def stale(self) -> dict | None: ...
        @property
        def main(self) -> Any: ...
        def _alive(self) -> bool: ...
        def run_panes(self) -> list[RunPane]: ...
        def _empty(self, reason: str) -> None: ...
        def _header(self) -> None: ...
        def _settle_later(self) -> None: ...
        def _open_tab(self, tab: str) -> None: ...
        def _active_tab(self) -> str | None: ...
        def action_tab(self, tab: str) -> None: ...
        def select_model(self, model: str, tab: str | None = None) -> None: ...
        def refresh_panes(self, keep_overview: bool = False) -> None: ...

        # tui/app_loading.py
        def _diagnostics(self) -> None: ...

        # tui/app_runs.py
        @property
        def leaderboard_problems(self) -> list: ...
        def leaderboard_docs(self) -> list[tuple[str, dict]]: ...
        def refresh_leaderboard(self, now: bool = False) -> None: ...
        def _stale_names(self, scope: str = "all") -> list[str]: ...
