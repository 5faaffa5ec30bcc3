"""The tcsexam dashboard: one App, one factory used by the command line and the tests."""

from __future__ import annotations

import os
import time
from pathlib import Path

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Header, TabbedContent, TabPane

from .commands import DashboardCommands
from .heap import settle_heap
from .messages import (
    DrillDown,
    InputsChanged,
    LoadFailed,
    ModelOrder,
    ModelSelected,
    OpenAttempts,
    StateLoaded,
    Tau2Failed,
    Tau2Loaded,
)
from .state import DashboardConfig, DashboardState, has_run, load_state, uses_demo, watch_targets
from .widgets.compare import ComparePane
from .widgets.coverage import CoveragePane
from .widgets.diagnostics import DiagnosticsPane
from .widgets.footer import DashboardFooter
from .widgets.instances import InstancesPane
from .widgets.overview import OverviewPane
from .widgets.passk import PassKPane
from .widgets.tau2 import Tau2Pane

# (tab id, title, pane, the widget that takes the keyboard when the tab opens); key N opens tab N
PANES = (
    ("overview", "Overview", OverviewPane, "#overview-table"),
    ("coverage", "Coverage", CoveragePane, "#coverage-grid"),
    ("instances", "Instances", InstancesPane, "#instances-table"),
    ("passk", "pass^k", PassKPane, "#passk-table"),
    ("compare", "Compare", ComparePane, "#compare-a"),
    ("tau2", "tau2", Tau2Pane, "#tau2-tasks"),
    ("diagnostics", "Diagnostics", DiagnosticsPane, "#diagnostics-table"),
)
TABS = tuple(tab for tab, _, _, _ in PANES)
FOCUS = {tab: selector for tab, _, _, selector in PANES}
RUN_PANES = (OverviewPane, CoveragePane, InstancesPane, PassKPane, ComparePane)


class TcsexamApp(App):
    CSS_PATH = "app.tcss"
    TITLE = "tcsexam"
    COMMANDS = App.COMMANDS | {DashboardCommands}
    # classes on the screen that the stylesheet uses to give tables their rows first on small terminals
    VERTICAL_BREAKPOINTS = [(0, "-short"), (34, "-tall")]
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    BINDINGS = [
        Binding("q", "quit", "Quit"),
        Binding("question_mark", "help", "Help"),
        Binding("e", "export", "Export"),
        Binding("r", "reload", "Reload"),
        *[Binding(str(i + 1), f"tab('{t}')", t, show=False) for i, t in enumerate(TABS)],
    ]

    def __init__(self, config: DashboardConfig, watch_debounce_ms: int = 300) -> None:
        super().__init__()
        self.config = config
        self.state: DashboardState | None = None
        self.problems: list = []  # of the last rejected load of the run (empty: accepted)
        self.problems_text: str | None = None
        self.tau2_problems: list = []
        self.stale: dict | None = None  # {"at", "count", "loaded_at"} while the inputs on disk are rejected
        self.loaded_at: str | None = None
        self.selected_model: str | None = None
        self.watch_debounce_ms = watch_debounce_ms
        self._watch_targets: tuple | None = None
        self.tau2_metrics: dict | None = None
        self.tau2_meta: dict | None = None
        self.loading = False
        self._generation = 0
        self._tau2_generation = 0

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
            return bool(self.main.query(OverviewPane))
        except Exception:
            return False

    # --- layout ---------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header()
        with TabbedContent(initial="tau2" if self.config.tau2 and not self.config.run_dir else "overview"):
            for number, (tab, title, pane, _) in enumerate(PANES, start=1):
                with TabPane(f"{number} {title}", id=tab):
                    yield pane()
        yield DashboardFooter()

    def on_mount(self) -> None:
        self._header()
        if has_run(self.config):
            self.load_run("start")
        else:
            for pane in RUN_PANES:
                self.main.query_one(pane).show_empty(
                    "No run: the dashboard was started with --tau2 only. "
                    "Start `tcsexam tui RUN_DIR --tau2 FILE` to score a run beside it."
                )
        if self.config.tau2:
            self.load_tau2("start")
        else:
            self.main.query_one(Tau2Pane).show_empty()
        if self.config.watch and not has_run(self.config):
            self._watch()

    def _source(self) -> str:
        if uses_demo(self.config):
            return "DEMO (bundled synthetic run)"
        if self.config.run_dir:
            return self.config.run_dir
        if self.config.attempts or self.config.cohort:
            return self.config.attempts or self.config.cohort or ""
        return "no run"

    def _header(self) -> None:
        """Sub-title: what is open, its status, --watch, and a stale marker while inputs are rejected."""
        parts = [self._source()]
        if self.state is not None:
            parts += [self.state.document["suite"], self.state.document["status"]]
        elif self.loading:
            parts.append("loading…")
        elif self.problems:
            parts.append("inputs rejected")
        if self.config.watch:
            parts.append("watching")
        text = " · ".join(parts)
        if self.stale:
            text = (
                f"STALE: inputs rejected at {self.stale['at']} ({self.stale['count']} problem"
                f"{'s' if self.stale['count'] != 1 else ''}); showing {self.stale['loaded_at']} · "
            ) + text
        self.sub_title = text
        count = len(self.problems) + len(self.tau2_problems)
        tab = self.main.query_one(TabbedContent).get_tab("diagnostics")
        tab.label = f"7 Diagnostics ⚠ {count}" if count else "7 Diagnostics"

    # --- loading (thread workers report back with messages) ---------------------------
    def load_run(self, reason: str) -> None:
        self.loading = True
        self._generation += 1
        if self.state is None:
            for pane in RUN_PANES:
                self.main.query_one(pane).loading = True
        self._header()
        self._load_worker(reason, self._generation)

    @work(thread=True, exclusive=True, group="load", description="load and score the run")
    def _load_worker(self, reason: str, generation: int) -> None:
        from scoring.errors import InputError, Problem

        try:
            state = load_state(self.config)
        except InputError as exc:
            self.post_message(LoadFailed(exc.problems, reason, generation))
            return
        except Exception as exc:  # a bug must not take the dashboard down
            self.post_message(
                LoadFailed(
                    [Problem("tcsexam", "", "", f"internal error: {type(exc).__name__}: {exc}")], reason, generation
                )
            )
            return
        self.post_message(StateLoaded(state, reason, generation))

    def load_tau2(self, reason: str) -> None:
        self._tau2_generation += 1
        if self.tau2_metrics is None:
            self.main.query_one(Tau2Pane).loading = True
        self._tau2_worker(reason, self._tau2_generation)

    @work(thread=True, exclusive=True, group="tau2", description="read the tau2-bench results")
    def _tau2_worker(self, reason: str, generation: int) -> None:
        from scoring.errors import InputError, Problem

        from .state import load_tau2

        try:
            loaded = load_tau2(self.config.tau2)
        except InputError as exc:
            self.post_message(Tau2Failed(exc.problems, generation))
            return
        except Exception as exc:
            self.post_message(
                Tau2Failed(
                    [Problem(str(self.config.tau2), "", "", f"internal error: {type(exc).__name__}: {exc}")], generation
                )
            )
            return
        self.post_message(Tau2Loaded(loaded["metrics"], loaded["meta"], generation))

    def on_state_loaded(self, message: StateLoaded) -> None:
        if not self._alive():
            return
        if message.generation != self._generation:
            return  # a newer load is under way or done
        self.loading = False
        self.state = message.state
        self.loaded_at = time.strftime("%H:%M:%S")
        self.problems, self.problems_text, self.stale = [], None, None
        for pane in RUN_PANES:
            self.main.query_one(pane).loading = False
        self._diagnostics()
        self.refresh_panes()
        self._header()
        self.call_after_refresh(settle_heap)  # once the panes hold the new state (tui/heap.py)
        if message.reason != "start":
            self.notify(f"Reloaded: status {self.state.document['status']}", markup=False)
        self._watch()

    def on_load_failed(self, message: LoadFailed) -> None:
        if not self._alive():
            return
        from scoring.errors import format_problems

        if message.generation != self._generation:
            return
        self.loading = False
        self.problems = list(message.problems)
        self.problems_text = format_problems(message.problems)
        kept = self.state is not None
        self.stale = (
            {"at": time.strftime("%H:%M:%S"), "count": len(self.problems), "loaded_at": self.loaded_at}
            if kept
            else None
        )
        for pane in RUN_PANES:
            pane_widget = self.main.query_one(pane)
            pane_widget.loading = False
            if not kept:
                pane_widget.show_empty(
                    "Nothing to show: the inputs were rejected. See 7 Diagnostics, fix the files and press r to reload."
                )
        self._diagnostics()
        self._header()
        if not kept:
            # after the next refresh: TabbedContent may still be activating its initial tab
            self.call_after_refresh(self.action_tab, "diagnostics")
        self.notify(
            f"Inputs rejected: {len(message.problems)} problem(s); see Diagnostics (7)."
            + (" Showing the last good state." if kept else ""),
            severity="error",
            timeout=6,
            markup=False,
        )
        self._watch()

    @on(Tau2Loaded)
    def show_tau2(self, message: Tau2Loaded) -> None:
        if not self._alive():
            return
        if message.generation != self._tau2_generation:
            return
        self.tau2_metrics, self.tau2_meta, self.tau2_problems = message.metrics, message.meta, []
        pane = self.main.query_one(Tau2Pane)
        pane.loading = False
        pane.show(message.metrics, message.meta)
        self._diagnostics()
        self._header()

    @on(Tau2Failed)
    def tau2_failed(self, message: Tau2Failed) -> None:
        if not self._alive():
            return
        if message.generation != self._tau2_generation:
            return
        self.tau2_problems = list(message.problems)
        pane = self.main.query_one(Tau2Pane)
        pane.loading = False
        pane.show_rejected(len(message.problems), kept=self.tau2_metrics is not None)
        self._diagnostics()
        self._header()
        self.notify(
            f"tau2-bench results rejected: {len(message.problems)} problem(s); see Diagnostics (7).",
            severity="error",
            markup=False,
        )

    def _diagnostics(self) -> None:
        base = self.config.run_dir if self.config.run_dir and os.path.isdir(self.config.run_dir) else None
        self.main.query_one(DiagnosticsPane).show(
            self.problems, self.tau2_problems, self.stale, kept=self.state is not None, base=base
        )

    # --- --watch: a watcher off the UI thread (watchfiles), debounced --------------------------
    def _watched_paths(self) -> list[Path]:
        paths: list[Path] = []
        if self.state is not None:
            paths += self.state.watched
        elif has_run(self.config):
            from .state import resolve_paths, watched_files

            try:
                paths += watched_files(resolve_paths(self.config))
            except Exception:  # the run cannot even be located: watch what was named
                paths += [Path(p) for p in (self.config.run_dir, self.config.attempts, self.config.cohort) if p]
        if self.config.tau2:
            paths.append(Path(self.config.tau2))
        return paths

    def _watch(self) -> None:
        """(Re)start the watcher when the set of watched files changed (a reload may name new ones)."""
        if not self.config.watch:
            return
        targets = watch_targets(self._watched_paths())
        if targets == self._watch_targets:
            return
        self._watch_targets = targets
        self._watch_worker(targets)

    @work(exclusive=True, group="watch", description="watch the inputs")
    async def _watch_worker(self, targets: tuple) -> None:
        from watchfiles import awatch

        roots, files, trees = targets
        if not roots:
            return
        tau2 = os.path.abspath(self.config.tau2) if self.config.tau2 else None

        def counts(_change, path: str) -> bool:
            return path in files or path.startswith(tuple(trees))

        def is_tau2(path: str) -> bool:
            return tau2 is not None and (path == tau2 or path.startswith(tau2 + os.sep))

        async for changes in awatch(
            *roots, watch_filter=counts, debounce=self.watch_debounce_ms, step=50, recursive=True
        ):
            paths = {path for _, path in changes}
            self.post_message(InputsChanged(run=any(not is_tau2(p) for p in paths), tau2=any(map(is_tau2, paths))))

    def on_inputs_changed(self, message: InputsChanged) -> None:
        if not self._alive():
            return
        if message.run and has_run(self.config):
            self.load_run("watch")
        if message.tau2:
            self.load_tau2("watch")

    # --- panes: one selection, one truth ------------------------------------------------------
    def refresh_panes(self) -> None:
        if self.state is None:
            return
        doc = self.state.document
        overview = self.main.query_one(OverviewPane)
        overview.show(doc, self.selected_model, demo=self.state.demo)
        if self.selected_model not in doc["models"]:
            self.selected_model = overview.top_model()
        model = self.selected_model
        self.main.query_one(CoveragePane).show(doc, model, overview.order())
        self.main.query_one(PassKPane).show(doc, model, self.state.plan)
        self.main.query_one(ComparePane).show(self.state, model)
        self.main.query_one(InstancesPane).set_context(self.state, model)

    def on_model_selected(self, message: ModelSelected) -> None:
        if not self._alive():
            return
        if message.model == self.selected_model or self.state is None:
            return
        if message.model not in self.state.document["models"]:
            return
        self.selected_model = message.model
        self.main.query_one(OverviewPane).follow(message.model)
        self.main.query_one(CoveragePane).follow(message.model)
        self.main.query_one(PassKPane).show(self.state.document, message.model, self.state.plan)
        self.main.query_one(ComparePane).follow(message.model)
        self.main.query_one(InstancesPane).set_context(self.state, message.model)

    def on_model_order(self, message: ModelOrder) -> None:
        if not self._alive():
            return
        if self.state is not None:
            self.main.query_one(CoveragePane).show(self.state.document, self.selected_model, message.models)

    def select_model(self, model: str, tab: str | None = None) -> None:
        self.post_message(ModelSelected(model))
        self.main.query_one(OverviewPane).follow(model)
        if tab:
            self.action_tab(tab)

    def on_drill_down(self, message: DrillDown) -> None:
        if not self._alive():
            return
        if self.state is None or message.model not in self.state.document["models"]:
            return
        self.on_model_selected(ModelSelected(message.model))
        if message.tab == "instances" and message.item is not None:
            self.main.query_one(InstancesPane).choose(message.item)
        if message.tab == "coverage" and message.item is not None:
            self.main.query_one(CoveragePane).go_to(message.model, message.item)
        # after the panes have handled the selection (a table that is refilled moves the focus,
        # and TabbedContent follows the focus): then open the tab and focus its table
        self.call_after_refresh(self._open_tab, message.tab)

    def _open_tab(self, tab: str) -> None:
        self.action_tab(tab)
        self._focus_pane(self.main.query_one(f"TabPane#{tab}"))

    def _focus_pane(self, pane) -> None:
        """Put the keyboard on the main widget of a tab that has opened. One still under its loading
        indicator cannot take it yet: it takes it once loaded, and meanwhile no widget of the tab
        left behind keeps it (TabbedContent would switch back to the tab of a focused widget)."""
        for widget in pane.query(FOCUS.get(pane.id or "", "-")):
            if widget.loading:
                self.main.set_focus(None)
                widget.focus_when_loaded = True
            elif widget.display and not widget.has_class("gone"):
                self.main.set_focus(widget)
            break

    def jump_to_task(self, item: str) -> None:
        from textual.widgets import DataTable

        self.action_tab("coverage")
        grid = self.main.query_one("#coverage-grid", DataTable)
        if item in grid.rows:
            grid.move_cursor(row=grid.get_row_index(item))
            grid.focus()

    def on_open_attempts(self, message: OpenAttempts) -> None:
        from .screens.attempts import AttemptsScreen

        if self.state is None:
            return
        task = self.state.document["models"][message.model]["tasks"][message.item]
        self.push_screen(
            AttemptsScreen(message.model, message.item, task, self.state.attempts_of(message.model, message.item))
        )

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        """Put the keyboard on the pane's main table when its tab opens."""
        self._focus_pane(event.pane)

    # --- actions --------------------------------------------------------------------------
    def action_tab(self, tab: str) -> None:
        self.main.query_one(TabbedContent).active = tab

    def action_help(self) -> None:
        from .screens.help import HelpScreen

        self.push_screen(HelpScreen())

    def action_reload(self) -> None:
        if has_run(self.config):
            self.load_run("reload")
        if self.config.tau2:
            self.load_tau2("reload")

    def action_copy_table(self, fmt: str) -> None:
        """Copy the run's table (SPEC 11, as ``tcsexam table --format FMT``) to the clipboard."""
        from .state import TABLE_FORMATS, table_text

        if self.state is None:
            self.notify("Nothing to copy: the inputs were rejected.", severity="error", markup=False)
            return
        table = table_text(self.state.document, self._source(), fmt)
        self.copy_to_clipboard(table)
        self.notify(
            f"Copied the table as {TABLE_FORMATS[fmt]} ({len(table.splitlines())} lines) to the clipboard.",
            markup=False,
        )

    def action_export(self) -> None:
        """Write index.json with the same writer as `tcsexam score` (same content_sha256).

        While the inputs on disk are rejected (a stale view), it asks first: the document's
        input hashes describe files that are no longer there.
        """
        if self.state is None:
            self.notify("Nothing to export: the inputs were rejected.", severity="error", markup=False)
            return
        if self.stale:
            from .screens.confirm import ConfirmScreen

            question = (
                f"The inputs on disk were rejected at {self.stale['at']} ({self.stale['count']} problem(s)). "
                f"Export the last good state, loaded at {self.stale['loaded_at']}, to {self.config.output}? "
                "Its input hashes describe the files as they were then."
            )
            self.push_screen(
                ConfirmScreen(question),
                lambda yes: self._export() if yes else self.notify("Export cancelled: nothing written.", markup=False),
            )
            return
        self._export()

    def _export(self) -> None:
        from scoring.errors import InputError
        from scoring.output import write_index
        from scoring.safety import check_output

        path = Path(self.config.output)
        run = self.state.run
        try:  # SPEC 13: never one of the run's inputs, a folder, a FIFO or a device
            check_output(
                str(path),
                [str(p) for p in run.input_paths.values()],
                [str(run.paths.records)] if run.paths.records else [],
            )
        except InputError as exc:
            self.notify(
                f"Export refused: {exc.problems[0].message} ({path}); nothing written.", severity="error", markup=False
            )
            return
        try:
            write_index(path, self.state.document)
        except OSError as exc:
            self.notify(f"Export failed: {exc.strerror or exc} ({path})", severity="error", markup=False)
            return
        doc = self.state.document
        self.notify(
            f"Wrote {path} — status {doc['status']}, content_sha256 {doc['provenance']['content_sha256'][:12]}…",
            title="Export",
            markup=False,
        )


def create_app(config: DashboardConfig | None = None, **kwargs) -> TcsexamApp:
    """The one app factory (command line and tests)."""
    return TcsexamApp(config or DashboardConfig(), **kwargs)
