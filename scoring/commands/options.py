"""What every command shares: the parser class, exit codes, run and output options, and how a
run's inputs and a command's output are found."""

from __future__ import annotations

import argparse
import math
import re
import sys
from functools import cache
from pathlib import Path

from tcsexam.scoring.errors import UsageError
from tcsexam.scoring.grammar import meant
from tcsexam.scoring.safety.names import check_name
from tcsexam.scoring.safety.outputs import check_output, write_output
from tcsexam.scoring.safety.terminal import say as say_on
from tcsexam.scoring.vocab import EXIT_USAGE, SCORE_RANGES, TRACKS, range_text

EXIT_CODES = """exit codes:
  0  complete or provisional (written)
  3  incomplete: some planned result is not there yet (output still written)
  1  rejected input: every problem on stderr, naming file, line or record, and field; nothing written
  2  usage error
  141 standard output was a pipe closed before all was read (| head)"""


_INVALID_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)$")


class Parser(argparse.ArgumentParser):
    """argparse with exit 2 on a usage error, and the description and epilog (examples, exit codes)
    shown as written."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)

    def parse_args(self, args=None, namespace=None):
        """As argparse's, but an argument no parser knows is a usage error of the command it was typed
        to (its usage line, not the top-level one), with the option it was likely meant to be: '-o'
        for '--output', '--outptu' for '--output'."""
        parsed, extra = self.parse_known_args(args, namespace)
        if extra:
            target = getattr(parsed, "command_parser", None) or self
            message = f"unrecognized arguments: {' '.join(extra)}"
            if typed := next((e.split("=")[0] for e in extra if e.startswith("-")), None):
                options = [o for action in target._actions for o in action.option_strings if o.startswith("--")]
                longer = [o for o in options if o.startswith("--" + typed.lstrip("-")) and typed.lstrip("-")]
                message += f"; did you mean '{longer[0]}'?" if len(longer) == 1 else meant(typed, options, 0.7, "--")
            target.error(message)
        return parsed

    def error(self, message: str):  # usage errors: exit 2 with the usage line
        if found := _INVALID_CHOICE.search(message):  # a command or choice typed close to one
            listed = found.group(2)  # 'a', 'b' (Python 3.11-3.13) or a, b (later releases)
            message += meant(found.group(1), re.findall(r"'([^']*)'", listed) or listed.split(", "))
        self.print_usage(sys.stderr)
        say_on(f"{self.prog}: error: {message}", sys.stderr)  # the message can quote what was typed
        self.exit(EXIT_USAGE)


def command_parser(sub, name: str):
    """A command's parser, with its texts from help.toml: its one-line help, its description, and an
    epilog of its examples and exit codes (shown as written). The caller adds its arguments and
    ``set_defaults(handler=...)``, the function that runs it."""
    texts = command_texts()[name]
    p = sub.add_parser(
        name,
        help=texts["help"],
        description=texts["description"],
        epilog=epilog(texts["examples"], texts.get("codes", EXIT_CODES)),
    )
    p.set_defaults(command_parser=p)  # its usage line, for an error found after parsing
    return p


@cache
def command_texts() -> dict[str, dict[str, str]]:
    """Every command's --help texts (help.toml beside this module)."""
    import tomllib

    return tomllib.loads((Path(__file__).parent / "help.toml").read_text(encoding="utf-8"))


def epilog(examples: str, codes: str = EXIT_CODES) -> str:
    """A command's ``--help`` epilog: its examples, then its exit codes."""
    return f"examples:\n{examples}\n\n{codes}"


def output_argument(text: str) -> str:
    """argparse ``type=`` of every ``--output``: an empty value is a usage error (exit 2)."""
    if text == "":
        raise argparse.ArgumentTypeError("an empty --output names no file: give a FILE, or - for standard output")
    return text


def add_output_argument(p: argparse.ArgumentParser, what: str, default: str | None = None, **kwargs) -> None:
    """``--output FILE`` of a command (docs/commands.md and docs/safety.md): ``-`` is standard output, an empty value a usage error."""
    shown = f" (default {default})" if default else ""
    p.add_argument(
        "--output",
        type=output_argument,
        default=default,
        metavar="FILE",
        help=f"{what}{shown}; - writes it to standard output",
        **kwargs,
    )


def output_target(args, inputs=(), folders=(), reserved=()) -> Path | None:
    """The checked ``--output`` (docs/safety.md), before anything is computed; None is standard output."""
    from tcsexam.scoring.safety.outputs import check_output

    return check_output(
        args.output, [str(p) for p in inputs if p], [str(p) for p in folders if p], reserved, stdout_ok=True
    )


def check_name_options(*options: tuple[str, str | None, str]) -> None:
    """Each (option, value, kind) given on the command line is a name by the name rule
    (docs/safety.md#names-are-data-never-paths), else a usage error naming the option."""
    for option, value, kind in options:
        problem = value is not None and check_name(value, kind)
        if problem:
            raise UsageError(f"{option}: {problem}")


def say(text: str, args) -> None:
    """The human summary, escaped for the terminal (docs/safety.md): standard output, or standard error
    when ``--output -`` sends the document there."""
    say_on(text, sys.stderr if getattr(args, "output", None) == "-" else sys.stdout)


def write_to(target: Path | None, data: bytes | bytearray) -> None:
    """Write an output to the file ``target`` atomically, or to standard output when None
    (``--output -``, docs/commands.md), after the text already printed there."""
    if target is None:
        sys.stdout.flush()
    write_output(target, data)


def parse_threshold(text: str) -> tuple[str, float]:
    track, sep, value = text.partition("=")
    if not sep or track not in TRACKS:
        slip = meant(track, TRACKS) if sep else ""
        raise argparse.ArgumentTypeError(
            f"expected TRACK=VALUE with TRACK one of {', '.join(TRACKS)}, got {text!r}{slip}"
        )
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"threshold of {track} is not a number: {value!r}") from None
    if not math.isfinite(number):
        raise argparse.ArgumentTypeError(f"threshold of {track} must be finite")
    low, high = SCORE_RANGES[track]
    if number < low or (high is not None and number > high):
        hint = f" (a percentage? write {number / 100:g})" if high is not None and high < number <= 100 else ""
        raise argparse.ArgumentTypeError(
            f"threshold of {track} must lie in its scores' range {range_text(track)}, got {value}{hint} "
            "(tcsexam docs rules#passk)"
        )
    return track, number


def add_cohort_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--cohort", metavar="JSON", help="cohort declaration (default RUN_DIR/cohort.json)")


def add_benchmark_argument(p: argparse.ArgumentParser) -> None:
    """``--benchmark DIR`` (docs/formats.md: else $TCSEXAM_BENCHMARK, else the bundled sample, which says so)."""
    p.add_argument(
        "--benchmark", metavar="DIR", help="benchmark folder (default $TCSEXAM_BENCHMARK or the bundled sample)"
    )


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
    add_cohort_argument(p)
    p.add_argument(
        "--records",
        metavar="PATH",
        help="instance records: a folder, or a packed records.jsonl file "
        "(default RUN_DIR/records or RUN_DIR/records.jsonl when present)",
    )
    add_benchmark_argument(p)
    p.add_argument(
        "--threshold",
        metavar="TRACK=VALUE",
        action="append",
        type=parse_threshold,
        default=[],
        help="pass^k success threshold of a track (defaults: theorem 1, conjecture 1, construction 1.0, solver 0.5)",
    )


def load_for(args, default_run: Path | None = None):
    """The run the options name, loaded; its notices (the synthetic sample, docs/formats.md) on standard error."""
    from tcsexam.scoring.pipeline.run import load_run, paths_named

    run = load_run(paths_named(args, default_run))
    for notice in run.notices:
        say_on(notice, sys.stderr)
    return run


def option_inputs(args) -> tuple[list[Path], list[Path], list[Path]]:
    """The input files and folders of a run command as far as the options tell them, and what its run
    would read once it is there (docs/safety.md: an output is checked against them before anything is
    read)."""
    from tcsexam.scoring.pipeline.run import paths_named

    paths = paths_named(args)
    files = [paths.attempts, paths.cohort] + ([Path(paths.suite)] if paths.suite else [])
    packed, folders = paths.records_input()
    return files + packed, folders, paths.reserved()


def checked_output(args) -> Path | None:
    """docs/safety.md for a run command's ``--output``: never an input nor inside records/, never a
    folder, FIFO or device (exit 1, nothing touched); None for standard output (``-``)."""
    return check_output(args.output, *option_inputs(args), stdout_ok=True)


def run_and_target(args):
    """The run the options name, loaded, and its checked ``--output`` (None: standard output, or no
    ``--output``). docs/safety.md: the output is checked against the inputs the options name before anything
    is read, and against every input of the loaded run (suite and reference too) once it is."""
    if args.output:
        checked_output(args)
    run = load_for(args)
    return run, output_target(args, *run.inputs()) if args.output else None


def thresholds_of(args) -> dict[str, float]:
    return dict(args.threshold)


def checked(document: dict, shape) -> dict:
    """The document, after checking it has the shape of its output type (docs/commands.md: it validates
    against its schema); a mismatch is a bug, reported as an internal error."""
    import msgspec

    msgspec.convert(document, shape)
    return document
