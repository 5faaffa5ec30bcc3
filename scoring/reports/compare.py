"""Paired comparison of two models (docs/rules.md#intervals, docs/rules.md#per-task-differences and docs/rules.md#planning-attempts, `tcsexam compare`).

``compare_models`` reads an index.json document: the per-task differences A − B
over the tasks both models have scored, per track the task-clustered t interval
of the mean difference, and for the index the weighted sum with
Welch–Satterthwaite degrees of freedom (``differences.paired_comparison``, the
one place of that rule). ``compare_run`` adds what only the loaded run holds:
the per-instance counts of the solver tasks, from the Phi arrays the records
cross-check re-scored, and the MDE, from each attempt's score.
"""

from __future__ import annotations

import msgspec

from tcsexam.scoring.errors import InputError, Problem
from tcsexam.scoring.formats.results import CompareDocument
from tcsexam.scoring.pipeline.aggregate import attempt_scores, phi_by_item
from tcsexam.scoring.pipeline.rules import Checked
from tcsexam.scoring.stats.differences import instance_differences, paired_comparison, task_means_of
from tcsexam.scoring.stats.planning import mde, mde_clipped
from tcsexam.scoring.stats.uncertainty import LEVEL, METHOD
from tcsexam.scoring.vocab import TRACKS, WEIGHTS


def check_pair(document: dict, a: str, b: str) -> None:
    """Both models in the cohort and different (rejected input otherwise, named by ``--models``)."""
    unknown = [m for m in (a, b) if m not in document["models"]]
    if unknown:
        known = ", ".join(document["models"])
        raise InputError([Problem("--models", "", m, f"model not in the cohort (models: {known})") for m in unknown])
    if a == b:
        raise InputError([Problem("--models", "", b, "compare two different models")])


def compare_models(document: dict, a: str, b: str) -> dict:
    """docs/rules.md#intervals and docs/rules.md#per-task-differences ``tasks`` from an index.json document: the same formulas as the ``ci`` block,
    on paired per-task differences."""
    check_pair(document, a, b)
    models = document["models"]
    paired = paired_comparison(task_means_of(models[a]), task_means_of(models[b]), WEIGHTS)
    return {
        "models": [a, b],
        "method": METHOD,
        "level": LEVEL,
        "difference": f"{a} - {b}",
        "tracks": paired["tracks"],
        "index": paired["index"],
        "tasks": paired["tasks"],
        "incomplete": left_out(models, a, b),
    }


def left_out(models: dict, a: str, b: str) -> dict[str, list[str]]:
    """Each incomplete model of the pair with its tasks that have no task mean, in suite order: they are
    left out of every paired difference, which is then not a difference of indices."""
    out = {m: [item for item, t in models[m]["tasks"].items() if t["mean"] is None] for m in (a, b)}
    return {m: items for m, items in out.items() if items}


SHOWN_TASKS = 5  # an incomplete model's tasks named in the note; more are counted


def incomplete_note(result: dict) -> str | None:
    """What ``compare`` and the dashboard's Compare say when a model of the pair is incomplete
    (docs/rules.md#per-task-differences); None when both are complete or provisional."""
    if not result["incomplete"]:
        return None
    parts = []
    for model, items in result["incomplete"].items():
        named = ", ".join(items[:SHOWN_TASKS]) + (
            f" and {len(items) - SHOWN_TASKS} more" if len(items) > SHOWN_TASKS else ""
        )
        parts.append(f"{model} is incomplete ({len(items)} task{'' if len(items) == 1 else 's'} left out: {named})")
    common = len(result["tasks"])
    return (
        "; ".join(parts) + f": this is a difference over the {common} task{'' if common == 1 else 's'} both have "
        "scored, not a difference of indices"
    )


def mde_note(result: dict) -> str | None:
    """The note on an MDE whose between-task variance of the differences was floored at 0 on some track
    (docs/rules.md#planning-attempts); None otherwise."""
    clipped = result["mde_clipped"]
    if not clipped:
        return None
    return (
        f"σ_bd² clipped at 0 for {', '.join(clipped)} (the task differences vary less than attempt noise "
        "predicts): the MDE is conservative, and a smaller difference can be detected, as the interval above shows"
    )


def compare_run(document: dict, checked: Checked, a: str, b: str) -> dict:
    """The whole ``compare`` output (docs/rules.md#intervals, docs/rules.md#per-task-differences and docs/rules.md#planning-attempts): ``compare_models`` plus ``instances`` (from the
    per-instance Phi of every re-scored adopted attempt in ``checked``) and ``mde`` (from each valid
    adopted attempt's score). ``document`` and ``checked`` come from one ``pipeline.index.score_run``."""
    result = compare_models(document, a, b)
    rows_a, rows_b = checked.by_model.get(a, []), checked.by_model.get(b, [])
    result["instances"] = instance_differences(
        document["models"][a]["tasks"], phi_by_item(checked, a, rows_a), phi_by_item(checked, b, rows_b)
    )
    scores_a = attempt_scores(document["models"][a], rows_a)
    scores_b = attempt_scores(document["models"][b], rows_b)
    paired: dict[str, list[tuple[list[float], list[float]]]] = {t: [] for t in TRACKS}
    for item, (track, xs) in scores_a.items():
        if item in scores_b:
            paired[track].append((xs, scores_b[item][1]))
    result["mde"] = mde(paired, WEIGHTS)
    result["mde_clipped"] = mde_clipped(paired, WEIGHTS)
    return msgspec.to_builtins(msgspec.convert(result, CompareDocument))  # the shape, checked
