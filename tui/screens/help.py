"""The help screen: the help's text (tui/help_text.py) as compact lines, filtered by ``/``."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from ..widgets.footer import DashboardFooter


def compact_lines(text: str) -> list[tuple[str, str]]:
    """The help's Markdown as (line, style) to show at once: a key table's rows as ``key  action`` with no
    rule between them (its header and rule dropped), a heading in bold, prose as written."""
    out: list[tuple[str, str]] = []
    for line in text.splitlines():
        if line in ("| key | action |", "|---|---|"):
            continue
        if line.startswith("| ") and line.endswith(" |"):
            key, what = (cell.strip() for cell in line[2:-2].replace("\\|", "\0").split(" | ", 1))
            out.append((f"  {key.replace('`', ''):<14} {what.replace(chr(0), '|').replace('`', '')}", ""))
        elif line.startswith("#"):
            out.append((line.lstrip("# "), "bold"))
        else:
            out.append((line.replace("`", "").replace("**", ""), ""))
    return out


def shown_lines(lines: list[tuple[str, str]], query: str) -> list[tuple[str, str]]:
    """The lines that hold every word of ``query`` (any case), with the heading above each; all for none."""
    words = query.lower().split()
    if not words:
        return lines
    out: list[tuple[str, str]] = []
    heading: tuple[str, str] | None = None
    for line, style in lines:
        if style == "bold":
            heading = (line, style)
        elif all(w in line.lower() for w in words):
            if heading is not None:
                out.append(heading)
                heading = None
            out.append((line, style))
    return out


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

    def lines_text(self, query: str) -> Text:
        out = Text()
        for line, style in shown_lines(self.lines, query) or [(f"Nothing in the help holds {query!r}.", "")]:
            out.append(line + "\n", style=style)
        return out

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
