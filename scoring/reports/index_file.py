"""Reading a stored index.json: the one reader that ``table``, ``diff`` and ``verify`` use
(docs/commands.md#table). The document is checked against the index's type (its JSON Schema,
``tcsexam schema index``) before anything reads a value of it, and its ``content_sha256`` is
checked against its content."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from tcsexam.scoring.errors import InputError, Problem
from tcsexam.scoring.safety.files import read_regular_file


@dataclass(frozen=True)
class IndexFile:
    """An index.json as read: its file name, the document in its JSON shape, and, when the document
    does not hash to its own content_sha256, what to say about it (else None)."""

    file: str
    document: dict
    edited: str | None


def load_index(path: Path) -> IndexFile:
    """The index.json at ``path``, checked against the index's type; every problem names the file,
    the key path and the field (exit 1)."""
    file = str(path)
    return read_index(read_regular_file(path, "index.json"), file)


def read_index(data: bytes, file: str) -> IndexFile:
    """``data`` read as an index.json (``load_index``)."""
    import msgspec  # here: ``tcsexam --help`` imports the command modules, and stays light

    from tcsexam.scoring.formats.decode import decode, problem_at, unchecked_constraints
    from tcsexam.scoring.formats.json import content_sha256, json_body, largest_whole
    from tcsexam.scoring.formats.results import IndexDocument

    try:
        typed = decode(data, IndexDocument, file, holds="an index.json written by tcsexam score")
    except InputError:
        check_is_an_index(data, file)
        raise
    found = unchecked_constraints(typed, IndexDocument)
    del typed
    document = msgspec.json.decode(json_body(data, file))  # the JSON shape every report reads (the same values)
    try:
        actual = content_sha256(document)
    except OverflowError:  # a whole number its hash method cannot write (docs/formats.md#indexjson)
        most = largest_whole(document)
        found += [(path, f"must be a whole number of at most {most}") for path in _too_large(document, most)]
    if found:
        raise InputError([problem_at(p, message, file, IndexDocument) for p, message in found])
    stored = document["provenance"]["content_sha256"]
    edited = None
    if actual != stored:
        edited = (
            f"the document does not hash to its content_sha256 (stored {stored}, its content hashes to {actual}): "
            "it was edited after tcsexam score wrote it"
        )
    return IndexFile(file, document, edited)


def check_is_an_index(data: bytes, file: str) -> None:
    """Reject, with one problem that says so, a JSON object that is no index.json at all (it has neither
    'metric_id' nor 'provenance'): its problems as an index.json (every key 'unknown') would hide that
    the wrong file was given. Anything else is left to the index's own problems."""
    import msgspec

    try:
        keys = set(msgspec.json.decode(data, type=dict[str, msgspec.Raw]))
    except (msgspec.DecodeError, UnicodeDecodeError):  # not JSON, or a key not UTF-8: the index's own problem
        _reject_a_table(data, file)
        return
    if keys & {"metric_id", "provenance"}:
        return
    what = _looks_like(keys)
    raise InputError(
        [
            Problem(
                file,
                "",
                "",
                "not an index.json written by tcsexam score: it has no 'metric_id' or 'provenance'." + what,
            )
        ]
    )


def _reject_a_table(data: bytes, file: str) -> None:
    """Reject, saying what it is, a file whose first line is the header of attempts.csv (or of any table
    of comma-separated names): 'invalid JSON at line 1 column 1' would not say that the wrong file was
    given."""
    first = data.removeprefix(b"\xef\xbb\xbf").split(b"\n", 1)[0].strip().lower()
    if first[:1] in (b"{", b"[") or b"," not in first:
        return
    what = (
        "a run's attempts.csv: tcsexam score RUN writes the run's index.json"
        if first.startswith(b"model,")
        else "a table of comma-separated values, not JSON"
    )
    raise InputError([Problem(file, "", "", f"not an index.json written by tcsexam score: it looks like {what}")])


def _looks_like(keys: set[str]) -> str:
    """What a JSON object with these top-level keys plainly is, and what reads it ('' when not plain)."""
    from tcsexam.scoring.formats.inputs import Cohort

    if {"suite", "models"} <= keys <= set(Cohort.model_fields):
        return " It looks like a run's cohort.json: tcsexam score RUN writes the run's index.json."
    if keys & {"simulations", "simulation_index"}:
        return " It looks like tau2-bench results: tcsexam tau2 reads them."
    if {"models", "difference", "mde"} <= keys:
        return " It looks like the output of tcsexam compare."
    return ""


def edited_warning(loaded: IndexFile) -> str | None:
    """The line ``table`` and ``diff`` print on standard error for an index.json edited by hand
    (docs/decisions.md#reports): its numbers are shown, said not to be those scoring wrote."""
    if loaded.edited is None:
        return None
    return f"warning: {loaded.file}: {loaded.edited}; tcsexam verify {loaded.file} lists what changed"


def _too_large(value: object, most: int, path: tuple = ()) -> list[list[str | int]]:
    """The key paths of whole numbers beyond ``most`` in magnitude in a decoded JSON value."""
    if type(value) is int:
        return [list(path)] if abs(value) > most else []
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _too_large(v, most, (*path, k))]
    if isinstance(value, list):
        return [p for k, v in enumerate(value) for p in _too_large(v, most, (*path, k))]
    return []


def _is_number(x) -> bool:
    return type(x) in (int, float) and math.isfinite(x)


def _interval(block) -> tuple[float | None, float | None]:
    if isinstance(block, dict) and _is_number(block.get("lo")) and _is_number(block.get("hi")):
        return float(block["lo"]), float(block["hi"])
    return None, None
