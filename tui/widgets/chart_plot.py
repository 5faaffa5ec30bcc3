"""A PlotextPlot that draws its chart again when its size changes (tick choice and labels depend on it)."""

from __future__ import annotations

from textual import events
from textual_plotext import PlotextPlot

from ..charts import redraw


class ChartPlot(PlotextPlot):
    """The plot of one chart of tui/charts.py: ``redraw(plot, draw)`` keeps ``draw`` for the next resize."""

    def on_resize(self, event: events.Resize) -> None:
        draw = getattr(self, "last_draw", None)
        if draw is not None:
            redraw(self, draw)
