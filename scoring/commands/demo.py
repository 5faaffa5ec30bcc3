"""``demo``: a copy of the bundled demo run, or of the bundled sample benchmark folder."""

from __future__ import annotations

from pathlib import Path

from tcsexam.scoring.commands.options import command_parser
from tcsexam.scoring.errors import InputError, Problem
from tcsexam.scoring.safety.terminal import escape_for_terminal
from tcsexam.scoring.vocab import EXIT_OK


def cmd_demo(args) -> int:
    """``tcsexam demo DIR [--benchmark]``: the bundled demo run, or the sample benchmark folder,
    copied into DIR (absent or empty), in one rename."""
    from tcsexam.scoring.pipeline.benchmark import demo_run, sample_root

    target = Path(args.dir)
    copy_into(sample_root() / "benchmark" if args.benchmark else demo_run(), target)
    shown = escape_for_terminal(str(target))
    print(benchmark_next_steps(shown) if args.benchmark else demo_next_steps(shown))
    return EXIT_OK


def copy_into(source: Path, target: Path) -> None:
    """``source`` copied to ``target``, which must be absent or an empty folder (else nothing is
    written), through a folder beside it renamed into place."""
    import shutil
    import tempfile

    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise InputError([Problem(str(target), "", "", "exists and is not a folder: give a new or empty folder")])
    if target.is_dir() and any(target.iterdir()):
        raise InputError([Problem(str(target), "", "", "is not empty: give a new or empty folder")])
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        shutil.copytree(source, staging, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__"))
        staging.chmod(0o755)
        staging.replace(target)  # an empty folder is replaced, an absent one made
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def demo_next_steps(shown: str) -> str:
    return (
        f"demo: the bundled demo run (3 models, suite lite, synthetic benchmark) copied to {shown}\n"
        "next:\n"
        f"  tcsexam validate {shown}          # what is missing, provisional or excluded (exit 3)\n"
        f"  tcsexam score {shown} --output {shown}/index.json   # the index (exit 3: one model incomplete)\n"
        f"  tcsexam tui {shown}               # the dashboard"
    )


def benchmark_next_steps(shown: str) -> str:
    """What to replace in a copy of the sample benchmark to make one's own (docs/formats.md#the-benchmark-folder)."""
    return (
        f"demo: the bundled sample benchmark folder (synthetic values) copied to {shown}\n"
        "to make it your own benchmark, replace:\n"
        f"  {shown}/suites/lite.json, {shown}/suites/full.json   your suites' tasks and tracks\n"
        f"  {shown}/references/sample-k3-synthetic/              rename the folder to your reference id, and in\n"
        "      its lite.json and full.json set reference_id to that id and the tasks' reference runs to yours\n"
        "  then name that id as solver_reference_id in your cohort.json\n"
        "next:\n"
        f"  tcsexam reference --benchmark {shown}           # the references it holds, then their tasks\n"
        f"  tcsexam validate RUN_DIR --benchmark {shown}    # or export TCSEXAM_BENCHMARK={shown}\n"
        "  tcsexam docs formats#the-benchmark-folder     # what the folder must hold"
    )


def add_parsers(sub) -> None:
    p = command_parser(sub, "demo")
    p.add_argument("dir", metavar="DIR", help="a new or empty folder")
    p.add_argument(
        "--benchmark",
        action="store_true",
        help="copy the bundled sample benchmark folder (suites/, references/) instead, as a template for your own",
    )
    p.set_defaults(handler=cmd_demo)
