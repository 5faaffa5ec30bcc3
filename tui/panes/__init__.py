"""Every tab of the dashboard, declared once: the app composes, labels, focuses and feeds the tabs by
looping over ``PANES``; the help screen, the footer, the tab keys and every "see Diagnostics (7)" are
made from it (docs/architecture.md#where-to-add).

Each pane is a folder of its own, tui/panes/<name>/: its widget (pane.py, its CSS in ``DEFAULT_CSS``), its
pure view functions (views.py) and the modal screens only it opens. A pane that shows a run mixes in
``ShowsRun`` (tui/widgets/loading.py) and implements ``RunPane`` (tui/run_view.py). Its help section is its
class's ``HELP`` (Markdown); its keys are its bindings, which the help screen lists.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding
from textual.widget import Widget

from ..widgets.loading import ShowsRun
from .compare.pane import ComparePane
from .coverage.pane import CoveragePane
from .diagnostics.pane import DiagnosticsPane
from .instances.pane import InstancesPane
from .leaderboard.pane import LeaderboardPane
from .overview.pane import OverviewPane
from .passk.pane import PassKPane
from .tau2.pane import Tau2Pane


@dataclass(frozen=True)
class Tab:
    """One tab: its id (the TabPane's), its title, the pane's class, the widget that takes the keyboard
    when the tab opens, a shorter title for a narrow terminal, and whether the pane is shown the run
    anew when the Overview's row order changes."""

    id: str
    title: str
    widget: type[Widget]
    focus: str
    short: str | None = None
    follows_order: bool = False

    @property
    def key(self) -> str:
        """The key that opens the tab: its place in ``PANES``, from 1."""
        return str(PANES.index(self) + 1)

    @property
    def shows_run(self) -> bool:
        return issubclass(self.widget, ShowsRun)

    @property
    def help(self) -> str:
        """The tab's section of the help screen (Markdown)."""
        return str(getattr(self.widget, "HELP", ""))

    def label(self, narrow: bool = False) -> str:
        """The tab's label, ``7 Diagnostics``; below the -wide breakpoint its short title."""
        return f"{self.key} {self.short if narrow and self.short else self.title}"


# The first pane chooses the selected model and the row order the others follow.
PANES = (
    Tab("overview", "Overview", OverviewPane, "#overview-table"),
    Tab("coverage", "Coverage", CoveragePane, "#coverage-grid", follows_order=True),
    Tab("instances", "Instances", InstancesPane, "#instances-table", short="Inst."),
    Tab("passk", "pass^k", PassKPane, "#passk-table"),
    Tab("compare", "Compare", ComparePane, "#compare-a"),
    Tab("tau2", "tau2", Tau2Pane, "#tau2-tasks"),
    Tab("diagnostics", "Diagnostics", DiagnosticsPane, "#diagnostics-table", short="Diag."),
    Tab("leaderboard", "Leaderboard", LeaderboardPane, ".leaderboard-table", short="Board"),
)
TAB = {tab.id: tab for tab in PANES}
TUI = __name__.rpartition(".")[0]  # the dashboard's package: its classes' bindings are its own
RUN_TABS = tuple(tab for tab in PANES if tab.shows_run)


def own_bindings(cls: type) -> list[Binding]:
    """The bindings the dashboard's own classes in ``cls``'s ancestry declare (not Textual's widgets')."""
    return [
        binding
        for base in cls.__mro__
        if base.__module__.startswith(f"{TUI}.") and "BINDINGS" in vars(base)
        for binding in Binding.make_bindings(vars(base)["BINDINGS"])
    ]


def key_hint(app_bindings: list, action: str) -> str:
    """Where an app action has a key, how the palette names it: ``key e``, or ``key c in Overview``
    for a tab's key (``app_bindings``: the app's BINDINGS); "" without one."""
    for binding in Binding.make_bindings(app_bindings):
        if binding.action == action:
            return f"key {binding.key_display or binding.key}"
    for tab in PANES:
        for binding in own_bindings(tab.widget):
            if binding.action == f"app.{action}":
                return f"key {binding.key} in {tab.title}"
    return ""


def see(tab: str) -> str:
    """How a message points to a tab: ``Diagnostics (7)``."""
    return f"{TAB[tab].title} ({TAB[tab].key})"
