"""``init`` (docs/commands.md#init): one attempts-table row per planned attempt, the check that a
table about to be replaced holds nothing filled in, and the rows a table lacks (``--add-missing``).
The cells come from the columns ``formats.inputs.AttemptRow`` declares."""

from __future__ import annotations

import csv
import io
import os
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from itertools import count, groupby
from pathlib import Path
from typing import NamedTuple

from tcsexam.scoring.errors import InputError, Problem
from tcsexam.scoring.formats.inputs import ATTEMPTS_COLUMNS
from tcsexam.scoring.grammar import counted
from tcsexam.scoring.safety.files import read_regular_file, read_regular_file_stamped
from tcsexam.scoring.safety.outputs import check_output, write_atomic
from tcsexam.scoring.vocab import ATTEMPTS_FILE, TRACK_SCORE_TYPE


class PlannedAttempt(NamedTuple):
    """One planned attempt: the cells a column without a fixed skeleton takes (``Column``)."""

    model: str
    track: str
    item: str
    attempt: str
    score_type: str
    solver_protocol: str


def planned_attempts(cohort, suite) -> list[PlannedAttempt]:
    """docs/commands.md#init: every planned attempt; models in cohort order, tasks in suite order,
    attempts numbered 1..planned; the track's score type, the cohort's protocol on solver rows."""
    out = []
    for model in cohort.models:
        for task in suite.tasks:
            protocol = cohort.solver_protocol if task.track == "solver" else ""
            for attempt in range(1, cohort.planned(model, task.item) + 1):
                out.append(
                    PlannedAttempt(model, task.track, task.item, str(attempt), TRACK_SCORE_TYPE[task.track], protocol)
                )
    return out


def skeleton_cells(planned: PlannedAttempt, columns=None) -> list[str]:
    """The cells init writes for ``planned`` under ``columns`` (default: the declared ones): each
    column's skeleton, or the planned attempt's value; '' in a column attempts.csv does not declare."""
    cells = []
    for name in ATTEMPTS_COLUMNS if columns is None else columns:
        column = ATTEMPTS_COLUMNS.get(name)
        if column is None:
            cells.append("")
        else:
            cells.append(getattr(planned, name) if column.skeleton is None else column.skeleton)
    return cells


def init_rows(cohort, suite) -> list[list[str]]:
    """docs/commands.md#init: one row per planned attempt."""
    return [skeleton_cells(p) for p in planned_attempts(cohort, suite)]


def init_text(cohort, suite) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(ATTEMPTS_COLUMNS)
    writer.writerows(init_rows(cohort, suite))
    return out.getvalue()


def unfilled(name: str, value: str) -> bool:
    """A cell as init leaves it: in a column filled from the plan, or empty, or the column's skeleton."""
    column = ATTEMPTS_COLUMNS.get(name)
    return value == "" or (column is not None and (column.skeleton is None or value == column.skeleton))


def filled_rows(text: str) -> tuple[int, int]:
    """How many rows of an attempts table hold something ``init`` would not write (a score, a
    status other than missing, an adoption other than selected, a note, a reference id, any cell
    of another column), and how many of those hold a score. The columns that come from the
    plan (model, track, item, attempt, score_type, solver_protocol) do not count."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=False)
    header = [c.strip() for c in next(reader, [])]
    rows = scored = 0
    for cells in reader:
        filled = False
        for name, cell in zip(header, cells, strict=False):
            value = cell.strip()
            if unfilled(name, value):
                continue
            filled = True
            scored += name == "score"
        if len(cells) > len(header) and any(c.strip() for c in cells[len(header) :]):
            filled = True
        rows += filled
    return rows, scored


def move_away(target: Path) -> str:
    return f"move it away first (mv {target} {target.with_name('attempts.old.csv')}) to start again"


def check_nothing_filled(target: Path, force: bool) -> None:
    """docs/safety.md: an existing table is replaced only with ``force``, and only when it holds
    nothing but the skeleton. A table with anything filled in (``filled_rows``), or one that cannot
    be read, is an InputError saying what it holds, whether or not ``force`` was given (so that the
    hint is never to pass a --force that would then be refused); nothing is written."""
    from tcsexam.scoring.formats.attempts import decode_csv

    try:
        text = decode_csv(read_regular_file(target, "attempts table"), str(target))
        rows, scored = filled_rows(text)
    except (InputError, csv.Error) as exc:
        reason = "; ".join(p.message for p in exc.problems) if isinstance(exc, InputError) else str(exc)
        message = f"cannot tell what the attempts table holds ({reason}): nothing written; {move_away(target)}"
        raise InputError([Problem(str(target), "", "", message)]) from None
    if rows:
        message = (
            f"attempts table holds {counted(rows, 'filled row')}, {scored} with a score: init replaces only a table "
            "with no score, status, note or exclusion in it (tcsexam init --add-missing appends the planned "
            f"rows it lacks); nothing written; {move_away(target)}"
        )
        raise InputError([Problem(str(target), "", "", message)])
    if not force:
        message = "attempts table already exists and holds nothing filled in: pass --force to replace it"
        raise InputError([Problem(str(target), "", "", message)])


@dataclass
class InitReport:
    """What init wrote: the planned attempts written (all of them, or those appended)."""

    target: Path
    rows: int
    models: int
    tasks: int
    suite: str
    appended: bool = False


COHORT_FIRST = (
    "init writes attempts.csv from the run's cohort.json: write that first (its format: tcsexam docs "
    "formats#cohort), or see one in a demo run (tcsexam demo DIR)"
)


def init_run(
    run_dir: Path, cohort_path: Path, benchmark_option, *, force: bool, add_missing: bool, notify: Callable[[str], None]
) -> InitReport:
    """docs/commands.md#init: write RUN_DIR/attempts.csv from the cohort and its suite manifest; an
    existing one only with ``force`` when nothing is filled in; with ``add_missing`` append to the
    existing one the planned rows it lacks (``append_missing``). The synthetic sample's notice goes
    to ``notify`` as soon as the cohort is read."""
    from tcsexam.scoring.pipeline.benchmark import (
        benchmark_origin,
        is_not_found,
        locate_benchmark,
        sample_benchmark_notice,
    )
    from tcsexam.scoring.pipeline.run import (
        benchmark_problem,
        load_cohort_file,
        load_suite_file,
        refuse_a_file_as_run_dir,
        suite_path,
    )

    refuse_a_file_as_run_dir(run_dir)
    benchmark, source = locate_benchmark(benchmark_option)
    target = run_dir / ATTEMPTS_FILE
    check_output(str(target), [str(cohort_path)])  # docs/safety.md: never an input, a folder or a device
    try:
        cohort, _ = load_cohort_file(cohort_path)
    except InputError as exc:
        if is_not_found(exc):  # the first step of a run: say what init needs, and where it is described
            raise InputError(exc.problems, hint=COHORT_FIRST) from None
        raise
    notice = sample_benchmark_notice(source, benchmark, cohort.solver_reference_id)
    if notice:
        notify(notice)
    exists = os.path.lexists(target)
    if exists and not add_missing:
        check_nothing_filled(target, force)  # docs/safety.md: a filled table is never replaced
    problem = benchmark_problem(benchmark, benchmark_origin(benchmark_option), cohort.suite, cohort_path)
    if problem:
        raise InputError([problem])
    manifest = suite_path(benchmark, cohort.suite)
    check_output(str(target), [str(manifest)])
    suite, _ = load_suite_file(manifest)
    planned = planned_attempts(cohort, suite)
    if add_missing and exists:
        n = append_missing(target, planned)
    else:
        text = init_text(cohort, suite)
        write_atomic(target, text.encode("utf-8"))
        n = len(planned)
    appended = add_missing and exists
    return InitReport(target, n, len(cohort.models), len(suite.tasks), cohort.suite, appended)


def missing_attempts(planned: list[PlannedAttempt], rows) -> list[PlannedAttempt]:
    """docs/commands.md#init: the planned attempts a table lacks, in plan order. A task of a model
    lacks as many as it has fewer adopted rows than planned (an attempt may have any name, and an
    excluded one does not count); each is named by the smallest whole number none of the task's
    rows uses."""
    taken: dict[tuple[str, str], set[str]] = defaultdict(set)
    adopted: Counter[tuple[str, str]] = Counter()
    for r in rows:
        taken[(r.model, r.item)].add(r.attempt)
        adopted[(r.model, r.item)] += 1 if r.adopted else 0
    out = []
    for key, group in groupby(planned, key=lambda p: (p.model, p.item)):
        lacking = list(group)[adopted[key] :]
        names = (str(n) for n in count(1) if str(n) not in taken[key])
        out += [p._replace(attempt=name) for p, name in zip(lacking, names, strict=False)]  # names never end
    return out


def append_missing(target: Path, planned: list[PlannedAttempt]) -> int:
    """docs/commands.md#init: append to the table at ``target`` the planned attempts it lacks
    (``missing_attempts``), in plan order, each under the table's own header and with its
    line ending; every byte already there stays. The table must load (``formats.attempts``); it is
    replaced atomically, and only if nobody wrote to it since it was read."""
    from tcsexam.scoring.formats.attempts import decode_csv, parse_attempts
    from tcsexam.scoring.prepare.csv_fields import appended_rows

    data, stamp = read_regular_file_stamped(target, "attempts table")
    text = decode_csv(data, str(target))
    table = parse_attempts(text, str(target))
    if table.problems:
        raise InputError(table.problems)
    absent = missing_attempts(planned, table.rows)
    if absent:
        rows = [skeleton_cells(p, table.columns) for p in absent]
        bom = "\ufeff" if data.startswith(b"\xef\xbb\xbf") else ""
        new_text = bom + appended_rows(text, rows)
        write_atomic(target, new_text.encode("utf-8"), unchanged=stamp)
    return len(absent)
