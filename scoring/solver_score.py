"""Solver relative score against the fixed reference (SPEC sections 2.3 and 3).

Instance score = Phi(z), z = (A - mu)/scale when maximizing, (mu - A)/scale
when minimizing; a solver failure scores 0; the task's relative_score is the
mean over the reference's scored instances. A records file is decoded by one
typed decoder (``Record``); the rules of SPEC 2.3 and 3 are then checked on
whole columns, each worded from the records it flags.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import chain, repeat
from operator import attrgetter
from pathlib import Path
from typing import Annotated

import msgspec
import numpy as np
from scipy.special import ndtr

from .decode import decode_items
from .errors import InputError, Problem
from .jsonio import read_bytes
from .reference import TaskReference
from .results import InstanceResult, SolverScoreOutput, encode
from .vocab import FIRST_INCOMPLETE_CODE, RECORD_STATUSES, STATUS_CODE, RecordStatus

MAX_LISTED = 20  # scored instances without a record named in the message; the rest are counted


# SPEC 2.3. JSON numbers are finite doubles (NaN is not JSON, 1e400 is out of range), ints are
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


@dataclass
class TaskScore:
    """Scores of one attempt of one task, aligned with the reference's scored instances."""

    ref: TaskReference
    codes: np.ndarray  # uint8 codes into RECORD_STATUSES
    A: np.ndarray  # NaN where the status is a failure
    z: np.ndarray  # NaN where the status is a failure
    phi: np.ndarray
    relative_score: float
    unscored_instances: list[str]

    @property
    def status(self) -> list[str]:
        return status_names(self.codes)


def check_records(datas: list[bytes], files: list[str], kind: str) -> tuple[Records, list[list[Problem]]]:
    """Decode and check the bytes of records files of one task (SPEC 2.3 / 3), all files' records
    as one set of columns. Returns the records of the files without a problem, and every problem
    of each file (in the order of ``files``), so that a caller can list them all at once."""
    decoded: list[list[Record]] = []
    renumbered: list[tuple[int, list[int]]] = []  # (file, each good record's number) where some were bad
    problems: list[list[tuple[int, Problem]]] = []
    for k, (data, file) in enumerate(zip(datas, files, strict=True)):
        try:
            records, positions, bad = decode_items(data, Record, file, "record", RECORDS, "instance records")
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
    for k, found in record_problems(files, bounds, names, codes, A, solved, number):
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


def read_records(data: bytes, file: str, kind: str) -> Records:
    """Decode and check a records file's bytes (SPEC 2.3 / 3); raises InputError listing every
    bad record. The one-file case of ``check_records``."""
    records, problems = check_records([data], [file], kind)
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
) -> list[tuple[int, list[tuple[int, Problem]]]]:
    """The rules of SPEC 2.3 and 3 on whole columns (the records of every file, file k's at
    ``bounds[k]:bounds[k + 1]``), as (file, [(record number, problem)]) in record order: no
    incomplete status, unique instance names within a file, an ``ok`` record has a usable value
    (``solved`` given: a solve task). ``number`` is each record's number in its file."""
    flagged: list[tuple[int, int, str, str]] = []  # (record, rule, field, message)

    def flag(mask: np.ndarray, rule: int, field: str, message) -> None:
        if mask.any():
            flagged.extend((i, rule, field, message(i)) for i in np.flatnonzero(mask).tolist())

    flag(
        codes >= FIRST_INCOMPLETE_CODE,
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


def score_attempt_bytes(ref: TaskReference, data: bytes, file: str) -> TaskScore:
    """A records file's bytes scored against its task (SPEC 3): the one scoring of an attempt, as
    ``solver-score`` and ``fill`` (SPEC 10) both do it; raises InputError naming its problems."""
    return score_task(ref, read_records(data, file, ref.kind))


def score_file(ref: TaskReference, path: Path) -> TaskScore:
    """One records file on disk scored against its task (``score_attempt_bytes``)."""
    return score_attempt_bytes(ref, read_bytes(path, "records file"), str(path))


def instance_z(A: np.ndarray, mu: np.ndarray, scale: np.ndarray, direction: str) -> np.ndarray:
    """SPEC 3: z = (A - mu)/scale when maximizing, (mu - A)/scale when minimizing."""
    return (A - mu) / scale if direction == "maximize" else (mu - A) / scale


def instance_phi(z: np.ndarray) -> np.ndarray:
    """SPEC 3: instance score Phi(z), the standard normal CDF; a failure (z NaN) scores 0."""
    phi = ndtr(z)
    phi[np.isnan(z)] = 0.0
    return phi


def score_records(ref: TaskReference, records: Records) -> list[TaskScore | list[Problem]]:
    """Score every file of ``records`` against its task (SPEC 3), all files as one matrix: per
    file its TaskScore, or its problems. Every scored reference instance needs a record (else the
    file is rejected); records of other instances are listed as unscored."""
    n, files = ref.n_scored, len(records.files)
    at = np.fromiter(map(ref.position.get, records.names, repeat(-1)), dtype=np.int64, count=len(records.names))
    of_file = np.repeat(np.arange(files), np.diff(records.bounds))
    scored = at >= 0
    take = np.full((files, n), -1, dtype=np.int64)  # record of each file and scored instance
    take[of_file[scored], at[scored]] = np.flatnonzero(scored)
    A = np.append(records.A, np.nan)[take]  # -1 (no record) takes the NaN at the end
    codes = np.append(records.codes, np.uint8(0))[take]
    with np.errstate(over="ignore"):
        z = instance_z(A, ref.mu, ref.scale, ref.direction)
    phi = instance_phi(z)
    lacking: list[bool] = np.asarray((take < 0).any(axis=1)).tolist()
    overflowing: list[bool] = np.asarray(np.isinf(z).any(axis=1)).tolist()
    starts = records.bounds.tolist()
    out: list[TaskScore | list[Problem]] = []
    for k, file in enumerate(records.files):
        if lacking[k]:
            missing = np.flatnonzero(take[k] < 0)
            listed = ", ".join(ref.names[i] for i in missing[:MAX_LISTED])
            more = f" and {missing.size - MAX_LISTED} more" if missing.size > MAX_LISTED else ""
            message = f"{missing.size} scored instance(s) of task '{ref.task}' have no record: {listed}{more}"
            out.append([Problem(file, "", "instance", message)])
        elif overflowing[k]:
            i = int(np.flatnonzero(np.isinf(z[k]))[0])
            record = int(take[k, i]) - starts[k]
            out.append(
                [
                    Problem(
                        file,
                        f"record {record} ('{ref.names[i]}')",
                        "A",
                        f"z = (A - mu)/scale overflows (A={A[k, i]!r}, mu={ref.mu[i]!r}, scale={ref.scale[i]!r})",
                    )
                ]
            )
        else:
            unscored = [records.names[j] for j in np.flatnonzero(~scored[starts[k] : starts[k + 1]]) + starts[k]]
            relative = math.fsum(phi[k].tolist()) / n
            out.append(TaskScore(ref, codes[k], A[k], z[k], phi[k], relative, unscored))
    return out


def score_task(ref: TaskReference, records: Records) -> TaskScore:
    """Score one attempt (the one-file case of ``score_records``); raises InputError naming its
    problems."""
    (result,) = score_records(ref, records)
    if isinstance(result, list):
        raise InputError(result)
    return result


def solver_score_output(score: TaskScore, suite: str, reference_id: str) -> SolverScoreOutput:
    """SPEC 7, solver-score output: one row per scored instance, A and z null for a failure."""
    ref = score.ref
    failed = np.flatnonzero(np.isnan(score.z)).tolist()
    A, z = score.A.tolist(), score.z.tolist()
    for i in failed:
        A[i] = z[i] = None
    rows = list(
        map(
            InstanceResult,
            ref.names,
            status_names(score.codes),
            A,
            ref.mu.tolist(),
            ref.s.tolist(),
            ref.scale.tolist(),
            z,
            score.phi.tolist(),
        )
    )
    return SolverScoreOutput(
        ref.task,
        suite,
        reference_id,
        ref.kind,  # type: ignore[arg-type]
        ref.direction,  # type: ignore[arg-type]
        score.relative_score,
        ref.n_scored,
        rows,
        score.unscored_instances,
    )


COMPACT_ABOVE = 100_000


def solver_score_bytes(score: TaskScore, suite: str, reference_id: str) -> bytes | bytearray:
    """The solver-score file's bytes (SPEC 7), as `solver-score` and `fill` write it: indented,
    or compact above COMPACT_ABOVE scored instances (indenting doubles a large file's size)."""
    if not output_is_finite(score):  # pragma: no cover - guarded by the input checks
        raise ValueError("a non-finite number reached the output")
    pretty = score.ref.n_scored <= COMPACT_ABOVE
    return encode(solver_score_output(score, suite, reference_id), pretty=pretty)


def output_is_finite(score: TaskScore) -> bool:
    """Checks the arrays that go into the output, so the writer can skip its walk."""
    ok = ~np.isnan(score.z)
    ref = score.ref
    return bool(
        np.isfinite(score.z[ok]).all()
        and np.isfinite(score.A[ok]).all()
        and np.isfinite(score.phi).all()
        and np.isfinite(ref.mu).all()
        and np.isfinite(ref.s).all()
        and np.isfinite(ref.scale).all()
        and math.isfinite(score.relative_score)
    )
