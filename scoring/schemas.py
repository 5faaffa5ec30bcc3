"""JSON Schemas of every format the tool reads or writes (SPEC section 11, ``tcsexam schema``).

Each schema is generated from the type that decodes the input or checks the output, never
written by hand: msgspec types through ``msgspec.json.schema``, pydantic models through
``model_json_schema`` (both draft 2020-12, definitions under ``$defs``). The attempts table is
CSV: its schema describes one row as the object of its cells (strings, stripped of surrounding
white space; extra columns allowed), from the fields of ``AttemptRow``.
"""

from __future__ import annotations

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
    """SPEC 2.4: one attempts.csv row as its cells, a pydantic model built from ``AttemptRow``'s
    fields; ``score`` is a cell holding a decimal number, or empty."""
    from typing import Annotated

    from pydantic import ConfigDict, Field, create_model

    from .attempts import _NUMBER
    from .models import AttemptRow

    fields: dict[str, Any] = {}
    for name, info in AttemptRow.model_fields.items():
        if name == "line":  # where the row sits, not a cell
            continue
        if name == "score":
            cell = Annotated[str, Field(pattern=f"^$|{_NUMBER.pattern}")]
            fields[name] = (cell, ...)
        else:
            fields[name] = (info.annotation, info)
    return create_model(
        "AttemptsRow",
        __config__=ConfigDict(extra="allow"),
        __doc__="SPEC 2.4: one row of attempts.csv as the object of its (stripped) cells.",
        **fields,
    )


def _types() -> dict[str, Callable[[], dict]]:
    from .models import Cohort, SuiteManifest
    from .reference import Reference
    from .results import CompareDocument, DiffOutput, IndexDocument, PlanDocument, SolverScoreOutput, Tau2Output
    from .solver_score import Record

    return {
        "suite": _pydantic(SuiteManifest),
        "reference": _msgspec(Reference),
        "records": _msgspec(list[Record]),
        "cohort": _pydantic(Cohort),
        "attempts-row": _pydantic(attempts_row_model()),
        "index": _msgspec(IndexDocument),
        "solver-score": _msgspec(SolverScoreOutput),
        "compare": _msgspec(CompareDocument),
        "tau2": _msgspec(Tau2Output),
        "plan": _msgspec(PlanDocument),
        "diff": _msgspec(DiffOutput),
    }


# the formats of SPEC 11 and diff's JSON output, in the order ``tcsexam schema`` writes them
NAMES = (
    "suite",
    "reference",
    "records",
    "cohort",
    "attempts-row",
    "index",
    "solver-score",
    "compare",
    "tau2",
    "plan",
    "diff",
)


@cache
def schema(name: str) -> dict:
    """The JSON Schema (draft 2020-12) of the format ``name`` (one of NAMES)."""
    generated = _types()[name]()
    return {"$schema": DRAFT, "$id": f"tcsexam:{name}.schema.json", "title": f"tcsexam {name}", **generated}


def schema_bytes(name: str) -> bytes:
    """A schema as written by ``tcsexam schema``: indented JSON with a final newline."""
    import msgspec

    return msgspec.json.format(msgspec.json.encode(schema(name)), indent=2) + b"\n"
