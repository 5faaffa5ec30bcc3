"""Driving the dashboard in tests: wait for it to settle, use the command palette, read a table's row;
and the command line's oracle for the Compare tab."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from textual.widgets import DataTable

from scoring.commands.main import main as cli_main


async def settle(pilot, rounds: int = 3) -> None:
    """Let the dashboard's thread workers finish and their messages be handled; fails the test
    when loading has not finished by then."""
    from textual.worker import WorkerCancelled

    for _ in range(rounds):
        busy = [w for w in pilot.app.workers if w.group != "watch"]  # --watch's runs until the app exits
        if busy:
            with contextlib.suppress(WorkerCancelled):  # an exclusive worker replaced by a newer one
                await pilot.app.workers.wait_for_complete(busy)
        await pilot.pause()
    for _ in range(500):  # the worker's message may still be on its way to the app
        if not pilot.app.loading:
            break
        await pilot.pause(0.01)
    assert not pilot.app.loading, "the dashboard was still loading"
    await pilot.pause()


def palette_prompts(app) -> list[str]:
    """The first line of every hit the command palette shows now."""
    from textual.command import CommandList

    options = app.screen.query_one(CommandList)
    return [str(options.get_option_at_index(i).prompt).split("\n")[0] for i in range(options.option_count)]


async def run_command(pilot, query: str, *, enter: bool = True) -> list[str]:
    """Type ``query`` into ctrl+p; the hits shown; Enter runs the first."""
    from textual.command import CommandPalette

    await pilot.press("ctrl+p")
    await pilot.pause()
    assert isinstance(pilot.app.screen, CommandPalette)
    await pilot.press(*query)
    await pilot.pause(0.5)
    prompts = palette_prompts(pilot.app)
    if enter:
        await pilot.press("enter")
        await settle(pilot)
    return prompts


def row_at(table: DataTable, i: int) -> list[str]:
    return [str(c) for c in table.get_row_at(i)]


def cli_compare(run: Path, a: str, b: str, capsys) -> dict:
    """`tcsexam compare`'s JSON for the pair: the oracle the Compare tab must match."""
    capsys.readouterr()
    assert cli_main(["compare", str(run), "--models", a, b, "--output", "-"]) == 0
    out = capsys.readouterr().out
    return json.loads(out[out.index("{") :])
