"""``docs``: the project's documentation pages, on the terminal (docs/commands.md#docs)."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys

from tcsexam.scoring.commands.options import command_parser
from tcsexam.scoring.errors import InputError, Problem, UsageError
from tcsexam.scoring.grammar import meant
from tcsexam.scoring.manual import ONLINE_DOCS, docs_folder, page_file, section_text, sections, topics
from tcsexam.scoring.safety.terminal import say
from tcsexam.scoring.vocab import EXIT_OK


def cmd_docs(args) -> int:
    """``tcsexam docs [TOPIC[#SECTION]]``: the list of topics, a page or one section of it."""
    folder = docs_folder()
    if not folder.is_dir():
        message = f"the documentation pages are not installed with this copy of tcsexam: read them at {ONLINE_DOCS}"
        raise InputError([Problem(str(folder), "", "", message)])
    known = topics(folder)
    if args.topic is None:
        width = max(len(t.name) for t in known)
        lines = [f"  {t.name:<{width}}  {t.summary}" for t in known]
        say("topics (tcsexam docs TOPIC, or TOPIC#SECTION for one section):\n" + "\n".join(lines))
        return EXIT_OK
    name, _, anchor = args.topic.partition("#")
    name = name.removesuffix(".md")
    if name not in {t.name for t in known} or not page_file(name, folder).is_file():
        names = [t.name for t in known]
        raise UsageError(f"unknown topic {args.topic!r}: the topics are {', '.join(names)}{meant(name, names)}")
    text = page_file(name, folder).read_text(encoding="utf-8")
    if anchor:
        shown = section_text(text, anchor)
        if shown is None:
            listed = ", ".join(f"{name}#{s.anchor}" for s in sections(text) if s.level > 1)
            raise UsageError(f"page '{name}' has no section {anchor!r}: its sections are {listed}")
        text = shown
    show_page(text)
    return EXIT_OK


def show_page(text: str) -> None:
    """A page through a pager when standard output is a terminal ($PAGER, else less, else more), else
    (or when no pager starts) printed as it is."""
    if sys.stdout is not None and sys.stdout.isatty():
        for command in pagers():
            argv = shlex.split(command)
            if argv and shutil.which(argv[0]):
                sys.stdout.flush()
                try:
                    subprocess.run(argv, input=text, text=True, check=False)
                    return
                except OSError:
                    continue
    say(text.rstrip("\n"))


def pagers() -> list[str]:
    """The pagers to try, in order: $PAGER when set, then less and more."""
    chosen = os.environ.get("PAGER", "").strip()
    return ([chosen] if chosen else []) + ["less", "more"]


def add_parsers(sub) -> None:
    p = command_parser(sub, "docs")
    p.add_argument(
        "topic",
        nargs="?",
        metavar="TOPIC",
        help="a page (formats), or one section of it (formats#the-benchmark-folder); none: the list of topics",
    )
    p.set_defaults(handler=cmd_docs)
