"""The dashboard's footer: the keys of the focused widget's bindings, drawn as one line of one widget.

Textual's Footer mounts a widget per key and composes them all anew at every bindings
update, which comes at each focus change: on a tab switch that recomposition (new widgets
styled, laid out, rendered in an extra frame) cost more than the switch itself. This footer
is a single widget whose ``render`` reads ``screen.active_bindings``; a bindings update
only repaints its one line. It looks like Textual's (same component classes and theme
variables), a click runs the key under the pointer, the key under the pointer is
highlighted, and the command palette's key sits at the right edge. Binding groups are not
drawn as groups (the dashboard defines none): each key shows its own description.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual import events
from textual.content import Content
from textual.screen import Screen
from textual.widget import Widget


@dataclass(frozen=True)
class FooterItem:
    """One key as the footer shows it."""

    key: str  # the key pressed when the item is clicked
    display: str
    description: str
    enabled: bool


def footer_items(screen: Screen) -> tuple[list[FooterItem], FooterItem | None]:
    """The keys a footer shows for the screen's bindings, one per action in binding order, and the
    command palette's key (shown apart) when the app has a palette."""
    app = screen.app
    palette_key = app.COMMAND_PALETTE_BINDING if app.ENABLE_COMMAND_PALETTE else None
    items: list[FooterItem] = []
    actions: set[str] = set()
    palette = None
    for key, (_, binding, enabled, _) in screen.active_bindings.items():
        if key == palette_key:
            palette = FooterItem(binding.key, app.get_key_display(binding), binding.description, enabled)
        elif binding.show and binding.action not in actions:
            actions.add(binding.action)
            items.append(FooterItem(binding.key, app.get_key_display(binding), binding.description, enabled))
    return items, palette


KEPT = ("question_mark", "q")  # the keys the footer never leaves out: help (every other key) and quit


def short_labels(descriptions: list[str]) -> list[str]:
    """The keys' labels where the full labels do not fit: each its first word ("Sort column" -> "Sort"),
    but where two keys shown share it ("Copy Markdown", "Copy LaTeX"), their full labels, so that no
    two keys read alike."""
    first = [description.split(" ", 1)[0] for description in descriptions]
    return [
        word if first.count(word) == 1 else description for word, description in zip(first, descriptions, strict=True)
    ]


def fitted(items: list[tuple[FooterItem, Content, Content]], room: int) -> list[tuple[FooterItem, Content]]:
    """The keys drawn in ``room`` columns, each given as (item, full label, short label): every key with
    its full label if they fit, else every key with its short label, else the short labels of as many
    other keys as fit, in order, and ``?`` and ``q`` always (a key is left out whole, never cut)."""
    full = [(item, label) for item, label, _ in items]
    short = [(item, label) for item, _, label in items]
    for labelled in (full, short):
        if sum(label.cell_length for _, label in labelled) <= room:
            return labelled
    left = room - sum(label.cell_length for item, label in short if item.key in KEPT)
    out = []
    for item, label in short:
        if item.key not in KEPT:
            if label.cell_length > left:
                continue
            left -= label.cell_length
        out.append((item, label))
    return out


class DashboardFooter(Widget, can_focus=False):
    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"footer-key--key", "footer-key--description", "footer-key--hover", "footer--separator"}

    def __init__(self) -> None:
        super().__init__()
        self._spans: list[tuple[int, int, FooterItem]] = []  # columns of each item, as last drawn
        self._hover: str | None = None  # key of the item under the pointer

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen) -> None:
        if screen is self.screen:
            self.refresh()

    def _item(self, item: FooterItem, label: str | None = None) -> Content:
        """The key and its label (``label``, or its description in full)."""
        key_style = self.get_visual_style("footer-key--key")
        description_style = self.get_visual_style("footer-key--description")
        content = Content.assemble((f" {item.display} ", key_style))
        description = item.description if label is None else label
        if description:
            content = Content.assemble(content, (f"{description} ", description_style))
        if item.key == self._hover and item.enabled:
            content = content.stylize(self.get_visual_style("footer-key--hover"))
        if not item.enabled:
            content = content.stylize("dim")
        return content

    def render(self) -> Content:
        items, palette = footer_items(self.screen)
        width = self.size.width
        right = (
            Content.assemble(("▏", self.get_visual_style("footer--separator")), self._item(palette))
            if palette
            else Content("")
        )
        room = max(width - right.cell_length, 0)
        spans: list[tuple[int, int, FooterItem]] = []
        parts: list[Content] = []
        x = 0
        shorts = short_labels([item.description for item in items])
        both = [(item, self._item(item), self._item(item, short)) for item, short in zip(items, shorts, strict=True)]
        for item, part in fitted(both, room):
            spans.append((x, x + part.cell_length, item))
            parts.append(part)
            x += part.cell_length
        if palette is not None:
            spans.append((width - right.cell_length + 1, width, palette))
        self._spans = spans
        return Content.assemble(*parts, " " * max(width - x - right.cell_length, 0), right)

    def _item_at(self, x: int) -> FooterItem | None:
        return next((item for start, end, item in self._spans if start <= x < end), None)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        item = self._item_at(event.x)
        hover = item.key if item is not None else None
        if hover != self._hover:
            self._hover = hover
            self.refresh()

    def on_leave(self, event: events.Leave) -> None:
        if self._hover is not None:
            self._hover = None
            self.refresh()

    def on_click(self, event: events.Click) -> None:
        item = self._item_at(event.x)
        if item is None:
            return
        if item.enabled:
            self.app.simulate_key(item.key)
        else:
            self.app.bell()
