"""``tcsexam plot``: the paper's figures of index.json files (docs/commands.md#plot), as PDF, SVG or PNG.

matplotlib is the optional extra ``plot`` (``vocab.PLOT_INSTALL``): only this command imports it, and
without it the command stops with exit 2 saying how to install it."""

from __future__ import annotations

import sys
from pathlib import Path

from tcsexam.scoring.commands.options import say, write_to
from tcsexam.scoring.commands.text import glyphs_missing, written
from tcsexam.scoring.errors import InputError, Problems, UsageError
from tcsexam.scoring.safety.outputs import check_output
from tcsexam.scoring.safety.terminal import say as say_on
from tcsexam.scoring.vocab import EXIT_OK, PLOT_INSTALL


def check_usage(args) -> None:
    """The usage rules of docs/commands.md#plot (exit 2), matplotlib installed among them."""
    if args.kind == "compare" and (args.models is None or len(args.index) != 1):
        raise UsageError("--kind compare takes one INDEX_JSON and --models A B")
    if args.kind != "compare" and args.models is not None:
        raise UsageError(f"--models is for --kind compare, not --kind {args.kind}")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageError(f"the figures need matplotlib: {PLOT_INSTALL}") from None


def figure_format(output: str) -> str:
    """The figure's format, the suffix of ``--output`` (exit 2 for another, or for standard output)."""
    from tcsexam.scoring.reports.figures import SUFFIXES

    suffix = Path(output).suffix.lower()
    if output == "-" or suffix not in SUFFIXES:
        raise UsageError(f"--output: a figure is written to a file named *.pdf, *.svg or *.png, not {output!r}")
    return suffix


def read_documents(names: list[str]) -> list[tuple[str, dict]]:
    """The index.json files, read as ``table`` reads them (docs/commands.md#reading-indexjson): every
    problem of every file at once; a file edited after scoring is drawn, with a warning."""
    from tcsexam.scoring.reports.index_file import edited_warning, load_index

    problems = Problems()
    docs = []
    for name in names:
        try:
            loaded = load_index(Path(name))
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        if warning := edited_warning(loaded):
            say_on(warning, sys.stderr)
        docs.append((loaded.file, loaded.document))
    problems.raise_if_any()
    return docs


def run_plot(args) -> int:
    """``tcsexam plot`` (docs/commands.md#plot): exit 0 written, 1 rejected input, 2 usage."""
    check_usage(args)
    target = check_output(args.output, args.index)  # a folder, a device or an input: exit 1
    suffix = figure_format(args.output)
    docs = read_documents(args.index)
    from tcsexam.scoring.reports.figures import build_figure, figure_bytes

    models = tuple(args.models) if args.models else None
    fig = build_figure(docs, args.kind, args.width, models)
    missing: list[str] = []
    write_to(target, figure_bytes(fig, suffix, missing))
    say(written(f"{args.kind} figure", args.output), args)
    if missing:
        say_on(glyphs_missing(missing), sys.stderr)
    return EXIT_OK


def add_parsers(sub) -> None:
    """Register ``plot`` on the ``tcsexam`` sub-parsers."""
    from tcsexam.scoring.commands.options import command_parser, output_argument

    kinds = ("forest", "tracks", "passk", "compare")  # reports.figures.KINDS, without importing it for --help
    p = command_parser(sub, "plot")
    p.add_argument("index", nargs="+", metavar="INDEX_JSON", help="index.json files written by score")
    p.add_argument("--kind", choices=kinds, default="forest", help="the figure (default forest)")
    p.add_argument("--models", nargs=2, metavar=("A", "B"), help="--kind compare: the two models, A − B")
    p.add_argument(
        "--width",
        choices=("column", "full"),
        default="column",
        help="column: 3.3 in, one column of a paper; full: 7 in, the text's width (default column)",
    )
    p.add_argument(
        "--output",
        type=output_argument,
        required=True,
        metavar="FILE",
        help="the figure's file; its suffix gives the format: .pdf, .svg or .png",
    )
    p.set_defaults(handler=run_plot)
