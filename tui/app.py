"""The tcsexam dashboard: one App, one factory used by the command line and the tests."""

from __future__ import annotations

from pathlib import Path

from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, Header, TabbedContent, TabPane

from .commands import DashboardCommands
from .messages import LoadFailed, ModelSelected, OpenAttempts, StateLoaded, Tau2Failed, Tau2Loaded
from .state import DashboardConfig, DashboardState, input_signature, load_state
from .widgets.compare import ComparePane
from .widgets.coverage import CoveragePane
from .widgets.diagnostics import DiagnosticsPane
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
    ("diagnostics", "Diagnostics", DiagnosticsPane, "DiagnosticsPane"),
)
TABS = tuple(tab for tab, _, _, _ in PANES)
FOCUS = {tab: selector for tab, _, _, selector in PANES}


class TcsexamApp(App):
    CSS_PATH = "app.tcss"
    TITLE = "tcsexam"
    COMMANDS = App.COMMANDS | {DashboardCommands}
    BINDINGS = [
        Binding("q", "quit", "Quit"),
        Binding("question_mark", "help", "Help"),
        Binding("e", "export", "Export"),
        Binding("r", "reload", "Reload"),
        *[Binding(str(i + 1), f"tab('{t}')", t, show=False) for i, t in enumerate(TABS)],
    ]

    def __init__(self, config: DashboardConfig, watch_interval: float = 1.0) -> None:
        super().__init__()
        self.config = config
        self.state: DashboardState | None = None
        self.problems_text: str | None = None
        self.selected_model: str | None = None
        self.watch_interval = watch_interval
        self._signature: tuple | None = None
        self.tau2_metrics: dict | None = None
        self.loading = False

    # --- layout ---------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header()
        with TabbedContent(initial="tau2" if self.config.tau2 else "overview"):
            for number, (tab, title, pane, _) in enumerate(PANES, start=1):
                with TabPane(f"{number} {title}", id=tab):
                    yield pane()
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "loading…"
        self.load_run("start")
        if self.config.tau2:
            self.load_tau2(self.config.tau2)
        else:
            self.query_one(Tau2Pane).show_error("No tau2-bench results: start with --tau2 RESULTS_JSON.")
        if self.config.watch:
            self.set_interval(self.watch_interval, self.check_inputs)

    # --- loading (thread workers report back with messages) ---------------------------
    def load_run(self, reason: str) -> None:
        self.loading = True
        self._load_worker(reason)

    @work(thread=True, exclusive=True, group="load")
    def _load_worker(self, reason: str) -> None:
        from scoring.errors import InputError, Problem
        try:
            state = load_state(self.config)
        except InputError as exc:
            self.post_message(LoadFailed(exc.problems, reason))
            return
        except Exception as exc:  # a bug must not take the dashboard down
            self.post_message(LoadFailed([Problem("tcsexam", "", "", f"internal error: {type(exc).__name__}: {exc}")], reason))
            return
        self.post_message(StateLoaded(state, reason))

    @work(thread=True, exclusive=True, group="tau2")
    def load_tau2(self, path: str) -> None:
        from scoring.errors import InputError
        from scoring.tau2 import tau2_metrics_for_file
        try:
            metrics = tau2_metrics_for_file(Path(path))
        except InputError as exc:
            self.post_message(Tau2Failed(exc.problems))
            return
        self.post_message(Tau2Loaded(metrics))

    def on_state_loaded(self, message: StateLoaded) -> None:
        self.loading = False
        self.state = message.state
        self._signature = input_signature(self.state.watched)
        models = self.state.models
        if self.selected_model not in models:
            self.selected_model = models[0] if models else None
        self.problems_text = None
        self.query_one(DiagnosticsPane).show_problems(None, False)
        self.sub_title = f"{self.state.document['suite']} · {self.state.document['status']}"
        self.refresh_panes()
        if message.reason != "start":
            self.notify(f"Reloaded: status {self.state.document['status']}")

    def on_load_failed(self, message: LoadFailed) -> None:
        from scoring.errors import format_problems
        self.loading = False
        self.problems_text = format_problems(message.problems)
        kept = self.state is not None
        self.query_one(DiagnosticsPane).show_problems(self.problems_text, kept)
        if self.state is None:
            self.sub_title = "inputs rejected"
            # after the next refresh: TabbedContent may still be activating its initial tab
            self.call_after_refresh(self.action_tab, "diagnostics")
        if self.config.watch and self.state is not None:
            self._signature = input_signature(self.state.watched)
        self.notify(f"Inputs rejected: {len(message.problems)} problem(s); see Diagnostics (7)."
                    + (" Showing the last good state." if kept else ""), severity="error", timeout=6)

    @on(Tau2Loaded)
    def show_tau2(self, message: Tau2Loaded) -> None:
        self.tau2_metrics = message.metrics
        self.query_one(Tau2Pane).show(message.metrics)

    @on(Tau2Failed)
    def tau2_failed(self, message: Tau2Failed) -> None:
        from scoring.errors import format_problems
        self.query_one(Tau2Pane).show_error("tau2-bench results rejected:\n" + format_problems(message.problems))
        self.notify("tau2-bench results rejected", severity="error")

    def check_inputs(self) -> None:
        """--watch: reload when an input file changed since the last load."""
        if self.loading:
            return
        paths = self.state.watched if self.state is not None else None
        if paths is None:
            from .state import resolve_paths, watched_files
            try:
                paths = watched_files(resolve_paths(self.config))
            except Exception:
                return
        signature = input_signature(paths)
        if signature != self._signature:
            self._signature = signature
            self.load_run("watch")

    # --- panes ---------------------------------------------------------------------------
    def refresh_panes(self) -> None:
        if self.state is None:
            return
        doc = self.state.document
        self.query_one(OverviewPane).show(doc, self.selected_model)
        self.query_one(CoveragePane).show(doc, self.selected_model)
        self.query_one(PassKPane).show(doc, self.selected_model)
        self.query_one(ComparePane).show(doc, self.selected_model)
        self.query_one(InstancesPane).set_context(self.state, self.selected_model)

    def on_model_selected(self, message: ModelSelected) -> None:
        if message.model == self.selected_model or self.state is None:
            return
        self.selected_model = message.model
        self.query_one(PassKPane).show(self.state.document, message.model)
        self.query_one(InstancesPane).set_context(self.state, message.model)

    def select_model(self, model: str, tab: str | None = None) -> None:
        from textual.widgets import DataTable
        table = self.query_one("#overview-table", DataTable)
        if model in table.rows:
            table.move_cursor(row=table.get_row_index(model))
        self.post_message(ModelSelected(model))
        if tab:
            self.action_tab(tab)

    def jump_to_task(self, item: str) -> None:
        from textual.widgets import DataTable
        self.action_tab("coverage")
        grid = self.query_one("#coverage-grid", DataTable)
        if item in grid.rows:
            grid.move_cursor(row=grid.get_row_index(item))
            grid.focus()

    def on_open_attempts(self, message: OpenAttempts) -> None:
        from .screens.attempts import AttemptsScreen
        if self.state is None:
            return
        task = self.state.document["models"][message.model]["tasks"][message.item]
        self.push_screen(AttemptsScreen(message.model, message.item, task,
                                        self.state.attempts_of(message.model, message.item)))

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        """Put the keyboard on the pane's main table when its tab opens."""
        focus = FOCUS.get(event.pane.id or "")
        if focus:
            for widget in event.pane.query(focus):
                widget.focus()
                break

    # --- actions --------------------------------------------------------------------------
    def action_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab

    def action_help(self) -> None:
        from .screens.help import HelpScreen
        self.push_screen(HelpScreen())

    def action_reload(self) -> None:
        self.load_run("reload")

    def action_export(self) -> None:
        """Write index.json with the same writer as `tcsexam score` (same content_sha256)."""
        from scoring.output import write_index
        if self.state is None:
            self.notify("Nothing to export: the inputs were rejected.", severity="error")
            return
        path = Path(self.config.output)
        try:
            write_index(path, self.state.document)
        except OSError as exc:
            self.notify(f"Export failed: {exc.strerror or exc} ({path})", severity="error")
            return
        doc = self.state.document
        self.notify(f"Wrote {path} — status {doc['status']}, content_sha256 "
                    f"{doc['provenance']['content_sha256'][:12]}…", title="Export")


def create_app(config: DashboardConfig | None = None, **kwargs) -> TcsexamApp:
    """The one app factory (command line and tests)."""
    return TcsexamApp(config or DashboardConfig(), **kwargs)

