"""What a benchmark folder's suites hold, as ``tcsexam suite`` lists it (docs/commands.md#suite): the
suites and their tasks by track, a suite's tasks each with the index points a score of 1 on it is
worth."""

from __future__ import annotations

from pathlib import Path

from tcsexam.scoring.errors import InputError, Problem, UsageError
from tcsexam.scoring.formats.inputs import SuiteManifest
from tcsexam.scoring.grammar import meant
from tcsexam.scoring.pipeline.run import load_suite_file, suite_path
from tcsexam.scoring.vocab import TRACKS, WEIGHTS, task_points


def suite_names(benchmark: Path) -> list[str]:
    """The suites of BENCHMARK/suites/, by name (the stems of its .json files)."""
    folder = benchmark / "suites"
    return sorted(p.stem for p in folder.glob("*.json")) if folder.is_dir() else []


def benchmark_suites(benchmark: Path) -> dict:
    """Every suite of the benchmark: its name and how many tasks each track has. A benchmark with no
    suite, or a manifest that ``tcsexam validate`` would refuse, is rejected, every manifest's problems
    at once."""
    names = suite_names(benchmark)
    if not names:
        message = "holds no suites/*.json: is it a benchmark folder? (tcsexam docs formats#the-benchmark-folder)"
        raise InputError([Problem(str(benchmark), "", "", message)])
    manifests, problems = {}, []
    for name in names:
        try:
            manifests[name] = read_manifest(benchmark, name)
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)
    suites = [{"suite": n, "tasks": len(m.tasks), "by_track": track_counts(m)} for n, m in manifests.items()]
    return {"benchmark": str(benchmark), "suites": suites}


def suite_tasks(benchmark: Path, name: str) -> dict:
    """One suite's tasks in its order, each with its track and its index points (``task_points``: what a
    score of 1 on the task adds to the index when every other score is 0). A suite the benchmark has
    not is a usage error naming those it has."""
    names = suite_names(benchmark)
    if name not in names:
        held = f"its suites: {', '.join(names)}" if names else "it holds no suites/*.json"
        raise UsageError(f"the benchmark {benchmark} has no suite '{name}' ({held}){meant(name, names)}")
    manifest = read_manifest(benchmark, name)
    counts = track_counts(manifest)
    return {
        "suite": name,
        "file": str(suite_path(benchmark, name)),
        "tasks": [
            {"item": t.item, "track": t.track, "points": task_points(WEIGHTS[t.track], counts[t.track])}
            for t in manifest.tasks
        ],
    }


def track_counts(manifest: SuiteManifest) -> dict[str, int]:
    """How many tasks each track has in the suite."""
    return {t: sum(1 for task in manifest.tasks if task.track == t) for t in TRACKS}


def read_manifest(benchmark: Path, name: str) -> SuiteManifest:
    """The manifest BENCHMARK/suites/NAME.json as a run reads it (docs/formats.md#suite-manifest); one that
    names another suite than its file is refused, as a cohort declaring NAME would find it refused."""
    path = suite_path(benchmark, name)
    manifest, _ = load_suite_file(path)
    if manifest.suite != name:
        message = (
            f"manifest is suite '{manifest.suite}' but its file is {path.name}: a cohort declaring '{name}' is refused"
        )
        raise InputError([Problem(str(path), "", "suite", message)])
    return manifest
