"""The rejection rules of docs/rules.md#aggregation over a run's rows, and the R2 value ranges.

``check_rules`` collects every problem rather than stopping at the first, and
sorts the rows into those aggregated per model and those ignored.
"""

from __future__ import annotations

import difflib
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

from tcsexam.scoring.errors import Problems
from tcsexam.scoring.formats.inputs import AttemptRow
from tcsexam.scoring.formats.results import Issue
from tcsexam.scoring.grammar import counted
from tcsexam.scoring.pipeline.run import Run
from tcsexam.scoring.pipeline.solver import TaskScore
from tcsexam.scoring.safety.terminal import shown_as
from tcsexam.scoring.vocab import SCORE_RANGES, TRACK_SCORE_TYPE, range_text


def score_in_range(track: str, score: float) -> str | None:
    """R2: the values that may enter the index; returns why ``score`` may not, or None."""
    if not math.isfinite(score):
        return f"score must be finite, got {score!r}"
    if track in ("theorem", "conjecture"):
        if score not in (0.0, 1.0):
            hint = percentage_hint(track, score) or "; partial credit must be converted to 0"
            return f"a {track} score is 1 (complete proof accepted) or 0, got {score!r}{hint}"
    elif track == "solver":
        low, high = SCORE_RANGES["solver"]
        if not low <= score <= (high or math.inf):
            return f"a solver relative score lies in {range_text('solver')}, got {score!r}"
    elif score < SCORE_RANGES["construction"][0]:
        return f"a construction reward is {range_text('construction')}, got {score!r}"
    return None


def percentage_hint(track: str, score: float) -> str | None:
    """A score that reads as a percentage of a value its track allows, 100 for 1 or 85 for 0.85
    (docs/rules.md#plausible-scores): the hint, or None."""
    if 1.0 < score <= 100.0 and score_in_range(track, score / 100) is None:
        return f": a percentage? write {score / 100:g}"
    return None


# How alike an ignored row's name and a name of the cohort or suite must be (difflib's ratio) for the
# row to be taken for a typo: 'thm-sensitivty' / 'thm-sensitivity' 0.97, 'maxcut-mqlb' / 'maxcut-mqlib'
# 0.96; the demo's extra model 'atlas-70b-draft' / 'atlas-70b' 0.75 is not one.
CLOSE_NAME_CUTOFF = 0.8


class CloseNames:
    """The name of ``names`` a given one was meant to be: one that looks the same on a screen
    (``shown_as``: 'café' as one character or as 'e' and an accent), else the closest when it is
    close enough (``CLOSE_NAME_CUTOFF``); remembered per name, as an ignored name is usually on many rows."""

    def __init__(self, names: Iterable[str]):
        self.names = sorted(names)
        self.seen: dict[str, str | None] = {}

    @cached_property
    def shown(self) -> dict[str, str]:
        """Each look's first name; made at the first name asked about (most runs ignore no row)."""
        return {shown_as(n): n for n in reversed(self.names)}

    def __call__(self, name: str) -> str | None:
        if name not in self.seen:
            close = difflib.get_close_matches(name, self.names, n=1, cutoff=CLOSE_NAME_CUTOFF)
            self.seen[name] = self.shown.get(shown_as(name)) or (close[0] if close else None)
        return self.seen[name]


MODEL_NOT_IN_COHORT = "model not in cohort"


@dataclass(frozen=True)
class Ignored:
    """A row not aggregated (docs/rules.md#aggregation, last rules): why, and the cohort model or suite item whose name
    is close to the row's (a likely typo), if any."""

    row: AttemptRow
    reason: str
    did_you_mean: str | None = None


@dataclass
class Checked:
    """Rows sorted into those aggregated per model and those ignored (docs/rules.md#aggregation, last rules)."""

    by_model: dict[str, list[AttemptRow]]
    ignored: list[Ignored]
    records_used: dict[str, str] = field(default_factory=dict)  # relative path -> sha256
    scores: dict[tuple[str, str, str], TaskScore] = field(default_factory=dict)  # (model, item, attempt) re-scored
    notes: dict[str, list[Issue]] = field(default_factory=dict)  # per model: warnings from its records files
    not_ready: dict[tuple[str, str, str], str] = field(default_factory=dict)  # why a not-valid row's records wait
    typos: dict[str, str] = field(default_factory=dict)  # a rows' model -> the cohort model it is a typo of

    def note(self, model: str, issue: Issue) -> None:
        self.notes.setdefault(model, []).append(issue)


def check_rules(run: Run) -> tuple[Checked, Problems]:
    """Every rejection rule of docs/rules.md#aggregation over all rows: the rows sorted per model and the problems
    found (the caller adds the records cross-check's, then rejects)."""
    problems = Problems()
    problems.extend(run.problems)
    check_planned_items(run, problems)
    file = str(run.paths.attempts)
    cohort, suite = run.cohort, run.suite
    track_of = {t.item: t.track for t in suite.tasks}
    first_line: dict[tuple, int] = {}
    by_model: dict[str, list[AttemptRow]] = defaultdict(list)
    ignored: list[Ignored] = []
    close_model, close_item = CloseNames(cohort.models), CloseNames(track_of)
    for row in run.attempts.rows:
        if not row_is_unique(row, first_line, file, problems):
            continue
        check_score_type_and_protocol(row, file, problems)
        if not track_agrees_with_suite(row, track_of, suite.suite, file, problems):
            continue
        if row.model not in cohort.models:
            ignored.append(Ignored(row, MODEL_NOT_IN_COHORT, close_model(row.model)))
        elif row.item not in track_of:
            ignored.append(Ignored(row, f"item not in suite '{suite.suite}'", close_item(row.item)))
        else:
            by_model[row.model].append(row)
            if row.adopted:
                check_adopted_row(row, run, file, problems)
    check_adopted_counts(by_model, run, file, problems)
    typos = cohort_typos(ignored, set(cohort.models) - set(by_model))
    ignored = [Ignored(i.row, i.reason) if i.row.model in typos else i for i in ignored]
    return Checked(dict(by_model), ignored, typos=typos), problems


def cohort_typos(ignored: list[Ignored], rowless: set[str]) -> dict[str, str]:
    """docs/rules.md#aggregation: a cohort model that no row names, close to a model outside the cohort that
    rows do name, is a typo in cohort.json (not in the rows): per rows' model, the cohort's name; the
    model with the most rows when two are close to one cohort name."""
    counts = Counter(
        (i.row.model, i.did_you_mean) for i in ignored if i.reason == MODEL_NOT_IN_COHORT and i.did_you_mean in rowless
    )
    out: dict[str, str] = {}
    taken: set[str] = set()
    for (model, cohort_model), _ in counts.most_common():
        if cohort_model is not None and cohort_model not in taken and model not in out:
            out[model] = cohort_model
            taken.add(cohort_model)
    return out


def check_planned_items(run: Run, problems: Problems) -> None:
    """Every item of a cohort's ``attempts_per_item`` is a task of the suite."""
    items = {t.item for t in run.suite.tasks}
    for model, plan in run.cohort.models.items():
        for item in plan.attempts_per_item:
            if item not in items:
                problems.add(
                    run.paths.cohort,
                    f"models.{model}.attempts_per_item",
                    item,
                    f"item '{item}' is not in suite '{run.suite.suite}'",
                )


def row_is_unique(row: AttemptRow, first_line: dict[tuple, int], file: str, problems: Problems) -> bool:
    """docs/rules.md#aggregation: (model, track, item, attempt) is unique over all rows, excluded ones included; a
    duplicate is a problem and is not checked further."""
    if row.key in first_line:
        problems.add(
            file,
            f"line {row.line}",
            "attempt",
            f"duplicate attempt '{row.attempt}' of ({row.model}, {row.track}, "
            f"{row.item}); first at line {first_line[row.key]}",
        )
        return False
    first_line[row.key] = row.line
    return True


def check_score_type_and_protocol(row: AttemptRow, file: str, problems: Problems) -> None:
    """docs/formats.md#attempts-table: a row's score_type fits its track; a solver row declares its protocol."""
    if row.score_type != TRACK_SCORE_TYPE[row.track]:
        problems.add(
            file,
            f"line {row.line}",
            "score_type",
            f"a {row.track} row takes score_type '{TRACK_SCORE_TYPE[row.track]}', got '{row.score_type}'",
        )
    if row.track == "solver" and not row.solver_protocol:
        problems.add(file, f"line {row.line}", "solver_protocol", "a solver row declares 'online' or 'offline'")


def track_agrees_with_suite(
    row: AttemptRow, track_of: Mapping[str, str], suite: str, file: str, problems: Problems
) -> bool:
    """docs/rules.md#aggregation: a row's track agrees with the suite manifest's for its item (an item outside the suite
    is left to the ignored rows); a row that disagrees is a problem and is not checked further."""
    if row.item in track_of and track_of[row.item] != row.track:
        problems.add(
            file,
            f"line {row.line}",
            "track",
            f"item '{row.item}' is a {track_of[row.item]} task in suite '{suite}', the row says '{row.track}'",
        )
        return False
    return True


def check_adopted_row(row: AttemptRow, run: Run, file: str, problems: Problems) -> None:
    """docs/rules.md#aggregation on an adopted row of the cohort: a solver row's protocol and reference_id are the
    cohort's; a score lies in its track's range (R2, ``score_in_range``)."""
    cohort, where = run.cohort, f"line {row.line}"
    if row.track == "solver" and row.solver_protocol and row.solver_protocol != cohort.solver_protocol:
        problems.add(
            file,
            where,
            "solver_protocol",
            f"adopted solver row is '{row.solver_protocol}' but the cohort's protocol is '{cohort.solver_protocol}'",
        )
    if row.track == "solver" and row.reference_id and row.reference_id != cohort.solver_reference_id:
        problems.add(
            file,
            where,
            "reference_id",
            f"row was scored against '{row.reference_id}', the cohort declares '{cohort.solver_reference_id}'",
        )
    if row.score is not None:
        why = score_in_range(row.track, row.score)
        if why:
            problems.add(file, where, "score", why)


def check_adopted_counts(by_model: dict[str, list[AttemptRow]], run: Run, file: str, problems: Problems) -> None:
    """docs/rules.md#aggregation: no task has more adopted attempts than planned."""
    for model, rows in by_model.items():
        adopted = Counter(r.item for r in rows if r.adopted)
        for item, count in adopted.items():
            planned = run.cohort.planned(model, item)
            if count > planned:
                lines = ", ".join(str(r.line) for r in rows if r.adopted and r.item == item)
                problems.add(
                    file,
                    f"lines {lines}",
                    "adoption_status",
                    f"{counted(count, 'adopted attempt')} of ({model}, {item}) but {planned} planned",
                )
