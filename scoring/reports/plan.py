"""The plan document: attempts per task needed for a precision, and the detectable differences."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tcsexam.scoring.grammar import counted
from tcsexam.scoring.vocab import TRACKS, WEIGHTS

if TYPE_CHECKING:
    from tcsexam.scoring.formats.results import ObservedPrecision
    from tcsexam.scoring.pipeline.rules import Checked


def plan_document(document: dict, checked: Checked, max_attempts: int, target: float | None) -> dict:
    """docs/rules.md#planning-attempts's output for a scored run: per model (cohort order) the planner over the scores of the
    valid adopted attempts of each task with a task mean, grouped by track in suite order."""
    import msgspec

    from tcsexam.scoring.pipeline.aggregate import attempt_scores
    from tcsexam.scoring.stats.planning import plan

    models = {}
    observed = {}
    for name, entry in document["models"].items():
        by_track: dict[str, list[list[float]]] = {t: [] for t in TRACKS}
        scores = attempt_scores(entry, checked.by_model.get(name, []))
        for track, xs in scores.values():
            by_track[track].append(xs)
        models[name] = by_track
        observed[name] = observed_precision(entry, [len(xs) for _, xs in scores.values()])
    result = plan(models, WEIGHTS, max_attempts, target)
    for name, entry in result.models.items():
        entry.observed = observed[name]
    return msgspec.to_builtins(result)


def observed_precision(entry: dict, attempts: list[int]) -> ObservedPrecision:
    """The run's own 95% half-width of a model's index (its ``ci.index``, docs/rules.md#intervals) and
    the valid attempts of its scored tasks when every one has the same number: what a projection at
    that r is read beside (docs/rules.md#planning-attempts)."""
    from tcsexam.scoring.formats.results import ObservedPrecision

    index = entry["ci"]["index"]
    half = index["hi"] - index["value"] if index is not None and index["hi"] is not None else None
    return ObservedPrecision(half, attempts[0] if attempts and len(set(attempts)) == 1 else None)


def unreached(attempts: int, limit: float | None, target: float) -> str:
    """A target no projected attempts reach, and where more attempts would take the half-width: its limit
    with unlimited attempts (docs/rules.md#planning-attempts), which a target below it never reaches."""
    said = f"not reached with up to {counted(attempts, 'attempt')}"
    if limit is None:
        return said
    said += f"; with more it levels off at {limit:.2f} points"
    if limit > target:
        said += ", the spread between tasks: more tasks narrow it, more attempts do not"
    return said
