"""The project's documentation pages as ``tcsexam docs`` shows them (docs/commands.md#docs): where the
pages are (``docs_folder``, the one place that knows), their topics with a one-line summary each, a
page, or one section of it by its GitHub-style heading anchor."""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable

INDEX_PAGE = "README.md"  # the pages' table of contents: "- [formats.md](formats.md): summary"
ONLINE_DOCS = "https://github.com/tcsexam/tcsexam/tree/main/docs"


def docs_folder() -> Traversable:
    """The folder of the documentation pages: package data of ``tcsexam`` (``tcsexam/docs``, the
    repository's top-level ``docs/`` in a checkout or an editable install, a copy in a wheel). The one
    lookup of it."""
    return resources.files("tcsexam.docs")


@dataclass(frozen=True)
class Topic:
    name: str  # the page's file name without .md: "formats"
    summary: str  # its line of docs/README.md, on one line


def topics(folder: Traversable | None = None) -> list[Topic]:
    """The topics in the order of docs/README.md, each with its summary there (a bullet
    ``- [formats.md](formats.md): text``, or a second page after ``;`` in the same bullet)."""
    folder = docs_folder() if folder is None else folder
    text = folder.joinpath(INDEX_PAGE).read_text(encoding="utf-8")
    bullets = " ".join(line.strip() for line in text.splitlines()).split("- [")
    found = []
    for bullet in bullets[1:]:
        for name, summary in re.findall(r"([a-z0-9-]+)\.md\]\([^)]*\):\s*(.*?)\s*(?=;\s*\[|$)", "[" + bullet):
            found.append(Topic(name, summary))
    return found


def page_file(topic: str, folder: Traversable | None = None) -> Traversable:
    """The file of a topic: ``formats`` is ``formats.md`` of the docs folder."""
    return (docs_folder() if folder is None else folder).joinpath(f"{topic}.md")


def heading_anchor(title: str) -> str:
    """GitHub's anchor of a heading: lower case, characters other than letters, digits, spaces,
    '-' and '_' dropped, each space a '-' (``index.json`` -> ``indexjson``, ``pass^k`` -> ``passk``)."""
    return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")


@dataclass(frozen=True)
class Section:
    anchor: str
    level: int  # 1 for '#', 2 for '##', ...
    start: int  # its heading's line (0-based)


def sections(text: str) -> list[Section]:
    """Every heading of a markdown page outside fenced code blocks, with its anchor as GitHub makes it
    (a repeated anchor gets -1, -2, ...)."""
    out: list[Section] = []
    seen: dict[str, int] = {}
    fenced = False
    for n, line in enumerate(text.splitlines()):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        match = None if fenced else re.match(r"(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if match:
            anchor = heading_anchor(match.group(2))
            count = seen.get(anchor, 0)
            seen[anchor] = count + 1
            out.append(Section(f"{anchor}-{count}" if count else anchor, len(match.group(1)), n))
    return out


def section_text(text: str, anchor: str) -> str | None:
    """The section of ``text`` under the heading with ``anchor``, up to the next heading of its level or
    above; None when the page has no such heading."""
    found = sections(text)
    lines = text.splitlines()
    for i, section in enumerate(found):
        if section.anchor == anchor:
            end = next((s.start for s in found[i + 1 :] if s.level <= section.level), len(lines))
            return "\n".join(lines[section.start : end]).rstrip() + "\n"
    return None
