"""The attempts table (SPEC section 2.4): a UTF-8 CSV with a header row.

BOM and CRLF are accepted; blank lines are skipped; cells are stripped of
surrounding white space. Every bad row is reported with its line and field,
and the remaining rows are still checked so that all problems show at once.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
from dataclasses import dataclass, field
from functools import cache
from operator import itemgetter
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from scoring.errors import InputError, Problem, Problems
from scoring.formats.inputs import AttemptRow, problems_from_validation
from scoring.safety.files import read_regular_file
from scoring.safety.names import check_name
from scoring.vocab import OPTIONAL_COLUMNS, REQUIRED_COLUMNS

# the score cells the loader reads (the attempts-row schema uses the same patterns): a decimal number,
# or nan / inf / infinity in any case with an optional sign (only an excluded row may keep one, SPEC 4)
_NUMBER = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$")


_NON_FINITE = re.compile(r"^[+-]?(?:[nN][aA][nN]|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?)$")


@dataclass
class AttemptsTable:
    path: Path
    rows: list[AttemptRow]
    columns: list[str]
    problems: list[Problem] = field(default_factory=list)
    sha256: str = ""


def parse_score(text: str) -> float:
    """A decimal number; 'nan'/'inf' parse to non-finite floats (judged later by the rules)."""
    if _NUMBER.match(text) or _NON_FINITE.match(text):
        return float(text)
    raise ValueError(f"not a number: {text!r}")


def decode_csv(data: bytes, file: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            [Problem(file, f"line {line}", "", f"not valid UTF-8 (byte {exc.start}); save the file as UTF-8")]
        ) from None


def parse_attempts(text: str, file: str) -> AttemptsTable:
    """Parse the table; rows with problems are left out and their problems collected (not raised)."""
    problems = Problems()
    if "\x00" in text:
        raise InputError([Problem(file, "", "", "contains NUL bytes: not a CSV text file")])
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        raise InputError([Problem(file, "line 1", "", "file is empty: a header row is required")]) from None
    except csv.Error as exc:
        raise InputError([Problem(file, "line 1", "", f"malformed CSV: {exc}")]) from None
    columns = [c.strip() for c in header]
    missing = [c for c in REQUIRED_COLUMNS if c not in columns]
    if missing:
        raise InputError([Problem(file, "line 1", c, "required column is missing from the header") for c in missing])
    dupes = sorted({c for c in columns if c and columns.count(c) > 1})
    if dupes:
        raise InputError([Problem(file, "line 1", c, "column appears twice in the header") for c in dupes])
    index = {c: i for i, c in enumerate(columns)}
    fields = [c for c in (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS) if c in index]
    pick = itemgetter(*(index[c] for c in fields))  # the known columns of a row, in one call
    pending: list[tuple[int, dict]] = []  # (line, cells by column) of rows still to validate
    found: list[tuple[int, Problem]] = []  # problems by line, sorted at the end
    start = 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            found.append((reader.line_num, Problem(file, f"line {reader.line_num}", "", f"malformed CSV: {exc}")))
            break
        line = start + 1  # the line the record starts on
        start = reader.line_num
        if not "".join(cells).strip():
            continue
        if len(cells) != len(columns):
            found.append(
                (
                    line,
                    Problem(
                        file, f"line {line}", "", f"expected {len(columns)} fields as in the header, found {len(cells)}"
                    ),
                )
            )
            continue
        data: dict = dict(zip(fields, map(str.strip, pick(cells)), strict=True))
        data["line"] = line
        score_text = data["score"]
        if score_text == "":
            data["score"] = None
        else:
            try:
                data["score"] = parse_score(score_text)
            except ValueError as exc:
                found.append((line, Problem(file, f"line {line}", "score", str(exc))))
                continue
        pending.append((line, data))
    rows: list[AttemptRow] = []
    for line, row in validate_rows(pending, file, found):
        bad_names = [
            (kind, problem)
            for kind, value in (("model", row.model), ("item", row.item), ("attempt", row.attempt))
            if (problem := check_name(value, kind))
        ]
        if bad_names:  # SPEC 13: a name that could leave its folder rejects the row
            found.extend((line, Problem(file, f"line {line}", kind, problem)) for kind, problem in bad_names)
            continue
        if row.score is None and row.score_status == "valid":
            found.append(
                (
                    line,
                    Problem(
                        file,
                        f"line {line}",
                        "score",
                        "empty score with score_status 'valid' "
                        "(a score may be empty only when the result is not there yet)",
                    ),
                )
            )
            continue
        rows.append(row)
    found.sort(key=itemgetter(0))  # stable: a line's problems keep their order
    problems.extend(p for _, p in found)
    return AttemptsTable(Path(file), rows, columns, problems.items)


@cache
def _rows_adapter() -> TypeAdapter:
    return TypeAdapter(list[AttemptRow])


def validate_rows(pending: list[tuple[int, dict]], file: str, found: list) -> list[tuple[int, AttemptRow]]:
    """The valid rows, validated in one pydantic call; when some row fails, row by row, so that
    each problem is worded with its line (and added to ``found``) and the good rows are kept."""
    try:
        return list(
            zip((line for line, _ in pending), _rows_adapter().validate_python([d for _, d in pending]), strict=True)
        )
    except ValidationError:
        pass
    valid = []
    for line, data in pending:
        try:
            valid.append((line, AttemptRow.model_validate(data)))
        except ValidationError as exc:
            found.extend((line, p) for p in problems_from_validation(exc, file, where=f"line {line}"))
    return valid


def load_attempts(path: Path) -> AttemptsTable:
    data = read_regular_file(path, "attempts table")  # SPEC 13: a regular file only
    text = decode_csv(data, str(path))
    if not text.strip():
        raise InputError([Problem(str(path), "line 1", "", "file is empty: a header row is required")])
    table = parse_attempts(text, str(path))
    table.sha256 = hashlib.sha256(data).hexdigest()
    return table
