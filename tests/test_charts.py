"""The dashboard's charts (tui/charts.py): the pure choices, and the charts rendered to plain text.

Rendering uses textual-plotext's Plot with the colourless 'clear' theme, so no terminal is needed; the
expected positions are read off the rendered lines (tick labels on the left, model labels below).
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import pytest
from rich.text import Text
from textual.widgets import Select
from textual_plotext import PlotextPlot
from textual_plotext.plot import Plot

from tcsexam.tui import charts
from tcsexam.tui.app import create_app
from tcsexam.tui.widgets.instances import InstancesPane
from tcsexam.tui.widgets.overview import OverviewPane
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


def test_unit_ticks_are_quarters_up_to_one_and_beyond_only_when_needed():
    assert charts.unit_ticks(0.9) == [0, 0.25, 0.5, 0.75, 1.0]
    assert charts.unit_ticks(0.0) == [0, 0.25, 0.5, 0.75, 1.0]
    assert charts.unit_ticks(1.25) == [0, 0.25, 0.5, 0.75, 1.0, 1.25]  # construction may exceed 1
    assert charts.unit_ticks(1.26) == [0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5]


def test_points_ticks_and_labels_are_round():
    assert charts.points_ticks(76.91) == [0, 25, 50, 75, 100]
    assert [charts.tick_label(t) for t in charts.unit_ticks(1)] == ["0", "0.25", "0.5", "0.75", "1"]


def test_count_ticks_are_integers_in_steps_of_1_2_5():
    assert charts.count_ticks(9, 5) == [0, 2, 4, 6, 8, 10]
    assert charts.count_ticks(3, 5) == [0, 1, 2, 3]
    assert charts.count_ticks(10, 2) == [0, 5, 10]
    # 89,981 in at most 5 steps: 10,000 needs 9 steps, 20,000 needs 5 -> 0 .. 100,000
    assert charts.count_ticks(89_981, 5) == [0, 20_000, 40_000, 60_000, 80_000, 100_000]
    assert charts.count_ticks(0) == [0, 1]


def test_tick_budget_leaves_two_rows_per_step():
    assert charts.tick_budget(9) == 2  # (9 - 5) // 2
    assert charts.tick_budget(16) == 5  # (16 - 5) // 2
    assert charts.tick_budget(3) == 1


def test_rank_ticks_mark_1_and_round_positions():
    assert charts.rank_ticks(3) == [1, 2, 3]
    assert charts.rank_ticks(60) == [1, 10, 20, 30, 40, 50, 60]
    assert charts.rank_ticks(30) == [1, 5, 10, 15, 20, 25, 30]


def test_short_label_cuts_with_an_ellipsis():
    assert charts.short_label("borealis-8x22b", 20) == "borealis-8x22b"
    assert charts.short_label("borealis-8x22b", 8) == "boreali…"
    assert len(charts.short_label("borealis-8x22b", 8)) == 8


def test_fit_title_takes_the_longest_that_fits_else_the_shortest():
    titles = ["a long explicit title", "shorter", "s"]
    assert charts.fit_title(titles, 40) == "a long explicit title"
    assert charts.fit_title(titles, 22) == "shorter"  # 21 characters need 23 columns (one each side)
    assert charts.fit_title(titles, 5) == "s"
    assert charts.fit_title(titles, 1) == "s"


# --- overview ---------------------------------------------------------------------------------------------------


def test_overview_mode_switches_to_one_point_per_model_beyond_six_models():
    assert charts.MAX_GROUPED == 6
    assert charts.overview_mode(6) == "tracks"
    assert charts.overview_mode(7) == "index"


def test_whisker_is_cut_at_zero_and_at_the_frame_and_skipped_when_shorter_than_a_row():
    assert charts.whisker(0.4, 0.68, 1.0) == (0.0, 1.0)  # 0.4 - 0.68 < 0; 0.4 + 0.68 = 1.08 > 1
    assert charts.whisker(0.5, 0.1, 1.0) == pytest.approx((0.4, 0.6))
    assert charts.whisker(None, 0.1, 1.0) is None
    assert charts.whisker(0.5, None, 1.0) is None
    assert charts.whisker(0.5, 0.0, 1.0) is None
    assert charts.whisker(0.5, 0.04, 1.0, row=0.05) is None
    assert charts.whisker(0.5, 0.06, 1.0, row=0.05) == pytest.approx((0.44, 0.56))


def test_row_size_is_the_span_over_the_data_rows():
    assert charts.row_size(-0.1, 1.0, 16) == pytest.approx(1.1 / 11)


def test_y_labels_are_a_text_row_apart_and_keep_the_top_tick_when_they_can():
    ticks = [0.0, 25.0, 50.0, 75.0, 100.0]
    # 16 lines: 11 data rows over [-10.375 - 2.5, 101.25] (the null row one text row below 0, as 0.4·25 = 10
    # is less than a row, (100 + 3.75) / 10 = 10.375); a row is 114.125 / 11 = 10.375 < 25: every tick
    assert charts.y_axis(ticks, 16) == ([0.0, 25.0, 50.0, 75.0, 100.0], -10.375, -12.875, 101.25)
    # 10 lines: 5 rows, a row is (100 + 3.75) / 4 = 25.9375 > 25: every second tick (0, 50, 100)
    shown, null_y, low, high = charts.y_axis(ticks, 10)
    assert shown == [0.0, 50.0, 100.0] and null_y == pytest.approx(-25.9375)
    # 8 lines: 3 rows of (103.75) / 2 = 51.875: a stride of 3 would drop 100; 4 keeps it
    assert charts.y_axis(ticks, 8)[0] == [0.0, 100.0]
    # 40 lines: the null row stays at 0.4 step below 0 (10 > a row of 103.75 / 34)
    assert charts.y_axis(ticks, 40)[1] == pytest.approx(-10.0)
    for height in range(8, 41):  # no two labels (null included) within one text row (8: the plots' least)
        shown, null_y, low, high = charts.y_axis(ticks, height)
        ys = [null_y, *shown]
        row = charts.row_size(low, high, height)
        assert all(b - a >= row for a, b in itertools.pairwise(ys)), height


def overview(models, index, index_pm, means, pms, width=80, height=16):
    return render(
        lambda plt: charts.draw_overview(plt, models, index, index_pm, means, pms, width, height), width, height
    )


NONE4 = {t: [None] for t in charts.TRACKS}


def test_a_null_mean_sits_on_the_null_row_and_a_real_zero_on_the_zero_row():
    means = {"theorem": [None], "solver": [0.5], "construction": [0.0], "conjecture": [1.0]}
    lines = overview(["m"], [None], [None], means, NONE4)
    null, zero = row_of(lines, "null"), row_of(lines, "0")
    assert "P" in lines[null] and "I" in lines[null]  # null P and null index
    assert "C" in lines[zero] and "C" not in lines[null]
    assert "P" not in lines[zero]
    assert "O" in lines[row_of(lines, "1")]


def test_no_legend_covers_the_data():
    # the review's case: P = 0.933, S = 0.577, C = 0.987 must be read at their heights, not under a legend
    means = {"theorem": [0.933], "solver": [0.577], "construction": [0.987], "conjecture": [0.2]}
    lines = overview(["atlas-70b"], [76.91], [None], means, NONE4, height=24)
    assert not any("theorem" in line or "solver" in line for line in lines)
    height = {
        letter: next(i for i, line in enumerate(body(lines)) if letter in line.split("┤")[-1]) for letter in "PSCO"
    }
    one, three_quarters, half = (
        row_of(lines, t) - 1 - next(i for i, line in enumerate(lines) if "┌" in line) for t in ("1", "0.75", "0.5")
    )
    assert one <= height["C"] < three_quarters and one <= height["P"] < three_quarters
    assert three_quarters < height["S"] <= half


def test_whiskers_are_drawn_for_a_known_interval():
    means = {"theorem": [0.5], "solver": [None], "construction": [None], "conjecture": [None]}
    pms = {"theorem": [0.25], "solver": [None], "construction": [None], "conjecture": [None]}
    lines = body(overview(["m"], [None], [None], means, pms))
    column = next(line.index("P") for line in lines if "P" in line)
    marks = [i for i, line in enumerate(lines) if line[column] == "│"]
    p_row = next(i for i, line in enumerate(lines) if "P" in line)
    assert marks and min(marks) < p_row < max(marks)  # above and below the point
    without = body(overview(["m"], [None], [None], means, NONE4))
    assert not any(line[column] == "│" for line in without)


def test_models_are_drawn_in_the_given_order():
    means = {t: [0.5, 0.5] for t in charts.TRACKS}
    pms = {t: [None, None] for t in charts.TRACKS}
    last = overview(["zeta", "alpha"], [50.0, 50.0], [None, None], means, pms)[-2:]
    labels = next(line for line in last if "zeta" in line)
    assert labels.index("zeta") < labels.index("alpha")
    last = overview(["alpha", "zeta"], [50.0, 50.0], [None, None], means, pms)[-2:]
    labels = next(line for line in last if "zeta" in line)
    assert labels.index("alpha") < labels.index("zeta")


def test_many_models_give_one_point_per_model_in_points():
    n = 30
    index = [90.0 - i for i in range(n)]
    means = {t: [0.5] * n for t in charts.TRACKS}
    pms = {t: [None] * n for t in charts.TRACKS}
    lines = overview([f"model-{i:03d}" for i in range(n)], index, [None] * n, means, pms, width=100, height=20)
    inside = "".join(line.split("┤")[-1] for line in body(lines))
    assert inside.count("●") == n
    assert not any(letter in inside for letter in "PSCO")
    assert row_of(lines, "100") < row_of(lines, "75") < row_of(lines, "0")


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


def test_histogram_count_ticks_are_integers():
    labels, counts = charts.histogram_bars([0.05] * 7 + [0.55] * 3, [0] * 10)
    lines = render(lambda plt: charts.draw_histogram(plt, labels, counts, 10, 16), height=16)
    ticks = [line.split("┤")[0].strip().replace(",", "") for line in lines if "┤" in line]
    assert ticks and all(t.isdigit() for t in ticks)
    assert [int(t) for t in ticks] == sorted((int(t) for t in ticks), reverse=True)
    assert "count" in "\n".join(lines) and "Phi" in "\n".join(lines)


# --- in the dashboard -------------------------------------------------------------------------------------------


def plot_text(app, selector: str) -> str:
    """What the plot widget renders on screen (through its figure cache)."""
    return app.query_one(selector, PlotextPlot).render().plain


async def test_overview_chart_follows_the_table_sort():
    app = create_app()
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        pane = app.query_one(OverviewPane)

        def label_order() -> list[str]:
            line = next(line for line in plot_text(app, "#overview-chart").split("\n") if "cirrus-mini" in line)
            return sorted(["atlas-70b", "borealis-8x22b", "cirrus-mini"], key=line.index)

        assert label_order() == ["atlas-70b", "borealis-8x22b", "cirrus-mini"]  # index, descending
        assert plot_text(app, "#overview-chart") is not None
        pane.sort_by(0)  # model name, ascending
        pane.sort_by(0)  # again: descending
        await pilot.pause()
        assert label_order() == ["cirrus-mini", "borealis-8x22b", "atlas-70b"]  # a new drawing, not the cache


async def test_a_chart_is_drawn_again_for_its_new_size():
    app = create_app()
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        assert "track means · ±95% CI (if over a row)" in plot_text(app, "#overview-chart")
        await pilot.resize_terminal(60, 40)  # tall enough to keep the chart (it hides below 34 lines)
        await settle(pilot)
        text = plot_text(app, "#overview-chart")
        assert "I index/100 · P S C O means · ±95% CI · null: no mean" in text  # the long title would not fit


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
        everything = plot_text(app, "#instances-histogram")
        pane.filter_status("crash")
        await settle(pilot)
        text = plot_text(app, "#instances-histogram")
        assert f"Phi of the {crashes} instances shown" in text
        assert text != everything


@pytest.mark.parametrize("top", [13.0, 1e13, 1e300, float("inf")])
def test_a_scale_of_any_size_has_few_ticks(top):
    """A construction reward of 1e13 is accepted input: the scale's ticks stay few (a tick per quarter
    made a list of 4e13 numbers and froze the dashboard)."""
    for ticks in (charts.unit_ticks(top), charts.points_ticks(top)):
        assert 5 <= len(ticks) <= charts.MOST_TICKS + 1
        assert ticks[0] == 0 and (ticks[-1] >= top or not math.isfinite(top))
        assert ticks == sorted(set(ticks))
