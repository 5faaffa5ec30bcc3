"""The outputs of SPEC section 7 as types: the solver-score output (``SolverScoreOutput``,
which the command builds and encodes) and index.json (``IndexDocument``, which every
document ``build_index`` makes is converted through). Their JSON Schemas come from the
same types (``msgspec.json.schema``).
"""

from __future__ import annotations

from typing import Literal

import msgspec

from .vocab import Direction, Kind, Protocol, RecordStatus, RunStatus, ScoreStatus, Track


class InstanceResult(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    """One scored reference instance of one attempt (A and z null for a solver failure)."""

    instance: str
    status: RecordStatus
    A: float | None
    mu: float
    s: float
    scale: float
    z: float | None
    phi: float


class SolverScoreOutput(msgspec.Struct, gc=False, forbid_unknown_fields=True):
    """SPEC 7, solver-score."""

    task: str
    suite: str
    reference_id: str
    kind: Kind
    direction: Direction
    relative_score: float
    n_scored: int
    instances: list[InstanceResult]
    unscored_instances: list[str]


_ENCODER = msgspec.json.Encoder()


def encode(document: msgspec.Struct, *, pretty: bool) -> bytes | bytearray:
    """JSON bytes of an output document, indented by 2 when ``pretty``, with a final newline.
    The caller guarantees that every float is finite (JSON has no NaN). Compact documents are
    encoded into a bytearray that takes the newline in place (a large one is not copied)."""
    if pretty:
        return msgspec.json.format(_ENCODER.encode(document), indent=2) + b"\n"
    buffer = bytearray()
    _ENCODER.encode_into(document, buffer)
    buffer += b"\n"
    return buffer


# --- index.json (SPEC 7, 9) ------------------------------------------------------------------
# ``build_index`` passes every document it makes through these types (``msgspec.convert``), so a
# key that is missing, misspelt, extra or of the wrong type is a bug caught where it is made.


class Strict(msgspec.Struct, forbid_unknown_fields=True):
    pass


class TaskResult(Strict):
    track: Track
    mean: float | None  # null while the task is incomplete
    partial_mean: float | None  # the mean of the valid adopted attempts so far (never in a track mean)
    adopted: int
    valid: int
    planned: int
    status: RunStatus


class MissingAttempts(Strict):
    item: str
    track: Track
    adopted: int
    planned: int
    missing: int


class AttemptRef(Strict):
    item: str
    track: Track
    attempt: str
    line: int


class NotValidAttempt(Strict):
    item: str
    track: Track
    attempt: str
    line: int
    score_status: ScoreStatus


class ExcludedAttempt(Strict):
    item: str
    track: Track
    attempt: str
    line: int
    score: float | None
    note: str


class Coverage(Strict):
    missing: list[MissingAttempts]
    provisional: list[AttemptRef]
    not_valid: list[NotValidAttempt]
    excluded: list[ExcludedAttempt]


class Issue(Strict):
    kind: Literal["warning", "incomplete"]
    item: str
    attempt: str | None
    line: int | None
    message: str


class PassHatK(Strict):
    threshold: float
    tasks: int
    by_k: dict[str, float]


class TrackCI(Strict):
    mean: float
    se: float | None
    lo: float | None
    hi: float | None
    df: float | None
    m: int


class IndexCI(Strict):
    value: float
    se: float | None
    lo: float | None
    hi: float | None
    df: float | None


class CIBlock(Strict):
    method: Literal["task-clustered-t"]
    level: float
    tracks: dict[str, TrackCI]
    index: IndexCI | None


class ModelResult(Strict):
    status: RunStatus
    index: float | None
    track_means: dict[str, float | None]
    tasks: dict[str, TaskResult]
    coverage: Coverage
    pass_hat_k: dict[str, PassHatK]
    issues: list[Issue]
    ci: CIBlock


class IgnoredRow(Strict):
    line: int
    model: str
    track: Track
    item: str
    attempt: str
    reason: str


class IgnoredRows(Strict):
    count: int
    models_outside_cohort: dict[str, int]
    items_outside_suite: dict[str, int]
    rows: list[IgnoredRow]


class InputDigest(Strict, omit_defaults=True):
    path: str
    sha256: str
    files: int | None = None  # records only: how many files the digest covers


class Provenance(Strict, omit_defaults=True):
    tool_version: str
    generated_at: str
    metric_id: str
    weights: dict[str, int]
    solver_reference_id: str
    adoption_rule: str
    inputs: dict[str, InputDigest]
    content_sha256: str = ""  # filled last: the hash of everything else (SPEC 7)


class IndexDocument(Strict):
    """SPEC 7, index.json."""

    metric_id: str
    suite: str
    solver_protocol: Protocol
    solver_reference_id: str
    weights: dict[str, int]
    status: RunStatus
    models: dict[str, ModelResult]
    ignored_rows: IgnoredRows
    provenance: Provenance
