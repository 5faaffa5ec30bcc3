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
    p = sub.add_parser("tui", help="the dashboard (no RUN_DIR: the bundled demo run; several: a run switcher)")
    add_run_arguments(p)
    p.add_argument(
        "more_run_dirs",
        nargs="*",
        default=[],
        metavar="RUN_DIR",
        help="further runs: the Leaderboard tables them all, R switches the run the other tabs show",
    )
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

    run_dirs = run_dirs_of(args)
    return DashboardConfig(
        run_dir=run_dirs[0] if run_dirs else None,
        more_runs=run_dirs[1:],
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


def run_dirs_of(args: argparse.Namespace) -> list[str]:
    """The RUN_DIRs as typed, a folder named twice (after resolving links) kept once: the first time."""
    return [d for d, _ in run_dirs_and_repeats(args) if _ is None]


def run_dirs_and_repeats(args: argparse.Namespace) -> list[tuple[str, str | None]]:
    """Each RUN_DIR as typed with the earlier RUN_DIR that is the same folder (None for a first one)."""
    first: dict[str, str] = {}
    out: list[tuple[str, str | None]] = []
    for d in ([args.run_dir] if args.run_dir else []) + list(args.more_run_dirs):
        real = os.path.realpath(d)
        out.append((d, first.get(real)))
        first.setdefault(real, d)
    return out


def check_run_dirs(args: argparse.Namespace) -> str | None:
    """The usage error of ``tcsexam tui RUN_DIR...`` (exit 2, before the full-screen app), or None:
    every RUN_DIR must be a folder; --attempts, --cohort and --records name one run's files, so they
    take a single RUN_DIR."""
    from scoring.safety import escape_for_terminal

    named = ([args.run_dir] if args.run_dir else []) + list(args.more_run_dirs)
    for d in named:
        if not os.path.isdir(d):
            return f"RUN_DIR '{escape_for_terminal(d)}' is not a folder"
    overrides = [
        o for o, v in (("--attempts", args.attempts), ("--cohort", args.cohort), ("--records", args.records)) if v
    ]
    if len(named) > 1 and overrides:
        verb = "names" if len(overrides) == 1 else "name"
        return f"{', '.join(overrides)} {verb} the files of one run: give a single RUN_DIR with them (got {len(named)})"
    return None


def run_from_args(args: argparse.Namespace) -> int:
    """Open the dashboard (SPEC 6 ``tcsexam tui RUN_DIR...``) and block until it quits. The exit code is
    the app's: Textual sets 1 when the app stopped on an exception (a crash never exits 0)."""
    from scoring.safety import escape_for_terminal

    from .app import create_app

    error = check_run_dirs(args)  # fail fast, before the full-screen app
    if error:
        print(f"tcsexam tui: error: {error}", file=sys.stderr)
        return 2
    for d, same in run_dirs_and_repeats(args):
        if same is not None:
            print(
                f"tcsexam tui: note: RUN_DIR '{escape_for_terminal(d)}' is the same folder as "
                f"'{escape_for_terminal(same)}': opened once",
                file=sys.stderr,
            )
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
