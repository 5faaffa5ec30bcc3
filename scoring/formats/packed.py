"""A run's records packed in one file, RUN_DIR/records.jsonl (docs/formats.md#packed-records).

One line per records file of the folder layout: ``{"model", "item", "attempt", "records"}``, the
three names its path ``records/<model>/<item>/<attempt>.json`` holds and the list that file holds.
``PackedRecords`` reads them for the pipeline as ``RecordsRoot`` reads a records folder: each line
stands for the file ``records/<model>/<item>/<attempt>.json``, so the cross-check, the line-up of
rows and records and the provenance are the folder layout's, and only a problem of a line names
the packed file and the line.
"""

from __future__ import annotations

import hashlib
import os
import stat
import weakref
from typing import Generic, TypeVar

import msgspec

from tcsexam.scoring.errors import InputError, Problem
from tcsexam.scoring.formats.decode import problems_of, syntax_problem
from tcsexam.scoring.formats.json import check_duplicate_keys
from tcsexam.scoring.formats.records import Record
from tcsexam.scoring.safety.files import (
    RecordsListing,
    RecordsRoot,
    Stamp,
    read_regular_file_stamped,
    records_file,
    stamp_of,
)
from tcsexam.scoring.safety.names import check_name

NAMES = ("model", "item", "attempt")
T = TypeVar("T")


class PackedLine(msgspec.Struct, Generic[T], forbid_unknown_fields=True):
    """One line of records.jsonl: one records file of the folder layout, named by the three parts
    of its path records/<model>/<item>/<attempt>.json, and the instance records it holds."""

    model: str
    item: str
    attempt: str
    records: T  # read as its bytes (msgspec.Raw); the schema's are list[Record]


class PackedRecordsLine(PackedLine[list[Record]]):
    """One line of records.jsonl: one records file of the folder layout, named by the three parts
    of its path records/<model>/<item>/<attempt>.json, and the list of instance records it holds."""


LINE = msgspec.json.Decoder(PackedLine[msgspec.Raw])
LINE_FIELDS = PackedLine.__struct_fields__


def is_packed(path: str | os.PathLike) -> bool:
    """Whether ``path`` names a packed records file rather than a records folder: anything there
    but a folder (a FIFO or a device is then refused when it is read, docs/safety.md)."""
    try:
        return not stat.S_ISDIR(os.stat(path).st_mode)
    except OSError:
        return os.path.lexists(path)  # a link to nothing: refused, as a packed file, when read


class PackedRecords:
    """The records of a packed run (docs/formats.md#packed-records), read as ``RecordsRoot`` reads
    a records folder: ``path`` makes the path a line stands for (``<file>/<model>/<item>/<attempt>.json``,
    never opened), ``read_path`` gives that line's records as bytes, ``shown`` and ``located`` put
    the file and the line into what is said about them.

    Every line is checked when the file is loaded; only where each line lies is kept, and a line is
    read again from the file when its records are wanted (the records of a large run are not held
    in memory while it is scored). A read first checks that the file is still the one loaded (its
    device, inode, size, mtime and ctime): what was checked is what is scored."""

    def __init__(self, file: str, lines: dict[str, tuple[int, int, int]], stamp: Stamp, sha256: str):
        self.root = file
        self._lines = lines  # the path a line stands for -> (its line number, its first byte, its end)
        self._stamp = stamp
        self.sha256 = sha256  # of the file's bytes as loaded
        self._fd: int | None = None

    @classmethod
    def load(cls, path: str | os.PathLike) -> PackedRecords:
        """Read and check the packed file at ``path``; an InputError lists every bad line."""
        file = os.fspath(path)
        data, stamp = read_regular_file_stamped(file, "packed records file")
        return cls(file, read_lines(data, file), stamp, hashlib.sha256(data).hexdigest())

    def __getstate__(self) -> dict:  # the dashboard's loader process sends the run back pickled
        return {**self.__dict__, "_fd": None}

    def _line(self, start: int, stop: int) -> bytes:
        """The bytes ``start:stop`` of the file, when it is still the file that was loaded."""
        if self._fd is None:
            try:
                fd = os.open(self.root, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
            except OSError:
                raise InputError([self._changed()]) from None
            self._fd = fd
            weakref.finalize(self, os.close, fd)
        if stamp_of(os.fstat(self._fd)) != self._stamp:
            raise InputError([self._changed()])
        return os.pread(self._fd, stop - start, start)

    def _changed(self) -> Problem:
        return Problem(
            self.root, "", "", "changed or moved since it was read (another program wrote to it): run the command again"
        )

    def path(self, model: str, item: str, attempt: str) -> str:
        return records_file(self.root, model, item, attempt)

    def exists(self, path: str) -> bool:
        return path in self._lines

    def read(self, model: str, item: str, attempt: str) -> tuple[str, bytes | None]:
        path = self.path(model, item, attempt)
        return path, self.read_path(path)

    def read_path(self, path: str) -> bytes | None:
        found = self._lines.get(path)
        if found is None:
            return None
        line = self._line(found[1], found[2])
        return bytes(LINE.decode(line).records)  # checked when loaded, from the same file

    def shown(self, path: str) -> str:
        """How a message names the line ``path`` stands for: the packed file and the line."""
        found = self._lines.get(path)
        return path if found is None else f"{self.root} line {found[0]}"

    def located(self, problems: list[Problem]) -> list[Problem]:
        """Problems of the records of a line (named by the path it stands for) as problems of the
        packed file at that line: 'records.jsonl: line 5, record 2 ('G1'): field 'A': ...'."""
        out = []
        for p in problems:
            found = self._lines.get(p.file)
            if found is None:
                out.append(p)
                continue
            # a syntax error inside the records is placed within them: 'line 5, records at line 1 column 9'
            inner = f"records at {p.where}" if p.where.startswith("line ") else p.where
            where = f"line {found[0]}" + (f", {inner}" if inner else "")
            out.append(Problem(self.root, where, p.field, p.message))
        return out

    def listing(self) -> RecordsListing:
        """As a records folder's walk lists its files: the path parts under the records folder of the
        file each line stands for."""
        prefix = len(self.root) + 1
        return RecordsListing(json_files=[tuple(path[prefix:].split("/")) for path in self._lines])


RecordsSource = RecordsRoot | PackedRecords


def open_records(path: str | os.PathLike) -> RecordsSource:
    """The records of a run: a records folder, or a packed records file (read and checked now)."""
    return PackedRecords.load(path) if is_packed(path) else RecordsRoot(path)


def read_lines(data: bytes, file: str) -> dict[str, tuple[int, int, int]]:
    """Every line of a packed records file checked (docs/formats.md#packed-records): JSON of the
    line's fields, each once, names that could stand in a path, a list of records, no second line
    for one (model, item, attempt). The path each line stands for -> (line number, its first byte,
    the byte after it)."""
    lines: dict[str, tuple[int, int, int]] = {}
    first: dict[tuple[str, str, str], int] = {}
    problems: list[Problem] = []
    start = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    number, end = 0, len(data)
    while start < end:
        stop = data.find(b"\n", start)
        stop = end if stop < 0 else stop
        number += 1
        found, key = line_problems(data[start:stop], file, number)
        line_start, start = start, stop + 1
        if found:
            problems.extend(found)
            continue
        assert key is not None
        if key in first:
            problems.append(Problem(file, f"line {number}", "", f"line {first[key]} holds the same {names_of(key)}"))
            continue
        first[key] = number
        lines[records_file(file, *key)] = (number, line_start, stop)
    if number == 0:
        problems.append(Problem(file, "", "", "file is empty: a packed records file holds one line per records file"))
    opens = data[3 if data.startswith(b"\xef\xbb\xbf") else 0 :].lstrip()[:1]
    if problems and not lines and opens != b"{" and all(p.message.startswith("invalid JSON") for p in problems):
        problems = [  # a CSV, a records file of one attempt, ...: one problem, not one a line
            Problem(
                file,
                "",
                "",
                f"not a packed records file: {'its line is not' if number == 1 else f'none of its {number:,} lines is'} "
                "JSON (each line holds one "
                f"object of {', '.join(LINE_FIELDS)}); line 1: {problems[0].message}",
            )
        ]
    if problems:
        raise InputError(problems)
    return lines


def names_of(key: tuple[str, str, str]) -> str:
    return ", ".join(f"{name} '{value}'" for name, value in zip(NAMES, key, strict=True))


def line_problems(line: bytes, file: str, number: int) -> tuple[list[Problem], tuple[str, str, str] | None]:
    """The problems of one line, or none and its (model, item, attempt)."""
    at = f"line {number}"
    if line.isspace() or not line:
        return [Problem(file, at, "", "empty line: each line holds one records file")], None
    try:
        value = LINE.decode(line)
    except msgspec.ValidationError:
        unknown = unknown_fields(line)
        if unknown:
            return [
                Problem(file, at, key, f"unknown field: a line holds {', '.join(LINE_FIELDS)}") for key in unknown
            ], None
        return [relined(p, number) for p in problems_of(line, PackedLine[msgspec.Raw], file, at)], None
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError) as exc:
        return [relined(syntax_problem(exc, line, file), number)], None
    try:
        check_duplicate_keys(line, msgspec.json.encode(value), file)
    except InputError as exc:
        return [relined(p, number) for p in exc.problems], None
    found = []
    for name in NAMES:
        problem = check_name(getattr(value, name), name)
        if problem:
            found.append(Problem(file, at, name, problem))
    first = bytes(memoryview(value.records)[:1])
    if first != b"[":
        kind = {b"{": "object", b'"': "string", b"n": "null", b"t": "true", b"f": "false"}.get(first, "number")
        found.append(Problem(file, at, "records", f"expected a JSON list of instance records, found {kind}"))
    if found:
        return found, None
    return [], (value.model, value.item, value.attempt)


def unknown_fields(line: bytes) -> list[str]:
    """The keys of a line's object that are no field of a line (a line that is an object at all)."""
    try:
        keys = msgspec.json.decode(line, type=dict[str, msgspec.Raw])
    except (msgspec.DecodeError, msgspec.ValidationError):
        return []
    return [key for key in keys if key not in LINE_FIELDS]


def relined(problem: Problem, number: int) -> Problem:
    """A problem found in one line's bytes (its own 'line 1 column N', or no place) put at ``number``."""
    where = problem.where
    if where.startswith("line 1 column "):
        where = f"line {number} column {where.removeprefix('line 1 column ')}"
    elif not where.startswith(f"line {number}"):
        where = f"line {number}" + (f", {where}" if where else "")
    return Problem(problem.file, where, problem.field, problem.message)
