"""``reference`` and ``suite``: what the benchmark folder's solver references and suites hold
(docs/commands.md#reference, docs/commands.md#suite)."""

from __future__ import annotations

import shlex
import sys

from tcsexam.scoring.commands.options import add_benchmark_argument, check_name_options, command_parser
from tcsexam.scoring.errors import InputError, UsageError
from tcsexam.scoring.safety.terminal import say
from tcsexam.scoring.vocab import EXIT_OK


def cmd_reference(args) -> int:
    """No REFERENCE_ID: the references the benchmark has; with one: its tasks; with --task: that
    task's instances in full. Text, or JSON on standard output with --json."""
    from tcsexam.scoring.commands.text import reference_list_text, reference_tasks_text, task_instances_text
    from tcsexam.scoring.pipeline.benchmark import SAMPLE_BENCHMARK, resolve_reference, sample_benchmark_notice
    from tcsexam.scoring.reports.references import benchmark_references, reference_tasks, task_instances

    check_name_options(("REFERENCE_ID", args.reference_id, "reference id"), ("--task", args.task, "item"))
    benchmark, source = benchmark_folder(args)
    if args.reference_id is None and args.task is not None:  # the benchmark's one reference, if it has one
        ids = [r["reference_id"] for r in benchmark_references(benchmark)["references"]]
        if len(ids) != 1:
            raise UsageError(
                f"--task names a task of a reference: give the REFERENCE_ID too (the benchmark holds {', '.join(ids) or 'none'})"
            )
        args.reference_id = ids[0]
    again = benchmark_again(args)
    if args.reference_id is None:
        document = benchmark_references(benchmark)
        text = reference_list_text(document, source, again)
    else:
        if source == SAMPLE_BENCHMARK and not (benchmark / "references" / args.reference_id).is_dir():
            held = ", ".join(r["reference_id"] for r in benchmark_references(benchmark)["references"])
            raise UsageError(
                f"the bundled synthetic sample holds no reference '{args.reference_id}' (it holds {held}): point at "
                "the benchmark folder that does with --benchmark DIR or TCSEXAM_BENCHMARK=DIR "
                "(tcsexam docs formats#the-benchmark-folder)"
            )
        notice = sample_benchmark_notice(source, benchmark, args.reference_id)
        if notice:
            say(notice, sys.stderr)
        reference = resolve_reference(suite_of(benchmark, args.reference_id, args.suite), benchmark, args.reference_id)
        if args.task is None:
            document = reference_tasks(reference)
            text = reference_tasks_text(document, again)
        else:
            document = task_instances(reference, args.task)
            text = task_instances_text(document)
    return listed(args, document, text)


def benchmark_folder(args):
    """The benchmark folder (--benchmark, else $TCSEXAM_BENCHMARK, else the bundled sample) and where it
    came from; one that is not a folder is rejected input."""
    from tcsexam.scoring.pipeline.benchmark import benchmark_origin, locate_benchmark, missing_benchmark

    benchmark, source = locate_benchmark(args.benchmark)
    missing = missing_benchmark(benchmark, benchmark_origin(args.benchmark))
    if missing:
        raise InputError([missing])
    return benchmark, source


def benchmark_again(args) -> str:
    """What the next command a listing prints needs too, so that it works as printed: the --benchmark given."""
    return f" --benchmark {shlex.quote(args.benchmark)}" if args.benchmark else ""


def listed(args, document: dict, text: str) -> int:
    """A listing on standard output: JSON with --json, else its text."""
    from tcsexam.scoring.formats.json import dumps

    if args.json:
        sys.stdout.buffer.write(dumps(document))
    else:
        say(text)
    return EXIT_OK


def cmd_suite(args) -> int:
    """No NAME: the suites the benchmark has; with one: its tasks. Text, or JSON on standard output with
    --json."""
    from tcsexam.scoring.commands.text import suite_list_text, suite_tasks_text
    from tcsexam.scoring.reports.suites import benchmark_suites, suite_tasks

    check_name_options(("NAME", args.name, "suite"))
    benchmark, source = benchmark_folder(args)
    if args.name is None:
        document = benchmark_suites(benchmark)
        return listed(args, document, suite_list_text(document, source, benchmark_again(args)))
    document = suite_tasks(benchmark, args.name)
    return listed(args, document, suite_tasks_text(document))


def suite_of(benchmark, reference_id: str, suite: str | None) -> str:
    """The suite file to read: --suite, else full when the reference has a full.json (Full contains
    Lite), else lite."""
    if suite:
        return suite
    folder = benchmark / "references" / reference_id
    if not folder.is_dir():  # resolve_reference names the references there are
        return "full"
    return "full" if (folder / "full.json").is_file() or not (folder / "lite.json").is_file() else "lite"


def add_parsers(sub) -> None:
    p = command_parser(sub, "reference")
    p.add_argument(
        "reference_id", nargs="?", metavar="REFERENCE_ID", help="a reference of the benchmark; none: list them"
    )
    p.add_argument(
        "--suite", choices=("lite", "full"), help="which file of the reference (default full when it has one)"
    )
    p.add_argument("--task", metavar="ITEM", help="one solver task's instances in full")
    add_benchmark_argument(p)
    p.add_argument("--json", action="store_true", help="the listing as JSON on standard output")
    p.set_defaults(handler=cmd_reference)

    p = command_parser(sub, "suite")
    p.add_argument("name", nargs="?", metavar="NAME", help="a suite of the benchmark (lite, full); none: list them")
    add_benchmark_argument(p)
    p.add_argument("--json", action="store_true", help="the listing as JSON on standard output")
    p.set_defaults(handler=cmd_suite)
