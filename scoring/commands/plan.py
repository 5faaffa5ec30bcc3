"""``tcsexam plan`` (docs/rules.md#planning-attempts): attempts per task needed for a precision.

The run is loaded and scored once (``pipeline.index.score_run``); each model's valid
adopted attempt scores, per task with a task mean, go to the planner
(``stats.planning.plan``), and the document is converted through ``PlanDocument``
before it is written. Exit codes as ``score``: 0 complete or provisional,
3 incomplete (the plan of the tasks with a mean is still written), 1 rejected
input, 2 usage.
"""

from __future__ import annotations

import argparse
import math

from tcsexam.scoring.commands.text import format_plan
from tcsexam.scoring.reports.plan import plan_document
from tcsexam.scoring.vocab import EXIT_FOR_STATUS

MAX_ATTEMPTS_LIMIT = 1000  # --max-attempts above this is a usage error: a plan, not a table of 10^9 rows


def parse_max_attempts(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of attempts, got {text!r}") from None
    if not 1 <= value <= MAX_ATTEMPTS_LIMIT:
        raise argparse.ArgumentTypeError(f"must be between 1 and {MAX_ATTEMPTS_LIMIT}, got {value}")
    return value


def parse_target(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a half-width in index points, got {text!r}") from None
    if not math.isfinite(value) or value <= 0.0:
        raise argparse.ArgumentTypeError(f"must be a positive finite number of index points, got {text!r}")
    return value


def add_parsers(sub) -> None:
    """Register ``plan`` on the ``tcsexam`` sub-parsers; returns command -> handler."""
    from tcsexam.scoring.commands.options import add_output_argument, add_run_arguments, command_parser

    p = command_parser(sub, "plan")
    add_run_arguments(p)
    p.add_argument(
        "--max-attempts",
        type=parse_max_attempts,
        metavar="R",
        help="project half-widths for r = 1..R attempts per task (default 10)",
    )
    p.add_argument("--target", type=parse_target, metavar="H", help="the 95%% half-width wanted, in index points")
    add_output_argument(p, "also write the plan as JSON here")
    p.set_defaults(handler=run_plan)


def run_plan(args) -> int:
    from tcsexam.scoring.commands.options import (
        checked,
        run_and_target,
        say,
        thresholds_of,
        write_to,
    )
    from tcsexam.scoring.commands.text import written
    from tcsexam.scoring.formats.json import dumps
    from tcsexam.scoring.formats.results import PlanDocument
    from tcsexam.scoring.pipeline.index import score_run
    from tcsexam.scoring.safety.terminal import escape_for_terminal
    from tcsexam.scoring.stats.planning import DEFAULT_MAX_ATTEMPTS

    run, target = run_and_target(args)
    document, checked_run = score_run(run, thresholds_of(args))
    max_attempts = DEFAULT_MAX_ATTEMPTS if args.max_attempts is None else args.max_attempts
    result = plan_document(document, checked_run, max_attempts, args.target)
    if args.output:
        write_to(target, dumps(checked(result, PlanDocument)))
    say("\n".join(map(escape_for_terminal, format_plan(result).splitlines())), args)
    if args.output and args.output != "-":
        say(f"{document['status']}: {written('plan', args.output)}", args)
    return EXIT_FOR_STATUS[document["status"]]
