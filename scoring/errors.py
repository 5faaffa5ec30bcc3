"""Problems found in user input, and the one exception that carries them.

Every loader collects *all* problems of a file before raising (docs/commands.md:
"the message names file, line or record, and field").
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tcsexam.scoring.grammar import counted

_LINE = re.compile(r"line (\d+)\b")


@dataclass(frozen=True, order=True)
class Problem:
    """One problem: which file, where in it (line N, record N, a key path), which field."""

    file: str
    where: str
    field: str
    message: str

    def __str__(self) -> str:
        parts = [self.file]
        if self.where:
            parts.append(self.where)
        if self.field:
            parts.append(f"field '{self.field}'")
        return ": ".join(parts) + f": {self.message}"


class InputError(Exception):
    """Rejected input (exit 1). Carries every problem found, in the order found."""

    def __init__(self, problems: list[Problem], hint: str = ""):
        self.problems = list(problems)
        self.hint = hint  # what to do about them, said once after the count (not a problem of its own)
        super().__init__("\n".join(str(p) for p in self.problems))

    def __reduce__(self):  # pickled intact: the dashboard loads large runs in a process pool
        return (InputError, (self.problems, self.hint))


class UsageError(Exception):
    """A command-line usage problem (exit 2)."""


@dataclass
class Problems:
    """Collector used by loaders and rule checks so that every problem is reported at once."""

    items: list[Problem] = field(default_factory=list)

    def add(self, file: str | Path, where: str, field_name: str, message: str) -> None:
        self.items.append(Problem(str(file), where, field_name, message))

    def extend(self, problems: Iterable[Problem]) -> None:
        self.items.extend(problems)

    def __bool__(self) -> bool:
        return bool(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def raise_if_any(self) -> None:
        if self.items:
            raise InputError(self.items)


def line_of(problem: Problem) -> int:
    """The line a problem is on (``where`` "line N..."), 0 for a problem of the whole file or a record."""
    match = _LINE.match(problem.where)
    return int(match.group(1)) if match else 0


def format_problems(problems: list[Problem]) -> str:
    """Problems grouped by file, each file's in line order (the order found within a line), with a
    count (used by validate and by every rejection)."""
    groups: dict[str, list[Problem]] = defaultdict(list)
    for p in problems:
        groups[p.file].append(p)
    lines = []
    for file, items in groups.items():
        lines.append(f"{file}: {counted(len(items), 'problem')}")
        lines.extend(f"  {p}" for p in sorted(items, key=line_of))
    n = len(problems)
    lines.append(f"rejected: {counted(n, 'problem')} in {counted(len(groups), 'file')}")
    return "\n".join(lines)
