"""A path, typed: another tau2-bench results file (the palette's "Open tau2 results…"), or where to
export index.json (``E``)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from ..widgets.footer import DashboardFooter


class OpenTau2Screen(ModalScreen[str | None]):
    """Dismissed with the path typed (Enter), or None (escape, or nothing typed)."""

    PROMPT = "Open tau2-bench results: a results.json or its folder (as --tau2 PATH)."
    HINT = "Enter opens it (r and --watch then follow it); escape cancels."

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]
    DEFAULT_CSS = """
    OpenTau2Screen { align: center middle; }
    #open-tau2-body { width: 90; max-width: 95%; height: auto; border: round $accent;
                      background: $surface; padding: 0 1; }
    #open-tau2-body Static { width: 100%; }
    #open-tau2-body .hint { color: $text-muted; }
    #open-tau2-path { width: 100%; margin: 1 0 0 0; }
    """

    def __init__(self, current: str | None) -> None:
        super().__init__()
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="open-tau2-body"):
            yield Static(self.PROMPT, markup=False)
            yield Input(value=self.current or "", placeholder="path", id="open-tau2-path")
            yield Static(self.HINT, classes="hint", markup=False)
        yield DashboardFooter()

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        path = event.value.strip()
        self.dismiss(path or None)


class ExportToScreen(OpenTau2Screen):
    """``E``: where to export index.json (the --output shown to start with)."""

    PROMPT = "Export the run shown as index.json to: a file (a folder, a device or an input is refused)."
    HINT = "Enter writes it (asks first before it replaces a file); escape cancels."
