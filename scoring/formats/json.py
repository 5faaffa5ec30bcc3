"""Strict JSON reading and atomic JSON writing; index.json's content hash.

Reading rejects NaN, Infinity, numbers that overflow a double and nesting
deeper than 1024 (orjson's parser enforces all four), and a key that appears
twice in one object (README "Safety"). Input files are read only through
``scoring.safety.files.read_regular_file`` and written
only through ``scoring.safety.outputs.write_atomic`` (docs/commands.md and docs/safety.md).

``content_sha256`` is the sha256 of the RFC 8785 form (UTF-8) of the whole
document without ``provenance.generated_at``, without ``content_sha256``
itself and without each input's ``path``: the same inputs give the same hash
wherever they sit on disk, and anyone can recompute it with an RFC 8785
implementation. The document names the method (``provenance.hash_method``);
one that names none was written by an earlier version, which hashed the
tool's own canonical JSON, and is checked by that method. It lives here, beside
the canonical forms, so that the reports that check an index.json's hash
(``table``, ``diff``) load none of the scoring pipeline.
"""

from __future__ import annotations

import gc
import hashlib
import json
import math
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson

from tcsexam.scoring.errors import InputError, Problem
from tcsexam.scoring.safety.outputs import write_atomic
from tcsexam.scoring.vocab import HASH_METHOD


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic garbage collection while many long-lived objects without cycles are made (a
    reference's 10^6 value lists, a run's rows and its index.json document): the collector would walk
    them again and again as other objects are made. The collector's state before is restored, on
    error too."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class _DuplicateKey(Exception):
    def __init__(self, key: str):
        self.key = key


def _pairs_without_duplicates(pairs: list[tuple[str, object]]) -> dict:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return obj


class _LongInteger(Exception):
    def __init__(self, digits: str):
        self.digits = digits


def _integer(text: str) -> int:
    """An integer of the slow duplicate-key pass; one longer than Python reads (4,300 digits by
    default) raises ``_LongInteger``: the file is then rejected naming it (docs/safety.md)."""
    try:
        return int(text)
    except ValueError:
        raise _LongInteger(text) from None


_DUPLICATE_DECODER = json.JSONDecoder(object_pairs_hook=_pairs_without_duplicates, parse_int=_integer)


def line_column(data: bytes, offset: int) -> str:
    """'line L column C' (both from 1) of a byte offset."""
    offset = max(0, min(offset, len(data)))
    line = data.count(b"\n", 0, offset) + 1
    column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return f"line {line} column {column}"


def long_integer_problem(raw: bytes, digits: str, file: str) -> Problem:
    """The problem of an integer too long to read, where it first appears in ``raw``."""
    found = re.search(rb"(?<![0-9.eE+-])" + re.escape(digits.encode()) + rb"(?![0-9.eE])", raw)
    where = line_column(raw, found.start()) if found else ""
    n = len(digits.lstrip("-"))
    most = sys.get_int_max_str_digits()
    return Problem(file, where, "", f"an integer of {n:,} digits: too long to read (at most {most:,} digits)")


_NOT_A_DIGIT = bytes(0x30 if 0x30 <= b <= 0x39 else 0x78 for b in range(256))  # a digit as "0", the rest "x"


def has_digit_run(raw: bytes, length: int) -> bool:
    """True when ``raw`` holds ``length`` (at least 2) digits in a row. Only every
    ``length // 2``-th byte is looked at first: such a run covers two neighbours of them, and only
    around a pair of digit neighbours is the run measured."""
    step = length // 2
    samples = raw[::step].translate(_NOT_A_DIGIT)
    at = samples.find(b"00")
    while at >= 0:
        middle = (at + 1) * step
        before = raw[max(0, middle - length) : middle]
        after = raw[middle : middle + length]
        run = len(before) - len(before.rstrip(b"0123456789")) + len(after) - len(after.lstrip(b"0123456789"))
        if run >= length:
            return True
        at = samples.find(b"00", at + 1)
    return False


def check_integer_lengths(raw: bytes, file: str) -> None:
    """docs/safety.md#numbers-that-would-overflow: an integer longer than Python reads, anywhere in
    ``raw`` (valid JSON), even in a part no decoder reads, is rejected naming its line and column.
    Only a file with that many digits in a row (perhaps inside a string) is parsed to tell."""
    most = sys.get_int_max_str_digits()
    if most == 0 or not has_digit_run(raw, most + 1):
        return
    try:
        json.loads(raw, object_pairs_hook=lambda pairs: None, parse_int=_integer)
    except _LongInteger as exc:
        raise InputError([long_integer_problem(raw, exc.digits, file)]) from None


_ESCAPED_COLON = re.compile(rb"(\\+)u003[aA]")


def _escaped_colons(raw: bytes) -> int:
    """How many ``\\u003a`` escapes (a ':' written as an escape) ``raw`` holds: a run of an odd
    number of backslashes before ``u003a`` is an escape, an even one is literal backslashes."""
    if b"u003" not in raw:
        return 0
    return sum(len(m.group(1)) % 2 for m in _ESCAPED_COLON.finditer(raw))


def duplicate_key_problem(file: str, key: str, where: str = "") -> Problem:
    """README "Safety": ``key`` twice in one JSON object of ``file``; ``where``: the place, when known
    (``decode.decode_items`` names the item of a list: 'record 3')."""
    return Problem(file, where, key, f"key '{key}' appears twice in one object")


class DuplicateKey(InputError):
    """The InputError of a key twice (``duplicate_key_problem``), which a list's reader places."""


def check_duplicate_keys(raw: bytes, reserialized: bytes | None, file: str) -> None:
    """README "Safety": a key twice in one JSON object of the input ``file`` is rejected, naming
    the key. ``reserialized``: see ``find_duplicate_key`` (None: the slow exact check)."""
    try:
        key = find_duplicate_key(raw, reserialized)
    except _LongInteger as exc:
        raise InputError([long_integer_problem(bytes(raw).removeprefix(b"\xef\xbb\xbf"), exc.digits, file)]) from None
    if key is not None:
        raise DuplicateKey([duplicate_key_problem(file, key)])


def same_key_count(raw: bytes, reserialized: bytes) -> bool:
    """True when ``reserialized`` (what a parse of ``raw`` kept, written back by a writer that
    never escapes ':' and never adds a key) has as many keys as ``raw``: then no key of ``raw``
    was dropped, so none appears twice (see ``find_duplicate_key``)."""
    return key_colons(raw) == reserialized.count(b":")


def key_colons(raw: bytes) -> int:
    """The ':' of ``raw`` with those written as ``\\u003a`` escapes: what a writer that never
    escapes ':' writes back for the same document when no key is dropped (``same_key_count``)."""
    raw = raw.removeprefix(b"\xef\xbb\xbf")
    return raw.count(b":") + _escaped_colons(raw)


def find_duplicate_key(raw: str | bytes, reserialized: bytes | None = None) -> str | None:
    """The first key that occurs twice in one JSON object of ``raw`` (already known to be valid
    JSON), or None. README "Safety": such a file is rejected naming the key, since orjson and
    msgspec keep the last value and another reader may keep the first.

    ``reserialized`` (optional) is the parsed document written back by a writer that never
    escapes ':' (``orjson.dumps``). Every key brings one ':' outside strings, so when no key is
    dropped the ':' of ``raw`` (plus those it wrote as ``\\u003a``) number exactly those of
    ``reserialized``; a dropped key only lowers the second count. A file without duplicates then
    costs two byte counts, and only a file with one is parsed again, with the standard library,
    to name the key.
    """
    if isinstance(raw, str):
        raw = raw.encode("utf-8")
    raw = bytes(raw).removeprefix(b"\xef\xbb\xbf")
    if reserialized is not None and same_key_count(raw, reserialized):
        return None
    try:
        _DUPLICATE_DECODER.decode(raw.decode("utf-8"))
    except _DuplicateKey as exc:
        return exc.key
    return None


def json_body(data: bytes, file: str) -> bytes:
    """A JSON file's bytes without a UTF-8 byte order mark; an empty file is a problem."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if not data or data.isspace():  # isspace: no copy of a large file
        raise InputError([Problem(file, "", "", "file is empty, expected JSON")])
    return data


def parse_json_bytes(data: bytes, file: str) -> Any:
    """Parse JSON strictly; an error names the file, line and column."""
    data = json_body(data, file)
    try:
        parsed = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        msg = exc.msg
        if "utf-8" in msg.lower() or "str is not valid" in msg.lower():
            msg = "not valid UTF-8"
        raise InputError([Problem(file, f"line {exc.lineno} column {exc.colno}", "", f"invalid JSON: {msg}")]) from None
    check_duplicate_keys(data, orjson.dumps(parsed), file)
    return parsed


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


_SAFE_WHOLE = 2**53 - 1  # RFC 8785 writes numbers as doubles: whole numbers beyond this have no form
_PLAIN = frozenset({str, bool, type(None)})  # written alike by orjson and RFC 8785
_ASTRAL = (b"\xf0", b"\xf1", b"\xf2", b"\xf3", b"\xf4")  # UTF-8 lead bytes of characters beyond U+FFFF


class _NotPlain(Exception):
    """A value the fast path of ``canonical_bytes`` leaves to ``rfc8785`` (see there)."""


def canonical_bytes(obj: Any) -> bytes:
    """docs/formats.md#indexjson: the RFC 8785 form of ``obj`` (JSON Canonicalization Scheme: sorted keys,
    no white space, numbers as ECMAScript writes doubles), UTF-8, which any RFC 8785 implementation
    writes alike. A whole number beyond 2**53 - 1 in magnitude has no such form: OverflowError.

    The ``rfc8785`` package defines the form here; it is pure Python, so a document of plain dicts,
    lists, strings, whole numbers within range, finite floats, booleans and None, with no character
    beyond U+FFFF, is written by orjson instead (sorted keys, no white space): orjson escapes strings as
    RFC 8785 does and sorts keys by code point, which is RFC 8785's UTF-16 order below U+10000; each
    float is handed to it already written the ECMAScript way (``_ecmascript``). Anything else (and any
    error) goes to ``rfc8785``, which writes it or refuses it with its own message. Tests hold the two
    paths equal byte for byte."""
    written = _orjson_form(obj)
    if written is not None:
        return written
    import rfc8785  # here: only hashing needs it, and only for what orjson is not given

    try:
        return rfc8785.dumps(obj)
    except rfc8785.IntegerDomainError as exc:
        raise OverflowError(str(exc)) from None


def _orjson_form(obj: Any) -> bytes | None:
    """``canonical_bytes`` written by orjson, or None for a document left to ``rfc8785``: one with a
    value other than those listed there, or with a character beyond U+FFFF anywhere (keys sort by
    UTF-16 code units, where such a character comes before U+E000 to U+FFFF)."""
    try:
        written = orjson.dumps(_floats_written(obj), option=orjson.OPT_SORT_KEYS)
    except (_NotPlain, TypeError):  # orjson: a key that is not a string, a lone surrogate, deep nesting
        return None
    return None if any(lead in written for lead in _ASTRAL) else written


def _floats_written(obj: Any) -> Any:
    """``obj`` with every float replaced by its RFC 8785 text (an ``orjson.Fragment``, written as is);
    ``_NotPlain`` for a value ``canonical_bytes`` leaves to ``rfc8785``."""
    texts: dict[float, orjson.Fragment] = {}  # scores repeat: 0.0, 1.0, 0.5 ...

    def value(v: Any) -> Any:
        kind = type(v)
        if kind is dict:
            return {k: x if type(x) in _PLAIN else value(x) for k, x in v.items()}
        if kind is list:
            return [x if type(x) in _PLAIN else value(x) for x in v]
        if kind is float:
            text = texts.get(v)
            if text is None:
                text = texts[v] = orjson.Fragment(_ecmascript(v))
            return text
        if kind is int and -_SAFE_WHOLE <= v <= _SAFE_WHOLE:
            return v
        raise _NotPlain

    return value(obj)


def _ecmascript(f: float) -> str:
    """A finite float as RFC 8785 writes it: ECMAScript's Number::toString (ECMA-262, 7.1.12.1), from the
    shortest digits that read back as ``f``, which Python's ``repr`` gives too. Without an exponent
    (1e-4 <= |f| < 1e16) only a whole number's ".0" and the sign of -0 go; otherwise the digits are
    placed by ECMAScript's rules (a point within 21 digits, zeros after "0." up to 1e-7, else an exponent
    with its sign). Not finite: ``_NotPlain``."""
    text = repr(f)
    if "e" not in text:
        if "n" in text:  # inf, nan
            raise _NotPlain
        if text.endswith(".0"):
            text = text[:-2]
            return "0" if text == "-0" else text
        return text
    sign, text = ("-", text[1:]) if text[0] == "-" else ("", text)
    mantissa, exponent = text.split("e")
    digits = mantissa.replace(".", "")
    k, n = len(digits), int(exponent) + 1  # the value is 0.digits * 10**n
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * -n + digits
    fraction = "." + digits[1:] if k > 1 else ""
    return f"{sign}{digits[0]}{fraction}e{'+' if n > 0 else '-'}{abs(n - 1)}"


def writer_canonical_bytes(obj: Any) -> bytes:
    """docs/formats.md#indexjson: the canonical JSON of index.json files of earlier versions (no
    ``provenance.hash_method``): the tool's own writer, sorted keys, no white space. A whole number
    beyond 64 bits: OverflowError."""
    try:
        return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS | orjson.OPT_SERIALIZE_NUMPY)
    except TypeError as exc:  # orjson: an integer beyond 64 bits
        raise OverflowError(str(exc)) from None


def content_sha256(document: dict) -> str:
    """docs/formats.md#indexjson: sha256 over the canonical JSON of ``document`` less ``generated_at``,
    ``content_sha256`` and each input's ``path``: the same inputs give the same hash wherever they sit on
    disk. The canonical JSON is RFC 8785's when the document names that method (``hash_method``), else the
    tool's own writer's, as earlier versions hashed. OverflowError: a whole number the method cannot write
    (``largest_whole``)."""
    prov = {k: v for k, v in document.get("provenance", {}).items() if k not in ("generated_at", "content_sha256")}
    if "inputs" in prov:
        prov["inputs"] = {
            name: {k: v for k, v in entry.items() if k != "path"} for name, entry in prov["inputs"].items()
        }
    canonical = canonical_bytes if prov.get("hash_method") == HASH_METHOD else writer_canonical_bytes
    return hashlib.sha256(canonical({**document, "provenance": prov})).hexdigest()


def largest_whole(document: dict) -> int:
    """docs/formats.md#indexjson: the largest whole number (in magnitude) the document's hash method can
    write: 2**53 - 1 for RFC 8785 (its numbers are doubles), 2**63 - 1 for the earlier writer."""
    return 2**53 - 1 if document.get("provenance", {}).get("hash_method") == HASH_METHOD else 2**63 - 1


def write_json(path: Path, obj: Any, *, indent: bool = True, finite: bool = False) -> None:
    write_atomic(path, dumps(obj, indent=indent, finite=finite))
