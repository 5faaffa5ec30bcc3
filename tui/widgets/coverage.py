"""Coverage: a task × model grid of glyphs with a legend, and every issue and ignored row."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from ..messages import OpenAttempts
from ..views import KIND_STYLE, LETTERS, cells, coverage_grid, issue_rows, legend_text


class CoveragePane(Vertical):
    def compose(self) -> ComposeResult:
        yield Static(legend_text(), id="coverage-legend")
        yield DataTable(id="coverage-grid", cursor_type="cell")
        yield Static("Issues and ignored rows", id="issues-title", classes="section-title")
        yield DataTable(id="issues-table", cursor_type="row", zebra_stripes=True)

    def show(self, document: dict, selected: str | None) -> None:
        items, grid = coverage_grid(document)
        tracks = {item: t["track"] for m in document["models"].values() for item, t in m["tasks"].items()}
        table = self.query_one("#coverage-grid", DataTable)
        table.clear(columns=True)
        table.add_column("task", key="__task__")
        for model in grid:
            table.add_column(Text(model), key=model)
        for j, item in enumerate(items):
            glyphs = [Text(grid[m][j][0], style=KIND_STYLE[grid[m][j][1]]) for m in grid]
            table.add_row(*cells(f"{LETTERS[tracks[item]]} {item}", *glyphs), key=item)
        if selected in grid:
            table.move_cursor(column=list(grid).index(selected) + 1)
        issues = self.query_one("#issues-table", DataTable)
        issues.clear(columns=True)
        issues.add_columns("model", "item", "attempt", "kind", "reason")
        rows = issue_rows(document)
        for r in rows:
            issues.add_row(*cells(r.model, r.item, r.attempt, r.kind, r.reason))
        self.query_one("#issues-title", Static).update(
            f"Issues and ignored rows ({len(rows)}) — Enter on a grid cell lists the attempts of that task")

    def on_data_table_cell_selected(self, event: DataTable.CellSelected) -> None:
        if event.data_table.id != "coverage-grid":
            return
        event.stop()
        model = event.cell_key.column_key.value
        item = event.cell_key.row_key.value
        if model and model != "__task__" and item:
            self.post_message(OpenAttempts(model, item))
