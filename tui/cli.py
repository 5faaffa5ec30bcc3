"""The ``tcsexam`` console script (SPEC 6): the headless commands of ``scoring.cli`` plus ``tui``.

The shell owns the process: the process policy lives in ``entry`` and nowhere
else. Textual is imported only when the ``tui`` command runs, so ``score`` and
the other one-shot commands pay nothing for living here.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from scoring.cli import add_run_arguments, run
from scoring.cli import build_parser as build_scoring_parser
from scoring.safety import output_argument

if TYPE_CHECKING:
    from .state import DashboardConfig


def build_parser() -> argparse.ArgumentParser:
    """``scoring.cli``'s parser with the dashboard's ``tui`` command added."""
    parser, sub = build_scoring_parser()
    p = sub.add_parser("tui", help="the dashboard (no RUN_DIR: the bundled demo run)")
    add_run_arguments(p)
    p.add_argument(
        "--output",
        default="build/index.json",
        metavar="FILE",
        type=output_argument,
        help="where export writes index.json",
    )
    p.add_argument("--watch", action="store_true", help="reload when an input file changes")
    p.add_argument("--tau2", metavar="PATH", help="also open a tau2-bench run (its results.json or its folder)")
    return parser


def config_from_args(args: argparse.Namespace) -> DashboardConfig:
    """The dashboard's configuration from the ``tui`` command's options."""
    from .state import DashboardConfig

    return DashboardConfig(
        run_dir=args.run_dir,
        attempts=args.attempts,
        cohort=args.cohort,
        records=args.records,
        benchmark=args.benchmark,
        suite=args.suite,
        output=args.output,
        watch=args.watch,
        tau2=args.tau2,
        thresholds=dict(args.threshold),
    )


def run_from_args(args: argparse.Namespace) -> int:
    """Open the dashboard (SPEC 6 ``tcsexam tui``) and block until it quits. The exit code is the
    app's: Textual sets 1 when the app stopped on an exception (a crash never exits 0)."""
    from scoring.safety import escape_for_terminal

    from .app import create_app

    if args.run_dir and not os.path.isdir(args.run_dir):  # fail fast, before the full-screen app
        print(f"tcsexam tui: error: RUN_DIR '{escape_for_terminal(args.run_dir)}' is not a folder", file=sys.stderr)
        return 2
    app = create_app(config_from_args(args))
    app.run()
    return app.return_code or 0


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` and run its command; returns the exit code of SPEC 6."""
    from scoring.cli import COMMANDS

    parser = build_parser()
    args = parser.parse_args(argv)
    command = run_from_args if args.command == "tui" else COMMANDS[args.command]
    return run(command, args, parser)


def entry() -> None:
    """Console-script entry. Scoring does no linear algebra, so numpy's OpenBLAS gets one thread
    unless the user set otherwise (its worker threads otherwise take a second core at import)."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    sys.exit(main())


if __name__ == "__main__":
    entry()
