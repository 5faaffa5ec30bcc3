"""The tcsexam dashboard: one App, one factory used by the command line and the tests."""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, cast

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Header, TabbedContent, TabPane

from . import workers
from .app_base import STEPPED_FROM
from .app_export import Exporting
from .app_loading import LoadingInputs
from .app_runs import SeveralRuns
from .commands import Dashboard, DashboardCommands
from .heap import LONG_PAUSE_S, PIECEMEAL_BEFORE_LONG, SHORT_PAUSE_S, Heap
from .messages import DrillDown, ModelOrder, ModelSelected, OpenAttempts
from .panes import PANES, RUN_TABS, TAB
from .panes.compare.pane import ComparePane
from .panes.instances.pane import InstancesPane
from .panes.leaderboard.pane import LeaderboardPane
from .panes.overview.pane import TURN_S, OverviewPane
from .panes.tau2.pane import Tau2Pane
from .run_view import RunPane, RunView
from .state import DashboardConfig, DashboardState, RunSlot, has_run, run_configs
from .views import plain
from .widgets.footer import DashboardFooter
from .widgets.loading import ShowsRun

CHECKING = "CACHED, checking the inputs"  # the header's mark on a reopen's view from the cache
HEADER_SPARE = 30  # the header's cells around its sub-title (the icon, the padding, "tcsexam — "), and a … after it


NO_RUN = "No run: the dashboard was started with --tau2 only. Start `tcsexam tui RUN_DIR --tau2 FILE` to score a run beside it."
RUN_ACTIONS = frozenset({"export", "export_to", "runs"})  # the keys that need a run (check_action)


class TcsexamApp(LoadingInputs, SeveralRuns, Exporting):
    CSS_PATH = "app.tcss"
    TITLE = "tcsexam"
    COMMANDS = App.COMMANDS | {DashboardCommands}
    # classes on the screen that the stylesheet uses to give tables their rows first on small terminals
    VERTICAL_BREAKPOINTS = [(0, "-short"), (34, "-tall")]
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    BINDINGS = [
        Binding("q", "quit", "Quit"),
        Binding("colon", "open_palette", "Palette", show=False, tooltip="the command palette, as ctrl+p (k9s's :)"),
        Binding("question_mark", "help", "Help", tooltip="every key of the tab shown, and what each tab shows"),
        Binding(
            "e",
            "export",
            "Export",
            tooltip="the run shown as index.json (same writer and hash as `tcsexam score`; asks first while the "
            "view is stale)",
        ),
        Binding("E", "export_to", "Export to", tooltip="the same, to a path you type"),
        Binding("r", "reload", "Reload", tooltip="every run and the tau2 file (`--watch` reloads on change)"),
        Binding(
            "R", "runs", "Runs", tooltip="run switcher (`tcsexam tui RUN_DIR RUN_DIR...`): the run every tab shows"
        ),
        *[Binding(tab.key, f"tab('{tab.id}')", tab.title, show=False) for tab in PANES],
        # the palette's Keys panel (Textual's) closes with escape too, before escape's other uses
        Binding("escape", "hide_help_panel", "Hide keys", show=False, priority=True),
    ]

    def __init__(self, config: DashboardConfig, watch_debounce_ms: int = 300, resolved: Sequence = ()) -> None:
        """``resolved``: each run's paths as the console script resolved them, its cohort read ahead
        (tui/cli.py ``check_run_dirs``), for the run's first load."""
        super().__init__()
        self.config = config
        self.runs = [RunSlot(c) for c in run_configs(config)]  # every run opened; tabs 1-5 show runs[current]
        for slot, paths in zip(self.runs, resolved, strict=False):  # none with --tau2 alone
            slot.paths = paths
        self.current = 0
        self.tau2_problems: list = []
        self.selected_model: str | None = None
        self.watch_debounce_ms = watch_debounce_ms
        self._watch_targets: tuple | None = None
        self._exported: tuple[int, str, Path] | None = None  # (run, HH:MM:SS, file) of the last export by `e`
        self.tau2_metrics: dict | None = None
        self._tau2_generation = 0
        self.tau2_path = config.tau2  # the tau2 file shown, reloaded and watched (the palette can open another)
        self._tau2_request: tuple[str | None, bool] = (config.tau2, False)  # (path, opened from the palette)
        self._theme_problem: str | None = None
        self._saved_theme = self._restore_theme()
        self.heap = Heap()
        self._input_at = self._heap_at = 0.0  # time.monotonic() of the last input event, of the last settle
        self._pause_timer: Timer | None = None  # waits for the user to pause after input (only while there is input)
        self.loaders = workers.Loaders()  # the loader processes at work
        self._leaderboard_problems: list = []  # why `tcsexam table` rejects the loaded runs together
        self._leaderboard_stale = False  # one run: the Leaderboard is filled once its tab opens
        self._focus_to_restore: Widget | None = None  # had the keyboard when a let-go emptied its pane (on_let_go)

    # the run shown: its state, the problems of its last rejected load (empty: accepted), its stale mark
    @property
    def shown(self) -> RunSlot:
        return self.runs[self.current]

    @property
    def state(self) -> DashboardState | None:
        return self.shown.state

    @property
    def problems(self) -> list:
        return self.shown.problems

    @property
    def problems_text(self) -> str | None:
        return self.shown.problems_text

    @property
    def stale(self) -> dict | None:
        return self.shown.stale

    @property
    def loaded_at(self) -> str | None:
        return self.shown.loaded_at

    @property
    def loading(self) -> bool:
        """Whether any run is being loaded."""
        return any(slot.loading for slot in self.runs)

    @property
    def main(self):
        """The dashboard's own screen: panes are looked up there, also while a modal screen is open."""
        for screen in self.screen_stack:
            if not screen.is_modal:
                return screen
        return self.screen

    def _alive(self) -> bool:
        """False while the app is being torn down (late messages then have no panes to update)."""
        try:
            return bool(self.main.query(PANES[0].widget))
        except Exception:
            return False

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        """With --tau2 alone there is no run: no export and no run switcher in the footer, the help or the keys.
        Escape hides the Keys panel only while it is shown: else escape goes on to the tab's own use."""
        if action == "hide_help_panel":
            return bool(self.screen.query("HelpPanel"))
        return action not in RUN_ACTIONS or has_run(self.config)

    def run_panes(self) -> list[RunPane]:
        """The panes that show a run, in the tabs' order."""
        return [cast(RunPane, self.main.query_one(tab.widget)) for tab in RUN_TABS]

    def _empty(self, reason: str) -> None:
        """Every pane of a run says ``reason`` instead of the run."""
        for pane in self.run_panes():
            pane.loading = False
            pane.show_empty(reason)

    # --- layout ---------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header()
        with TabbedContent(initial="tau2" if self.config.tau2 and not self.config.run_dir else "overview"):
            for tab in PANES:
                with TabPane(tab.label(), id=tab.id):
                    yield tab.widget()
        yield DashboardFooter()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.InputEvent):
            self._input_at = time.monotonic()
            if self._pause_timer is None:
                self._pause_timer = self.set_timer(SHORT_PAUSE_S, self._paused)
        await super().on_event(event)

    def _paused(self) -> None:
        """The user has paused, or input came since this wait began: settle the heap as tui/heap.py says
        (not while a run loads), and wait again while input comes or a long pause could settle more."""
        self._pause_timer = None
        paused = time.monotonic() - self._input_at
        if paused < SHORT_PAUSE_S:
            self._pause_timer = self.set_timer(SHORT_PAUSE_S - paused, self._paused)
            return
        if not self.loading and self.heap.on_pause(paused, self._input_at > self._heap_at):
            self._heap_at = time.monotonic()
        if self.heap.piecemeal >= PIECEMEAL_BEFORE_LONG:  # a whole settle is owed: wait for it, input or not
            self._pause_timer = self.set_timer(max(LONG_PAUSE_S - paused, SHORT_PAUSE_S), self._paused)

    def on_mount(self) -> None:
        if self._theme_problem:
            self.notify(f"Theme not restored: {plain(self._theme_problem)}.", severity="warning", markup=False)
        self._header()
        if has_run(self.config):
            self.load_runs("start")
        else:
            self._empty(NO_RUN)
            self.main.query_one(LeaderboardPane).show_empty(NO_RUN)
        if self.config.tau2:
            self.load_tau2("start")
        else:
            self.main.query_one(Tau2Pane).show_empty()
        if self.config.watch and not has_run(self.config):
            self._watch()

    def _settle_later(self) -> None:
        """Freeze the heap of a newly loaded run of many models, and settle it whole at the next long pause
        (tui/heap.py), input or not: until then what the run it replaced left in cycles stays frozen."""
        self.heap.settle_later()
        if self._pause_timer is None:
            self._pause_timer = self.set_timer(LONG_PAUSE_S, self._paused)

    def _header(self, width: int | None = None) -> None:
        """The sub-title of the run shown (tui/screens/runs.subtitle), in the room the header has for it, then
        the tab labels. ``width``: the terminal's new width, in a resize."""
        from .screens.runs import subtitle

        width = self.size.width if width is None else width
        room = width - HEADER_SPARE - (len(f"{CHECKING} · ") if self.checking else 0) if width else None
        self.sub_title = subtitle(
            self.shown, self.current + 1, len(self.runs), self.tau2_path, self.config.watch, time.monotonic(), room
        )
        if self.checking:  # first, so that a narrow terminal keeps it
            self.sub_title = f"{CHECKING} · {self.sub_title}"
        self._tab_labels(width)

    @property
    def checking(self) -> bool:
        """Whether the run shown is the cache's view of it, its inputs still being checked."""
        return self.shown.preview is not None and self.shown.state is None and not self.shown.preview_scored

    def _tab_labels(self, width: int | None = None) -> None:
        """Tab labels: short below the -wide breakpoint (so that every tab fits 80 columns), Diagnostics with ⚠ N.
        ``width``: the terminal's new width, in a resize (``self.size`` is still the old one then)."""
        tabs = self.main.query_one(TabbedContent)
        narrow = (self.size.width if width is None else width) < self.HORIZONTAL_BREAKPOINTS[1][0]
        # problems, and an accepted run's warnings (a value that reads as a slip): each is worth a look
        warned = sum(1 for line in self.state.said if line.startswith("warning:")) if self.state else 0
        count = len(self.problems) + len(self.tau2_problems) + len(self.leaderboard_problems) + warned
        for tab in PANES:
            label = tab.label(narrow)
            if tab.id == "diagnostics" and count:
                label += f" ⚠ {count}"
            widget = tabs.get_tab(tab.id)
            if str(widget.label) != label:
                widget.label = label

    def on_resize(self, event: events.Resize) -> None:
        self._header(event.size.width)

    # --- panes: one selection, one truth ------------------------------------------------------
    def refresh_panes(self, keep_overview: bool = False) -> None:
        """Show the run in every pane, one pane per turn of the event loop: keys typed meanwhile (q) are
        handled between them, as a run of 2,000 models takes a few tenths of a second per pane. The
        first pane (the Overview) chooses the model when none is selected, and the row order;
        ``keep_overview``: it already shows the run's numbers (a reopen's cached view, found unchanged)."""
        if self.state is None:
            if self.shown.preview is not None:
                self._show_preview()
            return
        state = self.state
        first, *rest = self.run_panes()
        overview = self.main.query_one(OverviewPane)
        if keep_overview:
            overview.keep_showing(state.document)
        else:
            first.show_run(RunView(state, self.selected_model))
        self._give_back_focus(first)
        if self.selected_model not in state.document["models"]:
            self.selected_model = overview.top_model()
        view = RunView(state, self.selected_model, overview.order())
        steps = [partial(self._show_in, pane, view) for pane in rest]
        if len(state.document["models"]) <= STEPPED_FROM:
            for step in steps:
                step()
            return

        def run(rest: list) -> None:
            if not rest or self.loaders.quitting or self.state is not state or not self._alive():
                return
            rest[0]()
            self.set_timer(TURN_S, partial(run, rest[1:]))

        self.set_timer(TURN_S, partial(run, steps))

    def _show_in(self, pane: RunPane, view: RunView) -> None:
        pane.show_run(view)
        self._give_back_focus(pane)

    def _give_back_focus(self, pane: RunPane) -> None:
        """Once ``pane`` shows the run again, and it is the open tab's, the keyboard goes back to the widget
        of it that had it when a let-go emptied the panes (tui/app_loading.py ``on_let_go``: an emptied part
        is hidden, and a hidden widget hands the keyboard on), or, when another tab was opened meanwhile,
        to that tab's main widget if nothing has it."""
        active = self._active_tab()
        tab = self.main.query_one(f"TabPane#{active}") if active is not None else None
        if tab is None or not isinstance(pane, Widget) or tab not in pane.ancestors_with_self:
            return
        widget, self._focus_to_restore = self._focus_to_restore, None
        if widget is not None and widget.is_mounted and tab in widget.ancestors:
            self.call_after_refresh(self.main.set_focus, widget)  # once the pane's styles show it
        elif self.main.focused is None:
            self.call_after_refresh(self._focus_pane, tab)

    def on_model_selected(self, message: ModelSelected) -> None:
        if not self._alive():
            return
        if message.model == self.selected_model or self.state is None:
            return
        if self.main.query_one(OverviewPane).overtaken(message.model):
            return
        self._select(message)

    def _select(self, message: ModelSelected) -> None:
        if message.model == self.selected_model or self.state is None:
            return
        if message.model not in self.state.document["models"]:
            return
        self.selected_model = message.model
        for pane in self.run_panes():
            pane.follow(message.model)

    def on_model_order(self, message: ModelOrder) -> None:
        if not self._alive():
            return
        if self.state is not None:
            view = RunView(self.state, self.selected_model, message.models)
            for tab in RUN_TABS:
                if tab.follows_order:
                    cast(RunPane, self.main.query_one(tab.widget)).show_run(view)
            self.main.query_one(ComparePane).set_order(message.models)  # B defaults to A's neighbour in it

    def select_model(self, model: str, tab: str | None = None) -> None:
        self.post_message(ModelSelected(model))
        self.run_panes()[0].follow(model)
        if tab:
            self.action_tab(tab)

    def on_drill_down(self, message: DrillDown) -> None:
        if not self._alive():
            return
        if self.state is None or message.model not in self.state.document["models"]:
            return
        self._select(ModelSelected(message.model))
        pane = self.main.query_one(TAB[message.tab].widget)
        if message.item is not None and isinstance(pane, ShowsRun):
            pane.go_to(message.model, message.item, message.attempt, message.instance)
        # after the panes have handled the selection (a table that is refilled moves the focus,
        # and TabbedContent follows the focus): then open the tab and focus its table
        self.call_after_refresh(self._open_tab, message.tab)

    def _open_tab(self, tab: str) -> None:
        self.action_tab(tab)
        self._focus_pane(self.main.query_one(f"TabPane#{tab}"))

    def _focus_pane(self, pane) -> None:
        """Put the keyboard on the main widget of a tab that has opened. One still under its loading
        indicator cannot take it yet: it takes it once loaded, and meanwhile no widget of the tab
        left behind keeps it (TabbedContent would switch back to the tab of a focused widget). When the
        main widget is hidden (Diagnostics' table while there are no problems), the pane takes it."""
        tab = TAB.get(pane.id or "")
        if tab is None:
            return
        for widget in pane.query(tab.focus):
            if widget.loading:
                self.main.set_focus(None)
                widget.focus_when_loaded = True
                return
            if widget.display and not widget.has_class("gone"):
                self.main.set_focus(widget)
                return
        body = pane.query_one(tab.widget)
        self.main.set_focus(body if body.focusable else None)

    def jump_to_task(self, item: str) -> None:
        """The palette's "Jump to task": the selected model's cell of ``item`` in Coverage."""
        if self.selected_model is not None:
            self.post_message(DrillDown("coverage", self.selected_model, item))

    def on_open_attempts(self, message: OpenAttempts) -> None:
        from .screens.attempts import AttemptsScreen

        if self.state is None:
            return
        task = self.state.document["models"][message.model]["tasks"][message.item]
        self.push_screen(
            AttemptsScreen(message.model, message.item, task, self.state.attempts_of(message.model, message.item))
        )

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        """Put the keyboard on the pane's main table when its tab opens. An activation handled after
        another tab was chosen (keys typed faster than they are handled) is passed over: focusing its
        pane would make TabbedContent, which follows the focus, open it again, and two such tabs
        would take turns for as long as they kept re-activating each other. One handled while the app is
        torn down finds no panes: passed over too."""
        if event.tabbed_content.active != event.pane.id or not self._alive():
            return
        if event.pane.id == "leaderboard" and self._leaderboard_stale:
            self.refresh_leaderboard(now=True)
        self._focus_pane(event.pane)

    def _active_tab(self) -> str | None:
        try:
            return self.main.query_one(TabbedContent).active
        except Exception:
            return None

    # --- palette commands ---------------------------------------------------------------------
    def compare_with(self, model: str) -> None:
        """Compare the selected model (A) with ``model`` (B) and open the Compare tab."""
        if self.state is None or self.selected_model is None or model not in self.state.document["models"]:
            return
        self.main.query_one(ComparePane).choose(self.selected_model, model)
        self.call_after_refresh(self._open_tab, "compare")

    def filter_instances(self, status: str | None) -> None:
        """Show only the instances of one record status (None: every status) and open Instances."""
        self.main.query_one(InstancesPane).filter_status(status)
        self.call_after_refresh(self._open_tab, "instances")

    # --- the theme, remembered in tui.settings' file --------------------------------------------
    def _restore_theme(self) -> str:
        """Apply the remembered theme, if any; the theme then in use (what the file is known to hold)."""
        from .settings import read_theme

        theme, self._theme_problem = read_theme(self.available_themes)
        if theme is not None:
            self.theme = theme
        return self.theme

    def watch_theme(self, theme: str) -> None:
        """A theme picked (ctrl+p): remember it for the next start."""
        from .settings import save_theme

        if theme == getattr(self, "_saved_theme", theme):
            return
        self._saved_theme = theme
        error = save_theme(theme)
        if error:
            self.notify(f"Theme not remembered: {plain(error)}.", severity="warning", markup=False)

    # --- actions --------------------------------------------------------------------------
    def get_system_commands(self, screen):
        """Textual's palette commands, less its Quit: the palette's Quit is the q key's (tui/commands.py)."""
        return (command for command in super().get_system_commands(screen) if command.title != "Quit")

    def action_tab(self, tab: str) -> None:
        self.main.query_one(TabbedContent).active = tab

    def action_help(self) -> None:
        from .help_text import help_text
        from .screens.help import HelpScreen

        self.push_screen(HelpScreen(help_text(self, self.main, self._active_tab())))

    def action_open_palette(self) -> None:
        """``:`` opens the command palette, as ``ctrl+p`` does (k9s's command key)."""
        self.action_command_palette()


def create_app(config: DashboardConfig | None = None, **kwargs) -> TcsexamApp:
    """The one app factory (command line and tests)."""
    return TcsexamApp(config or DashboardConfig(), **kwargs)


if TYPE_CHECKING:
    # The palette's commands receive the app as their ``Dashboard`` interface (tui/commands.py), which
    # spares that module an import of this one; this line has mypy check the app has every member.
    _palette_app: type[Dashboard] = TcsexamApp
