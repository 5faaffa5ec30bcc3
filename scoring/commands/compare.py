"""``compare``: the paired difference of two models."""

from __future__ import annotations

from tcsexam.scoring.commands.options import (
    add_output_argument,
    add_run_arguments,
    checked,
    command_parser,
    run_and_target,
    say,
    thresholds_of,
    write_to,
)
from tcsexam.scoring.safety.terminal import escape_for_terminal
from tcsexam.scoring.vocab import EXIT_INCOMPLETE, EXIT_OK


def cmd_compare(args) -> int:
    from tcsexam.scoring.commands.text import format_comparison, written
    from tcsexam.scoring.formats.json import dumps
    from tcsexam.scoring.formats.results import CompareDocument
    from tcsexam.scoring.pipeline.index import score_run
    from tcsexam.scoring.reports.compare import compare_run

    run, target = run_and_target(args)
    document, checked_run = score_run(run, thresholds_of(args))
    result = compare_run(document, checked_run, *args.models)
    if args.output:
        write_to(target, dumps(checked(result, CompareDocument)))
    say("\n".join(map(escape_for_terminal, format_comparison(result).splitlines())), args)
    if target is not None:
        say(written("comparison", args.output), args)
    return EXIT_INCOMPLETE if result["incomplete"] else EXIT_OK


def add_parsers(sub) -> None:
    p = command_parser(sub, "compare")
    add_run_arguments(p)
    p.add_argument("--models", nargs=2, required=True, metavar=("A", "B"), help="the two models, A - B")
    add_output_argument(p, "also write the comparison as JSON here")
    p.set_defaults(handler=cmd_compare)
