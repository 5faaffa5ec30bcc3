"""Shared builders: a tiny benchmark and run written into tmp_path, and a CLI runner."""

from __future__ import annotations

import inspect
import os
import shutil
from pathlib import Path

import pytest
import textual.constants

from tcsexam.scoring.commands.main import main
from tests.support.dashboard import shorten_idle_waits
from tests.support.runs import Workspace

# The dashboard's tests run without animations (a tab's underline, a scroll, a fade end at once), as
# with TEXTUAL_ANIMATIONS=none; a value set outside is kept. Textual read the variable when it was
# first imported (pytest-textual-snapshot imports it before this file), so its constant is set too.
if "TEXTUAL_ANIMATIONS" not in os.environ:
    os.environ["TEXTUAL_ANIMATIONS"] = "none"  # also for the dashboards the tests start in a terminal
    textual.constants.TEXTUAL_ANIMATIONS = "none"  # type: ignore[misc]
shorten_idle_waits()  # Pilot's wait after each key: a 5 ms window instead of 20 ms (tests/support/dashboard.py)


@pytest.fixture(autouse=True)
def isolated_config(tmp_path_factory, monkeypatch) -> Path:
    """Every test reads and writes the dashboard's settings (tui.settings) and its cache of scored runs
    (tui.cache) in folders of its own, never the developer's ~/.config/tcsexam or ~/.cache/tcsexam (a remembered theme would change the snapshots)."""
    home = tmp_path_factory.mktemp("xdg-config")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))  # the cache of scored runs
    monkeypatch.delenv("TCSEXAM_BENCHMARK", raising=False)  # the benchmark is what each test names
    return home


@pytest.fixture(autouse=True)
def release_finished_apps():
    """After each test, let go of what the dashboard drew. Textual caches ``StylesCache.get_inner_outer``
    with an ``lru_cache(1024)`` keyed by the widget's StylesCache, so the render caches of the last
    thousand widgets of apps long finished stay alive: a few hundred thousand objects that every full
    collection (tui/heap.py settles after each load) walks again, in every test that follows."""
    yield
    from tests.support.dashboard import release_style_caches

    release_style_caches()


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


@pytest.fixture
def demo_copy(tmp_path) -> Path:
    """A copy of the bundled demo run, for tests that edit its files."""
    from tcsexam.scoring.pipeline.benchmark import demo_run

    target = tmp_path / "demo"
    shutil.copytree(demo_run(), target)
    return target


@pytest.fixture
def large_demo(demo_copy) -> Path:
    """The demo, large by its files' size (a sparse file in records/ takes them over LARGE_INPUT_BYTES):
    the dashboard loads it as it loads a run of thousands of models (tui/loader.py ``is_large``)."""
    from tcsexam.tui.loader import LARGE_INPUT_BYTES, is_large
    from tcsexam.tui.state import DashboardConfig, resolve_paths

    with open(demo_copy / "records" / "padding.bin", "wb") as f:
        f.truncate(LARGE_INPUT_BYTES + 1)
    assert is_large(resolve_paths(DashboardConfig(run_dir=str(demo_copy))))
    return demo_copy


# --- the two halves of the suite ---------------------------------------------------------------------

DASHBOARD_MODULES = {
    "test_snapshots",
    "test_pane_snapshots",
    "test_footer",
    "test_heap",
    "test_steady_tables",
    "test_instances_search",
    "test_charts",
    "test_latency_probe",
}


# The modules holding the suite's longest tests (10-30 s each, `--durations`), run first: pytest-xdist hands
# the tests out in collection order, and a long test handed out last keeps one worker busy while the
# others have nothing left to do.
START_FIRST = (
    "test_tui_keys",
    "test_tui_memory",
    "test_docs",
    "test_bench_smoke",
    "test_tui_hostile_names",
    "test_tui_large_runs",
    "test_tui_cache",
    "test_safety_wiring",
    "test_planner_sim",
    "test_tui_holds_up",
)


def pytest_collection_modifyitems(items) -> None:
    """Mark the dashboard's tests (its modules, and every test that drives the app) ``dashboard``:
    ``-m "not dashboard"`` runs the scoring core and the command line alone (README, Development).
    Then move the modules of START_FIRST to the front, in that order (each module's tests stay together
    and in their order)."""
    for item in items:
        module = item.path.stem
        test = getattr(item, "obj", None)
        if module.startswith("test_tui_") or module in DASHBOARD_MODULES or inspect.iscoroutinefunction(test):
            item.add_marker(pytest.mark.dashboard)
    first = {module: n for n, module in enumerate(START_FIRST)}
    items.sort(key=lambda item: first.get(item.path.stem, len(first)))


def pytest_xdist_auto_num_workers(config) -> int:
    """``-n auto``: one worker per core. Two per core ran the suite faster (218 s against 310 s on two
    cores), but then the dashboard's snapshot and loader tests, which wait on threads and processes of
    their own, found the machine oversubscribed and three of them failed in one run: a suite must
    answer the same however busy the machine is, so it does not load the machine past its cores."""
    return os.cpu_count() or 1
