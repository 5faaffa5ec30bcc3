"""attempts.csv's columns are declared once, on ``AttemptRow`` (docs/formats.md#attempts-table): the
loader, init, fill's edit and the schema take them from there, so a new column is one edit."""

from __future__ import annotations

from tcsexam.scoring.formats.inputs import (
    ATTEMPT_ROW_FIELDS,
    ATTEMPTS_COLUMNS,
    OPTIONAL_COLUMNS,
    REQUIRED_COLUMNS,
    Column,
)
from tcsexam.scoring.formats.schemas import schema

# the columns as docs/formats.md lists them, written out here (not taken from the code)
DOCUMENTED = {
    "model": (True, None),
    "track": (True, None),
    "item": (True, None),
    "attempt": (True, None),
    "score": (True, ""),
    "adoption_status": (True, "selected"),
    "score_status": (True, "missing"),
    "score_type": (True, None),
    "solver_protocol": (True, None),
    "note": (False, ""),
    "reference_id": (False, ""),
}


def test_the_declared_columns_are_the_documented_ones():
    assert {n: (c.required, c.skeleton) for n, c in ATTEMPTS_COLUMNS.items()} == DOCUMENTED
    assert list(ATTEMPTS_COLUMNS) == list(DOCUMENTED)  # the order init writes
    assert tuple(n for n, (req, _) in DOCUMENTED.items() if req) == REQUIRED_COLUMNS
    assert OPTIONAL_COLUMNS == ("note", "reference_id")
    assert set(ATTEMPT_ROW_FIELDS) == {"line", *DOCUMENTED}  # every field but the line is a column


def test_the_schema_follows_the_declaration():
    row_schema = schema("attempts-row")
    assert set(row_schema["properties"]) == set(ATTEMPTS_COLUMNS)
    assert row_schema["required"] == list(REQUIRED_COLUMNS)


def probe_columns(monkeypatch) -> dict[str, Column]:
    """The declaration with one more optional column, 'origin' (skeleton 'lab'), as every module that
    derives from it sees it."""
    from tcsexam.scoring.formats import attempts
    from tcsexam.scoring.prepare import csv_fields, init

    probe = {**ATTEMPTS_COLUMNS, "origin": Column(required=False, skeleton="lab")}
    for module in (attempts, csv_fields, init):
        monkeypatch.setattr(module, "ATTEMPTS_COLUMNS", probe)
    return probe


def test_a_new_column_reaches_init_and_fills_edit(monkeypatch):
    from types import SimpleNamespace

    from tcsexam.scoring.formats.inputs import Cohort, SuiteManifest
    from tcsexam.scoring.prepare.csv_fields import edited_text
    from tcsexam.scoring.prepare.init import filled_rows, init_text

    probe_columns(monkeypatch)
    cohort = Cohort.model_validate(
        {
            "suite": "lite",
            "solver_protocol": "online",
            "solver_reference_id": "r",
            "models": {"m": {"attempts_per_task": 1}},
        }
    )
    suite = SuiteManifest.model_validate(
        {"suite": "lite", "tasks": [{"item": "t", "track": "theorem"}, {"item": "s", "track": "solver"}]}
    )
    text = init_text(cohort, suite)
    assert text == (
        "model,track,item,attempt,score,adoption_status,score_status,score_type,solver_protocol,note,reference_id,origin\n"
        "m,theorem,t,1,,selected,missing,original_task_score,,,,lab\n"
        "m,solver,s,1,,selected,missing,fixed_reference_relative,online,,,lab\n"
    )
    assert filled_rows(text) == (0, 0)  # the skeleton cell counts as nothing filled in
    assert filled_rows(text.replace(",lab\n", ",elsewhere\n", 1)) == (1, 0)
    # fill's edit appends a declared column its header lacks, the skeleton cell on rows not edited
    header, *lines = text.splitlines(keepends=True)
    without = header.replace(",origin", "") + "".join(line.replace(",lab", "") for line in lines)
    rows = [SimpleNamespace(model="m", item=i, attempt="1", line=n) for n, i in ((2, "t"), (3, "s"))]
    columns = header.strip().split(",")[:-1]
    got = edited_text(without, columns, rows, {3: {"score": "0.5", "origin": "bench-2"}})
    assert got.splitlines()[0].endswith(",reference_id,origin")
    assert got.splitlines()[1].endswith(",,,lab") and got.splitlines()[2] == (
        "m,solver,s,1,0.5,selected,missing,fixed_reference_relative,online,,,bench-2"
    )
