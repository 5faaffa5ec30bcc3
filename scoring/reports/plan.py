"""The plan document: attempts per task needed for a precision, and the detectable differences."""

from __future__ import annotations

from typing import TYPE_CHECKING

from scoring.vocab import TRACKS, WEIGHTS

if TYPE_CHECKING:
    from scoring.pipeline.rules import Checked


def plan_document(document: dict, checked: Checked, max_attempts: int, target: float | None) -> dict:
    """SPEC 12.3's output for a scored run: per model (cohort order) the planner over the scores of the
    valid adopted attempts of each task with a task mean, grouped by track in suite order."""
    import msgspec

    from scoring.pipeline.aggregate import attempt_scores
    from scoring.stats.planning import plan

    models = {}
    for name, entry in document["models"].items():
        by_track: dict[str, list[list[float]]] = {t: [] for t in TRACKS}
        for track, xs in attempt_scores(entry, checked.by_model.get(name, [])).values():
            by_track[track].append(xs)
        models[name] = by_track
    result = plan(models, WEIGHTS, max_attempts, target)
    return msgspec.to_builtins(result)
