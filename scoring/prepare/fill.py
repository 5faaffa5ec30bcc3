"""``fill`` (docs/commands.md#fill): ``plan_fill`` scores every adopted solver row that has a
records file, exactly as ``solver-score`` does, and sorts the rows into filled, unchanged,
conflicting and not ready; ``fill_run`` loads the run, plans, edits attempts.csv
(``prepare.csv_fields``) and writes, in the order docs/safety.md gives. The command prints.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tcsexam.scoring.errors import InputError, Problem, Problems
from tcsexam.scoring.formats.inputs import AttemptRow
from tcsexam.scoring.formats.packed import RecordsSource
from tcsexam.scoring.safety.files import (
    RecordsRoot,
    read_regular_file,
    read_regular_file_stamped,
    records_file,
    records_rel,
)
from tcsexam.scoring.safety.names import check_name
from tcsexam.scoring.safety.outputs import (
    Output,
    changed_since_read,
    check_output,
    check_outputs,
    write_atomic,
    write_atomic_all,
)
from tcsexam.scoring.safety.terminal import escape_for_terminal
from tcsexam.scoring.vocab import CROSS_CHECK_TOLERANCE, RECORDS_FOLDER

BOM = "\ufeff"


@dataclass
class Filled:
    """A row whose score fill writes (``old`` None: it had none), and its solver-score output."""

    row: AttemptRow
    old: float | None
    new: float
    output: str
    result: Any  # the solver-score result (pipeline.solver.TaskScore)

    @property
    def replaces_conflict(self) -> bool:
        return self.old is not None and not abs(self.old - self.new) <= CROSS_CHECK_TOLERANCE


@dataclass
class Unchanged:
    """A row already holding the score its records give; its solver-score output is rewritten."""

    row: AttemptRow
    output: str
    result: Any


@dataclass
class NotReady:
    row: AttemptRow
    reason: str


@dataclass
class FillPlan:
    """What fill found: the edits to make and everything it lists."""

    filled: list[Filled] = field(default_factory=list)
    unchanged: list[Unchanged] = field(default_factory=list)
    conflicts: list[Problem] = field(default_factory=list)
    not_ready: list[NotReady] = field(default_factory=list)
    no_records: list[AttemptRow] = field(default_factory=list)  # adopted solver rows without a records file

    @property
    def waiting(self) -> list[AttemptRow]:
        """docs/commands.md#fill: the adopted solver rows that do not end with a valid score."""
        rows = [n.row for n in self.not_ready] + self.no_records
        return [row for row in rows if row.score_status != "valid"]


def check_row_names(row, file: str) -> None:
    """docs/safety.md: the names that make a row's records and solver-scores paths are data, never
    paths (``safety.names.check_name``); a bad one is a problem on the row's line."""
    problems = Problems()
    for value, kind in ((row.model, "model"), (row.item, "item"), (row.attempt, "attempt")):
        problem = check_name(value, kind)
        if problem:
            problems.add(file, f"line {row.line}", kind, f"{value!r}: {problem}")
    problems.raise_if_any()


def fills(run, row, items: set[str]) -> bool:
    """The rows fill scores: adopted solver rows of the cohort's models and the suite's ``items``."""
    return row.adopted and row.track == "solver" and row.model in run.cohort.models and row.item in items


def conflict(run, row, new: float, records_root: RecordsSource) -> Problem | None:
    """A row whose score differs from the one its records give (or scored against another
    reference) by more than the cross-check's tolerance; None when it has no score or agrees."""
    old, cohort_id = row.score, run.cohort.solver_reference_id
    same_ref = row.reference_id in ("", cohort_id)
    if old is None or (math.isfinite(old) and abs(old - new) <= CROSS_CHECK_TOLERANCE and same_ref):
        return None
    against = f" (the row names reference '{row.reference_id}')" if not same_ref else ""
    path = records_root.shown(records_root.path(row.model, row.item, row.attempt))
    return Problem(
        str(run.paths.attempts),
        f"line {row.line}",
        "score",
        f"CSV score {old!r} of ({row.model}, {row.item}, attempt {row.attempt}) "
        f"differs from {new!r} scored from {path} against '{cohort_id}'{against}",
    )


def is_filled(row, new: float, cohort_id: str) -> bool:
    """Already what fill would write: the same score, valid, against the cohort's reference."""
    old = row.score
    return (
        old is not None
        and math.isfinite(old)
        and abs(old - new) <= CROSS_CHECK_TOLERANCE
        and row.score_status == "valid"
        and row.reference_id == cohort_id
    )


def plan_row(plan: FillPlan, run, reference, records_root: RecordsSource, row, outcome, scores: str) -> None:
    """Put one row in its list of ``plan`` from ``outcome``, its records file read, checked and scored
    (``task_outcomes``; None when the reference has no such task), its output under ``scores`` (the
    run's solver-scores folder); a problem of its records (other than not ready) is raised."""
    from tcsexam.scoring.pipeline.solver import not_ready

    if outcome is None:  # the reference lacks the task: a records file for it is a problem
        _, data = records_root.read(row.model, row.item, row.attempt)
        if data is None:
            plan.no_records.append(row)
            return
        raise InputError([reference.lacking_task(row.item)])
    result, _, found = outcome
    if found:
        path, data = records_root.read(row.model, row.item, row.attempt)
        try:
            reason = None if data is None else not_ready(reference.task(row.item), data, path)
        except InputError as exc:  # a packed file's line is named by the file and the line
            raise InputError(records_root.located(exc.problems)) from None
        if reason is None:
            raise InputError(found)
        plan.not_ready.append(NotReady(row, reason))
        return
    if result is None:
        plan.no_records.append(row)
        return
    new = result.relative_score
    out = records_file(scores, row.model, row.item, row.attempt)
    if is_filled(row, new, run.cohort.solver_reference_id):
        plan.unchanged.append(Unchanged(row, out, result))
        return
    problem = conflict(run, row, new, records_root)
    if problem:
        plan.conflicts.append(problem)
    plan.filled.append(Filled(row, row.score, new, out, result))


def task_outcomes(rows: list[AttemptRow], reference, records_root: RecordsSource) -> list[Any]:
    """Each row's records file read, checked and scored, the files of one task together, exactly as
    ``score``'s cross-check scores them (``pipeline.crosscheck.rescore_task``); None for a row whose
    task the reference lacks. The rows' names are checked (``check_row_names``)."""
    from tcsexam.scoring.pipeline.crosscheck import rescore_task

    by_item: dict[str, list[int]] = {}
    for k, row in enumerate(rows):
        if reference.has_task(row.item):
            by_item.setdefault(row.item, []).append(k)
    out: list[Any] = [None] * len(rows)
    for item, ks in by_item.items():
        rels = [records_rel(rows[k].model, item, rows[k].attempt) for k in ks]
        for k, outcome in zip(ks, rescore_task(reference.task(item), records_root, rels), strict=True):
            out[k] = outcome
    return out


def plan_fill(run, reference, run_dir: Path) -> FillPlan:
    """Score every adopted solver row with a records file (docs/commands.md#fill); raises
    InputError on any problem of a records file other than 'not ready', listing every one, and when
    the attempt names of a task's rows and records files do not line up (nothing is scored then)."""
    plan = FillPlan()
    problems = Problems()
    records_root = run.records_root or RecordsRoot(run_dir / RECORDS_FOLDER)  # records/ or records.jsonl
    items = {t.item for t in run.suite.tasks}
    file = str(run.paths.attempts)
    rows = []
    for row in run.attempts.rows:
        if fills(run, row, items):
            try:
                check_row_names(row, file)
            except InputError as exc:
                problems.extend(exc.problems)
                continue
            rows.append(row)
    refuse_misaligned(rows, records_root, file)
    scores = str(run_dir / "solver-scores")  # as a Path joins it: no "./" before a run in the current folder
    for row, outcome in zip(rows, task_outcomes(rows, reference, records_root), strict=True):
        try:
            plan_row(plan, run, reference, records_root, row, outcome, scores)
        except InputError as exc:
            problems.extend(exc.problems)
    problems.raise_if_any()
    return plan


def refuse_misaligned(rows: list[AttemptRow], root: RecordsSource, file: str) -> None:
    """docs/commands.md#fill: when a task's attempt names and records file names do not line up (``1.0``
    for ``1.json``, rows from 0 against files from 1), fill would write one attempt's score into
    another's row: an InputError naming both sides of every such task, before anything is scored."""
    from tcsexam.scoring.pipeline.lineup import NOT_LINED_UP, misaligned_rows

    if isinstance(root, RecordsRoot) and not os.path.isdir(root.root):
        return
    found = misaligned_rows(rows, root)
    if found:
        raise InputError(
            [
                Problem(
                    file,
                    f"lines {', '.join(str(r.line) for r in rows if (r.model, r.item) == key)}",
                    "attempt",
                    f"({key[0]}, {key[1]}): {NOT_LINED_UP}: {names}: rename the records files or the attempts so "
                    "that each row names its own attempt's file; nothing was filled",
                )
                for key, names in sorted(found.items())
            ]
        )


@dataclass
class FillReport:
    """What ``fill_run`` did (or, in a dry run, would do)."""

    plan: FillPlan
    dry_run: bool
    changed: bool  # attempts.csv is (would be) replaced


def loaded_run(run_dir: Path, benchmark, notify: Callable[[str], None]):
    """The run at ``run_dir`` loaded and checked, with the reference its cohort names."""
    from tcsexam.scoring.pipeline.benchmark import cohort_reference
    from tcsexam.scoring.pipeline.run import load_run, resolve_run_paths

    paths = resolve_run_paths(str(run_dir), benchmark=benchmark)
    run = load_run(paths)
    if run.problems:
        raise InputError(run.problems)
    reference = run.reference
    if reference is None:  # before the notices: a reference fill needs and lacks is its problem, not a warning
        reference = cohort_reference(
            paths.benchmark,
            run.cohort.solver_reference_id,
            run.cohort.suite,
            "needed to score the records",
            paths.cohort,
        )
    for notice in run.notices:
        notify(notice)
    return run, reference


def edited_table(run, plan: FillPlan) -> tuple[str, str, Any]:
    """attempts.csv as it is (text) and with the plan's scores in (BOM kept), and the stamp of the
    bytes read: the very bytes that were loaded and checked, else an InputError (docs/safety.md:
    an edit made while fill runs is never lost)."""
    from tcsexam.scoring.formats.attempts import decode_csv
    from tcsexam.scoring.prepare.csv_fields import edited_text

    attempts = run.paths.attempts
    cohort_id = run.cohort.solver_reference_id
    edits = {
        f.row.line: {"score": repr(f.new), "score_status": "valid", "reference_id": cohort_id} for f in plan.filled
    }
    data, stamp = read_regular_file_stamped(attempts, "attempts table")
    if hashlib.sha256(data).hexdigest() != run.attempts.sha256:
        raise InputError([changed_since_read(str(attempts))])
    text = decode_csv(data, str(attempts))
    bom = BOM if data.startswith(b"\xef\xbb\xbf") else ""
    return bom + text, bom + edited_text(text, run.attempts.columns, run.attempts.rows, edits), stamp


def fill_run(run_dir: Path, benchmark, *, overwrite: bool, dry_run: bool, notify: Callable[[str], None]) -> FillReport:
    """docs/commands.md#fill: fill the solver scores of the run at ``run_dir`` from its records.
    A conflict without ``overwrite``, or any other problem, is an InputError, nothing written.
    Writes every solver-score output, then attempts.csv (atomically, only if nobody wrote to it
    since it was read); nothing in a dry run."""
    from tcsexam.scoring.pipeline.solver import solver_score_bytes

    run, reference = loaded_run(run_dir, benchmark, notify)
    attempts = run.paths.attempts
    inputs = [str(p) for p in (*run.input_paths.values(), reference.path)]
    if not dry_run:  # docs/safety.md: attempts.csv, replaced last, is checked before anything is written
        check_output(str(attempts), [p for p in inputs if p != str(run.input_paths["attempts"])])
    plan = plan_fill(run, reference, run_dir)
    if plan.conflicts and not overwrite:
        raise InputError(plan.conflicts, hint="pass --overwrite to replace the conflicting scores")
    text, new_text, stamp = edited_table(run, plan)
    if not dry_run:
        results = [f.result for f in plan.filled] + [u.result for u in plan.unchanged]
        # docs/safety.md: every output is checked before the first is written
        checked = check_outputs(
            [f.output for f in plan.filled] + [u.output for u in plan.unchanged],
            inputs,
            [str(run_dir / RECORDS_FOLDER)],
        )
        # docs/safety.md#how-a-file-is-written: one flush of all their data, then the renames
        kept: list[str] = []

        def to_write():
            for output, result in zip(checked, results, strict=True):
                data = solver_score_bytes(result, reference.suite, reference.reference_id)
                if holds(output, data):
                    kept.append(output.shown)
                else:
                    yield output, data

        write_atomic_all(to_write())
        if new_text != text:  # attempts.csv last, after every solver-score output is in place
            if kept:  # docs/safety.md: a file kept may be unflushed, and the new table relies on it
                os.sync()
            write_atomic(attempts, new_text.encode("utf-8"), unchanged=stamp)
    return FillReport(plan, dry_run, new_text != text)


def holds(output: Output, data: bytes | bytearray) -> bool:
    """Whether the output already holds exactly ``data``: such a solver-score output is left as it
    is (docs/commands.md#fill), so that filling a run again rewrites only what changed. One the
    check found no file at is written without a look; one it found, a regular file of one name,
    is looked at again: one that has gained a name since is written, and so refused, as before."""
    if output.found is None:
        return False
    try:
        st = os.stat(output.shown)
        if st.st_size != len(data) or st.st_nlink != 1:
            return False
        return read_regular_file(output.shown, "solver-score output", len(data) + 1) == data
    except (OSError, InputError):  # absent, or changed meanwhile: written as any other
        return False


def who(row) -> str:
    """A row as printed: its line and names, control characters escaped (docs/safety.md)."""
    return escape_for_terminal(f"line {row.line}: {row.model} {row.item} attempt {row.attempt}")


def fmt_score(x) -> str:
    return "(empty)" if x is None else repr(x)
