"""Models of the contract's outputs (SPEC section 7): index.json and the solver-score output.

Not imported by the scoring commands (they write plain dicts); the tests validate every
written file against these models, and they document the output format.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from .vocab import Direction, Kind, Protocol, Track


class InstanceScore(BaseModel):
    instance: str
    status: str
    A: float | None
    mu: float
    s: float
    scale: float
    z: float | None
    phi: float


class SolverScoreOutput(BaseModel):
    """SPEC section 7, solver-score."""

    task: str
    suite: str
    reference_id: str
    kind: Kind
    direction: Direction
    relative_score: float
    n_scored: int
    instances: list[InstanceScore]
    unscored_instances: list[str]


class TaskResult(BaseModel):
    track: Track
    mean: float | None
    partial_mean: float | None
    adopted: int
    valid: int
    planned: int
    status: Literal["complete", "provisional", "incomplete"]


class PassHatK(BaseModel):
    threshold: float
    tasks: int
    by_k: dict[str, float]


class TrackCI(BaseModel):
    mean: float
    se: float | None
    lo: float | None
    hi: float | None
    df: float | None
    m: int


class IndexCI(BaseModel):
    value: float
    se: float | None
    lo: float | None
    hi: float | None
    df: float | None


class CIBlock(BaseModel):
    method: Literal["task-clustered-t"]
    level: float
    tracks: dict[str, TrackCI]
    index: IndexCI | None


class ModelResult(BaseModel):
    status: Literal["complete", "provisional", "incomplete"]
    index: float | None
    track_means: dict[Track, float | None]
    tasks: dict[str, TaskResult]
    coverage: dict[Literal["missing", "provisional", "not_valid", "excluded"], list[dict[str, Any]]]
    pass_hat_k: dict[str, PassHatK]
    issues: list[dict[str, Any]]
    ci: CIBlock


class IndexOutput(BaseModel):
    """SPEC section 7, index.json."""

    metric_id: str
    suite: str
    solver_protocol: Protocol
    solver_reference_id: str
    weights: dict[Track, int]
    status: Literal["complete", "provisional", "incomplete"]
    models: dict[str, ModelResult]
    ignored_rows: dict[str, Any]
    provenance: dict[str, Any]
