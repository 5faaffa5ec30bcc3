"""What the panes of a run share: ``ShowsRun`` (the document shown, and while the run loads the
loading indicator: the pulsing dots, what the loader is reading, and for how long) and the sort keys."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.widgets import LoadingIndicator

# the keys of a pane whose table sorts by a column (its actions sort_pick, the sort picker of
# tui/screens/sort_picker.py, and sort_reverse); an explicit sort puts the cursor on the first row
SORT_BINDINGS = [Binding("s", "sort_pick", "Sort by…"), Binding("S", "sort_reverse", "Reverse sort")]
# "/" opens the pane's filter bar (tui/widgets/filter_bar.py). A priority binding: it runs before the keys
# after it are routed, so a fast burst ("/model-01") lands in the bar; the pane's check_action turns it off
# while an Input has the keyboard (a "/" typed in a filter)
FILTER_BINDING = Binding("slash", "filter", "Filter", priority=True)
# escape on a pane whose rows a filter holds clears it, as the bar's own escape does while typing in it
# (shown, and run, only while a filter is on: FiltersRows.check_action); first of a pane's keys, so that a
# footer too short for them all still offers it
CLEAR_FILTER_BINDING = Binding("escape", "clear_filter", "Clear filter")


class RunLoadingIndicator(LoadingIndicator):
    """Textual's loading indicator with the app's ``load_note()`` under it (re-read at every frame)."""

    def render(self):
        dots = super().render()
        note = getattr(self.app, "load_note", lambda: "")()
        if not note or not isinstance(dots, Text):
            return dots
        return Text.assemble(dots, "\n\n", Text(note, style="not bold"), justify="center")


def run_loading_widget(self) -> RunLoadingIndicator:
    """``get_loading_widget`` of the panes that show a run."""
    return RunLoadingIndicator()


class ShowsRun:
    """A pane that shows a run: while the run loads it shows what the loader is reading; ``document``
    is the index.json document it shows (None before the first load)."""

    get_loading_widget = run_loading_widget
    document: dict | None = None

    def go_to(self, model: str, item: str, attempt: str | None = None, instance: str | None = None) -> None:
        """A drill-down opens this pane on ``model``'s task ``item`` (and in Instances on an attempt's
        instance); a pane with no place for a task keeps what it shows."""
