"""The outputs of SPEC sections 7 and 12 as types: the solver-score output (``SolverScoreOutput``,
which the command builds and encodes), index.json (``IndexDocument``, which every
document ``build_index`` makes is converted through), ``compare``'s output
(``CompareDocument``) and ``plan``'s (``PlanDocument``), each converted through its type
before it is written. Their JSON Schemas come from the same types (``msgspec.json.schema``).
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


class IndexCI(Strict, omit_defaults=True):
    value: float
    se: float | None
    lo: float | None
    hi: float | None
    df: float | None
    # SPEC 12.4: each track's part w²·se²/var of the index variance; left out when var = 0 (and in compare)
    shares: dict[str, float] | None = None


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


class RankInterval(Strict):
    best: int
    worst: int


class RankPair(Strict):
    a: str  # the higher index
    b: str
    difference: float | None
    se: float | None
    df: float | None
    p: float | None
    p_holm: float | None
    separated: bool


class Ranks(Strict):
    """SPEC 12.1, the document's ``ranks`` block. ``pairs`` lists every pair while the cohort has at
    most 100 models with an index; above, it is empty and ``pairs_listed`` is false. Above 5,000
    models ranks are not computed: ``models`` is null and ``reason`` says why."""

    method: Literal["paired-t-holm"]
    alpha: float
    models: dict[str, RankInterval] | None
    pairs: list[RankPair]
    pairs_listed: Literal[False] | msgspec.UnsetType = msgspec.UNSET  # absent while the pairs are listed
    # only when models is null: vocab.NOT_RANKED_REASON
    reason: Literal["more than 5,000 models"] | msgspec.UnsetType = msgspec.UNSET


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
    ranks: Ranks
    ignored_rows: IgnoredRows
    provenance: Provenance


# --- compare (SPEC 9, 12.2, 12.3) ------------------------------------------------------------


class TaskDifference(Strict):
    item: str
    track: Track
    a: float
    b: float
    difference: float


class InstanceCounts(Strict):
    a_better: int
    b_better: int
    equal: int
    mean_difference: float


class CompareDocument(Strict):
    """``tcsexam compare``: the paired difference A − B (SPEC 9), per task and per solver instance
    (12.2), and the MDE by attempts per task (12.3, keys "1" to "10")."""

    models: tuple[str, str]
    method: Literal["task-clustered-t"]
    level: float
    difference: str
    tracks: dict[str, TrackCI]
    index: IndexCI | None
    tasks: list[TaskDifference]
    instances: dict[str, InstanceCounts]
    mde: dict[str, float | None]


# --- plan (SPEC 12.3) ------------------------------------------------------------------------


class TrackVariance(Strict):
    m: int
    s_w2: float | None
    sigma_b2: float | None


class ModelPlan(Strict):
    tracks: dict[str, TrackVariance]
    half_width: dict[str, float | None]
    attempts_for_target: int | None


class PlanDocument(Strict):
    """``tcsexam plan``: per model the variance split and the projected index half-width by attempts."""

    models: dict[str, ModelPlan]
    target: float | None
    level: float


class Tau2Task(Strict):
    task_id: str | int
    n: int
    successes: int
    avg_reward: float | None
    termination_reasons: dict[str, int]
    pass_hat_k: dict[str, float]


class Tau2DbChecks(Strict):
    match: int
    mismatch: int
    not_checked: int


class Tau2Finding(Strict):
    task_id: str | int
    trial: int | None
    stored_reward: float | None
    derived_reward: float | None
    finding: str


class Tau2Output(Strict):
    """SPEC 8, ``tcsexam tau2 --output``."""

    source: str
    num_simulations: int
    num_tasks: int
    infra_errors: int
    max_k: int
    avg_reward: float | None
    avg_agent_cost: float | None
    pass_hat_k: dict[str, float]
    termination_reasons: dict[str, int]
    db: Tau2DbChecks
    tasks: list[Tau2Task]
    audit: list[Tau2Finding]


# --- diff output (SPEC 11) -------------------------------------------------------------------


class Change(Strict):
    old: float | None
    new: float | None
    change: float | None
    half_width: float | None  # of the new document's 95% interval
    exceeds_half_width: bool | None


class StatusChange(Strict):
    old: str | None  # null: the model is not in that document
    new: str | None
    changed: bool


class ModelDiff(Strict):
    status: StatusChange
    index: Change
    tracks: dict[str, Change]


class InputChange(Strict):
    input: str
    old: str | None
    new: str | None


class StatusPair(Strict):
    old: str
    new: str


class DiffOutput(Strict):
    """SPEC 11, ``tcsexam diff --output``."""

    models: dict[str, ModelDiff]
    added: list[str]
    removed: list[str]
    inputs_changed: list[InputChange]
    status: StatusPair
