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
from itertools import repeat
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


class Record(msgspec.Struct, gc=False, omit_defaults=True):
    """SPEC 2.3: one instance of one solver attempt. Extra keys are ignored; JSON numbers are
    finite doubles (NaN is not JSON, 1e400 is out of range), ints are accepted for A.
    ``omit_defaults``: encoding a record never adds a key, the cheap duplicate-key check
    (``decode.reject_duplicate_keys``)."""

    instance: Annotated[str, msgspec.Meta(min_length=1)]
    status: RecordStatus
    A: float | None = None
    solved: bool | None = None


RECORDS = msgspec.json.Decoder(list[Record])


def status_names(codes: np.ndarray) -> list[str]:
    return list(map(RECORD_STATUSES.__getitem__, codes.tolist()))


@dataclass
class Records:
    """Checked instance records of one attempt: names, status codes and the value of each ``ok``
    record (for a solve task 1 solved, 0 not; NaN where the status is a failure)."""

    file: str
    names: list[str]
    codes: np.ndarray  # uint8 codes into RECORD_STATUSES
    A: np.ndarray

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


def read_records(data: bytes, file: str, kind: str) -> Records:
    """Decode and check a records file's bytes (SPEC 2.3 / 3); raises InputError listing every
    bad record."""
    records, positions, bad = decode_items(data, Record, file, "record", RECORDS, "instance records")
    names = list(map(attrgetter("instance"), records))
    codes = np.frombuffer(bytes(map(STATUS_CODE.__getitem__, map(attrgetter("status"), records))), dtype=np.uint8)
    A = np.array(list(map(attrgetter("A"), records)), dtype=np.float64).reshape(-1)  # null -> NaN
    solved = None
    if kind == "solve":
        solved = np.array(list(map(attrgetter("solved"), records)), dtype=np.float64).reshape(-1)
    found = record_problems(file, names, codes, A, solved, positions)
    if found or bad:
        raise InputError([problem for _, problem in sorted(bad + found, key=lambda f: f[0])])
    ok = codes == 0
    value = A if solved is None else np.where(np.isnan(solved), A, solved)
    return Records(file, names, codes, np.where(ok, value, np.nan))


def parse_records(raw: object, file: str, kind: str) -> Records:
    """``read_records`` for records already in memory (the Python API, tests, generators)."""
    return read_records(msgspec.json.encode(raw), file, kind)


def record_problems(
    file: str,
    names: list[str],
    codes: np.ndarray,
    A: np.ndarray,
    solved: np.ndarray | None,
    positions: list[int] | None = None,
) -> list[tuple[int, Problem]]:
    """The rules of SPEC 2.3 and 3 on whole columns, as (record number, problem) in record order:
    no incomplete status, unique instance names, an ``ok`` record has a usable value (``solved``
    given: a solve task). ``positions`` are the records' numbers in the file (default 0, 1, …)."""
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
    if len(set(names)) != len(names):
        first: dict[str, int] = {}
        for i, name in enumerate(names):
            if name in first:
                at = first[name] if positions is None else positions[first[name]]
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
    flagged.sort(key=lambda f: (f[0], f[1]))
    number = (lambda i: i) if positions is None else positions.__getitem__
    return [
        (number(i), Problem(file, f"record {number(i)} ('{names[i]}')", field, message))
        for i, _, field, message in flagged
    ]


def shown(x: float) -> str:
    """A value as the user wrote it, as far as a double can tell (2, not 2.0)."""
    return repr(int(x)) if x.is_integer() and abs(x) < 2**53 else repr(float(x))


def score_file(ref: TaskReference, path: Path) -> TaskScore:
    """One records file scored against its task (SPEC 3); raises InputError naming its problems."""
    return score_task(ref, read_records(read_bytes(path, "records file"), str(path), ref.kind))


def instance_z(A: np.ndarray, mu: np.ndarray, scale: np.ndarray, direction: str) -> np.ndarray:
    """SPEC 3: z = (A - mu)/scale when maximizing, (mu - A)/scale when minimizing."""
    return (A - mu) / scale if direction == "maximize" else (mu - A) / scale


def instance_phi(z: np.ndarray) -> np.ndarray:
    """SPEC 3: instance score Phi(z), the standard normal CDF; a failure (z NaN) scores 0."""
    phi = ndtr(z)
    phi[np.isnan(z)] = 0.0
    return phi


def score_task(ref: TaskReference, records: Records) -> TaskScore:
    """Score one attempt: every scored reference instance needs a record (else rejected); records
    of other instances are listed as unscored."""
    n = ref.n_scored
    if records.names == ref.names:  # in reference order: nothing to look up
        take = np.arange(n, dtype=np.int64)
        unscored: list[str] = []
    else:
        at = np.fromiter(map(ref.position.get, records.names, repeat(-1)), dtype=np.int64, count=len(records.names))
        take = np.full(n, -1, dtype=np.int64)
        scored = at >= 0
        take[at[scored]] = np.flatnonzero(scored)
        unscored = [records.names[j] for j in np.flatnonzero(~scored).tolist()]
    missing = np.flatnonzero(take < 0)
    if missing.size:
        listed = ", ".join(ref.names[i] for i in missing[:MAX_LISTED])
        more = f" and {missing.size - MAX_LISTED} more" if missing.size > MAX_LISTED else ""
        message = f"{missing.size} scored instance(s) of task '{ref.task}' have no record: {listed}{more}"
        raise InputError([Problem(records.file, "", "instance", message)])
    A = records.A[take]
    codes = records.codes[take]
    with np.errstate(over="ignore"):
        z = instance_z(A, ref.mu, ref.scale, ref.direction)
    overflow = np.flatnonzero(np.isinf(z))
    if overflow.size:
        i = int(overflow[0])
        raise InputError(
            [
                Problem(
                    records.file,
                    f"record {int(take[i])} ('{ref.names[i]}')",
                    "A",
                    f"z = (A - mu)/scale overflows (A={A[i]!r}, mu={ref.mu[i]!r}, scale={ref.scale[i]!r})",
                )
            ]
        )
    phi = instance_phi(z)
    relative = math.fsum(phi.tolist()) / n
    return TaskScore(ref, codes, A, z, phi, relative, unscored)


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


def solver_score_bytes(score: TaskScore, suite: str, reference_id: str) -> bytes:
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
