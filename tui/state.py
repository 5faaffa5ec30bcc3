"""What the dashboard shows, loaded through the scoring core (never recomputed here): the run's
configuration and state, and what the panes look up in a loaded run (tui/loader.py loads it).

Everything in this module runs in thread workers; it imports the scoring core lazily so that the
first frame does not wait for scipy and pydantic.
"""

from __future__ import annotations

import functools
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .columns import STATUS_CODES as STATUS_CODES
from .columns import DecodedNames, InstanceColumns, columns_from_score

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
    isolate: bool | None = None  # load in a loader process: None = when the run is large (loader.is_large)
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


def source_label(source: str) -> str:
    """A run's ``source`` (its RUN_DIR as typed) as a screen names it: with the name of its folder
    first when the path typed does not end with it (``demo (.)`` for ``tui .``, ``runs (../..)``)."""
    name = Path(os.path.abspath(source)).name
    return source if not name or name == Path(source).name else f"{name} ({source})"


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
    let_go_by: int | None = None  # the load (its generation) that let go of the state shown, until it is shown
    progress: str = ""  # what the loader is reading now (while loading)
    load_started: float = 0.0  # time.monotonic() of the load's start
    # the scored run last stored for its place, shown at once while a reopen checks the inputs (marked
    # as such; ``state`` stays None until the check ends): tui.loader.peek_state
    preview: DashboardState | None = None
    preview_scored: bool = False  # the preview is the run just scored, not the cache's view (not marked)
    # its paths resolved, and its cohort read, before the dashboard opened (scoring.pipeline.run
    # ``read_cohort_ahead``): the first load uses them and drops them
    paths: Any = None

    @property
    def name(self) -> str:
        return run_name(self.config)

    def mark_stale(self) -> None:
        """The state shown is kept while the inputs on disk are rejected (``problems``): since now."""
        self.stale = {"at": time.strftime("%H:%M:%S"), "count": len(self.problems), "loaded_at": self.loaded_at}

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
    # what `tcsexam score` prints beside the run on standard error (its notes and warnings), for Diagnostics:
    # made where the run is scored (tui.loader.scored_state), off the UI thread
    said: list[str] = field(default_factory=list)

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
    def finding_count(self) -> int:
        """How many findings ``tcsexam validate`` lists for the run (docs/commands.md#validate): Diagnostics
        says so under an accepted run, and that Coverage shows them."""
        from tcsexam.scoring.reports.findings import findings

        return len(findings(self.document))

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
