"""Preparing a run: ``tcsexam init`` and ``tcsexam fill`` (SPEC section 10).

``init`` writes a skeleton attempts.csv from the cohort and its suite manifest.
``fill`` scores every adopted solver row that has a records file, exactly as
``solver-score`` does, writes each solver-score output under
RUN_DIR/solver-scores/, and edits attempts.csv at field level: only the
``score``, ``score_status`` and ``reference_id`` fields of the filled rows
change (and a ``reference_id`` column is appended when absent); every other
byte (row order, quoting, extra columns, line endings, a BOM, a missing final
newline) stays as it was.
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .errors import InputError, Problem, Problems
from .jsonio import read_bytes, write_atomic
from .safety import (
    RecordsRoot,
    changed_since_read,
    check_name,
    check_output,
    escape_for_terminal,
    read_regular_file_stamped,
    records_file,
    say,
)
from .vocab import INCOMPLETE_STATUSES, OPTIONAL_COLUMNS, REQUIRED_COLUMNS

EXIT_OK, EXIT_REJECTED, EXIT_INCOMPLETE = 0, 1, 3
CONFLICT_TOLERANCE = 1e-9  # SPEC 10, the same tolerance as the cross-check of SPEC 4
BOM = "\ufeff"
INIT_COLUMNS = REQUIRED_COLUMNS + OPTIONAL_COLUMNS  # SPEC 10: the required columns, then note and reference_id
TRACK_SCORE_TYPE = {
    "solver": "fixed_reference_relative",
    "theorem": "original_task_score",
    "construction": "original_task_score",
    "conjecture": "original_task_score",
}


# --- init ---------------------------------------------------------------------------------------


def init_rows(cohort, suite) -> list[list[str]]:
    """SPEC 10: one row per planned attempt; models in cohort order, tasks in suite order."""
    rows = []
    for model in cohort.models:
        for task in suite.tasks:
            protocol = cohort.solver_protocol if task.track == "solver" else ""
            for attempt in range(1, cohort.planned(model, task.item) + 1):
                rows.append(
                    [
                        model,
                        task.track,
                        task.item,
                        str(attempt),
                        "",
                        "selected",
                        "missing",
                        TRACK_SCORE_TYPE[task.track],
                        protocol,
                        "",
                        "",
                    ]
                )
    return rows


def init_text(cohort, suite) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(INIT_COLUMNS)
    writer.writerows(init_rows(cohort, suite))
    return out.getvalue()


def run_init(args) -> int:
    """``tcsexam init`` (SPEC 10): write RUN_DIR/attempts.csv; an existing one only with --force."""
    from .inputs import load_cohort_file, load_suite_file, suite_path
    from .reference import locate_benchmark, sample_benchmark_notice

    run_dir = Path(args.run_dir or ".")
    cohort_path = Path(args.cohort) if args.cohort else run_dir / "cohort.json"
    benchmark, source = locate_benchmark(args.benchmark)
    target = run_dir / "attempts.csv"
    check_output(str(target), [str(cohort_path)])  # SPEC 13: never an input, a folder or a device
    cohort, _ = load_cohort_file(cohort_path)
    notice = sample_benchmark_notice(source, benchmark, cohort.solver_reference_id)
    if notice:
        say(notice, sys.stderr)
    if os.path.lexists(target) and not args.force:
        raise InputError([Problem(str(target), "", "", "attempts table already exists; pass --force to replace it")])
    if os.path.lexists(target):
        check_nothing_filled(target)  # docs/safety.md: --force never discards a filled table
    manifest = suite_path(benchmark, cohort.suite)
    check_output(str(target), [str(manifest)])
    suite, _ = load_suite_file(manifest)
    text = init_text(cohort, suite)
    write_atomic(target, text.encode("utf-8"))
    n = text.count("\n") - 1
    print(
        f"init: {n} planned attempts of {len(cohort.models)} models over {len(suite.tasks)} tasks of suite "
        f"'{cohort.suite}' -> {target}"
    )
    return EXIT_OK


SKELETON_CELLS = {"score": ("",), "adoption_status": ("", "selected"), "score_status": ("", "missing")}
FROM_THE_COHORT = ("model", "track", "item", "attempt", "score_type", "solver_protocol")


def filled_rows(text: str) -> tuple[int, int]:
    """How many rows of an attempts table hold something ``init`` would not write (a score, a
    status other than missing, an adoption other than selected, a note, a reference id, any cell
    of another column), and how many of those hold a score. The columns that come from the
    cohort and the suite (model, track, item, attempt, score_type, solver_protocol) do not count."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=False)
    header = [c.strip() for c in next(reader, [])]
    rows = scored = 0
    for cells in reader:
        filled = False
        for name, cell in zip(header, cells, strict=False):
            value = cell.strip()
            if name in FROM_THE_COHORT or value in SKELETON_CELLS.get(name, ("",)):
                continue
            filled = True
            scored += name == "score"
        if len(cells) > len(header) and any(c.strip() for c in cells[len(header) :]):
            filled = True
        rows += filled
    return rows, scored


def check_nothing_filled(target: Path) -> None:
    """docs/safety.md: ``init --force`` replaces a table that holds nothing but the skeleton; a
    table with anything filled in (``filled_rows``), or one that cannot be read, is an InputError
    saying what it holds, and nothing is written: the user moves it away first."""
    from .attempts import decode_csv

    move = f"move it away first (mv {target} {target.with_name('attempts.old.csv')}) to start again"
    try:
        text = decode_csv(read_bytes(target, "attempts table"), str(target))
        rows, scored = filled_rows(text)
    except (InputError, csv.Error) as exc:
        reason = "; ".join(p.message for p in exc.problems) if isinstance(exc, InputError) else str(exc)
        raise InputError(
            [
                Problem(
                    str(target),
                    "",
                    "",
                    f"cannot tell what the attempts table holds ({reason}): nothing written; {move}",
                )
            ]
        ) from None
    if rows:
        raise InputError(
            [
                Problem(
                    str(target),
                    "",
                    "",
                    f"attempts table holds {rows} filled row(s), {scored} with a score: --force replaces only a "
                    "table with no score, status, note or exclusion in it; nothing written; " + move,
                )
            ]
        )


# --- attempts.csv at field level ------------------------------------------------------------------

_FIELD_END = re.compile(r"[,\r\n]")


@dataclass
class CsvRecord:
    """One CSV record of the text: each field's span (raw, quotes included) and unquoted value."""

    spans: list[tuple[int, int]]
    values: list[str]
    end: int  # where the record's line terminator (or the text) starts


def scan_csv(text: str) -> list[CsvRecord]:
    """Split ``text`` into records as Python's csv module (excel dialect, non-strict) reads it,
    keeping where every field sits, so that a field can be replaced without touching the rest."""
    records: list[CsvRecord] = []
    i, n = 0, len(text)
    while i < n:
        spans: list[tuple[int, int]] = []
        values: list[str] = []
        while True:
            start = i
            if i < n and text[i] == '"':
                i += 1
                buf = []
                while i < n:
                    c = text[i]
                    if c == '"':
                        if i + 1 < n and text[i + 1] == '"':
                            buf.append('"')
                            i += 2
                            continue
                        i += 1
                        break
                    buf.append(c)
                    i += 1
                m = _FIELD_END.search(text, i)
                j = m.start() if m else n
                buf.append(text[i:j])  # non-strict: text after the closing quote belongs to the field
                i = j
                value = "".join(buf)
            else:
                m = _FIELD_END.search(text, i)
                j = m.start() if m else n
                value = text[i:j]
                i = j
            spans.append((start, i))
            values.append(value)
            if i < n and text[i] == ",":
                i += 1
                continue
            break
        end = i
        if i < n and text[i] == "\r":
            i += 1
            if i < n and text[i] == "\n":
                i += 1
        elif i < n and text[i] == "\n":
            i += 1
        records.append(CsvRecord(spans, values, end))
    return records


def csv_cell(value: str, was_quoted: bool) -> str:
    """A cell as written back: quoted when the old one was, or when the value needs it."""
    if was_quoted or any(c in value for c in ',"\r\n') or value != value.strip():
        return '"' + value.replace('"', '""') + '"'
    return value


# --- fill ---------------------------------------------------------------------------------------


@dataclass
class FillPlan:
    """What fill found: the edits to make and everything it lists."""

    filled: list[tuple] = field(default_factory=list)  # (row, old score, new score, output path, TaskScore)
    unchanged: list[tuple] = field(default_factory=list)  # (row, score, output path, TaskScore): already right
    conflicts: list[Problem] = field(default_factory=list)
    not_ready: list[tuple] = field(default_factory=list)  # (row, reason)
    no_records: list = field(default_factory=list)  # adopted solver rows without a records file


def not_ready_reason(task_ref, raw) -> str | None:
    """SPEC 10 'not ready': an incomplete observation (missing, infra_error) or a scored instance
    without a record. Other problems are left to the scorer, which rejects them."""
    if not isinstance(raw, list):
        return None
    incomplete = [
        r
        for r in raw
        if isinstance(r, dict)
        and r.get("status") in INCOMPLETE_STATUSES
        and isinstance(r.get("instance"), str)
        and r.get("instance")
    ]
    names = {r.get("instance") for r in raw if isinstance(r, dict)}
    lacking = [name for name in task_ref.names if name not in names]
    parts = []
    if incomplete:
        shown = ", ".join(f"{r['instance']} ({r['status']})" for r in incomplete[:5])
        parts.append(f"{len(incomplete)} incomplete observation(s): {shown}{' ...' if len(incomplete) > 5 else ''}")
    if lacking:
        parts.append(
            f"{len(lacking)} scored instance(s) without a record: {', '.join(lacking[:5])}"
            f"{' ...' if len(lacking) > 5 else ''}"
        )
    return "; ".join(parts) or None


def not_ready(task_ref, data: bytes, file: str) -> str | None:
    """Why a records file that does not score is not ready (SPEC 10), or None when it is rejected
    for another reason; a not-ready file with other problems as well raises them."""
    import msgspec

    try:
        raw = msgspec.json.decode(data)
    except msgspec.DecodeError:
        return None  # not JSON: the scorer's own message says so
    reason = not_ready_reason(task_ref, raw)
    if reason:
        check_rest(task_ref, raw, file)
    return reason


def check_rest(task_ref, raw, file: str) -> None:
    """Reject every problem of a not-ready records file other than what makes it not ready."""
    from .solver_score import parse_records

    rest = [
        r
        for r in raw
        if not (
            isinstance(r, dict)
            and r.get("status") in INCOMPLETE_STATUSES
            and isinstance(r.get("instance"), str)
            and r.get("instance")
        )
    ]
    parse_records(rest, file, task_ref.kind)
    seen: dict[str, int] = {}
    problems = Problems()
    for i, r in enumerate(raw):
        name = r.get("instance") if isinstance(r, dict) else None
        if isinstance(name, str) and name in seen:
            problems.add(
                file, f"record {i} ('{name}')", "instance", f"duplicate instance name (first at record {seen[name]})"
            )
        elif isinstance(name, str):
            seen[name] = i
    problems.raise_if_any()


def check_row_names(row, file: str) -> None:
    """SPEC 13: the names that make a row's records and solver-scores paths are data, never
    paths (``safety.check_name``); a bad one is a problem on the row's line."""
    problems = Problems()
    for value, kind in ((row.model, "model"), (row.item, "item"), (row.attempt, "attempt")):
        problem = check_name(value, kind)
        if problem:
            problems.add(file, f"line {row.line}", kind, f"{value!r}: {problem}")
    problems.raise_if_any()


def plan_fill(run, reference, run_dir: Path) -> FillPlan:
    """Score every adopted solver row with a records file (SPEC 10); raises InputError on any
    problem of a records file other than 'not ready', listing every one."""
    from .solver_score import score_attempt_bytes

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
            problems.add(
                reference.path,
                "tasks",
                row.item,
                f"solver task '{row.item}' is not in reference '{reference.reference_id}'",
            )
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
            and abs(old - new) <= CONFLICT_TOLERANCE
            and same_ref
            and row.score_status == "valid"
            and row.reference_id == cohort_id
        ):
            plan.unchanged.append((row, old, out, result))
            continue
        if old is not None and (not math.isfinite(old) or abs(old - new) > CONFLICT_TOLERANCE or not same_ref):
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


def edited_text(text: str, columns: list[str], rows, edits: dict[int, dict[str, str]]) -> str:
    """attempts.csv with the fields of ``edits`` (row line -> column -> new value) replaced and,
    when the header has no ``reference_id``, that column appended (empty on rows not filled)."""
    records = scan_csv(text)
    append = "reference_id" not in columns
    index = {c: i for i, c in enumerate(columns)}
    data = [r for r in records[1:] if "".join(r.values).strip()]  # blank records are skipped, as the reader does
    if len(data) != len(rows):  # pragma: no cover - the reader and the scanner disagree: never write
        raise ValueError("attempts.csv: the field scanner and the CSV reader disagree on the rows")
    by_record: dict[int, dict[str, str]] = {}
    for rec, row in zip(data, rows, strict=True):
        cells = [v.strip() for v in rec.values]
        if (cells[index["model"]], cells[index["item"]], cells[index["attempt"]]) != (row.model, row.item, row.attempt):
            raise ValueError(
                f"attempts.csv line {row.line}: the field scanner and the CSV reader disagree"
            )  # pragma: no cover
        if row.line in edits:
            by_record[id(rec)] = edits[row.line]
    pieces: list[str] = []
    pos = 0
    for k, rec in enumerate(records):
        changes = by_record.get(id(rec), {})
        # the cells of a row in the order they sit in the line, whatever the order of the columns
        spans = sorted((rec.spans[index[column]], value) for column, value in changes.items() if column in index)
        if spans:
            pieces.append(text[pos : rec.spans[0][0]])
            pos = rec.spans[0][0]
            first = len(pieces)
            for (start, end), value in spans:
                pieces.append(text[pos:start])
                pieces.append(csv_cell(value, text.startswith('"', start) and end > start))
                pos = end
            pieces.append(text[pos : rec.end])
            pos = rec.end
            check_edited_record("".join(pieces[first:]), rec, index, changes)
        if append and (k == 0 or "".join(rec.values).strip()):
            pieces.append(text[pos : rec.end])
            pos = rec.end
            if k == 0:
                pieces.append(",reference_id")
            else:
                pieces.append("," + csv_cell(changes.get("reference_id", ""), False))
    pieces.append(text[pos:])
    return "".join(pieces)


def check_edited_record(new: str, rec: CsvRecord, index: dict[str, int], changes: dict[str, str]) -> None:
    """The last guard before a write: the edited record reads back as the old one with only the
    edited cells changed (same number of fields), else a ValueError (an internal error: never
    written)."""
    expected = list(rec.values)
    for column, value in changes.items():
        if column in index:
            expected[index[column]] = value
    got = [r.values for r in scan_csv(new)]
    if got != [expected]:  # pragma: no cover - a bug of the edit: never write
        raise ValueError(f"attempts.csv: an edited row does not read back as intended ({got!r} != {expected!r})")


def who(row) -> str:
    """A row as printed: its line and names, control characters escaped (SPEC 13)."""
    return escape_for_terminal(f"line {row.line}: {row.model} {row.item} attempt {row.attempt}")


def fmt_score(x) -> str:
    return "(empty)" if x is None else repr(x)


def run_fill(args) -> int:
    """``tcsexam fill`` (SPEC 10). Exit 0 when every adopted solver row ends valid, 3 when some
    do not, 1 on a conflict (without --overwrite) or any other problem; nothing written then."""
    from .attempts import decode_csv
    from .inputs import load_run, resolve_run_paths
    from .reference import check_reference_identity, load_reference, reference_path
    from .solver_score import solver_score_bytes

    run_dir = Path(args.run_dir or ".")
    paths = resolve_run_paths(str(run_dir), benchmark=args.benchmark)
    run = load_run(paths)
    for notice in run.notices:
        say(notice, sys.stderr)
    if run.problems:
        raise InputError(run.problems)
    reference = run.reference
    if reference is None:
        rpath = reference_path(paths.benchmark, run.cohort.solver_reference_id, run.cohort.suite)
        if not rpath.is_file():
            raise InputError(
                [
                    Problem(
                        str(rpath),
                        "",
                        "",
                        f"reference '{run.cohort.solver_reference_id}' for suite "
                        f"'{run.cohort.suite}' not found: needed to score the records",
                    )
                ]
            )
        reference = load_reference(rpath)
        check_reference_identity(reference, run.cohort.solver_reference_id, run.cohort.suite)
    inputs = [str(p) for p in (*run.input_paths.values(), reference.path)]
    records_folder = str(run_dir / "records")
    if not args.dry_run:  # SPEC 13: attempts.csv, replaced last, is checked before anything is written
        check_output(str(paths.attempts), [p for p in inputs if p != str(run.input_paths["attempts"])])
    plan = plan_fill(run, reference, run_dir)
    if plan.conflicts and not args.overwrite:
        raise InputError(
            plan.conflicts
            + [Problem(str(paths.attempts), "", "", "pass --overwrite to replace the conflicting scores")]
        )
    cohort_id = run.cohort.solver_reference_id
    edits = {
        row.line: {"score": repr(new), "score_status": "valid", "reference_id": cohort_id}
        for row, _, new, _, _ in plan.filled
    }
    # The table is edited from the very bytes that were loaded and checked, and replaced only when
    # nothing else wrote to it since (docs/safety.md: an edit made while fill runs is never lost).
    data, stamp = read_regular_file_stamped(paths.attempts, "attempts table")
    if hashlib.sha256(data).hexdigest() != run.attempts.sha256:
        raise InputError([changed_since_read(str(paths.attempts))])
    text = decode_csv(data, str(paths.attempts))
    bom = data.startswith(b"\xef\xbb\xbf")
    new_text = edited_text(text, run.attempts.columns, run.attempts.rows, edits)
    prefix = "would fill" if args.dry_run else "filled"
    for row, old, new, _out, _ in plan.filled:
        print(
            f"{prefix}: {who(row)}: score {fmt_score(old)} -> "
            f"{new!r}{' (conflict replaced)' if old is not None and abs(old - new) > CONFLICT_TOLERANCE else ''}"
        )
    for problem in plan.conflicts:
        print(f"conflict: {escape_for_terminal(str(problem))}")
    for row, reason in plan.not_ready:
        print(f"not ready: {who(row)}: {escape_for_terminal(reason)}")
    for row in plan.no_records:
        if row.score_status != "valid":
            print(f"no records: {who(row)}")
    if not args.dry_run:
        suite_name, rid = reference.suite, reference.reference_id
        outputs = [(out, result) for _, _, _, out, result in plan.filled]
        outputs += [(out, result) for _, _, out, result in plan.unchanged]
        for out, _ in outputs:  # SPEC 13: every output is checked before the first is written
            check_output(out, inputs, [records_folder])
        for out, result in outputs:
            write_atomic(out, solver_score_bytes(result, suite_name, rid))
        if new_text != text:  # attempts.csv last, after every solver-score output is in place
            write_atomic(paths.attempts, ((BOM if bom else "") + new_text).encode("utf-8"), unchanged=stamp)
    # SPEC 10: exit 3 when some adopted solver row does not end with a valid score
    waiting = [row for row in [*(r for r, _ in plan.not_ready), *plan.no_records] if row.score_status != "valid"]
    print(
        f"{prefix} {len(plan.filled)}, already filled {len(plan.unchanged)}, conflicts {len(plan.conflicts)}"
        f"{' replaced' if plan.conflicts else ''}, not ready {len(plan.not_ready)}, "
        f"without records {sum(1 for r in plan.no_records if r.score_status != 'valid')}"
        f"{' (dry run: nothing written)' if args.dry_run else ''}"
    )
    return EXIT_INCOMPLETE if waiting else EXIT_OK


# --- command line ---------------------------------------------------------------------------------


def add_init_parser(sub) -> None:
    from .cli import epilog

    p = sub.add_parser(
        "init",
        help="write a skeleton attempts.csv from the cohort",
        description="One row per planned attempt of every model and task, score empty, score_status missing. "
        "A table with anything filled in is never replaced (docs/safety.md).",
        epilog=epilog(
            "  tcsexam init run/\n  tcsexam init run/ --cohort cohort.json --force",
            "exit codes:\n  0  written\n  1  rejected (an existing attempts.csv without --force, a filled one even\n"
            "     with --force, a bad cohort)\n"
            "  2  usage error",
        ),
    )
    p.add_argument("run_dir", nargs="?", metavar="RUN_DIR", help="run folder (default: the current folder)")
    p.add_argument("--cohort", metavar="JSON", help="cohort declaration (default RUN_DIR/cohort.json)")
    p.add_argument(
        "--benchmark", metavar="DIR", help="benchmark folder (default $TCSEXAM_BENCHMARK or the bundled sample)"
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="replace an existing attempts.csv that holds no score, status, note or exclusion "
        "(a filled one is never replaced: move it away first)",
    )


def add_fill_parser(sub) -> None:
    from .cli import epilog

    p = sub.add_parser(
        "fill",
        help="fill solver scores into attempts.csv from the records",
        description="Scores every adopted solver row with a records file as solver-score does, "
        "writes RUN_DIR/solver-scores/<model>/<item>/<attempt>.json, then edits only the filled "
        "fields of attempts.csv (what it keeps: docs/safety.md).",
        epilog=epilog(
            "  tcsexam fill run/ --dry-run\n  tcsexam fill run/\n  tcsexam fill run/ --overwrite",
            "exit codes:\n  0  every adopted solver row ends with a valid score\n"
            "  3  some are not ready or have no records file\n"
            "  1  a conflict (without --overwrite) or rejected records: nothing written; or attempts.csv\n"
            "     changed while fill ran: attempts.csv left as it is\n  2  usage error",
        ),
    )
    p.add_argument("run_dir", nargs="?", metavar="RUN_DIR", help="run folder (default: the current folder)")
    p.add_argument(
        "--benchmark", metavar="DIR", help="benchmark folder (default $TCSEXAM_BENCHMARK or the bundled sample)"
    )
    p.add_argument("--overwrite", action="store_true", help="replace scores that differ from the records (listed)")
    p.add_argument("--dry-run", action="store_true", help="print the changes; write nothing")


def add_parsers(sub) -> dict:
    """Register init and fill on the ``tcsexam`` sub-parsers; returns command -> handler."""
    add_init_parser(sub)
    add_fill_parser(sub)
    return {"init": run_init, "fill": run_fill}
