"""pass^k per track for the selected model: a table and a line plot."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import DataTable, Static
from textual_plotext import PlotextPlot

from ..charts import TRACK_COLORS, draw_passk, redraw
from ..views import LETTERS, TRACKS, cells, passk_rows, text
from .chart_plot import ChartPlot

EXPLAIN = ("pass^k = C(c, k) / C(n, k) per task: n = adopted attempts with score_status valid, c = those scoring at or "
           "above the track's threshold; a track's pass^k is the mean over its tasks with n ≥ k (SPEC 5).")


class PassKPane(Vertical):
    def compose(self) -> ComposeResult:
        yield Static("", id="passk-title", classes="section-title", markup=False)
        yield Static(EXPLAIN, id="passk-explain")
        yield DataTable(id="passk-table", cursor_type="none", zebra_stripes=True)
        yield ChartPlot(id="passk-plot")

    def show_empty(self, message: str) -> None:
        self.query_one("#passk-title", Static).update(message)
        for selector in ("#passk-explain", "#passk-table", "#passk-plot"):
            self.query_one(selector).set_class(True, "gone")

    def show(self, document: dict, model: str | None) -> None:
        if model is None or model not in document["models"]:
            return
        for selector in ("#passk-explain", "#passk-table", "#passk-plot"):
            self.query_one(selector).set_class(False, "gone")
        self.query_one("#passk-title", Static).update(text("pass^k of ", (model, "bold"),
                                                           " (the model selected in the Overview)"))
        kmax, rows = passk_rows(document, model)
        table = self.query_one(DataTable)
        table.clear(columns=True)
        table.add_columns("track", "threshold", "tasks", *[f"pass^{k}" for k in range(1, kmax + 1)])
        for r in rows:
            table.add_row(*cells(*r))
        pk = document["models"][model]["pass_hat_k"]
        series = {f"{LETTERS[t]} {t}": [pk[t]["by_k"][str(k)] for k in range(1, len(pk[t]["by_k"]) + 1)]
                  for t in TRACKS if pk[t]["by_k"]}
        colors = {f"{LETTERS[t]} {t}": TRACK_COLORS[t] for t in TRACKS}
        plot = self.query_one(PlotextPlot)
        redraw(plot, lambda plt: draw_passk(plt, series, colors, "attempt per task", plot.size.width or 80))
