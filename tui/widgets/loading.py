"""What a pane shows while its run loads: the pulsing dots, what the loader is reading, and for how long."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import LoadingIndicator


class RunLoadingIndicator(LoadingIndicator):
    """Textual's loading indicator with the app's ``load_note()`` under it (re-read at every frame)."""

    def render(self):
        dots = super().render()
        note = getattr(self.app, "load_note", lambda: "")()
        if not note or not isinstance(dots, Text):
            return dots
        return Text.assemble(dots, "\n\n", Text(note, style="not bold"), justify="center")


def run_loading_widget(self) -> RunLoadingIndicator:
    """``get_loading_widget`` of the panes that show a run."""
    return RunLoadingIndicator()
