"""The ``tcsexam`` command line (SPEC section 6).

Exit codes: 0 complete or provisional, 3 incomplete (output still written),
1 rejected input (every problem on stderr, naming file, line or record, and
field), 2 usage. No traceback reaches the user.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from . import __version__
from .errors import InputError, Problem, UsageError, format_problems
from .safety import (
    Interrupted,
    WriteFailed,
    check_name,
    check_output,
    escape_for_terminal,
    output_argument,
    say,
    write_output,
)
from .vocab import EXIT_FOR_STATUS, TRACK_LETTERS, TRACKS

EXIT_OK, EXIT_REJECTED, EXIT_USAGE, EXIT_INCOMPLETE = 0, 1, 2, 3


class Parser(argparse.ArgumentParser):
    def error(self, message: str):  # usage errors: exit 2 with the usage line
        self.print_usage(sys.stderr)
        say(f"{self.prog}: error: {message}", sys.stderr)  # the message can quote what was typed
        self.exit(EXIT_USAGE)


def parse_threshold(text: str) -> tuple[str, float]:
    track, sep, value = text.partition("=")
    if not sep or track not in TRACKS:
        raise argparse.ArgumentTypeError(f"expected TRACK=VALUE with TRACK one of {', '.join(TRACKS)}, got {text!r}")
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"threshold of {track} is not a number: {value!r}") from None
    if not math.isfinite(number):
        raise argparse.ArgumentTypeError(f"threshold of {track} must be finite")
    return track, number


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_dir", nargs="?", metavar="RUN_DIR", help="folder with attempts.csv, cohort.json, records/")
    p.add_argument("--suite", help="lite, full or a suite manifest PATH (must agree with the cohort)")
    p.add_argument("--attempts", metavar="CSV", help="attempts table (default RUN_DIR/attempts.csv)")
    p.add_argument("--cohort", metavar="JSON", help="cohort declaration (default RUN_DIR/cohort.json)")
    p.add_argument("--records", metavar="DIR", help="instance records (default RUN_DIR/records when present)")
    p.add_argument(
        "--benchmark", metavar="DIR", help="benchmark folder (default $TCSEXAM_BENCHMARK or the bundled sample)"
    )
    p.add_argument(
        "--threshold",
        metavar="TRACK=VALUE",
        action="append",
        type=parse_threshold,
        default=[],
        help="pass^k success threshold of a track (defaults: theorem 1, conjecture 1, construction 1.0, solver 0.5)",
    )


def build_parser() -> tuple[argparse.ArgumentParser, argparse._SubParsersAction]:
    """The headless commands of SPEC 6; returns the parser and its subcommands (the shell in
    ``tui.cli`` adds ``tui`` to them)."""
    parser = Parser(prog="tcsexam", description="Scoring engine and dashboard for the TCSExam benchmark.")
    parser.add_argument("--version", action="version", version=f"tcsexam {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True

    p = sub.add_parser("solver-score", help="score one solver attempt's instance records against the reference")
    p.add_argument("--task", required=True, metavar="ITEM")
    p.add_argument("--records", required=True, metavar="FILE")
    p.add_argument("--reference", required=True, metavar="{lite|full|PATH}")
    p.add_argument("--reference-id", metavar="ID", help="default paper-k3-fixed-260925")
    p.add_argument("--benchmark", metavar="DIR")
    p.add_argument("--output", required=True, metavar="FILE", type=output_argument)

    p = sub.add_parser("score", help="compute index.json for a run")
    add_run_arguments(p)
    p.add_argument("--output", default="build/index.json", metavar="FILE", type=output_argument)

    p = sub.add_parser("validate", help="list every problem of a run at once; writes nothing")
    add_run_arguments(p)

    p = sub.add_parser("tau2", help="tau2-bench results: pass^k, termination reasons, reward-gate audit")
    p.add_argument("results", metavar="PATH", help="a run's results.json or its folder (json or dir format)")
    p.add_argument("--output", metavar="FILE", type=output_argument)

    p = sub.add_parser("compare", help="paired difference of two models of a run")
    add_run_arguments(p)
    p.add_argument("--models", nargs=2, required=True, metavar=("A", "B"))
    p.add_argument("--output", metavar="FILE", type=output_argument)
    from . import prepare, report  # init, fill (SPEC 10); table, diff, verify (SPEC 11)

    COMMANDS.update(prepare.add_parsers(sub), **report.add_parsers(sub))
    return parser, sub


def fmt(x: float | None, digits: int = 4) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def summary_table(document: dict) -> str:
    """The summary printed by ``score``: names escaped before padding, so columns line up (SPEC 13)."""
    rows = [f"{'model':<24} {'status':<12} {'index':>8}  " + "  ".join(f"{TRACK_LETTERS[t]:>6}" for t in TRACKS)]
    for name, m in document["models"].items():
        rows.append(
            f"{escape_for_terminal(name):<24} {m['status']:<12} {fmt(m['index'], 2):>8}  "
            + "  ".join(f"{fmt(m['track_means'][t]):>6}" for t in TRACKS)
        )
    ign = document["ignored_rows"]["count"]
    if ign:
        rows.append(f"ignored rows (models outside the cohort, items outside the suite): {ign}")
    return "\n".join(rows)


def load_for(args, default_run: Path | None = None):
    from .inputs import load_run, resolve_run_paths

    paths = resolve_run_paths(
        args.run_dir,
        attempts=args.attempts,
        cohort=args.cohort,
        records=args.records,
        benchmark=args.benchmark,
        suite=args.suite,
        default_run=default_run,
    )
    return load_run(paths)


def run_inputs(args) -> tuple[list[Path], list[Path]]:
    """The input files and folders of a run command as far as the options tell them (SPEC 13:
    an output is checked against them before anything is read)."""
    from .inputs import resolve_run_paths

    paths = resolve_run_paths(
        args.run_dir,
        attempts=args.attempts,
        cohort=args.cohort,
        records=args.records,
        benchmark=args.benchmark,
        suite=args.suite,
    )
    files = [paths.attempts, paths.cohort] + ([Path(paths.suite)] if paths.suite else [])
    return files, [paths.records] if paths.records is not None else []


def checked_output(args) -> Path | None:
    """SPEC 13 for a run command's ``--output``: never an input nor inside records/, never a
    folder, FIFO or device (exit 1, nothing touched); None for standard output (``-``)."""
    files, folders = run_inputs(args)
    return check_output(args.output, files, folders)


def cmd_solver_score(args) -> int:
    from .inputs import default_benchmark
    from .reference import DEFAULT_REFERENCE_ID, reference_path, resolve_reference
    from .solver_score import score_file, solver_score_bytes

    for option, value, kind in (("--task", args.task, "item"), ("--reference-id", args.reference_id, "reference id")):
        problem = value is not None and check_name(value, kind)
        if problem:
            raise UsageError(f"{option}: {problem}")
    benchmark = Path(args.benchmark) if args.benchmark else default_benchmark()
    named = args.reference in ("lite", "full")
    reference_file = (
        reference_path(benchmark, args.reference_id or DEFAULT_REFERENCE_ID, args.reference)
        if named
        else args.reference
    )
    output = check_output(args.output, [args.records, reference_file])
    ref = resolve_reference(args.reference, benchmark, args.reference_id)
    if not ref.has_task(args.task):
        known = ", ".join(sorted(ref.tasks))
        raise InputError(
            [
                Problem(
                    str(ref.path),
                    "tasks",
                    args.task,
                    f"task '{args.task}' is not in reference '{ref.reference_id}' (tasks: {known})",
                )
            ]
        )
    task_ref = ref.task(args.task)
    suite, reference_id = ref.suite, ref.reference_id
    del ref  # the parsed file is no longer needed: free it before the records arrive
    result = score_file(task_ref, Path(args.records))
    write_output(output, solver_score_bytes(result, suite, reference_id))
    say(
        f"{args.task}: relative_score {result.relative_score:.12g} over {task_ref.n_scored} scored instances "
        f"({len(result.unscored_instances)} unscored records) against {reference_id} -> {args.output}",
        sys.stdout if output is not None else sys.stderr,
    )
    return EXIT_OK


def thresholds_of(args) -> dict[str, float]:
    return dict(args.threshold)


def cmd_score(args) -> int:
    from .jsonio import dumps
    from .output import build_index, write_index

    checked_output(args)
    run = load_for(args)
    output = check_output(args.output, run.input_paths.values(), [run.paths.records] if run.paths.records else [])
    document = build_index(run, thresholds_of(args))
    if output is None:  # --output -: the JSON on stdout, the summary on stderr
        write_output(None, dumps(document))
    else:
        write_index(output, document)
    stream = sys.stdout if output is not None else sys.stderr
    say(summary_table(document), stream)
    say(f"{document['status']}: index.json written to {args.output}", stream)
    return EXIT_FOR_STATUS[document["status"]]


def cmd_validate(args) -> int:
    from .output import build_index

    run = load_for(args)
    document = build_index(run, thresholds_of(args))
    n_rows = len(run.attempts.rows)
    say(f"no problems: {n_rows} rows, {len(document['models'])} models, status {document['status']}")
    for name, m in document["models"].items():
        for issue in m["issues"]:
            say(f"  {name}: {issue['item']}: {issue['message']}")
    return EXIT_FOR_STATUS[document["status"]]


def cmd_tau2(args) -> int:
    from .jsonio import dumps
    from .tau2 import format_tau2_summary, tau2_metrics_for_file
    from .tau2_files import locate

    output = None
    if args.output:
        meta, sims = locate(Path(args.results))
        output = check_output(args.output, [meta], [sims] if sims is not None else [])
    metrics = tau2_metrics_for_file(Path(args.results))
    if args.output:
        write_output(output, dumps(metrics))
    say(format_tau2_summary(metrics), sys.stderr if args.output and output is None else sys.stdout)
    return EXIT_OK


def cmd_compare(args) -> int:
    from .compare import compare_models, format_comparison
    from .jsonio import dumps
    from .output import build_index

    output = checked_output(args) if args.output else None
    run = load_for(args)
    if args.output:
        output = check_output(args.output, run.input_paths.values(), [run.paths.records] if run.paths.records else [])
    document = build_index(run, thresholds_of(args))
    result = compare_models(document, *args.models)
    if args.output:
        write_output(output, dumps(result))
    say(format_comparison(result), sys.stderr if args.output and output is None else sys.stdout)
    return EXIT_OK


COMMANDS = {
    "solver-score": cmd_solver_score,
    "score": cmd_score,
    "validate": cmd_validate,
    "tau2": cmd_tau2,
    "compare": cmd_compare,
}


def run(command, args, parser: argparse.ArgumentParser) -> int:
    """Run one command and turn every failure into its exit code and a message (SPEC 6): no
    traceback reaches the user."""
    try:
        return command(args)
    except InputError as exc:
        say(format_problems(exc.problems), sys.stderr)
        return EXIT_REJECTED
    except UsageError as exc:
        parser.print_usage(sys.stderr)
        say(f"tcsexam {args.command}: error: {exc}", sys.stderr)
        return EXIT_USAGE
    except Interrupted as exc:  # SIGINT, SIGTERM or SIGHUP during a write: nothing left behind
        return 128 + exc.signum
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except WriteFailed as exc:  # names the file: "cannot write P: No space left on device"
        say(f"tcsexam: {exc}", sys.stderr)
        return EXIT_REJECTED
    except OSError as exc:  # e.g. the output folder is not writable
        say(f"tcsexam: cannot write output: {exc.strerror or exc} ({exc.filename or ''})", sys.stderr)
        return EXIT_REJECTED
    except Exception as exc:  # a bug: say so plainly, never a traceback
        say(f"tcsexam: internal error ({type(exc).__name__}: {exc}); please report it with the inputs", sys.stderr)
        return EXIT_REJECTED


def main(argv: list[str] | None = None) -> int:
    """The headless command line (``python -m scoring``); ``tcsexam`` itself is ``tui.cli``."""
    parser, _ = build_parser()
    args = parser.parse_args(argv)
    return run(COMMANDS[args.command], args, parser)


if __name__ == "__main__":
    sys.exit(main())
