"""The palette's "Save figure of this tab" (docs/dashboard.md#export-and-screenshots): the figure of
``tcsexam plot`` that the tab shows, a PDF beside the run's index.json, and a notification saying where."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tcsexam.tui import export
from tcsexam.tui.app import create_app
from tcsexam.tui.state import DashboardConfig
from tests.support.dashboard import notifications, run_command, settle, wait_until

SIZE = (140, 45)
ROOT = Path(__file__).resolve().parents[1]


def test_each_tab_has_its_figure():
    assert export.figure_kind("passk") == "passk"
    assert export.figure_kind("compare") == "compare"
    assert [export.figure_kind(t) for t in ("overview", "coverage", "leaderboard", None)] == ["forest"] * 4
    assert export.figure_target(Path("/r/build/index.json"), "passk") == Path("/r/build/figure-passk.pdf")


def test_without_matplotlib_the_figure_names_the_extra(tmp_path):
    script = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "from pathlib import Path\n"
        "from tcsexam.tui.export import save_figure\n"
        f"print(save_figure(None, 'i.json', {{}}, 'forest', Path({str(tmp_path / 'f.pdf')!r}), None))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT)
    assert (
        "(False, " in done.stdout
        and 'pip install matplotlib into this environment (or the extra "plot": pip install "./tcsexam[plot]"'
        in done.stdout
    ), done.stderr
    assert list(tmp_path.iterdir()) == []


def test_the_figure_is_written_while_the_end_of_the_process_waits(cli, demo_copy, tmp_path, monkeypatch):
    """The figure is drawn in a thread; q ends the process at once (tui/cli.py end_now) but not while
    the figure's file is being written (tui/writes.py), which would leave a temporary file behind."""
    import json

    from tcsexam.scoring.safety import outputs
    from tcsexam.tui.writes import WRITING

    held = []
    real = outputs.write_atomic
    monkeypatch.setattr(outputs, "write_atomic", lambda path, data: (held.append(WRITING.locked()), real(path, data)))
    cli("score", str(demo_copy), "--output", str(tmp_path / "index.json"))
    document = json.loads((tmp_path / "index.json").read_text())
    monkeypatch.setattr(export, "refusal", lambda *args: None)  # the target's checks are another test's
    target = tmp_path / "figure-forest.pdf"
    saved, said = export.save_figure(None, "index.json", document, "forest", target, None)
    assert saved, said
    assert held == [True] and not WRITING.locked()
    assert target.read_bytes().startswith(b"%PDF")


async def test_the_palette_saves_the_figure_of_the_tab_beside_index_json(demo_copy, tmp_path):
    output = tmp_path / "out" / "index.json"
    app = create_app(DashboardConfig(run_dir=str(demo_copy), output=str(output)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("4")  # pass^k
        await pilot.pause()
        await run_command(pilot, "Save figure of this tab")
        target = tmp_path / "out" / "figure-passk.pdf"
        await wait_until(pilot, lambda: any("figure" in n for n in notifications(app)), "the figure's notification")
        assert f"Saved the passk figure to {target}" in notifications(app)
        data = target.read_bytes()
        assert data.startswith(b"%PDF") and b"/FontFile2" in data
        assert sorted(p.name for p in target.parent.iterdir()) == ["figure-passk.pdf"]  # no index.json written
        await pilot.press("5")  # Compare: A the Overview's selection, B its neighbour
        await pilot.pause()
        await run_command(pilot, "Save figure of this tab")
        pair = tmp_path / "out" / "figure-compare.pdf"
        await wait_until(pilot, lambda: f"Saved the compare figure to {pair}" in notifications(app), "compare's figure")
        assert pair.read_bytes().startswith(b"%PDF")


async def test_a_figure_is_refused_where_a_folder_stands(demo_copy, tmp_path):
    output = tmp_path / "out" / "index.json"
    (tmp_path / "out" / "figure-forest.pdf").mkdir(parents=True)
    app = create_app(DashboardConfig(run_dir=str(demo_copy), output=str(output)))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await run_command(pilot, "Save figure of this tab")
        await wait_until(pilot, lambda: any("Figure" in n for n in notifications(app)), "the figure's notification")
        (said,) = [n for n in notifications(app) if "Figure" in n]
        assert said.startswith("Figure refused:") and "directory" in said and "nothing written" in said
