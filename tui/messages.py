"""Small messages that thread workers and panes send to the app."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message


@dataclass
class StateLoaded(Message):
    state: Any  # tui.state.DashboardState
    reason: str  # "start", "reload" or "watch"
    generation: int = 0  # which load_run call: an older one that finishes late is dropped
    run: int = 0  # which run (tcsexam tui RUN_DIR...), in the command line's order


@dataclass
class CachedShown(Message):
    """A reopen's view from the cache, read before the inputs are checked (tui.loader.peek_state)."""

    state: Any  # tui.state.DashboardState without its loaded run
    generation: int = 0
    run: int = 0
    drawn: Any = None  # a threading.Event the app sets once the view is drawn (or not to be drawn)


@dataclass
class ScoredShown(Message):
    """The Overview's part of a run just scored in a loader process (tui.loader.LoaderProcess), shown
    while the rest of it crosses over: current numbers, not the cache's, so not marked."""

    state: Any  # tui.state.DashboardState without its loaded run (tui.loader.overview_state)
    generation: int = 0
    run: int = 0


@dataclass
class LetGo(Message):
    """A large run's new inputs passed every check (tui.loader.load_state): the app lets go of the state
    the run shows before the new one is decoded, so that the new run's objects do not fill the gaps
    between the old one's (docs/dashboard-large-runs.md#memory-over-reloads)."""

    generation: int = 0
    run: int = 0
    done: Any = None  # a threading.Event the app sets once the old state is let go (or is not to be)
    loader: Any = None  # the loader process sending the new state (tui.loader.LoaderProcess), if any
    taken: bool = False  # set by the app before ``done``: it let go, so this load is decoded and shown


@dataclass
class LoadProgress(Message):
    """What the loader of a run is reading now (sent from its worker)."""

    text: str
    generation: int = 0
    run: int = 0


@dataclass
class LoadFailed(Message):
    problems: list  # scoring.errors.Problem
    reason: str
    generation: int = 0
    run: int = 0


@dataclass
class InputsChanged(Message):
    """--watch: files changed on disk (sent from the watcher thread)."""

    run: bool
    tau2: bool


@dataclass
class ModelOrder(Message):
    """The Overview's row order changed: tabs that list models follow it."""

    models: list


@dataclass
class DrillDown(Message):
    """Open a tab on a model (and a task): Enter on an Overview row, a Coverage cell, an issue or one of
    the model's worst instances."""

    tab: str
    model: str
    item: str | None = None
    attempt: str | None = None  # Instances: the attempt to show (a worst instance's)
    instance: str | None = None  # Instances: the instance to put the cursor on


@dataclass
class ModelSelected(Message):
    model: str


@dataclass
class OpenAttempts(Message):
    model: str
    item: str


@dataclass
class InstancesLoaded(Message):
    key: tuple  # (model, item, attempt)
    columns: Any  # tui.state.InstanceColumns


@dataclass
class InstancesFailed(Message):
    key: tuple
    message: str


@dataclass
class Tau2Loaded(Message):
    metrics: dict
    meta: dict
    generation: int = 0
    results: Any = None  # scoring.tau2.files.Tau2Results, for the simulations' browser


@dataclass
class Tau2Failed(Message):
    problems: list
    generation: int = 0


@dataclass
class CompareComputed(Message):
    """``compare``'s document for the pair (a, b), or the reason there is none (sent from a worker)."""

    pair: tuple  # (a, b)
    result: dict | None
    error: str | None = None


@dataclass
class InstanceDiffsComputed(Message):
    """The instances of one solver task where the pair differs most (sent from a worker)."""

    pair: tuple
    item: str
    diffs: list


@dataclass
class WorstComputed(Message):
    """A model's worst instances across its solver tasks (tui.find.worst_instances, sent from a worker)."""

    model: str
    rows: list  # tui.find.WorstInstance, lowest Phi first
    total: int  # instances in all
    attempts: int  # re-scored attempts they come from
