"""The ``tcsexam`` console script (docs/commands.md): the headless commands of ``scoring.commands`` plus ``tui``.

The shell owns the process: the process policy lives in ``entry`` and nowhere
else. Textual is imported only when the ``tui`` command runs, so ``score`` and
the other one-shot commands pay nothing for living here.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from typing import TYPE_CHECKING

# The commands are imported when ``entry`` runs, not with this module: the console script imports
# it before ``entry`` can catch a Ctrl-C, and then Python would print a traceback.

if TYPE_CHECKING:
    from tcsexam.scoring.pipeline.run import RunPaths

    from .state import DashboardConfig


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """``scoring.commands``'s parser with the dashboard's ``tui`` command added (``argv``: see there)."""
    from tcsexam.scoring.commands.main import build_parser as build_scoring_parser
    from tcsexam.scoring.commands.options import add_run_arguments, command_parser, output_argument

    parser, sub = build_scoring_parser(argv)
    p = command_parser(sub, "tui")
    p.add_argument(
        "run_dirs",
        nargs="*",
        default=[],
        metavar="RUN_DIR",
        help="run folders (attempts.csv, cohort.json, records/); none: the current folder when it holds "
        "cohort.json, else the bundled demo run",
    )
    add_run_arguments(p, positional=False)
    p.add_argument(
        "--output",
        default=None,
        metavar="FILE",
        type=output_argument,
        help="where export writes index.json (default RUN_DIR/build/index.json, where tcsexam score writes it)",
    )
    p.add_argument("--watch", action="store_true", help="reload when an input file changes")
    p.add_argument("--tau2", metavar="PATH", help="also open a tau2-bench run (its results.json or its folder)")
    p.add_argument(
        "--no-cache",
        dest="cache",
        action="store_false",
        help="score every run anew; neither read nor write the cache of scored runs (~/.cache/tcsexam)",
    )
    p.set_defaults(handler=run_from_args)
    return parser


def config_from_args(args: argparse.Namespace) -> DashboardConfig:
    """The dashboard's configuration from the ``tui`` command's options."""
    from .state import DashboardConfig

    run_dirs = run_dirs_of(args) or current_run(args)
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
        cache=args.cache,
    )


def current_run(args: argparse.Namespace) -> list[str]:
    """``tcsexam tui`` with nothing named, inside a run folder: that folder, as every other command
    reads it (docs/commands.md#tui); the bundled demo only where the current folder holds no run
    (no cohort.json)."""
    from tcsexam.scoring.vocab import COHORT_FILE

    if args.attempts or args.cohort or args.tau2 or not os.path.isfile(COHORT_FILE):
        return []
    return ["."]


def run_dirs_of(args: argparse.Namespace) -> list[str]:
    """The RUN_DIRs as typed, a folder named twice (after resolving links) kept once: the first time."""
    return [d for d, _ in run_dirs_and_repeats(args) if _ is None]


def run_dirs_and_repeats(args: argparse.Namespace) -> list[tuple[str, str | None]]:
    """Each RUN_DIR as typed with the earlier RUN_DIR that is the same folder (None for a first one)."""
    first: dict[str, str] = {}
    out: list[tuple[str, str | None]] = []
    for d in args.run_dirs:
        real = os.path.realpath(d)
        out.append((d, first.get(real)))
        first.setdefault(real, d)
    return out


def check_run_dirs(args: argparse.Namespace) -> list[RunPaths]:
    """What ``tcsexam tui RUN_DIR...`` rejects before the full-screen app opens: a RUN_DIR that is not
    a folder (exit 1, as for every command), per-run file overrides with several RUN_DIRs (usage,
    exit 2), a cohort naming a reference the bundled synthetic sample does not hold (usage, exit 2).
    The synthetic sample's notice goes to standard error. Returns each run's paths, resolved, with its
    cohort as read for this check: the first load of each run uses them, so that a start resolves a run
    and reads its cohort.json once (docs/architecture.md)."""
    from tcsexam.scoring.errors import InputError, Problem, UsageError
    from tcsexam.scoring.pipeline.run import benchmark_notice, read_cohort_ahead
    from tcsexam.scoring.safety.terminal import say

    from .state import has_run, resolve_paths, run_configs

    for d in args.run_dirs:
        if not os.path.isdir(d):
            found = "is not a folder" if os.path.exists(d) else "run directory not found"
            raise InputError([Problem(d, "", "", found)])
    overrides = [
        o for o, v in (("--attempts", args.attempts), ("--cohort", args.cohort), ("--records", args.records)) if v
    ]
    if len(args.run_dirs) > 1 and overrides:
        verb = "names" if len(overrides) == 1 else "name"
        raise UsageError(
            f"{', '.join(overrides)} {verb} the files of one run: give a single RUN_DIR with them "
            f"(got {len(args.run_dirs)})"
        )
    config = config_from_args(args)
    if not has_run(config):  # --tau2 alone
        return []
    resolved = []
    for one in run_configs(config):
        paths = read_cohort_ahead(resolve_paths(one))
        notice = benchmark_notice(paths)
        if notice:
            say(notice, sys.stderr)
        resolved.append(paths)
    return resolved


def textual_problem() -> str | None:
    """Why the installed Textual cannot run the dashboard (tui/textual_ext checks its version on
    import), or None when it can."""
    try:
        from . import textual_ext  # noqa: F401
    except ImportError as exc:
        if exc.name != f"{__package__}.textual_ext":  # not the version check: a crash as any other
            raise
        return str(exc)
    return None


def run_from_args(args: argparse.Namespace) -> int:
    """Open the dashboard (docs/commands.md ``tcsexam tui RUN_DIR...``) and block until it quits. The exit code is
    the app's: Textual sets 1 when the app stopped on an exception (a crash never exits 0). A Textual
    release the dashboard was not written for is one line on standard error and exit 1."""
    from tcsexam.scoring.safety.terminal import escape_for_terminal, say

    problem = textual_problem()
    if problem is not None:
        say(f"tcsexam tui: error: {problem}", sys.stderr)
        return 1

    from .app import create_app
    from .heap import map_large_blocks

    resolved = check_run_dirs(args)  # fail fast, before the full-screen app
    for d, same in run_dirs_and_repeats(args):
        if same is not None:
            print(
                f"tcsexam tui: note: RUN_DIR '{escape_for_terminal(d)}' is the same folder as "
                f"'{escape_for_terminal(same)}': opened once",
                file=sys.stderr,
            )
    map_large_blocks()  # memory that stays flat over reloads (tui/heap.py)
    app = create_app(config_from_args(args), resolved=resolved)
    # a loop of its own: App.run would otherwise wait, once the app has ended, for its thread workers
    # (asyncio's default executor), as a reopen's check of the inputs, before it returns (``end_now``)
    import asyncio  # here: the one-shot commands load no asyncio

    loop = asyncio.new_event_loop()
    try:
        app.run(loop=loop)
    finally:
        loop.close()  # without waiting for its executor
    global dashboard_closed
    dashboard_closed = True
    return app.return_code or 0


dashboard_closed = False  # the dashboard has run and given the terminal back (``entry`` then ends at once)
WRITE_WAIT_S = 10.0  # at most this long the end waits for a file being written (tui/writes.py)


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` and run its command; returns the exit code of docs/commands.md."""
    from tcsexam.scoring.commands.main import run

    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    return run(args.handler, args, parser)


def entry() -> None:
    """Console-script entry: the process made ready before anything imports numpy
    (``scoring.commands.process.prepare_process``: one BLAS thread, streams that never fail to print).
    Once the dashboard has closed, the process ends at once (``end_now``). A Ctrl-C while the
    commands load is said as one during a command is (``run`` takes over from there)."""
    try:
        from tcsexam.scoring.commands.process import prepare_process

        prepare_process()
        code = main()
    except KeyboardInterrupt as exc:
        from tcsexam.scoring.commands.main import interrupted

        code = interrupted(exc)
    # the command is done and has said so ("written to ..."): a Ctrl-C from here on would only turn its exit
    # code into 130 without a word, as the interpreter ends
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if dashboard_closed:
        end_now(code)
    sys.exit(code)


def end_now(code: int) -> None:
    """End the process without waiting for the dashboard's threads: a check of a reopen's inputs still
    reading the run (a thread worker that cannot be stopped), and freeing a large run's objects one by
    one at the interpreter's exit, held the shell's prompt for seconds after q
    (docs/performance.md#quitting). A file being written from a thread (a cache file, a figure:
    tui/writes.py) is finished first; the streams are flushed."""
    from .writes import WRITING

    WRITING.acquire(timeout=WRITE_WAIT_S)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


if __name__ == "__main__":
    entry()
