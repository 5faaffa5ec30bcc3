"""The attempts table (docs/formats.md#attempts-table): a UTF-8 CSV with a header row.

BOM and CRLF are accepted; blank lines are skipped; cells are stripped of
surrounding white space. Every bad row is reported with its line and field,
and the remaining rows are still checked so that all problems show at once.
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache
from itertools import islice
from operator import itemgetter
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from tcsexam.scoring.errors import InputError, Problem
from tcsexam.scoring.formats.inputs import ATTEMPTS_COLUMNS, REQUIRED_COLUMNS, AttemptRow, problems_from_validation
from tcsexam.scoring.safety.files import read_regular_file
from tcsexam.scoring.safety.names import check_name

# the score cells the loader reads (the attempts-row schema uses the same patterns): a decimal number,
# or nan / inf / infinity in any case with an optional sign (only an excluded row may keep one, docs/rules.md#aggregation)
_NUMBER = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$")


_NON_FINITE = re.compile(r"^[+-]?(?:[nN][aA][nN]|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?)$")


_DECIMAL_COMMA = re.compile(r"^[+-]?\d+,\d+$")  # '0,85': a spreadsheet's decimal comma


@dataclass
class AttemptsTable:
    path: Path
    rows: list[AttemptRow]
    columns: list[str]
    problems: list[Problem] = field(default_factory=list)
    sha256: str = ""


VALIDATED_TOGETHER = 4096  # rows per pydantic call (parse_attempts)


def parse_score(text: str) -> float:
    """A decimal number; 'nan'/'inf' parse to non-finite floats (judged later by the rules). A
    decimal comma or a percentage is refused with the number as it should be written."""
    if _NUMBER.match(text):
        value = float(text)
        if math.isinf(value):  # '1e400' is no score written as infinity: say what was typed
            raise ValueError(f"{text!r} is out of range: a score must be finite (within about ±1.8e308)")
        return value
    if _NON_FINITE.match(text):
        return float(text)
    raise ValueError(f"not a number: {text!r}{number_hint(text)}")


def number_hint(text: str) -> str:
    """How a score written as '0,85' or '85%' is written here ('' for anything else)."""
    if _DECIMAL_COMMA.match(text):
        return f": use a decimal point: {text.replace(',', '.')}"
    if text.endswith("%") and _NUMBER.match(text[:-1].strip()):
        fraction = Decimal(text[:-1].strip()).scaleb(-2).normalize()
        return f": write it as a fraction: {fraction:f}"
    return ""


def decode_csv(data: bytes, file: str) -> str:
    """The table's text (docs/formats.md#attempts-table: UTF-8, a BOM allowed); a UTF-16 file (a
    spreadsheet's "Unicode text") is said to be one, other bytes by their line and offset."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):
            message = "UTF-16 text (a spreadsheet's 'Unicode text'), not UTF-8: save it as 'CSV UTF-8'"
            raise InputError([Problem(file, "line 1", "", message)]) from None
        line = data.count(b"\n", 0, exc.start) + 1
        before = data[data.rfind(b"\n", 0, exc.start) + 1 : exc.start]  # valid UTF-8: the first bad byte is later
        column = len(before.decode("utf-8", errors="replace").removeprefix("\ufeff")) + 1  # in characters
        message = f"byte {data[exc.start]:#04x} in column {column} is not valid UTF-8; save the file as UTF-8"
        raise InputError([Problem(file, f"line {line}", "", message)]) from None


def read_header(reader, file: str) -> list[str]:
    """The header's column names, stripped; an empty or malformed first record is an InputError."""
    try:
        return [c.strip() for c in next(reader)]
    except StopIteration:
        raise InputError([Problem(file, "line 1", "", "file is empty: a header row is required")]) from None
    except csv.Error as exc:
        raise InputError([Problem(file, "line 1", "", f"malformed CSV: {exc}")]) from None


def header_problems(columns: list[str], file: str) -> list[Problem]:
    """docs/formats.md#attempts-table: every required column once; a column may appear once.
    A header of another separator, or of capitalised names, is said to be so (one problem, not
    one per missing column). Linear in the columns."""
    present = set(columns)
    missing = [c for c in REQUIRED_COLUMNS if c not in present]
    if missing:
        for separator, name in ((";", "semicolon"), ("\t", "tab")):
            cells = {c.strip().lower() for c in ",".join(columns).split(separator)}
            if len(cells & set(missing)) > 1:
                return [
                    Problem(
                        file,
                        "line 1",
                        "",
                        f"this header looks {name}-separated: tcsexam reads comma-separated CSV "
                        "(save it with commas between the fields)",
                    )
                ]
        by_lower = {c.lower(): c for c in columns}
        return [
            Problem(
                file,
                "line 1",
                c,
                f"required column is missing from the header (found '{by_lower[c]}': column names are lower case)"
                if c in by_lower
                else "required column is missing from the header",
            )
            for c in missing
        ]
    counts = Counter(columns)
    dupes = sorted(c for c, n in counts.items() if c and n > 1)
    return [Problem(file, "line 1", c, "column appears twice in the header") for c in dupes]


def row_data(cells: list[str], fields: list[str], pick, line: int, file: str) -> dict | Problem:
    """A row's known cells by column (``pick`` takes them from the record), its line and its score
    parsed; a score that is not a number is the row's problem."""
    data: dict = dict(zip(fields, map(str.strip, pick(cells)), strict=True))
    data["line"] = line
    score_text = data["score"]
    if score_text == "":
        data["score"] = None
        return data
    try:
        data["score"] = parse_score(score_text)
    except ValueError as exc:
        return Problem(file, f"line {line}", "score", str(exc))
    return data


def records_of(
    reader, ncolumns: int, fields: list[str], pick, file: str, found: list, score_at: int | None = None
) -> Iterator[tuple[int, dict]]:
    """(line, cells by column) of every non-blank record after the header, as they are read; a record
    of another length, a malformed one (the last read) and a bad score are added to ``found``.
    ``score_at``: the score's column, for the hint of a decimal comma."""
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
        if len(cells) != ncolumns:
            message = f"expected {ncolumns} fields as in the header, found {len(cells)}"
            found.append((line, Problem(file, f"line {line}", "", message + decimal_comma(cells, ncolumns, score_at))))
            continue
        data = row_data(cells, fields, pick, line, file)
        if isinstance(data, Problem):
            found.append((line, data))
        else:
            yield line, data


DIGITS, FRACTION = re.compile(r"[+-]?[0-9]+"), re.compile(r"[0-9]+")


def decimal_comma(cells: list[str], ncolumns: int, score_at: int | None) -> str:
    """A record one field too long whose score and the field after it are digits, as an unquoted
    ``0,85`` reads: the hint to write a decimal point (docs/formats.md#attempts-table); else ''."""
    if score_at is None or len(cells) != ncolumns + 1 or score_at + 1 >= len(cells):
        return ""
    whole, fraction = cells[score_at].strip(), cells[score_at + 1].strip()
    if not DIGITS.fullmatch(whole) or not FRACTION.fullmatch(fraction):
        return ""
    return f": is the score {whole},{fraction} written with a decimal comma? write {whole}.{fraction} (a comma separates fields)"


def row_problems(row: AttemptRow, file: str) -> list[Problem]:
    """A validated row's own problems: a name that could leave its folder (docs/safety.md), an
    empty score on a valid row."""
    where = f"line {row.line}"
    problems = [
        Problem(file, where, kind, problem)
        for kind, value in (("model", row.model), ("item", row.item), ("attempt", row.attempt))
        if (problem := check_name(value, kind))
    ]
    if not problems and row.score is None and row.score_status == "valid":
        problems.append(
            Problem(
                file,
                where,
                "score",
                "empty score with score_status 'valid' (a score may be empty only when the result is not there yet)",
            )
        )
    return problems


def parse_attempts(text: str, file: str) -> AttemptsTable:
    """Parse the table; rows with problems are left out and their problems collected (not raised),
    in line order."""
    if "\x00" in text:
        raise InputError([Problem(file, "", "", "contains NUL bytes: not a CSV text file")])
    reader = csv.reader(io.StringIO(text, newline=""))
    columns = read_header(reader, file)
    header = header_problems(columns, file)
    if header:
        raise InputError(header)
    index = {c: i for i, c in enumerate(columns)}
    fields = [c for c in ATTEMPTS_COLUMNS if c in index]
    pick = itemgetter(*(index[c] for c in fields))  # the known columns of a row, in one call
    found: list[tuple[int, Problem]] = []  # problems by line, sorted at the end
    records = records_of(reader, len(columns), fields, pick, file, found, index.get("score"))
    rows: list[AttemptRow] = []
    # validated VALIDATED_TOGETHER rows at a time: the rows' dictionaries are let go batch by batch, so
    # that they never take more than a batch's memory and the rows kept are laid out together
    while pending := list(islice(records, VALIDATED_TOGETHER)):
        for line, row in validate_rows(pending, file, found):
            problems = row_problems(row, file)
            found.extend((line, p) for p in problems)
            if not problems:
                rows.append(row)
    found.sort(key=itemgetter(0))  # stable: a line's problems keep their order
    return AttemptsTable(Path(file), rows, columns, [p for _, p in found])


@cache
def _rows_adapter() -> TypeAdapter:
    return TypeAdapter(list[AttemptRow])


@cache
def _row_adapter() -> TypeAdapter:
    return TypeAdapter(AttemptRow)


def validate_rows(pending: list[tuple[int, dict]], file: str, found: list) -> list[tuple[int, AttemptRow]]:
    """The valid rows of a batch, validated in one pydantic call; when some row fails, row by row, so that
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
            valid.append((line, _row_adapter().validate_python(data)))
        except ValidationError as exc:
            found.extend((line, p) for p in problems_from_validation(exc, file, where=f"line {line}"))
    return valid


def load_attempts(path: Path) -> AttemptsTable:
    data = read_regular_file(path, "attempts table")  # docs/safety.md: a regular file only
    text = decode_csv(data, str(path))
    if not text.strip():
        raise InputError([Problem(str(path), "line 1", "", "file is empty: a header row is required")])
    table = parse_attempts(text, str(path))
    table.sha256 = hashlib.sha256(data).hexdigest()
    return table
