"""Memory that stays flat (docs/dashboard-large-runs.md#memory-over-reloads): reloading a run of many
models leaves the dashboard's live Python memory where the first open left it, however often ``r`` is
pressed. What a reload replaces dies in reference cycles, and the heap the first load froze
(tui/heap.py) must not keep it."""

from __future__ import annotations

import gc
import tracemalloc

import pytest

from tcsexam.tui.app import STEPPED_FROM, create_app
from tcsexam.tui.state import DashboardConfig
from tests.bench.synth import write_cohort
from tests.support.dashboard import settle, wait_until

pytestmark = pytest.mark.dashboard

MODELS = STEPPED_FROM + 10  # a run of many models: its panes are shown one by one, its heap settled later
RELOADS = 5


@pytest.fixture(autouse=True)
def unfrozen():
    yield
    gc.unfreeze()


async def quiet(pilot, app) -> None:
    """Let the dashboard run until it has nothing left to do after a load (no load, no settle of the heap
    owed or waited for): what is measured then is what stays. Waits for that state, never for a time."""
    await wait_until(
        pilot,
        lambda: not app.loading and app._pause_timer is None and app.heap.piecemeal == 0,
        "the dashboard quiet after a load (no settle of the heap owed)",
        timeout=120.0,
    )


async def test_five_reloads_of_a_run_of_many_models_keep_the_memory_of_the_first_open(tmp_path):
    write_cohort(tmp_path / "c", models=MODELS)
    config = DashboardConfig(run_dir=str(tmp_path / "c" / "run"), benchmark=str(tmp_path / "c" / "bench"))
    app = create_app(config)
    tracemalloc.start()
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await quiet(pilot, app)
            first = tracemalloc.get_traced_memory()[0]
            after = []
            for _ in range(RELOADS):
                await pilot.press("r")
                await settle(pilot)
                await quiet(pilot, app)
                after.append(tracemalloc.get_traced_memory()[0])
    finally:
        tracemalloc.stop()
    mb = [round(n / 2**20, 1) for n in (first, *after)]
    assert after[-1] <= first * 1.10, f"live memory (MB) after the first open, then after each reload: {mb}"
