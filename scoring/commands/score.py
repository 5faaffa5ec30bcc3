"""``score``, ``validate`` and ``solver-score``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tcsexam.scoring.commands.options import (
    add_benchmark_argument,
    add_output_argument,
    add_run_arguments,
    check_name_options,
    command_parser,
    load_for,
    output_target,
    run_and_target,
    say,
    thresholds_of,
    write_to,
)
from tcsexam.scoring.commands.text import ignored_rows_line, summary_table, written
from tcsexam.scoring.errors import InputError
from tcsexam.scoring.grammar import counted
from tcsexam.scoring.reports.findings import finding_text, findings, not_checked_lines, run_findings, score_warnings
from tcsexam.scoring.safety.terminal import escape_for_terminal
from tcsexam.scoring.safety.terminal import say as say_on
from tcsexam.scoring.vocab import EXIT_FOR_STATUS, EXIT_OK, EXIT_REJECTED


def cmd_solver_score(args) -> int:
    from tcsexam.scoring.pipeline.benchmark import (
        benchmark_origin,
        default_reference_id,
        default_reference_suite,
        locate_benchmark,
        missing_benchmark,
        resolve_reference,
        sample_benchmark_notice,
    )
    from tcsexam.scoring.pipeline.solver import score_file, solver_score_bytes, unknown_instances_text

    check_name_options(("--task", args.task, "item"), ("--reference-id", args.reference_id, "reference id"))
    target = output_target(args, [args.records] + ([args.reference] if args.reference else []))
    benchmark, source = locate_benchmark(args.benchmark)
    if args.reference in (None, "lite", "full"):  # a reference of the benchmark folder, not a file
        notice = sample_benchmark_notice(source, benchmark, args.reference_id or default_reference_id(benchmark))
        if notice:
            say_on(notice, sys.stderr)
        missing = missing_benchmark(benchmark, benchmark_origin(args.benchmark))
        if missing:
            raise InputError([missing])
    spec = args.reference or default_reference_suite(benchmark, args.reference_id)
    ref = resolve_reference(spec, benchmark, args.reference_id)
    if not ref.has_task(args.task):
        from tcsexam.scoring.reports.references import no_such_task

        raise no_such_task(ref, args.task)
    task_ref = ref.task(args.task)
    suite, reference_id = ref.suite, ref.reference_id
    del ref  # the parsed file is no longer needed: free it before the records arrive
    result = score_file(task_ref, Path(args.records))
    write_to(target, solver_score_bytes(result, suite, reference_id))
    say(
        escape_for_terminal(
            f"{args.task}: relative_score {result.relative_score:.12g} over {counted(task_ref.n_scored, 'scored instance')} "
            f"({counted(len(result.unscored_instances), 'unscored record')}) against {reference_id} -> {args.output}"
        ),
        args,
    )
    if result.unknown_instances:
        say_on(
            escape_for_terminal(f"warning: {args.records}: {unknown_instances_text(result, reference_id)}"), sys.stderr
        )
    return EXIT_OK


def default_index_path(args) -> str:
    """``score``'s output when ``--output`` is not given: RUN_DIR/build/index.json, beside the run it
    belongs to (the current folder's build/ when RUN_DIR is not given), docs/commands.md#score."""
    return os.path.join(args.run_dir or "", "build", "index.json")


def cmd_score(args) -> int:
    from tcsexam.scoring.formats.json import collector_paused

    with collector_paused():  # see ``cmd_validate``
        return _score(args)


def _score(args) -> int:
    from tcsexam.scoring.formats.json import dumps
    from tcsexam.scoring.pipeline.index import build_index, write_index

    if args.output is None:
        args.output = default_index_path(args)
    run, target = run_and_target(args)
    document = build_index(run, thresholds_of(args))
    if args.strict and (found := findings(document)):
        return strict_refusal(found, shown=False, done="; nothing written")
    if target is None:
        write_to(None, dumps(document, finite=True))
    else:
        write_index(target, document)
    say(summary_table(document), args)
    if line := ignored_rows_line(document, args):
        say(line, args)
    for line in score_warnings(document) + not_checked_lines(document):
        say_on(line, sys.stderr)
    # the status last, on standard error when the document went to standard output
    say(f"{document['status']}: {written('index.json', args.output if target else 'standard output')}", args)
    return EXIT_FOR_STATUS[document["status"]]


def cmd_validate(args) -> int:
    """The cyclic garbage collector stays paused from loading to the last line printed, as it is
    while the run is scored (``pipeline.index.score_run``): the document makes no cycles, and the
    collector, given back, walked all of it at its next allocation (docs/performance.md)."""
    from tcsexam.scoring.formats.json import collector_paused

    with collector_paused():
        return _validate(args)


# said after a rejection: the findings need the index, which a rejected run does not have
FINDINGS_LATER = (
    "validate lists the run's findings (missing, provisional or excluded attempts, warnings) once nothing is rejected"
)


def _validate(args) -> int:
    from tcsexam.scoring.errors import InputError
    from tcsexam.scoring.pipeline.index import build_index

    try:
        run = load_for(args)
        document = build_index(run, thresholds_of(args))
    except InputError as exc:
        if args.json:  # the problems on standard output, as JSON; exit 1 all the same
            validate_json(args, None, exc.problems, exc.hint or FINDINGS_LATER, [])
            return EXIT_REJECTED
        raise InputError(exc.problems, exc.hint or FINDINGS_LATER) from None
    found = run_findings(document)
    if args.json:
        validate_json(args, (document, len(run.attempts.rows)), [], None, found)
    else:
        list_findings(document, len(run.attempts.rows), found)
    if args.strict and found:
        return strict_refusal([finding_text(f) for f in found], shown=True)
    return EXIT_FOR_STATUS[document["status"]]


def list_findings(document: dict, n_rows: int, found: list) -> None:
    """``validate``'s text on standard output: the verdict line, then each finding (``finding_text``)."""
    ign = document["ignored_rows"]["count"]
    # "no problems" only for a run with nothing to report: ignored rows (where a typo lands), missing,
    # provisional or excluded attempts and warnings are findings of an accepted run
    verdict = "no problems" if not found and not ign else "no rejections"
    if ign:
        verdict += f"; {counted(ign, 'ignored row')} (see below)"
    print(
        f"{verdict}: {counted(n_rows, 'row')}, {counted(len(document['models']), 'model')}, "
        f"status {document['status']}, {counted(len(found), 'finding')}"
    )
    for f in found:
        print(finding_text(f))


def validate_json(args, scored: tuple[dict, int] | None, problems: list, hint: str | None, found: list) -> None:
    """``validate --json`` (docs/formats.md#validate-output): the verdict as one JSON document on standard
    output, of the type ``ValidateOutput`` (``tcsexam schema validate``); names as they are, never escaped
    for a terminal (JSON escapes what it must). With --strict, a finding is a rejection: not accepted."""
    import msgspec

    from tcsexam.scoring.formats.json import dumps
    from tcsexam.scoring.formats.results import ValidateOutput, ValidateProblem

    document, rows = scored if scored is not None else (None, None)
    out = ValidateOutput(
        accepted=document is not None and not (args.strict and found),
        strict=args.strict,
        status=None if document is None else document["status"],
        rows=rows,
        models=None if document is None else len(document["models"]),
        problems=[ValidateProblem(file=p.file, where=p.where, field=p.field, message=p.message) for p in problems],
        hint=hint,
        findings=found,
    )
    write_to(None, dumps(msgspec.to_builtins(out), finite=True))


def strict_refusal(found: list[str], shown: bool, done: str = "") -> int:
    """``--strict`` (docs/commands.md#validate): every finding is a rejection, exit 1. ``found`` are
    printed on standard error unless ``shown`` already (``validate`` lists them on standard output)."""
    for line in [] if shown else found:
        say_on(line, sys.stderr)
    n = len(found)
    say_on(f"rejected by --strict: {n} finding{'' if n == 1 else 's'}{done}", sys.stderr)
    return EXIT_REJECTED


def add_parsers(sub) -> None:
    p = command_parser(sub, "solver-score")
    p.add_argument("--task", required=True, metavar="ITEM", help="the solver task (an item of the reference)")
    p.add_argument("--records", required=True, metavar="FILE", help="the attempt's instance records (JSON list)")
    p.add_argument(
        "--reference",
        metavar="{lite|full|PATH}",
        help="the suite's reference in the benchmark folder, or a reference file "
        "(default: the reference folder's only suite file)",
    )
    p.add_argument(
        "--reference-id",
        metavar="ID",
        help="reference id under BENCHMARK/references/ (default: the benchmark's only one, else paper-k3-fixed-260925)",
    )
    add_benchmark_argument(p)
    add_output_argument(p, "where the solver-score JSON goes", required=True)
    p.set_defaults(handler=cmd_solver_score)

    p = command_parser(sub, "score")
    add_run_arguments(p)
    add_output_argument(p, "where index.json goes (default RUN_DIR/build/index.json)")
    add_strict_argument(p, "nothing is written")
    p.set_defaults(handler=cmd_score)

    p = command_parser(sub, "validate")
    add_run_arguments(p)
    add_strict_argument(p, "for a CI pipeline")
    p.add_argument(
        "--json",
        action="store_true",
        help="the verdict as JSON on standard output: accepted or not, the problems or the findings "
        "(tcsexam schema validate); the exit code as without it",
    )
    p.set_defaults(handler=cmd_validate)


def add_strict_argument(p, then: str) -> None:
    p.add_argument(
        "--strict",
        action="store_true",
        help=f"every finding validate lists (warnings, incomplete, provisional, excluded, ignored rows, "
        f"unused records) is a rejection: exit 1; {then}",
    )
