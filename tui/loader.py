"""How a run is loaded: here, or in a loader process that the dashboard can stop at once, and from the
cache of scored runs when it is stored unchanged (docs/dashboard.md#the-cache-of-scored-runs).

Everything in this module runs in thread workers, or in the loader process (``load_state``); it imports
the scoring core lazily so that the first frame does not wait for scipy and pydantic.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import overload

from .cache import RunCache, decode_run, encode_run, overview_part, peek, restamped, stored_before
from .columns import instance_columns
from .state import DashboardConfig, DashboardState, resolve_paths, uses_demo, watched_files

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


def load_state(config: DashboardConfig, progress=None, started=None, paths=None, let_go=None) -> DashboardState:
    """Load and score a run (raises scoring.errors.InputError on rejected input); ``progress(text)`` hears
    what is being read; ``paths``: the run's input paths when already resolved (``resolve_paths``). A large run (``is_large``; ``config.isolate`` True: any run) is loaded in a loader
    process (``LoaderProcess``), given to ``started(loader)`` (the dashboard stops it when it quits, and
    may set its ``scored``); a small one here (it takes about a second, and a loader process would add one for its imports).
    ``let_go()``: called once a large run's inputs have passed every check, before the bulk of its state is
    decoded, so that the dashboard lets go of the run it replaces first
    (docs/dashboard-large-runs.md#memory-over-reloads)."""
    paths = paths if paths is not None else resolve_paths(config)
    if config.isolate is False or (config.isolate is None and not is_large(paths)):
        return load_state_here(config, paths, progress)
    stored = config.isolate is None and config.cache and stored_before(config, paths)
    if stored and (state := load_cached_here(config, paths, progress, let_go)):  # stored unchanged: no loader process
        return state
    with LoaderProcess(config, partial(load_compact_state, paths=paths)) as loader:
        if started is not None:
            started(loader)
        return loader.result(progress, let_go)


class LoaderGone(Exception):
    """The loader process ended without a result (stopped, or killed)."""


class LoaderProcess:
    """``load_compact_state`` in a fresh (spawned) process, so that scoring a run never holds the
    dashboard's interpreter: the UI answers keys while it works, and ``stop`` ends it at once (q during a
    load). It reports progress lines, then sends the state back in two parts (``load_compact_state``):
    the run and its checked rows pickled, unpickled here from a reader that lets other threads run
    between its frames (``yielding_loads``), and the document, the plan and the per-instance columns in
    the form of a cache file (tui/cache.py), decoded here as a reopen decodes it (``taken_back``). The
    process also ends by itself when the dashboard's process is gone (``watch_parent``)."""

    def __init__(self, config: DashboardConfig, target=None) -> None:
        import multiprocessing

        self.scored: Callable[[dict], object] | None = None  # hears the Overview's part once the run is scored
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

    def result(self, progress=None, let_go=None) -> DashboardState:
        """Wait for the state (``progress(text)`` for each progress line, ``self.scored(document)`` for the
        Overview's part of the index document, tui/cache.py ``overview_part``, as soon as the run is
        scored, ``let_go()`` once the state is on its way, before it is decoded: ``load_state``); raises the loader's InputError or UsageError, a RuntimeError for its internal error,
        LoaderGone when it ended without a result."""
        import msgspec

        from tcsexam.scoring.errors import InputError, UsageError

        try:
            while True:
                try:
                    kind, payload = self._pipe.recv()
                    if kind == "state":
                        if progress is not None:
                            progress(f"receiving the scored run ({sum(payload) / 2**20:.1f} MB)")
                        if let_go is not None:
                            let_go()
                        return taken_back(iter(self._pipe.recv_bytes, None))
                except (EOFError, OSError):
                    raise LoaderGone(f"the loader process ended (exit code {self.process.exitcode})") from None
                if kind == "progress":
                    if progress is not None:
                        progress(payload)
                elif kind == "overview":
                    if self.scored is not None:
                        self.scored(msgspec.msgpack.decode(payload))
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
    """The loader process: ``target(config, progress)``, its progress lines and its result (parts of
    bytes, ``load_compact_state``) sent on ``pipe``, and before it the Overview's part of the index
    document as soon as the run is scored."""
    import msgspec

    from tcsexam.scoring.errors import InputError, UsageError

    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    # glibc's own threshold for large blocks (not the dashboard's ``map_large_blocks``): this process
    # ends after one load, and a mapping per block freed made its scoring a third slower
    # (docs/performance.md#over-reloads-of-the-dashboard)
    watch_parent(parent)

    def scored(document: dict) -> None:
        pipe.send(("overview", msgspec.msgpack.encode(overview_part(document))))

    try:
        parts = target(config, lambda text: pipe.send(("progress", text)), scored=scored)
    except InputError as exc:
        pipe.send(("rejected", list(exc.problems)))
        return
    except UsageError as exc:
        pipe.send(("usage", str(exc)))
        return
    except Exception as exc:  # a bug: reported by the dashboard as an internal error
        pipe.send(("failed", f"{type(exc).__name__}: {exc}"))
        return
    pipe.send(("state", [len(part) for part in parts]))
    for part in parts:
        pipe.send_bytes(part)


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


HANDED_BACK = "handed back by the loader process"  # the key of the columnar part when no cache file is written


def load_compact_state(config: DashboardConfig, progress=None, paths=None, scored=None) -> tuple[bytes, bytes]:
    """``load_state_here`` as it crosses back from the loader process, in two parts (``taken_back``
    makes the state again): the state without the reference, its document, its plan and its
    per-instance columns, pickled with the key of the second part; and those in the form of a cache
    file (tui/cache.py ``encode_run``: the columns as raw arrays, each task's names once), the very bytes
    written to the cache when the run is stored, so that the dashboard never holds 10^6 instance names
    as Python strings and nothing large is pickled. The reference is read again in the dashboard only
    if an attempt that was not cross-checked is opened. ``scored(document)``: as ``load_state_here``'s."""
    import pickle

    encoded: list[tuple[str, bytes]] = []
    state = load_state_here(config, paths, progress, encoded=encoded, scored=scored)
    checked = state.checked
    key, data = encoded[0] if encoded else (HANDED_BACK, encode_state(HANDED_BACK, state))
    state.run.reference = None
    state.document, state.plan, state.columns, checked.scores = {}, None, {}, {}
    return pickle.dumps((key, state), protocol=pickle.HIGHEST_PROTOCOL), data


def encode_state(key: str, state: DashboardState) -> bytes:
    """A state's document, plan, records files used and columns in the form of a cache file; the state's
    per-instance arrays are let go as they are encoded (the loader process keeps nothing)."""
    return encode_run(key, state.document, state.plan, state.checked.records_used, state.columns, consume=True)


def taken_back(parts) -> DashboardState:
    """The state the loader process handed back in two parts (``load_compact_state``), from an iterator
    of them: the first is unpickled and let go before the second is taken."""
    key, state = yielding_loads(next(parts))
    document, plan, records_used, columns = decode_run(next(parts), key)
    state.document, state.plan, state.columns = document, plan, columns
    state.checked.records_used, state.checked.scores = records_used, columns
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


def load_cached_here(config: DashboardConfig, paths, progress=None, let_go=None) -> DashboardState | None:
    """The run's state from the cache of scored runs, read in this process; None when it is not there.
    ``let_go``: as ``load_state``'s."""
    return load_state_here(config, paths, progress, only_cached=True, let_go=let_go)


@overload
def load_state_here(config: DashboardConfig, paths=..., progress=..., *, encoded=..., scored=...) -> DashboardState: ...
@overload
def load_state_here(
    config: DashboardConfig, paths, progress, only_cached: bool, let_go=...
) -> DashboardState | None: ...
def load_state_here(config, paths=None, progress=None, only_cached=False, encoded=None, scored=None, let_go=None):
    """Load and score a run in this process; ``progress(text)`` names each step and the files read. With
    ``only_cached``, None when the scored run is not in the cache (tui/cache.py), rather than scoring it.
    ``encoded``: a list, given the scored run's cache file as (key, bytes) when it is written (it is
    then not encoded again to cross back from a loader process, ``load_compact_state``). ``scored``:
    called with the index document as soon as the run is scored (not when it was in the cache).
    ``let_go``: as ``load_state``'s, for a run read from the cache."""
    from tcsexam.scoring.pipeline.index import score_run
    from tcsexam.scoring.pipeline.run import load_run
    from tcsexam.scoring.reports.plan import plan_document
    from tcsexam.scoring.stats.planning import DEFAULT_MAX_ATTEMPTS

    say = progress or (lambda text: None)
    paths = paths if paths is not None else resolve_paths(config)
    say(f"reading {Path(paths.attempts).name}, {Path(paths.cohort).name}, the suite and the reference")
    run = load_run(paths)
    cache = RunCache.for_run(run, config, say) if config.cache else None
    if (
        cache is not None
        and (data := cache.stored()) is not None
        and (state := state_from_cache(config, paths, run, cache, data, let_go)) is not None
    ):
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
    if scored is not None:
        scored(document)
    if checked.scores:
        say(f"making the instance columns of {len(checked.scores):,} attempts")
    # one copy of the per-instance results: compare_run reads each re-scored attempt's phi from checked.scores
    checked.scores = instance_columns(checked.scores)
    say(f"planning attempts for {models:,} models")
    plan = plan_document(document, checked, DEFAULT_MAX_ATTEMPTS, None)
    if cache is not None and (data := cache.write(document, plan, checked)) is not None and encoded is not None:
        encoded.append((cache.key, data))
    return scored_state(config, paths, run, document, checked, plan)


def scored_state(config: DashboardConfig, paths, run, document: dict, checked, plan: dict | None) -> DashboardState:
    """The dashboard's state of a scored run (``checked.scores``: its InstanceColumns)."""
    from tcsexam.scoring.reports.findings import not_checked_lines, score_warnings

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
        said=[*run.notices, *score_warnings(document), *not_checked_lines(document)],
    )


def peek_state(config: DashboardConfig) -> DashboardState | None:
    """The scored run last stored for this run's place, read from the cache before any input is read or
    located (tui/cache.py ``peek``), as a state to show at once while the inputs are checked
    (docs/dashboard.md#the-cache-of-scored-runs). It has no loaded run, no rows checked, no instance
    columns, no plan and no watched files, and its document is the part the Overview reads
    (tui/cache.py ``overview_part``): only the Overview shows it. None without such a run."""
    document = peek(config)
    return None if document is None else overview_state(config, document)


def overview_state(config: DashboardConfig, document: dict) -> DashboardState:
    """A state that only the Overview shows: the Overview's part of an index document (tui/cache.py
    ``overview_part``), no loaded run, no rows checked, no instance columns, no plan, no watched files."""
    return DashboardState(document, None, [], demo=uses_demo(config))


def state_from_cache(
    config: DashboardConfig, paths, run, cache: RunCache, data: bytes, let_go=None
) -> DashboardState | None:
    """The state of a run whose scored form is in the cache file ``data`` (tui/cache.py): the rows are
    checked again (fast, and they are the loaded run's own rows) and the run's folders, then ``let_go()``
    is called and the file decoded; None when the rows raise a problem, which scoring then reports, or
    the file is not ours."""
    from tcsexam.scoring.pipeline.rules import check_rules

    checked, problems = check_rules(run)
    if problems:
        return None
    run.check_folders()
    if let_go is not None:
        let_go()
    found = cache.decoded(data)
    if found is None:
        return None
    document, plan, records_used, columns = found
    checked.records_used, checked.scores = records_used, columns
    return scored_state(config, paths, run, restamped(document), checked, plan)
