"""Solver scores: each instance's z and Phi against the reference, a task's score, and the
``solver-score`` output document."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path

import numpy as np

from tcsexam.scoring.errors import InputError, Problem
from tcsexam.scoring.formats.records import MAX_LISTED, Records, read_records, status_names
from tcsexam.scoring.formats.results import InstanceResult, SolverScoreOutput, encode
from tcsexam.scoring.grammar import counted
from tcsexam.scoring.pipeline.reference import TaskReference
from tcsexam.scoring.safety.files import read_regular_file
from tcsexam.scoring.vocab import INCOMPLETE_STATUSES


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

    @property
    def unknown_instances(self) -> list[str]:
        """The records' instances that the reference knows neither as scored nor as unscored
        (docs/rules.md#solver-score): a sign of another reference version or renamed instances."""
        return [n for n in self.unscored_instances if n not in self.ref.unscored]


def score_attempt_bytes(ref: TaskReference, data: bytes, file: str) -> TaskScore:
    """A records file's bytes scored against its task (docs/rules.md#solver-score): the one scoring of an attempt, as
    ``solver-score`` and ``fill`` (docs/commands.md) both do it; raises InputError naming its problems."""
    try:
        records = read_records(data, file, ref.kind)
    except InputError as exc:
        names = named_instances(data)  # read once, for both
        raise InputError(
            exc.problems + lacking_beside(ref, names, file), exc.hint or another_task_hint(ref, names)
        ) from None
    return score_task(ref, records)


def lacking_beside(ref: TaskReference, names: list[str], file: str) -> list[Problem]:
    """For a records file rejected for its records' fields: the scored instances it has no record of at
    all, as a file that is otherwise good is told (``lacking_problem``), so that mending a bad A does
    not bring up a missing instance only on the next run. [] when its names are not readable, or
    none is of the task (``another_task_hint`` says so); ``names``: the file's ``named_instances``."""
    if not any(n in ref.position for n in names):
        return []
    held = set(names)
    missing = [i for i, name in enumerate(ref.names) if name not in held]
    return [lacking_problem(ref, missing, names, file)] if missing else []


def lacking_problem(ref: TaskReference, missing: list[int], names: list[str], file: str) -> Problem:
    """docs/rules.md#solver-score: every scored instance needs a record; ``missing`` (positions in the
    reference) have none in the file whose records name ``names``."""
    listed = ", ".join(ref.names[i] for i in missing[:MAX_LISTED])
    more = f" and {len(missing) - MAX_LISTED} more ({every_instance(ref)})" if len(missing) > MAX_LISTED else ""
    have = "has" if len(missing) == 1 else "have"
    message = (
        f"{counted(len(missing), 'scored instance')} of task '{ref.task}' {have} no record: {listed}{more}"
        + unknown_names_hint(ref, names)
    )
    return Problem(file, "", "instance", message)


def named_instances(data: bytes) -> list[str]:
    """The instance names a rejected records file's records hold, read as plainly as can be (a record
    with a bad field still names its instance); [] when the file is no JSON list."""
    import orjson

    try:
        items = orjson.loads(data)
    except orjson.JSONDecodeError:
        return []
    named = [r.get("instance") for r in items if isinstance(r, dict)] if isinstance(items, list) else []
    return [n for n in named if isinstance(n, str)]


def another_task_hint(ref: TaskReference, names: list[str]) -> str:
    """For a rejected records file none of whose records names an instance of ``ref``'s task (scored
    or not): that they are likely another task's records, whose values the task's kind refuses
    (a solve task's A of 0 or 1); '' otherwise."""
    if not names or any(n in ref.position or n in ref.unscored for n in names):
        return ""
    return (
        f"none of the file's {counted(len(names), 'record')} names an instance of task '{ref.task}' "
        f"(the first names '{names[0]}'): are they the records of another task?"
    )


def score_file(ref: TaskReference, path: Path) -> TaskScore:
    """One records file on disk scored against its task (``score_attempt_bytes``)."""
    return score_attempt_bytes(ref, read_regular_file(path, "records file"), str(path))


def instance_z(A: np.ndarray, mu: np.ndarray, scale: np.ndarray, direction: str) -> np.ndarray:
    """docs/rules.md#solver-score: z = (A - mu)/scale when maximizing, (mu - A)/scale when minimizing."""
    return (A - mu) / scale if direction == "maximize" else (mu - A) / scale


def instance_phi(z: np.ndarray) -> np.ndarray:
    """docs/rules.md#solver-score: instance score Phi(z), the standard normal CDF; a failure (z NaN) scores 0."""
    from scipy.special import ndtr  # imported here: what computes no Phi may load no scipy (docs/performance.md)

    phi = ndtr(z)
    phi[np.isnan(z)] = 0.0
    return phi


def every_instance(ref: TaskReference) -> str:
    """Where a message that lists only some of a task's scored instances sends the reader for all of them."""
    return f"all of them: {ref.listed_by()}" if ref.reference_id else "all of them: in the reference file"


def near_instance(name: str, ref: TaskReference) -> str | None:
    """The scored instance a record's unknown name likely stands for (docs/rules.md#solver-score): the same name
    in another case, or with a suffix or prefix after '.', '/' or ':' ('MAX0001.gset', 'gset/MAX0001'
    for 'MAX0001'); None otherwise."""
    known = ref.position
    folded = {n.casefold(): n for n in known}
    for candidate in (name, *(p for p in re.split(r"[./:]", name) if p)):
        hit = candidate if candidate in known else folded.get(candidate.casefold())
        if hit is not None and hit != name:
            return hit
    return None


def unknown_names_hint(ref: TaskReference, names: list[str]) -> str:
    """What a file lacking records of scored instances holds instead, when its names are ones the
    reference does not know: how many, the first, and the scored instance it likely stands for."""
    unknown = [n for n in names if n not in ref.position and n not in ref.unscored]
    if not unknown:
        return ""
    near = near_instance(unknown[0], ref)
    meant = f" (did you mean '{near}'?)" if near else ""
    return f"; the file holds {counted(len(unknown), 'record')} of instances the reference does not know, such as '{unknown[0]}'{meant}"


def unknown_instances_text(result: TaskScore, reference_id: str) -> str:
    """A records file's instances that the reference knows neither as scored nor as unscored
    (docs/rules.md#rows-and-records): a wrong reference version or renamed instances; each with the
    scored instance it likely stands for (``near_instance``)."""
    unknown = result.unknown_instances
    shown = []
    for name in unknown[:MAX_NAMED]:
        near = near_instance(name, result.ref)
        shown.append(f"{name} (did you mean {near}?)" if near else name)
    more = f" and {len(unknown) - MAX_NAMED} more" if len(unknown) > MAX_NAMED else ""
    return (
        f"{counted(len(unknown), 'record')} of instances that reference '{reference_id}' does not know: "
        f"{', '.join(shown)}{more}; they are left out of the score"
    )


MAX_NAMED = 5


def score_records(ref: TaskReference, records: Records) -> list[TaskScore | list[Problem]]:
    """Score every file of ``records`` against its task (docs/rules.md#solver-score), all files as one matrix: per
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
            missing = np.flatnonzero(take[k] < 0).tolist()
            out.append([lacking_problem(ref, missing, records.names[starts[k] : starts[k + 1]], file)])
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
    """docs/formats.md#indexjson, solver-score output: one row per scored instance, A and z null for a failure."""
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
        score.unknown_instances,
    )


COMPACT_ABOVE = 100_000


def solver_score_bytes(score: TaskScore, suite: str, reference_id: str) -> bytes | bytearray:
    """The solver-score file's bytes (docs/formats.md#indexjson), as `solver-score` and `fill` write it: indented,
    or compact above COMPACT_ABOVE scored instances (indenting doubles a large file's size)."""
    if not output_is_finite(score):  # pragma: no cover - guarded by the input checks
        raise ValueError("a non-finite number reached the output")
    pretty = score.ref.n_scored <= COMPACT_ABOVE
    return encode(solver_score_output(score, suite, reference_id), pretty=pretty)


def output_is_finite(score: TaskScore) -> bool:
    """Checks the arrays that go into the output, so the writer can skip its walk: every number is
    finite but A and z of a failure (NaN there, null in the file). One pass over all six arrays."""
    ref = score.ref
    values = np.stack((score.z, score.A, score.phi, ref.mu, ref.s, ref.scale))
    values[:2, np.isnan(score.z)] = 0.0  # a failure's A and z: written as null
    return bool(np.isfinite(values).all() and math.isfinite(score.relative_score))


def not_ready(ref: TaskReference, data: bytes, file: str) -> str | None:
    """Why an attempt's records are not ready to score (docs/commands.md): its incomplete observations and
    the scored instances without a record; None when it has neither. Any other problem of the file
    is raised as the scorer words it (InputError), so that a file is never left alone for a reason
    that hides another."""
    records = read_records(data, file, ref.kind, incomplete_ok=True)
    incomplete = [(n, s) for n, s in zip(records.names, records.status, strict=True) if s in INCOMPLETE_STATUSES]
    have = set(records.names)
    lacking = [name for name in ref.names if name not in have]
    parts = []
    if incomplete:
        shown = ", ".join(f"{n} ({s})" for n, s in incomplete[:5])
        parts.append(
            f"{counted(len(incomplete), 'incomplete observation')}: {shown}{' ...' if len(incomplete) > 5 else ''}"
        )
    if lacking:
        parts.append(
            f"{counted(len(lacking), 'scored instance')} without a record: {', '.join(lacking[:5])}"
            f"{f' ... ({every_instance(ref)})' if len(lacking) > 5 else ''}"
        )
    return "; ".join(parts) or None
