"""``table``, ``diff`` and ``verify``: tools over index.json files."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tcsexam.scoring.commands.options import write_to
from tcsexam.scoring.commands.text import format_diff, written
from tcsexam.scoring.errors import InputError, Problems
from tcsexam.scoring.formats.json import dumps
from tcsexam.scoring.grammar import counted
from tcsexam.scoring.reports.diff import diff_index
from tcsexam.scoring.reports.findings import not_checked_lines
from tcsexam.scoring.reports.index_file import IndexFile, edited_warning, load_index
from tcsexam.scoring.reports.table import FORMATS, render_table
from tcsexam.scoring.reports.verify import outside_note, recompute_with_pipeline, verify_index
from tcsexam.scoring.safety.outputs import check_output
from tcsexam.scoring.safety.terminal import escape_for_terminal
from tcsexam.scoring.safety.terminal import say as say_on
from tcsexam.scoring.vocab import EXIT_OK, EXIT_REJECTED


def emit(text: str, output: str | None, indexes: list[IndexFile]) -> bool:
    """Text to standard output, or to ``--output`` (``-`` is standard output; docs/safety.md: never an
    input, a folder or a device); True when it went to a file."""
    target = None if output is None else check_output(output, *inputs_behind(indexes), stdout_ok=True)
    write_to(target, text.encode("utf-8"))
    return target is not None


def inputs_behind(indexes: list[IndexFile]) -> tuple[list[str], list[str]]:
    """(files, folders) an output of ``table`` or ``diff`` must not be (docs/safety.md#outputs-never-destroy-inputs):
    the index.json files read and the run's inputs each records in its provenance (attempts.csv,
    cohort.json, the suite, the reference, records/). A recorded path not on this machine is skipped."""
    files = [one.file for one in indexes]
    folders: list[str] = []
    for one in indexes:
        recorded = one.document.get("provenance", {}).get("inputs", {})
        for entry in recorded.values() if isinstance(recorded, dict) else ():
            path = entry.get("path") if isinstance(entry, dict) else None
            if isinstance(path, str) and path:
                (folders if os.path.isdir(path) else files).append(path)
    return files, folders


def read_indexes(names: list[str]) -> list[IndexFile]:
    """The index.json files ``names``, every problem of every file at once (exit 1); a file edited
    after scoring is read, with a warning on standard error (docs/decisions.md#reports)."""
    problems = Problems()
    loaded = []
    for name in names:
        try:
            loaded.append(load_index(Path(name)))
        except InputError as exc:
            problems.extend(exc.problems)
    problems.raise_if_any()
    for one in loaded:
        if warning := edited_warning(one):
            say_on(warning, sys.stderr)
    return loaded


def run_table(args) -> int:
    """``tcsexam table`` (docs/commands.md)."""
    indexes = read_indexes(args.index)
    docs = [(one.file, one.document) for one in indexes]
    if emit(render_table(docs, args.format, args.digits), args.output, indexes):
        say_on(written("table", args.output), sys.stdout)
    return EXIT_OK


def run_diff(args) -> int:
    """``tcsexam diff`` (docs/commands.md): text on stdout; JSON with --output; exit 0 (1 unreadable input)."""
    old, new = read_indexes([args.old, args.new])
    d = diff_index(old.document, new.document, (old.file, new.file))
    if args.output:
        import msgspec

        from tcsexam.scoring.formats.results import DiffOutput

        msgspec.convert(d, DiffOutput)  # the shape its schema describes (docs/commands.md); a mismatch is a bug
    to_file = bool(args.output) and emit(dumps(d).decode("utf-8"), args.output, [old, new])
    if args.output != "-":
        print(format_diff(d))
    if to_file:
        say_on(written("diff", args.output), sys.stdout)
    return EXIT_OK


def run_verify(args) -> int:
    """``tcsexam verify`` (docs/commands.md): exit 0 when everything holds, else 1 listing each difference."""
    loaded = load_index(Path(args.index))
    found = verify_index(loaded, Path(args.run_dir) if args.run_dir else None, args.benchmark, recompute_with_pipeline)
    against = f" against the run in {escape_for_terminal(str(found.run_folder))}" if found.run_folder else ""
    if found.run_folder is not None and not args.run_dir and (note := outside_note(args.index, found.run_folder)):
        say_on(note, sys.stderr)
    if found.findings:
        print(f"{args.index}: NOT verified{against}, {counted(len(found.findings), 'difference')}:")
        for f in found.findings:
            print(f"  {escape_for_terminal(f)}")
        said = verify_values_text(found.values_match, found.only_form)
        if said:
            print(said)
        return EXIT_REJECTED
    print(
        f"{args.index}: verified{against}: every input matches its sha256, the recomputed document equals the stored "
        f"one (content_sha256 {loaded.document['provenance']['content_sha256']})"
    )
    for line in not_checked_lines(loaded.document):  # verified, yet typed in: a reader should know
        say_on(line, sys.stderr)
    return EXIT_OK


def verify_values_text(values_match: bool | None, only_form: bool) -> str:
    """What verify says beside its differences (docs/commands.md#verify): whether the values recomputed
    from the files as they are match the stored document's, and, when an input differs from its recorded
    file only in line endings or a byte-order mark, how a git checkout keeps them."""
    lines = []
    if values_match is not None:
        how = "match the stored index" if values_match else "differ from the stored index (the $. paths above)"
        lines.append(f"the numbers recomputed from the files as they are {how}")
    if only_form:
        lines.append(
            "hint: a checkout that converts line endings changes an input's sha256; the lines `*.csv -text` and "
            "`*.json -text` in the repository's .gitattributes keep git from converting the run's files "
            "(tcsexam docs commands#verify)"
        )
    return "\n".join(lines)


def digits_arg(text: str) -> int:
    """--digits: a whole number 0..15 (else a usage error, exit 2)."""
    import argparse

    try:
        n = int(text)
    except ValueError:
        n = -1
    if not 0 <= n <= 15:
        raise argparse.ArgumentTypeError(f"expected a whole number from 0 to 15, got {text!r}")
    return n


def add_table_parser(sub):
    from tcsexam.scoring.commands.options import add_output_argument, command_parser

    p = command_parser(sub, "table")
    p.add_argument("index", nargs="+", metavar="INDEX_JSON", help="index.json files written by score")
    p.add_argument(
        "--format",
        choices=tuple(FORMATS),
        default="markdown",
        help="output format (default markdown)",
    )
    p.add_argument(
        "--digits", type=digits_arg, metavar="N", help="decimals (default: 2 for the index, 3 for the tracks)"
    )
    add_output_argument(p, "write the table here instead of standard output")
    return p


def add_diff_parser(sub):
    from tcsexam.scoring.commands.options import add_output_argument, command_parser

    p = command_parser(sub, "diff")
    p.add_argument("old", metavar="OLD_INDEX", help="the earlier index.json")
    p.add_argument("new", metavar="NEW_INDEX", help="the later index.json (its intervals judge the changes)")
    add_output_argument(p, "also write the differences as JSON here")
    return p


def add_verify_parser(sub):
    from tcsexam.scoring.commands.options import command_parser

    p = command_parser(sub, "verify")
    p.add_argument("index", metavar="INDEX_JSON", help="the index.json to check")
    p.add_argument(
        "run_dir",
        nargs="?",
        metavar="RUN_DIR",
        help="find attempts.csv, cohort.json, records/ here instead of at the provenance paths",
    )
    p.add_argument(
        "--benchmark",
        metavar="DIR",
        help="benchmark folder for suite and reference (default $TCSEXAM_BENCHMARK, else the one recorded at scoring)",
    )
    return p


def add_parsers(sub) -> None:
    """Register table, diff and verify on the ``tcsexam`` sub-parsers; returns command -> handler."""
    add_table_parser(sub).set_defaults(handler=run_table)
    add_diff_parser(sub).set_defaults(handler=run_diff)
    add_verify_parser(sub).set_defaults(handler=run_verify)
