"""Diagnostics: every problem of rejected inputs, in the words of `tcsexam validate`."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static


class DiagnosticsPane(VerticalScroll):
    def compose(self) -> ComposeResult:
        yield Static("No problems: the inputs were accepted.", id="diagnostics-text", markup=False)

    def show_problems(self, text: str | None, kept_last_good: bool) -> None:
        body = self.query_one("#diagnostics-text", Static)
        if text is None:
            body.update("No problems: the inputs were accepted.")
            return
        note = ("The last good state stays on the other tabs until the inputs are fixed (r reloads).\n\n"
                if kept_last_good else "Nothing could be scored; fix the inputs and press r to reload.\n\n")
        body.update(note + text)
