"""The pass^k tab's target half-width field (docs/dashboard.md#keys)."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import Input


class TargetField(Input):
    """A target half-width H in index points. A number never holds a ``q``: here as everywhere it quits.
    Enter and escape give the keyboard back to the tab's table."""

    BINDINGS = [
        Binding("q", "app.quit", "Quit", show=False, priority=True),
        Binding("escape", "leave", "Back to the table", show=False),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(placeholder="points", type="number", compact=True, **kwargs)

    def action_leave(self) -> None:
        self.post_message(self.Submitted(self, self.value))
