"""Shared builders: a tiny benchmark and run written into tmp_path, and a CLI runner."""

from __future__ import annotations

import contextlib
import csv
import inspect
import io
import json
import shutil
from pathlib import Path

import pytest

from scoring.commands.main import main
from scoring.vocab import OPTIONAL_COLUMNS, REQUIRED_COLUMNS

COLUMNS = [*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS]

MINI_SUITE = {
    "suite": "lite",
    "tasks": [
        {"item": "t1", "track": "theorem"},
        {"item": "t2", "track": "theorem"},
        {"item": "s1", "track": "solver"},
        {"item": "s2", "track": "solver"},
        {"item": "c1", "track": "construction"},
        {"item": "c2", "track": "construction"},
        {"item": "o1", "track": "conjecture"},
    ],
}

MINI_REFERENCE = {
    "reference_id": "ref-test",
    "suite": "lite",
    "scale_floor": {"relative": 0.02, "absolute": 1e-9},
    "tasks": {
        "s1": {
            "kind": "objective",
            "direction": "maximize",
            "instances": {"a": [10, 12, 14], "b": [100, None, 100, 100]},
        },
        "s2": {"kind": "solve", "direction": "maximize", "instances": {"x": [1, 0, 1], "y": [1, 1]}},
    },
    "unscored_reference_instances": [{"task": "s1", "instance": "u", "values": [7, None]}],
}


def row(
    model="m",
    track="theorem",
    item="t1",
    attempt="1",
    score="1",
    adoption="selected",
    status="valid",
    protocol=None,
    note="",
    reference_id="",
    score_type=None,
) -> dict:
    return {
        "model": model,
        "track": track,
        "item": item,
        "attempt": str(attempt),
        "score": str(score),
        "adoption_status": adoption,
        "score_status": status,
        "score_type": score_type or ("fixed_reference_relative" if track == "solver" else "original_task_score"),
        "solver_protocol": protocol if protocol is not None else ("offline" if track == "solver" else ""),
        "note": note,
        "reference_id": reference_id,
    }


def full_rows(model="m", scores=None) -> list[dict]:
    """One selected, valid attempt per task of MINI_SUITE (scores per item override the defaults)."""
    defaults = {"t1": 1, "t2": 0, "s1": 0.25, "s2": 0.5, "c1": 1.2, "c2": 0.4, "o1": 0}
    defaults.update(scores or {})
    return [row(model=model, track=t["track"], item=t["item"], score=defaults[t["item"]]) for t in MINI_SUITE["tasks"]]


def csv_text(rows: list[dict], columns=COLUMNS) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n", extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


class Workspace:
    """A benchmark folder and a run folder under tmp_path."""

    def __init__(self, root: Path):
        self.root = root
        self.bench = root / "bench"
        self.run = root / "run"
        self.out = root / "out" / "index.json"
        self.write_json(self.bench / "suites" / "lite.json", MINI_SUITE)
        self.write_json(self.bench / "references" / "ref-test" / "lite.json", MINI_REFERENCE)
        self.cohort = {
            "suite": "lite",
            "solver_protocol": "offline",
            "solver_reference_id": "ref-test",
            "adoption_rule": "first valid attempt",
            "models": {"m": {"attempts_per_task": 1}},
        }
        self.write_cohort()

    @staticmethod
    def write_json(path: Path, obj) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(obj), encoding="utf-8")
        return path

    def write_cohort(self, **changes) -> None:
        self.cohort.update(changes)
        self.write_json(self.run / "cohort.json", self.cohort)

    def write_rows(self, rows: list[dict], columns=COLUMNS) -> Path:
        path = self.run / "attempts.csv"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(csv_text(rows, columns), encoding="utf-8")
        return path

    def write_records(self, model: str, item: str, attempt: str, records: list[dict]) -> Path:
        return self.write_json(self.run / "records" / model / item / f"{attempt}.json", records)

    def score_args(self, *extra: str) -> list[str]:
        return ["score", str(self.run), "--benchmark", str(self.bench), "--output", str(self.out), *extra]

    def load(self, thresholds=None):
        from scoring.pipeline.index import build_index
        from scoring.pipeline.run import load_run, resolve_run_paths

        run = load_run(resolve_run_paths(str(self.run), benchmark=str(self.bench)))
        return build_index(run, thresholds)


@pytest.fixture(autouse=True)
def isolated_config(tmp_path_factory, monkeypatch) -> Path:
    """Every test reads and writes the dashboard's settings (tui.settings) in a folder of its own,
    never the developer's ~/.config/tcsexam (a remembered theme would change the snapshots)."""
    home = tmp_path_factory.mktemp("xdg-config")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    monkeypatch.delenv("TCSEXAM_BENCHMARK", raising=False)  # the benchmark is what each test names
    return home


@pytest.fixture
def ws(tmp_path) -> Workspace:
    return Workspace(tmp_path)


@pytest.fixture
def cli(capsys):
    """Run the CLI in-process: returns (exit code, stdout, stderr)."""

    def run(*args: str):
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse: usage errors, --version
            code = exc.code
        out, err = capsys.readouterr()
        return code, out, err

    return run


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


@pytest.fixture
def demo_copy(tmp_path) -> Path:
    """A copy of the bundled demo run, for tests that edit its files."""
    from scoring.pipeline.benchmark import demo_run

    target = tmp_path / "demo"
    shutil.copytree(demo_run(), target)
    return target


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


# --- the two halves of the suite ---------------------------------------------------------------------

DASHBOARD_MODULES = {
    "test_snapshots",
    "test_footer",
    "test_heap",
    "test_steady_tables",
    "test_instances_search",
    "test_charts",
    "test_latency_probe",
}


def pytest_collection_modifyitems(items) -> None:
    """Mark the dashboard's tests (its modules, and every test that drives the app) ``dashboard``:
    ``-m "not dashboard"`` runs the scoring core and the command line alone (README, Development)."""
    for item in items:
        module = item.path.stem
        test = getattr(item, "obj", None)
        if module.startswith("test_tui_") or module in DASHBOARD_MODULES or inspect.iscoroutinefunction(test):
            item.add_marker(pytest.mark.dashboard)
