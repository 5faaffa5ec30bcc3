"""The tcsexam dashboard: one App, one factory used by the command line and the tests."""

from __future__ import annotations

import os
import time
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, cast

from textual import events, on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.timer import Timer
from textual.widgets import Header, TabbedContent, TabPane

from . import export, workers
from .cache import same_but_time
from .commands import Dashboard, DashboardCommands
from .heap import LONG_PAUSE_S, PIECEMEAL_BEFORE_LONG, SHORT_PAUSE_S, Heap
from .messages import (
    CachedShown,
    DrillDown,
    InputsChanged,
    LoadFailed,
    LoadProgress,
    ModelOrder,
    ModelSelected,
    OpenAttempts,
    StateLoaded,
    Tau2Failed,
    Tau2Loaded,
)
from .panes import PANES, RUN_TABS, TAB, see
from .panes.compare.pane import ComparePane
from .panes.diagnostics.pane import DiagnosticsPane
from .panes.instances.pane import InstancesPane
from .panes.leaderboard.pane import LeaderboardPane, LeaderboardRowChosen
from .panes.overview.pane import TURN_S, OverviewPane
from .panes.tau2.pane import Tau2Pane
from .run_view import RunPane, RunView
from .state import DashboardConfig, DashboardState, RunSlot, has_run, run_configs, watch_targets
from .views import plain
from .widgets.footer import DashboardFooter
from .widgets.loading import ShowsRun

STEPPED_FROM = 200  # runs of more models are shown pane by pane (refresh_panes)
CHECKING = "CACHED, checking the inputs"  # the header's mark on a reopen's view from the cache


class TcsexamApp(App):
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
    ]

    def __init__(self, config: DashboardConfig, watch_debounce_ms: int = 300) -> None:
        super().__init__()
        self.config = config
        self.runs = [RunSlot(c) for c in run_configs(config)]  # every run opened; tabs 1-5 show runs[current]
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
            self._empty(
                "No run: the dashboard was started with --tau2 only. "
                "Start `tcsexam tui RUN_DIR --tau2 FILE` to score a run beside it."
            )
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

    def _header(self) -> None:
        """The sub-title of the run shown (tui/screens/runs.subtitle), then the tab labels."""
        from .screens.runs import subtitle

        self.sub_title = subtitle(
            self.shown, self.current + 1, len(self.runs), self.tau2_path, self.config.watch, time.monotonic()
        )
        if self.checking:  # first, so that a narrow terminal keeps it
            self.sub_title = f"{CHECKING} · {self.sub_title}"
        self._tab_labels()

    @property
    def checking(self) -> bool:
        """Whether the run shown is the cache's view of it, its inputs still being checked."""
        return self.shown.preview is not None and self.shown.state is None

    def _tab_labels(self, width: int | None = None) -> None:
        """Tab labels: short below the -wide breakpoint (so that every tab fits 80 columns), Diagnostics with ⚠ N.
        ``width``: the terminal's new width, in a resize (``self.size`` is still the old one then)."""
        tabs = self.main.query_one(TabbedContent)
        narrow = (self.size.width if width is None else width) < self.HORIZONTAL_BREAKPOINTS[1][0]
        count = len(self.problems) + len(self.tau2_problems) + len(self.leaderboard_problems)
        for tab in PANES:
            label = tab.label(narrow)
            if tab.id == "diagnostics" and count:
                label += f" ⚠ {count}"
            widget = tabs.get_tab(tab.id)
            if str(widget.label) != label:
                widget.label = label

    def on_resize(self, event: events.Resize) -> None:
        self._tab_labels(event.size.width)

    # --- loading (thread workers report back with messages) ---------------------------
    def load_runs(self, reason: str) -> None:
        """Load (again) every run, each in its own worker."""
        for number in range(len(self.runs)):
            self.load_run(reason, number)

    def load_run(self, reason: str, number: int | None = None) -> None:
        slot = self.runs[self.current if number is None else number]
        number = self.runs.index(slot)
        slot.loading = True
        slot.generation += 1
        slot.progress, slot.load_started = "starting", time.monotonic()
        self.loaders.stop_run(number)
        if slot.state is None and number == self.current:
            for pane in self.run_panes():
                pane.loading = True
        self._header()
        generation = slot.generation
        self.run_worker(
            partial(
                workers.load_run,
                slot.config,
                reason,
                generation,
                number,
                self.post_message,
                self.loaders,
                lambda: generation == slot.generation,
            ),
            thread=True,
            exclusive=True,
            group=f"load-{number}",
            description="load and score the run",
        )

    def stop_loaders(self) -> None:
        """End every loader process at once (q, or the app's end during a load)."""
        self.loaders.stop_all()

    async def action_quit(self) -> None:
        self.stop_loaders()
        self.exit()

    def on_unmount(self) -> None:
        self.stop_loaders()

    def on_load_progress(self, message: LoadProgress) -> None:
        slot = self.runs[message.run]
        if message.generation == slot.generation and slot.loading:
            slot.progress = message.text
            if message.run == self.current:
                self._header()

    def load_note(self) -> str:
        """What the loading panes say: the run shown, what its loader is reading, and for how long."""
        from .views import plain

        slot = self.shown
        if not slot.loading:
            return ""
        elapsed = time.monotonic() - slot.load_started
        return f"Loading {plain(slot.name)} · {elapsed:.0f} s · {plain(slot.progress)}\nq quits at any time"

    def load_tau2(self, reason: str, path: str | None = None) -> None:
        """(Re)read the tau2 file shown, or with ``path`` open another one (the palette): it replaces
        the one shown only once accepted."""
        self._tau2_generation += 1
        self._tau2_request = (path or self.tau2_path, path is not None)
        if self.tau2_metrics is None:
            self.main.query_one(Tau2Pane).loading = True
        path = self._tau2_request[0]
        assert path is not None  # asked for only with --tau2, a file shown or one opened
        self.run_worker(
            partial(workers.read_tau2, path, self._tau2_generation, self.post_message),
            thread=True,
            exclusive=True,
            group="tau2",
            description="read the tau2-bench results",
        )

    def on_cached_shown(self, message: CachedShown) -> None:
        """A reopen: the Overview shows the run as the cache last stored it, marked in the header as being
        checked, until the load's check of the inputs ends (docs/dashboard.md#the-cache-of-scored-runs)."""
        slot = self.runs[message.run]
        if not self._alive() or message.generation != slot.generation or not slot.loading or slot.state is not None:
            message.drawn.set()
            return
        slot.preview = message.state
        if message.run == self.current:
            self._show_preview()
        self._header()
        self.call_after_refresh(message.drawn.set)  # the check goes on once the view is on screen

    def _show_preview(self) -> None:
        """The Overview of the cache's view of the run shown; the other panes wait for the checked run."""
        preview = self.shown.preview
        assert preview is not None
        overview = self.main.query_one(OverviewPane)
        overview.loading = False
        overview.show_run(RunView(preview, self.selected_model))

    def on_state_loaded(self, message: StateLoaded) -> None:
        if not self._alive():
            return
        slot = self.runs[message.run]
        if message.generation != slot.generation:
            return  # a newer load is under way or done
        slot.loading = False
        previewed, slot.preview = slot.preview, None
        slot.state = message.state
        slot.loaded_at = time.strftime("%H:%M:%S")
        slot.problems, slot.problems_text, slot.stale = [], None, None
        self.refresh_leaderboard()
        if message.reason != "start":
            self.notify(f"Reloaded{self._run_named(message.run)}: status {slot.state.document['status']}", markup=False)
        self._watch()
        many = len(slot.state.document["models"]) > STEPPED_FROM
        self.call_after_refresh(self._settle_later if many else self.heap.settle)  # tui/heap.py
        if message.run != self.current:
            self._diagnostics()
            self._header()
            return
        for pane in self.run_panes():
            pane.loading = False
        self._diagnostics()
        # an unchanged reopen: the Overview already shows these numbers (its rows, cursor and scroll stay)
        self.refresh_panes(
            keep_overview=previewed is not None and same_but_time(previewed.document, slot.state.document)
        )
        self._header()

    def _run_named(self, number: int) -> str:
        """`` run NAME`` in a notification when several runs are open (nothing with one)."""
        from .views import plain

        return f" run {plain(self.runs[number].name)}" if len(self.runs) > 1 else ""

    def on_load_failed(self, message: LoadFailed) -> None:
        if not self._alive():
            return
        from tcsexam.scoring.errors import format_problems

        slot = self.runs[message.run]
        if message.generation != slot.generation:
            return
        slot.loading = False
        slot.preview = None  # never shown as the run once its inputs are rejected
        slot.problems = list(message.problems)
        slot.problems_text = format_problems(message.problems)
        kept = slot.state is not None
        slot.stale = (
            {"at": time.strftime("%H:%M:%S"), "count": len(slot.problems), "loaded_at": slot.loaded_at}
            if kept
            else None
        )
        self.refresh_leaderboard()
        self._watch()
        self.call_after_refresh(self.heap.settle)  # once the panes hold the new state (tui/heap.py)
        if message.run != self.current:
            self._diagnostics()
            self._header()
            self.notify(
                f"Inputs of{self._run_named(message.run)} rejected: {len(message.problems)} problem(s); "
                f"switch to it (R) to see them in {see('diagnostics')}.",
                severity="error",
                timeout=6,
                markup=False,
            )
            return
        if kept:
            for pane in self.run_panes():
                pane.loading = False
        else:
            self._empty(
                f"Nothing to show: the inputs were rejected. See {see('diagnostics')}, fix the files and press r "
                "to reload."
            )
        self._diagnostics()
        self._header()
        if not kept:
            # after the next refresh: TabbedContent may still be activating its initial tab
            self.call_after_refresh(self.action_tab, "diagnostics")
        self.notify(
            f"Inputs{self._run_named(message.run)} rejected: {len(message.problems)} problem(s); "
            f"see {see('diagnostics')}." + (" Showing the last good state." if kept else ""),
            severity="error",
            timeout=6,
            markup=False,
        )

    def _tau2_current(self, message: Tau2Loaded | Tau2Failed) -> bool:
        """Whether a tau2 load's answer is still wanted: the app runs, and no later load was asked for."""
        return self._alive() and message.generation == self._tau2_generation

    @on(Tau2Loaded)
    def show_tau2(self, message: Tau2Loaded) -> None:
        if not self._tau2_current(message):
            return
        self.tau2_metrics, self.tau2_problems = message.metrics, []
        from .views import plain

        path, opened = self._tau2_request
        self.tau2_path = path
        pane = self.main.query_one(Tau2Pane)
        pane.loading = False
        pane.show(message.metrics, message.meta, message.results)
        self._diagnostics()
        self._header()
        if opened:
            self._watch()  # --watch now follows the file opened
            self.call_after_refresh(self._open_tab, "tau2")
            self.notify(f"Opened tau2-bench results {plain(path)}.", markup=False)

    @on(Tau2Failed)
    def tau2_failed(self, message: Tau2Failed) -> None:
        if not self._tau2_current(message):
            return
        self.tau2_problems = list(message.problems)
        from .views import plain

        pane = self.main.query_one(Tau2Pane)
        pane.loading = False
        path, opened = self._tau2_request
        if opened:  # the file shown (if any) stays shown, and r and --watch keep following it
            self._diagnostics()
            self._header()
            kept = f"still showing {plain(self.tau2_path)}" if self.tau2_metrics is not None else "nothing opened"
            self.notify(
                f"tau2-bench results {plain(path)} rejected: {len(message.problems)} problem(s); "
                f"see {see('diagnostics')}; {kept}.",
                severity="error",
                timeout=6,
                markup=False,
            )
            return
        pane.show_rejected(len(message.problems), kept=self.tau2_metrics is not None, where=see("diagnostics"))
        self._diagnostics()
        self._header()
        self.notify(
            f"tau2-bench results rejected: {len(message.problems)} problem(s); see {see('diagnostics')}.",
            severity="error",
            markup=False,
        )

    def _diagnostics(self) -> None:
        run_dir = self.shown.config.run_dir
        base = run_dir if run_dir and os.path.isdir(run_dir) else None
        self.main.query_one(DiagnosticsPane).show(
            self.problems,
            self.tau2_problems,
            self.stale,
            kept=self.state is not None,
            base=base,
            leaderboard=self.leaderboard_problems,
        )

    # --- several runs: the Leaderboard and the switcher ---------------------------------------
    @property
    def leaderboard_problems(self) -> list:
        """Why ``tcsexam table`` rejects the loaded runs together (a model twice in a group), or []."""
        return self._leaderboard_problems

    def leaderboard_docs(self) -> list[tuple[str, dict]]:
        """(source, index document) of every run with an accepted state, in the command line's order."""
        return [(slot.source, slot.state.document) for slot in self.runs if slot.state is not None]

    def refresh_leaderboard(self, now: bool = False) -> None:
        """Fill the Leaderboard; with one run only once its tab is open (``now``): one run cannot be
        rejected by ``tcsexam table``, and its groups of 2,000 models take a second to make."""
        from .panes.leaderboard.views import leaderboard_groups
        from .views import plain

        self._leaderboard_stale = not now and len(self.runs) == 1 and self._active_tab() != "leaderboard"
        if self._leaderboard_stale:
            self._leaderboard_problems = []
            return
        groups, problems = leaderboard_groups(self.leaderboard_docs())
        self._leaderboard_problems = problems
        missing = [plain(slot.name) for slot in self.runs if slot.state is None and not slot.loading]
        self.main.query_one(LeaderboardPane).show(
            groups, problems, missing, len(self.leaderboard_docs()), self._stale_names()
        )

    def _stale_names(self, scope: str = "all") -> list[str]:
        """The runs (all, or the one shown) whose last accepted state is listed while their files are rejected."""
        from .views import plain

        slots = self.runs if scope == "all" else [self.shown]
        return [plain(slot.name) for slot in slots if slot.stale and slot.state is not None]

    def on_leaderboard_row_chosen(self, message: LeaderboardRowChosen) -> None:
        """Enter on a Leaderboard row: show its run, its model selected, in the Overview."""
        for number, slot in enumerate(self.runs):
            if slot.source == message.source and slot.state is not None:
                self.switch_run(number)
                self.select_model(message.model, "overview")
                self.call_after_refresh(self._open_tab, "overview")
                return

    def switch_run(self, number: int) -> None:
        """Show run ``number`` in every tab; the model (and Instances' task and attempt) stay selected
        where the new run has them."""
        if not 0 <= number < len(self.runs) or number == self.current:
            return
        self.current = number
        for pane in self.run_panes():
            pane.loading = self.state is None and self.shown.loading
        if self.state is None and not self.shown.loading:
            self._empty(
                f"Nothing to show: the inputs of this run were rejected. See {see('diagnostics')}, fix the files "
                "and press r to reload."
            )
        self.refresh_panes()
        self._diagnostics()
        self._header()

    def action_runs(self) -> None:
        """The run switcher (``R``): a list of the runs opened; with one run there is nothing to switch."""
        from .screens.runs import RunsScreen, run_row

        if len(self.runs) == 1:
            self.notify("Only one run is open: start `tcsexam tui RUN_DIR RUN_DIR...` to switch.", markup=False)
            return
        rows = []
        for number, slot in enumerate(self.runs):
            note = "loading" if slot.loading else ("STALE" if slot.stale else ("rejected" if slot.problems else ""))
            document = slot.state.document if slot.state is not None else None
            rows.append(run_row(number + 1, number == self.current, slot.name, slot.source, document, note))
        self.push_screen(RunsScreen(rows, self.current), lambda n: self.switch_run(n) if n is not None else None)

    # --- --watch: a watcher off the UI thread (watchfiles), debounced --------------------------
    def _watch(self) -> None:
        """(Re)start the watcher when the set of watched files changed (a reload may name new ones)."""
        if not self.config.watch:
            return
        targets = watch_targets(workers.watched_paths(self.runs if has_run(self.config) else [], self.tau2_path))
        if targets == self._watch_targets:
            return
        self._watch_targets = targets
        self.run_worker(
            workers.watch_inputs(targets, self.tau2_path, self.watch_debounce_ms, self.post_message),
            exclusive=True,
            group="watch",
            description="watch the inputs",
        )

    def on_inputs_changed(self, message: InputsChanged) -> None:
        if not self._alive():
            return
        if message.run and has_run(self.config):
            self.load_runs("watch")
        if message.tau2 and self.tau2_path:
            self.load_tau2("watch")

    # --- panes: one selection, one truth ------------------------------------------------------
    def refresh_panes(self, keep_overview: bool = False) -> None:
        """Show the run in every pane, one pane per turn of the event loop: keys typed meanwhile (q) are
        handled between them, as a run of 2,000 models takes a few tenths of a second per pane. The
        first pane (the Overview) chooses the model when none is selected, and the row order;
        ``keep_overview``: it already shows the run's numbers (a reopen's cached view, found unchanged)."""
        if self.state is None:
            if self.checking:
                self._show_preview()
            return
        state = self.state
        first, *rest = self.run_panes()
        if not keep_overview:
            first.show_run(RunView(state, self.selected_model))
        overview = self.main.query_one(OverviewPane)
        if self.selected_model not in state.document["models"]:
            self.selected_model = overview.top_model()
        view = RunView(state, self.selected_model, overview.order())
        steps = [partial(pane.show_run, view) for pane in rest]
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
        would take turns for as long as they kept re-activating each other."""
        if event.tabbed_content.active != event.pane.id:
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

    def action_open_tau2(self) -> None:
        """Ask for a tau2-bench results path and open it as ``--tau2 PATH`` would (escape cancels)."""
        from .screens.open_tau2 import OpenTau2Screen

        def opened(path: str | None) -> None:
            if path:
                self.load_tau2("open", os.path.expanduser(path))

        self.push_screen(OpenTau2Screen(self.tau2_path), opened)

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
    def action_tab(self, tab: str) -> None:
        self.main.query_one(TabbedContent).active = tab

    def action_help(self) -> None:
        from .help_text import help_text
        from .screens.help import HelpScreen

        self.push_screen(HelpScreen(help_text(self, self.main, self._active_tab())))

    def action_reload(self) -> None:
        if has_run(self.config):
            self.load_runs("reload")
        if self.tau2_path:
            self.load_tau2("reload")

    def action_copy_table(self, fmt: str, scope: str = "run") -> None:
        """Copy the table (docs/commands.md, as ``tcsexam table --format FMT``) of the run shown, or with scope
        ``all`` of every loaded run (the Leaderboard), to the clipboard."""
        if scope == "all":
            docs = self.leaderboard_docs()
        else:
            docs = [(self.shown.source, self.state.document)] if self.state is not None else []
        stale = self._stale_names(scope)
        table, said = export.table_for_clipboard(docs, fmt, scope, stale)
        if table is None:
            self.notify(said, severity="error", markup=False)
            return
        self.copy_to_clipboard(table)
        self.notify(said, severity="warning" if stale else "information", markup=False)

    def action_open_palette(self) -> None:
        """``:`` opens the command palette, as ``ctrl+p`` does (k9s's command key)."""
        self.action_command_palette()

    def action_export(self, path: str | None = None) -> None:
        """Write index.json (to --output, or to ``path``) with the same writer as `tcsexam score` (same
        content_sha256). It asks first while the view is stale, before it writes over the export of
        another run, and over a file other than --output (tui/export.py)."""
        if self.state is None:
            why = (
                "the inputs were rejected" if has_run(self.config) else "no run is open (a tau2-bench file is no index)"
            )
            self.notify(f"Nothing to export: {why}.", severity="error", markup=False)
            return
        if path is not None and path.strip() == "-":
            self.notify(export.TO_STDOUT, severity="error", markup=False)
            return
        target = export.absolute(path) if path else self.export_path
        if self._refused(target):
            return
        other = path is not None and target != self.export_path
        overwritten = None
        if not other and self._exported is not None and self._exported[0] != self.current:
            number, at, written = self._exported  # several runs, one --output
            if written == target:
                overwritten = (self.runs[number].name, at, self.shown.name)
        questions = export.export_questions(target, stale=self.stale, other=other, overwritten=overwritten)
        if questions:
            from .screens.confirm import ConfirmScreen

            self.push_screen(
                ConfirmScreen(" ".join(questions)),
                lambda yes: (
                    self._export(target) if yes else self.notify("Export cancelled: nothing written.", markup=False)
                ),
            )
            return
        self._export(target)

    @property
    def export_path(self) -> Path:
        """Where ``e`` writes: --output, else the shown run's RUN_DIR/build/index.json (as `tcsexam score`),
        as an absolute path."""
        if self.config.output is not None:
            return export.absolute(self.config.output)
        return export.default_output(self.shown.config.run_dir)

    def action_export_to(self) -> None:
        """``E``: ask where to export (escape cancels), then export there as ``e`` does."""
        from .screens.open_tau2 import ExportToScreen

        self.push_screen(ExportToScreen(str(self.export_path)), lambda path: self.action_export(path) if path else None)

    def _refused(self, path: Path) -> bool:
        """Whether ``path`` is refused as the export, said in a notification."""
        assert self.state is not None
        why = export.refusal(self.state.run, path)
        if why is not None:
            self.notify(why, severity="error", markup=False)
        return why is not None

    def _export(self, path: Path) -> None:
        state = self.state
        assert state is not None  # action_export calls this only with a state; a loaded state is only ever replaced
        if self._refused(path):  # again: the file may have changed while a question was asked
            return
        written, said = export.write_export(path, state.document)
        if not written:
            self.notify(said, severity="error", markup=False)
            return
        if path == self.export_path:
            self._exported = (self.current, time.strftime("%H:%M:%S"), path)
        self.notify(said, title="Export", markup=False)

    # --- the palette's figure -------------------------------------------------------------------
    def action_save_figure(self) -> None:
        """The figure of the tab shown (``tcsexam plot``: pass^k, Compare's pair, else the forest), as a PDF
        beside the run's index.json (--output); drawn in a thread, the notification says where."""
        state = self.state
        if state is None:
            self.notify("No figure: no run is shown.", severity="error", markup=False)
            return
        kind = export.figure_kind(self._active_tab())
        models = self.main.query_one(ComparePane).pair() if kind == "compare" else None
        if kind == "compare" and models is None:
            self.notify("No figure: pick A and B in Compare first.", severity="error", markup=False)
            return
        target = export.figure_target(self.export_path, kind)
        source = self.shown.source

        def draw() -> None:
            saved, said = export.save_figure(state.run, source, state.document, kind, target, models)
            self.call_from_thread(
                self.notify, said, title="Figure", severity="information" if saved else "error", markup=False
            )

        self.run_worker(draw, thread=True, group="figure")

    # --- the palette's Screenshot ---------------------------------------------------------------
    def deliver_screenshot(
        self, filename: str | None = None, path: str | None = None, time_format: str | None = None
    ) -> str | None:
        """An SVG of the screen, in ``path``, else in the Downloads folder when there is one, else in the
        current folder; the notification gives the file's absolute path, or why it was not written."""
        target = export.screenshot_target(filename, path, time_format)
        saved, said = export.save_screenshot(target, self.export_screenshot())
        self.notify(said, title="Screenshot", severity="information" if saved else "error", markup=False)
        return str(target) if saved else None


def create_app(config: DashboardConfig | None = None, **kwargs) -> TcsexamApp:
    """The one app factory (command line and tests)."""
    return TcsexamApp(config or DashboardConfig(), **kwargs)


if TYPE_CHECKING:
    # The palette's commands receive the app as their ``Dashboard`` interface (tui/commands.py), which
    # spares that module an import of this one; this line has mypy check the app has every member.
    _palette_app: type[Dashboard] = TcsexamApp
