"""How a decoding fault is worded, for every input: one phrase per fault, whichever library found
it (msgspec for the records, the reference and tau2-bench files; pydantic for the suite, the
cohort and the attempts rows). Standard library and the project's grammar only."""

from __future__ import annotations

from typing import Any

from tcsexam.scoring.grammar import meant

MISSING = "required field is missing"
UNKNOWN_FIELD = "unknown field (check its spelling)"
NON_EMPTY = "must be a non-empty string"
OUT_OF_RANGE = "number out of range (beyond a double)"


def describe(value: Any) -> str:
    """A found value in a message: short, and never the whole of a list or object."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        return repr(value if len(value) <= 60 else value[:57] + "...")
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return repr(value)


def must_be(kinds: str, found: str | None) -> str:
    """'must be a number, got 'x''; ``kinds`` as a reader says it ('a whole number or null')."""
    return f"must be {kinds}" + (f", got {found}" if found else "")


def at_least(bound: object, found: str | None) -> str:
    return must_be(f"a whole number of at least {bound}", found)


def at_most(bound: object, found: str | None, why: str = "") -> str:
    return must_be(f"a whole number of at most {bound}{why}", found)


def one_of(allowed: tuple | list | None, found: str, typed: object = None) -> str:
    """'must be one of online, offline; got 'ofline'', and, when ``typed`` (the value itself) is a
    slip of one of them, '; did you mean 'offline'?'."""
    listed = ", ".join(str(v) if v != "" else "(empty)" for v in allowed) if allowed else "the allowed values"
    text = f"must be one of {listed}; got {found}"
    if isinstance(typed, str) and typed and allowed:
        text += meant(typed.lower(), [str(v) for v in allowed if v != ""], cutoff=0.75)
    return text


def not_a(kinds: str, found: str) -> str:
    """A whole file (or a whole record) of the wrong kind: 'expected an object, found a list'."""
    return f"expected {kinds}, found {found}"
