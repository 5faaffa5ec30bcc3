"""What the dashboard shows, loaded through the scoring core (never recomputed here).

Everything in this module runs in thread workers (large runs: in a loader
process, see ``load_state``); it imports the scoring core lazily so that the
first frame does not wait for scipy and pydantic.
"""

from __future__ import annotations

import contextlib
import functools
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from scoring.vocab import FIRST_INCOMPLETE_CODE, RECORD_STATUSES


@dataclass
class DashboardConfig:
    """Command-line options of ``tcsexam tui`` (SPEC 6)."""

    run_dir: str | None = None
    attempts: str | None = None
    cohort: str | None = None
    records: str | None = None
    benchmark: str | None = None
    suite: str | None = None
    output: str = "build/index.json"
    watch: bool = False
    tau2: str | None = None
    thresholds: dict[str, float] = field(default_factory=dict)
    isolate: bool | None = None  # load in a helper process: None = when the inputs are large
    more_runs: list[str] = field(default_factory=list)  # the RUN_DIRs after the first (`tcsexam tui A B ...`)


def run_configs(config: DashboardConfig) -> list[DashboardConfig]:
    """One configuration per run the dashboard opens (SPEC 6 ``tcsexam tui RUN_DIR...``): the first is
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
    run: Any  # scoring.inputs.Run
    watched: list[Path]  # files whose change triggers a reload under --watch
    scores: dict = field(default_factory=dict)  # (model, item, attempt) -> TaskScore from the cross-check
    columns: dict = field(default_factory=dict)  # (model, item, attempt) -> InstanceColumns, made by the helper
    relative_floor: float | None = None  # the reference's relative scale floor (for explanations)
    checked: Any = None  # scoring.rules.Checked of the same score_run (compare, plan)
    plan: dict | None = None  # `tcsexam plan`'s document (r = 1..10, its default), no target

    demo: bool = False  # the bundled synthetic demo, not the user's run

    def __repr__(self) -> str:
        return (
            f"<DashboardState {len(self.document['models'])} models, {len(self.columns) + len(self.scores)} attempts>"
        )

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
        """Where the attempt's records file is (SPEC 13: found only through the run's RecordsRoot),
        None when there is nothing there; what is there is checked when it is read."""
        root = self.run.records_root
        if root is None:
            return None
        path = root.path(model, item, attempt)
        return Path(path) if os.path.lexists(path) else None


def uses_demo(config: DashboardConfig) -> bool:
    """No run named on the command line (and no --tau2 file): the bundled synthetic demo is shown."""
    return not (config.run_dir or (config.attempts and config.cohort)) and not config.tau2


def has_run(config: DashboardConfig) -> bool:
    """Whether tabs 1-5 have a run to show: one named, or the demo when nothing at all was named."""
    return bool(config.run_dir or (config.attempts and config.cohort) or config.attempts or config.cohort) or uses_demo(
        config
    )


def resolve_paths(config: DashboardConfig):
    """The run's input paths by the command line's own rule (scoring.cli.paths_for, SPEC 2, 6)."""
    from scoring.cli import paths_for
    from scoring.inputs import demo_run

    return paths_for(config, demo_run() if uses_demo(config) else None)


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


def load_state(config: DashboardConfig) -> DashboardState:
    """Load and score a run (raises scoring.errors.InputError on rejected input).

    Large runs are parsed in a short-lived helper process: parsing 10^6 records materialises
    about half a gigabyte of Python objects that the dashboard would otherwise keep as its
    peak for good; only the compact result (numpy columns, the index document) comes back.
    """
    isolate = config.isolate
    if isolate:
        return load_state_in_helper(config)
    paths = resolve_paths(config)
    if isolate is None and input_bytes(paths) > LARGE_INPUT_BYTES:
        return load_state_in_helper(config)
    return load_state_here(config, paths)


def load_state_in_helper(config: DashboardConfig) -> DashboardState:
    """``load_compact_state`` in a fresh (spawned) worker process that ends with this call; an
    InputError raised there is raised here as it was."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    start_resource_tracker()
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(load_compact_state, config).result()


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


def load_compact_state(config: DashboardConfig) -> DashboardState:
    """``load_state_here`` reduced to what crosses back from the loader process: compact columns
    (sort orders included) instead of the scoring objects, so that the dashboard never holds 10^6
    instance names as Python strings. The reference is read again in the dashboard only if an
    attempt that was not cross-checked is opened."""
    import dataclasses

    state = load_state_here(config)
    state.columns = {key: columns_from_score(score) for key, score in state.scores.items()}
    state.scores = {}
    # the rows stay (compare's mde, plan); the per-instance scores do not cross back, so the Compare tab
    # has no per-instance counts for a run loaded this way
    state.checked = dataclasses.replace(state.checked, scores={})
    state.run.reference = None
    return state


def load_state_here(config: DashboardConfig, paths=None) -> DashboardState:
    from scoring.inputs import load_run
    from scoring.output import score_run
    from scoring.plan import plan_document
    from scoring.planning import DEFAULT_MAX_ATTEMPTS

    paths = paths if paths is not None else resolve_paths(config)
    run = load_run(paths)
    document, checked = score_run(run, config.thresholds)
    scores = checked.scores
    watched = watched_files(paths) + [p for p in run.input_paths.values() if p not in (paths.attempts, paths.cohort)]
    floor = run.reference.header.scale_floor.relative if run.reference is not None else None
    return DashboardState(
        document,
        run,
        watched,
        scores,
        relative_floor=floor,
        demo=uses_demo(config),
        checked=checked,
        plan=plan_document(document, checked, DEFAULT_MAX_ATTEMPTS, None),
    )


def attempts_needed(plan_entry: dict, target: float | None) -> int | None:
    """SPEC 12.3: the fewest attempts per task whose projected half-width is at most ``target`` points
    (scoring.planning.attempts_for_target); None when no r of the plan reaches it."""
    from scoring.planning import attempts_for_target

    return attempts_for_target(plan_entry["half_width"], target)


# --- compare (SPEC 9, 12.2, 12.3) -------------------------------------------------


def compare_pair(state: DashboardState, a: str, b: str) -> dict:
    """``tcsexam compare``'s document for two models (scoring.compare.compare_run): the SPEC 9 intervals,
    12.2's ``tasks`` and ``instances``, 12.3's ``mde``. Raises InputError for an invalid pair."""
    from scoring.compare import compare_run

    return compare_run(state.document, state.checked, a, b)


def instance_drilldown(state: DashboardState, a: str, b: str, item: str, limit: int = 20) -> list[dict]:
    """The instances of one solver task where A and B differ most (scoring.differences.
    largest_instance_differences over the Phi arrays of their adopted attempts); [] when either model's
    attempts were not all re-scored from records."""
    from scoring.aggregate import instance_phi
    from scoring.differences import largest_instance_differences

    checked = state.checked
    phi_a = instance_phi(checked, a, checked.by_model.get(a, [])).get(item)
    phi_b = instance_phi(checked, b, checked.by_model.get(b, [])).get(item)
    if not phi_a or not phi_b:
        return []
    names = next(score.ref.names for (model, it, _), score in checked.scores.items() if model == a and it == item)
    return list(largest_instance_differences(names, phi_a, phi_b, limit))


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
    """tau2-bench metrics (scoring.tau2, SPEC 8) plus what the run's ``info`` says about it, for the tab."""
    from scoring.tau2 import compute_tau2_metrics, load_tau2_results, run_description

    results = load_tau2_results(Path(path))
    return {"metrics": compute_tau2_metrics(results, str(path)), "meta": run_description(results)}


# --- instances ------------------------------------------------------------------

# The statuses a scored attempt can hold: ok and the failures, in scoring's code order.
STATUS_CODES = RECORD_STATUSES[:FIRST_INCOMPLETE_CODE]


@dataclass
class InstanceColumns:
    """Per-instance results of one attempt as numpy columns (what solver-score writes)."""

    task: str
    direction: str
    kind: str
    names: np.ndarray  # UTF-8 bytes, fixed width (dtype S): 10^6 names in a few MB, sorted in C
    status: np.ndarray  # uint8 codes into STATUS_CODES
    A: np.ndarray
    mu: np.ndarray
    s: np.ndarray
    scale: np.ndarray
    z: np.ndarray
    phi: np.ndarray
    relative_score: float
    unscored: list[str]
    orders: dict[str, np.ndarray] = field(default_factory=dict)  # ascending permutation per column

    def __len__(self) -> int:
        return len(self.names)

    def name(self, i: int) -> str:
        return self.names[i].decode("utf-8")

    def ascending(self, column: str) -> np.ndarray:
        """Stable ascending permutation by a column, NaN last (computed once per column)."""
        if column not in self.orders:
            if column == "instance":
                key = self.names
            elif column == "status":
                key = self.status
            else:
                values = getattr(self, column)
                key = np.where(np.isnan(values), np.inf, values)
            self.orders[column] = np.argsort(key, kind="stable").astype(np.int32 if len(key) < 2**31 else np.int64)
        return self.orders[column]

    def descending(self, column: str) -> np.ndarray:
        """The ascending permutation reversed, NaN still last (computed once per column)."""
        key = f"-{column}"
        if key not in self.orders:
            perm = self.ascending(column)
            if column in ("instance", "status"):
                self.orders[key] = perm[::-1].copy()
            else:
                n_nan = int(np.isnan(getattr(self, column)).sum())
                self.orders[key] = np.concatenate([perm[: len(perm) - n_nan][::-1], perm[len(perm) - n_nan :]])
        return self.orders[key]

    def order(self, column: str, descending: bool, status: int | None = None) -> np.ndarray:
        """Row indices sorted by a column (NaN last either way), optionally only one status."""
        perm = self.descending(column) if descending else self.ascending(column)
        if status is not None:
            perm = perm[self.status[perm] == status]
        return perm

    def precompute_orders(self) -> None:
        """Sort every column once (in a worker thread, after the table is shown in its default order,
        ``instance`` ascending) so that sorting in the UI is a lookup."""
        for column in ("instance", "status", "A", "mu", "s", "scale", "z", "phi"):
            self.descending(column)


def columns_from_score(score) -> InstanceColumns:
    """Wrap a scoring.solver_score.TaskScore without recomputing anything."""
    ref = score.ref
    names = np.array([n.encode("utf-8") for n in ref.names], dtype="S") if ref.names else np.zeros(0, dtype="S1")
    status = score.codes  # codes into STATUS_CODES: a scored attempt has no incomplete status
    cols = InstanceColumns(
        ref.task,
        ref.direction,
        ref.kind,
        names,
        status,
        score.A,
        ref.mu,
        ref.s,
        ref.scale,
        score.z,
        score.phi,
        score.relative_score,
        score.unscored_instances,
    )
    cols.ascending("instance")  # the table's first view; the other orders are sorted once it is shown
    return cols


def load_instances(state: DashboardState, model: str, item: str, attempt: str) -> InstanceColumns:
    """Score one attempt's records against the run's reference (scoring core), as columns."""
    from scoring.errors import InputError, Problem
    from scoring.solver_score import score_attempt_bytes

    key = (model, item, attempt)
    if key in state.columns:  # made by the loader process
        return state.columns[key]
    if key in state.scores:  # already scored by the records cross-check
        return columns_from_score(state.scores[key])
    if state.run.reference is None and "reference" in state.run.input_paths:
        from scoring.reference import load_reference

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
    return columns_from_score(score_attempt_bytes(ref.task(item), data, str(path)))


# --- tables (SPEC 11) -----------------------------------------------------------------

TABLE_FORMATS = {"markdown": "Markdown", "latex": "LaTeX"}


def table_text(docs: list[tuple[str, dict]], fmt: str) -> str:
    """The (source, index document) pairs' leaderboard as ``tcsexam table`` writes it
    (scoring.report.render_table, same digits; SPEC 11). Raises InputError for a model twice in a group."""
    from scoring.report import render_table

    return render_table(docs, fmt)
