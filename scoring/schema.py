"""Models of index.json (SPEC section 7); the solver-score output's types are in ``scoring.results``.

Not imported by the scoring commands (they write plain dicts); the tests validate every
written file against these models, and they document the output format.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from .vocab import Protocol, Track


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
