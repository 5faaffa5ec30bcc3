"""The dashboard's inputs, read off the UI thread: each run loaded (again) in its own worker, the cached
view shown at a reopen while the inputs are checked, the tau2-bench file read or opened, and --watch
(docs/dashboard.md). The workers report back with messages, handled here."""

from __future__ import annotations

import os
import time
from functools import partial

from textual import on

from tcsexam.scoring.grammar import counted

from . import workers
from .app_base import STEPPED_FROM, AppBase
from .cache import overview_part, same_but_time
from .messages import (
    CachedShown,
    InputsChanged,
    LetGo,
    LoadFailed,
    LoadProgress,
    ScoredShown,
    StateLoaded,
    Tau2Failed,
    Tau2Loaded,
)
from .panes import see
from .panes.diagnostics.pane import DiagnosticsPane
from .panes.overview.pane import OverviewPane
from .panes.tau2.pane import Tau2Pane
from .run_view import RunView
from .state import has_run, watch_targets
from .textual_ext.workers import released


class LoadingInputs(AppBase):
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
        paths, slot.paths = slot.paths, None  # resolved before the dashboard opened: for the first load only
        self.run_worker(
            released(
                partial(
                    workers.load_run,
                    slot.config,
                    reason,
                    generation,
                    number,
                    self.post_message,
                    self.loaders,
                    lambda: generation == slot.generation,
                    paths,
                )
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
        if slot.preview is not None:  # a reopen: the Overview shows the cache's view while the inputs are checked
            doing, until = ("Receiving", "the rest arrives") if slot.preview_scored else ("Checking", "the check ends")
            return (
                f"{doing} {plain(slot.name)} · {elapsed:.0f} s · {plain(slot.progress)}\n"
                f"the Overview (1) shows the run meanwhile, this tab once {until} · q quits at any time"
            )
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
            released(partial(workers.read_tau2, path, self._tau2_generation, self.post_message)),
            thread=True,
            exclusive=True,
            group="tau2",
            description="read the tau2-bench results",
        )

    def on_cached_shown(self, message: CachedShown) -> None:
        """A reopen: the Overview shows the run as the cache last stored it, marked in the header as being
        checked, until the load's check of the inputs ends (docs/dashboard.md#the-cache-of-scored-runs)."""
        if self._preview(message.state, message.generation, message.run, scored=False):
            self.call_after_refresh(message.drawn.set)  # the check goes on once the view is on screen
        else:
            message.drawn.set()

    def on_scored_shown(self, message: ScoredShown) -> None:
        """A run scored in a loader process: the Overview shows it, unmarked, while the rest crosses over
        (docs/dashboard-large-runs.md)."""
        self._preview(message.state, message.generation, message.run, scored=True)

    def _preview(self, state, generation: int, number: int, scored: bool) -> bool:
        """Show ``state`` in the Overview of run ``number`` until its load ends; False when that load is
        no longer the one wanted, or the run already shows a loaded state."""
        slot = self.runs[number]
        if not self._alive() or generation != slot.generation or not slot.loading or slot.state is not None:
            return False
        slot.preview, slot.preview_scored = state, scored
        if number == self.current:
            self._show_preview()
        self._header()
        return True

    def _show_preview(self) -> None:
        """The Overview of the cache's view of the run shown; the other panes wait for the checked run."""
        preview = self.shown.preview
        assert preview is not None
        overview = self.main.query_one(OverviewPane)
        overview.loading = False
        overview.show_run(RunView(preview, self.selected_model))

    def on_let_go(self, message: LetGo) -> None:
        """A large run's new inputs passed every check: the state it shows is let go before the new one is
        decoded, its panes showing the load meanwhile (about a second at 2,000 models), so that the new
        run is not laid out in the gaps of the old one (docs/dashboard-large-runs.md#memory-over-reloads)."""
        slot = self.runs[message.run]
        if self._alive() and message.generation == slot.generation and slot.loading and slot.state is not None:
            slot.state, slot.let_go_by = None, message.generation
            message.taken = True  # a newer reload asked for from now on lets this load finish (on_state_loaded)
            self.loaders.keep(message.loader)
            if message.run == self.current:
                self._focus_to_restore = self.main.focused  # given back as the panes show the new run
                for pane in self.run_panes():
                    pane.show_empty("")
                    pane.loading = True
            self.refresh_leaderboard()
            self.heap.settle()  # what the old state leaves dies in reference cycles (tui/heap.py)
        message.done.set()

    def on_state_loaded(self, message: StateLoaded) -> None:
        """A load's run, shown. An older load's run is dropped, unless that load let go of the state shown
        (``on_let_go``) before a newer one was asked for: its run is good, so it is shown while the newer
        load goes on, which replaces it, or keeps it marked stale when its inputs are rejected (or already
        has)."""
        if not self._alive():
            return
        slot = self.runs[message.run]
        latest = message.generation == slot.generation
        if not latest and not (slot.state is None and slot.let_go_by == message.generation):
            return  # a newer load is under way or done
        previewed = None
        if latest:
            slot.loading = False
            previewed, slot.preview = slot.preview, None
            slot.problems, slot.problems_text, slot.stale = [], None, None
        slot.state, slot.let_go_by = message.state, None
        slot.loaded_at = time.strftime("%H:%M:%S")
        if not slot.loading and slot.problems:  # an older load's run, after the newer load's inputs were rejected
            slot.mark_stale()
        self.refresh_leaderboard()
        if latest:
            if message.reason != "start":
                self.notify(
                    f"Reloaded{self._run_named(message.run)}: status {slot.state.document['status']}", markup=False
                )
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
            keep_overview=previewed is not None
            and same_but_time(previewed.document, overview_part(slot.state.document))
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
        slot.stale = None
        if kept:
            slot.mark_stale()
        self.refresh_leaderboard()
        self._watch()
        self.call_after_refresh(self.heap.settle)  # once the panes hold the new state (tui/heap.py)
        if message.run != self.current:
            self._diagnostics()
            self._header()
            self.notify(
                f"Inputs of{self._run_named(message.run)} rejected: {counted(len(message.problems), 'problem')}; "
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
            f"Inputs{self._run_named(message.run)} rejected: {counted(len(message.problems), 'problem')}; "
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

        path, opened = self._tau2_request
        self.tau2_path = path
        pane = self.main.query_one(Tau2Pane)
        pane.loading = False
        pane.show(message.metrics, message.meta, message.results, beside_a_run=self.config.run_dir is not None)
        self._diagnostics()
        self._header()
        if opened:
            self._watch()  # --watch now follows the file opened
            self.call_after_refresh(self._open_tab, "tau2")
            self.notify(f"Opened tau2-bench results:\n{self._toast_path(path)}", markup=False)

    def _toast_path(self, path: str | None) -> str:
        """A file's path in a notification, on a line of its own: cut in the middle to the notification's
        width (Textual's: 60 cells, at most half the screen, less its padding and edge), keeping the file's
        name, since a notification breaks its lines at spaces only, and a long path broke inside a name."""
        from .views import middle_ellipsis

        room = min(60, self.size.width // 2) - 3
        return middle_ellipsis(path or "", room, lead=room // 3)

    @on(Tau2Failed)
    def tau2_failed(self, message: Tau2Failed) -> None:
        if not self._tau2_current(message):
            return
        self.tau2_problems = list(message.problems)

        pane = self.main.query_one(Tau2Pane)
        pane.loading = False
        path, opened = self._tau2_request
        if opened:  # the file shown (if any) stays shown, and r and --watch keep following it
            self._diagnostics()
            self._header()
            kept = "still showing the results shown before" if self.tau2_metrics is not None else "nothing opened"
            self.notify(
                f"tau2-bench results rejected ({counted(len(message.problems), 'problem')}; see {see('diagnostics')}):"
                f"\n{self._toast_path(path)}\n{kept}.",
                severity="error",
                timeout=6,
                markup=False,
            )
            return
        pane.show_rejected(len(message.problems), kept=self.tau2_metrics is not None, where=see("diagnostics"))
        self._diagnostics()
        self._header()
        self.notify(
            f"tau2-bench results rejected: {counted(len(message.problems), 'problem')}; see {see('diagnostics')}.",
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
            notices=self.state.said if self.state is not None else (),  # what score prints beside the run
            findings=self.state.finding_count if self.state is not None else 0,
        )

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

    def action_reload(self) -> None:
        if has_run(self.config):
            self.load_runs("reload")
        if self.tau2_path:
            self.load_tau2("reload")

    def action_open_tau2(self) -> None:
        """Ask for a tau2-bench results path and open it as ``--tau2 PATH`` would (escape cancels)."""
        from .screens.open_tau2 import OpenTau2Screen

        def opened(path: str | None) -> None:
            if path:
                self.load_tau2("open", os.path.expanduser(path))

        self.push_screen(OpenTau2Screen(self.tau2_path), opened)
