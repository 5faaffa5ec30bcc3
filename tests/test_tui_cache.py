"""Loads you can see and need not repeat (docs/dashboard.md#the-cache-of-scored-runs): a reload shows the
first load's progress line, and reopening an unchanged run is served from the cache of scored runs,
never a changed one, never a corrupt or foreign cache file."""

from __future__ import annotations

import re
import threading

import numpy as np
import pytest

import tcsexam.scoring.pipeline.index as index_module
import tcsexam.tui.workers as workers_module  # the load worker calls load_state
from tcsexam.scoring.commands.main import main as cli_main
from tcsexam.tui.app import CHECKING, create_app
from tcsexam.tui.cache import SUFFIX, cache_folder, entry_path
from tcsexam.tui.loader import load_state_here
from tcsexam.tui.panes.coverage.pane import CoveragePane
from tcsexam.tui.panes.overview.pane import OverviewPane
from tcsexam.tui.state import DashboardConfig
from tests.support.dashboard import settle, wait_until

pytestmark = pytest.mark.dashboard

SIZES = {"80x24": (80, 24), "200x50": (200, 50)}


class CallCounter:
    """Counts the calls of ``owner.name`` (monkeypatched for the test) and keeps their arguments."""

    def __init__(self, monkeypatch, owner, name: str) -> None:
        self.calls = 0
        self.args: list[tuple] = []
        real = getattr(owner, name)

        def counted(*args, **kwargs):
            self.calls += 1
            self.args.append(args)
            return real(*args, **kwargs)

        monkeypatch.setattr(owner, name, counted)


class ScoreCounter(CallCounter):
    """Counts the calls of the scoring pipeline (scoring.pipeline.index.score_run)."""

    def __init__(self, monkeypatch) -> None:
        super().__init__(monkeypatch, index_module, "score_run")


def stored_runs() -> list:
    return sorted(cache_folder().glob(f"*{SUFFIX}"))


def without_time(document: dict) -> dict:
    return {**document, "provenance": {k: v for k, v in document["provenance"].items() if k != "generated_at"}}


def same_state(a, b) -> None:
    """Two states of a run hold the same document (but its time), plan, records used and columns."""
    assert without_time(a.document) == without_time(b.document)
    assert a.plan == b.plan
    assert a.checked.records_used == b.checked.records_used
    assert a.columns.keys() == b.columns.keys()
    for key, cols in a.columns.items():
        other = b.columns[key]
        for name in ("names", "status", "A", "mu", "s", "scale", "z", "phi"):
            assert np.array_equal(getattr(cols, name), getattr(other, name), equal_nan=name != "names"), (key, name)
        assert (cols.relative_score, cols.unscored) == (other.relative_score, other.unscored)


# --- the cache ----------------------------------------------------------------------------------------


def test_an_unchanged_run_is_reopened_from_the_cache_without_scoring(demo_copy, monkeypatch):
    fresh = load_state_here(DashboardConfig(run_dir=str(demo_copy), cache=False))
    assert not cache_folder().exists()  # --no-cache writes nothing
    first = load_state_here(DashboardConfig(run_dir=str(demo_copy)))
    assert len(stored_runs()) == 1
    counter = ScoreCounter(monkeypatch)
    again = load_state_here(DashboardConfig(run_dir=str(demo_copy)))
    assert counter.calls == 0
    same_state(again, fresh)
    same_state(first, fresh)
    assert again.document["provenance"]["content_sha256"] == fresh.document["provenance"]["content_sha256"]


def test_an_unchanged_packed_run_is_reopened_from_the_cache_without_scoring(demo_copy, monkeypatch, tmp_path):
    assert cli_main(["pack", str(demo_copy)]) == 0  # docs/formats.md#packed-records
    (demo_copy / "records").rename(tmp_path / "records-moved")
    fresh = load_state_here(DashboardConfig(run_dir=str(demo_copy), cache=False))
    load_state_here(DashboardConfig(run_dir=str(demo_copy)))
    counter = ScoreCounter(monkeypatch)
    again = load_state_here(DashboardConfig(run_dir=str(demo_copy)))
    assert counter.calls == 0
    same_state(again, fresh)


@pytest.mark.parametrize("edit", ["attempts", "records", "packed records"])
def test_a_changed_input_is_scored_again(demo_copy, monkeypatch, edit, tmp_path):
    if edit == "packed records":  # docs/formats.md#packed-records
        assert cli_main(["pack", str(demo_copy)]) == 0
        (demo_copy / "records").rename(tmp_path / "records-moved")
    load_state_here(DashboardConfig(run_dir=str(demo_copy)))
    if edit == "attempts":  # one byte: a theorem score of 1 becomes 0
        path = demo_copy / "attempts.csv"
        text = path.read_text()
        assert "atlas-70b,theorem,thm-sensitivity,1,1," in text
        path.write_text(
            text.replace("atlas-70b,theorem,thm-sensitivity,1,1,", "atlas-70b,theorem,thm-sensitivity,1,0,")
        )
    elif edit == "records":  # one byte more in one records file (a space: the same records, another file)
        path = sorted((demo_copy / "records").rglob("*.json"))[0]
        path.write_bytes(path.read_bytes() + b" ")
    else:  # one byte more in one line (a space: the same records, another file)
        path = demo_copy / "records.jsonl"
        data = path.read_bytes()
        assert data.startswith(b'{"model":')
        path.write_bytes(b'{"model": ' + data.removeprefix(b'{"model":'))
    counter = ScoreCounter(monkeypatch)
    shown = load_state_here(DashboardConfig(run_dir=str(demo_copy)))
    assert counter.calls == 1
    same_state(shown, load_state_here(DashboardConfig(run_dir=str(demo_copy), cache=False)))
    assert len(stored_runs()) == 2  # both versions kept (the most recent few)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "foreign"])
def test_a_corrupt_or_foreign_cache_file_is_ignored(demo_copy, tmp_path, monkeypatch, damage):
    import shutil

    load_state_here(DashboardConfig(run_dir=str(demo_copy)))
    (stored,) = stored_runs()
    if damage == "garbage":
        stored.write_bytes(b"\x93not a scored run")
    elif damage == "truncated":
        stored.write_bytes(stored.read_bytes()[:-100])
    else:  # a valid file of another run, under this run's name
        other = tmp_path / "other"
        shutil.copytree(demo_copy, other)
        path = other / "attempts.csv"
        path.write_text(path.read_text().replace("thm-sensitivity,1,1,", "thm-sensitivity,1,0,", 1))
        load_state_here(DashboardConfig(run_dir=str(other)))
        (theirs,) = [p for p in stored_runs() if p != stored]
        theirs.replace(stored)
    counter = ScoreCounter(monkeypatch)
    shown = load_state_here(DashboardConfig(run_dir=str(demo_copy)))
    assert counter.calls == 1
    same_state(shown, load_state_here(DashboardConfig(run_dir=str(demo_copy), cache=False)))
    counter.calls = 0
    load_state_here(DashboardConfig(run_dir=str(demo_copy)))  # written anew
    assert counter.calls == 0


def test_only_the_most_recent_runs_are_kept(demo_copy, monkeypatch):
    import tcsexam.tui.cache as cache_module

    monkeypatch.setattr(cache_module, "CACHE_KEEP", 2)
    path = demo_copy / "attempts.csv"
    text = path.read_text()
    versions = [text] + [text.replace(f"thm-sensitivity,{a},1,", f"thm-sensitivity,{a},0,") for a in (1, 2)]
    for version in versions:
        path.write_text(version)
        load_state_here(DashboardConfig(run_dir=str(demo_copy)))
    assert len(stored_runs()) == 2
    counter = ScoreCounter(monkeypatch)
    load_state_here(DashboardConfig(run_dir=str(demo_copy)))  # the last: kept
    path.write_text(versions[0])
    load_state_here(DashboardConfig(run_dir=str(demo_copy)))  # the first: dropped
    assert counter.calls == 1


@pytest.mark.parametrize(
    "env", [{"XDG_CACHE_HOME": "", "HOME": ""}, {"XDG_CACHE_HOME": "relative", "HOME": "also/relative"}]
)
def test_no_home_is_no_cache(demo_copy, monkeypatch, env):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert cache_folder() is None
    monkeypatch.chdir(demo_copy)
    counter = ScoreCounter(monkeypatch)
    load_state_here(DashboardConfig(run_dir=str(demo_copy)))
    load_state_here(DashboardConfig(run_dir=str(demo_copy)))
    assert counter.calls == 2
    assert not (demo_copy / "relative").exists() and not (demo_copy / "also").exists()


def test_the_cache_file_is_named_by_its_key_and_holds_no_pickle(demo_copy):
    load_state_here(DashboardConfig(run_dir=str(demo_copy)))
    (stored,) = stored_runs()
    data = stored.read_bytes()
    assert not data.startswith(b"\x80")  # a pickle's protocol byte
    key = stored.name.split(".")[0]
    assert entry_path(cache_folder(), key) == stored and key.encode() in data


def test_no_cache_is_a_flag_of_tui():
    from tcsexam.tui.cli import build_parser, config_from_args

    assert config_from_args(build_parser().parse_args(["tui", "--no-cache"])).cache is False
    assert config_from_args(build_parser().parse_args(["tui"])).cache is True


@pytest.mark.parametrize("size", SIZES)
async def test_a_cached_reopen_shows_the_same_screens_as_a_fresh_load(demo_copy, monkeypatch, size):
    screens = {}
    for label, config in (
        ("fresh", DashboardConfig(run_dir=str(demo_copy), cache=False)),
        ("first", DashboardConfig(run_dir=str(demo_copy))),
        ("cached", DashboardConfig(run_dir=str(demo_copy))),
    ):
        if label == "cached":
            counter = ScoreCounter(monkeypatch)
        app = create_app(config)
        shots = []
        async with app.run_test(size=SIZES[size]) as pilot:
            await settle(pilot)
            for key in "12345":
                await pilot.press(key)
                await settle(pilot)
                shots.append(re.sub(r"terminal-\d+", "terminal", app.export_screenshot()))  # an id per export
        screens[label] = shots
    assert counter.calls == 0
    assert screens["cached"] == screens["fresh"]
    assert screens["first"] == screens["fresh"]


# --- a reopen shows the cache's view at once, marked, while the inputs are checked ---------------------


def gate_the_check(monkeypatch) -> threading.Event:
    """The load worker's check of the inputs (tui.loader.load_state) waits until the event is set."""
    real = workers_module.load_state
    release = threading.Event()

    def load(config, progress=None, started=None, paths=None, let_go=None):
        assert release.wait(30), "the test never released the check"
        return real(config, progress, started, paths, let_go)

    monkeypatch.setattr(workers_module, "load_state", load)
    return release


def overview_rows(app) -> list[list[str]]:
    table = app.query_one("#overview-table")
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


async def fresh_overview(run_dir) -> list[list[str]]:
    """The Overview of the run scored from scratch (--no-cache): the numbers a checked reopen must show."""
    app = create_app(DashboardConfig(run_dir=str(run_dir), cache=False))
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        return overview_rows(app)


class OverviewFills(CallCounter):
    """Counts the Overview's fills (OverviewPane.show: its table cleared and filled anew)."""

    def __init__(self, monkeypatch) -> None:
        super().__init__(monkeypatch, OverviewPane, "show")


class Headers:
    """Every header the app sets (TcsexamApp._header), with whether a checked run was loaded then and how
    many rows the Overview showed."""

    def __init__(self, monkeypatch) -> None:
        from tcsexam.tui.app import TcsexamApp

        self.seen: list[tuple[bool, int, str]] = []
        real = TcsexamApp._header

        def header(app, width=None) -> None:
            real(app, width)
            self.seen.append((app.state is not None, len(overview_rows(app)), app.sub_title))

        monkeypatch.setattr(TcsexamApp, "_header", header)

    def unmarked_cached_views(self) -> list[str]:
        """Headers set while the Overview showed numbers of no checked run, without the mark."""
        return [title for loaded, rows, title in self.seen if not loaded and rows and CHECKING not in title]


async def marked_until_checked(pilot, app, headers: Headers) -> None:
    """Let the released check run to its end; until it has, every header set keeps the mark."""
    await wait_until(pilot, lambda: app.state is not None and not app.loading, "the check of the inputs")
    await settle(pilot)
    assert headers.unmarked_cached_views() == []
    assert any(CHECKING in title for _, _, title in headers.seen)


async def test_an_unchanged_reopen_shows_the_cached_overview_before_the_check_then_drops_the_mark(
    demo_copy, monkeypatch
):
    before = await fresh_overview(demo_copy)
    load_state_here(DashboardConfig(run_dir=str(demo_copy)))  # the first open stores the run
    release = gate_the_check(monkeypatch)
    counter, headers, fills = ScoreCounter(monkeypatch), Headers(monkeypatch), OverviewFills(monkeypatch)
    app = create_app(DashboardConfig(run_dir=str(demo_copy)))
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_until(pilot, lambda: len(overview_rows(app)) == len(before), "the cached Overview")
        await pilot.pause()
        assert not release.is_set() and app.state is None  # nothing checked yet
        assert overview_rows(app) == before
        assert app.sub_title.startswith(CHECKING)
        assert CHECKING in str(app.screen.query_one("HeaderTitle").render())  # on screen
        await pilot.press("2")  # Coverage waits for the check, and says what shows the run meanwhile
        coverage = app.main.query_one(CoveragePane)
        tabs = app.main.query_one("TabbedContent")
        await wait_until(pilot, lambda: coverage.loading and tabs.active == "coverage", "Coverage open, loading")
        note = app.load_note()  # what the loading panes show under their dots
        assert note.startswith(f"Checking {demo_copy.name} · ") and "the Overview (1) shows the run meanwhile" in note
        await pilot.press("1")
        release.set()
        await marked_until_checked(pilot, app, headers)
        assert app.load_note() == ""
        assert CHECKING not in app.sub_title
        assert overview_rows(app) == before
        # one copy of the run: the Overview reads the checked run's document, the cached view is let go
        assert app.screen.query_one(OverviewPane).document is app.state.document
    assert counter.calls == 0
    assert fills.calls == 1  # found unchanged: the cached view's rows stay (cursor, scroll), not filled again


async def test_a_reopen_shows_the_cached_overview_before_the_runs_inputs_are_even_located(demo_copy, monkeypatch):
    """Locating a run's inputs imports most of the scoring core: the cached view does not wait for it."""
    before = await fresh_overview(demo_copy)
    load_state_here(DashboardConfig(run_dir=str(demo_copy)))
    real, located = workers_module.resolve_paths, threading.Event()

    def resolve(config):
        assert located.wait(30), "the test never let the run be located"
        return real(config)

    monkeypatch.setattr(workers_module, "resolve_paths", resolve)
    headers = Headers(monkeypatch)
    app = create_app(DashboardConfig(run_dir=str(demo_copy)))
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_until(pilot, lambda: len(overview_rows(app)) == len(before), "the cached Overview")
        assert overview_rows(app) == before and app.sub_title.startswith(CHECKING) and app.state is None
        located.set()
        await marked_until_checked(pilot, app, headers)
        assert overview_rows(app) == before


def test_a_reopen_reads_the_head_of_the_cache_file_alone(demo_copy, monkeypatch):
    """The Overview's part of the document is first in the file with its length before it: a file cut
    right after it still gives the cached view, and is no stored run for the check."""
    from tcsexam.tui.cache import HEAD_LENGTH, overview_part, peek
    from tcsexam.tui.loader import peek_state

    config = DashboardConfig(run_dir=str(demo_copy))
    stored = load_state_here(config)
    (path,) = stored_runs()
    data = path.read_bytes()
    head = HEAD_LENGTH + int.from_bytes(data[:HEAD_LENGTH], "little")
    assert 0 < head < len(data)
    path.write_bytes(data[:head])
    assert without_time(peek(config)) == without_time(overview_part(stored.document))
    assert peek_state(config).document == peek(config)
    counter = ScoreCounter(monkeypatch)
    load_state_here(config)
    assert counter.calls == 1  # scored again, and stored whole
    path.write_bytes(data[: head - 1])  # a head cut short: nothing to show
    assert peek(config) is None
    path.write_bytes((10**12).to_bytes(HEAD_LENGTH, "little") + data[HEAD_LENGTH:])  # a length past the end
    assert peek(config) is None


@pytest.mark.parametrize("run", ["demo", "generated"])
def test_the_cached_views_part_of_the_document_gives_the_overview_of_the_whole(demo_copy, tmp_path, run):
    """The head holds only what the Overview reads (tui.cache.overview_part): its rows, status line and
    each row's detail line are those of the whole document."""
    from tcsexam.tui.loader import peek_state
    from tcsexam.tui.panes.overview.views import overview_detail, overview_rows, status_line
    from tests.bench.synth import write_run

    run_dir = demo_copy
    if run == "generated":  # 12 models of the Lite suite, two attempts each
        run_dir = tmp_path / "generated"
        write_run(run_dir, models=12, attempts=2, suite_name="lite")
    config = DashboardConfig(run_dir=str(run_dir))
    whole = load_state_here(config).document
    part = peek_state(config).document
    assert part != whole
    assert overview_rows(part) == overview_rows(whole)
    assert status_line(part) == status_line(whole)
    for row in overview_rows(whole):
        assert overview_detail(row, part) == overview_detail(row, whole)


@pytest.mark.parametrize("edit", ["attempts", "records"])
async def test_a_changed_input_is_rescored_and_the_cached_view_stays_marked_until_then(demo_copy, monkeypatch, edit):
    before = await fresh_overview(demo_copy)
    load_state_here(DashboardConfig(run_dir=str(demo_copy)))
    if edit == "attempts":  # a theorem score of 1 becomes 0: other numbers
        path = demo_copy / "attempts.csv"
        path.write_text(
            path.read_text().replace("atlas-70b,theorem,thm-sensitivity,1,1,", "atlas-70b,theorem,thm-sensitivity,1,0,")
        )
    else:  # one byte more in a records file: another file, scored again
        path = sorted((demo_copy / "records").rglob("*.json"))[0]
        path.write_bytes(path.read_bytes() + b" ")
    after = await fresh_overview(demo_copy)
    assert (after != before) == (edit == "attempts")
    release = gate_the_check(monkeypatch)
    counter, headers, fills = ScoreCounter(monkeypatch), Headers(monkeypatch), OverviewFills(monkeypatch)
    app = create_app(DashboardConfig(run_dir=str(demo_copy)))
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_until(pilot, lambda: len(overview_rows(app)) == len(before), "the cached Overview")
        await pilot.pause()
        assert overview_rows(app) == before  # what was stored, marked as not checked
        assert app.sub_title.startswith(CHECKING) and app.state is None
        release.set()
        await marked_until_checked(pilot, app, headers)
        assert CHECKING not in app.sub_title
        assert overview_rows(app) == after
    assert counter.calls == 1
    assert fills.calls == 2  # the cached view, then the checked run


async def test_without_the_cache_nothing_is_shown_before_the_run_is_scored(demo_copy, monkeypatch):
    load_state_here(DashboardConfig(run_dir=str(demo_copy)))  # stored, but --no-cache reads no cache
    release = gate_the_check(monkeypatch)
    app = create_app(DashboardConfig(run_dir=str(demo_copy), cache=False))
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_until(pilot, lambda: "loading" in app.sub_title, "the loading line")
        for _ in range(5):
            await pilot.pause()
        assert overview_rows(app) == [] and CHECKING not in app.sub_title
        release.set()
        await settle(pilot)
        assert overview_rows(app) and CHECKING not in app.sub_title


async def test_a_cached_view_whose_inputs_are_now_rejected_is_taken_down(demo_copy, monkeypatch):
    load_state_here(DashboardConfig(run_dir=str(demo_copy)))
    (demo_copy / "cohort.json").write_text("{")  # no longer a cohort
    release, headers = gate_the_check(monkeypatch), Headers(monkeypatch)
    app = create_app(DashboardConfig(run_dir=str(demo_copy)))
    async with app.run_test(size=(200, 50)) as pilot:
        await wait_until(pilot, lambda: overview_rows(app) != [], "the cached Overview")
        assert app.sub_title.startswith(CHECKING)
        release.set()
        await settle(pilot)
        assert CHECKING not in app.sub_title and app.state is None and app.problems
        assert overview_rows(app) == []
    assert headers.unmarked_cached_views() == []


# --- progress during a reload ----------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
async def test_a_reload_shows_the_loads_progress_line(monkeypatch, size):
    real = workers_module.load_state
    release = threading.Event()
    calls = []

    def load(config, progress=None, started=None, paths=None, let_go=None):
        calls.append(config)
        if len(calls) == 1:
            return real(config, progress, started, paths, let_go)
        progress("12 / 40 records files re-scored")
        release.wait(30)
        return real(config, progress, started, paths, let_go)

    monkeypatch.setattr(workers_module, "load_state", load)
    app = create_app(DashboardConfig())
    async with app.run_test(size=SIZES[size]) as pilot:
        await settle(pilot)
        assert "reloading" not in app.sub_title
        await pilot.press("r")
        await wait_until(
            pilot, lambda: re.search(r"reloading \d+ s · 12 / 40 records files re-scored", app.sub_title), "progress"
        )
        await pilot.pause()
        header = app.screen.query_one("HeaderTitle")
        # how far and how long first, right after the run's name and status: on screen at 80 columns too
        assert re.search(r"reloading \d+ s · 12 / 40", str(header.render())), str(header.render())
        release.set()
        await settle(pilot)
        assert "reloading" not in app.sub_title


def test_a_large_run_found_in_the_cache_is_read_without_a_loader_process(demo_copy, monkeypatch):
    import tcsexam.tui.loader as state_module

    monkeypatch.setattr(state_module, "is_large", lambda paths: True)
    config = DashboardConfig(run_dir=str(demo_copy))
    first = state_module.load_state(config)  # scored in a loader process, and stored
    assert first.run.reference is None  # what the loader process sends back

    def no_loader(*args, **kwargs):
        raise AssertionError("a loader process was started for a stored run")

    monkeypatch.setattr(state_module, "LoaderProcess", no_loader)
    counter = ScoreCounter(monkeypatch)
    again = state_module.load_state(config)
    assert counter.calls == 0
    same_state(again, first)
    (demo_copy / "attempts.csv").write_text((demo_copy / "attempts.csv").read_text().replace(",1,1,", ",1,0,", 1))
    with pytest.raises(AssertionError, match="a loader process was started"):  # changed: scored in a loader
        state_module.load_state(config)


# --- the stat index of a records folder: hash again only what changed (as git's index does) -----------


class HashCounter(CallCounter):
    """Counts the records files whose sha256 is taken (tui.stat_index.hashed)."""

    def __init__(self, monkeypatch) -> None:
        import tcsexam.tui.stat_index as stat_index

        super().__init__(monkeypatch, stat_index, "hashed")

    @property
    def paths(self) -> list[str]:
        return [args[0] for args in self.args]


def test_a_reopen_hashes_no_records_file_whose_stat_is_unchanged(demo_copy, monkeypatch):
    import tcsexam.tui.stat_index as stat_index

    monkeypatch.setattr(stat_index, "RACY_NS", 0)  # the files were written a moment ago
    files = sorted((demo_copy / "records").rglob("*.json"))
    first = load_state_here(DashboardConfig(run_dir=str(demo_copy)))
    hashes, scores = HashCounter(monkeypatch), ScoreCounter(monkeypatch)
    again = load_state_here(DashboardConfig(run_dir=str(demo_copy)))
    assert hashes.paths == [] and scores.calls == 0
    same_state(again, first)
    # one file rewritten with the same size and its mtime put back (as cp -p or touch -r would): its ctime
    # is new, so it is hashed again, and the run (another file's bytes) is scored again
    path = files[0]
    st = path.stat()
    data = path.read_bytes()
    path.write_bytes(data[:-1] + (b"\n" if data[-1:] != b"\n" else b" "))
    import os

    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert path.stat().st_size == st.st_size and path.stat().st_mtime_ns == st.st_mtime_ns
    load_state_here(DashboardConfig(run_dir=str(demo_copy)))
    assert hashes.paths == [str(path)] and scores.calls == 1


def test_a_records_file_changed_in_the_tick_it_was_hashed_in_is_hashed_again(demo_copy, monkeypatch):
    """docs/decisions.md#the-dashboard: a stored sha256 is trusted only when the file's ctime is more than
    2 s older than the hash; files written just before the first open are hashed on the next one too."""
    load_state_here(DashboardConfig(run_dir=str(demo_copy)))
    hashes = HashCounter(monkeypatch)
    load_state_here(DashboardConfig(run_dir=str(demo_copy)))
    assert len(hashes.paths) == len(list((demo_copy / "records").rglob("*.json")))


@pytest.mark.parametrize("damage", ["garbage", "another folder's"])
def test_a_damaged_or_foreign_stat_index_is_no_index(demo_copy, tmp_path, monkeypatch, damage):
    import shutil

    import tcsexam.tui.cache as cache_module
    import tcsexam.tui.stat_index as stat_index

    monkeypatch.setattr(stat_index, "RACY_NS", 0)
    other = tmp_path / "other"
    shutil.copytree(demo_copy, other)
    load_state_here(DashboardConfig(run_dir=str(other)))  # the other copy's index
    theirs = cache_module.stats_path(cache_folder(), other / "records")
    ours = cache_module.stats_path(cache_folder(), demo_copy / "records")
    ours.write_bytes(b"\x00garbage" if damage == "garbage" else theirs.read_bytes())
    hashes = HashCounter(monkeypatch)
    load_state_here(DashboardConfig(run_dir=str(demo_copy)))
    assert len(hashes.paths) == len(list((demo_copy / "records").rglob("*.json")))  # every file hashed


# --- each input read once per load -------------------------------------------------------------------


class Opens:
    """Counts the opens of one file, however they are made (os.open, open)."""

    def __init__(self, monkeypatch, path) -> None:
        import builtins
        import os

        self.count = 0
        target = os.path.realpath(path)
        real_os_open, real_open = os.open, builtins.open

        def same(file) -> bool:
            return isinstance(file, (str, os.PathLike)) and os.path.realpath(file) == target

        def os_open(file, *args, **kwargs):
            self.count += same(file)
            return real_os_open(file, *args, **kwargs)

        def open_(file, *args, **kwargs):
            self.count += same(file)
            return real_open(file, *args, **kwargs)

        monkeypatch.setattr(os, "open", os_open)
        monkeypatch.setattr(builtins, "open", open_)


class Resolutions(CallCounter):
    """Counts the resolutions of a run's input paths (scoring.pipeline.run.paths_named)."""

    def __init__(self, monkeypatch) -> None:
        import tcsexam.scoring.pipeline.run as run_module

        super().__init__(monkeypatch, run_module, "paths_named")


@pytest.mark.parametrize("large", [False, True], ids=["small", "large"])
@pytest.mark.parametrize("open_", ["first", "reopen"])
def test_a_load_reads_cohort_json_once_and_resolves_the_run_once(demo_copy, monkeypatch, large, open_):
    import tcsexam.tui.loader as state_module

    if large:  # read in the dashboard's process once stored (tui.loader.load_state), else in a loader process
        monkeypatch.setattr(state_module, "is_large", lambda paths: True)
    config = DashboardConfig(run_dir=str(demo_copy))
    if open_ == "reopen":
        load_state_here(config)
    opens, resolutions, posted = Opens(monkeypatch, demo_copy / "cohort.json"), Resolutions(monkeypatch), []

    def post(message) -> None:  # as the app does: a cached view is drawn at once (else the check waits for it)
        posted.append(message)
        if getattr(message, "drawn", None) is not None:
            message.drawn.set()

    workers_module.load_run(config, "start", 1, 0, post, workers_module.Loaders(), lambda: True)
    assert [type(m).__name__ for m in posted][-1] == "StateLoaded"
    assert ("CachedShown" in [type(m).__name__ for m in posted]) == (open_ == "reopen")
    assert resolutions.calls == 1
    assert opens.count == (0 if large and open_ == "first" else 1)  # a first large load reads it in the loader


class Headless:
    """Stands for the app the console script runs: the real one, run headless until its run is loaded."""

    def __init__(self, app) -> None:
        self.app, self.return_code = app, 0

    def run(self, loop=None) -> None:
        import asyncio

        async def drive() -> None:
            async with self.app.run_test(size=(120, 40)) as pilot:
                await settle(pilot)
                await wait_until(pilot, lambda: self.app.state is not None, "the run loaded")

        asyncio.run(drive())


@pytest.mark.parametrize(("large", "open_"), [(False, "first"), (False, "reopen"), (True, "reopen")])
def test_a_dashboard_start_reads_cohort_json_once_and_resolves_the_run_once(demo_copy, monkeypatch, large, open_):
    """``tcsexam tui RUN_DIR`` from the command line to the run on screen: the check made before the
    dashboard opens (the synthetic sample's rule, exit 2) and the first load share one resolution of the
    run's paths and one read of its cohort.json."""
    import tcsexam.tui.app as app_module
    import tcsexam.tui.heap as heap_module
    import tcsexam.tui.loader as loader_module
    from tcsexam.tui.cli import main

    if large:  # a stored large run is read in the dashboard's process (tui.loader.load_state)
        monkeypatch.setattr(loader_module, "is_large", lambda paths: True)
    if open_ == "reopen":
        load_state_here(DashboardConfig(run_dir=str(demo_copy)))
    monkeypatch.setattr(heap_module, "map_large_blocks", lambda: False)  # a switch of the whole process
    apps: list = []
    real = app_module.create_app
    monkeypatch.setattr(
        app_module, "create_app", lambda config, **kw: apps.append(Headless(real(config, **kw))) or apps[-1]
    )
    opens, resolutions = Opens(monkeypatch, demo_copy / "cohort.json"), Resolutions(monkeypatch)
    assert main(["tui", str(demo_copy)]) == 0
    [app] = apps
    assert app.app.state is not None and app.app.problems == []
    assert opens.count == 1
    assert resolutions.calls == 1


def test_the_loader_process_uses_the_cohort_read_before_the_dashboard_opened(demo_copy, monkeypatch):
    """A first load in a loader process gets the run's paths with the cohort already read, as pickled
    across to it, and reads the file no more (tui.loader.load_compact_state)."""
    import pickle

    import tcsexam.scoring.pipeline.run as run_module
    from tcsexam.tui.loader import load_compact_state, taken_back
    from tcsexam.tui.state import resolve_paths

    config = DashboardConfig(run_dir=str(demo_copy))
    ahead = run_module.read_cohort_ahead(resolve_paths(config))
    crossed = pickle.loads(pickle.dumps(ahead))  # what the loader process receives
    assert crossed.cohort_read is not None and crossed.cohort_read.watch is None
    opens = Opens(monkeypatch, demo_copy / "cohort.json")
    state = taken_back(iter(load_compact_state(config, paths=crossed)))
    assert opens.count == 0
    assert sorted(state.document["models"]) == sorted(ahead.cohort_read.cohort.models)
    assert state.run.paths.cohort_read is None  # the read is not kept once used


def test_a_cohort_read_ahead_is_not_used_when_the_run_folder_was_replaced_since(demo_copy, tmp_path):
    """docs/safety.md#a-run-folder-moved-while-it-is-read: a cohort read before the run folder was
    replaced by another is not the new folder's; the load reads the new folder's own."""
    import json
    import shutil

    import tcsexam.scoring.pipeline.run as run_module
    from tcsexam.tui.state import resolve_paths

    ahead = run_module.read_cohort_ahead(resolve_paths(DashboardConfig(run_dir=str(demo_copy))))
    other = tmp_path / "other"
    shutil.copytree(demo_copy, other)
    cohort = json.loads((other / "cohort.json").read_text())
    dropped = sorted(cohort["models"])[0]
    del cohort["models"][dropped]
    (other / "cohort.json").write_text(json.dumps(cohort))
    demo_copy.rename(tmp_path / "old")
    other.rename(demo_copy)
    run = run_module.load_run(ahead)
    assert dropped not in run.cohort.models and dropped in ahead.cohort_read.cohort.models


def test_the_check_of_the_records_files_says_how_far_it_is_the_count_first(demo_copy):
    """docs/dashboard.md#reloads-and-rejected-input: while the records files are checked (to look for the
    run in the cache: 26 s at 2,000 models in a review, cut at 120 columns before any count), the progress
    line starts with how many are checked of how many."""
    files = [p for p in (demo_copy / "records").rglob("*") if p.is_file()]
    heard: list[str] = []
    load_state_here(DashboardConfig(run_dir=str(demo_copy)), progress=heard.append)
    checks = [line for line in heard if "records files checked" in line]
    assert (
        checks and checks[-1] == f"{len(files)} / {len(files)} records files checked (to look for the run in the cache)"
    )
    assert all(re.match(r"[\d,]+ / [\d,]+ records files checked", line) for line in checks), checks
