"""tau2-bench tab: per-task table, pass^k curve, termination reasons and the reward-gate audit."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Static
from textual_plotext import PlotextPlot

from ..charts import INDEX_COLOR, draw_passk, redraw
from ..views import cells, fmt, tau2_task_rows
from .chart_plot import ChartPlot


class Tau2Pane(Vertical):
    def compose(self) -> ComposeResult:
        yield Static("Loading the tau2-bench results…", id="tau2-summary", markup=False)
        yield DataTable(id="tau2-tasks", cursor_type="row", zebra_stripes=True)
        with Horizontal(id="tau2-bottom"):
            yield ChartPlot(id="tau2-plot")
            yield DataTable(id="tau2-reasons", cursor_type="row")
        yield Static("Audit", id="tau2-audit-title", classes="section-title")
        yield DataTable(id="tau2-audit", cursor_type="row", zebra_stripes=True)

    def show(self, m: dict) -> None:
        pk = "  ".join(f"pass^{k} {fmt(v)}" for k, v in m["pass_hat_k"].items())
        self.query_one("#tau2-summary", Static).update(
            f"{m['source']}\n{m['num_simulations']} runs, {m['num_tasks']} tasks, {m['infra_errors']} infrastructure "
            f"errors dropped; avg_reward {fmt(m['avg_reward'])}, avg_agent_cost {fmt(m['avg_agent_cost'])}; {pk}; "
            f"DB match {m['db']['match']} / mismatch {m['db']['mismatch']} / not checked {m['db']['not_checked']}. "
            "Success = reward within 1e-6 of 1; pass^k = C(c,k)/C(n,k) averaged over tasks.")
        kmax, rows = tau2_task_rows(m)
        tasks = self.query_one("#tau2-tasks", DataTable)
        tasks.clear(columns=True)
        tasks.add_columns("task_id", "n", "successes", "avg reward", *[f"pass^{k}" for k in range(1, kmax + 1)],
                          "termination")
        for r in rows:
            tasks.add_row(*cells(*r))
        reasons = self.query_one("#tau2-reasons", DataTable)
        reasons.clear(columns=True)
        reasons.add_columns("termination reason", "runs")
        for k, v in m["termination_reasons"].items():
            reasons.add_row(*cells(k, v))
        series = {"●": [m["pass_hat_k"][str(k)] for k in range(1, len(m["pass_hat_k"]) + 1)]}
        plot = self.query_one(PlotextPlot)
        redraw(plot, lambda plt: draw_passk(plt, series, {"●": INDEX_COLOR}, "trial per task", plot.size.width or 80))
        audit = self.query_one("#tau2-audit", DataTable)
        audit.clear(columns=True)
        audit.add_columns("task_id", "trial", "stored", "derived", "finding")
        for a in m["audit"]:
            audit.add_row(*cells(a["task_id"], a["trial"], fmt(a["stored_reward"], 7), fmt(a["derived_reward"], 7),
                                 a["finding"]))
        self.query_one("#tau2-audit-title", Static).update(
            f"Reward-gate audit: {len(m['audit'])} finding(s) (reward re-derived from reward_info under its reward_basis)")

    def show_error(self, text: str) -> None:
        self.query_one("#tau2-summary", Static).update(text)
