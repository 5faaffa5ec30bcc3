"""Solver relative score against the fixed reference (SPEC sections 2.3 and 3).

Instance score = Phi(z), z = (A - mu)/scale when maximizing, (mu - A)/scale
when minimizing; a solver failure scores 0; the task's relative_score is the
mean over the reference's scored instances. Records are checked in one fast
pass; a record that fails it is re-validated with the pydantic model to word
the problem.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import repeat
from operator import eq, is_, is_not
from pathlib import Path

import numpy as np
from pydantic import ValidationError
from scipy.special import ndtr

from .errors import InputError, Problem, Problems
from .jsonio import compact_object_with_array, load_json
from .models import InstanceRecord, problems_from_validation
from .reference import TaskReference
from .vocab import FIRST_INCOMPLETE_CODE, INCOMPLETE_STATUSES, RECORD_STATUSES, STATUS_CODE

_INCOMPLETE = frozenset(INCOMPLETE_STATUSES)
MAX_LAYOUTS = 64  # record orders batched per task; files in further orders are scored one by one
_A_TYPES = {int, float, type(None)}
_SOLVED_TYPES = {bool, type(None)}
MAX_LISTED = 20


def column(records: list, key: str) -> list:
    """``[r.get(key) for r in records]`` in one C-level pass (dict.get unbound: no method lookup per
    record, 4x faster than a methodcaller here); TypeError when a record is not an object."""
    return list(map(dict.get, records, repeat(key)))


def extend_column(out: list, records: list, key: str) -> None:
    out.extend(map(dict.get, records, repeat(key)))


def status_codes(statuses) -> np.ndarray:
    """Statuses as uint8 codes into RECORD_STATUSES (one byte per record instead of a str)."""
    return np.frombuffer(bytes(map(STATUS_CODE.__getitem__, statuses)), dtype=np.uint8)


def status_names(codes: np.ndarray) -> list[str]:
    return list(map(RECORD_STATUSES.__getitem__, codes.tolist()))


@dataclass
class Records:
    """Parsed instance records of one attempt: names, status codes and values (NaN where not ok)."""

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


def _is_number(v) -> bool:
    return type(v) is int or type(v) is float


def record_value(rec: dict, kind: str) -> tuple[float | None, str | None]:
    """The value A of an ``ok`` record (SPEC 2.3): a finite A, or for ``solve`` tasks solved / A in {0, 1}."""
    a = rec.get("A")
    solved = rec.get("solved")
    if a is not None and not _is_number(a):
        return None, "A must be a number"
    if solved is not None and type(solved) is not bool:
        return None, "solved must be true or false"
    if kind == "solve":
        if solved is not None:
            if a is not None and float(a) != float(solved):
                return None, f"solved={str(solved).lower()} disagrees with A={a!r}"
            return (1.0 if solved else 0.0), None
        if a is None:
            return None, "an 'ok' record of a solve task needs 'solved' (true/false) or A in {0, 1}"
        if a not in (0, 1):
            return None, f"A of a solve task must be 0 or 1, got {a!r}"
        return float(a), None
    if a is None:
        return None, "an 'ok' record needs a finite value A"
    a = float(a)
    if not math.isfinite(a):
        return None, "A must be finite"
    return a, None


def record_values(status: list, a_list: list, solved: list, kind: str) -> tuple[np.ndarray, np.ndarray] | None:
    """Bulk check of the status, A and solved columns of one or many files' records (SPEC 2.3).

    Returns (values, status codes), values NaN where the status is not ``ok``, or None when
    anything is off.
    """
    ok = np.fromiter(map(eq, status, repeat("ok")), dtype=bool, count=len(status))
    codes = np.zeros(len(status), dtype=np.uint8)  # ok is code 0; the few others are looked up
    others = np.flatnonzero(~ok)
    try:
        codes[others] = [STATUS_CODE[status[i]] for i in others.tolist()]
    except (KeyError, TypeError):  # a status outside the contract, or not even a str
        return None
    if codes.size and codes.max() >= FIRST_INCOMPLETE_CODE:
        return None
    if set(map(type, a_list)) - _A_TYPES:
        return None
    if solved.count(None) != len(solved) and set(map(type, solved)) - _SOLVED_TYPES:
        return None
    with np.errstate(over="ignore"):
        a = np.array(a_list, dtype=np.float64) if a_list else np.zeros(0)
    if kind == "solve":
        has_solved = np.fromiter(map(is_not, solved, repeat(None)), dtype=bool, count=len(solved))
        solved_value = np.fromiter(map(is_, solved, repeat(True)), dtype=np.float64, count=len(solved))
        has_a = ~np.isnan(a)
        a_ok = (a == 0.0) | (a == 1.0)
        if np.any(ok & ~has_solved & ~(has_a & a_ok)) or np.any(ok & has_solved & has_a & (a != solved_value)):
            return None
        value = np.where(has_solved, solved_value, a)
    else:
        if not np.all(np.isfinite(a[ok])):
            return None
        value = a
    return np.where(ok, value, np.nan), codes


def parse_records_fast(raw: list, file: str, kind: str) -> Records | None:
    """Bulk check of a records list; None when anything is off (the record-by-record pass words it).

    Accepts exactly what ``parse_records_slow`` accepts without a problem.
    """
    if set(map(type, raw)) - {dict}:
        return None
    # C-level passes over the records (map + dict.get), no Python loop per record
    names = column(raw, "instance")
    if set(map(type, names)) - {str} or (names and not all(names)) or len(set(names)) != len(names):
        return None
    checked = record_values(column(raw, "status"), column(raw, "A"), column(raw, "solved"), kind)
    if checked is None:
        return None
    values, codes = checked
    return Records(file, names, codes, values)


def parse_records(raw, file: str, kind: str) -> Records:
    """Validate a records list (SPEC 2.3 / 3); raises InputError listing every bad record."""
    if not isinstance(raw, list):
        raise InputError(
            [Problem(file, "", "", f"expected a JSON list of instance records, found {type(raw).__name__}")]
        )
    fast = parse_records_fast(raw, file, kind)
    return fast if fast is not None else parse_records_slow(raw, file, kind)


def parse_records_slow(raw: list, file: str, kind: str) -> Records:
    """Record by record, naming each problem (record index, instance, field)."""
    problems = Problems()
    names: list[str] = []
    statuses: list[str] = []
    values = np.full(len(raw), np.nan)
    seen: dict[str, int] = {}
    for i, rec in enumerate(raw):
        where = f"record {i}"
        if not isinstance(rec, dict):
            problems.add(file, where, "", f"expected an object, found {type(rec).__name__}")
            continue
        name = rec.get("instance")
        status = rec.get("status")
        if type(name) is not str or not name or status not in RECORD_STATUSES:
            try:
                InstanceRecord.model_validate(rec)
            except ValidationError as exc:
                problems.extend(problems_from_validation(exc, file, where=where))
                continue
        if status in _INCOMPLETE:
            problems.add(
                file,
                f"{where} ('{name}')",
                "status",
                f"'{status}' is an incomplete observation: repair it before scoring",
            )
        if name in seen:
            problems.add(
                file, f"{where} ('{name}')", "instance", f"duplicate instance name (first at record {seen[name]})"
            )
        else:
            seen[name] = i
        if status == "ok":
            a, err = record_value(rec, kind)
            if err:
                field = "solved" if "solved" in err else "A"
                problems.add(file, f"{where} ('{name}')", field, err)
            else:
                values[i] = a
        names.append(name)
        statuses.append(status)
    problems.raise_if_any()
    return Records(file, names, status_codes(statuses), values)


def score_file(ref: TaskReference, path: Path) -> TaskScore:
    """One records file scored against its task (SPEC 3); raises InputError naming its problems."""
    result = score_attempts(ref, [(str(path), load_json(path, "records file"))])[0]
    if isinstance(result, InputError):
        raise result
    return result


def instance_z(A: np.ndarray, mu: np.ndarray, scale: np.ndarray, direction: str) -> np.ndarray:
    """SPEC 3: z = (A - mu)/scale when maximizing, (mu - A)/scale when minimizing."""
    return (A - mu) / scale if direction == "maximize" else (mu - A) / scale


def instance_phi(z: np.ndarray) -> np.ndarray:
    """SPEC 3: instance score Phi(z), the standard normal CDF; a failure (z NaN) scores 0."""
    return np.where(np.isnan(z), 0.0, ndtr(np.nan_to_num(z, nan=0.0)))


def score_task(ref: TaskReference, records: Records) -> TaskScore:
    """Score one attempt: every scored reference instance needs a record (else rejected)."""
    n = ref.n_scored
    unscored: list[str] = []
    in_order = records.names == ref.names  # records in reference order: nothing to look up
    if in_order:
        take = np.arange(n, dtype=np.int64)
    else:
        pos = ref.position
        take = np.full(n, -1, dtype=np.int64)
        for j, name in enumerate(records.names):
            i = pos.get(name)
            if i is None:
                unscored.append(name)
            else:
                take[i] = j
    missing = np.flatnonzero(take < 0)
    if missing.size:
        shown = ", ".join(ref.names[i] for i in missing[:MAX_LISTED])
        more = f" and {missing.size - MAX_LISTED} more" if missing.size > MAX_LISTED else ""
        raise InputError(
            [
                Problem(
                    records.file,
                    "",
                    "instance",
                    f"{missing.size} scored instance(s) of task '{ref.task}' have no record: {shown}{more}",
                )
            ]
        )
    A = records.A[take]
    codes = records.codes if in_order else records.codes[take]
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


def score_one(ref: TaskReference, raw, file: str) -> TaskScore | InputError:
    try:
        return score_task(ref, parse_records(raw, file, ref.kind))
    except InputError as exc:
        return exc


def score_attempts(ref: TaskReference, attempts: list[tuple[str, object]]) -> list[TaskScore | InputError]:
    """Score many attempts of one task (SPEC 3), each given as (file, parsed JSON).

    Files that list the same instances in the same order share one layout: it is
    checked and matched to the reference once, and their records are checked and
    scored together as one (attempts x instances) array. Any other file, and every
    file of a batch that fails the bulk check, goes through ``parse_records`` and
    ``score_task`` alone, which word the problems. Each attempt's result is the
    same either way, to the bit.
    """
    results: list[TaskScore | InputError | None] = [None] * len(attempts)
    groups: list[tuple[list, list[int]]] = []  # (instance names in record order, attempts in that order)
    for i, (_, raw) in enumerate(attempts):
        if type(raw) is not list:
            continue
        try:
            names = column(raw, "instance")
        except TypeError:  # a record that is not an object
            continue
        for key, members in groups:
            if names == key:
                members.append(i)
                break
        else:
            if len(groups) < MAX_LAYOUTS:
                groups.append((names, [i]))
    for names, members in groups:
        layout = match_layout(ref, names)
        if layout is not None:
            score_batch(ref, [attempts[i][1] for i in members], layout, members, results)  # type: ignore[misc]
    for i, (file, raw) in enumerate(attempts):
        if results[i] is None:
            results[i] = score_one(ref, raw, file)
    return results  # type: ignore[return-value]


@dataclass
class Layout:
    """Where a records file's instances sit: ``take[i]`` is the record of scored instance i."""

    width: int
    take: np.ndarray | None  # None: the records are the scored instances in reference order
    unscored: list[str]


def match_layout(ref: TaskReference, names: list) -> Layout | None:
    """The layout of a list of record names, or None when it has a problem (a name not a
    non-empty str, repeated, or a scored instance without a record): such files are scored
    alone, to word it."""
    if names == ref.names:
        return Layout(len(names), None, [])
    if set(map(type, names)) - {str} or not all(names) or len(set(names)) != len(names):
        return None
    position = ref.position
    take = [-1] * ref.n_scored
    unscored = []
    for j, name in enumerate(names):
        i = position.get(name)
        if i is None:
            unscored.append(name)
        else:
            take[i] = j
    return None if -1 in take else Layout(len(names), np.array(take, dtype=np.int64), unscored)


def score_batch(ref: TaskReference, raws: list[list[dict]], layout: Layout, slots: list[int], results: list) -> None:
    """Check and score files of one layout together; ``results[slots[k]]`` gets file k's TaskScore.

    Nothing is filled when the bulk check fails, nor for a file whose z overflows.
    """
    n, width = ref.n_scored, layout.width
    status: list = []
    a_list: list = []
    solved: list = []
    for raw in raws:  # one C-level pass per column and file
        extend_column(status, raw, "status")
        extend_column(a_list, raw, "A")
        extend_column(solved, raw, "solved")
    checked = record_values(status, a_list, solved, ref.kind)
    if checked is None:
        return
    values, codes = checked
    A, codes = values.reshape(len(raws), width), codes.reshape(len(raws), width)
    if layout.take is not None:
        A, codes = A[:, layout.take], codes[:, layout.take]
    with np.errstate(over="ignore"):
        z = instance_z(A, ref.mu, ref.scale, ref.direction)
    overflow = np.isinf(z).any(axis=1).tolist()
    phi = instance_phi(z)
    for k, (slot, phi_row) in enumerate(zip(slots, phi.tolist(), strict=True)):
        if not overflow[k]:  # an overflowing attempt is worded by score_task
            results[slot] = TaskScore(ref, codes[k], A[k], z[k], phi[k], math.fsum(phi_row) / n, list(layout.unscored))


def instance_rows(score: TaskScore, lo: int = 0, hi: int | None = None) -> list[dict]:
    """SPEC 7: the per-instance entries ``instances[lo:hi]`` (A and z null for a failure)."""
    ref = score.ref
    hi = ref.n_scored if hi is None else hi
    ok = (~np.isnan(score.z[lo:hi])).tolist()
    return [
        {
            "instance": name,
            "status": st,
            "A": a if good else None,
            "mu": mu,
            "s": s,
            "scale": sc,
            "z": z if good else None,
            "phi": phi,
        }
        for name, st, a, mu, s, sc, z, phi, good in zip(
            ref.names[lo:hi],
            status_names(score.codes[lo:hi]),
            score.A[lo:hi].tolist(),
            ref.mu[lo:hi].tolist(),
            ref.s[lo:hi].tolist(),
            ref.scale[lo:hi].tolist(),
            score.z[lo:hi].tolist(),
            score.phi[lo:hi].tolist(),
            ok,
            strict=True,
        )
    ]


def output_head(score: TaskScore, suite: str, reference_id: str) -> dict:
    ref = score.ref
    return {
        "task": ref.task,
        "suite": suite,
        "reference_id": reference_id,
        "kind": ref.kind,
        "direction": ref.direction,
        "relative_score": score.relative_score,
        "n_scored": ref.n_scored,
    }


def solver_score_output(score: TaskScore, suite: str, reference_id: str) -> dict:
    """SPEC 7, solver-score output. Every float is finite by construction (NaN only as null)."""
    return {
        **output_head(score, suite, reference_id),
        "instances": instance_rows(score),
        "unscored_instances": score.unscored_instances,
    }


def solver_score_chunks(score: TaskScore, suite: str, reference_id: str, rows_per_chunk: int = 1 << 12):
    """The same document as compact JSON, built a chunk of instances at a time (for 10^6 instances)."""
    n = score.ref.n_scored
    chunks = (instance_rows(score, lo, min(n, lo + rows_per_chunk)) for lo in range(0, n, rows_per_chunk))
    return compact_object_with_array(
        output_head(score, suite, reference_id), "instances", chunks, {"unscored_instances": score.unscored_instances}
    )


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
