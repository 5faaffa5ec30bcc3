"""A run given as Python objects (docs/api.md#a-run-in-memory): written as the files of a run folder
into a private temporary folder, which the file loaders then read, so that objects and files meet
exactly the same rules. Problems are named after the objects, never the temporary files: ``cohort``,
``rows[i]`` (the i-th row, counted from 0; line i + 2 of an attempts.csv), ``records[(model, item,
attempt)]``."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tcsexam.scoring.errors import InputError, Problem
from tcsexam.scoring.safety.files import records_file
from tcsexam.scoring.safety.names import check_name
from tcsexam.scoring.vocab import ATTEMPTS_FILE, COHORT_FILE, RECORDS_FOLDER

RecordsKey = tuple[str, str, str]  # (model, item, attempt)
COHORT = "cohort"
ROWS = "rows"
RECORDS = "records"
FIRST_ROW_LINE = 2  # rows[0] is line 2 of attempts.csv, under its header

_LINES = re.compile(r"\blines? (\d+(?:, \d+)*)")


def row_dicts(rows: Any) -> list[Mapping[str, Any]]:
    """The rows as dicts: a list of dicts, or a pandas (``to_dict``) or polars (``to_dicts``) frame."""
    if hasattr(rows, "to_dicts"):
        return list(rows.to_dicts())
    if hasattr(rows, "to_dict") and not isinstance(rows, Mapping):
        return list(rows.to_dict("records"))
    if isinstance(rows, Mapping | str | bytes):
        raise TypeError("rows must be a list of dicts (one per attempt) or a data frame")
    found = list(rows)
    problems = [
        Problem(ROWS, f"rows[{i}]", "", f"a row is a dict of column names to values, not a {type(row).__name__}")
        for i, row in enumerate(found)
        if not isinstance(row, Mapping)
    ]
    if problems:
        raise InputError(problems)
    return found


def cell(value: Any) -> str:
    """A value as attempts.csv writes it: None and NaN (a pandas empty cell) empty, a float in its
    shortest round-trip form."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float):
        return repr(value)
    return str(value)


def attempts_csv(rows: list[Mapping[str, Any]]) -> str:
    """The rows as an attempts table: the header is every key, in the order first met."""
    columns: dict[str, None] = {}
    for row in rows:
        columns.update(dict.fromkeys(str(k) for k in row))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([cell(row.get(c)) for c in columns])
    return out.getvalue()


def write_run(
    folder: Path,
    cohort: Mapping[str, Any],
    rows: Any,
    records: Mapping[RecordsKey, Any] | None,
) -> dict[str, str]:
    """Write the objects into ``folder`` as a run folder; the names of its files as problems show
    them (``named``). A records key that is no (model, item, attempt) of names is rejected."""
    names = {str(folder / COHORT_FILE): COHORT, str(folder / ATTEMPTS_FILE): ROWS}
    (folder / COHORT_FILE).write_text(json.dumps(cohort, allow_nan=False, default=str), encoding="utf-8")
    (folder / ATTEMPTS_FILE).write_text(attempts_csv(row_dicts(rows)), encoding="utf-8")
    if records is None:
        return names
    root = folder / RECORDS_FOLDER
    root.mkdir()
    names[str(root)] = RECORDS
    problems = [p for key in records for p in key_problems(key)]
    if problems:
        raise InputError(problems)
    for key, content in records.items():
        path = Path(records_file(str(root), *key))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(content, allow_nan=False), encoding="utf-8")
        names[str(path)] = f"{RECORDS}[{key!r}]"
    return names


def key_problems(key: Any) -> Iterable[Problem]:
    """A records key must be a (model, item, attempt) tuple of names (docs/safety.md)."""
    where = f"key {key!r}"
    if not (isinstance(key, tuple) and len(key) == 3 and all(isinstance(k, str) for k in key)):
        return [Problem(RECORDS, where, "", "a records key is a (model, item, attempt) tuple of strings")]
    found = []
    for value, kind in zip(key, ("model", "item", "attempt"), strict=True):
        problem = check_name(value, kind)
        if problem:
            found.append(Problem(RECORDS, where, kind, problem))
    return found


def named(problem: Problem, names: Mapping[str, str], folder: Path) -> Problem:
    """``problem`` with the temporary files named after the objects they hold."""
    file = names.get(problem.file, problem.file.replace(str(folder), "<in memory>"))
    where = problem.where
    if file == ROWS:
        where = _LINES.sub(lambda m: ", ".join(_row(int(n)) for n in m.group(1).split(", ")), where)
    message = problem.message.replace(str(folder) + os.sep, "").replace(str(folder), "<in memory>")
    if file == ROWS and where == "the header" and message.startswith("required column is missing"):
        where, message = (
            "every row",
            (
                f"no row has the key '{problem.field}', a column every row needs (its value may be empty where "
                "it does not apply, as solver_protocol on a theorem row)"
            ),
        )
    return Problem(file, where, problem.field, message)


def _row(line: int) -> str:
    return f"rows[{line - FIRST_ROW_LINE}]" if line >= FIRST_ROW_LINE else "the header"


@contextmanager
def problems_named(names: Mapping[str, str], folder: Path | None) -> Iterator[None]:
    """Re-raise an InputError of the block with its problems named after the objects of a run in
    memory (its private ``folder``); a run read from a folder (None) keeps its problems as they are."""
    try:
        yield
    except InputError as exc:
        if folder is None:
            raise
        raise InputError([named(p, names, folder) for p in exc.problems]) from None
