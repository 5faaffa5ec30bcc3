"""The Instances pane's two small widgets: the column names over its table (a click sorts) and the
Phi histogram of the rows shown."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.message import Message
from textual.widgets import Static

from ...charts import histogram_lines


class InstancesHeader(Static):
    """Column names over the instance table; a click sorts by that column (again: reverses)."""

    @dataclass
    class Clicked(Message):
        x: int

    def on_click(self, event) -> None:
        self.post_message(self.Clicked(event.x))


class HistogramRows(Static):
    """The Phi histogram of the rows shown, one text row per bin with its bar and count (tui/charts.py
    histogram_lines), drawn for the width it has."""

    def __init__(self, **kwargs) -> None:
        super().__init__("", markup=False, **kwargs)
        self.bars: tuple[list[str], list[int], int] | None = None  # (labels, counts, rows shown)

    def show(self, labels: list[str], counts: list[int], shown: int) -> None:
        self.bars = (labels, counts, shown)
        self.refresh()

    def render(self) -> Text:
        if self.bars is None:
            return Text("")
        lines = histogram_lines(*self.bars, width=self.size.width or 80)
        out = Text("\n".join(lines))
        failures = sum(len(line) + 1 for line in lines[:-1])  # the last row: the solver failures
        out.stylize("bold", 0, len(lines[0]))
        out.stylize("red", failures, len(out))
        return out
