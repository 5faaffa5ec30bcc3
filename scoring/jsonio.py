"""Strict JSON reading and atomic JSON writing.

Reading rejects NaN, Infinity, numbers that overflow a double and nesting
deeper than 1024 (orjson's parser enforces all four), and a key that appears
twice in one object (README "Safety"). Input files are read only through
``safety.read_regular_file`` (re-exported here as ``read_bytes``) and written
only through ``safety.write_atomic`` (SPEC sections 6 and 13).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import orjson

from .errors import InputError, Problem
from .safety import (
    check_duplicate_keys,
    write_atomic,  # SPEC 6, 13: the one atomic, signal-safe write
)
from .safety import read_regular_file as read_bytes  # SPEC 13: the one reader of input files

__all__ = ["canonical_bytes", "dumps", "load_json", "parse_json_bytes", "read_bytes", "write_atomic", "write_json"]


def parse_json_bytes(data: bytes, file: str) -> Any:
    """Parse JSON strictly; an error names the file, line and column."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if not data.strip():
        raise InputError([Problem(file, "", "", "file is empty, expected JSON")])
    try:
        parsed = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        msg = exc.msg
        if "utf-8" in msg.lower() or "str is not valid" in msg.lower():
            msg = "not valid UTF-8"
        raise InputError([Problem(file, f"line {exc.lineno} column {exc.colno}", "", f"invalid JSON: {msg}")]) from None
    check_duplicate_keys(data, orjson.dumps(parsed), file)
    return parsed


def load_json(path: Path, what: str = "JSON file") -> Any:
    return parse_json_bytes(read_bytes(path, what), str(path))


def find_non_finite(obj: Any, path: str = "$") -> str | None:
    """Return the JSON path of the first non-finite float in ``obj``, or None."""
    if isinstance(obj, float):
        return None if math.isfinite(obj) else path
    if isinstance(obj, dict):
        for key, value in obj.items():
            hit = find_non_finite(value, f"{path}.{key}")
            if hit:
                return hit
    elif isinstance(obj, (list, tuple)):
        for i, value in enumerate(obj):
            hit = find_non_finite(value, f"{path}[{i}]")
            if hit:
                return hit
    return None


def dumps(obj: Any, *, indent: bool = True, finite: bool = False) -> bytes:
    """Serialise to JSON bytes, refusing NaN/Infinity (orjson would write null). ``finite``: the
    caller made every number through a check that rejects non-finite values (index.json: the
    means, intervals and ranks are checked where they are computed, naming the input value), so
    the document is not walked a second time."""
    bad = None if finite else find_non_finite(obj)
    if bad:
        raise ValueError(f"refusing to write a non-finite number at {bad}")
    option = (orjson.OPT_INDENT_2 if indent else 0) | orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_APPEND_NEWLINE
    return orjson.dumps(obj, option=option)


def canonical_bytes(obj: Any) -> bytes:
    """Canonical JSON: sorted keys, no whitespace (for content hashes)."""
    return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS | orjson.OPT_SERIALIZE_NUMPY)


def write_json(path: Path, obj: Any, *, indent: bool = True, finite: bool = False) -> None:
    write_atomic(path, dumps(obj, indent=indent, finite=finite))
