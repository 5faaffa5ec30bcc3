"""Aggregation of a cohort's attempts into per-model results (docs/rules.md#the-index, docs/rules.md#aggregation and docs/rules.md#passk).

``evaluate_run`` takes a loaded run through the rules (``scoring.pipeline.rules``), the
records cross-check (``scoring.pipeline.crosscheck``) and ``aggregate_model``, which
applies R1 (attempts → tasks → tracks → weighted sum), the incomplete /
provisional rules, pass^k, the intervals and their variance budget; the
document's ``ranks`` (docs/rules.md#ranks) come from the models' task means.
``attempt_scores`` and ``phi_by_item`` hand the per-attempt values of a model
to the planner and to ``compare`` (docs/rules.md#per-task-differences and docs/rules.md#planning-attempts).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass

import msgspec
import numpy as np

from tcsexam.scoring.errors import Problem
from tcsexam.scoring.formats.inputs import AttemptRow
from tcsexam.scoring.formats.results import (
    AttemptRef,
    CIBlock,
    CohortTypo,
    Coverage,
    ExcludedAttempt,
    IgnoredRow,
    IgnoredRows,
    Issue,
    MissingAttempts,
    ModelResult,
    NotValidAttempt,
    PassHatK,
    Ranks,
    TaskResult,
    UnusedRecords,
)
from tcsexam.scoring.grammar import counted
from tcsexam.scoring.pipeline.crosscheck import diagnose_waiting_rows, rescore_from_records
from tcsexam.scoring.pipeline.lineup import Lineup, line_up
from tcsexam.scoring.pipeline.plausible import implausible_scores
from tcsexam.scoring.pipeline.rules import MODEL_NOT_IN_COHORT, Checked, Ignored, check_rules
from tcsexam.scoring.pipeline.run import Run
from tcsexam.scoring.safety.numbers import NumberTooLarge, finite_fsum, finite_mean, require_finite
from tcsexam.scoring.safety.terminal import written_apart
from tcsexam.scoring.stats.passk import DEFAULT_THRESHOLDS, mean_pass_hat_k, successes
from tcsexam.scoring.stats.planning import shares_of_ci
from tcsexam.scoring.stats.ranks import rank_models
from tcsexam.scoring.stats.uncertainty import LEVEL, METHOD, ci_block, ci_blocks
from tcsexam.scoring.vocab import NOT_CHECKED, STATUS_ORDER, TRACKS, WEIGHTS, RunStatus, Track

Waiting = dict[tuple[str, str, str], str]  # (model, item, attempt) -> what its records file lacks


def mean(values: list[float]) -> float:
    """docs/rules.md#aggregation mean by math.fsum; NumberTooLarge naming the largest value when it overflows (docs/safety.md)."""
    return finite_mean(values, "a mean")


def valid_scores(rows: list[AttemptRow]) -> list[float]:
    """The scores that enter R1: those of the adopted rows whose ``score_status`` is valid, in row order."""
    return [r.score for r in rows if r.adopted and r.score_status == "valid" and r.score is not None]


def not_valid_message(row: AttemptRow, waiting: str | None = None) -> str:
    """Why an adopted attempt that is not valid leaves its task incomplete (docs/rules.md#aggregation); a
    score typed in while score_status is still the skeleton's 'missing' is told how to count; a solver
    attempt whose records file is there says what the file lacks (``waiting``, docs/rules.md#rows-and-records)."""
    if row.score_status == "missing" and row.score is not None:
        return f"line {row.line} has a score but score_status 'missing': set it to valid"
    message = f"adopted attempt is '{row.score_status}': its result is not there yet"
    return f"{message}; {waiting}" if waiting else message


def aggregate_model(
    model: str, rows: list[AttemptRow], run: Run, thresholds: dict[str, float], waiting: Waiting | None = None
) -> tuple[ModelResult, dict[str, list[float] | None]]:
    """R1 and the incomplete / provisional rules of docs/rules.md#aggregation for one model; pass^k (docs/rules.md#passk). Its ``ci``
    (docs/rules.md#intervals) is left to ``attach_ci``, for all models at once: the model's entry and its task means by
    track (None for a track with an incomplete task) are returned."""
    by_item: dict[str, list[AttemptRow]] = defaultdict(list)
    for r in rows:
        by_item[r.item].append(r)
    coverage = Coverage(missing=[], provisional=[], not_valid=[], excluded=[])
    issues: list[Issue] = []
    waiting_here = {(item, attempt): why for (m, item, attempt), why in (waiting or {}).items() if m == model}
    tasks = {
        task.item: task_result(
            task.item,
            task.track,
            by_item.get(task.item, []),
            run.cohort.planned(model, task.item),
            coverage,
            issues,
            waiting_here,
        )
        for task in run.suite.tasks
    }
    track_scores = task_means_by_track(tasks)
    track_means = {t: (mean(v) if v else None) for t, v in track_scores.items()}
    entry = ModelResult(
        status=worst_status([t.status for t in tasks.values()]),
        index=index_from_track_means(track_means),
        track_means=track_means,
        tasks=tasks,
        coverage=coverage,
        pass_hat_k=pass_hat_k_by_track(tasks, by_item, thresholds),
        issues=issues,
        ci=NO_CI,  # attach_ci: for all models at once
    )
    return entry, track_scores


def task_result(
    item: str,
    track: Track,
    item_rows: list[AttemptRow],
    planned: int,
    coverage: Coverage,
    issues: list[Issue],
    waiting: dict[tuple[str, str], str] | None = None,
) -> TaskResult:
    """One task of a model (docs/rules.md#aggregation): its coverage and issues are appended (excluded,
    then provisional and not valid, then missing attempts); its mean only when complete, its partial
    mean over the valid adopted attempts."""
    adopted = [r for r in item_rows if r.adopted]
    valid = [r for r in adopted if r.score_status == "valid"]
    note_excluded(item, track, [r for r in item_rows if not r.adopted], coverage, issues)
    note_adopted(item, track, adopted, coverage, issues, waiting or {})
    note_missing(item, track, len(adopted), planned, coverage, issues)
    complete = len(adopted) == planned and len(valid) == planned
    scores = valid_scores(adopted)
    partial = mean(scores) if scores else None
    return TaskResult(
        track, partial if complete else None, partial, len(adopted), len(valid), planned, task_status(complete, adopted)
    )


def note_excluded(item: str, track: Track, excluded: list[AttemptRow], coverage: Coverage, issues: list[Issue]) -> None:
    """Excluded attempts are listed in the coverage with their score and note; one without a note saying
    why it was replaced is a warning (docs/rules.md#aggregation)."""
    for r in excluded:
        score = r.score if r.score is not None and math.isfinite(r.score) else None
        coverage.excluded.append(ExcludedAttempt(item, track, r.attempt, r.line, score, r.note))
        if not r.note:
            message = "excluded attempt without a note saying why it was replaced"
            issues.append(Issue("warning", item, r.attempt, r.line, message))


def note_adopted(
    item: str,
    track: Track,
    adopted: list[AttemptRow],
    coverage: Coverage,
    issues: list[Issue],
    waiting: dict[tuple[str, str], str],
) -> None:
    """Adopted attempts that are provisional, and those not valid, which leave their task incomplete
    (docs/rules.md#aggregation); ``waiting``: what the records file of a not-valid attempt lacks."""
    for r in adopted:
        if r.adoption_status == "selected_provisional":
            coverage.provisional.append(AttemptRef(item, track, r.attempt, r.line))
        if r.score_status != "valid":
            coverage.not_valid.append(NotValidAttempt(item, track, r.attempt, r.line, r.score_status))
            message = not_valid_message(r, waiting.get((item, r.attempt)))
            issues.append(Issue("incomplete", item, r.attempt, r.line, message))


def note_missing(item: str, track: Track, adopted: int, planned: int, coverage: Coverage, issues: list[Issue]) -> None:
    """Fewer adopted attempts than the cohort plans leave the task incomplete (docs/rules.md#aggregation)."""
    if adopted < planned:
        missing = planned - adopted
        coverage.missing.append(MissingAttempts(item, track, adopted, planned, missing))
        issues.append(Issue("incomplete", item, None, None, f"{missing} of {planned} planned attempts missing"))


def task_status(complete: bool, adopted: list[AttemptRow]) -> RunStatus:
    """A task is incomplete unless every planned attempt is adopted and valid, else provisional when one
    adopted attempt is, else complete (docs/rules.md#aggregation)."""
    if not complete:
        return "incomplete"
    if any(r.adoption_status == "selected_provisional" for r in adopted):
        return "provisional"
    return "complete"


def task_means_by_track(tasks: dict[str, TaskResult]) -> dict[str, list[float] | None]:
    """Each track's task means, in suite order; None for a track with an incomplete task
    (docs/rules.md#aggregation)."""
    track_scores: dict[str, list[float] | None] = {}
    for name in TRACKS:
        means = [t.mean for t in tasks.values() if t.track == name]
        track_scores[name] = None if None in means else [m for m in means if m is not None]
    return track_scores


NO_CI = CIBlock(METHOD, LEVEL, {}, None)  # a stand-in until attach_ci replaces it


def attach_ci(
    models: dict[str, ModelResult],
    track_scores: dict[str, dict[str, list[float] | None]],
    overflow: dict[str, NumberTooLarge],
) -> None:
    """Each model's ``ci`` block (docs/rules.md#intervals) with its variance budget (docs/rules.md#variance-budget), computed for all models
    at once; when a value overflows, model by model to find which (``overflow`` receives it)."""
    names = list(models)
    try:
        blocks: list[dict | None] = list(
            ci_blocks([track_scores[m] for m in names], [models[m].index for m in names], WEIGHTS)
        )
    except NumberTooLarge:
        blocks = []
        for m in names:
            try:
                blocks.append(ci_block(track_scores[m], models[m].index, WEIGHTS))
            except NumberTooLarge as exc:
                overflow[m] = exc
                blocks.append(None)
    for m, ci in zip(names, blocks, strict=True):
        if ci is None:
            continue
        budget = shares_of_ci(ci, WEIGHTS) if ci["index"] is not None else None
        if budget is not None:  # docs/rules.md#variance-budget: left out when var = 0 (or a track has no se)
            ci["index"]["shares"] = budget
        models[m].ci = msgspec.convert(ci, CIBlock)  # the statistics' own blocks (also compare's), typed here


def index_from_track_means(track_means: dict[str, float | None]) -> float | None:
    """docs/rules.md#the-index: index = 30·P + 30·S + 30·C + 10·O in points; null when any track mean is null."""
    means = [track_means[t] for t in TRACKS]
    if any(m is None for m in means):
        return None
    terms = [
        require_finite(WEIGHTS[t] * m, "the index", m) for t, m in zip(TRACKS, means, strict=True) if m is not None
    ]
    return finite_fsum(terms, "the index")  # docs/safety.md: an index that would overflow names the value


def pass_hat_k_by_track(
    tasks: dict[str, TaskResult], by_item: dict[str, list[AttemptRow]], thresholds: dict[str, float]
) -> dict[str, PassHatK]:
    """docs/rules.md#passk: per task n = valid adopted attempts, c = those >= threshold; mean over tasks with n >= k."""
    out = {}
    for track in TRACKS:
        thr = thresholds.get(track, DEFAULT_THRESHOLDS[track])
        counts = []
        for item, t in tasks.items():
            if t.track != track:
                continue
            scores = valid_scores(by_item.get(item, []))
            counts.append((len(scores), successes(scores, thr)))
        by_k = mean_pass_hat_k(counts)
        out[track] = PassHatK(thr, sum(1 for n, _ in counts if n >= 1), {str(k): v for k, v in by_k.items()})
    return out


def ignored_rows_summary(ignored: list[Ignored], typos: list[CohortTypo] | None = None) -> IgnoredRows:
    """docs/rules.md#aggregation: rows of models outside the cohort or items outside the suite, counted and listed; a row
    whose name is close to a cohort model or suite item carries that name as ``did_you_mean``; ``typos``: the
    cohort's names that are typos of the rows' (``rules.cohort_typos``)."""
    models = Counter(i.row.model for i in ignored if i.reason.startswith("model"))
    items = Counter(i.row.item for i in ignored if i.reason.startswith("item"))
    rows = [
        IgnoredRow(i.row.line, i.row.model, i.row.track, i.row.item, i.row.attempt, i.reason, i.did_you_mean)
        for i in ignored
    ]
    return IgnoredRows(len(ignored), dict(sorted(models.items())), dict(sorted(items.items())), rows, typos or [])


def cohort_typo_list(checked: Checked, unused: list[UnusedRecords]) -> list[CohortTypo]:
    """The typos of cohort.json (``rules.cohort_typos``) with how many rows and records files name the
    rows' spelling."""
    rows = Counter(i.row.model for i in checked.ignored if i.row.model in checked.typos)
    files = Counter(u.model for u in unused if u.model in checked.typos)
    return [CohortTypo(cohort, model, rows[model], files[model]) for model, cohort in checked.typos.items()]


def cohort_typo_issue(typo: CohortTypo, run: Run) -> Issue:
    """The one finding of a cohort.json typo (docs/rules.md#aggregation), first among its model's: the fix."""
    files = f" and {counted(typo.records_files, 'records file')}" if typo.records_files else ""
    message = (
        f"no row names '{typo.cohort_model}', while {counted(typo.rows, 'row')}{files} name '{typo.rows_model}', "
        f"which is not in the cohort{written_apart(typo.rows_model, typo.cohort_model)}: a typo in "
        f"{run.paths.cohort} (models.{typo.cohort_model})? Write '{typo.rows_model}' there"
    )
    return Issue("warning", "", None, None, message)


def note_unchecked_solver_rows(
    entry: ModelResult, model: str, rows: list[AttemptRow], checked: Checked, run: Run, row_issues: list[Issue]
) -> None:
    """docs/rules.md#rows-and-records: the valid adopted solver rows whose score no records file checked go
    to ``coverage.solver_not_checked``; ``row_issues`` warn of each when the run holds records of the model,
    else one warning says that none was checked."""
    unchecked = [
        AttemptRef(r.item, r.track, r.attempt, r.line)
        for r in rows
        if r.track == "solver"
        and r.adopted
        and r.score_status == "valid"
        and r.score is not None
        and (model, r.item, r.attempt) not in checked.scores
    ]
    entry.coverage.solver_not_checked = unchecked
    entry.issues += row_issues
    if unchecked and not row_issues:
        where = "the run has no records/ folder" if run.paths.records is None else f"records/{model}/ holds none"
        message = f"{NOT_CHECKED}: {counted(len(unchecked), 'valid solver score')} typed in and none checked: {where}"
        entry.issues.append(Issue("warning", "", None, None, message))


def ignored_row_finding(row: dict) -> tuple[str, str]:
    """How ``validate``, ``score`` and the dashboard word an ignored row of index.json: (kind, message).
    A row whose name is close to one of the cohort or suite is a warning asking whether that name
    was meant; any other is an ``ignored row`` with its reason."""
    if row.get("did_you_mean"):
        name = row["model"] if row["reason"] == MODEL_NOT_IN_COHORT else row["item"]
        apart = written_apart(name, row["did_you_mean"])
        return "warning", f"ignored row: {row['reason']}; did you mean '{row['did_you_mean']}'?{apart}"
    return "ignored row", row["reason"]


def unused_records_finding(unused: dict) -> str:
    """How ``validate``, ``score`` and the dashboard word a records file that no adopted row uses."""
    return f"records/{unused['file']} is used by no adopted row: {unused['reason']}"


def overflow_problem(exc: NumberTooLarge, model: str, rows: list[AttemptRow], run: Run) -> Problem:
    """docs/safety.md: a result that would overflow, as a problem at the row holding the value (else the
    model's row with the largest score)."""
    scored = [r for r in rows if r.score is not None and math.isfinite(r.score)]
    row = next((r for r in scored if r.score == exc.value), None) or max(
        scored, key=lambda r: abs(r.score or 0.0), default=None
    )
    message = f"model '{model}': {exc.what} would overflow: the value {exc.value!r} is too large"
    return Problem(str(run.paths.attempts), f"line {row.line}" if row else "", "score", message)


def worst_status(statuses: list[RunStatus]) -> RunStatus:
    return max(statuses, key=STATUS_ORDER.__getitem__) if statuses else "complete"


@dataclass
class Evaluated:
    """What ``evaluate_run`` makes of a run: the parts of index.json that come from its rows."""

    status: RunStatus
    models: dict[str, ModelResult]
    ranks: Ranks
    ignored_rows: IgnoredRows
    unused_records: list[UnusedRecords]


def evaluate_run(run: Run, thresholds: dict[str, float] | None = None) -> tuple[Evaluated, Checked]:
    """All models of the cohort: the ``models`` block, the ``ignored_rows`` block and the overall status."""
    thresholds = {**DEFAULT_THRESHOLDS, **(thresholds or {})}
    checked, problems = check_rules(run)
    lineup = Lineup()
    if run.paths.records is not None and run.reference is not None:
        lineup = line_up(run, checked)
        rescore_from_records(run, checked, problems, lineup.misaligned)
        diagnose_waiting_rows(run, checked, lineup.misaligned)
    problems.raise_if_any()
    models: dict[str, ModelResult] = {}
    track_scores: dict[str, dict[str, list[float] | None]] = {}
    overflow: dict[str, NumberTooLarge] = {}
    implausible = implausible_scores(checked)
    for m in run.cohort.models:
        rows = checked.by_model.get(m, [])
        try:
            models[m], track_scores[m] = aggregate_model(m, rows, run, thresholds, checked.not_ready)
        except NumberTooLarge as exc:
            overflow[m] = exc
            continue
        note_unchecked_solver_rows(models[m], m, rows, checked, run, lineup.not_checked.get(m, []))
        models[m].issues += implausible.get(m, []) + checked.notes.get(m, [])
    attach_ci(models, track_scores, overflow)
    for m in run.cohort.models:  # docs/safety.md: rejected input naming the value and its row, in cohort order
        if m in overflow:
            problems.extend([overflow_problem(overflow[m], m, checked.by_model.get(m, []), run)])
    problems.raise_if_any()
    ranks = rank_models(
        {m: e.index for m, e in models.items()},
        {m: {item: (t.track, t.mean) for item, t in e.tasks.items()} for m, e in models.items()},
        WEIGHTS,
    )
    status = worst_status([m.status for m in models.values()])
    ignored = ignored_rows_summary(checked.ignored, cohort_typo_list(checked, lineup.unused))
    for typo in ignored.cohort_typos:
        models[typo.cohort_model].issues.insert(0, cohort_typo_issue(typo, run))
    return Evaluated(status, models, ranks, ignored, lineup.unused), checked


def attempt_scores(model: dict, rows: list[AttemptRow]) -> dict[str, tuple[str, list[float]]]:
    """Per task with a task mean (docs/rules.md#intervals's scored tasks), in suite order: its track and the scores of its
    valid adopted attempts in row order (the x_ij of docs/rules.md#planning-attempts). ``model`` is the model's entry of
    index.json, ``rows`` its checked rows (``Checked.by_model``)."""
    by_item: dict[str, list[AttemptRow]] = defaultdict(list)
    for r in rows:
        by_item[r.item].append(r)
    return {
        item: (t["track"], valid_scores(by_item[item])) for item, t in model["tasks"].items() if t["mean"] is not None
    }


def phi_by_item(checked: Checked, model: str, rows: list[AttemptRow]) -> dict[str, list[np.ndarray]]:
    """Per solver task whose every adopted attempt was re-scored from its records file (docs/rules.md#per-task-differences), the
    Phi array of each adopted attempt (the reference's scored instances, in reference order)."""
    adopted: dict[str, list[AttemptRow]] = defaultdict(list)
    for r in rows:
        if r.adopted and r.track == "solver":
            adopted[r.item].append(r)
    out = {}
    for item, attempts in adopted.items():
        scores = [checked.scores.get((model, item, r.attempt)) for r in attempts]
        if all(s is not None for s in scores):
            out[item] = [s.phi for s in scores if s is not None]
    return out
