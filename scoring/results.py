"""The solver-score output (SPEC section 7) as types: what the command writes is an
instance of ``SolverScoreOutput``, encoded by msgspec, and its JSON Schema comes from
the same types (``msgspec.json.schema(SolverScoreOutput)``).
"""

from __future__ import annotations

import msgspec

from .vocab import Direction, Kind, RecordStatus


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


def encode(document: msgspec.Struct, *, pretty: bool) -> bytes:
    """JSON bytes of an output document, indented by 2 when ``pretty``, with a final newline.
    The caller guarantees that every float is finite (JSON has no NaN)."""
    data = msgspec.json.encode(document)
    return (msgspec.json.format(data, indent=2) if pretty else data) + b"\n"
