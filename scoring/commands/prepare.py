"""``init`` and ``fill``."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from scoring.errors import InputError, Problem
from scoring.prepare.csv_fields import edited_text
from scoring.prepare.fill import BOM, fmt_score, plan_fill, who
from scoring.prepare.init import check_nothing_filled, init_text
from scoring.safety.files import read_regular_file_stamped
from scoring.safety.outputs import changed_since_read, check_output, write_atomic
from scoring.safety.terminal import escape_for_terminal, say
from scoring.vocab import CROSS_CHECK_TOLERANCE, EXIT_INCOMPLETE, EXIT_OK


def run_init(args) -> int:
    """``tcsexam init`` (SPEC 10): write RUN_DIR/attempts.csv; an existing one only with --force."""
    from scoring.pipeline.benchmark import locate_benchmark, sample_benchmark_notice
    from scoring.pipeline.run import load_cohort_file, load_suite_file, suite_path

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


def run_fill(args) -> int:
    """``tcsexam fill`` (SPEC 10). Exit 0 when every adopted solver row ends valid, 3 when some
    do not, 1 on a conflict (without --overwrite) or any other problem; nothing written then."""
    from scoring.formats.attempts import decode_csv
    from scoring.pipeline.benchmark import cohort_reference
    from scoring.pipeline.run import load_run, resolve_run_paths
    from scoring.pipeline.solver import solver_score_bytes

    run_dir = Path(args.run_dir or ".")
    paths = resolve_run_paths(str(run_dir), benchmark=args.benchmark)
    run = load_run(paths)
    for notice in run.notices:
        say(notice, sys.stderr)
    if run.problems:
        raise InputError(run.problems)
    reference = run.reference
    if reference is None:
        reference = cohort_reference(
            paths.benchmark, run.cohort.solver_reference_id, run.cohort.suite, "needed to score the records"
        )
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
            f"{new!r}{' (conflict replaced)' if old is not None and abs(old - new) > CROSS_CHECK_TOLERANCE else ''}"
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


def add_init_parser(sub):
    from scoring.commands.options import add_benchmark_argument, add_cohort_argument, command_parser

    p = command_parser(sub, "init")
    p.add_argument("run_dir", nargs="?", metavar="RUN_DIR", help="run folder (default: the current folder)")
    add_cohort_argument(p)
    add_benchmark_argument(p)
    p.add_argument(
        "--force",
        action="store_true",
        help="replace an existing attempts.csv that holds no score, status, note or exclusion "
        "(a filled one is never replaced: move it away first)",
    )
    return p


def add_fill_parser(sub):
    from scoring.commands.options import add_benchmark_argument, command_parser

    p = command_parser(sub, "fill")
    p.add_argument("run_dir", nargs="?", metavar="RUN_DIR", help="run folder (default: the current folder)")
    add_benchmark_argument(p)
    p.add_argument("--overwrite", action="store_true", help="replace scores that differ from the records (listed)")
    p.add_argument("--dry-run", action="store_true", help="print the changes; write nothing")
    return p


def add_parsers(sub) -> None:
    """Register init and fill on the ``tcsexam`` sub-parsers; returns command -> handler."""
    add_init_parser(sub).set_defaults(handler=run_init)
    add_fill_parser(sub).set_defaults(handler=run_fill)
