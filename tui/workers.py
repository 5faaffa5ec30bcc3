"""The dashboard's work off the UI thread: loading and scoring a run, reading a tau2 file, watching the
inputs (--watch). Each worker speaks to the app only through the messages of tui/messages.py, handed
to ``post`` (the app's ``post_message``); the app starts them and handles what they send."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

from textual.message import Message

from tcsexam.scoring.vocab import COHORT_FILE

from .loader import load_state, overview_state, peek_state
from .messages import (
    CachedShown,
    InputsChanged,
    LetGo,
    LoadFailed,
    LoadProgress,
    ScoredShown,
    StateLoaded,
    Tau2Failed,
    Tau2Loaded,
)
from .state import DashboardConfig, resolve_paths, watched_files

Post = Callable[[Message], object]
APP_WAIT_S = 10.0  # at most this long a load waits for the app to draw a cached view or let go of a run


class Loaders:
    """The loader processes at work (tui.loader.LoaderProcess), each with its run's number. Once
    ``stop_all`` has run (q, the app's end) a loader that starts is stopped at once."""

    def __init__(self) -> None:
        self._run_of: dict = {}
        self._kept: set = set()  # loaders whose run the app let go: a newer load of the run does not stop them
        self.quitting = False

    def running(self) -> list:
        return list(self._run_of)

    def started(self, loader, number: int, wanted: bool) -> None:
        """A loader of run ``number`` has started; ``wanted``: no newer load of its run was asked for."""
        self._run_of[loader] = number
        if self.quitting or not wanted:
            loader.stop()

    def finished(self, loader) -> None:
        self._run_of.pop(loader, None)
        self._kept.discard(loader)

    def keep(self, loader) -> None:
        """The app let go of the run ``loader`` is sending the new state of: that state is to be shown
        even if a newer load of the run is asked for (``stop_run``); None: no loader process."""
        if loader is not None:
            self._kept.add(loader)

    def stop_run(self, number: int) -> None:
        """A newer load of run ``number`` replaces the one at work: its result would be dropped. A loader
        whose run the app let go (``keep``) goes on: its run is shown while the newer load goes on."""
        for loader, run in list(self._run_of.items()):
            if run == number and loader not in self._kept:
                loader.stop()

    def stop_all(self) -> None:
        self.quitting = True
        for loader in list(self._run_of):
            loader.stop()


def wait_for_app(done: threading.Event, loaders: Loaders) -> None:
    """Wait until the app has set ``done``, the dashboard quits, or APP_WAIT_S have passed."""
    waited = 0.0
    while not done.wait(0.05) and not loaders.quitting and waited < APP_WAIT_S:
        waited += 0.05


def load_run(
    config: DashboardConfig,
    reason: str,
    generation: int,
    number: int,
    post: Post,
    loaders: Loaders,
    wanted: Callable[[], bool],
    paths=None,
) -> None:
    """Load and score run ``number`` (a thread worker): StateLoaded, or LoadFailed with the problems;
    LoadProgress while it reads. ``wanted()``: no newer load of the run was asked for meanwhile. At the
    start, with the cache on, first CachedShown: the run as last stored for its place, before its inputs
    are read and checked (docs/dashboard.md#the-cache-of-scored-runs); in a loader process, ScoredShown
    as soon as the run is scored, with the Overview's part of it. ``paths``: the run's paths
    when already resolved (the first load: tui/cli.py ``check_run_dirs``), else resolved here."""
    from tcsexam.scoring.errors import InputError, Problem, UsageError

    from .loader import LoaderGone

    mine: list = []

    def started(loader) -> None:
        mine.append(loader)
        # the Overview's part of the run, as soon as the loader process has scored it
        loader.scored = lambda document: post(ScoredShown(overview_state(config, document), generation, number))
        loaders.started(loader, number, wanted())

    def let_go() -> None:
        # the new run passed its checks: the app lets go of the one it shows before this one is decoded
        # (docs/dashboard-large-runs.md#memory-over-reloads)
        done = threading.Event()
        asked = LetGo(generation, number, done, mine[-1] if mine else None)
        post(asked)
        wait_for_app(done, loaders)
        # q, or a newer load of the run before the app let go (the run shown stays): not decoded; once the
        # app has let go, this load's run is decoded and shown even if a newer load was asked for since
        if loaders.quitting or not (asked.taken or wanted()):
            raise LoaderGone("stopped")

    try:
        # a reopen: what the cache holds for the run's place, before its inputs are located (that imports
        # most of the scoring core, unless the console script did it) or read; the check goes on once the
        # view is drawn, as it would take the interpreter from the drawing; q ends the wait
        if reason == "start" and config.cache and (cached := peek_state(config)) is not None:
            drawn = threading.Event()
            post(CachedShown(cached, generation, number, drawn))
            wait_for_app(drawn, loaders)
        if paths is None:  # once per load
            paths = resolve_paths(config)
        state = load_state(config, lambda text: post(LoadProgress(text, generation, number)), started, paths, let_go)
    except LoaderGone as exc:
        if wanted() and not loaders.quitting:  # not stopped by the dashboard: killed (out of memory?)
            post(LoadFailed([Problem("tcsexam", "", "", str(exc))], reason, generation, number))
        return  # else stopped: a newer load of the run replaced it, or the dashboard quit
    except InputError as exc:
        post(LoadFailed(exc.problems, reason, generation, number))
        return
    except UsageError as exc:  # a cohort edited to name a reference the synthetic sample lacks
        post(LoadFailed([Problem(config.cohort or COHORT_FILE, "", "", str(exc))], reason, generation, number))
        return
    except Exception as exc:  # a bug must not take the dashboard down
        problem = Problem("tcsexam", "", "", f"internal error: {type(exc).__name__}: {exc}")
        post(LoadFailed([problem], reason, generation, number))
        return
    finally:
        for loader in mine:
            loaders.finished(loader)
    post(StateLoaded(state, reason, generation, number))


def read_tau2(path: str, generation: int, post: Post) -> None:
    """Read a tau2-bench results file (a thread worker): Tau2Loaded, or Tau2Failed with the problems."""
    from tcsexam.scoring.errors import InputError, Problem

    from .state import load_tau2

    try:
        loaded = load_tau2(path)
    except InputError as exc:
        post(Tau2Failed(exc.problems, generation))
        return
    except Exception as exc:
        post(Tau2Failed([Problem(str(path), "", "", f"internal error: {type(exc).__name__}: {exc}")], generation))
        return
    post(Tau2Loaded(loaded["metrics"], loaded["meta"], generation, loaded["results"]))


def watched_paths(slots: list, tau2_path: str | None) -> list[Path]:
    """The files --watch follows: every run's inputs (those named, when a run cannot even be located),
    and the tau2 file."""
    paths: list[Path] = []
    for slot in slots:
        if slot.state is not None:
            paths += slot.state.watched
            continue
        config = slot.config
        try:
            paths += watched_files(resolve_paths(config))
        except Exception:  # the run cannot even be located: watch what was named
            paths += [Path(p) for p in (config.run_dir, config.attempts, config.cohort) if p]
    if tau2_path:
        paths.append(Path(tau2_path))
    return paths


async def watch_inputs(targets: tuple, tau2_path: str | None, debounce_ms: int, post: Post) -> None:
    """Post InputsChanged for every debounced batch of changes to ``targets`` (tui.state.watch_targets),
    saying whether a run's files or the tau2 file changed (an async worker, until cancelled)."""
    from watchfiles import awatch

    roots, files, trees = targets
    if not roots:
        return
    tau2 = os.path.abspath(tau2_path) if tau2_path else None

    def counts(_change, path: str) -> bool:
        return path in files or path.startswith(tuple(trees))

    def is_tau2(path: str) -> bool:
        return tau2 is not None and (path == tau2 or path.startswith(tau2 + os.sep))

    async for changes in awatch(*roots, watch_filter=counts, debounce=debounce_ms, step=50, recursive=True):
        paths = {path for _, path in changes}
        post(InputsChanged(run=any(not is_tau2(p) for p in paths), tau2=any(map(is_tau2, paths))))
