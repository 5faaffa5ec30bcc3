"""Leaderboard: `tcsexam table` over every loaded run, one table per (suite, solver_protocol) group."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import takewhile

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widget import AwaitMount, Widget
from textual.widgets import DataTable, Static

from tcsexam.scoring.grammar import counted
from tcsexam.scoring.vocab import RUN_STATUSES

from ...find import count_note
from ...state import source_label
from ...textual_ext.data_table import SteadyDataTable
from ...views import cells, plain, problem_rows, text
from ...widgets.filter_bar import FilterBar, FiltersRows
from ...widgets.loading import CLEAR_FILTER_BINDING, FILTER_BINDING
from .views import LeaderboardGroup


@dataclass
class LeaderboardRowChosen(Message):
    """Enter on a Leaderboard row: show that row's run, with its model selected."""

    source: str
    model: str


class LeaderboardTable(SteadyDataTable):
    BINDINGS = [Binding("enter", "select_cursor", "Show in Overview")]

    def __init__(self, **kwargs) -> None:
        super().__init__(fixed_columns=2, **kwargs)  # rank and model stay while the numbers scroll


class LeaderboardPane(FiltersRows, Vertical):
    """``/`` filters the rows of every group by model name and status."""

    # The pane's own rules. Not scoped: the size classes (-short) sit on the screen, above the pane.
    SCOPED_CSS = False
    DEFAULT_CSS = """
    #leaderboard-summary { height: auto; padding: 0 0 1 0; color: $text-muted; }
    #leaderboard-groups { height: 1fr; }
    .leaderboard-table { height: auto; }
    .leaderboard-note { height: auto; color: $text-muted; }
    #leaderboard-detail { height: 1; text-wrap: nowrap; text-overflow: ellipsis; }
    .-short #leaderboard-summary { padding: 0; }
    .leaderboard-table.-titled {
        margin-top: 1; border-top: blank; border-title-align: left; border-title-style: bold; border-title-color: $text;
    }
    .-short .leaderboard-table.-titled { margin-top: 0; }
    """

    HELP = """\
`tcsexam table` over every loaded run: one table per suite / solver protocol (never mixed), in the
order full/offline, full/online, lite/offline, lite/online, with the same cells (rank, ± = 95%
half-width, † provisional, — null). A model in two runs of one group is rejected, as `tcsexam table`
rejects it: the tab and Diagnostics say so. `/` filters the rows of every group by model name
and status. `Enter` on a row shows its run with its model selected in the Overview; `c`
copies the leaderboard as Markdown, `C` as LaTeX.
"""  # its section of the help (tui/help_text.py)

    BINDINGS = [
        CLEAR_FILTER_BINDING,
        FILTER_BINDING,
        Binding("c", "app.copy_table('markdown', 'all')", "Copy Markdown"),
        Binding("C", "app.copy_table('latex', 'all')", "Copy LaTeX"),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.keys: dict[str, tuple[str, str]] = {}  # row key -> (source, model)
        self.shown: tuple | None = None  # show()'s arguments, shown again when the filter changes
        self.tables: list[LeaderboardTable] = []  # those show() mounted last (the old ones may still be removed)
        self.mounting: AwaitMount | None = None  # their mount, until it is done
        self.place: tuple[int, tuple[str, str] | None] | None = None  # the focus to keep once they are mounted

    def compose(self) -> ComposeResult:
        yield Static("Loading the runs…", id="leaderboard-summary", markup=False)
        yield FilterBar(id="leaderboard-filter")
        yield VerticalScroll(id="leaderboard-groups")
        yield Static("", id="leaderboard-detail", markup=False)

    @on(FilterBar.Changed)
    def _filter_changed(self, event: FilterBar.Changed) -> None:
        event.stop()
        if self.shown is not None:
            self.show(*self.shown)

    @on(FilterBar.Done)
    async def _filter_done(self, event: FilterBar.Done) -> None:
        event.stop()
        # the tables the filter's last change rebuilt, once mounted (Enter right after typing: those
        # queried at once were the ones being removed, and the keyboard stayed in the bar)
        if self.mounting is not None:
            await self.mounting
        if self.tables:
            self.tables[0].focus()

    def show_empty(self, message: str) -> None:
        """No run to list (the dashboard was started with a tau2-bench file alone): ``message`` instead."""
        self.shown = None
        self.query_one("#leaderboard-summary", Static).update(message)
        self.query_one("#leaderboard-groups", VerticalScroll).remove_children()
        self.tables, self.keys = [], {}

    def _rows(self, group: LeaderboardGroup) -> list[tuple[int, list[str], tuple[str, str]]]:
        """(position, cells, key) of the group's rows that the filter leaves (name: the model; status:
        the status cell)."""
        query = self.query_one(FilterBar).filter_query
        status = group.header.index("status") if "status" in group.header else None
        return [
            (j, row, key)
            for j, (row, key) in enumerate(zip(group.rows, group.keys, strict=True))
            if query.matches(key[1], row[status] if status is not None else ())
        ]

    def show(
        self, groups: list[LeaderboardGroup], problems: list, missing: list[str], runs: int, stale: Sequence[str] = ()
    ) -> None:
        """The groups of scoring.reports.table (views.leaderboard_groups), or the rejection ``tcsexam table``
        would give; ``missing`` names the runs that have no accepted state to list, ``stale`` those listed
        from their last accepted state while their files are rejected."""
        self.shown = (groups, problems, missing, runs, stale)
        # the focused table's place; one not yet kept is carried on, unless the keyboard went elsewhere since
        place = self.place = self._focused_place() or (self.place if self._focus_left_behind() else None)
        summary = self.query_one("#leaderboard-summary", Static)
        body = self.query_one("#leaderboard-groups", VerticalScroll)
        body.remove_children()
        self.keys = {}
        parts: list = []
        if problems:
            parts.append(
                (
                    f"Not a leaderboard: tcsexam table rejects these {runs} runs ({counted(len(problems), 'problem')}, "
                    "also in Diagnostics): a group takes each model once.",
                    "bold red",
                )
            )
        else:
            parts.append(
                f"tcsexam table over {runs} run{'s' if runs != 1 else ''}: one table per suite / solver protocol, "
                "never mixed. ± is the 95% half-width; † provisional; — null. Enter shows the row's run."
            )
        if missing:
            parts.append("   Not listed (no accepted inputs): " + ", ".join(missing) + ".")
        if stale:
            parts.append(
                (
                    "   STALE: " + ", ".join(stale) + " as last accepted; the files are now rejected (Diagnostics).",
                    "bold",
                )
            )
        summary.update(text(*parts))
        widgets: list = []
        left = [self._rows(g) for g in groups]
        bar = self.query_one(FilterBar)
        bar.show_count(
            count_note(
                sum(map(len, left)),
                sum(len(g.rows) for g in groups),
                "rows",
                bar.filter_query,
                list(RUN_STATUSES),
            )
        )
        if problems:
            table = LeaderboardTable(classes="leaderboard-table", cursor_type="row", zebra_stripes=True)
            table.add_columns("file", "where", "field", "message")
            for r in problem_rows(problems):
                table.add_row(*cells(*r))
            widgets.append(table)
        for i, g in enumerate(groups):
            # the group's title is the table's border title: the focus scrolls a long table's top, border
            # included, into view, and a title above the table would be scrolled away
            table = LeaderboardTable(classes="leaderboard-table -titled", cursor_type="row", zebra_stripes=True)
            table.border_title = Content(plain(g.title))  # Content: names are not read as markup
            table.add_columns(*g.header)
            for j, row, key in left[i]:
                row_key = f"{i}:{j}"
                self.keys[row_key] = key
                table.add_row(*cells(*row), key=row_key)
            widgets.append(table)
            for note in g.notes:
                widgets.append(Static(Text(plain(note)), classes="leaderboard-note"))
        if not any(left):  # no row to name (a filter that leaves none): the line under the tables names none
            self.query_one("#leaderboard-detail", Static).update("")
        self.tables = [w for w in widgets if isinstance(w, LeaderboardTable)]
        self.mounting = body.mount(*widgets) if widgets else None
        if place is not None and self.mounting is not None:
            self.call_later(self._keep_place, self.mounting, *place)

    def _focused_place(self) -> tuple[int, tuple[str, str] | None] | None:
        """The focused table's position among the tables and its cursor row's (run, model), or None when
        no table of the pane has the focus."""
        focused = self.screen.focused
        if not isinstance(focused, LeaderboardTable) or focused not in self.tables:
            return None
        row = focused.coordinate_to_cell_key(focused.cursor_coordinate).row_key.value if focused.row_count else None
        return self.tables.index(focused), self.keys.get(row) if row is not None else None

    def _focus_left_behind(self) -> bool:
        """Whether the keyboard is where a rebuild left it: nowhere, on the groups' scroll (where Textual
        moves it off a removed table), or on a table being removed; not in the filter or another tab."""
        focused = self.screen.focused
        return (
            focused is None
            or focused is self.query_one("#leaderboard-groups")
            or (isinstance(focused, LeaderboardTable) and focused not in self.tables)
        )

    async def _keep_place(self, mounting: AwaitMount, position: int, key: tuple[str, str] | None) -> None:
        """After a rebuild (a reload, runs added or removed), the focus on the table in the focused one's
        position and the cursor on the row of the same run and model, where the tables have them; only while
        the tab is shown and the keyboard has not gone elsewhere meanwhile (a tab switched to, the filter)."""
        await mounting
        if mounting is not self.mounting:
            return  # rebuilt again meanwhile: that rebuild keeps the place
        self.place = None
        shown = all(node.display for node in self.ancestors_with_self if isinstance(node, Widget))
        if not self.tables or not shown or not self._focus_left_behind():
            return
        table = self.tables[min(position, len(self.tables) - 1)]
        rows = [row for row, at in self.keys.items() if at == key and row in table.rows]
        if rows:
            table.move_cursor(row=table.get_row_index(rows[0]))
        self.screen.set_focus(table)  # now, not later: a rebuild that comes first must find it focused

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """The cursor row's model in full (the table caps long names) and the run it comes from: the row of
        the table that has the focus, or before any has it, of the first (each table's cursor starts on a row)."""
        event.stop()
        focused = self.screen.focused
        first = self.tables[0] if self.tables else None
        if event.data_table is focused or (not isinstance(focused, LeaderboardTable) and event.data_table is first):
            self._show_detail(event.data_table)
        if event.data_table is focused:
            self._reveal_notes(event.data_table)

    def _reveal_notes(self, table: DataTable) -> None:
        """The cursor on a table's last row brings the notes under the table into view: the keyboard has
        no other way to scroll past a table taller than the tab (a group joining files says there
        that its ranks are each file's)."""
        if table.cursor_row != table.row_count - 1:
            return
        body = self.query_one("#leaderboard-groups")
        after = list(body.children)[list(body.children).index(table) + 1 :] if table in body.children else []
        notes = list(takewhile(lambda w: w.has_class("leaderboard-note"), after))
        if notes:
            self.call_after_refresh(body.scroll_to_widget, notes[-1], animate=False)

    @on(events.DescendantFocus)
    def _table_focused(self, event: events.DescendantFocus) -> None:
        if isinstance(event.widget, LeaderboardTable):
            self._show_detail(event.widget)

    def _show_detail(self, table: DataTable) -> None:
        if not table.row_count:
            return
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        if key in self.keys:
            source, model = self.keys[key]
            self.query_one("#leaderboard-detail", Static).update(text((model, "bold"), " · run ", source_label(source)))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        key = event.row_key.value if event.row_key is not None else None
        if key in self.keys:
            self.post_message(LeaderboardRowChosen(*self.keys[key]))
