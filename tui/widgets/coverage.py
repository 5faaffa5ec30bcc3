"""Coverage: a task × model grid of glyphs with a legend, and every issue and ignored row."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Static

from ..messages import DrillDown, OpenAttempts
from ..views import KIND_STYLE, LETTERS, cells, coverage_grid, issue_rows, legend_text, plain
from .tables import SteadyDataTable

TASK_COLUMN = "__task__"


class CoverageGrid(SteadyDataTable):
    """Enter on a solver task's cell opens its instances, on any other its attempts; `a` always the attempts."""

    BINDINGS = [Binding("enter", "select_cursor", "Open"), Binding("a", "attempts", "Attempts")]

    def action_attempts(self) -> None:
        if not self.row_count:
            return
        key = self.coordinate_to_cell_key(self.cursor_coordinate)
        model, item = key.column_key.value, key.row_key.value
        if model and model != TASK_COLUMN and item:
            self.post_message(OpenAttempts(model, item))


class IssuesTable(SteadyDataTable):
    """Enter on an issue puts the grid's cursor on its cell."""

    BINDINGS = [Binding("enter", "select_cursor", "Go to cell")]


class CoveragePane(VerticalScroll):
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.document: dict | None = None
        self.tracks: dict[str, str] = {}
        self.issues: list = []

    def compose(self) -> ComposeResult:
        yield Static(legend_text(), id="coverage-legend", markup=False)
        yield CoverageGrid(id="coverage-grid", cursor_type="cell", fixed_columns=1)
        yield Static("Issues and ignored rows", id="issues-title", classes="section-title", markup=False)
        yield IssuesTable(id="issues-table", cursor_type="row", zebra_stripes=True)

    def show_empty(self, message: str) -> None:
        self.document = None
        self.query_one("#coverage-legend", Static).update(message)
        for widget in (
            self.query_one("#coverage-grid"),
            self.query_one("#issues-title"),
            self.query_one("#issues-table"),
        ):
            widget.set_class(True, "gone")

    def show(self, document: dict, selected: str | None, order: list[str] | None = None) -> None:
        """Fill the grid (models in ``order``, the Overview's) keeping the cursor on its task and the selection."""
        self.document = document
        for widget in (self.query_one("#coverage-grid"), self.query_one("#issues-title")):
            widget.set_class(False, "gone")
        self.query_one("#coverage-legend", Static).update(legend_text())
        items, grid = coverage_grid(document)
        models = [m for m in (order or []) if m in grid] + [m for m in grid if m not in (order or [])]
        self.tracks = {item: t["track"] for m in document["models"].values() for item, t in m["tasks"].items()}
        table = self.query_one("#coverage-grid", DataTable)
        row = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value if table.row_count else None
        table.clear(columns=True)
        table.add_column("task", key=TASK_COLUMN)
        for model in models:
            table.add_column(Text(plain(model)), key=model)
        for j, item in enumerate(items):
            glyphs = [Text(grid[m][j][0], style=KIND_STYLE[grid[m][j][1]]) for m in models]
            table.add_row(*cells(f"{LETTERS[self.tracks[item]]} {item}", *glyphs), key=item)
        table.move_cursor(
            row=table.get_row_index(row) if row in table.rows else 0,
            column=models.index(selected) + 1 if selected in models else 1,
        )
        issues = self.query_one("#issues-table", DataTable)
        issues.clear(columns=True)
        issues.add_columns("model", "item", "attempt", "kind", "reason")
        self.issues = issue_rows(document)
        for r in self.issues:
            issues.add_row(*cells(r.model, r.item, r.attempt, r.kind, r.reason))
        issues.set_class(not self.issues, "gone")
        self.query_one("#issues-title", Static).update(
            f"Issues and ignored rows ({len(self.issues)}): Enter on an issue goes to its cell"
            if self.issues
            else "No issues and no ignored rows: every planned attempt is adopted and valid."
        )

    def follow(self, model: str) -> None:
        """Put the grid's cursor in the selected model's column (same task row)."""
        table = self.query_one("#coverage-grid", DataTable)
        if model in table.columns:
            table.move_cursor(column=table.get_column_index(model))

    def go_to(self, model: str, item: str) -> None:
        table = self.query_one("#coverage-grid", DataTable)
        if model in table.columns and item in table.rows:
            table.move_cursor(row=table.get_row_index(item), column=table.get_column_index(model))
            table.focus()

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
        if issue.model in grid.columns and issue.item in grid.rows:
            self.post_message(DrillDown("coverage", issue.model, issue.item))
        else:
            self.app.notify(
                f"{plain(issue.model)} · {plain(issue.item)} has no cell in the grid ({issue.kind}).", markup=False
            )
