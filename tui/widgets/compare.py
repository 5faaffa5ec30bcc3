"""Compare: the paired difference of two models per track and for the index (SPEC 9)."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Select, Static

from ..views import COMPARE_COLUMNS, cells, compare_rows, plain, text

EXPLAIN = ("Paired difference A − B over the tasks both models have scored; 95% task-clustered t intervals, "
           "index with Welch–Satterthwaite df (SPEC 9). An interval that excludes 0 is a difference the task "
           "sample supports. A follows the model selected in the Overview.")


class ComparePane(Vertical):
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.document: dict | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="compare-controls"):
            yield Static("A", classes="compare-label")
            yield Select([], prompt="model A", id="compare-a", compact=True)
            yield Static("B", classes="compare-label")
            yield Select([], prompt="model B", id="compare-b", compact=True)
        yield Static(EXPLAIN, id="compare-explain", markup=False)
        yield DataTable(id="compare-table", cursor_type="row")
        yield Static("", id="compare-verdict", markup=False)

    def on_mount(self) -> None:
        # the columns are made once; a new pair of models replaces only the rows (widths then follow the rows)
        table = self.query_one(DataTable)
        for name in COMPARE_COLUMNS:
            table.add_column(name, key=name)

    def show_empty(self, message: str) -> None:
        self.document = None
        self.query_one("#compare-verdict", Static).update(message)
        self.query_one("#compare-controls").set_class(True, "gone")
        self.query_one(DataTable).set_class(True, "gone")

    def show(self, document: dict, selected: str | None) -> None:
        self.document = document
        models = list(document["models"])
        a, b = self.query_one("#compare-a", Select), self.query_one("#compare-b", Select)
        keep_a, keep_b = a.value, b.value
        self.query_one("#compare-controls").set_class(len(models) < 2, "gone")
        self.query_one(DataTable).set_class(len(models) < 2, "gone")
        with self.prevent(Select.Changed):
            a.set_options([(Text(plain(m)), m) for m in models])
            b.set_options([(Text(plain(m)), m) for m in models])
            if len(models) >= 2:
                a.value = keep_a if keep_a in models else (selected if selected in models else models[0])
                b.value = keep_b if keep_b in models and keep_b != a.value else next(m for m in models if m != a.value)
        self._update()

    def follow(self, model: str) -> None:
        """Model A follows the selection; B moves off it when they would be the same."""
        if self.document is None or model not in self.document["models"] or len(self.document["models"]) < 2:
            return
        a, b = self.query_one("#compare-a", Select), self.query_one("#compare-b", Select)
        with self.prevent(Select.Changed):
            if b.value == model:
                b.value = a.value if a.value != model else next(m for m in self.document["models"] if m != model)
            a.value = model
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
        table.clear()
        if self.document is None:
            return
        if len(self.document["models"]) < 2:
            verdict.update("Only one model in this run: nothing to compare.")
            return
        if not isinstance(a, str) or not isinstance(b, str):
            return
        if a == b:
            verdict.update("A and B are the same model: pick another B.")
            return
        try:
            result = compare_models(self.document, a, b)
        except InputError as exc:
            verdict.update(plain(exc.problems[0].message))
            return
        for row in compare_rows(result):
            table.add_row(*cells(*row))
        idx = result["index"]
        pair = text("A ", (a, "bold"), " − B ", (b, "bold"), ": ")
        if idx is None:
            verdict.update(text(pair, "Index difference not available (some track has no task both models have scored)."))
        elif idx["lo"] is None:
            verdict.update(text(pair, f"Index difference {idx['value']:+.2f} points; no interval "
                                      "(a track has fewer than 2 common tasks)."))
        else:
            excl = "excludes 0: the lead is supported" if idx["lo"] > 0 or idx["hi"] < 0 else "includes 0: could be noise"
            verdict.update(text(pair, f"Index difference {idx['value']:+.2f} points, 95% [{idx['lo']:+.2f}, "
                                      f"{idx['hi']:+.2f}] — {excl}."))
