"""Screenshot and export say where they write (docs/dashboard.md#export-and-screenshots): the absolute
path, or why nothing was written; `E` asks for another path and refuses what `e` refuses."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from textual.command import CommandList
from textual.widgets import Input

from tcsexam.tui.app import create_app
from tcsexam.tui.screens.confirm import ConfirmScreen
from tcsexam.tui.screens.open_tau2 import ExportToScreen
from tcsexam.tui.state import DashboardConfig
from tests.support.dashboard import notifications, run_command, screen_lines, settle, wait_until

SIZES = {"80x24": (80, 24), "200x50": (200, 50)}


def said(app, words: str) -> list[str]:
    return [m for m in notifications(app) if words in m]


@pytest.fixture
def no_downloads(tmp_path, monkeypatch) -> Path:
    """A home without a Downloads folder; the current folder: the one returned."""
    home, here = tmp_path / "home", tmp_path / "here"
    home.mkdir()
    here.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_DOWNLOAD_DIR", raising=False)
    monkeypatch.chdir(here)
    return here


@pytest.mark.parametrize("size", SIZES)
async def test_a_screenshot_without_downloads_goes_to_the_current_folder(no_downloads, size):
    app = create_app()
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        await run_command(pilot, "Screenshot")
        await wait_until(pilot, lambda: said(app, "screenshot"), "the screenshot's notification")
        shots = list(no_downloads.glob("*.svg"))
        assert len(shots) == 1 and shots[0].read_text().startswith("<svg")
        assert said(app, f"Saved the screenshot to {shots[0]}"), notifications(app)
        assert shots[0].is_absolute()


async def test_a_screenshot_that_cannot_be_written_says_why(no_downloads):
    (no_downloads / "file").write_text("not a folder")
    app = create_app()
    async with app.run_test(size=SIZES["80x24"]) as pilot:
        await settle(pilot)
        assert app.deliver_screenshot("shot.svg", str(no_downloads / "file")) is None
        await pilot.pause()
        failed = said(app, "Screenshot not saved")
        assert failed and "Not a directory" in failed[0] and str(no_downloads / "file" / "shot.svg") in failed[0]


@pytest.mark.parametrize("size", SIZES)
async def test_export_names_the_absolute_path(demo_copy, no_downloads, size):
    app = create_app(DashboardConfig(run_dir=str(demo_copy), output="out/index.json"))
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await wait_until(pilot, lambda: said(app, "Wrote"), "the export's notification")
        assert said(app, f"Wrote {no_downloads / 'out' / 'index.json'} — status incomplete")
    assert json.loads((no_downloads / "out" / "index.json").read_text())["status"] == "incomplete"


def test_a_path_is_broken_after_a_slash_into_lines_that_fit():
    from tcsexam.tui.export import at_folders

    path = "/tmp/experiments-2026/frontier-models/tcsexam-lite-offline/run-december/build/index.json"
    # 36 cells, after "Wrote " (6): 6 + 22 fits, + 16 would be 44
    assert at_folders(path, 36, 6).split("\n") == [
        "/tmp/experiments-2026/",
        "frontier-models/",
        "tcsexam-lite-offline/run-december/",
        "build/index.json",
    ]
    assert at_folders("/tmp/x/build/index.json", 36, 6) == "/tmp/x/build/index.json"  # fits: unbroken
    assert at_folders(path, 0) == path  # no width known
    assert at_folders("/a/" + "n" * 50 + "/b.json", 20).split("\n") == ["/a/", "n" * 50 + "/", "b.json"]  # too long
    assert at_folders("/数据/实验/模型/index.json", 12).split("\n") == [
        "/数据/实验/",
        "模型/",
        "index.json",
    ]  # by cells


@pytest.mark.parametrize("size", SIZES)
async def test_the_export_notification_breaks_a_long_path_between_folders(demo_copy, tmp_path, monkeypatch, size):
    """At 80 columns a notification is 36 cells wide: a run in a deep folder has its path broken after a
    '/', never inside a folder's name."""
    deep = tmp_path / "experiments-2026" / "frontier-models" / "tcsexam-lite-offline" / "run-december"
    shutil.copytree(demo_copy, deep)
    monkeypatch.chdir(tmp_path)
    app = create_app(DashboardConfig(run_dir=str(deep)))
    async with app.run_test(size=SIZES[size], notifications=True) as pilot:  # drawn, not only kept
        await settle(pilot)
        await pilot.press("e")
        await wait_until(pilot, lambda: "index.json" in "\n".join(screen_lines(app)), "the notification on screen")
        screen = "\n".join(line.partition("▌")[2] for line in screen_lines(app))  # the notification's text
        for name in [*deep.parts[1:], "build", "index.json"]:
            assert name in screen, (name, screen)  # each folder's name whole on one line


async def export_to(pilot, path: str) -> None:
    """E, the path typed over the one offered, Enter."""
    await pilot.press("E")
    await wait_until(pilot, lambda: isinstance(pilot.app.screen, ExportToScreen), "the export prompt")
    typed = pilot.app.screen.query_one(Input)
    typed.value = path
    await pilot.press("enter")
    await settle(pilot)


@pytest.mark.parametrize("size", SIZES)
async def test_E_asks_for_a_path_and_writes_there(demo_copy, no_downloads, size):
    app = create_app(DashboardConfig(run_dir=str(demo_copy), output="out/index.json"))
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        await pilot.press("E")
        await wait_until(pilot, lambda: isinstance(app.screen, ExportToScreen), "the export prompt")
        assert app.screen.query_one(Input).value == str(no_downloads / "out" / "index.json")  # --output, absolute
        await pilot.press("escape")
        await settle(pilot)
        assert not (no_downloads / "out").exists()  # cancelled: nothing written
        await export_to(pilot, "~/elsewhere/run.json")
        written = Path.home() / "elsewhere" / "run.json"
        assert said(app, f"Wrote {written} — status incomplete")
        assert json.loads(written.read_text())["status"] == "incomplete"
        written.write_text("mine")
        await export_to(pilot, str(written))  # a file that exists: asked first
        assert isinstance(app.screen, ConfirmScreen) and "exists: replace it?" in app.screen.question
        await pilot.press("n")
        await settle(pilot)
        assert written.read_text() == "mine"


@pytest.mark.parametrize("target", ["attempts.csv", "records", "records.jsonl", "/dev/null", "-", "."])
async def test_E_refuses_what_the_export_refuses(demo_copy, no_downloads, target):
    if target == "records.jsonl":  # a packed run (docs/formats.md#packed-records): the packed file is an input
        from tcsexam.scoring.commands.main import main as cli_main

        assert cli_main(["pack", str(demo_copy)]) == 0
        shutil.rmtree(demo_copy / "records")
    path = str(demo_copy / target) if target in ("attempts.csv", "records", "records.jsonl") else target
    before = {p: p.read_bytes() for p in demo_copy.rglob("*") if p.is_file()}
    app = create_app(DashboardConfig(run_dir=str(demo_copy)))
    async with app.run_test(size=SIZES["80x24"]) as pilot:
        await settle(pilot)
        await export_to(pilot, path)
        if isinstance(app.screen, ConfirmScreen):  # an existing file (the input, the device): yes to the question
            await pilot.press("y")
            await settle(pilot)
        await wait_until(pilot, lambda: said(app, "Export refused"), f"the refusal of {target}")
        assert not said(app, "Wrote")
        if target != "-":  # the dashboard never writes to standard output: no refusal suggests it
            assert not said(app, "standard output")
    assert {p: p.read_bytes() for p in demo_copy.rglob("*") if p.is_file()} == before
    assert not list(no_downloads.iterdir())


@pytest.mark.parametrize("size", SIZES)
async def test_e_writes_where_tcsexam_score_writes_and_the_palette_says_so(demo_copy, no_downloads, size):
    """Without --output, `e` writes RUN_DIR/build/index.json (docs/commands.md#score's default), not into the
    folder the dashboard was started from; the palette's export names that file."""
    app = create_app(DashboardConfig(run_dir=str(demo_copy)))
    target = demo_copy / "build" / "index.json"
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        await run_command(pilot, "Export index.json", enter=False)
        hits = app.screen.query_one(CommandList)
        shown = [str(hits.get_option_at_index(i).prompt) for i in range(hits.option_count)]
        assert any(hit.endswith(f"key e · write {target}") for hit in shown), shown
        await pilot.press("enter")
        await wait_until(pilot, lambda: said(app, "Wrote"), "the export's notification")
        assert said(app, f"Wrote {target} — status incomplete")
    assert json.loads(target.read_text())["status"] == "incomplete"
    assert not list(no_downloads.iterdir())  # nothing in the current folder


async def palette_export_target(app, pilot) -> list[str]:
    """The palette's export commands as shown (each names the file it writes); the palette closed again."""
    from textual.command import CommandPalette

    await run_command(pilot, "Export index.json", enter=False)
    hits = app.screen.query_one(CommandList)
    shown = [str(hits.get_option_at_index(i).prompt) for i in range(hits.option_count)]
    await pilot.press("escape")
    await wait_until(pilot, lambda: not isinstance(app.screen, CommandPalette), "the palette closed")
    return [hit for hit in shown if "key e" in hit]


@pytest.mark.parametrize("size", SIZES)
async def test_with_two_runs_e_writes_into_each_runs_own_folder(tmp_path, no_downloads, size):
    """With several runs open, `e` and the palette's export name the shown run's own build/index.json."""
    import shutil

    from tcsexam.scoring.pipeline.benchmark import demo_run

    first, second = tmp_path / "first", tmp_path / "second"
    for run in (first, second):
        shutil.copytree(demo_run(), run)
    app = create_app(DashboardConfig(run_dir=str(first), more_runs=[str(second)]))
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        (hit,) = await palette_export_target(app, pilot)
        assert hit.endswith(f"key e · write {first / 'build' / 'index.json'}"), hit
        await pilot.press("e")
        await wait_until(pilot, lambda: said(app, "Wrote"), "the first export's notification")
        app.switch_run(1)
        await settle(pilot)
        (hit,) = await palette_export_target(app, pilot)
        assert hit.endswith(f"key e · write {second / 'build' / 'index.json'}"), hit
        await pilot.press("e")
        await wait_until(pilot, lambda: said(app, f"Wrote {second}"), "the second export's notification")
        assert not isinstance(app.screen, ConfirmScreen)  # another file: nothing to ask
    assert (first / "build" / "index.json").is_file() and (second / "build" / "index.json").is_file()
    assert not list(no_downloads.iterdir())
