"""A yes/no question (export of a stale state)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from ..widgets.footer import DashboardFooter


class ConfirmScreen(ModalScreen[bool]):
    BINDINGS = [Binding("y", "answer(True)", "Yes"), Binding("n,escape", "answer(False)", "No")]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-body"):
            yield Static(self.question, markup=False)
            yield Static("y exports, n or escape cancels", classes="hint", markup=False)
        yield DashboardFooter()

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
