"""A model, item or attempt name, a suite name or a reference id that could leave its folder is a problem."""

from __future__ import annotations

NAME_KINDS = ("model", "item", "attempt", "suite", "reference id", "simulation id")


def check_name(value: object, kind: str) -> str | None:
    """The problem with ``value`` as a name of ``kind`` (one of NAME_KINDS), or None when it is fine.

    docs/safety.md: a name is data, never a path. Every kind: no backslash, no NUL, not empty, not
    ``.`` or ``..``, not absolute, and no leading or trailing white space (CSV cells are stripped,
    so such a name in a cohort or suite could never match a row). Only a model name may hold
    ``/`` (``org/model``), and then none of its ``/``-separated parts is empty, ``.`` or ``..``.
    The caller attaches the file, the line or key, and the field.
    """
    if kind not in NAME_KINDS:
        raise ValueError(f"unknown name kind {kind!r}")
    if not isinstance(value, str):
        return f"{kind} name must be a string"
    if value == "":
        return f"{kind} name is empty"
    if "\x00" in value:
        return f"{kind} name holds a NUL character"
    if "\\" in value:
        return f"{kind} name holds a backslash"
    if value != value.strip():
        return f"{kind} name has leading or trailing white space, which no attempts-table cell can match"
    if value.startswith("/"):
        return f"{kind} name is an absolute path"
    if kind == "model":
        if any(part in ("", ".", "..") for part in value.split("/")):
            return "model name has an empty, '.' or '..' part between its '/'"
        return None
    if "/" in value:
        return f"{kind} name holds '/'"
    if value in (".", ".."):
        return f"{kind} name is '{value}'"
    return None
