"""Memory that stays flat (docs/dashboard-large-runs.md#memory-over-reloads): reloading a run of many
models leaves the dashboard's live Python memory where the first open left it, however often ``r`` is
pressed. What a reload replaces dies in reference cycles, and the heap the first load froze
(tui/heap.py) must not keep it."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import threading
import tracemalloc

import pytest

from tcsexam.tui.app import STEPPED_FROM, create_app
from tcsexam.tui.state import DashboardConfig
from tests.bench.synth import write_cohort
from tests.support.dashboard import notifications, open_instances, settle, wait_until

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


GLIBC = (getattr(os, "confstr", lambda name: None)("CS_GNU_LIBC_VERSION") or "").startswith("glibc")

BLOCKS = """
import ctypes, sys
from tcsexam.tui.heap import map_large_blocks

class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]

libc = ctypes.CDLL(None)
libc.mallinfo2.restype = MallInfo2
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
if sys.argv[1] == "mapped":
    assert map_large_blocks()
size = 4 * 2**20
libc.free(libc.malloc(size))  # a large block freed
block = libc.malloc(size)  # the next one of its size: in a mapping of its own, or in the heap
print(libc.mallinfo2().hblkhd >= size)
libc.free(block)
"""


@pytest.mark.skipif(not GLIBC, reason="the C allocator's setting is glibc's")
@pytest.mark.parametrize(("setting", "own_mapping"), [("default", False), ("mapped", True)])
def test_large_blocks_keep_their_own_mapping_after_one_was_freed(setting, own_mapping):
    """docs/performance.md#memory: with ``map_large_blocks`` a large block freed goes back to the system,
    however many were freed before; glibc's default, once one is freed, serves the next of that size
    from its heap (what a reload frees there stays resident). Run in a fresh process: the setting is the
    process's."""
    proc = subprocess.run([sys.executable, "-c", BLOCKS, setting], capture_output=True, text=True, check=False)
    if "mallinfo2" in proc.stderr:
        pytest.skip("glibc before 2.33 has no mallinfo2")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [str(own_mapping)]


def test_the_console_script_sets_the_allocator_before_the_dashboard_opens(monkeypatch, tmp_path):
    """``tcsexam tui`` calls ``map_large_blocks`` once, before the app is made."""
    import tcsexam.tui.app as app_module
    import tcsexam.tui.heap as heap_module
    from tcsexam.tui.cli import main

    calls: list[str] = []

    class FakeApp:
        return_code = 0

        def run(self, **kwargs: object) -> None:  # the console script passes its own event loop
            calls.append("run")

    monkeypatch.setattr(heap_module, "map_large_blocks", lambda: calls.append("map") or True)
    monkeypatch.setattr(app_module, "create_app", lambda config, **kw: calls.append("app") or FakeApp())
    assert main(["tui"]) == 0  # the bundled demo
    assert calls == ["map", "app", "run"]


# --- a large run's reload lets go of the run shown before the new one is decoded -------------------------


def watch_decodes(monkeypatch, refs: list) -> list[list[bool]]:
    """For each decode of a scored run's bulk (tui/cache.py ``decode_run``, from the cache or from a loader
    process), which of the weak references in ``refs`` still reach their object when it starts."""
    import tcsexam.tui.cache as cache_module
    import tcsexam.tui.loader as loader_module

    seen: list[list[bool]] = []
    real = cache_module.decode_run

    def decode(data, key):
        seen.append([ref() is not None for ref in refs])
        return real(data, key)

    monkeypatch.setattr(cache_module, "decode_run", decode)
    monkeypatch.setattr(loader_module, "decode_run", decode)
    return seen


@pytest.mark.parametrize("cache", [True, False], ids=["from-the-cache", "from-a-loader-process"])
async def test_a_reload_of_a_large_run_lets_go_of_the_run_shown_before_the_new_one_is_decoded(
    large_demo, monkeypatch, cache
):
    """docs/dashboard-large-runs.md#memory-over-reloads: once the reloaded inputs have passed their checks,
    the state shown, the per-instance columns the Instances pane drew and everything they hold are gone
    (collected, not only dropped) before the new run is decoded, so that the new run is not laid out in
    the gaps of the old one. The reload itself is what the first open showed, and the keyboard is where
    it was."""
    import weakref

    refs: list = []
    seen = watch_decodes(monkeypatch, refs)
    app = create_app(DashboardConfig(run_dir=str(large_demo), cache=cache))
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        pane = await open_instances(pilot, "tsp-concorde")
        assert pane.key == ("atlas-70b", "tsp-concorde", "1") and pane._histogram_of is not None
        old = app.state
        focused = app.main.focused
        assert focused is not None
        refs += [weakref.ref(old), weakref.ref(pane.columns.phi)]
        first_document = old.document
        del old
        decodes = len(seen)
        await pilot.press("r")
        await settle(pilot)
        assert seen[decodes:] == [[False, False]]
        assert app.state is not None and app.state.document["models"] == first_document["models"]
        assert pane.key == ("atlas-70b", "tsp-concorde", "1")
        assert app.main.focused is focused  # the keys go where they went before the reload


async def test_a_reload_of_a_large_run_whose_inputs_are_rejected_keeps_the_run_shown(large_demo):
    """The run shown is let go only once the new inputs have passed every check: rejected ones leave it
    shown, marked stale (docs/dashboard.md)."""
    app = create_app(DashboardConfig(run_dir=str(large_demo)))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        old = app.state
        csv = large_demo / "attempts.csv"
        csv.write_text(csv.read_text().replace("selected,valid", "selected,bogus", 1))
        await pilot.press("r")
        await settle(pilot)
        assert app.state is old and app.sub_title.startswith("STALE: inputs rejected at ")


@pytest.mark.parametrize("tab", ["1", "2", "5"])  # the panes whose focused part an emptied pane hides
async def test_a_reload_of_a_large_run_leaves_the_keyboard_where_it_was(large_demo, tab):
    """The panes a let-go empties are filled again, and the widget that had the keyboard has it again."""
    app = create_app(DashboardConfig(run_dir=str(large_demo)))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press(tab)
        await settle(pilot)
        focused = app.main.focused
        assert focused is not None
        await pilot.press("r")
        await settle(pilot)
        assert not app.loading and app.main.focused is focused


async def test_a_large_runs_reload_keeps_the_overviews_horizontal_scroll(large_demo, monkeypatch):
    """The let-go empties the Overview's table: the column it showed first is shown first again."""
    armed, gate = gate_decodes(monkeypatch)
    app = create_app(DashboardConfig(run_dir=str(large_demo)))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.main.query_one("#overview-table")
        for _ in range(3):
            await pilot.press("right")
        await settle(pilot)
        edges = table.column_edges()
        assert table.scroll_x == edges[3] > 0
        armed.set()
        await pilot.press("r")
        await wait_until(pilot, lambda: app.state is None, "the run shown let go")
        assert not table.columns  # emptied
        gate.set()
        await settle(pilot)
        assert not app.loading and table.column_edges() == edges and table.scroll_x == edges[3]


async def test_a_tab_opened_while_a_large_run_is_decoded_keeps_the_keyboard(large_demo, monkeypatch):
    """The keyboard goes back where it was only if its tab is still the one open."""
    import threading

    import tcsexam.tui.cache as cache_module
    import tcsexam.tui.loader as loader_module

    gate, armed = threading.Event(), threading.Event()
    real = cache_module.decode_run

    def decode(data, key):
        if armed.is_set():
            assert gate.wait(30), "the test never let the decode go on"
        return real(data, key)

    monkeypatch.setattr(cache_module, "decode_run", decode)
    monkeypatch.setattr(loader_module, "decode_run", decode)
    app = create_app(DashboardConfig(run_dir=str(large_demo)))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        overview = app.main.focused
        assert overview is not None and overview.id == "overview-table"
        armed.set()
        await pilot.press("r")
        await wait_until(pilot, lambda: app.state is None, "the run shown let go")
        await pilot.press("2")
        await wait_until(pilot, lambda: app.main.query_one("TabbedContent").active == "coverage", "Coverage open")
        gate.set()
        await settle(pilot)
        assert app.state is not None and app.main.query_one("TabbedContent").active == "coverage"
        assert app.main.focused is not None and app.main.focused.id == "coverage-grid"


def gate_decodes(monkeypatch) -> tuple[threading.Event, threading.Event]:
    """(armed, gate): once ``armed`` is set, the next decode of a scored run's bulk waits for ``gate``."""
    import tcsexam.tui.cache as cache_module
    import tcsexam.tui.loader as loader_module

    armed, gate = threading.Event(), threading.Event()
    real = cache_module.decode_run

    def decode(data, key):
        if armed.is_set():
            armed.clear()
            assert gate.wait(30), "the test never let the decode go on"
        return real(data, key)

    monkeypatch.setattr(cache_module, "decode_run", decode)
    monkeypatch.setattr(loader_module, "decode_run", decode)
    return armed, gate


async def test_export_while_a_large_run_is_decoded_says_so_and_writes_nothing(large_demo, monkeypatch, tmp_path):
    """``e`` while the run is let go, and a stale view's export question answered after a reload let it go:
    "being reloaded", nothing written, the dashboard still up."""
    from tcsexam.tui.screens.confirm import ConfirmScreen

    out = tmp_path / "out" / "index.json"
    armed, gate = gate_decodes(monkeypatch)
    app = create_app(DashboardConfig(run_dir=str(large_demo), output=str(out)))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        csv = large_demo / "attempts.csv"
        good = csv.read_text()
        csv.write_text(good.replace("selected,valid", "selected,bogus", 1))
        await pilot.press("r")
        await settle(pilot)
        assert app.stale
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the stale export's question")
        csv.write_text(good)
        armed.set()
        app.action_reload()  # as --watch does
        await wait_until(pilot, lambda: app.state is None, "the run shown let go")
        await pilot.press("y")
        await wait_until(pilot, lambda: not isinstance(app.screen, ConfirmScreen), "the question answered")
        await pilot.press("e")
        await pilot.pause()
        said = notifications(app)
        assert said[-2:] == ["Nothing to export yet: the run is being reloaded; export it once it is shown."] * 2
        gate.set()
        await settle(pilot)
        assert app.state is not None and not app.stale and not out.exists()


async def test_a_newer_reload_rejected_while_a_let_go_run_is_decoded_shows_that_run_stale(large_demo, monkeypatch):
    """--watch: a reload lets go of the run shown, then the file changes again and the newer reload is
    rejected while the first one decodes: the first one's run, good, is shown, marked stale."""
    armed, gate = gate_decodes(monkeypatch)
    app = create_app(DashboardConfig(run_dir=str(large_demo)))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        armed.set()
        app.action_reload()
        await wait_until(pilot, lambda: app.state is None, "the run shown let go")
        csv = large_demo / "attempts.csv"
        csv.write_text(csv.read_text().replace("selected,valid", "selected,bogus", 1))
        app.action_reload()
        await wait_until(pilot, lambda: not app.shown.loading, "the newer load rejected")
        gate.set()
        await settle(pilot)
        assert app.state is not None and app.sub_title.startswith("STALE: inputs rejected at ")


@pytest.mark.parametrize("cache", [True, False], ids=["from-the-cache", "from-a-loader-process"])
async def test_a_newer_reload_right_after_the_let_go_still_shows_the_run_let_go(large_demo, monkeypatch, cache):
    """A newer reload handled between the app letting go of the run shown and the older load going on to
    decode it (a second ``r`` within milliseconds): the older load is not stopped, its run is decoded and
    shown, and stays, marked stale, when the newer one is rejected; before, the run shown was gone."""
    import tcsexam.tui.workers as workers_module

    real, armed = workers_module.wait_for_app, threading.Event()
    csv = large_demo / "attempts.csv"
    app = create_app(DashboardConfig(run_dir=str(large_demo), cache=cache))

    def wait(done, loaders):
        real(done, loaders)
        if armed.is_set() and app.state is None:  # the app has just let go: the newer reload comes now
            armed.clear()
            csv.write_text(csv.read_text().replace("selected,valid", "selected,bogus", 1))
            app.call_from_thread(app.action_reload)

    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        monkeypatch.setattr(workers_module, "wait_for_app", wait)
        armed.set()
        app.action_reload()
        await wait_until(pilot, lambda: not armed.is_set(), "the newer reload asked for after the let-go")
        await wait_until(pilot, lambda: app.state is not None, "the run let go, shown again", timeout=60)
        await settle(pilot)
        assert not app.shown.loading and app.sub_title.startswith("STALE: inputs rejected at ")
        assert app.state.document["models"] and not app.loaders.running()


async def test_a_loader_process_killed_after_the_let_go_is_a_failed_load_not_a_blank(large_demo, monkeypatch):
    """A loader process that dies (the out-of-memory killer) once the run shown was let go: the load
    fails, saying so, instead of loading for ever."""
    import tcsexam.tui.workers as workers_module

    real, armed = workers_module.wait_for_app, threading.Event()

    def wait(done, loaders):
        real(done, loaders)
        if armed.is_set():
            armed.clear()
            for loader in loaders.running():
                loader.process.kill()
                loader.process.join()

    app = create_app(DashboardConfig(run_dir=str(large_demo), cache=False))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        monkeypatch.setattr(workers_module, "wait_for_app", wait)
        armed.set()
        await pilot.press("r")
        await wait_until(pilot, lambda: not app.shown.loading, "the load ended", timeout=60)
        assert app.state is None and "the loader process ended" in (app.problems_text or "")
