"""Coverage: a task × model grid of glyphs with a legend (two-character cells when the names do not fit), a line
naming the cell under the cursor, and every issue and ignored row with a line giving it in full."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from tcsexam.scoring.vocab import RUN_STATUSES
from tcsexam.scoring.vocab import TRACK_LETTERS as LETTERS

from ...find import count_note, filtered
from ...messages import DrillDown, OpenAttempts
from ...textual_ext.data_table import SteadyDataTable
from ...views import cells, middle_ellipsis, plain, text
from ...widgets.filter_bar import FilterBar, FiltersRows
from ...widgets.loading import CLEAR_FILTER_BINDING, FILTER_BINDING, ShowsRun
from .views import (
    KIND_STYLE,
    compact_cell,
    coverage_detail,
    coverage_grid,
    issue_detail,
    issue_rows,
    legend_text,
    vertical_number,
)

if TYPE_CHECKING:
    from ...run_view import RunView

TASK_COLUMN = "__task__"
# The grid holds at most this many model columns at once; with more models it holds a window of them that
# moves on when the cursor passes its edge (DataTable formats and measures every cell it holds: 2,000
# models x 20 tasks took seconds for each fill).
WINDOW = 100
NAMED_WIDTH = 16  # a model's name as a column header, at most (the line under the grid gives it in full)
TASK_WIDTH = 22  # the task column, at most


class CoverageGrid(SteadyDataTable):
    """Enter on a solver task's cell opens its instances, on any other its attempts; `a` always the attempts."""

    BINDINGS = [
        Binding("enter", "select_cursor", "Open", tooltip="in the grid: a solver task's instances, else the attempts"),
        Binding("a", "attempts", "Attempts"),
    ]

    def action_cursor_right(self) -> None:
        if self._at_edge(len(self.columns) - 1):
            self.pane.shift(+1)
        else:
            super().action_cursor_right()

    def action_cursor_left(self) -> None:
        if self._at_edge(1):
            self.pane.shift(-1)
        else:
            super().action_cursor_left()

    def action_scroll_home(self) -> None:
        if self.pane.first > 0 and self.cursor_type == "cell":
            self.pane.window_on(self.pane.models[0])
        else:
            super().action_scroll_home()

    def action_scroll_end(self) -> None:
        if self.pane.first + WINDOW < len(self.pane.models) and self.cursor_type == "cell":
            self.pane.window_on(self.pane.models[-1])
        else:
            super().action_scroll_end()

    @property
    def pane(self) -> CoveragePane:
        return self.query_ancestor(CoveragePane)

    def _at_edge(self, column: int) -> bool:
        """The cursor is on ``column``, the window's first or last, and more models lie past it."""
        if not self.row_count or self.cursor_column != column:
            return False
        pane = self.pane
        return pane.first > 0 if column == 1 else pane.first + len(self.columns) - 1 < len(pane.models)

    def action_attempts(self) -> None:
        if not self.row_count:
            return
        key = self.coordinate_to_cell_key(self.cursor_coordinate)
        model, item = key.column_key.value, key.row_key.value
        if model and model != TASK_COLUMN and item:
            self.post_message(OpenAttempts(model, item))


class IssuesTable(SteadyDataTable):
    """Enter on an issue puts the grid's cursor on its cell."""

    BINDINGS = [Binding("enter", "select_cursor", "Go to cell", tooltip="in the issues: the issue's cell in the grid")]


def window_first(at: int, first: int | None, count: int) -> int:
    """The first model of the window that shows model number ``at`` of ``count``: ``first`` (the window
    shown) when it holds it, else a window centred on it, kept inside the list."""
    if first is None or not first <= at < first + WINDOW:
        first = at - WINDOW // 2
    return max(0, min(first, count - WINDOW))


def cell_text(cell: tuple, compact: bool) -> Text:
    """One grid cell, ``cell`` being (glyph, kind, ...) as the grid holds it: its glyph, or its
    two-character form in the compact grid, in its kind's style."""
    return Text(compact_cell(*cell) if compact else cell[0], style=KIND_STYLE[cell[1]])


class CoveragePane(FiltersRows, ShowsRun, Vertical):
    """``/`` filters the models (the grid's columns) and the issues by name and status."""

    BINDINGS = [CLEAR_FILTER_BINDING, FILTER_BINDING]
    # The pane's own rules. Not scoped: the size classes (-short) sit on the screen, above the pane.
    SCOPED_CSS = False
    DEFAULT_CSS = """
    CoveragePane { height: 1fr; }
    #coverage-legend { height: auto; max-height: 2; }  /* the compact legend takes two lines at 80 columns */
    #coverage-detail, #issue-detail { height: auto; max-height: 3; }
    #coverage-legend { color: $text-muted; }
    #coverage-legend.-message { height: auto; text-wrap: wrap; }
    /* the grid takes the height the issues do not use: they take their rows' height, at most 35% */
    #coverage-grid { height: 1fr; }
    #issues-table { height: auto; max-height: 35%; min-height: 3; }
    """

    HELP = """\
A task × model grid, models in the Overview's order: ● complete, ◐ provisional, n/m attempts adopted
of planned, … awaiting its score (score_status missing), ✗ not valid (a judge that failed, a run not
finished), +x has excluded attempts. When the names do not fit across the screen the cells
are two characters and the columns are numbered by the model's Overview row; the line under the grid
gives the cell under the cursor in words. `/` filters the models (the grid's
columns) and the issues by name or status. `Enter` on a solver task's cell opens its instances, on any
other cell its attempts; `a` always lists the attempts. Below the grid, every issue and ignored row
(the line under it gives the one under the cursor in full, with its file and line): `Enter` on one puts
the cursor on its cell.
"""  # its section of the help (tui/help_text.py)

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.tracks: dict[str, str] = {}
        self.issues: list = []  # the issues the table shows (the filter's), every_issue all of them
        self.every_issue: list = []
        self.all_models: list[str] = []  # every model, in the Overview's order
        self.models: list[str] = []  # those the filter leaves; the grid holds models[first:first+WINDOW]
        self.first = 0
        self._cells: tuple[list[str], dict] = ([], {})  # the items and per model its glyphs (views.coverage_grid)
        self.compact = False  # two-character cells, models numbered by their Overview row

    def compose(self) -> ComposeResult:
        yield FilterBar("filter models: name, or status:incomplete (issues: also task)", id="coverage-filter")
        yield Static(legend_text(), id="coverage-legend", markup=False)
        yield CoverageGrid(id="coverage-grid", cursor_type="cell", fixed_columns=1)
        yield Static("", id="coverage-detail", markup=False)
        yield Static("Issues and ignored rows", id="issues-title", classes="section-title", markup=False)
        yield IssuesTable(id="issues-table", cursor_type="row", zebra_stripes=True)
        yield Static("", id="issue-detail", markup=False)

    def show_empty(self, message: str) -> None:
        self.document = None
        self.query_one("#coverage-legend", Static).update(message)
        self.query_one("#coverage-legend").set_class(True, "-message")
        for selector in ("#coverage-grid", "#coverage-detail", "#issues-title", "#issues-table", "#issue-detail"):
            self.query_one(selector).set_class(True, "gone")

    def show_run(self, view: RunView) -> None:
        self.show(view.document, view.model, view.order)

    def show(self, document: dict, selected: str | None, order: list[str] | None = None) -> None:
        """Fill the grid (models in ``order``, the Overview's) keeping the cursor on its task and the selection."""
        ordered = set(order or [])
        models = [m for m in (order or []) if m in document["models"]]
        models += [m for m in document["models"] if m not in ordered]
        if document is self.document and models == self.all_models:
            if selected is not None:
                self.follow(selected)
            return  # shown as it is (the Overview announces its order after each fill)
        self.document, self.all_models = document, models
        self.models = self._filtered(models)
        self.query_one("#coverage-legend").set_class(False, "-message")
        for selector in ("#coverage-grid", "#coverage-detail", "#issues-title"):
            self.query_one(selector).set_class(False, "gone")
        items, grid = coverage_grid(document)
        self._cells = (items, grid)
        self.compact = not names_fit(models, self.app.size.width)
        self.tracks = {item: t["track"] for m in document["models"].values() for item, t in m["tasks"].items()}
        self.window_on(selected if selected in grid else None, keep_first=True)
        self.every_issue = issue_rows(document)
        self._issues()

    def _filtered(self, models: list[str]) -> list[str]:
        assert self.document is not None
        status = self.document["models"]
        return filtered(models, self.query_one(FilterBar).filter_query, lambda m: m, lambda m: status[m]["status"])

    def _issues(self) -> None:
        """The issues table: the issues the filter leaves (its words in the model's or the task's name;
        a status word the model's status or the issue's kind)."""
        assert self.document is not None
        status = self.document["models"]
        query = self.query_one(FilterBar).filter_query
        self.issues = filtered(
            self.every_issue,
            query,
            lambda r: f"{r.model} {r.item}",
            lambda r: (r.kind, status[r.model]["status"]) if r.model in status else (r.kind,),
        )
        issues = self.query_one("#issues-table", DataTable)
        issues.clear(columns=True)
        issues.add_columns("model", "item", "attempt", "kind", "reason")
        for r in self.issues:
            issues.add_row(*cells(r.model, r.item, r.attempt, r.kind, r.reason))
        issues.set_class(not self.issues, "gone")
        shown = f"{len(self.issues)} of {len(self.every_issue)}" if not query.empty else f"{len(self.issues)}"
        self.query_one("#issue-detail").set_class(not self.issues, "gone")
        self.query_one("#issues-title", Static).update(
            f"Issues and ignored rows ({shown}): Enter on an issue goes to its cell"
            if self.issues
            else "No issues and no ignored rows: every planned attempt is adopted and valid."
            if not self.every_issue
            else f"No issue of the {len(self.every_issue)} passes the filter."
        )
        kinds = sorted({r.kind for r in self.every_issue} - set(RUN_STATUSES))  # a status word matches these too
        self.query_one(FilterBar).show_count(
            count_note(len(self.models), len(self.all_models), "models", query, [*RUN_STATUSES, *kinds])
        )

    @on(FilterBar.Changed)
    def _filter_changed(self, event: FilterBar.Changed) -> None:
        """A new filter: the grid holds the models it leaves, the cursor kept on its model if it is left."""
        event.stop()
        if self.document is None:
            return
        table = self.query_one("#coverage-grid", DataTable)
        current = None
        if table.row_count and table.columns:
            current = table.coordinate_to_cell_key(table.cursor_coordinate).column_key.value
        self.models = self._filtered(self.all_models)
        self.first = 0
        self.window_on(current if current in self.models else None)
        self._issues()

    @on(FilterBar.Done)
    def _filter_done(self, event: FilterBar.Done) -> None:
        event.stop()
        self.query_one("#coverage-grid", DataTable).focus()

    def window_on(self, model: str | None, keep_first: bool = False, item: str | None = None) -> None:
        """Fill the grid with the window of models that holds ``model`` (None: the first model), the cursor
        on its column and on ``item``'s row (None: the task row it was on). ``keep_first``: the window
        stays where it was when it holds the model."""
        table = self.query_one("#coverage-grid", DataTable)
        items, grid = self._cells
        at = self.models.index(model) if model is not None and model in self.models else 0
        self.first = first = window_first(at, self.first if keep_first else None, len(self.models))
        if item is None and table.row_count:
            item = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        shown = self.models[first : first + WINDOW]
        table.clear(columns=True)
        compact = self.compact
        row_of = {m: i for i, m in enumerate(self.all_models, start=1)}  # a column's number: its Overview row
        digits = len(str(max((row_of.get(m, 1) for m in shown), default=1)))
        table.cell_padding = 0 if compact else 1
        table.header_height = digits if compact else 1
        table.add_column("task", key=TASK_COLUMN)
        for name in shown:
            label = vertical_number(row_of.get(name, 0), digits) if compact else middle_ellipsis(name, NAMED_WIDTH)
            table.add_column(Text(label), key=name, width=2 if compact else None)
        for j, task in enumerate(items):
            glyphs = [cell_text(grid[m][j], compact) for m in shown]
            label = middle_ellipsis(f"{LETTERS[self.tracks[task]]} {task}", TASK_WIDTH) + (" " if compact else "")
            table.add_row(Text(label), *glyphs, key=task)
        table.move_cursor(
            row=table.get_row_index(item) if item is not None and item in table.rows else 0, column=at - first + 1
        )
        self._window_note()

    def shift(self, step: int) -> None:
        """The cursor went past the window's edge: the next model in that direction, in a new window."""
        table = self.query_one("#coverage-grid", DataTable)
        at = self.first + table.cursor_column - 1 + step
        if 0 <= at < len(self.models):
            self.window_on(self.models[at])

    def _window_note(self) -> None:
        """The legend, and which models the grid holds when it holds a window of them."""
        note = legend_text(self.compact)
        if len(self.models) > WINDOW:
            last = min(self.first + WINDOW, len(self.models))
            note += f"   Models {self.first + 1:,}–{last:,} of {len(self.models):,}: ← → past the edge shows more"
        self.query_one("#coverage-legend", Static).update(note)

    def follow(self, model: str) -> None:
        """Put the grid's cursor in the selected model's column (same task row)."""
        table = self.query_one("#coverage-grid", DataTable)
        if model in table.columns:
            table.move_cursor(column=table.get_column_index(model))
        elif model in self.models:
            self.window_on(model)

    def go_to(self, model: str, item: str, attempt: str | None = None, instance: str | None = None) -> None:
        """The cursor on ``model``'s cell of task ``item``, the grid's window moved to hold it."""
        table = self.query_one("#coverage-grid", DataTable)
        if model in self.models and model not in table.columns:
            self.window_on(model, item=item)
        if model in table.columns and item in table.rows:
            table.move_cursor(row=table.get_row_index(item), column=table.get_column_index(model))
            table.focus()

    def on_data_table_cell_highlighted(self, event: DataTable.CellHighlighted) -> None:
        if event.data_table.id != "coverage-grid" or self.document is None:
            return
        event.stop()
        model, item = event.cell_key.column_key.value, event.cell_key.row_key.value
        detail = self.query_one("#coverage-detail", Static)
        if model and model != TASK_COLUMN and item and model in self.document["models"]:
            detail.update(text(*coverage_detail(self.document, model, item)))
        elif item:
            detail.update(text(f"{plain(item)}: ← → to a model's cell"))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id != "issues-table" or not self.issues:
            return
        event.stop()
        if 0 <= event.cursor_row < len(self.issues):
            self.query_one("#issue-detail", Static).update(text(*issue_detail(self.issues[event.cursor_row])))

    def on_data_table_cell_selected(self, event: DataTable.CellSelected) -> None:
        if event.data_table.id != "coverage-grid":
            return
        event.stop()
        model = event.cell_key.column_key.value
        item = event.cell_key.row_key.value
        if not model or model == TASK_COLUMN or not item:
            return
        if self.tracks.get(item) == "solver":
            self.post_message(DrillDown("instances", model, item))
        else:
            self.post_message(OpenAttempts(model, item))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id != "issues-table":
            return
        event.stop()
        issue = self.issues[event.cursor_row]
        grid = self.query_one("#coverage-grid", DataTable)
        if issue.model in self.models and issue.item in grid.rows:
            self.post_message(DrillDown("coverage", issue.model, issue.item))
        else:
            self.app.notify(
                f"{plain(issue.model)} · {plain(issue.item)} has no cell in the grid ({issue.kind}).", markup=False
            )


def names_fit(models: list[str], screen_width: int) -> bool:
    """Whether every model's name (capped at NAMED_WIDTH) fits as a column header across the screen; if
    not, the grid has two-character cells (50 models and more at 120 columns)."""
    from rich.cells import cell_len

    need = TASK_WIDTH + 2 + 4  # the task column, the pane's padding and the scroll bar
    for name in models:
        need += cell_len(middle_ellipsis(name, NAMED_WIDTH)) + 2
        if need > screen_width:
            return False
    return True
