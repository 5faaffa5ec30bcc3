"""The outputs of docs/formats.md#indexjson, docs/tau2.md, docs/commands.md and docs/rules.md as types: the solver-score output
(``SolverScoreOutput``), index.json (``IndexDocument``, which ``pipeline.index.score_run`` builds),
``compare``'s (``CompareDocument``), ``plan``'s (``PlanDocument``), ``tau2``'s (``Tau2Output``),
``diff``'s (``DiffOutput``) and ``validate --json``'s (``ValidateOutput``); the documents made as dicts are checked against their type before
they are written. Their JSON Schemas come from the same types (``msgspec.json.schema``).
"""

from __future__ import annotations

from typing import Annotated, Literal, TypeVar

import msgspec

from tcsexam.scoring.vocab import (
    METRIC_ID,
    TRACKS,
    WEIGHTS,
    BenchmarkSource,
    Direction,
    HashMethod,
    Kind,
    Protocol,
    RecordStatus,
    RunStatus,
    ScoreStatus,
    Track,
)

# The constraints of the contract that a type alone does not say, stated where the schemas come from
# (``msgspec.json.schema`` puts ``extra_json_schema`` into the schema of the annotated field).
_V = TypeVar("_V")


_TRACK_KEYS = {"propertyNames": {"enum": list(TRACKS)}}


# a value per track, for some of the four tracks, and for each of them (the keys are the schema's to
# check: the documents are made by iterating over TRACKS)
SomeTracks = Annotated[dict[str, _V], msgspec.Meta(extra_json_schema=_TRACK_KEYS)]


EveryTrack = Annotated[dict[str, _V], msgspec.Meta(extra_json_schema={**_TRACK_KEYS, "required": list(TRACKS)})]


FixedWeights = Annotated[
    dict[str, int],
    msgspec.Meta(
        description="The index's fixed weights in points: theorem 30, solver 30, construction 30, conjecture 10.",
        extra_json_schema={"const": WEIGHTS},
    ),
]


MetricId = Annotated[
    str, msgspec.Meta(description="The metric and its version.", extra_json_schema={"const": METRIC_ID})
]


ContentHashMethod = Annotated[
    HashMethod,
    msgspec.Meta(
        description="How content_sha256 was computed: the sha256 of the RFC 8785 form of the document. Absent "
        "from the documents of earlier versions, which hashed the tool's own canonical JSON."
    ),
]


Sha256 = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$", description="A sha256 digest: 64 lowercase hex digits.")]


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
    """The output of `tcsexam solver-score`: one attempt at one solver task scored against the fixed
    reference, instance by instance, and the task's relative score (tcsexam docs rules#solver-score)."""

    task: str
    suite: str
    reference_id: str
    kind: Kind
    direction: Direction
    relative_score: float
    n_scored: int
    instances: list[InstanceResult]
    unscored_instances: list[str]
    # of the unscored ones, those the reference does not know at all (docs/rules.md#solver-score)
    unknown_instances: Annotated[
        list[str],
        msgspec.Meta(description="Records' instances the reference knows neither as scored nor as unscored."),
    ] = msgspec.field(default_factory=list)


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
    # valid adopted solver rows whose score no records file checked (docs/rules.md#rows-and-records)
    solver_not_checked: Annotated[
        list[AttemptRef],
        msgspec.Meta(description="Valid adopted solver rows whose score was not re-scored from a records file."),
    ] = msgspec.field(default_factory=list)


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
    # docs/rules.md#variance-budget: each track's part w²·se²/var of the index variance; left out when var = 0 (and in compare)
    shares: EveryTrack[float] | None = None


class CIBlock(Strict):
    method: Literal["task-clustered-t"]
    level: float
    tracks: SomeTracks[TrackCI]
    index: IndexCI | None


class ModelResult(Strict):
    status: RunStatus
    index: float | None
    track_means: EveryTrack[float | None]
    tasks: dict[str, TaskResult]
    coverage: Coverage
    pass_hat_k: EveryTrack[PassHatK]
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
    """The models' ranks: for each model the best and worst rank its index can take, from the paired
    comparisons of every two models with Holm's correction (tcsexam docs rules#ranks). The pairs are
    listed while at most 100 models have an index; above, the list is empty and pairs_listed is
    false. Above 5,000 models ranks are not computed: models is null and reason says why."""

    method: Literal["paired-t-holm"]
    alpha: float
    models: dict[str, RankInterval] | None
    pairs: list[RankPair]
    pairs_listed: Literal[False] | msgspec.UnsetType = msgspec.UNSET  # absent while the pairs are listed
    # only when models is null: vocab.NOT_RANKED_REASON
    reason: Literal["more than 5,000 models"] | msgspec.UnsetType = msgspec.UNSET


class IgnoredRow(Strict, omit_defaults=True):
    line: int
    model: str
    track: Track
    item: str
    attempt: str
    reason: str
    # a cohort model or suite item of a close name: likely what was meant
    did_you_mean: Annotated[
        str | None,
        msgspec.Meta(description="The cohort model or suite item whose name is close to the row's: likely a typo."),
    ] = None


class CohortTypo(Strict):
    """A cohort model that no row names, close to a model outside the cohort that rows name: a typo in
    cohort.json (tcsexam docs rules#aggregation)."""

    cohort_model: str
    rows_model: str
    rows: int
    records_files: int


class IgnoredRows(Strict):
    count: int
    models_outside_cohort: dict[str, int]
    items_outside_suite: dict[str, int]
    rows: list[IgnoredRow]
    cohort_typos: list[CohortTypo] = msgspec.field(default_factory=list)


class UnusedRecords(Strict):
    """A records file that no adopted row uses (tcsexam docs rules#rows-and-records): its path under
    records/, the model, item and attempt its place names (null when it is not at
    records/<model>/<item>/<attempt>.json), why, and the rows' attempt names of a near spelling
    ('1.0' for '1', numbering from 0): then the attempt names and file names do not line up."""

    file: str
    model: str | None
    item: str | None
    attempt: str | None
    reason: str
    near: list[str]


class InputDigest(Strict, omit_defaults=True):
    path: str
    sha256: Sha256
    files: int | None = None  # records only: how many files the digest covers


class Provenance(Strict, omit_defaults=True):
    tool_version: str
    generated_at: str
    benchmark: BenchmarkSource  # how the benchmark folder was found (docs/formats.md)
    metric_id: MetricId
    weights: FixedWeights
    solver_reference_id: str
    adoption_rule: str
    inputs: dict[str, InputDigest]
    content_sha256: (
        Sha256  # filled last (pipeline.index.score_run): the hash of everything else (docs/formats.md#indexjson)
    )
    hash_method: ContentHashMethod | msgspec.UnsetType = msgspec.UNSET


class IndexDocument(Strict):
    """index.json, written by `tcsexam score`: per model its status, index, track means, tasks,
    coverage, pass^k, intervals and issues; the ranks; the ignored rows; the records files no adopted
    row uses; the provenance with the inputs' digests and the content hash (tcsexam docs formats#indexjson)."""

    metric_id: MetricId
    suite: str
    solver_protocol: Protocol
    solver_reference_id: str
    weights: FixedWeights
    status: RunStatus
    models: dict[str, ModelResult]
    ranks: Ranks
    ignored_rows: IgnoredRows
    provenance: Provenance
    # docs/rules.md#rows-and-records: empty without records/ (absent from documents of older versions)
    unused_records: list[UnusedRecords] = []


class TaskDifference(Strict):
    item: str
    track: Track
    a: float
    b: float
    difference: float
    # the task's share of the paired index difference, in points: difference × track weight ÷ the track's
    # tasks both scored (tcsexam docs rules#per-task-differences); the shares of all tasks sum to it
    contribution: float


class InstanceCounts(Strict):
    a_better: int
    b_better: int
    equal: int
    mean_difference: float


class CompareDocument(Strict):
    """The output of `tcsexam compare`: the paired difference A − B of two models per track and for
    the index with 95% intervals, per task and per solver instance, the smallest difference
    detectable by attempts per task (keys "1" to "10") with the tracks whose variance was clipped
    at 0, each incomplete model of the two with the tasks left out of every difference, which
    is then not a difference of indices, and the solver tasks without instance counts with why
    (tcsexam docs rules#per-task-differences)."""

    models: tuple[str, str]
    method: Literal["task-clustered-t"]
    level: float
    difference: str
    tracks: SomeTracks[TrackCI]
    index: IndexCI | None
    tasks: list[TaskDifference]
    instances: dict[str, InstanceCounts]
    mde: dict[str, float | None]
    # the tracks whose between-task variance of the differences was floored at 0: the MDE is conservative
    mde_clipped: list[str]
    # each incomplete model of the two with the tasks it has no task mean for, left out of every difference
    incomplete: dict[str, list[str]]
    # each solver task without instance counts, with why: counts come only from attempts that count
    instances_left_out: dict[str, str]


class TrackVariance(Strict):
    m: int
    s_w2: float | None
    sigma_b2: float | None


class ObservedPrecision(Strict):
    """The run's own 95% half-width of the model's index (null without an index) and the valid attempts
    of every scored task (null when they differ between tasks): what the projection is read beside."""

    half_width: float | None
    attempts: int | None


class ModelPlan(Strict):
    tracks: EveryTrack[TrackVariance]
    half_width: dict[str, float | None]
    attempts_for_target: int | None
    # the half-width with unlimited attempts: what the spread between tasks leaves (null as half_width)
    half_width_limit: float | None = None
    # the tracks whose sigma_b2 was floored at 0: the projection is then conservative
    clipped: list[str] = []
    observed: ObservedPrecision | None = None


class PlanDocument(Strict):
    """The output of `tcsexam plan`: per model the within- and between-task variance of each track,
    the projected 95% half-width of the index by attempts per task, the tracks whose between-task
    variance was clipped at 0 and the run's observed half-width (tcsexam docs rules#planning-attempts)."""

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
    """The output of `tcsexam tau2 --output`: pass^k, termination reasons, database checks and the
    reward-gate audit of a tau2-bench run."""

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


class Change(Strict):
    old: float | None
    new: float | None
    change: float | None
    half_width: float | None  # of the new document's 95% interval
    # |change| > the old document's 95% half-width (the new one's when the old has none: judged_against)
    exceeds_half_width: bool | None
    old_half_width: float | None  # of the old document's 95% interval
    judged_against: Literal["old", "new"] | None  # the half-width exceeds_half_width was judged against


class StatusChange(Strict):
    old: str | None  # null: the model is not in that document
    new: str | None
    changed: bool


class ModelDiff(Strict):
    status: StatusChange
    index: Change
    tracks: EveryTrack[Change]


class InputChange(Strict):
    input: str
    old: str | None
    new: str | None


class StatusPair(Strict):
    old: str
    new: str


class WordPair(Strict):
    """A word of the two documents, before and after (the same when it did not change)."""

    old: str
    new: str


class HalfWidthGrowth(Strict):
    """A model whose index 95% half-width grew more than twofold from the old document to the new."""

    model: str
    old: float
    new: float


class DiffOutput(Strict):
    """The output of `tcsexam diff --output`: what moved between two index.json files."""

    models: dict[str, ModelDiff]
    added: list[str]
    removed: list[str]
    inputs_changed: list[InputChange]
    status: StatusPair
    solver_reference_id: WordPair
    benchmark: WordPair  # provenance.benchmark: how the benchmark folder was found
    half_width_grew: list[HalfWidthGrowth]  # models whose index 95% half-width grew more than twofold


class ValidateProblem(Strict):
    """A problem of a rejected input: the file, where in it (a line, a record; '' for the file as a
    whole), the field ('' for none) and what is wrong."""

    file: str
    where: str
    field: str
    message: str


FindingKind = Literal["warning", "incomplete", "provisional", "excluded", "ignored row", "unused records"]


class ValidateFinding(Strict):
    """A finding of an accepted run: its kind, the model (null for a records file outside any model's
    folder), the task, the attempt (its name, as attempts.csv writes it) and the attempts table's line
    where it has them (null for a finding of the model as a whole), and what. An ignored row whose name
    is close to one of the cohort's or the suite's (a likely typo) is a warning."""

    kind: FindingKind
    model: str | None
    item: str | None
    attempt: str | None
    line: int | None
    message: str


class ValidateOutput(Strict):
    """The output of `tcsexam validate --json`: whether the run's inputs are accepted; for a rejected
    run, every problem and a hint, no findings, and null for its status, rows and models; for a scored
    one, its status, its rows and models, and its findings (tcsexam docs commands#validate). With
    --strict, a run with findings is not accepted (strict: whether --strict was given)."""

    accepted: bool
    strict: bool
    status: RunStatus | None  # the run's status; null when rejected
    rows: int | None  # the attempts table's rows read; null when rejected
    models: int | None
    problems: list[ValidateProblem]
    hint: str | None
    findings: list[ValidateFinding]
