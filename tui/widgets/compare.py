"""Compare: the paired difference of two models per track and for the index (SPEC 9)."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Select, Static

from ..views import cells, compare_rows

EXPLAIN = ("Paired difference A − B over the tasks both models have scored; 95% task-clustered t intervals, "
           "index with Welch–Satterthwaite df (SPEC 9). An interval that excludes 0 is a difference the task "
           "sample supports.")


class ComparePane(Vertical):
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.document: dict | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="compare-controls"):
            yield Select([], prompt="model A", id="compare-a")
            yield Select([], prompt="model B", id="compare-b")
        yield Static(EXPLAIN, id="compare-explain")
        yield DataTable(id="compare-table", cursor_type="row")
        yield Static("", id="compare-verdict", markup=False)

    def show(self, document: dict, selected: str | None) -> None:
        self.document = document
        models = list(document["models"])
        a, b = self.query_one("#compare-a", Select), self.query_one("#compare-b", Select)
        keep_a, keep_b = a.value, b.value
        a.set_options([(m, m) for m in models])
        b.set_options([(m, m) for m in models])
        if len(models) >= 2:
            a.value = keep_a if keep_a in models else (selected or models[0])
            b.value = keep_b if keep_b in models and keep_b != a.value else next(m for m in models if m != a.value)
        self._update()

    def choose(self, a: str, b: str) -> None:
        self.query_one("#compare-a", Select).value = a
        self.query_one("#compare-b", Select).value = b

    @on(Select.Changed)
    def _changed(self, event: Select.Changed) -> None:
        self._update()

    def _update(self) -> None:
        from scoring.compare import compare_models
        from scoring.errors import InputError
        a, b = self.query_one("#compare-a", Select).value, self.query_one("#compare-b", Select).value
        table = self.query_one(DataTable)
        verdict = self.query_one("#compare-verdict", Static)
        table.clear(columns=True)
        if self.document is None or not isinstance(a, str) or not isinstance(b, str):
            return
        try:
            result = compare_models(self.document, a, b)
        except InputError as exc:
            verdict.update(str(exc.problems[0].message))
            return
        table.add_columns("track", f"{a} − {b}", "se", "95% interval", "tasks")
        for row in compare_rows(result):
            table.add_row(*cells(*row))
        idx = result["index"]
        if idx is None:
            verdict.update("Index difference: not available (some track has no task both models have scored).")
        elif idx["lo"] is None:
            verdict.update(f"Index difference {idx['value']:+.2f} points; no interval (a track has fewer than 2 common tasks).")
        else:
            excl = "excludes 0: the lead is supported" if idx["lo"] > 0 or idx["hi"] < 0 else "includes 0: could be noise"
            verdict.update(f"Index difference {idx['value']:+.2f} points, 95% [{idx['lo']:+.2f}, {idx['hi']:+.2f}] — {excl}.")
