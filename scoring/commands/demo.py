"""``demo``: a copy of the bundled demo run."""

from __future__ import annotations

from pathlib import Path

from scoring.commands.options import command_parser
from scoring.errors import InputError, Problem
from scoring.safety.terminal import escape_for_terminal
from scoring.vocab import EXIT_OK


def cmd_demo(args) -> int:
    """``tcsexam demo DIR``: the bundled demo run copied into DIR (absent or empty), in one rename."""
    import shutil
    import tempfile

    from scoring.pipeline.benchmark import demo_run

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


def add_parsers(sub) -> None:
    p = command_parser(sub, "demo")
    p.add_argument("dir", metavar="DIR", help="a new or empty folder")
    p.set_defaults(handler=cmd_demo)
