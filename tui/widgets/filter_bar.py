"""The filter bar every table of names takes (``/``): a line to type a filter in and the count of the
rows it leaves (docs/dashboard.md#find-and-order). The pane matches its rows (tui.find) and says how
many are left (``show_count``)."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Input, Static

from ..find import HINT, Query, parse_query

# the pane filters once typing pauses this long: a burst of keys costs one filter, not one per key
DEBOUNCE_S = 0.15


class FilterBar(Vertical):
    """Hidden until ``/`` opens it; Enter keeps the filter and gives the keyboard back to the table,
    escape clears it. The bar stays shown while a filter is on. The count of rows left sits beside the
    line typed in; a hint (the statuses there are, for a status word that matches none) wraps on the
    lines under it, whole at 80 columns too."""

    DEFAULT_CSS = """
    FilterBar { display: none; height: auto; }
    FilterBar.-open { display: block; }
    FilterBar Horizontal { height: 1; }
    FilterBar Input { width: 1fr; }
    FilterBar .filter-count {
        width: auto; max-width: 60%; color: $text-muted; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis;
    }
    FilterBar .filter-hint { color: $text-muted; height: auto; }
    FilterBar .filter-hint.-empty { display: none; }
    """
    BINDINGS = [Binding("escape", "clear", "Clear filter")]

    @dataclass
    class Changed(Message):
        """The filter typed has changed (after the pause of DEBOUNCE_S, or at once on Enter)."""

        bar: FilterBar
        query: Query

        @property
        def control(self) -> FilterBar:
            return self.bar

    @dataclass
    class Done(Message):
        """Enter or escape: the table takes the keyboard back."""

        bar: FilterBar

        @property
        def control(self) -> FilterBar:
            return self.bar

    def __init__(self, placeholder: str = "filter: name, or status:incomplete", **kwargs) -> None:
        super().__init__(**kwargs)
        self.placeholder = placeholder
        self.applied = ""  # the text whose filter the pane has
        self._note = ""  # what the pane last said of the rows it shows (``show_count``)
        self._timer: Timer | None = None

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Input(placeholder=self.placeholder, compact=True, select_on_focus=False)
            yield Static("", classes="filter-count", markup=False)
        yield Static("", classes="filter-hint -empty", markup=False)

    @property
    def filter_query(self) -> Query:
        """The filter the pane applies."""
        return parse_query(self.applied)

    @property
    def typing(self) -> bool:
        return self.query_one(Input).has_focus

    def open(self) -> None:
        """Show the bar and put the keyboard in it at once (keys typed right after ``/`` land there)."""
        self.add_class("-open")
        self.screen.set_focus(self.query_one(Input))

    def show_count(self, note: str) -> None:
        """``note`` (``tui.find.count_note``): its count beside the line typed in, a hint after it below."""
        self._note = note
        count, _, hint = note.partition(HINT)
        self.query_one(".filter-count", Static).update(count)
        self._hint(hint)

    def _hint(self, hint: str) -> None:
        shown = self.query_one(".filter-hint", Static)
        shown.update(hint)
        shown.set_class(not hint, "-empty")

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        if event.value != self.applied:  # the rows shown are still the old text's: never a stale count beside it
            self.query_one(".filter-count", Static).update("filtering…")
            self._hint("")
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(DEBOUNCE_S, self._apply)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._apply()
        self._close_if_empty()
        self.post_message(self.Done(self))

    def action_clear(self) -> None:
        self.query_one(Input).value = ""
        self._apply()
        self._close_if_empty()
        self.post_message(self.Done(self))

    def _apply(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        typed = self.query_one(Input).value
        if typed != self.applied:
            self.applied = typed
            self.post_message(self.Changed(self, parse_query(typed)))
        else:  # typed back to the filter applied (a key, then backspace): its count again, not "filtering…"
            self.show_count(self._note)

    def _close_if_empty(self) -> None:
        if not self.applied.strip():
            self.remove_class("-open")


class FiltersRows:
    """What a pane with a FilterBar mixes in: ``/`` opens the bar, except while an Input has the
    keyboard (a "/" typed in the filter itself, or in another field); escape clears a filter kept
    with Enter (tui/widgets/loading.py CLEAR_FILTER_BINDING, first of a pane's keys)."""

    def action_filter(self) -> None:
        self.query_one(FilterBar).open()  # type: ignore[attr-defined]

    def action_clear_filter(self) -> None:
        self.query_one(FilterBar).action_clear()  # type: ignore[attr-defined]

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action == "filter":
            return not isinstance(self.screen.focused, Input)  # type: ignore[attr-defined]  # this screen's line, not the palette's
        if action == "clear_filter":
            return bool(self.query_one(FilterBar).applied.strip())  # type: ignore[attr-defined]
        return True
