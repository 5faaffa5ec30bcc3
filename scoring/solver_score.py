"""Solver relative score against the fixed reference (SPEC sections 2.3 and 3).

Instance score = Phi(z), z = (A - mu)/scale when maximizing, (mu - A)/scale
when minimizing; a solver failure scores 0; the task's relative_score is the
mean over the reference's scored instances. Records are checked in one fast
pass; a record that fails it is re-validated with the pydantic model to word
the problem.
"""

from __future__ import annotations

import math
from itertools import chain, repeat
from operator import is_, is_not, methodcaller
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pydantic import ValidationError
from scipy.special import ndtr

from .errors import InputError, Problem, Problems
from .jsonio import compact_object_with_array, load_json
from .models import FAILURE_STATUSES, INCOMPLETE_STATUSES, RECORD_STATUSES, InstanceRecord, problems_from_validation
from .reference import TaskReference

_ALLOWED = ", ".join(RECORD_STATUSES)
_FAILURES = frozenset(FAILURE_STATUSES)
_INCOMPLETE = frozenset(INCOMPLETE_STATUSES)
_ALLOWED_SET = frozenset(RECORD_STATUSES)
_CANONICAL_STATUS = {s: s for s in RECORD_STATUSES}
_A_TYPES = {int, float, type(None)}
_GET_INSTANCE, _GET_STATUS = methodcaller("get", "instance"), methodcaller("get", "status")
_GET_A, _GET_SOLVED = methodcaller("get", "A"), methodcaller("get", "solved")
_SOLVED_TYPES = {bool, type(None)}
MAX_LISTED = 20


@dataclass
class Records:
    """Parsed instance records of one attempt: names, statuses and values (NaN where not ok)."""

    file: str
    names: list[str]
    status: list[str]
    A: np.ndarray


@dataclass
class TaskScore:
    """Scores of one attempt of one task, aligned with the reference's scored instances."""

    ref: TaskReference
    status: list[str]
    A: np.ndarray       # NaN where the status is a failure
    z: np.ndarray       # NaN where the status is a failure
    phi: np.ndarray
    relative_score: float
    unscored_instances: list[str]


def _is_number(v) -> bool:
    return (type(v) is int or type(v) is float)


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


def record_values(status: list, a_list: list, solved: list, kind: str) -> np.ndarray | None:
    """Bulk check of the status, A and solved columns of one or many files' records (SPEC 2.3).

    Returns the values (NaN where the status is not ``ok``) or None when anything is off.
    """
    statuses = set(status)
    if not statuses <= _ALLOWED_SET or statuses & _INCOMPLETE:
        return None
    if set(map(type, a_list)) - _A_TYPES or set(map(type, solved)) - _SOLVED_TYPES:
        return None
    with np.errstate(over="ignore"):
        a = np.array(a_list, dtype=np.float64) if a_list else np.zeros(0)
    ok = np.fromiter(map("ok".__eq__, status), dtype=bool, count=len(status))
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
    return np.where(ok, value, np.nan)


def canonical_statuses(status: list) -> list[str]:
    """One shared str per status instead of one per record (10^6 records: 51 MB less to keep)."""
    return list(map(_CANONICAL_STATUS.__getitem__, status))


def parse_records_fast(raw: list, file: str, kind: str) -> Records | None:
    """Bulk check of a records list; None when anything is off (the record-by-record pass words it).

    Accepts exactly what ``parse_records_slow`` accepts without a problem.
    """
    if set(map(type, raw)) - {dict}:
        return None
    # C-level passes over the records (map + methodcaller), no Python loop per record
    names = list(map(_GET_INSTANCE, raw))
    if set(map(type, names)) - {str} or (names and not all(names)) or len(set(names)) != len(names):
        return None
    status = list(map(_GET_STATUS, raw))
    values = record_values(status, list(map(_GET_A, raw)), list(map(_GET_SOLVED, raw)), kind)
    if values is None:
        return None
    return Records(file, names, canonical_statuses(status), values)


def parse_records(raw, file: str, kind: str) -> Records:
    """Validate a records list (SPEC 2.3 / 3); raises InputError listing every bad record."""
    if not isinstance(raw, list):
        raise InputError([Problem(file, "", "", f"expected a JSON list of instance records, found {type(raw).__name__}")])
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
            problems.add(file, f"{where} ('{name}')", "status",
                         f"'{status}' is an incomplete observation: repair it before scoring")
        if name in seen:
            problems.add(file, f"{where} ('{name}')", "instance", f"duplicate instance name (first at record {seen[name]})")
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
    return Records(file, names, statuses, values)


def load_records(path: Path, kind: str) -> Records:
    return parse_records(load_json(path, "records file"), str(path), kind)


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
        raise InputError([Problem(records.file, "", "instance",
                                  f"{missing.size} scored instance(s) of task '{ref.task}' have no record: {shown}{more}")])
    A = records.A[take]
    status = records.status if in_order else [records.status[j] for j in take.tolist()]
    with np.errstate(over="ignore"):
        z = instance_z(A, ref.mu, ref.scale, ref.direction)
    overflow = np.flatnonzero(np.isinf(z))
    if overflow.size:
        i = int(overflow[0])
        raise InputError([Problem(records.file, f"record {int(take[i])} ('{ref.names[i]}')", "A",
                                  f"z = (A - mu)/scale overflows (A={A[i]!r}, mu={ref.mu[i]!r}, scale={ref.scale[i]!r})")])
    phi = instance_phi(z)
    relative = math.fsum(phi.tolist()) / n
    return TaskScore(ref, status, A, z, phi, relative, unscored)


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
    layouts: dict[tuple[str, ...], list[int]] = {}
    for i, (_, raw) in enumerate(attempts):
        if type(raw) is list and not set(map(type, raw)) - {dict}:
            names = list(map(_GET_INSTANCE, raw))
            if not set(map(type, names)) - {str}:
                layouts.setdefault(tuple(names), []).append(i)
    for names, members in layouts.items():
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
    take: list[int] | None  # None: the records are the scored instances in reference order
    unscored: list[str]


def match_layout(ref: TaskReference, names: tuple[str, ...]) -> Layout | None:
    """The layout of a list of record names, or None when it has a problem (a name empty,
    repeated, or a scored instance without a record): such files are scored alone to word it."""
    if not all(names) or len(set(names)) != len(names):
        return None
    if len(names) == ref.n_scored and list(names) == ref.names:
        return Layout(len(names), None, [])
    position = ref.position
    take = [-1] * ref.n_scored
    unscored = []
    for j, name in enumerate(names):
        i = position.get(name)
        if i is None:
            unscored.append(name)
        else:
            take[i] = j
    return None if -1 in take else Layout(len(names), take, unscored)


def score_batch(ref: TaskReference, raws: list[list[dict]], layout: Layout, slots: list[int],
                results: list) -> None:
    """Check and score files of one layout together; ``results[slots[k]]`` gets file k's TaskScore.

    Nothing is filled when the bulk check fails, nor for a file whose z overflows.
    """
    n, width = ref.n_scored, layout.width
    flat = list(chain.from_iterable(raws))
    status = list(map(_GET_STATUS, flat))
    values = record_values(status, list(map(_GET_A, flat)), list(map(_GET_SOLVED, flat)), ref.kind)
    if values is None:
        return
    A = values.reshape(len(raws), width)
    if layout.take is not None:
        A = A[:, layout.take]
    with np.errstate(over="ignore"):
        z = instance_z(A, ref.mu, ref.scale, ref.direction)
    overflow = np.isinf(z).any(axis=1).tolist()
    phi = instance_phi(z)
    status = canonical_statuses(status)
    for k, (slot, phi_row) in enumerate(zip(slots, phi.tolist())):
        if overflow[k]:
            continue
        st = status[k * width:(k + 1) * width]
        if layout.take is not None:
            st = list(map(st.__getitem__, layout.take))
        results[slot] = TaskScore(ref, st, A[k], z[k], phi[k], math.fsum(phi_row) / n, list(layout.unscored))


def instance_rows(score: TaskScore, lo: int = 0, hi: int | None = None) -> list[dict]:
    """SPEC 7: the per-instance entries ``instances[lo:hi]`` (A and z null for a failure)."""
    ref = score.ref
    hi = ref.n_scored if hi is None else hi
    ok = (~np.isnan(score.z[lo:hi])).tolist()
    return [
        {"instance": name, "status": st, "A": a if good else None, "mu": mu, "s": s, "scale": sc,
         "z": z if good else None, "phi": phi}
        for name, st, a, mu, s, sc, z, phi, good in zip(
            ref.names[lo:hi], score.status[lo:hi], score.A[lo:hi].tolist(), ref.mu[lo:hi].tolist(),
            ref.s[lo:hi].tolist(), ref.scale[lo:hi].tolist(), score.z[lo:hi].tolist(), score.phi[lo:hi].tolist(), ok)
    ]


def output_head(score: TaskScore, suite: str, reference_id: str) -> dict:
    ref = score.ref
    return {"task": ref.task, "suite": suite, "reference_id": reference_id, "kind": ref.kind,
            "direction": ref.direction, "relative_score": score.relative_score, "n_scored": ref.n_scored}


def solver_score_output(score: TaskScore, suite: str, reference_id: str) -> dict:
    """SPEC 7, solver-score output. Every float is finite by construction (NaN only as null)."""
    return {**output_head(score, suite, reference_id), "instances": instance_rows(score),
            "unscored_instances": score.unscored_instances}


def solver_score_chunks(score: TaskScore, suite: str, reference_id: str, rows_per_chunk: int = 1 << 16):
    """The same document as compact JSON, built a chunk of instances at a time (for 10^6 instances)."""
    n = score.ref.n_scored
    chunks = (instance_rows(score, lo, min(n, lo + rows_per_chunk)) for lo in range(0, n, rows_per_chunk))
    return compact_object_with_array(output_head(score, suite, reference_id), "instances", chunks,
                                     {"unscored_instances": score.unscored_instances})


def output_is_finite(score: TaskScore) -> bool:
    """Checks the arrays that go into the output, so the writer can skip its walk."""
    ok = ~np.isnan(score.z)
    ref = score.ref
    return bool(np.isfinite(score.z[ok]).all() and np.isfinite(score.A[ok]).all() and np.isfinite(score.phi).all()
                and np.isfinite(ref.mu).all() and np.isfinite(ref.s).all() and np.isfinite(ref.scale).all()
                and math.isfinite(score.relative_score))
