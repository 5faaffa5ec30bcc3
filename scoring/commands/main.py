"""The ``tcsexam`` command line (SPEC section 6).

Exit codes: 0 complete or provisional, 3 incomplete (output still written),
1 rejected input (every problem on stderr, naming file, line or record, and
field), 2 usage. No traceback reaches the user.

Text a script parses (the ``score`` summary, ``validate``'s findings, ``compare``,
``tau2``) is ASCII apart from the names it shows: ASCII minus signs, ``NA`` for a
missing value, and the dashboard's decimals (index 2, track means 3). Every
``--output FILE`` takes ``-`` for standard output; the human summary then goes to
standard error, so standard output holds the document alone.
"""

from __future__ import annotations

import argparse
import sys

from scoring import __version__
from scoring.commands.compare import cmd_compare
from scoring.commands.demo import cmd_demo
from scoring.commands.options import (
    Parser,
    add_benchmark_argument,
    add_output_argument,
    add_run_arguments,
    command_parser,
    epilog,
)
from scoring.commands.schema import cmd_schema
from scoring.commands.score import cmd_score, cmd_solver_score, cmd_validate
from scoring.commands.tau2 import cmd_tau2
from scoring.errors import InputError, UsageError, format_problems
from scoring.safety.outputs import Interrupted, WriteFailed, output_argument
from scoring.safety.terminal import say as say_on
from scoring.vocab import EXIT_OK, EXIT_REJECTED, EXIT_USAGE


def build_parser() -> tuple[argparse.ArgumentParser, argparse._SubParsersAction]:
    """The headless commands of SPEC 6; returns the parser and its subcommands (the shell in
    ``tui.cli`` adds ``tui`` to them)."""
    parser = Parser(
        prog="tcsexam",
        description="Scoring engine and dashboard for the TCSExam benchmark. Formats, rules and every "
        "command: the docs/ folder of the project (docs/commands.md).",
        epilog=epilog(
            "  tcsexam demo my-demo\n"
            "  tcsexam validate my-demo\n"
            "  tcsexam score my-demo --output build/index.json\n"
            "  tcsexam table build/index.json --format latex --output table.tex\n"
            "  tcsexam COMMAND --help"
        ),
    )
    parser.add_argument("--version", action="version", version=f"tcsexam {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True

    p = command_parser(sub, "demo")
    p.add_argument("dir", metavar="DIR", help="a new or empty folder")

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

    p = command_parser(sub, "score")
    add_run_arguments(p)
    add_output_argument(p, "where index.json goes", default="build/index.json")

    p = command_parser(sub, "validate")
    add_run_arguments(p)

    p = command_parser(sub, "tau2")
    p.add_argument("results", metavar="PATH", help="a run's results.json or its folder (json or dir format)")
    add_output_argument(p, "also write the metrics as JSON here")

    p = command_parser(sub, "compare")
    add_run_arguments(p)
    p.add_argument("--models", nargs=2, required=True, metavar=("A", "B"), help="the two models, A - B")
    add_output_argument(p, "also write the comparison as JSON here")

    p = command_parser(sub, "schema")
    from scoring.formats.schemas import NAMES

    p.add_argument("name", nargs="?", choices=NAMES, metavar="NAME", help=f"one of: {', '.join(NAMES)}")
    p.add_argument(
        "--output",
        metavar="DIR",
        type=output_argument,
        help="write DIR/<name>.schema.json (the folder is made when missing); - or none: standard output",
    )
    from scoring.commands import (  # init, fill (SPEC 10); table, diff, verify (SPEC 11); plan (SPEC 12.3)
        plan,
        prepare,
        reports,
    )

    COMMANDS.update(prepare.add_parsers(sub), **reports.add_parsers(sub), **plan.add_parsers(sub))
    return parser, sub


def know_command_parsers(sub: argparse._SubParsersAction) -> None:
    """Each command's parser remembered in its parsed arguments, for the usage line of an error
    found after parsing."""
    for each in sub.choices.values():
        each.set_defaults(command_parser=each)


COMMANDS = {
    "demo": cmd_demo,
    "solver-score": cmd_solver_score,
    "score": cmd_score,
    "validate": cmd_validate,
    "tau2": cmd_tau2,
    "compare": cmd_compare,
    "schema": cmd_schema,
}


def run(command, args, parser: argparse.ArgumentParser) -> int:
    """Run one command and turn every failure into its exit code and a message (SPEC 6): no
    traceback reaches the user."""
    try:
        return command(args)
    except InputError as exc:
        say_on(format_problems(exc.problems), sys.stderr)
        return EXIT_REJECTED
    except UsageError as exc:  # found after parsing: the command's own usage line, as argparse gives it
        getattr(args, "command_parser", parser).print_usage(sys.stderr)
        say_on(f"tcsexam {args.command}: error: {exc}", sys.stderr)
        return EXIT_USAGE
    except Interrupted as exc:  # SIGINT, SIGTERM or SIGHUP during a write: nothing left behind
        return 128 + exc.signum
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except WriteFailed as exc:  # names the file: "cannot write P: No space left on device"
        say_on(f"tcsexam: {exc}", sys.stderr)
        return EXIT_REJECTED
    except OSError as exc:  # e.g. the output folder is not writable
        say_on(f"tcsexam: cannot write output: {exc.strerror or exc} ({exc.filename or ''})", sys.stderr)
        return EXIT_REJECTED
    except Exception as exc:  # a bug: say so plainly, never a traceback
        say_on(f"tcsexam: internal error ({type(exc).__name__}: {exc}); please report it with the inputs", sys.stderr)
        return EXIT_REJECTED


def main(argv: list[str] | None = None) -> int:
    """The headless command line (``python -m scoring``); ``tcsexam`` itself is ``tui.cli``."""
    parser, sub = build_parser()
    know_command_parsers(sub)
    args = parser.parse_args(argv)
    return run(COMMANDS[args.command], args, parser)
