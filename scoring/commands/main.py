"""The ``tcsexam`` command line (docs/commands.md): ``COMMANDS`` (every command and the module that
declares and runs it), ``build_parser`` (each command module registers its parsers and the handler
that runs them; a command imports only its own module) and ``run``, the one place where every failure becomes its
exit code: 1 rejected input (every problem on stderr, naming file, line or record, and field) and
memory that ran out, 2 usage, 128 + N on a signal during a write, 141 on a closed pipe; no traceback
reaches the user. The handlers return 0 (complete or provisional) or 3 (incomplete, output still
written).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from tcsexam.scoring import __version__
from tcsexam.scoring.commands.options import (
    Parser,
    command_texts,
    epilog,
)
from tcsexam.scoring.commands.process import (
    load_numeric_libraries,
    out_of_memory_message,
    prepare_process,
    silence_closed_streams,
)
from tcsexam.scoring.errors import InputError, UsageError, format_problems
from tcsexam.scoring.safety.outputs import Interrupted, WriteFailed
from tcsexam.scoring.safety.terminal import say as say_on
from tcsexam.scoring.vocab import EXIT_CLOSED_PIPE, EXIT_REJECTED, EXIT_USAGE

# Every command, in the order of --help, and its module in this package (whose ``add_parsers``
# registers the commands it holds, in this order). A command imports only its own module.
COMMANDS: dict[str, str] = {
    "demo": "demo",
    "solver-score": "score",
    "score": "score",
    "validate": "score",
    "reference": "reference",
    "suite": "reference",
    "tau2": "tau2",
    "compare": "compare",
    "schema": "schema",
    "init": "prepare",
    "fill": "prepare",
    "pack": "prepare",
    "table": "reports",
    "diff": "reports",
    "verify": "reports",
    "plot": "plot",
    "plan": "plan",
    "docs": "docs",
}


def build_parser(argv: Sequence[str] | None = None) -> tuple[argparse.ArgumentParser, argparse._SubParsersAction]:
    """The headless commands of docs/commands.md; returns the parser and its subcommands (the shell in
    ``tui.cli`` adds ``tui`` to them). With ``argv``, only the module of the command it names is
    imported and that command's parser is complete; every other command is its name and one-line help
    (enough for ``tcsexam --help`` and for argparse's list of choices). Without it, every command is
    complete."""
    parser = Parser(
        prog="tcsexam",
        description="Scoring engine and dashboard for the TCSExam benchmark. Formats, rules and every "
        "command: tcsexam docs (the topics), tcsexam docs commands.",
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

    named = None if argv is None else command_named(argv)
    loaded: set[str] = set()
    for name, module in COMMANDS.items():
        if argv is not None and COMMANDS.get(named or "") != module:
            sub.add_parser(name, help=command_texts()[name]["help"])
        elif module not in loaded:
            importlib.import_module(f"{__package__}.{module}").add_parsers(sub)
            loaded.add(module)
    return parser, sub


def command_named(argv: Sequence[str]) -> str | None:
    """The command a command line names: its first word that is not an option (the ``tcsexam`` parser
    has no option that takes a value)."""
    return next((word for word in argv if not word.startswith("-")), None)


def run(command, args, parser: argparse.ArgumentParser) -> int:
    """Run one command and turn every failure into its exit code and a message (docs/commands.md): no
    traceback reaches the user. A write to a closed pipe (``| head``, ``| true``) exits 141, as a
    program that SIGPIPE stopped, never 0: the output did not all reach its reader."""
    try:
        return _outcome(command, args, parser)
    except BrokenPipeError:  # also raised by a message to a closed standard error
        silence_closed_streams()
        return EXIT_CLOSED_PIPE


def interrupted(exc: KeyboardInterrupt) -> int:
    """Say on standard error that a command was interrupted (by the signal of an ``Interrupted``, raised
    during a write, else SIGINT: Ctrl-C) and what is on disk (docs/safety.md); the exit code, 128 +
    the signal's number."""
    import signal

    signum = exc.signum if isinstance(exc, Interrupted) else signal.SIGINT
    say_on(
        f"interrupted ({signal.Signals(signum).name}): every file is whole, as it was or as written "
        "(tcsexam docs safety); run the command again to finish",
        sys.stderr,
    )
    return 128 + signum


def _outcome(command, args, parser: argparse.ArgumentParser) -> int:
    try:
        load_numeric_libraries()
        code = command(args)
        if sys.stdout is not None:
            sys.stdout.flush()  # a closed pipe shows here, not in the flush at exit
        return code
    except BrokenPipeError:
        raise
    except InputError as exc:
        say_on(format_problems(exc.problems) + (f"\n{exc.hint}" if exc.hint else ""), sys.stderr)
        return EXIT_REJECTED
    except UsageError as exc:  # found after parsing: the command's own usage line, as argparse gives it
        getattr(args, "command_parser", parser).print_usage(sys.stderr)
        say_on(f"tcsexam {args.command}: error: {exc}", sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt as exc:  # a signal during a write (``Interrupted``: nothing left behind) or Ctrl-C
        return interrupted(exc)
    except MemoryError:  # docs/safety.md#the-machine-the-tool-runs-on: how much, and the limit; outputs are atomic
        say_on(out_of_memory_message(), sys.stderr)
        return EXIT_REJECTED
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
    """The headless command line (``python -m tcsexam.scoring``); ``tcsexam`` itself is ``tui.cli``. A
    Ctrl-C while the arguments are read is said as one during the command is."""
    try:
        prepare_process()
        argv = sys.argv[1:] if argv is None else argv
        parser, _ = build_parser(argv)
        args = parser.parse_args(argv)
    except KeyboardInterrupt as exc:
        return interrupted(exc)
    return run(args.handler, args, parser)
