"""What the dashboard shows, loaded through the scoring core (never recomputed here).

Everything in this module runs in thread workers, and a run is loaded in a
loader process (``load_state``); it imports the scoring core lazily so that the
first frame does not wait for scipy and pydantic.
"""

from __future__ import annotations

import contextlib
import functools
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from .cache import RunCache, peek, restamped, stored_before
from .columns import STATUS_CODES as STATUS_CODES
from .columns import DecodedNames, InstanceColumns, columns_from_score, instance_columns

if TYPE_CHECKING:
    from tcsexam.scoring.stats.differences import InstanceDifference


@dataclass
class DashboardConfig:
    """Command-line options of ``tcsexam tui`` (docs/commands.md)."""

    run_dir: str | None = None
    attempts: str | None = None
    cohort: str | None = None
    records: str | None = None
    benchmark: str | None = None
    suite: str | None = None
    output: str | None = (
        None  # --output; None: each run's RUN_DIR/build/index.json, as `tcsexam score` (export.default_output)
    )
    watch: bool = False
    tau2: str | None = None
    thresholds: dict[str, float] = field(default_factory=dict)
    isolate: bool | None = None  # load in a loader process: None = when the run is large (state.is_large)
    more_runs: list[str] = field(default_factory=list)  # the RUN_DIRs after the first (`tcsexam tui A B ...`)
    cache: bool = True  # reopen an unchanged run from the cache of scored runs (tui/cache.py); --no-cache


def run_configs(config: DashboardConfig) -> list[DashboardConfig]:
    """One configuration per run the dashboard opens (docs/commands.md ``tcsexam tui RUN_DIR...``): the first is
    ``config`` itself; each further RUN_DIR takes the shared options (suite, benchmark, thresholds) and
    never the per-run file overrides, which the command line allows with a single RUN_DIR only."""
    import dataclasses

    others = [
        dataclasses.replace(config, run_dir=d, attempts=None, cohort=None, records=None, tau2=None, more_runs=[])
        for d in config.more_runs
    ]
    return [config, *others]


def run_name(config: DashboardConfig) -> str:
    """A run's short name for the header, the switcher and the Leaderboard: its folder's name (the
    attempts file's when only --attempts names it); DEMO for the bundled demo. Data: show it as Text."""
    if uses_demo(config):
        return "DEMO"
    if config.run_dir:
        return Path(os.path.abspath(config.run_dir)).name or config.run_dir
    return config.attempts or config.cohort or "no run"


@dataclass(eq=False)
class RunSlot:
    """One run of the dashboard and what its last load left: the state shown (the last good one
    while newer inputs are rejected), the problems of the last rejection, and whether it is loading."""

    config: DashboardConfig
    state: DashboardState | None = None
    problems: list = field(default_factory=list)
    problems_text: str | None = None
    stale: dict | None = None  # {"at", "count", "loaded_at"} while the inputs on disk are rejected
    loaded_at: str | None = None
    loading: bool = False
    generation: int = 0
    progress: str = ""  # what the loader is reading now (while loading)
    load_started: float = 0.0  # time.monotonic() of the load's start
    # the scored run last stored for its place, shown at once while a reopen checks the inputs (marked
    # as such; ``state`` stays None until the check ends): tui.state.peek_state
    preview: DashboardState | None = None

    @property
    def name(self) -> str:
        return run_name(self.config)

    @property
    def source(self) -> str:
        """What the run is called where a file name is expected (the Leaderboard's sources, as
        ``tcsexam table`` names its INDEX_JSON files): the RUN_DIR as typed."""
        if uses_demo(self.config):
            return "DEMO"
        return self.config.run_dir or self.config.attempts or self.config.cohort or "no run"


@dataclass(repr=False, eq=False)
class DashboardState:
    """One successfully loaded run: the index document plus what the panes need to drill down.

    Its repr is one short line: Textual formats a worker's arguments with repr() on the UI
    thread, and the default repr of a run's numpy columns takes seconds.
    """

    document: dict
    run: Any  # scoring.pipeline.run.Run
    watched: list[Path]  # files whose change triggers a reload under --watch
    # (model, item, attempt) -> InstanceColumns of every attempt the records cross-check re-scored: the one
    # copy of the per-instance results, for the Instances pane and for Compare (checked.scores is this dict)
    columns: dict = field(default_factory=dict)
    relative_floor: float | None = None  # the reference's relative scale floor (for explanations)
    checked: Any = None  # scoring.pipeline.rules.Checked of the same score_run (compare, plan)
    plan: dict | None = None  # `tcsexam plan`'s document (r = 1..10, its default), no target

    demo: bool = False  # the bundled synthetic demo, not the user's run

    def __repr__(self) -> str:
        return f"<DashboardState {len(self.document['models'])} models, {len(self.columns)} attempts>"

    @property
    def models(self) -> list[str]:
        return list(self.document["models"])

    def solver_items(self) -> list[str]:
        return [t.item for t in self.run.suite.tasks if t.track == "solver"]

    def attempts_of(self, model: str, item: str) -> list:
        """Rows of the attempts table for one (model, item), in file order."""
        return self._attempt_rows.get((model, item), [])

    @functools.cached_property
    def _attempt_rows(self) -> dict[tuple[str, str], list]:
        """The attempts table's rows by (model, item), made once (a scan of 8,100 rows took 4 ms a ↓)."""
        rows: dict[tuple[str, str], list] = {}
        for r in self.run.attempts.rows:
            rows.setdefault((r.model, r.item), []).append(r)
        return rows

    def records_path(self, model: str, item: str, attempt: str) -> Path | None:
        """Where the attempt's records file is (docs/safety.md: found only through the run's RecordsRoot),
        None when there is nothing there; what is there is checked when it is read."""
        root = self.run.records_root
        if root is None:
            return None
        path = root.path(model, item, attempt)
        return Path(path) if root.exists(path) else None


def uses_demo(config: DashboardConfig) -> bool:
    """No run named on the command line (and no --tau2 file): the bundled synthetic demo is shown."""
    return not (config.run_dir or (config.attempts and config.cohort)) and not config.tau2


def has_run(config: DashboardConfig) -> bool:
    """Whether tabs 1-5 have a run to show: one named, or the demo when nothing at all was named."""
    return bool(config.run_dir or (config.attempts and config.cohort) or config.attempts or config.cohort) or uses_demo(
        config
    )


def resolve_paths(config: DashboardConfig):
    """The run's input paths by the command line's own rule (scoring.pipeline.run.paths_named, docs/formats.md and docs/commands.md)."""
    from tcsexam.scoring.pipeline.benchmark import demo_run
    from tcsexam.scoring.pipeline.run import paths_named

    return paths_named(config, demo_run() if uses_demo(config) else None)


def watched_files(paths) -> list[Path]:
    files = [paths.attempts, paths.cohort]
    if paths.records is not None:
        files.append(paths.records)
    return files


LARGE_INPUT_BYTES = 32 * 2**20


def input_bytes(paths) -> int:
    """Bytes of the run's own files (attempts, cohort, records)."""
    total = 0
    for p in watched_files(paths):
        with contextlib.suppress(OSError):
            total += sum(f.stat().st_size for f in p.rglob("*") if f.is_file()) if p.is_dir() else p.stat().st_size
    return total


def is_large(paths) -> bool:
    """Whether a run's load could hold the dashboard's interpreter for long: its files (attempts, cohort,
    records) over LARGE_INPUT_BYTES, or an attempts table over LARGE_ATTEMPTS_BYTES (about 2,500 rows:
    scoring a few hundred models takes seconds)."""
    with contextlib.suppress(OSError):
        if Path(paths.attempts).stat().st_size > LARGE_ATTEMPTS_BYTES:
            return True
    return input_bytes(paths) > LARGE_INPUT_BYTES


LARGE_ATTEMPTS_BYTES = 256 * 2**10


def load_state(config: DashboardConfig, progress=None, started=None, paths=None) -> DashboardState:
    """Load and score a run (raises scoring.errors.InputError on rejected input); ``progress(text)`` hears
    what is being read; ``paths``: the run's input paths when already resolved (``resolve_paths``). A large run (``is_large``; ``config.isolate`` True: any run) is loaded in a loader
    process (``LoaderProcess``), given to ``started(loader)`` (the dashboard stops it when it quits); a
    small one here (it takes about a second, and a loader process would add one for its imports)."""
    paths = paths if paths is not None else resolve_paths(config)
    if config.isolate is False or (config.isolate is None and not is_large(paths)):
        return load_state_here(config, paths, progress)
    stored = config.isolate is None and config.cache and stored_before(paths, config.thresholds)
    if stored and (state := load_cached_here(config, paths, progress)):  # stored unchanged: no loader process
        return state
    with LoaderProcess(config) as loader:
        if started is not None:
            started(loader)
        return loader.result(progress)


class LoaderGone(Exception):
    """The loader process ended without a result (stopped, or killed)."""


class LoaderProcess:
    """``load_compact_state`` in a fresh (spawned) process, so that scoring a run never holds the
    dashboard's interpreter: the UI answers keys while it works, and ``stop`` ends it at once (q during a
    load). It reports progress lines, then sends the state back pickled; the state is unpickled here
    from a reader that lets other threads run between its frames (``yielding_loads``). The process also
    ends by itself when the dashboard's process is gone (``watch_parent``)."""

    def __init__(self, config: DashboardConfig, target=None) -> None:
        import multiprocessing

        start_resource_tracker()
        context = multiprocessing.get_context("spawn")
        self._pipe, child_end = context.Pipe(duplex=False)
        self.process = context.Process(
            target=loader_main,
            args=(target or load_compact_state, config, child_end, os.getpid()),
            name="tcsexam-loader",
            daemon=True,  # multiprocessing ends it at the interpreter's exit, should nothing else have
        )
        self.process.start()
        child_end.close()

    def __enter__(self) -> LoaderProcess:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def result(self, progress=None) -> DashboardState:
        """Wait for the state (``progress(text)`` for each progress line); raises the loader's InputError or
        UsageError, a RuntimeError for its internal error, LoaderGone when it ended without a result."""
        from tcsexam.scoring.errors import InputError, UsageError

        try:
            while True:
                try:
                    kind, payload = self._pipe.recv()
                    if kind == "state":
                        if progress is not None:
                            progress(f"receiving the scored run ({payload / 2**20:.1f} MB)")
                        return yielding_loads(self._pipe.recv_bytes())
                except (EOFError, OSError):
                    raise LoaderGone(f"the loader process ended (exit code {self.process.exitcode})") from None
                if kind == "progress":
                    if progress is not None:
                        progress(payload)
                elif kind == "rejected":
                    raise InputError(payload)
                elif kind == "usage":
                    raise UsageError(payload)
                else:
                    raise RuntimeError(payload)
        finally:
            self._pipe.close()

    def stop(self) -> None:
        """End the process (at once if it is still working) and wait for it; a thread waiting in
        ``result`` then gets LoaderGone."""
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)


def loader_main(target, config: DashboardConfig, pipe, parent: int) -> None:
    """The loader process: ``target(config, progress)``, its progress lines and its result sent on ``pipe``."""
    import pickle

    from tcsexam.scoring.errors import InputError, UsageError

    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    watch_parent(parent)
    try:
        state = target(config, lambda text: pipe.send(("progress", text)))
        data = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
    except InputError as exc:
        pipe.send(("rejected", list(exc.problems)))
        return
    except UsageError as exc:
        pipe.send(("usage", str(exc)))
        return
    except Exception as exc:  # a bug: reported by the dashboard as an internal error
        pipe.send(("failed", f"{type(exc).__name__}: {exc}"))
        return
    pipe.send(("state", len(data)))
    pipe.send_bytes(data)


def watch_parent(parent: int) -> None:
    """End this process as soon as ``parent`` is no longer its parent (the dashboard was killed)."""
    import threading
    import time

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.2)
        os._exit(1)

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()


class _YieldingReader:
    """A file over bytes whose reads run Python code and give up the interpreter lock: the C unpickler
    reads one frame (64 KiB) at a time, so another thread waits at most one frame's worth of objects."""

    def __init__(self, data: bytes) -> None:
        import time

        self._data = memoryview(data)
        self._at = 0
        self._sleep = time.sleep

    def read(self, n: int = -1) -> bytes:
        self._sleep(0)
        end = len(self._data) if n < 0 else min(len(self._data), self._at + n)
        out = self._data[self._at : end].tobytes()
        self._at = end
        return out

    def readinto(self, buffer) -> int:
        out = self.read(len(buffer))
        buffer[: len(out)] = out
        return len(out)

    def readline(self) -> bytes:
        end = bytes(self._data[self._at : self._at + 4096]).find(b"\n")
        return self.read(-1 if end < 0 else end + 1)


def yielding_loads(data: bytes):
    """``pickle.loads`` that other threads (the dashboard's event loop) can interrupt between frames."""
    import pickle

    return pickle.Unpickler(_YieldingReader(data)).load()


def start_resource_tracker() -> None:
    """A spawned process needs multiprocessing's resource tracker, which is handed
    ``sys.stderr``'s file descriptor when it starts; inside the dashboard that is textual's
    capture, whose descriptor is -1. Start the tracker once with the real stderr."""
    import sys
    from multiprocessing import resource_tracker

    captured, sys.stderr = sys.stderr, sys.__stderr__
    try:
        resource_tracker.ensure_running()
    finally:
        sys.stderr = captured


def load_compact_state(config: DashboardConfig, progress=None) -> DashboardState:
    """``load_state_here`` without the reference, which is what crosses back from the loader process:
    the per-instance results are in ``state.columns`` (each task's names once, as one bytes array), so
    the dashboard never holds 10^6 instance names as Python strings. The reference is read again in the
    dashboard only if an attempt that was not cross-checked is opened."""
    state = load_state_here(config, progress=progress)
    state.run.reference = None
    return state


class CountingRecordsRoot:
    """The run's RecordsRoot, counting the records files read for the progress line."""

    def __init__(self, root, total: int, progress, then: str) -> None:
        import time

        self._root, self._total, self._progress, self._then = root, total, progress, then
        self._read, self._said, self._clock = 0, 0.0, time.monotonic

    def __getattr__(self, name: str):
        return getattr(self._root, name)

    def read_path(self, path: str):
        self._read += 1
        now = self._clock()
        if now - self._said >= 0.1 or self._read == self._total:
            self._said = now
            done = f"; then {self._then}" if self._read >= self._total else ""
            self._progress(f"{self._read:,} / {self._total:,} records files re-scored{done}")  # the count first
        return self._root.read_path(path)


def load_cached_here(config: DashboardConfig, paths, progress=None) -> DashboardState | None:
    """The run's state from the cache of scored runs, read in this process; None when it is not there."""
    return load_state_here(config, paths, progress, only_cached=True)


@overload
def load_state_here(config: DashboardConfig, paths=..., progress=...) -> DashboardState: ...
@overload
def load_state_here(config: DashboardConfig, paths, progress, only_cached: bool) -> DashboardState | None: ...
def load_state_here(config, paths=None, progress=None, only_cached=False):
    """Load and score a run in this process; ``progress(text)`` names each step and the files read. With
    ``only_cached``, None when the scored run is not in the cache (tui/cache.py), rather than scoring it."""
    from tcsexam.scoring.pipeline.index import score_run
    from tcsexam.scoring.pipeline.run import load_run
    from tcsexam.scoring.reports.plan import plan_document
    from tcsexam.scoring.stats.planning import DEFAULT_MAX_ATTEMPTS

    say = progress or (lambda text: None)
    paths = paths if paths is not None else resolve_paths(config)
    say(f"reading {Path(paths.attempts).name}, {Path(paths.cohort).name}, the suite and the reference")
    run = load_run(paths)
    cache = RunCache.for_run(run, config.thresholds, say) if config.cache else None
    found = cache.read() if cache is not None else None
    if found is not None and (state := state_from_cache(config, paths, run, found)) is not None:
        return state
    if only_cached:
        run.check_folders()
        return None
    models = len(run.cohort.models)
    rows = run.attempts.rows
    root = run.records_root
    ranking = f"scoring and ranking {models:,} models"
    say(f"read {len(rows):,} attempt rows; {ranking}")
    if root is not None:  # the records files are counted as the cross-check reads them
        solver = sum(
            r.track == "solver" and r.adopted and r.score is not None and r.score_status == "valid" for r in rows
        )
        run.records_root = CountingRecordsRoot(root, solver, say, ranking)  # type: ignore[assignment]
    try:
        document, checked = score_run(run, config.thresholds)
    finally:
        run.records_root = root
    if checked.scores:
        say(f"making the instance columns of {len(checked.scores):,} attempts")
    # one copy of the per-instance results: compare_run reads each re-scored attempt's phi from checked.scores
    checked.scores = instance_columns(checked.scores)
    say(f"planning attempts for {models:,} models")
    plan = plan_document(document, checked, DEFAULT_MAX_ATTEMPTS, None)
    if cache is not None:
        cache.write(document, plan, checked)
    return scored_state(config, paths, run, document, checked, plan)


def scored_state(config: DashboardConfig, paths, run, document: dict, checked, plan: dict | None) -> DashboardState:
    """The dashboard's state of a scored run (``checked.scores``: its InstanceColumns)."""
    watched = watched_files(paths) + [p for p in run.input_paths.values() if p not in (paths.attempts, paths.cohort)]
    floor = run.reference.header.scale_floor.relative if run.reference is not None else None
    return DashboardState(
        document,
        run,
        watched,
        checked.scores,
        relative_floor=floor,
        demo=uses_demo(config),
        checked=checked,
        plan=plan,
    )


def peek_state(config: DashboardConfig, paths) -> DashboardState | None:
    """The scored run last stored for this run's place, read from the cache before any input is
    (tui/cache.py ``peek``), as a state to show at once while the inputs are checked
    (docs/dashboard.md#the-cache-of-scored-runs). It has no loaded run, no rows checked and no instance
    columns (``run`` and ``checked`` are None): only the Overview shows it. None without such a run."""
    peeked = peek(paths, config.thresholds)
    if peeked is None:
        return None
    document, plan = peeked
    return DashboardState(document, None, watched_files(paths), plan=plan, demo=uses_demo(config))


def state_from_cache(config: DashboardConfig, paths, run, found) -> DashboardState | None:
    """The state of a run whose scored form was in the cache (tui/cache.py): the rows are checked again
    (fast, and they are the loaded run's own rows); None when they raise a problem, which scoring
    then reports."""
    from tcsexam.scoring.pipeline.rules import check_rules

    document, plan, records_used, columns = found
    checked, problems = check_rules(run)
    if problems:
        return None
    run.check_folders()
    checked.records_used, checked.scores = records_used, columns
    return scored_state(config, paths, run, restamped(document), checked, plan)


def attempts_needed(plan_entry: dict, target: float | None) -> int | None:
    """docs/rules.md#planning-attempts: the fewest attempts per task whose projected half-width is at most ``target`` points
    (scoring.stats.planning.attempts_for_target); None when no r of the plan reaches it."""
    from tcsexam.scoring.stats.planning import attempts_for_target

    return attempts_for_target(plan_entry["half_width"], target)


# --- compare (docs/rules.md#intervals, docs/rules.md#per-task-differences and docs/rules.md#planning-attempts) -------------------------------------------------


def compare_pair(state: DashboardState, a: str, b: str) -> dict:
    """``tcsexam compare``'s document for two models (scoring.reports.compare.compare_run): docs/rules.md#intervals intervals,
    12.2's ``tasks`` and ``instances``, 12.3's ``mde``. Raises InputError for an invalid pair."""
    from tcsexam.scoring.reports.compare import compare_run

    return compare_run(state.document, state.checked, a, b)


def instance_drilldown(state: DashboardState, a: str, b: str, item: str, limit: int = 20) -> list[InstanceDifference]:
    """The instances of one solver task where A and B differ most (scoring.stats.differences.
    largest_instance_differences over the Phi arrays of their adopted attempts, ``state.columns``); []
    when either model's attempts were not all re-scored from records."""
    from tcsexam.scoring.pipeline.aggregate import phi_by_item
    from tcsexam.scoring.stats.differences import largest_instance_differences

    checked = state.checked
    phi_a = phi_by_item(checked, a, checked.by_model.get(a, [])).get(item)
    phi_b = phi_by_item(checked, b, checked.by_model.get(b, [])).get(item)
    if not phi_a or not phi_b:
        return []
    names = next(cols.names for (model, it, _), cols in state.columns.items() if model == a and it == item)
    return list(largest_instance_differences(DecodedNames(names), phi_a, phi_b, limit))


def watch_targets(paths: list[Path]) -> tuple[list[Path], set[str], list[str]]:
    """What --watch observes: (folders to watch, files that count, folders whose files count).

    Folders are watched rather than files: an editor or ``sed -i`` replaces a file by a new
    one, which a watch on the old file would never see.
    """
    files: set[str] = set()
    trees: list[str] = []
    roots: set[Path] = set()
    for p in paths:
        p = Path(os.path.abspath(p))
        if p.is_dir():
            trees.append(str(p) + os.sep)
            roots.add(p)
        else:
            files.add(str(p))
            roots.add(p.parent)
    existing = sorted(r for r in roots if r.is_dir())
    top = [r for r in existing if not any(o != r and o in r.parents for o in existing)]
    return top, files, trees


def load_tau2(path: str) -> dict:
    """tau2-bench metrics (scoring.tau2, docs/tau2.md), what the run's ``info`` says about it, and the run as read
    (its simulations, for the browser), for the tab."""
    from tcsexam.scoring.tau2.files import load_tau2_results
    from tcsexam.scoring.tau2.metrics import compute_tau2_metrics, run_description

    results = load_tau2_results(Path(path))
    return {"metrics": compute_tau2_metrics(results, str(path)), "meta": run_description(results), "results": results}


# --- instances ------------------------------------------------------------------


def load_instances(state: DashboardState, model: str, item: str, attempt: str) -> InstanceColumns:
    """Score one attempt's records against the run's reference (scoring core), as columns."""
    from tcsexam.scoring.errors import InputError, Problem
    from tcsexam.scoring.pipeline.solver import score_attempt_bytes

    key = (model, item, attempt)
    if key in state.columns:  # already scored by the records cross-check
        return state.columns[key]
    if state.run.reference is None and "reference" in state.run.input_paths:
        from tcsexam.scoring.pipeline.reference import load_reference

        state.run.reference = load_reference(state.run.input_paths["reference"])
    ref = state.run.reference
    path = state.records_path(model, item, attempt)
    if ref is None or path is None:
        raise InputError(
            [Problem(str(path or f"records/{model}/{item}/{attempt}.json"), "", "", "no records file for this attempt")]
        )
    data = state.run.records_root.read_path(str(path))  # a FIFO, folder or link out of the run: a problem
    if data is None:
        raise InputError([Problem(str(path), "", "", "no records file for this attempt")])
    try:
        return columns_from_score(score_attempt_bytes(ref.task(item), data, str(path)))
    except InputError as exc:  # a packed run's line is named by its file and line
        raise InputError(state.run.records_root.located(exc.problems)) from None


# --- tables (docs/commands.md) -----------------------------------------------------------------


def table_text(docs: list[tuple[str, dict]], fmt: str) -> str:
    """The (source, index document) pairs' leaderboard as ``tcsexam table`` writes it
    (scoring.reports.table.render_table, same digits; docs/commands.md). Raises InputError for a model twice in a group."""
    from tcsexam.scoring.reports.table import render_table

    return render_table(docs, fmt)
