"""The dashboard's charts (tui/charts.py): text rows, worked out by hand here, then as the dashboard shows them."""

from __future__ import annotations

import json
from pathlib import Path

from tcsexam.tui import charts
from tcsexam.tui.app import create_app
from tcsexam.tui.state import DashboardConfig
from tests.support.dashboard import open_instances, row_at, screen_lines, settle

DEMO = Path(__file__).resolve().parents[1] / "sample_runs" / "demo"
TAU2_GRADED = Path(__file__).parent / "data" / "tau2" / "derived" / "derived_A_graded_4x5.json"


def test_fit_title_takes_the_longest_that_fits_else_the_shortest():
    titles = ["a long explicit title", "shorter", "s"]
    assert charts.fit_title(titles, 40) == "a long explicit title"
    assert charts.fit_title(titles, 22) == "shorter"  # 21 characters need 23 columns (one each side)
    assert charts.fit_title(titles, 5) == "s"
    assert charts.fit_title(titles, 1) == "s"


# --- pass^k: a sparkline on the 0..1 scale ------------------------------------------------------------------------


def test_the_sparkline_puts_each_value_on_one_0_to_1_scale_in_sevenths():
    # glyph i (0..7) stands for i/7: 0 the lowest, 1 the highest, 0.5 (3.5 sevenths, rounded up) the fifth
    assert charts.sparkline([0.0, 0.5, 1.0]) == "▁▅█"
    # 0.07 is 0.49 sevenths (▁), 0.08 is 0.56 (▂); 0.92 is 6.44 (▇), 0.93 is 6.51 (█)
    assert charts.sparkline([0.07, 0.08, 0.92, 0.93]) == "▁▂▇█"
    # the demo's atlas-70b: theorem 0.933, 0.867, 0.8 (6.53, 6.07, 5.6 sevenths); conjecture 0.2, 0.0667, 0
    assert charts.sparkline([0.9333, 0.8667, 0.8]) == "█▇▇"
    assert charts.sparkline([0.2, 0.0667, 0.0]) == "▂▁▁"


def test_the_sparkline_stops_at_the_first_missing_value_and_is_a_dash_without_any():
    assert charts.sparkline([1.0, None]) == "█"  # a track with fewer attempts per task than another
    assert charts.sparkline([]) == "—"
    assert charts.sparkline([None, None]) == "—"


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


async def test_histogram_follows_the_status_filter():
    records = json.loads((DEMO / "records" / "atlas-70b" / "tsp-concorde" / "1.json").read_text())
    crashes = sum(r["status"] == "crash" for r in records)
    assert crashes == 2
    app = create_app()
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        pane = await open_instances(pilot, "tsp-concorde")
        assert pane.key == ("atlas-70b", "tsp-concorde", "1")
        everything = histogram_text(app)
        pane.filter_status("crash")
        await settle(pilot)
        text = histogram_text(app)
        assert f"Phi of the {crashes} instances shown" in text
        assert text != everything


async def test_the_passk_tab_shows_each_track_as_a_sparkline_and_its_numbers_at_80x24():
    """The demo's atlas-70b, three attempts per task: theorem 0.933, 0.867, 0.800 (█▇▇), construction
    0.467, 0.267, 0.200 (3.27, 1.87, 1.4 sevenths: ▄▃▂), conjecture 0.200, 0.067, 0.000 (▂▁▁)."""
    app = create_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        lines = screen_lines(app)
        rows = {line.split()[1]: line.split()[2:] for line in lines if line.split()[:1] in (["P"], ["S"], ["C"], ["O"])}
        assert rows["theorem"][2:] == ["█▇▇", "0.933", "0.867", "0.800"]
        assert rows["construction"][2:] == ["▄▃▂", "0.467", "0.267", "0.200"]
        assert rows["conjecture"][2:] == ["▂▁▁", "0.200", "0.067", "0.000"]
        assert not any(c in "".join(lines) for c in "┤└┌")  # no plotted axes left


async def test_the_tau2_tab_shows_the_runs_passk_as_a_sparkline_and_its_numbers_at_80x24():
    """Five tasks of four trials with 4, 3, 2, 1 and 0 successes: pass^1 = 10/20 = 0.5, pass^2 = (6+3+1)/6/5
    = 0.333, pass^3 = (4+1)/4/5 = 0.25, pass^4 = 1/5 = 0.2; in sevenths 3.5, 2.33, 1.75, 1.4: ▅▃▃▂."""
    app = create_app(DashboardConfig(run_dir=None, tau2=str(TAU2_GRADED)))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("6")
        await settle(pilot)
        table = app.query_one("#tau2-passk")
        assert [str(c.label) for c in table.ordered_columns] == ["pass^k", "pass^1", "pass^2", "pass^3", "pass^4"]
        assert row_at(table, 0) == ["▅▃▃▂", "0.500", "0.333", "0.250", "0.200"]
        table.scroll_visible(animate=False)
        await settle(pilot)
        assert any(line.split()[:5] == ["▅▃▃▂", "0.500", "0.333", "0.250", "0.200"] for line in screen_lines(app))


async def test_the_instances_histogram_on_screen_counts_every_row_shown_once():
    """At 200×50 the histogram is text rows: ten bins and the failures, whose counts add up to the rows the
    table shows (the demo's tsp-concorde attempt of atlas-70b: its records file, counted here)."""
    records = json.loads((DEMO / "records" / "atlas-70b" / "tsp-concorde" / "1.json").read_text())
    app = create_app()
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        pane = await open_instances(pilot, "tsp-concorde")
        rows = [line for line in screen_lines(app) if " │" in line and line.split(" │")[0].strip()[:1] in "0.f"]
        bins = [line for line in rows if line.split(" │")[0].strip() in ("0–.1", ".9–1", "fail") or "–." in line]
        assert len(bins) == 11, rows
        shown = sum(int(line.rsplit(" ", 1)[1].replace(",", "")) for line in bins)
        scored = len(pane.query_one("#instances-table").order)
        assert shown == scored and 0 < scored <= len(records)
