"""Strict JSON reading and atomic JSON writing.

Reading rejects NaN, Infinity, numbers that overflow a double and nesting
deeper than 1024 (orjson's parser enforces all four). Writing refuses
non-finite floats (JSON has none) and is atomic: a temporary file in the
target folder, fsync, then ``os.replace`` (SPEC section 6).
"""

from __future__ import annotations

import contextlib
import math
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

from .errors import InputError, Problem


def read_bytes(path: str | os.PathLike, what: str = "file") -> bytes:
    """Read a whole input file, turning OS errors into a Problem naming the file."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise InputError([Problem(str(path), "", "", f"{what} not found")]) from None
    except (IsADirectoryError, PermissionError) as exc:
        if os.path.isdir(path):  # some systems say 'permission denied' for a folder
            message = f"is a directory, expected a {what}"
        elif isinstance(exc, PermissionError):
            message = f"cannot read {what}: permission denied"
        else:
            message = f"cannot read {what}: {exc.strerror or exc}"
        raise InputError([Problem(str(path), "", "", message)]) from None
    except OSError as exc:
        raise InputError([Problem(str(path), "", "", f"cannot read {what}: {exc.strerror or exc}")]) from None


def read_if_file(path: str, what: str = "file") -> bytes | None:
    """The bytes of ``path``, or None when no file is there (nothing, or a folder); any other
    failure to read is a Problem naming the file. One open() instead of a stat and an open()."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
    except OSError:
        if not os.path.isfile(path):
            return None
        return read_bytes(path, what)  # words the problem


def parse_json_bytes(data: bytes, file: str) -> Any:
    """Parse JSON strictly; an error names the file, line and column."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if not data.strip():
        raise InputError([Problem(file, "", "", "file is empty, expected JSON")])
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        msg = exc.msg
        if "utf-8" in msg.lower() or "str is not valid" in msg.lower():
            msg = "not valid UTF-8"
        raise InputError([Problem(file, f"line {exc.lineno} column {exc.colno}", "", f"invalid JSON: {msg}")]) from None


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


def dumps(obj: Any, *, indent: bool = True) -> bytes:
    """Serialise to JSON bytes, refusing NaN/Infinity (orjson would write null)."""
    bad = find_non_finite(obj)
    if bad:
        raise ValueError(f"refusing to write a non-finite number at {bad}")
    option = (orjson.OPT_INDENT_2 if indent else 0) | orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_APPEND_NEWLINE
    return orjson.dumps(obj, option=option)


def canonical_bytes(obj: Any) -> bytes:
    """Canonical JSON: sorted keys, no whitespace (for content hashes)."""
    return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS | orjson.OPT_SERIALIZE_NUMPY)


def _default_mode() -> int:
    """0o666 less the process umask: what open() would give a new file."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


_NEW_FILE_MODE = _default_mode()


def write_atomic(path: Path, data: bytes | bytearray | Iterable[bytes | memoryview]) -> None:
    """Write ``data`` (bytes, or chunks of bytes) to ``path`` atomically: temp file in the same
    folder, fsync, os.replace. On any failure the temporary file is removed and an existing
    ``path`` is untouched.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        try:  # keep the mode of the file being replaced, else the usual one (mkstemp makes 0600)
            mode = os.stat(path).st_mode & 0o7777
        except FileNotFoundError:
            mode = _NEW_FILE_MODE
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as fh:
            for chunk in [data] if isinstance(data, (bytes, bytearray)) else data:
                fh.write(chunk)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_json(path: Path, obj: Any, *, indent: bool = True) -> None:
    write_atomic(path, dumps(obj, indent=indent))
