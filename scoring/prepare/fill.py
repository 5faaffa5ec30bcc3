"""What ``tcsexam fill`` finds (SPEC section 10): ``plan_fill`` scores every adopted solver row that
has a records file, exactly as ``solver-score`` does, and sorts the rows into filled, unchanged,
conflicting and not ready. The edit of attempts.csv is ``prepare.csv_fields``; the writing is the
command's (``commands.prepare``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from scoring.errors import InputError, Problem, Problems
from scoring.safety.files import RecordsRoot, records_file
from scoring.safety.names import check_name
from scoring.safety.terminal import escape_for_terminal
from scoring.vocab import CROSS_CHECK_TOLERANCE

BOM = "\ufeff"


@dataclass
class FillPlan:
    """What fill found: the edits to make and everything it lists."""

    filled: list[tuple] = field(default_factory=list)  # (row, old score, new score, output path, TaskScore)
    unchanged: list[tuple] = field(default_factory=list)  # (row, score, output path, TaskScore): already right
    conflicts: list[Problem] = field(default_factory=list)
    not_ready: list[tuple] = field(default_factory=list)  # (row, reason)
    no_records: list = field(default_factory=list)  # adopted solver rows without a records file


def check_row_names(row, file: str) -> None:
    """SPEC 13: the names that make a row's records and solver-scores paths are data, never
    paths (``safety.names.check_name``); a bad one is a problem on the row's line."""
    problems = Problems()
    for value, kind in ((row.model, "model"), (row.item, "item"), (row.attempt, "attempt")):
        problem = check_name(value, kind)
        if problem:
            problems.add(file, f"line {row.line}", kind, f"{value!r}: {problem}")
    problems.raise_if_any()


def plan_fill(run, reference, run_dir: Path) -> FillPlan:
    """Score every adopted solver row with a records file (SPEC 10); raises InputError on any
    problem of a records file other than 'not ready', listing every one."""
    from scoring.pipeline.solver import not_ready, score_attempt_bytes

    plan = FillPlan()
    problems = Problems()
    items = {t.item for t in run.suite.tasks}
    cohort_id = run.cohort.solver_reference_id
    records_root = RecordsRoot(run_dir / "records")
    for row in run.attempts.rows:
        if not (row.adopted and row.track == "solver" and row.model in run.cohort.models and row.item in items):
            continue
        try:
            check_row_names(row, str(run.paths.attempts))
            path, data = records_root.read(row.model, row.item, row.attempt)
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        if data is None:
            plan.no_records.append(row)
            continue
        if not reference.has_task(row.item):
            problems.extend([reference.lacking_task(row.item)])
            continue
        task_ref = reference.task(row.item)
        try:
            result = score_attempt_bytes(task_ref, data, path)  # exactly as solver-score scores it
        except InputError as exc:
            reason = not_ready(task_ref, data, path)
            if reason is None:
                problems.extend(exc.problems)
            else:
                plan.not_ready.append((row, reason))
            continue
        new = result.relative_score
        out = Path(records_file(str(run_dir / "solver-scores"), row.model, row.item, row.attempt))
        old = row.score
        same_ref = row.reference_id in ("", cohort_id)
        if (
            old is not None
            and math.isfinite(old)
            and abs(old - new) <= CROSS_CHECK_TOLERANCE
            and same_ref
            and row.score_status == "valid"
            and row.reference_id == cohort_id
        ):
            plan.unchanged.append((row, old, out, result))
            continue
        if old is not None and (not math.isfinite(old) or abs(old - new) > CROSS_CHECK_TOLERANCE or not same_ref):
            against = f" (the row names reference '{row.reference_id}')" if not same_ref else ""
            plan.conflicts.append(
                Problem(
                    str(run.paths.attempts),
                    f"line {row.line}",
                    "score",
                    f"CSV score {old!r} of ({row.model}, {row.item}, attempt {row.attempt}) "
                    f"differs from {new!r} scored from {path} against '{cohort_id}'{against}",
                )
            )
        plan.filled.append((row, old, new, out, result))
    problems.raise_if_any()
    return plan


def who(row) -> str:
    """A row as printed: its line and names, control characters escaped (SPEC 13)."""
    return escape_for_terminal(f"line {row.line}: {row.model} {row.item} attempt {row.attempt}")


def fmt_score(x) -> str:
    return "(empty)" if x is None else repr(x)
