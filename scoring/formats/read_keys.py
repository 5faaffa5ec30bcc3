"""Duplicate keys in the objects of a large JSON file that are read from (docs/tau2.md#what-is-checked).

A tau2-bench results file is mostly text the metrics never read (each simulation's
``messages``, the ``tasks``). A key twice in one object is rejected, naming the key,
in every object a field is read from (docs/tau2.md#what-is-checked); the rest of the
file is checked as every JSON input is, but for its keys: it must be valid JSON,
valid UTF-8 and hold no integer too long to read.

How, without a second generic parse: each object read from is decoded (msgspec) as
``{key: its value's bytes}``, level by level along the type that the file is read as.
Outside strings, every key of an object brings one ':'; so when no key is dropped,
the ':' of the file number exactly the keys of the objects walked, the ':' inside
those keys and the ':' inside every value not walked into. A dropped key (the one
msgspec keeps only once) lowers that sum, and only then is the file parsed again
(the standard library, keeping every pair) to name the key.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from functools import cache
from itertools import chain
from typing import Any, get_args, get_origin

import msgspec

from tcsexam.scoring.errors import InputError, Problem
from tcsexam.scoring.formats.decode import strip_optional, syntax_problem
from tcsexam.scoring.formats.json import check_integer_lengths

_Level = dict[str, msgspec.Raw]

# bytes joined into one decode, or counted at once: a quarter of a MiB. Against 16 MiB, the peak
# memory of a large file is 9-45 MiB lower; the joins and counts alone ran 10-30 % faster, the
# whole command within the noise (docs/performance.md#tau2-bench-files-and-fill)
_BATCH = 1 << 18

_UTF8_SLICE = 1 << 16  # small enough for the decoded text to stay in the cache: 7 times faster than 16 MiB


def check_read_keys(data: bytes, type_: object, file: str) -> None:
    """Reject ``data`` (valid JSON that decoded as ``type_``) when it is not valid UTF-8, holds an
    integer too long to read, or has a key twice in one object read from: the problem names the
    file and the key, as for every JSON input."""
    check_utf8(data, file)
    walk = _Walk()
    try:  # the parsers here go deeper into the stack than the typed decode that read the file did
        check_integer_lengths(data, file)
        expected = walk.file(data, type_)
        key = _repeated_key(data, type_) if walk.colon_in_key or expected != data.count(b":") else None
    except RecursionError as exc:
        raise InputError([syntax_problem(exc, data, file)]) from None
    if key is not None:
        raise InputError([_twice(file, key)])


def check_read_keys_of_files(files: list[tuple[bytes, str]], type_: object) -> list[Problem]:
    """``check_read_keys`` for many files (bytes, name) of ``type_`` (a dir-format run's simulation
    files): the problems of all of them. Their objects are walked together, as one file's many
    objects are; only when the ':' of all of them say a key was dropped (or a key holds ':') is
    each file checked on its own, to name the file and the key."""
    problems: list[Problem] = []
    walked: list[tuple[bytes, str]] = []
    for data, file in files:
        try:
            check_utf8(data, file)
            check_integer_lengths(data, file)
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        except RecursionError as exc:
            problems.append(syntax_problem(exc, data, file))
            continue
        walked.append((data, file))
    walk = _Walk()
    try:
        expected = walk.value([msgspec.Raw(data) for data, _ in walked], type_)
        dropped = walk.colon_in_key or expected != sum(data.count(b":") for data, _ in walked)
    except RecursionError:
        dropped = True
    for data, file in walked if dropped else ():
        try:
            check_read_keys(data, type_, file)
        except InputError as exc:
            problems.extend(exc.problems)
    return problems


def repeated_key_problem(data: bytes, type_: object, file: str) -> Problem | None:
    """A key twice in one object of ``data`` read from, as ``check_read_keys`` words it, found by
    parsing ``data`` again; for a file the typed decode refused (a key twice whose values differ
    in type is refused there, worded from the wrong one), None when there is none or the file is
    not JSON."""
    try:
        key = _repeated_key(data, type_)
    except (ValueError, RecursionError):  # not JSON, not UTF-8, or too deep: the decode's problem says so
        return None
    return None if key is None else _twice(file, key)


def _twice(file: str, key: str) -> Problem:
    return Problem(file, "", key, f"key '{key}' appears twice in one object")


def check_utf8(data: bytes, file: str) -> None:
    """Reject ``data`` when it is not UTF-8 (a typed decoder skips the strings it does not read
    without checking them); read in slices, so that no copy of a large file is made."""
    if data.isascii():
        return
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    try:
        for start in range(0, len(view), _UTF8_SLICE):
            decoder.decode(view[start : start + _UTF8_SLICE])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError as exc:
        raise InputError([syntax_problem(exc, data, file)]) from None


class _Walk:
    """The ':' a file holds when no object read from has a key twice (``check_read_keys``)."""

    def __init__(self) -> None:
        self.colon_in_key = False  # a key holding ':' (perhaps written as an escape): name it exactly

    def file(self, data: bytes, type_: object) -> int:
        """The ':' expected in ``data``, a JSON value of ``type_``. A file of objects a field reads
        lists of (a tau2-bench results file's simulations), whose every value is an object, a list
        of objects or a scalar, is decoded in one call down to the objects of those lists, not
        once for its own keys and again for each list read. Any other file is walked value by
        value (``value``): a one-call decode would also make objects of each list no field reads,
        dearer than counting its ':' (a simulation file's messages: 1.37x the command's time)."""
        t = strip_optional(type_)
        if not _reads_lists_of_objects(t):
            return self.value([msgspec.Raw(data)], type_)
        try:
            top = msgspec.json.decode(data, type=_Top | None)
        except msgspec.ValidationError:  # a value that is a list of scalars or of lists, say
            return self.value([msgspec.Raw(data)], type_)
        if top is None:
            return 0
        written = _leading_scalars(data)
        if any(isinstance(v, str) and ":" in v and written.get(k) != msgspec.json.encode(v) for k, v in top.items()):
            # a ':' that may have been written as an escape (counted once decoded, never in the
            # bytes), where its bytes are not known: the file's values read from their bytes
            return self.value([msgspec.Raw(data)], type_)
        walked = dict(_read_objects(t))
        keys = "".join(top)
        self.colon_in_key = self.colon_in_key or ":" in keys
        count = len(top) + keys.count(":")
        for key, value in top.items():
            read = walked.get(key, walked.get("")) if get_origin(t) is dict else walked.get(key)
            if isinstance(value, str):
                count += value.count(":")  # written as it is encoded (above): each ':' is one in the file
            elif isinstance(value, dict):
                count += self.objects([value], _inner(read, False))
            elif isinstance(value, list):
                count += self.objects(value, _inner(read, True))
        return count

    def value(self, raws: list[msgspec.Raw], type_: object) -> int:
        """The ':' expected in ``raws``, JSON values of ``type_`` (null where it may be)."""
        shape, inner = _shape(type_)
        if shape == "object":
            return self.objects(_decode_all(raws, _Level | None), inner)
        if shape == "objects":  # the objects of each list decoded in the same call, not copied apart
            lists = _decode_all(raws, list[_Level | None] | None)
            return self.objects(list(chain.from_iterable(x for x in lists if x is not None)), inner)
        if shape == "lists":
            lists = _decode_all(raws, list[msgspec.Raw] | None)
            return self.value(list(chain.from_iterable(x for x in lists if x is not None)), inner)
        return _colons(raws)

    def objects(self, decoded: list[_Level | None], t: object) -> int:
        """The ':' expected in objects of type ``t`` (a Struct, or a dict whose every value is read):
        one a key, those inside the keys, and inside the values those they hold, or where a value
        read may hold objects, those expected in it."""
        levels = [level for level in decoded if level is not None]
        keys = "".join(chain.from_iterable(levels))
        self.colon_in_key = self.colon_in_key or ":" in keys
        count = sum(map(len, levels)) + keys.count(":")
        walked = _read_objects(t)
        if get_origin(t) is dict and walked:
            return count + self.value([*chain.from_iterable(x.values() for x in levels)], walked[0][1])
        names = {key for key, _ in walked}
        if len(levels) == 1:  # the values not walked into, picked out
            count += _colons([raw for key, raw in levels[0].items() if key not in names])
        else:  # many small objects: every value counted, then those walked into taken off again (faster)
            count += _colons([*chain.from_iterable(map(dict.values, levels))])
        for key, type_ in walked:
            raws = [level[key] for level in levels if key in level]
            count += self.value(raws, type_) - (_colons(raws) if len(levels) > 1 else 0)
        return count


# A file's own object, its values decoded in the same call: an object or a list of objects as
# {key: raw value}, a scalar as itself (``_Walk.file``)
_Top = dict[str, list[_Level | None] | _Level | str | int | float | bool | None]

# a pair of a file's own object whose value is a scalar: the key and the value as written. A string
# is matched without backtracking (possessive: Python 3.11): otherwise the regular expression
# engine keeps an entry for each character or escape it may go back to, 100-190 bytes each
_STRING = rb'"(?:[^"\\]++|\\.)*+"'
_SCALAR_PAIR = re.compile(rb"\s*(" + _STRING + rb")\s*:\s*(" + _STRING + rb"|[-+0-9.eE]+|true|false|null)\s*,?")


def _leading_scalars(data: bytes) -> dict[str, bytes]:
    """The pairs that open the object ``data`` while their values are scalars (a tau2-bench
    results file's ``timestamp``): key -> the value as written (of a key written twice, the last)."""
    opening = re.match(rb"\s*\{", data)
    found: dict[str, bytes] = {}
    pos = opening.end() if opening else len(data)
    while match := _SCALAR_PAIR.match(data, pos):
        found[json.loads(match.group(1))] = match.group(2)
        pos = match.end()
    return found


# the type of a value no field reads: every key of its objects counted, and the ':' of every value
_UNREAD = dict[str, Any]


@cache
def _reads_lists_of_objects(t: Any) -> bool:
    """Whether a field of the object type ``t`` reads a list of objects."""
    return _is_object(t) and any(_shape(read)[0] == "objects" for _, read in _read_objects(t))


def _inner(type_: object | None, listed: bool) -> object:
    """The type of the objects of a file's value of ``type_`` (None: no field reads it), which
    decoded as objects (or, ``listed``, as a list of objects)."""
    shape, inner = _shape(type_) if type_ is not None else ("scalar", None)
    return inner if shape == ("objects" if listed else "object") else _UNREAD


@cache
def _shape(type_: Any) -> tuple[str, Any]:
    """How a value of ``type_`` is walked: ("object", its type), ("objects", the type of the objects
    of a list), ("lists", the type of the items of a list whose items may hold objects), or
    ("scalar", None): its ':' counted."""
    t = strip_optional(type_)
    if _is_object(t):
        return "object", t
    if get_origin(t) is list and _holds_objects(get_args(t)[0]):
        item = strip_optional(get_args(t)[0])
        return ("objects" if _is_object(item) else "lists"), item
    return "scalar", None


def _is_object(t: object) -> bool:
    return (isinstance(t, type) and issubclass(t, msgspec.Struct)) or get_origin(t) is dict


@cache
def _holds_objects(type_: object) -> bool:
    """True when a value of ``type_`` may hold a JSON object."""
    t = strip_optional(type_)
    return _is_object(t) or (get_origin(t) is list and _holds_objects(get_args(t)[0]))


@cache
def _read_objects(t: Any) -> tuple[tuple[str, object], ...]:
    """(JSON key, type) of each field of the Struct ``t`` that may hold objects; for a dict whose
    values may, one entry: ('', their type)."""
    if get_origin(t) is dict:
        return (("", get_args(t)[1]),) if _holds_objects(get_args(t)[1]) else ()
    return tuple((f.encode_name, f.type) for f in msgspec.structs.fields(t) if _holds_objects(f.type))


def _batches(raws: list[msgspec.Raw]) -> Iterator[list[msgspec.Raw]]:
    """``raws`` in runs of about ``_BATCH`` bytes on average."""
    if len(raws) == 1:  # one file, or one object of it
        yield raws
        return
    total = sum(map(len, raws))
    step = max(1, len(raws) * _BATCH // max(total, 1))
    for start in range(0, len(raws), step):
        yield raws[start : start + step]


def _decode_all(raws: list[msgspec.Raw], type_: Any) -> list:
    """Each of ``raws`` decoded as ``type_``, a run of them joined into one JSON list per call."""
    out: list = []
    for batch in _batches(raws):
        if len(batch) == 1:
            out.append(msgspec.json.decode(batch[0], type=type_))
        else:
            out.extend(msgspec.json.decode(b"[" + b",".join(batch) + b"]", type=list[type_]))
    return out


def _colons(raws: list[msgspec.Raw]) -> int:
    """The ':' in ``raws``; a large one counted slice by slice (no copy of it)."""
    count = 0
    for batch in _batches(raws):
        if len(batch) == 1 and len(batch[0]) > _BATCH:
            view = memoryview(batch[0])
            count += sum(bytes(view[i : i + _BATCH]).count(b":") for i in range(0, len(view), _BATCH))
        else:
            count += b"".join(batch).count(b":")
    return count


def _repeated_key(data: bytes, type_: object) -> str | None:
    """The first key that appears twice in one object read from, found by parsing ``data`` again
    keeping every pair (slow: only once the count says a key was dropped, or a key holds ':')."""
    pairs = json.loads(data, object_pairs_hook=lambda p: p, parse_int=str, parse_float=str, parse_constant=str)
    return _first_repeated(pairs, type_)


def _first_repeated(value: Any, type_: object) -> str | None:
    t = strip_optional(type_)
    if _is_object(t) and isinstance(value, list):
        seen: set[str] = set()
        for key, _ in value:
            if key in seen:
                return key
            seen.add(key)
        walked = dict(_read_objects(t))
        for key, item in value:
            if key in walked or "" in walked:
                found = _first_repeated(item, walked.get(key, walked.get("")))
                if found is not None:
                    return found
    elif get_origin(t) is list and isinstance(value, list):
        for item in value:
            found = _first_repeated(item, get_args(t)[0])
            if found is not None:
                return found
    return None
