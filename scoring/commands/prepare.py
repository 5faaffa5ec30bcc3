"""``init``, ``fill`` and ``pack``: their options and their console text; the work is ``scoring.prepare``
(imported when the command runs: ``--help`` loads no pydantic)."""

from __future__ import annotations

import sys
from pathlib import Path

from tcsexam.scoring.grammar import counted
from tcsexam.scoring.safety.terminal import escape_for_terminal, say
from tcsexam.scoring.vocab import COHORT_FILE, EXIT_INCOMPLETE, EXIT_OK


def notify(line: str) -> None:
    say(line, sys.stderr)


def run_init(args) -> int:
    """``tcsexam init`` (docs/commands.md#init): write RUN_DIR/attempts.csv, or append to it the
    planned rows it lacks (--add-missing)."""
    from tcsexam.scoring.prepare.init import init_run

    run_dir = Path(args.run_dir or ".")
    cohort_path = Path(args.cohort) if args.cohort else run_dir / COHORT_FILE
    report = init_run(
        run_dir, cohort_path, args.benchmark, force=args.force, add_missing=args.add_missing, notify=notify
    )
    if report.appended:
        print(f"init --add-missing: {counted(report.rows, 'planned attempt')} appended -> {report.target}")
    else:
        print(
            f"init: {counted(report.rows, 'planned attempt')} of {counted(report.models, 'model')} over "
            f"{counted(report.tasks, 'task')} of suite "
            f"'{report.suite}' -> {report.target}"
        )
    return EXIT_OK


def run_fill(args) -> int:
    """``tcsexam fill`` (docs/commands.md#fill). Exit 0 when every adopted solver row ends valid, 3
    when some do not, 1 on a conflict (without --overwrite) or any other problem; nothing written then."""
    from tcsexam.scoring.formats.json import collector_paused
    from tcsexam.scoring.prepare.fill import fill_run, fmt_score, who

    with collector_paused():  # the rows, scores and outputs make no cycles, as in ``score``
        report = fill_run(
            Path(args.run_dir or "."), args.benchmark, overwrite=args.overwrite, dry_run=args.dry_run, notify=notify
        )
    plan = report.plan
    prefix = "would fill" if report.dry_run else "filled"
    for f in plan.filled:
        replaced = " (conflict replaced)" if f.replaces_conflict else ""
        print(f"{prefix}: {who(f.row)}: score {fmt_score(f.old)} -> {f.new!r}{replaced}")
    for problem in plan.conflicts:
        print(f"conflict: {escape_for_terminal(str(problem))}")
    for n in plan.not_ready:
        print(f"not ready: {who(n.row)}: {escape_for_terminal(n.reason)}")
    without = [row for row in plan.no_records if row.score_status != "valid"]
    for row in without:
        print(f"no records: {who(row)}")
    typed = len(plan.no_records) - len(without)  # valid rows no records file checks (docs/rules.md#rows-and-records)
    print(
        f"{prefix} {len(plan.filled)}, already filled {len(plan.unchanged)}, conflicts {len(plan.conflicts)}"
        f"{' replaced' if plan.conflicts else ''}, not ready {len(plan.not_ready)}, without records {len(without)}"
        f"{f', valid without records {typed} (typed in, not checked)' if typed else ''}"
        f"{' (dry run: nothing written)' if report.dry_run else ''}"
    )
    return EXIT_INCOMPLETE if plan.waiting else EXIT_OK


def run_pack(args) -> int:
    """``tcsexam pack`` (docs/commands.md#pack): write RUN_DIR/records.jsonl from RUN_DIR/records/."""
    from tcsexam.scoring.prepare.pack import pack_run

    report = pack_run(Path(args.run_dir or "."), overwrite=args.overwrite)
    print(
        f"pack: {counted(report.lines, 'records file')} ({counted(report.records, 'record')}, "
        f"{report.size:,} bytes) -> {escape_for_terminal(str(report.target))}"
    )
    notify("records/ is unchanged: a run with both records/ and records.jsonl is refused, so move records/ away")
    return EXIT_OK


def add_init_parser(sub):
    from tcsexam.scoring.commands.options import add_benchmark_argument, add_cohort_argument, command_parser

    p = command_parser(sub, "init")
    p.add_argument("run_dir", nargs="?", metavar="RUN_DIR", help="run folder (default: the current folder)")
    add_cohort_argument(p)
    add_benchmark_argument(p)
    replace = p.add_mutually_exclusive_group()
    replace.add_argument(
        "--force",
        action="store_true",
        help="replace an existing attempts.csv that holds no score, status, note or exclusion "
        "(a filled one is never replaced: move it away first)",
    )
    replace.add_argument(
        "--add-missing",
        action="store_true",
        help="append to an existing attempts.csv the planned attempts it has no row for "
        "(a model or attempts added to the cohort later); every other byte stays",
    )
    return p


def add_fill_parser(sub):
    from tcsexam.scoring.commands.options import add_benchmark_argument, command_parser

    p = command_parser(sub, "fill")
    p.add_argument("run_dir", nargs="?", metavar="RUN_DIR", help="run folder (default: the current folder)")
    add_benchmark_argument(p)
    p.add_argument("--overwrite", action="store_true", help="replace scores that differ from the records (listed)")
    p.add_argument("--dry-run", action="store_true", help="print the changes; write nothing")
    return p


def add_pack_parser(sub):
    from tcsexam.scoring.commands.options import command_parser

    p = command_parser(sub, "pack")
    p.add_argument("run_dir", nargs="?", metavar="RUN_DIR", help="run folder (default: the current folder)")
    p.add_argument("--overwrite", action="store_true", help="replace an existing records.jsonl")
    return p


def add_parsers(sub) -> None:
    """Register init, fill and pack on the ``tcsexam`` sub-parsers."""
    add_init_parser(sub).set_defaults(handler=run_init)
    add_fill_parser(sub).set_defaults(handler=run_fill)
    add_pack_parser(sub).set_defaults(handler=run_pack)
