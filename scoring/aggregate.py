"""Aggregation of a cohort's attempts into per-model results (SPEC sections 1, 4 and 5).

``check_rules`` collects every rejection of SPEC 4; ``aggregate_model`` applies
R1 (attempts → tasks → tracks → weighted sum) and the incomplete / provisional
rules; ``rescore_from_records`` cross-checks solver rows against their records.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from .errors import InputError, Problem, Problems
from .inputs import Run
from .jsonio import read_if_file
from .models import AttemptRow
from .passk import DEFAULT_THRESHOLDS, mean_pass_hat_k, successes
from .reference import TaskReference
from .solver_score import TaskScore, read_records, score_task
from .uncertainty import ci_block
from .vocab import STATUS_ORDER, TRACK_SCORE_TYPE, TRACKS, WEIGHTS

CROSS_CHECK_TOLERANCE = 1e-9


def score_in_range(track: str, score: float) -> str | None:
    """R2: the values that may enter the index; returns why ``score`` may not, or None."""
    if not math.isfinite(score):
        return f"score must be finite, got {score!r}"
    if track in ("theorem", "conjecture"):
        if score not in (0.0, 1.0):
            return (
                f"a {track} score is 1 (complete proof accepted) or 0, got {score!r}; "
                "partial credit must be converted to 0"
            )
    elif track == "solver":
        if not 0.0 <= score <= 1.0:
            return f"a solver relative score lies in [0, 1], got {score!r}"
    elif score < 0.0:
        return f"a construction reward is >= 0, got {score!r}"
    return None


@dataclass
class Checked:
    """Rows sorted into those aggregated per model and those ignored (SPEC 4, last rules)."""

    by_model: dict[str, list[AttemptRow]]
    ignored: list[tuple[AttemptRow, str]]
    records_used: dict[str, str] = field(default_factory=dict)  # relative path -> sha256
    scores: dict[tuple[str, str, str], TaskScore] = field(default_factory=dict)  # (model, item, attempt) re-scored


def check_rules(run: Run) -> Checked:
    """Every rejection rule of SPEC 4 over all rows; raises InputError listing them all."""
    problems = Problems()
    problems.extend(run.problems)
    file = str(run.paths.attempts)
    cohort, suite = run.cohort, run.suite
    track_of = {t.item: t.track for t in suite.tasks}

    for model, plan in cohort.models.items():
        for item in plan.attempts_per_item:
            if item not in track_of:
                problems.add(
                    run.paths.cohort,
                    f"models.{model}.attempts_per_item",
                    item,
                    f"item '{item}' is not in suite '{suite.suite}'",
                )

    first_line: dict[tuple, int] = {}
    by_model: dict[str, list[AttemptRow]] = defaultdict(list)
    ignored: list[tuple[AttemptRow, str]] = []
    for row in run.attempts.rows:
        where = f"line {row.line}"
        if row.key in first_line:
            problems.add(
                file,
                where,
                "attempt",
                f"duplicate attempt '{row.attempt}' of ({row.model}, {row.track}, "
                f"{row.item}); first at line {first_line[row.key]}",
            )
            continue
        first_line[row.key] = row.line
        if row.score_type != TRACK_SCORE_TYPE[row.track]:
            problems.add(
                file,
                where,
                "score_type",
                f"a {row.track} row takes score_type '{TRACK_SCORE_TYPE[row.track]}', got '{row.score_type}'",
            )
        if row.track == "solver" and not row.solver_protocol:
            problems.add(file, where, "solver_protocol", "a solver row declares 'online' or 'offline'")
        if row.item in track_of and track_of[row.item] != row.track:
            problems.add(
                file,
                where,
                "track",
                f"item '{row.item}' is a {track_of[row.item]} task in suite "
                f"'{suite.suite}', the row says '{row.track}'",
            )
            continue
        if row.model not in cohort.models:
            ignored.append((row, "model not in cohort"))
            continue
        if row.item not in track_of:
            ignored.append((row, f"item not in suite '{suite.suite}'"))
            continue
        by_model[row.model].append(row)
        if not row.adopted:
            continue
        if row.track == "solver" and row.solver_protocol and row.solver_protocol != cohort.solver_protocol:
            problems.add(
                file,
                where,
                "solver_protocol",
                f"adopted solver row is '{row.solver_protocol}' but the "
                f"cohort's protocol is '{cohort.solver_protocol}'",
            )
        if row.track == "solver" and row.reference_id and row.reference_id != cohort.solver_reference_id:
            problems.add(
                file,
                where,
                "reference_id",
                f"row was scored against '{row.reference_id}', the cohort declares '{cohort.solver_reference_id}'",
            )
        if row.score is not None:
            why = score_in_range(row.track, row.score)
            if why:
                problems.add(file, where, "score", why)

    for model, rows in by_model.items():
        adopted = Counter(r.item for r in rows if r.adopted)
        for item, count in adopted.items():
            planned = cohort.planned(model, item)
            if count > planned:
                lines = ", ".join(str(r.line) for r in rows if r.adopted and r.item == item)
                problems.add(
                    file,
                    f"lines {lines}",
                    "adoption_status",
                    f"{count} adopted attempts of ({model}, {item}) but {planned} planned",
                )

    checked = Checked(dict(by_model), ignored)
    if run.paths.records is not None and run.reference is not None:
        rescore_from_records(run, checked, problems)
    problems.raise_if_any()
    return checked


def rescore_from_records(run: Run, checked: Checked, problems: Problems) -> None:
    """SPEC 4: an adopted solver row with a records file is re-scored; a difference over 1e-9 rejects.

    The attempts of one task are scored together (``rescore_task``); each re-scored attempt's
    per-instance scores are kept in ``checked.scores`` (the dashboard shows them).
    """
    root = run.paths.records
    ref = run.reference
    assert root is not None and ref is not None
    base = str(root)
    # (model, row, path relative to records/) per task; plain strings: 10^4 files, no pathlib per file
    by_item: dict[str, list[tuple[str, AttemptRow, str]]] = defaultdict(list)
    for model, rows in checked.by_model.items():
        for row in rows:
            if row.adopted and row.track == "solver" and row.score is not None and row.score_status == "valid":
                by_item[row.item].append((model, row, f"{model}/{row.item}/{row.attempt}.json"))
    tasks = {item: ref.task(item) for item in by_item if ref.has_task(item)}
    work = [(tasks[item], base, [rel for _, _, rel in jobs]) for item, jobs in by_item.items() if item in tasks]
    outcomes = (rescore_task(*w) for w in work)
    for item, jobs in by_item.items():
        if item not in tasks:
            problem = Problem(
                str(ref.path), "tasks", item, f"solver task '{item}' is not in reference '{ref.reference_id}'"
            )
            problems.extend(problem for _, _, rel in jobs if os.path.isfile(os.path.join(base, rel)))
            continue
        for (model, row, rel), (result, digest, found) in zip(jobs, next(outcomes), strict=True):
            if found:
                problems.extend(found)
            if result is None or digest is None or row.score is None:
                continue
            checked.records_used[rel] = digest
            relative = result.relative_score
            checked.scores[(model, row.item, row.attempt)] = result
            if abs(relative - row.score) > CROSS_CHECK_TOLERANCE:
                problems.add(
                    run.paths.attempts,
                    f"line {row.line}",
                    "score",
                    f"CSV score {row.score!r} differs from {relative!r} re-scored from "
                    f"{os.path.join(base, rel)} against '{ref.reference_id}' (tolerance 1e-9)",
                )


Outcome = tuple[TaskScore | None, str | None, list[Problem]]  # the score, the file's sha256, its problems


def rescore_task(task_ref: TaskReference, base: str, rels: list[str]) -> list[Outcome]:
    """Read, check and score the records files ``rels`` (under ``base``) of one task; per file its
    TaskScore (None when there is no file or it has problems), its sha256 and its problems."""
    outcomes: list[Outcome] = []
    for rel in rels:
        path = os.path.join(base, rel)
        try:
            data = read_if_file(path, "records file")
            if data is None:  # no file: this attempt is not re-scored
                outcomes.append((None, None, []))
                continue
            score = score_task(task_ref, read_records(data, path, task_ref.kind))
        except InputError as exc:
            outcomes.append((None, None, exc.problems))
            continue
        outcomes.append((score, hashlib.sha256(data).hexdigest(), []))
    return outcomes


def mean(values: list[float]) -> float:
    return math.fsum(values) / len(values)


def aggregate_model(model: str, rows: list[AttemptRow], run: Run, thresholds: dict[str, float]) -> dict:
    """R1 and the incomplete / provisional rules of SPEC 4 for one model; pass^k (SPEC 5); ci (SPEC 9)."""
    cohort = run.cohort
    by_item: dict[str, list[AttemptRow]] = defaultdict(list)
    for r in rows:
        by_item[r.item].append(r)
    tasks: dict[str, dict] = {}
    coverage: dict[str, list[dict]] = {"missing": [], "provisional": [], "not_valid": [], "excluded": []}
    issues: list[dict] = []
    for task in run.suite.tasks:
        item, track = task.item, task.track
        planned = cohort.planned(model, item)
        adopted = [r for r in by_item.get(item, []) if r.adopted]
        valid = [r for r in adopted if r.score_status == "valid"]
        for r in by_item.get(item, []):
            if r.adopted:
                continue
            score = r.score if r.score is not None and math.isfinite(r.score) else None
            coverage["excluded"].append(
                {"item": item, "track": track, "attempt": r.attempt, "line": r.line, "score": score, "note": r.note}
            )
            if not r.note:
                issues.append(
                    {
                        "kind": "warning",
                        "item": item,
                        "attempt": r.attempt,
                        "line": r.line,
                        "message": "excluded attempt without a note saying why it was replaced",
                    }
                )
        for r in adopted:
            if r.adoption_status == "selected_provisional":
                coverage["provisional"].append({"item": item, "track": track, "attempt": r.attempt, "line": r.line})
            if r.score_status != "valid":
                coverage["not_valid"].append(
                    {"item": item, "track": track, "attempt": r.attempt, "line": r.line, "score_status": r.score_status}
                )
                issues.append(
                    {
                        "kind": "incomplete",
                        "item": item,
                        "attempt": r.attempt,
                        "line": r.line,
                        "message": f"adopted attempt is '{r.score_status}': its result is not there yet",
                    }
                )
        if len(adopted) < planned:
            coverage["missing"].append(
                {
                    "item": item,
                    "track": track,
                    "adopted": len(adopted),
                    "planned": planned,
                    "missing": planned - len(adopted),
                }
            )
            issues.append(
                {
                    "kind": "incomplete",
                    "item": item,
                    "attempt": None,
                    "line": None,
                    "message": f"{planned - len(adopted)} of {planned} planned attempts missing",
                }
            )
        complete = len(adopted) == planned and len(valid) == planned
        if not complete:
            status = "incomplete"
        elif any(r.adoption_status == "selected_provisional" for r in adopted):
            status = "provisional"
        else:
            status = "complete"
        valid_scores = [r.score for r in valid if r.score is not None]  # a valid row has a score
        partial = mean(valid_scores) if valid_scores else None
        tasks[item] = {
            "track": track,
            "mean": partial if complete else None,
            "partial_mean": partial,
            "adopted": len(adopted),
            "valid": len(valid),
            "planned": planned,
            "status": status,
        }

    track_scores: dict[str, list[float] | None] = {}
    for name in TRACKS:
        entries = [t for t in tasks.values() if t["track"] == name]
        track_scores[name] = None if any(t["mean"] is None for t in entries) else [t["mean"] for t in entries]
    track_means = {t: (mean(v) if v else None) for t, v in track_scores.items()}
    index = index_from_track_means(track_means)
    statuses = [t["status"] for t in tasks.values()]
    status = max(statuses, key=STATUS_ORDER.__getitem__) if statuses else "complete"

    return {
        "status": status,
        "index": index,
        "track_means": track_means,
        "tasks": tasks,
        "coverage": coverage,
        "pass_hat_k": pass_hat_k_by_track(tasks, by_item, thresholds),
        "issues": issues,
        "ci": ci_block(track_scores, index, WEIGHTS),
    }


def index_from_track_means(track_means: dict[str, float | None]) -> float | None:
    """SPEC 1: index = 30·P + 30·S + 30·C + 10·O in points; null when any track mean is null."""
    means = [track_means[t] for t in TRACKS]
    if any(m is None for m in means):
        return None
    return math.fsum(WEIGHTS[t] * m for t, m in zip(TRACKS, means, strict=True) if m is not None)


def pass_hat_k_by_track(
    tasks: dict[str, dict], by_item: dict[str, list[AttemptRow]], thresholds: dict[str, float]
) -> dict[str, dict]:
    """SPEC 5: per task n = valid adopted attempts, c = those >= threshold; mean over tasks with n >= k."""
    out = {}
    for track in TRACKS:
        thr = thresholds.get(track, DEFAULT_THRESHOLDS[track])
        counts = []
        for item, t in tasks.items():
            if t["track"] != track:
                continue
            scores = [
                r.score
                for r in by_item.get(item, [])
                if r.adopted and r.score_status == "valid" and r.score is not None
            ]
            counts.append((len(scores), successes(scores, thr)))
        by_k = mean_pass_hat_k(counts)
        out[track] = {
            "threshold": thr,
            "tasks": sum(1 for n, _ in counts if n >= 1),
            "by_k": {str(k): v for k, v in by_k.items()},
        }
    return out


def ignored_rows_summary(ignored: list[tuple[AttemptRow, str]]) -> dict:
    """SPEC 4: rows of models outside the cohort or items outside the suite, counted and listed."""
    models = Counter(r.model for r, why in ignored if why.startswith("model"))
    items = Counter(r.item for r, why in ignored if why.startswith("item"))
    return {
        "count": len(ignored),
        "models_outside_cohort": dict(sorted(models.items())),
        "items_outside_suite": dict(sorted(items.items())),
        "rows": [
            {"line": r.line, "model": r.model, "track": r.track, "item": r.item, "attempt": r.attempt, "reason": why}
            for r, why in ignored
        ],
    }


def worst_status(statuses: list[str]) -> str:
    return max(statuses, key=STATUS_ORDER.__getitem__) if statuses else "complete"


def evaluate_run(run: Run, thresholds: dict[str, float] | None = None) -> tuple[dict, Checked]:
    """All models of the cohort: the ``models`` block, the ``ignored_rows`` block and the overall status."""
    thresholds = {**DEFAULT_THRESHOLDS, **(thresholds or {})}
    checked = check_rules(run)
    models = {m: aggregate_model(m, checked.by_model.get(m, []), run, thresholds) for m in run.cohort.models}
    result = {
        "status": worst_status([m["status"] for m in models.values()]),
        "models": models,
        "ignored_rows": ignored_rows_summary(checked.ignored),
    }
    return result, checked


def records_digest(records_used: dict[str, str]) -> str:
    """One sha256 over the records files that were read: sorted 'path sha256' lines."""
    lines = "".join(f"{p} {h}\n" for p, h in sorted(records_used.items()))
    return hashlib.sha256(lines.encode()).hexdigest()
