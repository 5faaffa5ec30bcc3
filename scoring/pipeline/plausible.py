"""Scores that are legal but implausible (docs/rules.md#plausible-scores): a construction reward may
exceed 1, so 85 typed for 0.85 passes every rule of the track; it is a warning naming the row,
which ``--strict`` turns into a rejection.
"""

from __future__ import annotations

import statistics
from collections import defaultdict

from tcsexam.scoring.formats.inputs import AttemptRow
from tcsexam.scoring.formats.results import Issue
from tcsexam.scoring.pipeline.rules import Checked, percentage_hint

# A construction reward above this is taken for a slip (docs/rules.md#plausible-scores): the track's
# tasks reward a construction relative to a known one, and a reward ten times the known one has not
# been seen; a percentage typed for a fraction lands far above it.
CONSTRUCTION_PLAUSIBLE_MAX = 10.0
# ... and a reward above 1 that is this many times the median of the other scores of its task
MEDIAN_FACTOR = 10.0


def implausible_scores(checked: Checked) -> dict[str, list[Issue]]:
    """Per model, a warning for each valid adopted construction score above 1 that is above
    ``CONSTRUCTION_PLAUSIBLE_MAX`` or ``MEDIAN_FACTOR`` times the median of the valid adopted scores
    of its task in the run (every model's, its own among them)."""
    by_item: dict[str, list[tuple[str, AttemptRow]]] = defaultdict(list)
    for model, rows in checked.by_model.items():
        for r in rows:
            if r.track == "construction" and r.adopted and r.score_status == "valid" and r.score is not None:
                by_item[r.item].append((model, r))
    out: dict[str, list[Issue]] = {}
    for item, scored in by_item.items():
        high = [(model, row) for model, row in scored if (row.score or 0.0) > 1.0]
        if not high:
            continue
        median = statistics.median(row.score or 0.0 for _, row in scored)
        for model, row in high:
            why = implausible(row.score or 0.0, median)
            if why:
                message = f"construction score {row.score!r} is {why}{percentage_hint('construction', row.score or 0.0) or ''}"
                out.setdefault(model, []).append(Issue("warning", item, row.attempt, row.line, message))
    return out


def implausible(score: float, median: float) -> str | None:
    """Why a construction ``score`` is implausible beside the ``median`` of its task's scores, or None."""
    if score <= 1.0:
        return None
    if score > CONSTRUCTION_PLAUSIBLE_MAX:
        return f"above {CONSTRUCTION_PLAUSIBLE_MAX:g}, far above what a construction task rewards in practice"
    if median > 0 and score > MEDIAN_FACTOR * median:
        return f"{score / median:.0f} times the median {median:.3g} of its task's scores in the run"
    return None
