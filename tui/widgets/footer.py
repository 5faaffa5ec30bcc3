"""The dashboard's footer: Textual's Footer, composed again only when the keys it shows change.

Textual's Footer composes all its keys anew (a widget per key, each styled twice on mount)
every time the screen's bindings are updated, which happens at each focus change: a tab
switch moves the focus once or twice and so rebuilt the footer up to twice, identical or not.
This footer compares what it would show (key, label, action, enabled, tooltip of every shown
binding, and the palette key) with what it shows, after the refresh in which the bindings
settled, and recomposes only when they differ. Its keys start in the footer's own compact
setting: Textual's start compact and are restyled at once when bound to a footer that is not
(two style updates of every key at each composition).
"""

from __future__ import annotations

from collections import defaultdict

from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey


class DashboardKey(FooterKey):
    """A footer key that starts not compact, like the footer it is bound to."""

    compact = reactive(False)


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
        """Footer.compose for bindings without groups (the dashboard has none; with groups, Footer's own)."""
        if not self._bindings_ready:
            return
        self._shown = self.shown_keys()
        active = self.screen.active_bindings
        by_action: defaultdict[str, list] = defaultdict(list)
        for _, binding, enabled, tooltip in active.values():
            if binding.show:
                by_action[binding.action].append((binding, enabled, tooltip))
        if any(binding.group is not None for (binding, _, _), *_ in by_action.values()):
            yield from super().compose()
            return
        self.styles.grid_size_columns = len(by_action)
        for binding, enabled, tooltip in (found[0] for found in by_action.values()):
            key = DashboardKey(
                binding.key,
                self.app.get_key_display(binding),
                binding.description,
                binding.action,
                disabled=not enabled,
                tooltip=tooltip,
            )
            yield key.data_bind(compact=Footer.compact)
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            found = active.get(self.app.COMMAND_PALETTE_BINDING)
            if found is not None:
                _, binding, enabled, tooltip = found
                yield FooterKey(  # compact, not bound to the footer's setting: as in Footer
                    binding.key,
                    self.app.get_key_display(binding),
                    binding.description,
                    binding.action,
                    classes="-command-palette",
                    disabled=not enabled,
                    tooltip=binding.tooltip or binding.description,
                )

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
