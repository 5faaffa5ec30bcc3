"""The sort picker (``s`` in a table): the table's columns, one line each; Enter sorts by the one
under the cursor (the current one: reversed), escape keeps the order (docs/dashboard.md#find-and-order)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ..find import sort_labels
from ..views import plain
from ..widgets.footer import DashboardFooter


class SortPicker(ModalScreen[int | None]):
    """Dismissed with the chosen column's position, or None (escape)."""

    DEFAULT_CSS = """
    SortPicker { align: center middle; }
    #sort-body { width: auto; min-width: 40; max-width: 90%; height: auto; max-height: 90%;
                 border: round $accent; background: $surface; padding: 0 1; }
    #sort-columns { height: auto; max-height: 30; width: auto; min-width: 36; }
    """
    BINDINGS = [Binding("escape,q", "dismiss(None)", "Close")]

    def __init__(self, title: str, columns: Sequence[str], current: int, descending: bool) -> None:
        super().__init__()
        self.title_text, self.columns, self.current, self.descending = title, list(columns), current, descending

    def compose(self) -> ComposeResult:
        with Vertical(id="sort-body"):
            yield Static(f"Sort {plain(self.title_text)} by:", markup=False)
            yield OptionList(
                *[
                    Option(Text(plain(label)), id=str(i))
                    for i, label in enumerate(sort_labels(self.columns, self.current, self.descending))
                ],
                id="sort-columns",
            )
        yield DashboardFooter()

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = self.current if 0 <= self.current < len(self.columns) else 0
        options.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self.is_current and event.option.id is not None:
            self.dismiss(int(event.option.id))
