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
import math
import sys
from pathlib import Path

from . import __version__
from .errors import InputError, Problem, UsageError, format_problems
from .safety import Interrupted, WriteFailed, check_name, check_output, escape_for_terminal, output_argument
from .safety import say as say_on
from .vocab import EXIT_FOR_STATUS, NA, TRACK_LETTERS, TRACKS

EXIT_OK, EXIT_REJECTED, EXIT_USAGE, EXIT_INCOMPLETE = 0, 1, 2, 3


INDEX_DIGITS, TRACK_DIGITS = 2, 3  # the dashboard's decimals

EXIT_CODES = """exit codes:
  0  complete or provisional (written)
  3  incomplete: some planned result is not there yet (output still written)
  1  rejected input: every problem on stderr, naming file, line or record, and field; nothing written
  2  usage error"""


class Parser(argparse.ArgumentParser):
    """argparse with exit 2 on a usage error, and the description and epilog (examples, exit codes)
    shown as written."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):  # usage errors: exit 2 with the usage line
        self.print_usage(sys.stderr)
        say_on(f"{self.prog}: error: {message}", sys.stderr)  # the message can quote what was typed
        self.exit(EXIT_USAGE)


def epilog(examples: str, codes: str = EXIT_CODES) -> str:
    """A command's ``--help`` epilog: its examples, then its exit codes."""
    return f"examples:\n{examples}\n\n{codes}"


def add_output_argument(p: argparse.ArgumentParser, what: str, default: str | None = None, **kwargs) -> None:
    """``--output FILE`` of a command (SPEC 6, 13): ``-`` is standard output, an empty value a usage error."""
    from .safety import output_argument

    shown = f" (default {default})" if default else ""
    p.add_argument(
        "--output",
        type=output_argument,
        default=default,
        metavar="FILE",
        help=f"{what}{shown}; - writes it to standard output",
        **kwargs,
    )


def output_target(args, inputs=(), folders=()) -> Path | None:
    """The checked ``--output`` (SPEC 13), before anything is computed; None is standard output."""
    from .safety import check_output

    return check_output(args.output, [str(p) for p in inputs if p], [str(p) for p in folders if p])


def say(text: str, args) -> None:
    """The human summary, escaped for the terminal (SPEC 13): standard output, or standard error
    when ``--output -`` sends the document there."""
    say_on(text, sys.stderr if getattr(args, "output", None) == "-" else sys.stdout)


def write_to(target: Path | None, data: bytes | bytearray) -> None:
    from .report import emit_bytes

    emit_bytes(target, data)


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


def add_run_arguments(p: argparse.ArgumentParser, positional: bool = True) -> None:
    """The input options of section 2 that every command reading a run takes (``tui`` names its
    RUN_DIRs itself: ``positional=False``)."""
    if positional:
        p.add_argument(
            "run_dir",
            nargs="?",
            metavar="RUN_DIR",
            help="folder with attempts.csv, cohort.json and records/ (default: the current folder)",
        )
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

    p = sub.add_parser(
        "demo",
        help="copy the bundled demo run into a folder, to try every command on",
        description="Copies the bundled synthetic demo run (attempts.csv, cohort.json, records/) into DIR, "
        "which must be new or empty, and prints the next commands to try. Its cohort names the bundled "
        "synthetic benchmark, so it runs without --benchmark.",
        epilog=epilog(
            "  tcsexam demo my-demo\n  tcsexam score my-demo",
            "exit codes:\n  0  copied\n  1  DIR exists and is not an empty folder (nothing written)\n  2  usage error",
        ),
    )
    p.add_argument("dir", metavar="DIR", help="a new or empty folder")

    p = sub.add_parser(
        "solver-score",
        help="score one solver attempt's instance records against the reference",
        description="One attempt of one solver task scored against the fixed reference (docs/rules.md, "
        "'Solver score'); the "
        "relative_score is what goes into attempts.csv (tcsexam fill does it for a whole run).",
        epilog=epilog(
            "  tcsexam solver-score --task maxcut-mqlib --reference lite "
            "--records my-demo/records/atlas-70b/maxcut-mqlib/1.json --output maxcut-1.json\n"
            "  tcsexam solver-score --task maxcut-mqlib --records r.json --reference lite "
            "--reference-id paper-k3-fixed-260925 --output -",
            "exit codes:\n  0  scored and written\n  1  rejected records or reference (nothing written)\n"
            "  2  usage error",
        ),
    )
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
    p.add_argument(
        "--benchmark", metavar="DIR", help="benchmark folder (default $TCSEXAM_BENCHMARK or the bundled sample)"
    )
    add_output_argument(p, "where the solver-score JSON goes", required=True)

    p = sub.add_parser(
        "score",
        help="compute index.json for a run",
        description="The TCSExam index of every model of the cohort (docs/rules.md; the output: "
        "docs/formats.md#indexjson); a summary table on "
        "standard output (standard error with --output -).",
        epilog=epilog(
            "  tcsexam score my-demo\n"
            "  tcsexam score run/ --output build/index.json --threshold solver=0.6\n"
            "  tcsexam score run/ --output - | jq .models"
        ),
    )
    add_run_arguments(p)
    add_output_argument(p, "where index.json goes", default="build/index.json")

    p = sub.add_parser(
        "validate",
        help="list every problem of a run at once; writes nothing",
        description="Checks a run as score does and writes nothing. Problems of rejected input go to "
        "standard error; an accepted run's findings go to standard output, one a line as\n"
        "KIND: MODEL: ITEM[ attempt A][ (line L)]: MESSAGE\n"
        "with KIND one of: warning, incomplete, provisional, excluded, ignored row.",
        epilog=epilog(
            "  tcsexam validate my-demo\n  tcsexam validate run/ | grep '^incomplete: '",
            "exit codes:\n  0  accepted: complete or provisional\n  3  accepted: incomplete\n"
            "  1  rejected input: every problem on stderr, naming file, line or record, and field\n"
            "  2  usage error",
        ),
    )
    add_run_arguments(p)

    p = sub.add_parser(
        "tau2",
        help="tau2-bench results: pass^k, termination reasons, reward-gate audit",
        description="pass^k, termination reasons and the reward-gate audit of a tau2-bench run (docs/tau2.md).",
        epilog=epilog(
            "  tcsexam tau2 results.json\n  tcsexam tau2 run-folder/ --output tau2.json",
            "exit codes:\n  0  read and summarised\n  1  rejected input (nothing written)\n  2  usage error",
        ),
    )
    p.add_argument("results", metavar="PATH", help="a run's results.json or its folder (json or dir format)")
    add_output_argument(p, "also write the metrics as JSON here")

    p = sub.add_parser(
        "compare",
        help="paired difference of two models of a run",
        description="The paired difference A - B over the tasks both models have scored, with 95% "
        "task-clustered t intervals (docs/rules.md#intervals, #per-task-differences).",
        epilog=epilog(
            "  tcsexam compare my-demo --models atlas-70b cirrus-mini\n"
            "  tcsexam compare run/ --models A B --output compare.json",
            "exit codes:\n  0  compared\n  1  rejected input or unknown model (nothing written)\n  2  usage error",
        ),
    )
    add_run_arguments(p)
    p.add_argument("--models", nargs=2, required=True, metavar=("A", "B"), help="the two models, A - B")
    add_output_argument(p, "also write the comparison as JSON here")

    p = sub.add_parser(
        "schema",
        help="JSON Schema (draft 2020-12) of every format",
        description="The JSON Schema of a format the tool reads or writes, generated from the types "
        "that decode or check it. Without NAME: every schema, as one JSON object by name on standard "
        "output, or DIR/<name>.schema.json each.",
        epilog=epilog(
            "  tcsexam schema index\n  tcsexam schema --output schemas/",
            "exit codes:\n  0  written\n  1  the folder cannot be written\n  2  usage error (unknown NAME)",
        ),
    )
    from .schemas import NAMES

    p.add_argument("name", nargs="?", choices=NAMES, metavar="NAME", help=f"one of: {', '.join(NAMES)}")
    p.add_argument(
        "--output",
        metavar="DIR",
        type=output_argument,
        help="write DIR/<name>.schema.json (the folder is made when missing); - or none: standard output",
    )
    from . import plan, prepare, report  # init, fill (SPEC 10); table, diff, verify (SPEC 11); plan (SPEC 12.3)

    COMMANDS.update(prepare.add_parsers(sub), **report.add_parsers(sub), **plan.add_parsers(sub))
    return parser, sub


def know_command_parsers(sub: argparse._SubParsersAction) -> None:
    """Each command's parser remembered in its parsed arguments, for the usage line of an error
    found after parsing."""
    for command_parser in sub.choices.values():
        command_parser.set_defaults(command_parser=command_parser)


def fmt(x: float | None, digits: int = TRACK_DIGITS) -> str:
    """A number as text a script parses: fixed decimals, ASCII minus, ``NA`` when missing."""
    return NA if x is None else f"{x:.{digits}f}"


def summary_table(document: dict) -> str:
    """The ``score`` summary: one line per model, the dashboard's decimals."""
    rows = [f"{'model':<24} {'status':<12} {'index':>8}  " + "  ".join(f"{TRACK_LETTERS[t]:>6}" for t in TRACKS)]
    for name, m in document["models"].items():
        rows.append(
            f"{escape_for_terminal(name):<24} {m['status']:<12} {fmt(m['index'], INDEX_DIGITS):>8}  "
            + "  ".join(f"{fmt(m['track_means'][t]):>6}" for t in TRACKS)
        )
    return "\n".join(rows)


def ignored_rows_line(document: dict, args) -> str | None:
    """``score``'s line on the ignored rows, with the command that lists them; None without any."""
    import shlex

    ign = document["ignored_rows"]["count"]
    if not ign:
        return None
    words = ["tcsexam", "validate"] + ([args.run_dir] if args.run_dir else [])
    for option in ("suite", "attempts", "cohort", "records", "benchmark"):
        if getattr(args, option, None):
            words += [f"--{option}", getattr(args, option)]
    return (
        f"ignored rows (models outside the cohort, items outside the suite): {ign}; "
        f"run `{shlex.join(words)}` to list them"
    )


def findings(document: dict) -> list[str]:
    """``validate``'s findings of an accepted run, one line each, ``KIND: MODEL: WHERE: MESSAGE``
    (names escaped, SPEC 13): issues (warning, incomplete), provisional and excluded attempts,
    ignored rows."""

    def where(item: str, attempt: str | None, line: int | None) -> str:
        return item + (f" attempt {attempt}" if attempt is not None else "") + (f" (line {line})" if line else "")

    out = []
    for name, m in document["models"].items():
        for issue in m["issues"]:
            out.append((issue["kind"], name, where(issue["item"], issue["attempt"], issue["line"]), issue["message"]))
        for a in m["coverage"]["provisional"]:
            out.append(
                ("provisional", name, where(a["item"], a["attempt"], a["line"]), "adopted as selected_provisional")
            )
        for a in m["coverage"]["excluded"]:
            note = f"note: {a['note']}" if a["note"] else "no note"
            out.append(("excluded", name, where(a["item"], a["attempt"], a["line"]), f"not adopted ({note})"))
    return [escape_for_terminal(f"{kind}: {model}: {at}: {message}") for kind, model, at, message in out] + (
        ignored_findings(document)
    )


def ignored_findings(document: dict, warnings_only: bool = False) -> list[str]:
    """``validate``'s lines of the ignored rows (``score`` prints their warnings, the likely typos)."""
    from .aggregate import ignored_row_finding

    out = []
    for r in document["ignored_rows"]["rows"]:
        kind, message = ignored_row_finding(r)
        if kind == "warning" or not warnings_only:
            at = f"{r['item']} attempt {r['attempt']} (line {r['line']})"
            out.append(escape_for_terminal(f"{kind}: {r['model']}: {at}: {message}"))
    return out


def paths_for(args, default_run: Path | None = None):
    """The run's input paths as the options of section 2 name them."""
    from .inputs import resolve_run_paths

    return resolve_run_paths(
        args.run_dir,
        attempts=args.attempts,
        cohort=args.cohort,
        records=args.records,
        benchmark=args.benchmark,
        suite=args.suite,
        default_run=default_run,
    )


def load_for(args, default_run: Path | None = None):
    """The run the options name, loaded; its notices (the synthetic sample, SPEC 2) on standard error."""
    from .inputs import load_run

    run = load_run(paths_for(args, default_run))
    for notice in run.notices:
        say_on(notice, sys.stderr)
    return run


def option_inputs(args) -> tuple[list[Path], list[Path]]:
    """The input files and folders of a run command as far as the options tell them (SPEC 13:
    an output is checked against them before anything is read)."""
    paths = paths_for(args)
    files = [paths.attempts, paths.cohort] + ([Path(paths.suite)] if paths.suite else [])
    return files, [paths.records] if paths.records is not None else []


def checked_output(args) -> Path | None:
    """SPEC 13 for a run command's ``--output``: never an input nor inside records/, never a
    folder, FIFO or device (exit 1, nothing touched); None for standard output (``-``)."""
    files, folders = option_inputs(args)
    return check_output(args.output, files, folders)


def cmd_solver_score(args) -> int:
    from .reference import default_benchmark, default_reference_suite, resolve_reference
    from .solver_score import score_file, solver_score_bytes

    for option, value, kind in (("--task", args.task, "item"), ("--reference-id", args.reference_id, "reference id")):
        problem = value is not None and check_name(value, kind)
        if problem:
            raise UsageError(f"{option}: {problem}")
    target = output_target(args, [args.records] + ([args.reference] if args.reference else []))
    benchmark = Path(args.benchmark) if args.benchmark else default_benchmark()
    spec = args.reference or default_reference_suite(benchmark, args.reference_id)
    ref = resolve_reference(spec, benchmark, args.reference_id)
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
    write_to(target, solver_score_bytes(result, suite, reference_id))
    say(
        escape_for_terminal(
            f"{args.task}: relative_score {result.relative_score:.12g} over {task_ref.n_scored} scored instances "
            f"({len(result.unscored_instances)} unscored records) against {reference_id} -> {args.output}"
        ),
        args,
    )
    return EXIT_OK


def thresholds_of(args) -> dict[str, float]:
    return dict(args.threshold)


def run_inputs(run) -> tuple[list, list]:
    """A loaded run's input files (suite and reference included) and folders: what an output
    must never be (SPEC 13); checked again once the run is loaded."""
    return list(run.input_paths.values()), [run.paths.records] if run.paths.records else []


def cmd_score(args) -> int:
    from .jsonio import dumps
    from .output import build_index, write_index

    checked_output(args)
    run = load_for(args)
    target = output_target(args, *run_inputs(run))
    document = build_index(run, thresholds_of(args))
    if target is None:
        write_to(None, dumps(document, finite=True))
    else:
        write_index(target, document)
    say(summary_table(document), args)
    if line := ignored_rows_line(document, args):
        say(line, args)
    for warning in ignored_findings(document, warnings_only=True):
        say_on(warning, sys.stderr)
    say(f"{document['status']}: index.json written to {args.output}", args)
    return EXIT_FOR_STATUS[document["status"]]


def cmd_validate(args) -> int:
    from .output import build_index

    run = load_for(args)
    document = build_index(run, thresholds_of(args))
    n_rows = len(run.attempts.rows)
    found = findings(document)
    ign = document["ignored_rows"]["count"]
    # a run with ignored rows is accepted, but never "no problems": a typo lands there
    verdict = f"no rejections; {ign} ignored row{'' if ign == 1 else 's'} (see below)" if ign else "no problems"
    print(
        f"{verdict}: {n_rows} rows, {len(document['models'])} models, status {document['status']}, "
        f"{len(found)} finding{'' if len(found) == 1 else 's'}"
    )
    for line in found:
        print(line)
    return EXIT_FOR_STATUS[document["status"]]


def checked(document: dict, shape) -> dict:
    """The document, after checking it has the shape of its output type (SPEC 11: it validates
    against its schema); a mismatch is a bug, reported as an internal error."""
    import msgspec

    msgspec.convert(document, shape)
    return document


def cmd_tau2(args) -> int:
    from .jsonio import dumps
    from .results import Tau2Output
    from .tau2 import format_tau2_summary, tau2_metrics_for_file
    from .tau2_files import locate

    meta, sims = locate(Path(args.results))  # a dir-format run: every file of simulations/ is input
    target = output_target(args, [meta], [sims] if sims is not None else []) if args.output else None
    metrics = tau2_metrics_for_file(Path(args.results))
    if args.output:
        write_to(target, dumps(checked(metrics, Tau2Output)))
    say(format_tau2_summary(metrics), args)
    return EXIT_OK


def cmd_compare(args) -> int:
    from .compare import compare_run, format_comparison
    from .jsonio import dumps
    from .output import score_run
    from .results import CompareDocument

    if args.output:
        checked_output(args)
    run = load_for(args)
    target = output_target(args, *run_inputs(run)) if args.output else None
    document, checked_run = score_run(run, thresholds_of(args))
    result = compare_run(document, checked_run, *args.models)
    if args.output:
        write_to(target, dumps(checked(result, CompareDocument)))
    say("\n".join(map(escape_for_terminal, format_comparison(result).splitlines())), args)
    return EXIT_OK


def cmd_schema(args) -> int:
    """``tcsexam schema`` (SPEC 11): one schema or all, on standard output or as DIR/<name>.schema.json."""
    import msgspec

    from .safety import write_atomic
    from .schemas import NAMES, schema, schema_bytes

    names = [args.name] if args.name else list(NAMES)
    if args.output in (None, "-"):
        if args.name:
            data = schema_bytes(args.name)
        else:
            data = msgspec.json.format(msgspec.json.encode({n: schema(n) for n in names}), indent=2) + b"\n"
        write_to(None, data)
        return EXIT_OK
    folder = Path(args.output)
    if folder.exists() and not folder.is_dir():
        raise InputError([Problem(str(folder), "", "--output", "is not a folder: schema --output names a DIR")])
    for name in names:
        write_atomic(folder / f"{name}.schema.json", schema_bytes(name))
    print(f"schema: {len(names)} file{'' if len(names) == 1 else 's'} written to {folder}")
    return EXIT_OK


def cmd_demo(args) -> int:
    """``tcsexam demo DIR``: the bundled demo run copied into DIR (absent or empty), in one rename."""
    import shutil
    import tempfile

    from .inputs import demo_run

    target = Path(args.dir)
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise InputError([Problem(str(target), "", "", "exists and is not a folder: give a new or empty folder")])
    if target.is_dir() and any(target.iterdir()):
        raise InputError([Problem(str(target), "", "", "is not empty: give a new or empty folder")])
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        shutil.copytree(demo_run(), staging, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
        staging.chmod(0o755)
        staging.replace(target)  # an empty folder is replaced, an absent one made
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    shown = escape_for_terminal(str(target))
    print(
        f"demo: the bundled demo run (3 models, suite lite, synthetic benchmark) copied to {shown}\n"
        "next:\n"
        f"  tcsexam validate {shown}          # what is missing, provisional or excluded (exit 3)\n"
        f"  tcsexam score {shown} --output {shown}/index.json   # the index (exit 3: one model incomplete)\n"
        f"  tcsexam tui {shown}               # the dashboard"
    )
    return EXIT_OK


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


if __name__ == "__main__":
    sys.exit(main())
