"""The records cross-check of docs/rules.md#aggregation: an adopted solver row with a records file is
re-scored against the reference; a difference over 1e-9 from the CSV score rejects the run.
"""

from __future__ import annotations

import hashlib
import os
from collections import defaultdict

from tcsexam.scoring.errors import InputError, Problem, Problems
from tcsexam.scoring.formats.inputs import AttemptRow
from tcsexam.scoring.formats.packed import RecordsSource
from tcsexam.scoring.formats.records import check_records
from tcsexam.scoring.formats.results import Issue
from tcsexam.scoring.grammar import counted
from tcsexam.scoring.pipeline.lineup import NOT_LINED_UP
from tcsexam.scoring.pipeline.reference import TaskReference
from tcsexam.scoring.pipeline.rules import Checked
from tcsexam.scoring.pipeline.run import Run
from tcsexam.scoring.pipeline.solver import (
    TaskScore,
    lacking_beside,
    named_instances,
    score_records,
    unknown_instances_text,
)
from tcsexam.scoring.safety.files import records_rel
from tcsexam.scoring.vocab import CROSS_CHECK_TOLERANCE


def rescore_from_records(
    run: Run, checked: Checked, problems: Problems, misaligned: dict[tuple[str, str], str]
) -> None:
    """docs/rules.md#aggregation: an adopted solver row with a records file is re-scored; a difference over 1e-9 rejects.

    The attempts of one task are scored together (``rescore_task``); each re-scored attempt's
    per-instance scores are kept in ``checked.scores`` (the dashboard shows them). ``misaligned``
    (``lineup.line_up``): the (model, item) pairs whose attempt names and records file names do not
    line up, where a difference is worded as that, not as advice to overwrite.
    """
    root = run.records_root
    ref = run.reference
    assert root is not None and ref is not None
    base = root.root
    by_item = rows_to_rescore(checked, root)
    tasks = {item: ref.task(item) for item in by_item if ref.has_task(item)}
    work = [(tasks[item], root, [rel for _, _, rel in jobs]) for item, jobs in by_item.items() if item in tasks]
    outcomes = (rescore_task(*w) for w in work)
    for item, jobs in by_item.items():
        if item not in tasks:  # a file (or a folder, FIFO, ...) where its records belong is a problem
            problem = ref.lacking_task(item)
            problems.extend(problem for _, _, rel in jobs if root.exists(os.path.join(base, rel)))
            continue
        for (model, row, rel), (result, digest, found) in zip(jobs, next(outcomes), strict=True):
            if found:
                problems.extend(found)
            if result is None or digest is None or row.score is None:
                continue
            checked.records_used[rel] = digest
            relative = result.relative_score
            checked.scores[(model, row.item, row.attempt)] = result
            unknown = result.unknown_instances
            if unknown:
                message = f"records/{rel}: {unknown_instances_text(result, ref.reference_id)}"
                checked.note(model, Issue("warning", row.item, row.attempt, row.line, message))
            if abs(relative - row.score) > CROSS_CHECK_TOLERANCE:
                advice = cross_check_advice(misaligned.get((model, row.item)), model, row.item)
                problems.add(
                    run.paths.attempts,
                    f"line {row.line}",
                    "score",
                    f"CSV score {row.score!r} differs from {relative!r} re-scored from "
                    f"{root.shown(os.path.join(base, rel))} against '{ref.reference_id}' (tolerance 1e-9): {advice}",
                )


def diagnose_waiting_rows(run: Run, checked: Checked, misaligned: dict[tuple[str, str], str]) -> None:
    """docs/rules.md#rows-and-records: an adopted solver row that is not valid yet but whose records file is there
    (``fill`` left it 'not ready'): what the file lacks, in ``checked.not_ready`` for its incomplete finding;
    on a task whose attempt names and records file names do not line up (``misaligned``), that first."""
    from tcsexam.scoring.pipeline.solver import not_ready

    root, ref = run.records_root, run.reference
    assert root is not None and ref is not None
    for model, rows in checked.by_model.items():
        for row in rows:
            if not (row.adopted and row.track == "solver" and row.score_status != "valid" and ref.has_task(row.item)):
                continue
            rel = "/".join((model, row.item, f"{row.attempt}.json"))
            if (model, row.item) in misaligned:
                checked.not_ready[(model, row.item, row.attempt)] = (
                    f"{NOT_LINED_UP} for this task ({misaligned[(model, row.item)]}): rename the records files or "
                    "the attempts, then run tcsexam fill"
                )
                continue
            try:
                path, data = root.read(model, row.item, row.attempt)
                if data is None:
                    continue
                why = not_ready(ref.task(row.item), data, path)
            except InputError as exc:  # not merely unfinished: named as fill names it (record, field)
                others = len(exc.problems) - 1
                more = f" (and {counted(others, 'other problem')}: tcsexam fill lists them)" if others else ""
                checked.not_ready[(model, row.item, row.attempt)] = (
                    f"{exc.problems[0]}{more}: mend it, then run tcsexam fill"
                )
                continue
            checked.not_ready[(model, row.item, row.attempt)] = (
                f"records/{rel} is not ready: {why}: complete it, then run tcsexam fill"
                if why
                else f"records/{rel} is complete: tcsexam fill writes its score"
            )


def rows_to_rescore(checked: Checked, root: RecordsSource) -> dict[str, list[tuple[str, AttemptRow, str]]]:
    """Per task, (model, row, path relative to records/) of every adopted solver row with a valid score:
    the rows the cross-check re-scores when their records file is there (plain strings: 10^4 files,
    no pathlib per file)."""
    by_item: dict[str, list[tuple[str, AttemptRow, str]]] = defaultdict(list)
    for model, rows in checked.by_model.items():
        for row in rows:
            if row.adopted and row.track == "solver" and row.score is not None and row.score_status == "valid":
                rel = records_rel(model, row.item, row.attempt)  # docs/safety.md: checked names
                by_item[row.item].append((model, row, rel))
    return by_item


def cross_check_advice(misaligned: str | None, model: str, item: str) -> str:
    """What to do about a cross-check difference: overwrite with the records' score, unless the task's
    attempt names and records file names do not line up (``misaligned``: both sides' names), where
    that would write another attempt's score (docs/rules.md#rows-and-records)."""
    if misaligned is None:
        return (
            "if the records are right, tcsexam fill --overwrite writes their score; else check the "
            "records and the cohort's solver_reference_id"
        )
    return (
        f"{NOT_LINED_UP} for ({model}, {item}) ({misaligned}): rename the records files or the attempts so "
        "that each row names its own attempt's file (fill --overwrite would write another attempt's score)"
    )


Outcome = tuple[TaskScore | None, str | None, list[Problem]]  # the score, the file's sha256, its problems


def rescore_task(task_ref: TaskReference, root: RecordsSource, rels: list[str]) -> list[Outcome]:
    """Read, check and score the records files ``rels`` (under ``root``) of one task, all of them
    as one set of columns (``check_records``, ``score_records``); per file its TaskScore (None
    when there is no file or it has problems), its sha256 and its problems. docs/safety.md: a folder,
    FIFO, device or link out of records/ where a file belongs is a problem."""
    outcomes: list[Outcome] = [(None, None, []) for _ in rels]  # no file: not re-scored
    datas: list[bytes] = []
    paths: list[str] = []
    present: list[int] = []
    for k, rel in enumerate(rels):
        path = os.path.join(root.root, rel)
        try:
            data = root.read_path(path)
        except InputError as exc:
            outcomes[k] = (None, None, root.located(exc.problems))
            continue
        if data is not None:
            datas.append(data)
            paths.append(path)
            present.append(k)
    records, problems = check_records(datas, paths, task_ref.kind)
    scores = iter(score_records(task_ref, records))
    for k, data, file, found in zip(present, datas, paths, problems, strict=True):
        result: TaskScore | list[Problem] = (
            found + lacking_beside(task_ref, named_instances(data), file) if found else next(scores)
        )
        if isinstance(result, list):
            outcomes[k] = (None, None, root.located(result))
        else:
            outcomes[k] = (result, hashlib.sha256(data).hexdigest(), [])
    return outcomes


def records_digest(records_used: dict[str, str]) -> str:
    """One sha256 over the records files that were read: sorted 'path sha256' lines."""
    lines = "".join(f"{p} {h}\n" for p, h in sorted(records_used.items()))
    return hashlib.sha256(lines.encode()).hexdigest()
