"""A solver attempt's instance records: their type, the decoding of one or many files into columns,
and the record rules (no incomplete status, unique names, a usable value)."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain
from operator import attrgetter
from typing import Annotated

import msgspec
import numpy as np

from tcsexam.scoring.errors import InputError, Problem
from tcsexam.scoring.formats.decode import decode_items
from tcsexam.scoring.vocab import FIRST_INCOMPLETE_CODE, RECORD_STATUSES, STATUS_CODE, RecordStatus

MAX_LISTED = 20  # scored instances without a record named in the message; the rest are counted


# docs/formats.md#instance-records. JSON numbers are finite doubles (NaN is not JSON, 1e400 is out of range), ints are
# accepted for A. ``omit_defaults``: encoding a record never adds a key, the cheap duplicate-key check
# (``decode.reject_duplicate_keys``). The docstring is the schema's description (``tcsexam schema records``).
class Record(msgspec.Struct, gc=False, omit_defaults=True):
    """One instance of one solver attempt: its name, its status and, when it ran, the objective
    value A it reached (or whether it solved it); extra keys are ignored."""

    instance: Annotated[str, msgspec.Meta(min_length=1)]
    status: RecordStatus
    A: float | None = None
    solved: bool | None = None


RECORDS = msgspec.json.Decoder(list[Record])


def status_names(codes: np.ndarray) -> list[str]:
    return list(map(RECORD_STATUSES.__getitem__, codes.tolist()))


@dataclass
class Records:
    """Checked instance records of one or more files of one task, as columns over all their
    records: file k's records are ``bounds[k]:bounds[k + 1]``. Names, status codes and the value
    of each ``ok`` record (for a solve task 1 solved, 0 not; NaN where the status is a failure)."""

    files: list[str]
    bounds: np.ndarray  # int64, len(files) + 1
    names: list[str]
    codes: np.ndarray  # uint8 codes into RECORD_STATUSES
    A: np.ndarray

    @property
    def file(self) -> str:
        return self.files[0]

    @property
    def status(self) -> list[str]:
        return status_names(self.codes)


def check_records(
    datas: list[bytes], files: list[str], kind: str, incomplete_ok: bool = False
) -> tuple[Records, list[list[Problem]]]:
    """Decode and check the bytes of records files of one task (docs/formats.md#instance-records and docs/rules.md#solver-score), all files' records
    as one set of columns. Returns the records of the files without a problem, and every problem
    of each file (in the order of ``files``), so that a caller can list them all at once.
    ``incomplete_ok``: an incomplete observation is kept as a record, not a problem (what makes an
    attempt not ready to score, docs/commands.md, is then read off the records)."""
    decoded: list[list[Record]] = []
    renumbered: list[tuple[int, list[int]]] = []  # (file, each good record's number) where some were bad
    problems: list[list[tuple[int, Problem]]] = []
    for k, (data, file) in enumerate(zip(datas, files, strict=True)):
        try:
            records, positions, bad = decode_items(
                data, Record, file, "record", RECORDS, "instance records", name_key="instance"
            )
        except InputError as exc:
            records, positions, bad = [], None, [(-1, p) for p in exc.problems]
        decoded.append(records)
        if positions is not None:
            renumbered.append((k, positions))
        problems.append(bad)
    counts = np.fromiter(map(len, decoded), dtype=np.int64, count=len(decoded))
    bounds = np.concatenate(([0], np.cumsum(counts)))
    number = np.arange(bounds[-1]) - np.repeat(bounds[:-1], counts)  # each record's number in its file
    for k, positions in renumbered:
        number[bounds[k] : bounds[k + 1]] = positions
    every = list(chain.from_iterable(decoded))
    names = list(map(attrgetter("instance"), every))
    codes = np.frombuffer(bytes(map(STATUS_CODE.__getitem__, map(attrgetter("status"), every))), dtype=np.uint8)
    A = np.array(list(map(attrgetter("A"), every)), dtype=np.float64).reshape(-1)  # null -> NaN
    solved = None
    if kind == "solve":
        solved = np.array(list(map(attrgetter("solved"), every)), dtype=np.float64).reshape(-1)
    for k, found in record_problems(files, bounds, names, codes, A, solved, number, incomplete_ok):
        problems[k].extend(found)
    ok = codes == 0
    value = A if solved is None else np.where(np.isnan(solved), A, solved)
    value = np.where(ok, value, np.nan)
    clean = [k for k, found in enumerate(problems) if not found]
    if len(clean) < len(files):  # keep the records of the files without a problem
        keep = np.zeros(len(names), dtype=bool)
        for k in clean:
            keep[bounds[k] : bounds[k + 1]] = True
        names = [name for name, kept in zip(names, keep.tolist(), strict=True) if kept]
        codes, value = codes[keep], value[keep]
        bounds = np.concatenate(([0], np.cumsum(counts[clean])))
    listed = [[p for _, p in sorted(found, key=lambda f: f[0])] for found in problems]
    return Records([files[k] for k in clean], bounds, names, codes, value), listed


def read_records(data: bytes, file: str, kind: str, incomplete_ok: bool = False) -> Records:
    """Decode and check a records file's bytes (docs/formats.md#instance-records and docs/rules.md#solver-score); raises InputError listing every
    bad record. The one-file case of ``check_records``."""
    records, problems = check_records([data], [file], kind, incomplete_ok)
    if problems[0]:
        raise InputError(problems[0])
    return records


def parse_records(raw: object, file: str, kind: str) -> Records:
    """``read_records`` for records already in memory (the Python API, tests, generators)."""
    return read_records(msgspec.json.encode(raw), file, kind)


def record_problems(
    files: list[str],
    bounds: np.ndarray,
    names: list[str],
    codes: np.ndarray,
    A: np.ndarray,
    solved: np.ndarray | None,
    number: np.ndarray,
    incomplete_ok: bool = False,
) -> list[tuple[int, list[tuple[int, Problem]]]]:
    """The rules of docs/formats.md#instance-records and docs/rules.md#solver-score on whole columns (the records of every file, file k's at
    ``bounds[k]:bounds[k + 1]``), as (file, [(record number, problem)]) in record order: no
    incomplete status, unique instance names within a file, an ``ok`` record has a usable value
    (``solved`` given: a solve task). ``number`` is each record's number in its file."""
    flagged: list[tuple[int, int, str, str]] = []  # (record, rule, field, message)

    def flag(mask: np.ndarray, rule: int, field: str, message) -> None:
        if mask.any():
            flagged.extend((i, rule, field, message(i)) for i in np.flatnonzero(mask).tolist())

    flag(
        codes >= (len(RECORD_STATUSES) if incomplete_ok else FIRST_INCOMPLETE_CODE),
        0,
        "status",
        lambda i: f"'{RECORD_STATUSES[codes[i]]}' is an incomplete observation: repair it before scoring",
    )
    starts = bounds.tolist()
    for k in range(len(files)):
        lo, hi = starts[k], starts[k + 1]
        part = names if len(files) == 1 else names[lo:hi]
        if len(set(part)) != len(part):
            first: dict[str, int] = {}
            for i, name in enumerate(part, lo):
                if name in first:
                    at = int(number[first[name]])
                    flagged.append((i, 1, "instance", f"duplicate instance name (first at record {at})"))
                else:
                    first[name] = i
    ok = codes == 0
    has_a = ~np.isnan(A)
    if solved is None:
        flag(ok & ~has_a, 2, "A", lambda i: "an 'ok' record needs a finite value A")
    else:
        has_solved = ~np.isnan(solved)
        flag(
            ok & has_solved & has_a & (solved != A),
            2,
            "solved",
            lambda i: f"solved={'true' if solved[i] else 'false'} disagrees with A={shown(float(A[i]))}",
        )
        flag(
            ok & ~has_solved & ~has_a,
            2,
            "A",
            lambda i: "an 'ok' record of a solve task needs 'solved' (true/false) or A in {0, 1}",
        )
        flag(
            ok & ~has_solved & has_a & (A != 0) & (A != 1),
            2,
            "A",
            lambda i: f"A of a solve task must be 0 or 1, got {shown(float(A[i]))}",
        )
    if not flagged:
        return []
    flagged.sort(key=lambda f: (f[0], f[1]))
    in_file = np.searchsorted(bounds, [f[0] for f in flagged], side="right") - 1
    by_file: dict[int, list[tuple[int, Problem]]] = {}
    for k, (i, _, field, message) in zip(in_file.tolist(), flagged, strict=True):
        n = int(number[i])
        by_file.setdefault(k, []).append((n, Problem(files[k], f"record {n} ('{names[i]}')", field, message)))
    return list(by_file.items())


def shown(x: float) -> str:
    """A value as the user wrote it, as far as a double can tell (2, not 2.0)."""
    return repr(int(x)) if x.is_integer() and abs(x) < 2**53 else repr(float(x))
