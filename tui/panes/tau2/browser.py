"""What the tau2 pane's two browser screens share: a centred frame over the dashboard (docs/tau2.md#browsing-the-simulations)."""

from __future__ import annotations

from textual.binding import Binding
from textual.screen import ModalScreen


class Tau2BrowserScreen(ModalScreen[None]):
    """A screen of the tau2 browser: its body (class ``tau2-browser``) framed in the middle; escape or q closes it."""

    BINDINGS = [Binding("escape,q", "dismiss", "Close")]
    DEFAULT_CSS = """
    Tau2BrowserScreen { align: center middle; background: $background; }
    .tau2-browser { width: 95%; height: 90%; border: round $accent; background: $surface; padding: 0 1; }
    """
