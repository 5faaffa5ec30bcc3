"""What a benchmark folder's solver references hold, as ``tcsexam reference`` lists it
(docs/commands.md#reference): the references and their suites, a reference's tasks with their
scored and unscored instance counts, one task's instances in full."""

from __future__ import annotations

from pathlib import Path

from tcsexam.scoring.errors import UsageError
from tcsexam.scoring.grammar import meant
from tcsexam.scoring.pipeline.reference import LoadedReference


def benchmark_references(benchmark: Path) -> dict:
    """Every reference of BENCHMARK/references/: its id and the suites it has a file for."""
    root = benchmark / "references"
    ids = sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    return {
        "benchmark": str(benchmark),
        "references": [
            {"reference_id": rid, "suites": [s for s in ("lite", "full") if (root / rid / f"{s}.json").is_file()]}
            for rid in ids
        ],
    }


def reference_tasks(reference: LoadedReference) -> dict:
    """A reference's solver tasks: kind, direction, and how many scored and unscored instances each has."""
    unscored = unscored_of(reference)
    return {
        "reference_id": reference.reference_id,
        "suite": reference.suite,
        "file": str(reference.path),
        "tasks": [
            {
                "task": name,
                "kind": task.kind,
                "direction": task.direction,
                "scored": task.n_scored,
                "unscored": len(unscored.get(name, [])),
            }
            for name, task in reference.tasks.items()
        ],
    }


def task_instances(reference: LoadedReference, item: str) -> dict:
    """One task of a reference in full: every scored instance with its mean, standard deviation and
    scale (docs/rules.md#solver-score), in the file's order, then every unscored instance with its
    values. A task the reference does not hold is a usage error naming those it holds."""
    if not reference.has_task(item):
        raise no_such_task(reference, item)
    task = reference.task(item)
    return {
        "reference_id": reference.reference_id,
        "suite": reference.suite,
        "file": str(reference.path),
        "task": item,
        "kind": task.kind,
        "direction": task.direction,
        "scored": [
            {"instance": name, "mu": mu, "s": s, "scale": scale}
            for name, mu, s, scale in zip(
                task.names, task.mu.tolist(), task.s.tolist(), task.scale.tolist(), strict=True
            )
        ],
        "unscored": [{"instance": u.instance, "values": u.values} for u in unscored_of(reference).get(item, [])],
    }


def unscored_of(reference: LoadedReference) -> dict[str, list]:
    """The reference's unscored instances by task, in the file's order."""
    out: dict[str, list] = {}
    for u in reference.header.unscored:
        out.setdefault(u.task, []).append(u)
    return out


def no_such_task(reference: LoadedReference, item: str) -> UsageError:
    """``--task ITEM`` of a task the reference does not hold (``reference``, ``solver-score``): a usage
    error naming the task it was likely meant to be and the tasks it holds."""
    tasks = list(reference.tasks)
    return UsageError(
        f"--task: reference '{reference.reference_id}' (suite {reference.suite}) has no solver task {item!r}"
        f"{meant(item, tasks)} "
        f"(its tasks: {', '.join(tasks)})"
    )
