"""The contract's vocabulary, declared once (docs/rules.md#the-index, docs/formats.md#instance-records, docs/formats.md#attempts-table and docs/formats.md#cohort).

Each ``Literal`` is the one list of allowed values; its tuple comes from it with
``get_args``. Scoring and the dashboard both import from here. No dependencies,
so the command line can import it before numpy or pydantic.
"""

from __future__ import annotations

from typing import Final, Literal, get_args

METRIC_ID = "tcsexam-index-original-30303010-v0.1"

Track = Literal["theorem", "solver", "construction", "conjecture"]
TRACKS: tuple[str, ...] = get_args(Track)
TRACK_LETTERS = {"theorem": "P", "solver": "S", "construction": "C", "conjecture": "O"}
WEIGHTS = {"theorem": 30, "solver": 30, "construction": 30, "conjecture": 10}


def task_points(weight: float, tasks: int) -> float:
    """docs/rules.md#the-index: the index points one unit of a task's score is worth, its track's weight
    over the track's tasks (in a paired difference, the tasks both models scored)."""
    return weight / tasks


Kind = Literal["objective", "solve"]
Direction = Literal["maximize", "minimize"]
Protocol = Literal["online", "offline"]
RowProtocol = Literal["online", "offline", ""]  # docs/formats.md#attempts-table: may be empty off the solver track

# docs/formats.md#instance-records: ok, the solver failures that score 0, the incomplete observations.
RecordStatus = Literal[
    "ok", "timeout", "invalid", "certificate_failed", "crash", "out_of_memory", "missing", "infra_error"
]
RECORD_STATUSES: tuple[str, ...] = get_args(RecordStatus)
INCOMPLETE_STATUSES = RECORD_STATUSES[6:]
# A record's status as a one-byte code: its position in RECORD_STATUSES (ok = 0).
STATUS_CODE = {s: i for i, s in enumerate(RECORD_STATUSES)}
FIRST_INCOMPLETE_CODE = STATUS_CODE[INCOMPLETE_STATUSES[0]]

# docs/formats.md#attempts-table
AdoptionStatus = Literal["selected", "selected_provisional", "excluded"]
ADOPTED = ("selected", "selected_provisional")
ScoreStatus = Literal["valid", "judge_failed", "not_finished", "missing"]
ScoreType = Literal["fixed_reference_relative", "original_task_score"]
TRACK_SCORE_TYPE = {
    "solver": "fixed_reference_relative",
    "theorem": "original_task_score",
    "construction": "original_task_score",
    "conjecture": "original_task_score",
}

# docs/formats.md: how the benchmark folder was found (provenance.benchmark)
BenchmarkSource = Literal["bundled synthetic sample", "given"]

# docs/formats.md#indexjson: how content_sha256 is computed (provenance.hash_method): sha256 of the
# RFC 8785 form. A document without the key was hashed over the tool's own JSON writer, by earlier versions.
HashMethod = Literal["rfc8785-sha256"]
(HASH_METHOD,) = get_args(HashMethod)

# docs/rules.md#aggregation: a model's and a document's status, worst last.
RunStatus = Literal["complete", "provisional", "incomplete"]
RUN_STATUSES: tuple[str, ...] = get_args(RunStatus)  # a model's and a run's, best first
STATUS_ORDER = {s: i for i, s in enumerate(RUN_STATUSES)}
# docs/commands.md: the exit codes of every command, and the one of a written document by its status
# The names of a run folder's inputs (docs/formats.md): RUN_DIR/attempts.csv, RUN_DIR/cohort.json, RUN_DIR/records/
ATTEMPTS_FILE, COHORT_FILE, RECORDS_FOLDER = "attempts.csv", "cohort.json", "records"
# the records of a run packed in one file instead of records/ (docs/formats.md#packed-records)
PACKED_RECORDS_FILE = "records.jsonl"

EXIT_OK, EXIT_REJECTED, EXIT_USAGE, EXIT_INCOMPLETE = 0, 1, 2, 3
# a write to a closed pipe (`| head`): 128 + SIGPIPE, as a program that signal stopped (docs/commands.md)
EXIT_CLOSED_PIPE = 141
EXIT_FOR_STATUS = {"complete": EXIT_OK, "provisional": EXIT_OK, "incomplete": EXIT_INCOMPLETE}

# the most attempts a cohort plans for one task of one model (docs/formats.md#cohort): far above
# any real benchmark's, low enough that init's table of every planned attempt stays small
MAX_PLANNED_ATTEMPTS = 1_000

# R2: the range of each track's values (lowest, highest; None: no upper bound); theorem and conjecture
# take exactly 0 or 1 within theirs. A pass^k threshold lies in its track's range too.
SCORE_RANGES: dict[str, tuple[float, float | None]] = {
    "theorem": (0.0, 1.0),
    "solver": (0.0, 1.0),
    "construction": (0.0, None),
    "conjecture": (0.0, 1.0),
}


def range_text(track: str) -> str:
    """A track's value range as the messages say it: ``[0, 1]`` or ``>= 0``."""
    low, high = SCORE_RANGES[track]
    return f">= {low:g}" if high is None else f"[{low:g}, {high:g}]"


# docs/rules.md#aggregation and docs/commands.md: a CSV score and the one scored from its records agree within this
CROSS_CHECK_TOLERANCE = 1e-9

# how a warning of a valid solver score that no records file checked begins (docs/rules.md#rows-and-records):
# ``score`` counts these apart from its other warnings
NOT_CHECKED = "score not checked against records"

# matplotlib, the optional extra "plot": how to install it, said where a figure cannot be made. The
# project installs from a clone (README), so the extra is named by its path, never by a package name
PLOT_INSTALL = (
    'pip install matplotlib into this environment (or the extra "plot": pip install "./tcsexam[plot]" from a clone)'
)

NA = "NA"  # a missing value in text a script parses (docs/commands.md command line)


NOT_RANKED_REASON: Final = "more than 5,000 models"  # docs/rules.md#ranks: ``ranks.reason`` when ranks are not computed


# docs/rules.md#ranks: a rank interval as text
def rank_text(best: int, worst: int, dash: str = "–") -> str:
    """A rank as the Overview and ``table`` show it: ``best`` or ``best–worst`` (``dash``: the format's own)."""
    return str(best) if best == worst else f"{best}{dash}{worst}"
