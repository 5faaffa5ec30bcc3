"""A PlotextPlot that draws its chart again when its size changes (tick choice and labels depend on it),
and builds its figure once per drawing, size and theme rather than at every repaint."""

from __future__ import annotations

from collections.abc import Callable

from textual import events
from textual.geometry import Size
from textual_plotext import PlotextPlot

from ..charts import redraw


class ChartPlot(PlotextPlot):
    """The plot of one chart of tui/charts.py: ``redraw(plot, draw)`` sets ``last_draw``, which is run
    again on the next resize."""

    _last_draw: Callable | None = None
    _built: tuple | None = None  # (size, theme, the figure as built) since the last drawing

    @property
    def last_draw(self) -> Callable | None:
        return self._last_draw

    @last_draw.setter
    def last_draw(self, draw: Callable) -> None:
        self._last_draw = draw
        self._drawn_for = self.size
        self._built = None  # a new drawing: the figure is built again

    _drawn_for: Size | None = None  # the size the current drawing was made for

    def on_resize(self, event: events.Resize) -> None:
        """Draw again for a new size; a plot shown again gets a Resize of the size it had, which
        needs no new drawing (plotext takes tens of milliseconds to draw)."""
        if self._last_draw is not None and event.size != self._drawn_for:
            redraw(self, self._last_draw)

    def render(self):
        """The figure of the current drawing; plotext builds it again only after a drawing, a resize or a new
        theme (a tab switch repaints every visible widget, and a build takes tens of milliseconds)."""
        built = self._built
        if built is not None and built[0] == self.size and built[1] == self.app.theme:
            return built[2]
        figure = super().render()
        self._built = (self.size, self.app.theme, figure)
        return figure
