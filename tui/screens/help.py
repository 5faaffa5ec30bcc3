"""The help screen: the help's text (tui/help_text.py) as compact lines, filtered by ``/``."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from ..widgets.footer import DashboardFooter

Line = tuple[str, str, str]  # (key, text, style): key "" for a heading or prose


def compact_lines(text: str) -> list[Line]:
    """The help's Markdown as lines to show at once: a key table's rows as (key, action) with no rule
    between them (its header and rule dropped), a heading in bold (style "bold"), a paragraph or a
    list item (style "item") as one line, however the source wrapped it."""
    out: list[Line] = []
    for line in text.splitlines():
        if line in ("| key | action |", "|---|---|"):
            continue
        if line.startswith("| ") and line.endswith(" |"):
            key, what = (cell.strip() for cell in line[2:-2].replace("\\|", "\0").split(" | ", 1))
            out.append((key.replace("`", ""), what.replace(chr(0), "|").replace("`", ""), ""))
        elif line.startswith("#"):
            out.append(("", line.lstrip("# "), "bold"))
        else:
            prose = line.replace("`", "").replace("**", "")
            if prose.startswith("- "):
                out.append(("", prose[2:], "item"))
            elif prose.strip() and out and not out[-1][0] and out[-1][2] != "bold" and out[-1][1]:
                # a line the Markdown source wrapped: its paragraph or list item goes on, wrapped at the box's width
                out[-1] = ("", f"{out[-1][1]} {prose.strip()}", out[-1][2])
            else:
                out.append(("", prose, ""))
    return out


def shown_lines(lines: list[Line], query: str) -> list[Line]:
    """The lines in which, or in whose heading, every word of ``query`` is (any case), each with the heading
    above it: a tab's name keeps its whole section, "instances search" the search's line under
    Instances; all for none."""
    words = query.lower().split()
    if not words:
        return lines
    out: list[Line] = []
    heading: Line | None = None
    section = ""  # the heading's text, which every line under it is searched with
    for line in lines:
        key, text, style = line
        if style == "bold":
            heading, section = line, text
        elif all(w in f"{key} {text} {section}".lower() for w in words):
            if heading is not None:
                out.append(heading)
                heading = None
            out.append(line)
    return out


KEY_WIDTH = 14


def laid_out(lines: list[Line]) -> Group:
    """The lines as the help shows them: prose and headings wrapped as text; each run of key rows one
    grid, so that an action too long for the width wraps under itself, not under its key (at 200
    columns the help's box still wraps the longest)."""
    parts: list[Text | Table] = []
    grid: Table | None = None
    for key, text, style in lines:
        if style == "item":  # "- " and the item's text wrapped under itself
            grid = None
            item = Table.grid(padding=(0, 1, 0, 0))
            item.add_column(width=1, no_wrap=True)
            item.add_column(ratio=1)
            item.add_row(Text("-"), Text(text))
            parts.append(item)
            continue
        if not key:
            grid = None
            parts.append(Text(text, style=style))
            continue
        if len(key) > KEY_WIDTH:  # a key wider than its column has a line of its own, the action below
            parts.append(Text(f"  {key}"))
            key, grid = "", None
        if grid is None:
            grid = Table.grid(padding=(0, 1, 0, 0))
            grid.add_column(width=2 + KEY_WIDTH, no_wrap=True)
            grid.add_column(ratio=1)
            parts.append(grid)
        grid.add_row(Text(f"  {key}"), Text(text))
    return Group(*parts)


class HelpScreen(ModalScreen[None]):
    """The help as compact lines (no Markdown to lay out: it opens at once); ``/`` filters them."""

    BINDINGS = [
        Binding("escape,q,question_mark", "dismiss", "Close"),
        Binding("slash", "find", "Filter", priority=True),
    ]
    # The text takes the focus (arrows and pages scroll it; q and escape close): the filter's field is
    # hidden until `/`, and a hidden field given the focus took every key typed, q included
    AUTO_FOCUS = "#help-scroll"

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text  # the Markdown, as `tcsexam docs dashboard` would show it
        self.lines = compact_lines(text)

    def compose(self) -> ComposeResult:
        with Vertical(id="help-body"):
            yield Input(
                placeholder="filter the help: words it must hold", id="help-filter", classes="gone", compact=True
            )
            with VerticalScroll(id="help-scroll"):
                yield Static(self.lines_text(""), id="help-text")
        yield DashboardFooter()

    def lines_text(self, query: str) -> Group:
        return laid_out(shown_lines(self.lines, query) or [("", f"Nothing in the help holds {query!r}.", "")])

    def action_find(self) -> None:
        """Show the filter's field and put the keyboard in it at once: keys typed right after ``/`` land there
        (``focus()`` would wait for the keys already queued, and lose them)."""
        field = self.query_one("#help-filter", Input)
        field.set_class(False, "gone")
        self.set_focus(field)

    @on(Input.Changed, "#help-filter")
    def _filter(self, event: Input.Changed) -> None:
        self.query_one("#help-text", Static).update(self.lines_text(event.value))
        self.query_one("#help-scroll", VerticalScroll).scroll_home(animate=False)
