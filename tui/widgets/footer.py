"""The dashboard's footer: Textual's Footer, composed again only when the keys it shows change.

Textual's Footer composes all its keys anew (a widget per key, each styled twice on mount)
every time the screen's bindings are updated, which happens at each focus change: a tab
switch moves the focus once or twice and so rebuilt the footer up to twice, identical or not.
This footer compares what it would show (key, label, action, enabled, tooltip of every shown
binding, and the palette key) with what it shows, after the refresh in which the bindings
settled, and recomposes only when they differ.
"""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer


class DashboardFooter(Footer):
    _shown: tuple | None = None  # the keys composed last
    _check_pending = False

    def shown_keys(self) -> tuple:
        """What the footer shows for the screen's current bindings (what Footer.compose reads)."""
        palette = self.app.COMMAND_PALETTE_BINDING if self.show_command_palette else None
        return tuple(
            (binding.key, binding.description, binding.action, enabled, tooltip, binding.group)
            for key, (_, binding, enabled, tooltip) in self.screen.active_bindings.items()
            if binding.show or key == palette
        ) + (self.compact, self.show_command_palette)

    def compose(self):
        if self._bindings_ready:
            self._shown = self.shown_keys()
        yield from super().compose()

    def bindings_changed(self, screen: Screen) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus or not self.is_attached or screen is not self.screen:
            return
        if not self._check_pending:  # one check per refresh, however many updates came before it
            self._check_pending = True
            self.call_after_refresh(self._recompose_if_changed)

    async def _recompose_if_changed(self) -> None:
        self._check_pending = False
        if self.is_attached and self.shown_keys() != self._shown:
            await self.recompose()
