"""What a pane of a run receives, below every pane and the tabs' registry (docs/architecture.md#the-dashboard).

``RunView`` is a run's view for the selected model; ``RunPane`` is the interface of a pane that shows
one: ``show_run`` (a run's view for the selected model), ``follow`` (a model selected elsewhere) and
``show_empty`` (why there is nothing to show).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .state import DashboardState


@dataclass(frozen=True)
class RunView:
    """What a pane of a run is shown: the run's loaded state, the model selected (None before the
    Overview has chosen one) and the Overview's row order (None before it has one)."""

    state: DashboardState
    model: str | None
    order: list[str] | None = None

    @property
    def document(self) -> dict:
        return self.state.document

    @property
    def plan(self) -> dict | None:
        return self.state.plan

    @property
    def demo(self) -> bool:
        return self.state.demo


class RunPane(Protocol):
    """The interface of a pane that shows a run (every ``Tab`` whose widget is a ``ShowsRun``)."""

    loading: bool

    def show_run(self, view: RunView) -> None:
        """Show the run of ``view`` for ``view.model`` (a new run, a reload, a run switched to)."""

    def follow(self, model: str) -> None:
        """``model`` was selected elsewhere: show it (the run shown is unchanged)."""

    def show_empty(self, reason: str) -> None:
        """No run to show: say ``reason`` instead."""
