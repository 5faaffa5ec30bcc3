"""JSON Schemas of every format the tool reads or writes (docs/commands.md, ``tcsexam schema``).

Each schema is generated from the type that decodes the input or checks the output, never
written by hand: msgspec types through ``msgspec.json.schema``, pydantic models through
``model_json_schema`` (both draft 2020-12, definitions under ``$defs``). The attempts table is
CSV: its schema describes one row as the object of its cells (strings, stripped of surrounding
white space; extra columns allowed), from the fields of ``AttemptRow``.

What the types alone do not say is stated on them (``msgspec.Meta``: fixed weights and metric id,
track keys, sha256 patterns; see scoring/formats/results.py) or here (the score cell). A one-value ``enum``
(msgspec's form of a one-value ``Literal``) is written as ``const``. The class docstrings become the
schemas' descriptions, which users read: they say what the format is, in the project's words.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import cache
from typing import Any

DRAFT = "https://json-schema.org/draft/2020-12/schema"


def _msgspec(t: Any) -> Callable[[], dict]:
    import msgspec

    return lambda: msgspec.json.schema(t)


def _pydantic(model: Any) -> Callable[[], dict]:
    return lambda: model.model_json_schema(mode="validation")


def attempts_row_model() -> Any:
    """docs/formats.md#attempts-table: one attempts.csv row as its cells, a pydantic model built from ``AttemptRow``'s
    fields. ``score`` is a cell the loader reads (``scoring.formats.attempts``): empty, a decimal number, or
    nan / inf / infinity in any case with a sign; the last only on an excluded row (an adopted row's
    score must be finite, docs/rules.md#aggregation), and empty only when ``score_status`` is not ``valid``."""
    from typing import Annotated

    from pydantic import ConfigDict, Field, create_model

    from tcsexam.scoring.formats.attempts import _NON_FINITE, _NUMBER
    from tcsexam.scoring.formats.inputs import ATTEMPT_ROW_FIELDS
    from tcsexam.scoring.vocab import ADOPTED

    fields: dict[str, Any] = {}
    for name, (annotated, default) in ATTEMPT_ROW_FIELDS.items():
        if name == "line":  # where the row sits, not a cell
            continue
        if name == "score":
            cell = Annotated[str, Field(pattern=f"^$|{_NUMBER.pattern}|{_NON_FINITE.pattern}")]
            fields[name] = (cell, ...)
        else:
            fields[name] = (annotated, ... if default is dataclasses.MISSING else default)
    rules: list[Any] = [
        {  # an adopted row's score is empty or finite
            "if": {"properties": {"adoption_status": {"enum": list(ADOPTED)}}, "required": ["adoption_status"]},
            "then": {"properties": {"score": {"pattern": f"^$|{_NUMBER.pattern}"}}},
        },
        {  # a valid row has a score
            "if": {"properties": {"score_status": {"const": "valid"}}, "required": ["score_status"]},
            "then": {"properties": {"score": {"minLength": 1}}},
        },
    ]
    return create_model(
        "AttemptsRow",
        __config__=ConfigDict(extra="allow", json_schema_extra={"allOf": rules}),
        __doc__="One row of attempts.csv as the object of its cells (white space around each cell is "
        "dropped; columns beyond these are allowed). A score is empty (only while the result is not "
        "there: score_status other than valid), a decimal number, or, on an excluded row only, nan or "
        "inf (tcsexam docs formats#attempts-table).",
        **fields,
    )


def _types() -> dict[str, Callable[[], dict]]:
    from tcsexam.scoring.formats.inputs import Cohort, SuiteManifest
    from tcsexam.scoring.formats.packed import PackedRecordsLine
    from tcsexam.scoring.formats.records import Record
    from tcsexam.scoring.formats.reference import Reference
    from tcsexam.scoring.formats.results import (
        CompareDocument,
        DiffOutput,
        IndexDocument,
        PlanDocument,
        SolverScoreOutput,
        Tau2Output,
        ValidateOutput,
    )

    return {
        "suite": _pydantic(SuiteManifest),
        "reference": _msgspec(Reference),
        "records": _msgspec(list[Record]),
        "packed-records-line": _msgspec(PackedRecordsLine),
        "cohort": _pydantic(Cohort),
        "attempts-row": _pydantic(attempts_row_model()),
        "index": _msgspec(IndexDocument),
        "solver-score": _msgspec(SolverScoreOutput),
        "compare": _msgspec(CompareDocument),
        "tau2": _msgspec(Tau2Output),
        "plan": _msgspec(PlanDocument),
        "diff": _msgspec(DiffOutput),
        "validate": _msgspec(ValidateOutput),
    }


# the formats of docs/commands.md and diff's JSON output, in the order ``tcsexam schema`` writes them
NAMES = (
    "suite",
    "reference",
    "records",
    "packed-records-line",
    "cohort",
    "attempts-row",
    "index",
    "solver-score",
    "compare",
    "tau2",
    "plan",
    "diff",
    "validate",
)


def _constants(node: Any) -> Any:
    """``node`` with every one-value ``enum`` written as ``const`` (the same constraint, said plainly)
    and every description on one line (msgspec keeps a docstring's line breaks and indent)."""
    if isinstance(node, dict):
        out = {k: _constants(v) for k, v in node.items()}
        if isinstance(out.get("description"), str):
            out["description"] = " ".join(out["description"].split())
        enum = out.get("enum")
        if isinstance(enum, list) and len(enum) == 1 and "const" not in out:
            del out["enum"]
            out["const"] = enum[0]
        return out
    if isinstance(node, list):
        return [_constants(v) for v in node]
    return node


@cache
def schema(name: str) -> dict:
    """The JSON Schema (draft 2020-12) of the format ``name`` (one of NAMES). No ``$id``: the schemas
    are files the user writes where they like (``tcsexam schema --output DIR``), not a published URL."""
    generated = _constants(_types()[name]())
    return {"$schema": DRAFT, "title": f"tcsexam {name}", **generated}


def schema_bytes(name: str) -> bytes:
    """A schema as written by ``tcsexam schema``: indented JSON with a final newline."""
    import msgspec

    return msgspec.json.format(msgspec.json.encode(schema(name)), indent=2) + b"\n"
