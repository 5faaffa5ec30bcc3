"""attempts.csv at field level: edit the given cells of given rows, keeping every other byte."""

from __future__ import annotations

import re

from tcsexam.scoring.formats.inputs import ATTEMPTS_COLUMNS

_FIELD_END = re.compile(r"[,\r\n]")


class CsvRecord:
    """One CSV record of the text: each field's span (raw, quotes included) and unquoted value, and
    where its line terminator (or the text) starts. A line with no quote and no CR is split on its
    commas only when its fields are asked for: fill edits a quarter of a large table's lines."""

    __slots__ = ("_spans", "_start", "_text", "_values", "end")

    def __init__(self, text: str, start: int, end: int, spans=None, values=None) -> None:
        self._text, self._start, self.end = text, start, end
        self._spans: list[tuple[int, int]] | None = spans
        self._values: list[str] | None = values

    @property
    def values(self) -> list[str]:
        if self._values is None:
            self._values = self._text[self._start : self.end].split(",")
        return self._values

    @property
    def spans(self) -> list[tuple[int, int]]:
        if self._spans is None:
            places, pos = [], self._start
            for cell in self.values:
                places.append((pos, pos + len(cell)))
                pos += len(cell) + 1
            self._spans = places
        return self._spans

    @property
    def start(self) -> int:
        return self._start

    @property
    def blank(self) -> bool:
        """Every field empty or white space: the csv reader's rows skip such a record."""
        if self._values is None:
            return not self._text[self._start : self.end].replace(",", "").strip()
        return not "".join(self._values).strip()


def scan_csv(text: str) -> list[CsvRecord]:
    """Split ``text`` into records as Python's csv module (excel dialect, non-strict) reads it,
    keeping where every field sits, so that a field can be replaced without touching the rest."""
    records: list[CsvRecord] = []
    i, n = 0, len(text)
    while i < n:
        newline = text.find("\n", i)
        stop = n if newline < 0 else newline
        body = stop - 1 if stop > i and text[stop - 1] == "\r" else stop
        if text.find('"', i, stop) < 0 and text.find("\r", i, body) < 0:
            records.append(CsvRecord(text, i, body))  # no quote, no bare CR: fields are split on ','
            i = stop + 1
        else:
            record = _quoted_record(text, i)
            records.append(record)
            i = _after_terminator(text, record.end)
    return records


def _quoted_record(text: str, i: int) -> CsvRecord:
    """The record starting at ``i``, field by field (quoted fields may hold commas and line breaks)."""
    spans: list[tuple[int, int]] = []
    values: list[str] = []
    while True:
        start = i
        value, i = _quoted_field(text, i) if text.startswith('"', i) else _bare_field(text, i)
        spans.append((start, i))
        values.append(value)
        if not text.startswith(",", i):
            return CsvRecord(text, spans[0][0], i, spans, values)
        i += 1


def _bare_field(text: str, i: int) -> tuple[str, int]:
    """An unquoted field from ``i`` to the next comma or line break: its value and where it ends."""
    m = _FIELD_END.search(text, i)
    j = m.start() if m else len(text)
    return text[i:j], j


def _quoted_field(text: str, i: int) -> tuple[str, int]:
    """A field opening with a quote at ``i``: its value ('""' read as '"') and where it ends."""
    n = len(text)
    i += 1
    buf = []
    while i < n:
        c = text[i]
        if c == '"':
            if i + 1 < n and text[i + 1] == '"':
                buf.append('"')
                i += 2
                continue
            i += 1
            break
        buf.append(c)
        i += 1
    rest, j = _bare_field(text, i)
    buf.append(rest)  # non-strict: text after the closing quote belongs to the field
    return "".join(buf), j


def _after_terminator(text: str, i: int) -> int:
    """Where the next record starts: past a CRLF, CR or LF at ``i`` (or ``i`` itself at the end)."""
    if text.startswith("\r\n", i):
        return i + 2
    if text.startswith(("\r", "\n"), i):
        return i + 1
    return i


def csv_cell(value: str, was_quoted: bool) -> str:
    """A cell as written back: quoted when the old one was, or when the value needs it."""
    if was_quoted or any(c in value for c in ',"\r\n') or value != value.strip():
        return '"' + value.replace('"', '""') + '"'
    return value


def line_ending(text: str) -> str:
    """The text's line ending, that of its first line: CRLF, LF, or CR when it has no LF ('\n' for one line)."""
    first = text.find("\n")
    if first > 0 and text[first - 1] == "\r":
        return "\r\n"
    return "\r" if first < 0 and "\r" in text else "\n"


def appended_rows(text: str, rows: list[list[str]]) -> str:
    """``text`` with ``rows`` appended as CSV records in its line ending; every byte of ``text``
    stays (a last line without its line ending gets one)."""
    eol = line_ending(text)
    head = text if text.endswith(("\n", "\r")) or not text else text + eol
    return head + "".join(",".join(csv_cell(v, False) for v in cells) + eol for cells in rows)


def edits_by_record(
    records: list[CsvRecord], columns: list[str], rows, edits: dict[int, dict[str, str]], *, every: bool = False
) -> dict:
    """``edits`` keyed by the record (``id``) of each edited row, after checking that the scanner
    finds as many rows as the reader and that each edited record (``every``: each record) names
    its row's model, item and attempt (else a ValueError: never written). A record that is not
    edited and gains no cell is kept byte for byte, so it is split into fields only with ``every``."""
    index = {c: i for i, c in enumerate(columns)}
    data = [r for r in records[1:] if not r.blank]  # blank records are skipped, as the reader does
    if len(data) != len(rows):  # pragma: no cover - the reader and the scanner disagree: never write
        raise ValueError("attempts.csv: the field scanner and the CSV reader disagree on the rows")
    by_record: dict[int, dict[str, str]] = {}
    for rec, row in zip(data, rows, strict=True):
        if not every and row.line not in edits:
            continue
        cells = rec.values
        if tuple(cells[index[c]].strip() for c in ("model", "item", "attempt")) != (row.model, row.item, row.attempt):
            raise ValueError(f"attempts.csv line {row.line}: the field scanner and the CSV reader disagree")
        if row.line in edits:
            by_record[id(rec)] = edits[row.line]
    return by_record


def edited_record(text: str, rec: CsvRecord, index: dict[str, int], changes: dict[str, str]) -> str:
    """The text of ``rec`` with the cells of ``changes`` replaced (quoted as they were, or as the
    value needs), from its first field to its line terminator; checked to read back as intended."""
    # the cells of a row in the order they sit in the line, whatever the order of the columns
    spans = sorted((rec.spans[index[column]], value) for column, value in changes.items() if column in index)
    pos = rec.start
    pieces = []
    for (start, end), value in spans:
        pieces.append(text[pos:start])
        pieces.append(csv_cell(value, text.startswith('"', start) and end > start))
        pos = end
    pieces.append(text[pos : rec.end])
    new = "".join(pieces)
    check_edited_record(new, rec, index, changes)
    return new


def edited_text(text: str, columns: list[str], rows, edits: dict[int, dict[str, str]]) -> str:
    """attempts.csv with the fields of ``edits`` (row line -> column -> new value) replaced and
    every declared column an edit names that the header lacks appended (its skeleton cell on the
    rows not edited)."""
    records = scan_csv(text)
    edited = {column for changes in edits.values() for column in changes}
    append = [c for c in ATTEMPTS_COLUMNS if c not in columns and c in edited]
    index = {c: i for i, c in enumerate(columns)}
    by_record = edits_by_record(records, columns, rows, edits, every=bool(append))  # appended: every row edited
    pieces: list[str] = []
    pos = 0
    for k, rec in enumerate(records):
        changes = by_record.get(id(rec), {})
        if any(column in index for column in changes):
            pieces.append(text[pos : rec.start])
            pieces.append(edited_record(text, rec, index, changes))
            pos = rec.end
        if append and (k == 0 or not rec.blank):
            pieces.append(text[pos : rec.end])
            pos = rec.end
            cells = (
                append
                if k == 0
                else [csv_cell(changes.get(c, ATTEMPTS_COLUMNS[c].skeleton or ""), False) for c in append]
            )
            pieces.append("".join("," + cell for cell in cells))
    pieces.append(text[pos:])
    return "".join(pieces)


def check_edited_record(new: str, rec: CsvRecord, index: dict[str, int], changes: dict[str, str]) -> None:
    """The last guard before a write: the edited record reads back as the old one with only the
    edited cells changed (same number of fields), else a ValueError (an internal error: never
    written)."""
    expected = list(rec.values)
    for column, value in changes.items():
        if column in index:
            expected[index[column]] = value
    got = [r.values for r in scan_csv(new)]
    if got != [expected]:  # pragma: no cover - a bug of the edit: never write
        raise ValueError(f"attempts.csv: an edited row does not read back as intended ({got!r} != {expected!r})")
