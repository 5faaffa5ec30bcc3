"""Paired comparison of two models (docs/rules.md#intervals, docs/rules.md#per-task-differences and docs/rules.md#planning-attempts, `tcsexam compare`).

``compare_models`` reads an index.json document: the per-task differences A − B
over the tasks both models have scored, per track the task-clustered t interval
of the mean difference, and for the index the weighted sum with
Welch–Satterthwaite degrees of freedom (``differences.paired_comparison``, the
one place of that rule). ``compare_run`` adds what only the loaded run holds:
the per-instance counts of the solver tasks both models have scored, from the
Phi arrays the records cross-check re-scored, the solver tasks without them
with why, and the MDE, from each attempt's score.
"""

from __future__ import annotations

import msgspec

from tcsexam.scoring.errors import InputError, Problem
from tcsexam.scoring.formats.results import CompareDocument
from tcsexam.scoring.pipeline.aggregate import attempt_scores, phi_by_item
from tcsexam.scoring.pipeline.lineup import KnownNames
from tcsexam.scoring.pipeline.rules import Checked, CloseNames
from tcsexam.scoring.stats.differences import instance_differences, paired_comparison, task_means_of
from tcsexam.scoring.stats.planning import mde, mde_clipped
from tcsexam.scoring.stats.uncertainty import LEVEL, METHOD
from tcsexam.scoring.vocab import TRACKS, WEIGHTS

NAMED = 10  # the cohort's models a rejected --models names, at most


def check_pair(document: dict, a: str, b: str) -> None:
    """Both models in the cohort and different (rejected input otherwise, named by ``--models``, with the
    model it was likely meant to be, as a row of attempts.csv gets)."""
    unknown = [m for m in (a, b) if m not in document["models"]]
    if unknown:
        models = list(document["models"])
        close = CloseNames(models)
        known = ", ".join(models[:NAMED]) + (f" and {len(models) - NAMED:,} more" if len(models) > NAMED else "")
        raise InputError(
            [
                Problem("--models", "", m, f"model not in the cohort{KnownNames.meant(close, m)} (models: {known})")
                for m in unknown
            ]
        )
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


def no_common_note(result: dict) -> str | None:
    """What ``compare`` and the dashboard's Compare say when some track has no task both models have
    scored (docs/rules.md#per-task-differences): that track has no difference, and the paired index
    difference, a weighted sum over every track, is not computed; None when every track has one."""
    missing = [t for t in TRACKS if t not in result["tracks"]]
    if not missing:
        return None
    named = missing[0] if len(missing) == 1 else ", ".join(missing[:-1]) + " or " + missing[-1]
    return f"no {named} task is scored by both models, so the paired index difference is not computed"


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


def mde_plain_note(result: dict) -> str | None:
    """``mde_note`` in plain words, for the dashboard (docs/rules.md#planning-attempts); None otherwise."""
    clipped = result["mde_clipped"]
    if not clipped:
        return None
    return (
        f"on {', '.join(clipped)} the task differences vary less than attempt noise alone would make them, so "
        "these gaps are on the safe side: smaller ones can be detected, as the interval above shows"
    )


def compare_run(document: dict, checked: Checked, a: str, b: str) -> dict:
    """The whole ``compare`` output (docs/rules.md#intervals, docs/rules.md#per-task-differences and docs/rules.md#planning-attempts): ``compare_models`` plus ``instances`` (from the
    per-instance Phi of every re-scored adopted attempt in ``checked``, for the tasks both have scored),
    ``instances_left_out`` (the other solver tasks, with why) and ``mde`` (from each valid
    adopted attempt's score). ``document`` and ``checked`` come from one ``pipeline.index.score_run``."""
    result = compare_models(document, a, b)
    rows_a, rows_b = checked.by_model.get(a, []), checked.by_model.get(b, [])
    scored = {x.item: x for x in result["tasks"]}  # the tasks both have scored, in suite order
    result["instances"] = instance_differences(scored, phi_by_item(checked, a, rows_a), phi_by_item(checked, b, rows_b))
    result["instances_left_out"] = instances_left_out(document, checked, (a, b), result["instances"])
    scores_a = attempt_scores(document["models"][a], rows_a)
    scores_b = attempt_scores(document["models"][b], rows_b)
    paired: dict[str, list[tuple[list[float], list[float]]]] = {t: [] for t in TRACKS}
    for item, (track, xs) in scores_a.items():
        if item in scores_b:
            paired[track].append((xs, scores_b[item][1]))
    result["mde"] = mde(paired, WEIGHTS)
    result["mde_clipped"] = mde_clipped(paired, WEIGHTS)
    return msgspec.to_builtins(msgspec.convert(result, CompareDocument))  # the shape, checked


def instances_left_out(document: dict, checked: Checked, pair: tuple[str, str], instances: dict) -> dict[str, str]:
    """Each solver task of the suite without instance counts, in suite order, with why
    (docs/rules.md#per-task-differences): counts come only from attempts that count, so a task needs a
    task mean from both models and every adopted attempt of both re-scored from its records file."""
    models = document["models"]
    attempts = {m: solver_attempts(checked, m) for m in pair}
    rescored = {m: any(key in checked.scores for keys in attempts[m].values() for key in keys) for m in pair}
    out = {}
    for item, task in models[pair[0]]["tasks"].items():
        if task["track"] == "solver" and item not in instances:
            reasons = [
                instance_reason(models[m], checked, m, item, attempts[m].get(item, []), rescored[m]) for m in pair
            ]
            out[item] = "; ".join(r for r in reasons if r) or "no per-instance scores from records"
    return out


def solver_attempts(checked: Checked, name: str) -> dict[str, list[tuple[str, str, str]]]:
    """The keys of ``checked.scores`` of ``name``'s adopted solver attempts, by task."""
    out: dict[str, list[tuple[str, str, str]]] = {}
    for r in checked.by_model.get(name, []):
        if r.adopted and r.track == "solver":
            out.setdefault(r.item, []).append((name, r.item, r.attempt))
    return out


def instance_reason(
    model: dict, checked: Checked, name: str, item: str, keys: list[tuple[str, str, str]], any_rescored: bool
) -> str | None:
    """Why ``name``'s attempts (``keys``) of the solver task ``item`` give no per-instance scores: no task
    mean (an adopted attempt not valid, or planned attempts missing), no attempt of ``name`` re-scored at
    all, or an adopted attempt not re-scored from its records file; None when they give them."""
    task = model["tasks"][item]
    if task["mean"] is None:
        bad = [
            f"adopted attempt {x['attempt']} is '{x['score_status']}'"
            for x in model["coverage"]["not_valid"]
            if x["item"] == item
        ]
        why = ", ".join(bad) if bad else f"{task['adopted']} of {task['planned']} planned attempts"
        return f"{name} has no task mean ({why})"
    if not any_rescored:
        return f"{name} has no attempt re-scored from records"
    missing = [key[2] for key in keys if key not in checked.scores]
    if not missing:
        return None
    if len(missing) == 1:
        return f"{name}'s attempt {missing[0]} was not re-scored from a records file"
    return f"{name}'s attempts {', '.join(missing)} were not re-scored from a records file"
