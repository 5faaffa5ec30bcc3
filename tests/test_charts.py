"""The dashboard's charts (tui/charts.py): the pure choices, and the charts rendered to plain text.

Rendering uses textual-plotext's Plot with the colourless 'clear' theme, so no terminal is needed; the
expected positions are read off the rendered lines (tick labels on the left, model labels below).
"""

from __future__ import annotations

import json
from pathlib import Path

from rich.text import Text
from textual.widgets import Select
from textual_plotext import PlotextPlot
from textual_plotext.plot import Plot

from tcsexam.tui import charts
from tcsexam.tui.app import create_app
from tcsexam.tui.panes.instances.pane import InstancesPane
from tests.support.dashboard import settle

DEMO = Path(__file__).resolve().parents[1] / "sample_runs" / "demo"


def render(draw, width: int = 80, height: int = 16) -> list[str]:
    plt = Plot()
    plt.clear_data()
    plt.clear_figure()
    draw(plt)
    plt.plotsize(width, height)
    plt._set_size(width, height)
    plt.theme("clear")
    return Text.from_ansi(plt.build()).plain.split("\n")


def row_of(lines: list[str], label: str) -> int:
    """Index of the line whose y tick label is ``label``."""
    hits = [i for i, line in enumerate(lines) if line.split("┤")[0].strip() == label and "┤" in line]
    assert len(hits) == 1, (label, lines)
    return hits[0]


def body(lines: list[str]) -> list[str]:
    """The lines inside the frame (between ┌ and └)."""
    top = next(i for i, line in enumerate(lines) if "┌" in line)
    bottom = next(i for i, line in enumerate(lines) if "└" in line)
    return lines[top + 1 : bottom]


# --- ticks ------------------------------------------------------------------------------------------------------


def test_count_ticks_are_integers_in_steps_of_1_2_5():
    assert charts.count_ticks(9, 5) == [0, 2, 4, 6, 8, 10]
    assert charts.count_ticks(3, 5) == [0, 1, 2, 3]
    assert charts.count_ticks(10, 2) == [0, 5, 10]
    # 89,981 in at most 5 steps: 10,000 needs 9 steps, 20,000 needs 5 -> 0 .. 100,000
    assert charts.count_ticks(89_981, 5) == [0, 20_000, 40_000, 60_000, 80_000, 100_000]
    assert charts.count_ticks(0) == [0, 1]
    assert charts.count_ticks(10**400, 5)[-1] >= 10**400  # any count: the step's search is bounded
    assert len(charts.count_ticks(10**400, 5)) <= 6


def test_tick_labels_are_round():
    assert [charts.tick_label(t) for t in charts.PASSK_TICKS] == ["0", "0.25", "0.5", "0.75", "1"]


def test_tick_budget_leaves_two_rows_per_step():
    assert charts.tick_budget(9) == 2  # (9 - 5) // 2
    assert charts.tick_budget(16) == 5  # (16 - 5) // 2
    assert charts.tick_budget(3) == 1


def test_fit_title_takes_the_longest_that_fits_else_the_shortest():
    titles = ["a long explicit title", "shorter", "s"]
    assert charts.fit_title(titles, 40) == "a long explicit title"
    assert charts.fit_title(titles, 22) == "shorter"  # 21 characters need 23 columns (one each side)
    assert charts.fit_title(titles, 5) == "s"
    assert charts.fit_title(titles, 1) == "s"


# --- pass^k -----------------------------------------------------------------------------------------------------

DEMO_ATLAS = {
    "P theorem": [0.9333, 0.8667, 0.8],
    "S solver": [0.9333, 0.8667, 0.8],
    "C construction": [0.4667, 0.2667, 0.2],
    "O conjecture": [0.2, 0.0667, 0.0],
}


def test_identical_series_are_grouped_in_first_seen_order():
    assert charts.tie_groups(DEMO_ATLAS) == [["P theorem", "S solver"], ["C construction"], ["O conjecture"]]
    assert charts.tie_groups({"a": [0.5, 0.25], "b": [0.5]}) == [["a"], ["b"]]  # lengths differ
    assert charts.tie_groups({"a": [0.5, 0.25], "b": [0.5, 0.250001]}) == [["a"], ["b"]]  # values differ
    assert charts.tie_note(charts.tie_groups(DEMO_ATLAS)) == "P theorem = S solver"
    assert charts.tie_note([["a"], ["b"]]) == ""


def test_a_single_k_is_a_sentence():
    assert (
        charts.single_point_note(1, "attempt per task")
        == "only pass^1: one attempt per task (its value is in the table)"
    )
    assert charts.single_point_note(0, "trial per task").startswith("no pass^k")
    assert charts.single_point_note(2, "trial per task") is None
    lines = render(lambda plt: charts.draw_passk(plt, {"P theorem": [0.0], "S solver": [0.0]}))
    text = "\n".join(lines)
    assert "only pass^1: one attempt per task" in text
    assert "┌" not in text and "┤" not in text  # no frame, no axis: nothing that looks like a plot


def test_passk_names_the_tie_and_marks_each_integer_k():
    lines = render(lambda plt: charts.draw_passk(plt, DEMO_ATLAS), height=20)
    assert "P theorem = S solver" in lines[0]
    inside = "".join(line.split("┤")[-1] if "┤" in line else line[5:] for line in body(lines))
    assert inside.count("P") == 3 and inside.count("C") == 3 and inside.count("O") == 3
    assert inside.count("S") == 0  # drawn once, as P
    assert any(line.startswith("pass^k") for line in lines)  # y label


def test_passk_lines_stay_inside_the_frame():
    for width in (40, 60, 80):
        lines = render(lambda plt: charts.draw_passk(plt, DEMO_ATLAS), width=width)
        right = next(line for line in lines if "┐" in line).index("┐")
        for line in body(lines):
            assert line.rstrip().endswith("│") and len(line.rstrip()) == right + 1, line


def test_passk_zero_is_drawn_on_the_zero_row():
    lines = render(lambda plt: charts.draw_passk(plt, {"O conjecture": [0.2, 0.0667, 0.0]}), height=20)
    assert "O" in lines[row_of(lines, "0")]


# --- histogram --------------------------------------------------------------------------------------------------


def test_histogram_bars_count_failures_apart():
    phi = [0.05, 0.15, 0.95, 1.0, 0.0, 0.0]
    status = [0, 0, 0, 0, 2, 4]  # two failures (invalid, crash), which score 0
    labels, counts = charts.histogram_bars(phi, status)
    assert labels[0] == "0–.1" and labels[9] == ".9–1" and labels[-1] == "fail"
    assert counts == [1, 1, 0, 0, 0, 0, 0, 0, 0, 2, 2]  # [0,.1): 0.05; [.1,.2): 0.15; [.9,1]: 0.95 and 1.0


def test_the_histogram_is_one_row_per_bin_with_its_count_and_a_bar_to_scale():
    # 7 in [0, .1), 3 in [.5, .6), 2 failures. At 20 columns: labels 5 wide (".1–.2"), counts 1, so the bars
    # get 20 − 5 − 1 − 4 = 10 cells: 7 fills them; 3 is 3/7 of 10 = 4.29 cells (34 eighths: 4 full and ▎);
    # 2 is 2/7 of 10 = 2.86 cells (23 eighths: 2 full and ▉); an empty bin has no bar
    labels, counts = charts.histogram_bars([0.05] * 7 + [0.55] * 3 + [0.0, 0.0], [0] * 10 + [4, 4])
    lines = charts.histogram_lines(labels, counts, 12, width=20)
    assert lines[0] == "Phi, 12 shown"
    assert lines[1:] == [
        " 0–.1 │██████████ 7",
        ".1–.2 │           0",
        ".2–.3 │           0",
        ".3–.4 │           0",
        ".4–.5 │           0",
        ".5–.6 │████▎      3",
        ".6–.7 │           0",
        ".7–.8 │           0",
        ".8–.9 │           0",
        " .9–1 │           0",
        " fail │██▉        2",
    ]


def test_a_count_above_zero_always_shows_a_bar():
    assert charts.bar(1, 10_000, 10) == "▏"
    assert charts.bar(0, 10, 10) == ""
    assert charts.bar(10, 10, 10) == "█" * 10


# --- in the dashboard -------------------------------------------------------------------------------------------


def histogram_text(app) -> str:
    """What the Instances histogram shows."""
    return str(app.query_one("#instances-histogram").render())


def plot_text(app, selector: str) -> str:
    """What the plot widget renders on screen (through its figure cache)."""
    return app.query_one(selector, PlotextPlot).render().plain


async def test_histogram_follows_the_status_filter():
    records = json.loads((DEMO / "records" / "atlas-70b" / "tsp-concorde" / "1.json").read_text())
    crashes = sum(r["status"] == "crash" for r in records)
    assert crashes == 2
    app = create_app()
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        pane = app.query_one(InstancesPane)
        pane.query_one("#instances-task", Select).value = "tsp-concorde"
        await settle(pilot)
        assert pane.key == ("atlas-70b", "tsp-concorde", "1")
        everything = histogram_text(app)
        pane.filter_status("crash")
        await settle(pilot)
        text = histogram_text(app)
        assert f"Phi of the {crashes} instances shown" in text
        assert text != everything


async def test_a_chart_is_drawn_again_for_its_new_size():
    app = create_app()
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        assert "pass^k by k   (P theorem = S solver: identical, drawn once)" in plot_text(app, "#passk-plot")
        await pilot.resize_terminal(60, 40)  # tall enough to keep the chart (it hides below 34 lines)
        await settle(pilot)
        text = plot_text(app, "#passk-plot")
        assert "pass^k · P theorem = S solver: identical" in text  # the long title would not fit
        assert "drawn once" not in text


async def test_the_instances_histogram_on_screen_counts_every_row_shown_once():
    """At 200×50 the histogram is text rows: ten bins and the failures, whose counts add up to the rows the
    table shows (the demo's tsp-concorde attempt of atlas-70b: its records file, counted here)."""
    from tests.support.dashboard import screen_lines

    records = json.loads((DEMO / "records" / "atlas-70b" / "tsp-concorde" / "1.json").read_text())
    app = create_app()
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        pane = app.query_one(InstancesPane)
        pane.query_one("#instances-task", Select).value = "tsp-concorde"
        await settle(pilot)
        rows = [line for line in screen_lines(app) if " │" in line and line.split(" │")[0].strip()[:1] in "0.f"]
        bins = [line for line in rows if line.split(" │")[0].strip() in ("0–.1", ".9–1", "fail") or "–." in line]
        assert len(bins) == 11, rows
        shown = sum(int(line.rsplit(" ", 1)[1].replace(",", "")) for line in bins)
        scored = len(pane.query_one("#instances-table").order)
        assert shown == scored and 0 < scored <= len(records)
