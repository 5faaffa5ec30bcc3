"""The one translation from msgspec's decoding errors to the project's Problems (docs/commands.md).

A file is decoded in one call; when that fails on a list's item, the list is
decoded again item by item with the same type, so that every bad item is
named at once (docs/commands.md ``validate``) and both passes share one definition.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Hashable
from functools import cache
from types import UnionType
from typing import Annotated, Any, Literal, TypeVar, Union, cast, get_args, get_origin

import msgspec
import orjson

from tcsexam.scoring.errors import InputError, Problem
from tcsexam.scoring.formats.json import (
    DuplicateKey,
    check_duplicate_keys,
    duplicate_key_problem,
    find_duplicate_key,
    json_body,
    key_colons,
    line_column,
)
from tcsexam.scoring.formats.wording import (
    MISSING,
    NON_EMPTY,
    OUT_OF_RANGE,
    UNKNOWN_FIELD,
    at_least,
    describe,
    must_be,
    not_a,
    one_of,
)

T = TypeVar("T")


_AT = re.compile(r"^(?P<msg>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.S)


_BYTE = re.compile(r"\(byte (\d+)\)")


_KEY = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[(\"(?:[^\"\\]|\\.)*\")\]")


_MISSING = re.compile(r"^Object missing required field `([^`]*)`$")


def reject_duplicate_keys(
    data: bytes, file: str, typed: object = None, colons: Callable[[Any], int] | None = None
) -> None:
    """``formats.json.check_duplicate_keys`` for a file a typed decoder accepted (README "Safety").

    ``typed`` (optional) is the decoded value when its type can only drop keys on encoding (flat
    structs with ``omit_defaults``): the ':' of its encoding against those of ``data`` is the
    cheap first check. ``colons`` (optional) counts the ':' of ``typed``'s encoding without
    encoding all of it (default: encode and count). Otherwise, or when keys were dropped (an
    unknown key, a null written out), the document is parsed again generically (orjson) to be
    written back, and only then, if keys were still dropped, parsed a third time to name the key."""
    if typed is not None and key_colons(data) == (colons or encoded_colons)(typed):
        return
    try:
        reserialized: bytes | None = orjson.dumps(orjson.loads(data))
    except (orjson.JSONDecodeError, orjson.JSONEncodeError):  # e.g. an integer beyond 64 bits
        reserialized = None
        try:  # a decoder may skip an unread value without checking its text: the file must be UTF-8
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError([syntax_problem(exc, data, file)]) from None
    check_duplicate_keys(data, reserialized, file)


def encoded_colons(value: object) -> int:
    """The ':' of ``value``'s JSON encoding."""
    return msgspec.json.encode(value).count(b":")


@cache
def only_drops_keys(type_: Hashable) -> bool:
    """True when encoding a value of ``type_`` never adds a key absent from its JSON: every struct
    in it (through lists, dicts and unions) has ``omit_defaults``. A property of the type alone,
    worked out once per type (the records of a run are thousands of files of one type)."""
    return _only_drops_keys(type_)


def _only_drops_keys(type_: object) -> bool:
    t = strip_optional(type_)
    if isinstance(t, type) and issubclass(t, msgspec.Struct):
        return t.__struct_config__.omit_defaults and all(_only_drops_keys(f.type) for f in msgspec.structs.fields(t))
    return all(_only_drops_keys(arg) for arg in get_args(t) if arg is not type(None))


def first_invalid_utf8(data: bytes) -> int | None:
    """The offset of the first byte that is not valid UTF-8, or None when every byte is."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as bad:
        return bad.start
    return None


def syntax_problem(exc: Exception, data: bytes, file: str) -> Problem:
    """A JSON syntax error, located by line and column. The position of a bad UTF-8 byte is
    computed here, not taken from the decoder: msgspec's releases word and place it differently
    (0.22 raises UnicodeDecodeError, 0.23 a DecodeError without a position)."""
    if isinstance(exc, RecursionError):
        return Problem(file, "", "", "invalid JSON: nested too deeply")
    text = "" if isinstance(exc, UnicodeDecodeError) else str(exc)
    found = _BYTE.search(text)
    offset = int(found.group(1)) if found else len(data)  # 'truncated': the end of the data
    bad = first_invalid_utf8(data)
    if bad is not None and bad <= offset:  # the decoder stopped at or after the bad byte
        return Problem(file, line_column(data, bad), "", "invalid JSON: not valid UTF-8")
    message = _BYTE.sub("", text).strip().removeprefix("JSON is malformed: ")
    word = _NOT_A_NUMBER.match(data, offset) if message == "invalid character" else None
    if word is not None:  # Python's json.dump writes a float nan or inf so, unless told allow_nan=False
        message = (
            f"{word.group(0).decode()} is not a JSON value (Python's json.dump writes it for a float nan or inf): "
            "write null where there is no number"
        )
    return Problem(file, line_column(data, offset), "", f"invalid JSON: {message}")


_NOT_A_NUMBER = re.compile(rb"NaN|Infinity")


def split_path(path: str) -> list[str | int]:
    """msgspec's '.tasks["a b"].instances[3]' as ['tasks', 'a b', 'instances', 3]."""
    parts: list[str | int] = []
    for name, index, quoted in _KEY.findall(path):
        parts.append(name if name else int(index) if index else msgspec.json.decode(quoted))
    return parts


def strip_optional(type_: object) -> object:
    """``X`` of ``X | None`` and of ``Annotated[X, ...]``."""
    while True:
        origin = get_origin(type_)
        if origin is Annotated:
            type_ = get_args(type_)[0]
        elif origin in (Union, UnionType):
            type_ = next(t for t in get_args(type_) if t is not type(None))
        else:
            return type_


def allowed_values(type_: object, path: list[str | int]) -> tuple | None:
    """The Literal values allowed at ``path`` of ``type_`` (None when it is not a Literal)."""
    t = strip_optional(type_)
    for part in path:
        if isinstance(t, type) and issubclass(t, msgspec.Struct):
            t = next((f.type for f in msgspec.structs.fields(t) if f.encode_name == part), None)
        elif get_origin(t) in (dict, list):
            t = get_args(t)[-1]
        else:
            return None
        t = strip_optional(t)
    return get_args(t) if get_origin(t) is Literal else None


_KIND = {
    "float": "a number",
    "int": "a whole number",
    "str": "a string",
    "bool": "true or false",
    "array": "a list",
    "object": "an object",
    "null": "null",
}
_AT_LEAST = re.compile(r"^Expected `int` >= (\d+)$")
_WHOLE = re.compile(r"^must be (an object|a list), got (.*)$")


def word(message: str, allowed: tuple | None = None, found: str | None = None) -> str:
    """msgspec's message in the project's words (``formats.wording``): what the field must be, and
    what it was (``found``: the value described, when it could be read; else the kind msgspec names)."""
    if _MISSING.match(message):
        return MISSING
    if "` of length >= 1" in message:
        return NON_EMPTY
    if bound := _AT_LEAST.match(message):
        return at_least(bound.group(1), found)
    if message.startswith("Expected `"):
        want, _, got = message[len("Expected `") :].partition("`, got `")
        kinds = want.split(" | ")
        if "int" in kinds and "float" in kinds:
            kinds.remove("int")
        return must_be(
            " or ".join(_KIND.get(k, k) for k in kinds), found or _KIND.get(got.rstrip("`"), got.rstrip("`"))
        )
    if message.startswith("Invalid enum value "):
        return one_of(allowed, found or message[len("Invalid enum value ") :])
    if message.startswith("Object contains unknown field "):
        return UNKNOWN_FIELD
    if message.startswith("Number out of range"):
        return OUT_OF_RANGE
    return message[:1].lower() + message[1:]


def found_at(raw: bytes, path: list[str | int]) -> str | None:
    """The value at ``path`` of ``raw`` (valid JSON), described; None when it is not there (only to
    word a rejection: ``raw`` is the smallest part that failed)."""
    try:
        value = msgspec.json.decode(raw)
        for key in path:
            value = value[key]
    except (msgspec.DecodeError, RecursionError, LookupError, TypeError):
        return None
    return describe(value)


def children_of(raw: bytes, type_: object) -> list[tuple[str | int, msgspec.Raw, object]]:
    """The parts of ``raw`` (valid JSON) with their key and the type each must decode as; none
    when ``type_`` has no parts, or ``raw`` is not the container ``type_`` asks for."""
    t = strip_optional(type_)
    try:
        if isinstance(t, type) and issubclass(t, msgspec.Struct):
            fields = {f.encode_name: f.type for f in msgspec.structs.fields(t)}
            obj = msgspec.json.decode(raw, type=dict[str, msgspec.Raw])
            return [(k, v, fields[k]) for k, v in obj.items() if k in fields]
        if get_origin(t) is dict:
            obj = msgspec.json.decode(raw, type=dict[str, msgspec.Raw])
            return [(k, v, get_args(t)[1]) for k, v in obj.items()]
        if get_origin(t) is list:
            items = msgspec.json.decode(raw, type=list[msgspec.Raw])
            return [(i, v, get_args(t)[0]) for i, v in enumerate(items)]
    except msgspec.ValidationError:
        pass
    return []


def every_problem(raw: bytes, type_: object, path: list[str | int]) -> list[tuple[list[str | int], str, str | None]]:
    """(key path, msgspec message, the value found there described) of every part of ``raw`` (valid
    JSON) that does not decode as ``type_``: each part is decoded with its own type, so that one
    bad value does not hide the next, and dict keys (which msgspec's own path leaves out) are named."""
    try:
        msgspec.json.decode(raw, type=type_)
        return []
    except msgspec.ValidationError as exc:
        error = exc
    found = [p for key, sub, child in children_of(raw, type_) for p in every_problem(sub, child, [*path, key])]
    if found:
        return found
    matched = _AT.match(str(error))
    assert matched is not None
    inner = split_path(matched.group("path") or "")
    return [([*path, *inner], matched.group("msg"), found_at(raw, inner))]


Located = Callable[[list[str | int]], tuple[str, list[str | int]]]  # key path -> (where, the rest)


def problems_of(raw: bytes, type_: object, file: str, where: str | Located = "") -> list[Problem]:
    """Every problem of ``raw`` against ``type_``, as Problems naming the key path and field."""
    return [
        problem_at(path, message, file, type_, where, found) for path, message, found in every_problem(raw, type_, [])
    ]


def problem_at(
    path: list[str | int],
    message: str,
    file: str,
    type_: object,
    where: str | Located = "",
    found: str | None = None,
) -> Problem:
    """One msgspec message at a key path of ``type_`` as a Problem: where (a label such as
    'record 3', or a function that reads one off the front of the path), the key path, the field."""
    allowed = allowed_values(type_, path) if message.startswith("Invalid enum") else None
    label, path = where(list(path)) if callable(where) else (where, list(path))
    missing = _MISSING.match(message)
    if missing:
        path.append(missing.group(1))
    index = ""
    while path and isinstance(path[-1], int):
        index = f"[{path.pop()}]" + index
    field = (str(path[-1]) if path else "") + index
    keys = "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in path[:-1]).removeprefix(".")
    text = word(message, allowed, found)
    if not (field or keys) and (whole := _WHOLE.match(text)):  # the file (or a record) itself is not what it must be
        text = not_a(whole.group(1), whole.group(2))
    return Problem(file, ", ".join(x for x in (label, keys) if x), field, text)


def decode(
    data: bytes,
    type_: type[T],
    file: str,
    decoder: msgspec.json.Decoder | None = None,
    colons: Callable[[T], int] | None = None,
    where: str | Located = "",
    holds: str = "",
    check_keys: bool = True,
) -> T:
    """``data`` decoded as ``type_``; any problem is raised as an InputError naming the file.
    ``colons``: see ``reject_duplicate_keys``; ``where``: see ``problem_at``; ``holds``: what the
    file holds, said when it is not even of the right kind (an object, a list); ``check_keys``
    False: the caller checks the keys itself (``formats.read_keys``, for files mostly unread)."""
    data = json_body(data, file)
    try:
        value = (decoder or msgspec.json.Decoder(type_)).decode(data)
    except msgspec.ValidationError:
        check_syntax(data, file)  # a syntax error further on is the problem to report
        problems = problems_of(data, type_, file, where)
        if holds and len(problems) == 1 and not problems[0].where and not problems[0].field:
            problems = [dataclasses.replace(problems[0], message=f"{problems[0].message}: {holds}")]
        raise InputError(problems) from None
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise InputError([syntax_problem(exc, data, file)]) from None
    if check_keys:
        reject_duplicate_keys(data, file, value if only_drops_keys(cast(Hashable, type_)) else None, colons)
    return value


def check_syntax(data: bytes, file: str) -> None:
    """Raise the JSON syntax error of ``data``, if it has one."""
    try:
        msgspec.json.decode(data, type=msgspec.Raw)  # syntax only: a number beyond a double is worded with its field
        data.decode("utf-8")  # Raw leaves strings unread
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise InputError([syntax_problem(exc, data, file)]) from None


def duplicate_item_keys(data: bytes, file: str, label: str, typed: object = None) -> list[tuple[int, Problem]]:
    """``reject_duplicate_keys`` for a file that holds a JSON list: each item that holds a key twice, as
    (its position, the problem placed at '``label`` N', from 0, as the items' other problems are); a
    file that is no list raises the DuplicateKey that names the key. The items are looked at one by one
    only once the file is known to hold a key twice."""
    try:
        reject_duplicate_keys(data, file, typed)
    except DuplicateKey as unplaced:
        try:
            raws = msgspec.json.decode(data, type=list[msgspec.Raw])
        except msgspec.ValidationError:  # not a list: the key is named without a place
            raise unplaced from None
        found = []
        for i, raw in enumerate(raws):
            key = find_duplicate_key(bytes(raw))
            if key is not None:
                found.append((i, duplicate_key_problem(file, key, f"{label} {i}")))
        if not found:
            raise
        return found
    return []


def decode_items(
    data: bytes,
    item: type[T],
    file: str,
    label: str,
    decoder: msgspec.json.Decoder,
    what: str,
    name_key: str | None = None,
) -> tuple[list[T], list[int] | None, list[tuple[int, Problem]]]:
    """A JSON list of ``item``s decoded in one call (``decoder`` is ``Decoder(list[item])``).

    ``what`` names the list ('instance records'). Returns the items, None and the items that hold a
    key twice (``duplicate_item_keys``, usually none) when every item is of its type. Otherwise the
    list is decoded again item by item with the same type: the good items, their positions in the
    list, and (position, problem) for each problem of a bad item ('``label`` N') and each key twice,
    so that the caller can check the good ones as well and list every problem at once. A bad item
    whose ``name_key`` holds a string is named by it too ('record 3 ('MAX0004')'), as the rules'
    problems of a good one are."""
    data = json_body(data, file)
    try:
        good = decoder.decode(data)
    except msgspec.ValidationError:
        check_syntax(data, file)
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise InputError([syntax_problem(exc, data, file)]) from None
    else:
        return (
            good,
            None,
            duplicate_item_keys(data, file, label, good if only_drops_keys(cast(Hashable, item)) else None),
        )
    twice = duplicate_item_keys(data, file, label)
    try:
        raws = msgspec.json.decode(data, type=list[msgspec.Raw])
    except msgspec.ValidationError as exc:
        found = str(exc).rpartition("got `")[2].rstrip("`")
        raise InputError([Problem(file, "", "", f"expected a JSON list of {what}, found {found}")]) from None
    one = msgspec.json.Decoder(item)
    items: list[T] = []
    positions: list[int] = []
    problems: list[tuple[int, Problem]] = []
    for i, raw in enumerate(raws):
        try:
            items.append(one.decode(raw))
            positions.append(i)
        except msgspec.ValidationError:
            where = f"{label} {i}" + (f" ('{name}')" if (name := _item_name(raw, name_key)) is not None else "")
            problems.extend((i, problem) for problem in problems_of(raw, item, file, where))
    return items, positions, twice + problems


def _item_name(raw: msgspec.Raw, key: str | None) -> str | None:
    """The string an item holds under ``key`` (None: no key, no object, or not a string there)."""
    if key is None:
        return None
    try:
        fields = msgspec.json.decode(raw, type=dict[str, msgspec.Raw])
        name = msgspec.json.decode(fields[key]) if key in fields else None
    except msgspec.DecodeError:  # not an object: the problem says so
        return None
    return name if isinstance(name, str) else None


def unchecked_constraints(value: object, type_: object, path: tuple = ()) -> list[tuple[list[str | int], str]]:
    """(key path, what is wrong) for each constraint that ``type_`` states for its JSON Schema
    (``msgspec.Meta(extra_json_schema=...)``: ``const``, ``required`` keys, ``propertyNames``) and that
    msgspec does not check when it decodes; ``value`` is already decoded as ``type_``."""
    if not _has_constraints(type_):
        return []
    origin = get_origin(type_)
    found: list[tuple[list[str | int], str]] = []
    if origin is Annotated:
        inner, *metas = get_args(type_)
        for meta in metas:
            found += _constraint_problems(value, getattr(meta, "extra_json_schema", None) or {}, list(path))
        return found + unchecked_constraints(value, inner, path)
    if origin in (Union, UnionType):
        options = [t for t in get_args(type_) if t not in (type(None), msgspec.UnsetType)]
        return [] if value is None or len(options) != 1 else unchecked_constraints(value, options[0], path)
    if isinstance(type_, type) and issubclass(type_, msgspec.Struct):
        for name, key, field_type in _constrained_fields(type_):
            found += unchecked_constraints(getattr(value, name), field_type, (*path, key))
    elif origin is dict and isinstance(value, dict):
        for key, item in value.items():
            found += unchecked_constraints(item, get_args(type_)[1], (*path, key))
    elif origin is list and isinstance(value, list):
        for k, item in enumerate(value):
            found += unchecked_constraints(item, get_args(type_)[0], (*path, k))
    return found


def _constraint_problems(value: object, schema: dict, path: list[str | int]) -> list[tuple[list[str | int], str]]:
    found: list[tuple[list[str | int], str]] = []
    if "const" in schema and value != schema["const"]:
        found.append((path, must_be(f"{schema['const']!r}", describe(value))))
    if isinstance(value, dict):
        allowed = (schema.get("propertyNames") or {}).get("enum")
        found += [([*path, k], one_of(allowed, describe(k))) for k in value if allowed is not None and k not in allowed]
        found += [([*path, k], MISSING) for k in schema.get("required", ()) if k not in value]
    return found


@cache
def _constrained_fields(struct: type) -> tuple[tuple[str, str, object], ...]:
    """(attribute, JSON key, type) of the fields of ``struct`` that hold constraints (worked out once
    per type: ``msgspec.structs.fields`` evaluates the annotations anew at each call)."""
    return tuple((f.name, f.encode_name, f.type) for f in msgspec.structs.fields(struct) if _has_constraints(f.type))


@cache
def _has_constraints(type_: object) -> bool:
    """True when ``type_`` or a type inside it carries constraints that ``unchecked_constraints`` checks."""
    if get_origin(type_) is Annotated:
        inner, *metas = get_args(type_)
        return any(getattr(m, "extra_json_schema", None) for m in metas) or _has_constraints(inner)
    if isinstance(type_, type) and issubclass(type_, msgspec.Struct):
        return any(_has_constraints(f.type) for f in msgspec.structs.fields(type_))
    return any(_has_constraints(arg) for arg in get_args(type_) if not isinstance(arg, (str, int, float)))
