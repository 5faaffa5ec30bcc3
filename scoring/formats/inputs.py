"""Typed models of the contract's inputs (docs/formats.md).

The suite manifest, the cohort and the attempts rows are validated with these
models; a pydantic ``ValidationError`` is turned into ``Problem``s that name
the file, the record or key path, and the field. The reference and the
instance records, the inputs that reach 10^6 values, have msgspec decoders
next to their rules (``scoring.pipeline.reference``, ``scoring.pipeline.solver``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import Annotated, Any, get_args, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

from tcsexam.scoring.errors import Problem
from tcsexam.scoring.formats.wording import (
    MISSING,
    NON_EMPTY,
    UNKNOWN_FIELD,
    at_least,
    at_most,
    describe,
    must_be,
    not_a,
    one_of,
)
from tcsexam.scoring.grammar import counted
from tcsexam.scoring.vocab import (
    ADOPTED,
    MAX_PLANNED_ATTEMPTS,
    AdoptionStatus,
    Protocol,
    RowProtocol,
    ScoreStatus,
    ScoreType,
    Track,
)

NonEmpty = Annotated[StrictStr, Field(min_length=1)]


class SuiteTask(BaseModel):
    model_config = ConfigDict(extra="allow")
    item: NonEmpty
    track: Track


class SuiteManifest(BaseModel):  # docs/formats.md#suite-manifest; the docstring is the schema's description
    """A suite: its name and its tasks, each an item and the track it belongs to."""

    model_config = ConfigDict(extra="allow")
    suite: NonEmpty
    tasks: list[SuiteTask] = Field(min_length=1)


PlannedCount = Annotated[StrictInt, Field(ge=1, le=MAX_PLANNED_ATTEMPTS)]  # attempts of one task


class ModelPlan(BaseModel):
    model_config = ConfigDict(extra="forbid")
    attempts_per_task: PlannedCount
    attempts_per_item: dict[str, PlannedCount] = Field(default_factory=dict)


class Cohort(BaseModel):  # docs/formats.md#cohort; the docstring is the schema's description
    """The cohort of a run: the suite, the solver protocol and reference, the adoption rule, and the
    attempts planned for each model. Unknown keys are rejected, so that a misspelt key is never
    silently ignored."""

    model_config = ConfigDict(extra="forbid")
    suite: NonEmpty
    solver_protocol: Protocol
    solver_reference_id: NonEmpty
    adoption_rule: StrictStr = ""
    models: dict[str, ModelPlan] = Field(min_length=1)

    def planned(self, model: str, item: str) -> int:
        plan = self.models[model]
        return plan.attempts_per_item.get(item, plan.attempts_per_task)


@dataclass(frozen=True)
class Column:
    """A column of attempts.csv (docs/formats.md#attempts-table), declared on its ``AttemptRow``
    field: whether the header must hold it, and the cell ``init`` writes in it, ``skeleton`` (None:
    the planned attempt's value of that name, ``prepare.init.PlannedAttempt``)."""

    required: bool
    skeleton: str | None = None


@dataclass(slots=True, kw_only=True)
class AttemptRow:
    """One row of attempts.csv (``line`` is its line in the file), as pydantic validates it
    (``formats.attempts.validate_rows``). Each field annotated with a ``Column`` is a column, in the
    order init writes them: a new column is one field here. A plain class with slots, not a pydantic
    model: a run holds one per row (10^6 at the largest), and a model's per-instance dict and set of
    fields set cost ten times the memory and twice the time to validate and to cross from the
    dashboard's loader process (docs/performance.md#the-attempt-rows)."""

    line: int
    model: Annotated[NonEmpty, Column(required=True)]
    track: Annotated[Track, Column(required=True)]
    item: Annotated[NonEmpty, Column(required=True)]
    attempt: Annotated[NonEmpty, Column(required=True)]
    score: Annotated[float | None, Column(required=True, skeleton="")]  # read by formats.attempts.parse_score
    adoption_status: Annotated[AdoptionStatus, Column(required=True, skeleton="selected")]
    score_status: Annotated[ScoreStatus, Column(required=True, skeleton="missing")]
    score_type: Annotated[ScoreType, Column(required=True)]
    solver_protocol: Annotated[RowProtocol, Column(required=True)]
    note: Annotated[str, Column(required=False, skeleton="")] = ""
    reference_id: Annotated[str, Column(required=False, skeleton="")] = ""

    @property
    def adopted(self) -> bool:
        return self.adoption_status in ADOPTED

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.model, self.track, self.item, self.attempt)


# AttemptRow's fields: name -> (its annotated type, its default or dataclasses.MISSING)
ATTEMPT_ROW_FIELDS: dict[str, tuple[Any, Any]] = {
    f.name: (get_type_hints(AttemptRow, include_extras=True)[f.name], f.default) for f in fields(AttemptRow)
}

# the columns of attempts.csv, from AttemptRow: name -> Column, the required ones, the optional ones
ATTEMPTS_COLUMNS: dict[str, Column] = {
    name: meta
    for name, (annotated, _) in ATTEMPT_ROW_FIELDS.items()
    for meta in get_args(annotated)[1:]
    if isinstance(meta, Column)
}
REQUIRED_COLUMNS = tuple(name for name, column in ATTEMPTS_COLUMNS.items() if column.required)
OPTIONAL_COLUMNS = tuple(name for name, column in ATTEMPTS_COLUMNS.items() if not column.required)


def validate_object(model: type[BaseModel], raw: Any, file: str) -> Any:
    """Validate a parsed JSON object against ``model``; every problem is raised as an InputError."""
    from tcsexam.scoring.errors import InputError

    if not isinstance(raw, dict):
        raise InputError([Problem(file, "", "", not_a("an object", describe(raw)))])
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise InputError(problems_from_validation(exc, file)) from None


_BRANCHES = {"int", "float", "none", "bool", "str", "is-instance[int]"}  # pydantic's union branch tags
_KINDS = {
    "string_type": "a string",
    "bool_type": "true or false",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "list_type": "a list",
}


def reworded(err: Any, in_union: bool) -> str:
    """One pydantic error in the project's words (``formats.wording``), as msgspec's are."""
    kind, found = err["type"], describe(err.get("input"))
    if kind == "missing":
        return MISSING
    if kind == "extra_forbidden":
        return UNKNOWN_FIELD
    if kind == "string_too_short":
        return NON_EMPTY
    if kind == "too_short":  # a list or object that must hold something (the cohort's models, a suite's tasks)
        ctx = err["ctx"]
        return f"must hold at least {counted(ctx['min_length'], 'entry', 'entries')}, got {ctx.get('actual_length', 0)}"
    if kind in ("int_type", "int_from_float", "int_parsing") and not in_union:
        return must_be("a whole number", found)
    if kind in ("int_type", "float_type", "int_from_float", "float_parsing", "int_parsing", "finite_number"):
        return must_be("a number", found)
    if kind == "greater_than_equal":
        return at_least(err["ctx"]["ge"], found)
    if kind == "less_than_equal" and err["ctx"]["le"] == MAX_PLANNED_ATTEMPTS:
        return at_most(
            f"{MAX_PLANNED_ATTEMPTS:,}", found, " (the planned attempts of one task, tcsexam docs formats#cohort)"
        )
    if kind == "literal_error":
        return one_of(re.findall(r"'([^']*)'", err["ctx"]["expected"]), found, err.get("input"))
    if kind in _KINDS:
        return must_be(_KINDS[kind], found)
    msg = err["msg"]
    return msg[:1].lower() + msg[1:]


def problems_from_validation(
    exc: ValidationError, file: str, *, list_root: str | None = None, where: str = ""
) -> list[Problem]:
    """Turn pydantic errors into Problems. ``list_root`` names list items ('record' → 'record 3')."""
    out: list[Problem] = []
    for err in exc.errors():
        loc = list(err["loc"])
        in_union = any(isinstance(p, str) and p in ("int", "float") for p in loc)
        prefix = where
        if list_root is not None and loc and isinstance(loc[0], int):
            prefix = f"{list_root} {loc[0]}"
            loc = loc[1:]
        loc = [p for p in loc if not (isinstance(p, str) and p in _BRANCHES)]
        # a trailing list index belongs to the field: values[2]
        index = ""
        while loc and isinstance(loc[-1], int):
            index = f"[{loc.pop()}]" + index
        field = (str(loc[-1]) if loc else "") + index
        path = ".".join(str(p) for p in loc[:-1])
        location = ", ".join(x for x in (prefix, path) if x)
        out.append(Problem(file, location, field, reworded(err, in_union)))
    # a union of types reports one error per branch; keep one per (where, field)
    seen: set[tuple[str, str]] = set()
    unique = []
    for p in out:
        if (p.where, p.field) in seen:
            continue
        seen.add((p.where, p.field))
        unique.append(p)
    return unique
