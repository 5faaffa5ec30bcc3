"""Paired comparison of two models (SPEC sections 9, 12.2 and 12.3, `tcsexam compare`).

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

from .aggregate import attempt_scores, instance_phi
from .differences import instance_differences, paired_comparison, task_means_of
from .errors import InputError, Problem
from .planning import mde
from .results import CompareDocument
from .rules import Checked
from .uncertainty import LEVEL, METHOD
from .vocab import TRACK_LETTERS, TRACKS, WEIGHTS


def check_pair(document: dict, a: str, b: str) -> None:
    """Both models in the cohort and different (rejected input otherwise, named by ``--models``)."""
    unknown = [m for m in (a, b) if m not in document["models"]]
    if unknown:
        known = ", ".join(document["models"])
        raise InputError([Problem("--models", "", m, f"model not in the cohort (models: {known})") for m in unknown])
    if a == b:
        raise InputError([Problem("--models", "", b, "compare two different models")])


def compare_models(document: dict, a: str, b: str) -> dict:
    """SPEC 9 and 12.2 ``tasks`` from an index.json document: the same formulas as the ``ci`` block,
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
    }


def compare_run(document: dict, checked: Checked, a: str, b: str) -> dict:
    """The whole ``compare`` output (SPEC 9, 12.2, 12.3): ``compare_models`` plus ``instances`` (from the
    per-instance Phi of every re-scored adopted attempt in ``checked``) and ``mde`` (from each valid
    adopted attempt's score). ``document`` and ``checked`` come from one ``output.score_run``."""
    result = compare_models(document, a, b)
    rows_a, rows_b = checked.by_model.get(a, []), checked.by_model.get(b, [])
    result["instances"] = instance_differences(
        document["models"][a]["tasks"], instance_phi(checked, a, rows_a), instance_phi(checked, b, rows_b)
    )
    scores_a = attempt_scores(document["models"][a], rows_a)
    scores_b = attempt_scores(document["models"][b], rows_b)
    paired: dict[str, list[tuple[list[float], list[float]]]] = {t: [] for t in TRACKS}
    for item, (track, xs) in scores_a.items():
        if item in scores_b:
            paired[track].append((xs, scores_b[item][1]))
    result["mde"] = mde(paired, WEIGHTS)
    return msgspec.to_builtins(msgspec.convert(result, CompareDocument))  # the shape, checked


def _fmt(x, digits=4):
    return "NA" if x is None else f"{x:+.{digits}f}"  # ASCII for scripts (scoring.cli)


def format_comparison(result: dict) -> str:
    """The text ``compare`` prints: the SPEC 9 intervals, then (when present) the per-task differences
    largest first, the solver tasks' instance counts and the MDE by attempts per task."""
    a, b = result["models"]
    lines = [f"paired difference {a} - {b} over tasks both have scored (95% t intervals)"]
    for t in TRACKS:
        r = result["tracks"].get(t)
        if r is None:
            lines.append(f"  {TRACK_LETTERS[t]} {t:<13} no common scored task")
            continue
        ci = f"[{_fmt(r['lo'])}, {_fmt(r['hi'])}]" if r["lo"] is not None else "(no interval: m < 2)"
        lines.append(f"  {TRACK_LETTERS[t]} {t:<13} {_fmt(r['mean'])} {ci}  m={r['m']}")
    idx = result["index"]
    if idx is None:
        lines.append("  index: not available (a track has no common scored task)")
    else:
        ci = f"[{_fmt(idx['lo'], 2)}, {_fmt(idx['hi'], 2)}]" if idx["lo"] is not None else "(no interval)"
        excl = ""
        if idx["lo"] is not None:
            excl = "  (interval excludes 0)" if idx["lo"] > 0 or idx["hi"] < 0 else "  (interval includes 0)"
        lines.append(f"  index difference {_fmt(idx['value'], 2)} points {ci}{excl}")
    tasks = sorted(result.get("tasks", []), key=lambda x: -abs(x["difference"]))  # stable: ties in suite order
    if tasks:
        lines.append(f"per task, largest difference first ({a} - {b}):")
        width = max(len(x["item"]) for x in tasks)
        for x in tasks:
            lines.append(
                f"  {x['item']:<{width}} {TRACK_LETTERS[x['track']]}  {_fmt(x['difference'])}"
                f"  ({x['a']:.4f} vs {x['b']:.4f})"
            )
    instances = result.get("instances") or {}
    if instances:
        lines.append(f"solver instances (mean Phi over adopted attempts): {a} better / {b} better / equal")
        width = max(len(item) for item in instances)
        for item, c in instances.items():
            lines.append(
                f"  {item:<{width}} {c['a_better']:>5} / {c['b_better']:>5} / {c['equal']:>5}"
                f"  mean difference {_fmt(c['mean_difference'])}"
            )
    mde_values = result.get("mde")
    if mde_values is not None:
        if all(v is None for v in mde_values.values()):
            lines.append("MDE: not available (a track has fewer than 2 common tasks or no task with 2 attempts)")
        else:
            cells = "  ".join(f"r={r}: {v:.2f}" for r, v in mde_values.items() if v is not None)
            lines.append(f"MDE (index points; 5% two-sided, power 80%) by attempts per task: {cells}")
    return "\n".join(lines)
