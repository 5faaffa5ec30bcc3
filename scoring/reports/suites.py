"""What a benchmark folder's suites hold, as ``tcsexam suite`` lists it (docs/commands.md#suite): the
suites and their tasks by track, a suite's tasks each with the index points a score of 1 on it is
worth."""

from __future__ import annotations

from pathlib import Path

from tcsexam.scoring.errors import UsageError
from tcsexam.scoring.grammar import meant
from tcsexam.scoring.vocab import TRACKS, WEIGHTS


def suite_names(benchmark: Path) -> list[str]:
    """The suites of BENCHMARK/suites/, by name (the stems of its .json files)."""
    folder = benchmark / "suites"
    return sorted(p.stem for p in folder.glob("*.json")) if folder.is_dir() else []


def benchmark_suites(benchmark: Path) -> dict:
    """Every suite of the benchmark: its name and how many tasks each track has."""
    from tcsexam.scoring.pipeline.run import load_suite_file, suite_path

    suites = []
    for name in suite_names(benchmark):
        manifest, _ = load_suite_file(suite_path(benchmark, name))
        by_track = {t: sum(1 for task in manifest.tasks if task.track == t) for t in TRACKS}
        suites.append({"suite": name, "tasks": len(manifest.tasks), "by_track": by_track})
    return {"benchmark": str(benchmark), "suites": suites}


def suite_tasks(benchmark: Path, name: str) -> dict:
    """One suite's tasks in its order, each with its track and its index points: the track's weight over
    the track's tasks (docs/rules.md#the-index), what a score of 1 on the task adds to the index when
    every other score is 0. A suite the benchmark has not is a usage error naming those it has."""
    from tcsexam.scoring.pipeline.run import load_suite_file, suite_path

    names = suite_names(benchmark)
    if name not in names:
        held = f"its suites: {', '.join(names)}" if names else "it holds no suites/*.json"
        raise UsageError(f"the benchmark {benchmark} has no suite '{name}' ({held}){meant(name, names)}")
    path = suite_path(benchmark, name)
    manifest, _ = load_suite_file(path)
    counts = {t: sum(1 for task in manifest.tasks if task.track == t) for t in TRACKS}
    return {
        "suite": name,
        "file": str(path),
        "tasks": [
            {"item": t.item, "track": t.track, "points": WEIGHTS[t.track] / counts[t.track]} for t in manifest.tasks
        ],
    }
