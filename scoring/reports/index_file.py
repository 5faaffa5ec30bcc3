"""Reading a stored index.json."""

from __future__ import annotations

import math
from pathlib import Path

from scoring.errors import InputError, Problem, Problems
from scoring.formats.json import load_json
from scoring.vocab import TRACKS


def load_index(path: Path) -> dict:
    """An index.json, checked for the keys the reports read; problems name file, key and field."""
    file = str(path)
    doc = load_json(path, "index.json")
    problems = Problems()
    if not isinstance(doc, dict):
        raise InputError([Problem(file, "", "", "expected an index.json object")])
    for key in ("suite", "solver_protocol", "status"):
        if not isinstance(doc.get(key), str):
            problems.add(file, "", key, "missing or not a string")
    models = doc.get("models")
    if not isinstance(models, dict):
        problems.add(file, "", "models", "missing or not an object")
        models = {}
    for name, m in models.items():
        where = f"models.{name}"
        if not isinstance(m, dict):
            problems.add(file, where, "", "expected an object")
            continue
        if not isinstance(m.get("status"), str):
            problems.add(file, where, "status", "missing or not a string")
        if not (m.get("index") is None or _is_number(m.get("index"))):
            problems.add(file, where, "index", "expected a number or null")
        means = m.get("track_means")
        if not isinstance(means, dict) or any(not (means.get(t) is None or _is_number(means.get(t))) for t in TRACKS):
            problems.add(file, where, "track_means", "expected an object of numbers or nulls per track")
        if not isinstance(m.get("tasks", {}), dict):
            problems.add(file, where, "tasks", "expected an object")
        if m.get("ci") is not None and not isinstance(m.get("ci"), dict):
            problems.add(file, where, "ci", "expected an object or null")
    problems.raise_if_any()
    return doc


def _is_number(x) -> bool:
    return type(x) in (int, float) and math.isfinite(x)


def _interval(block) -> tuple[float | None, float | None]:
    if isinstance(block, dict) and _is_number(block.get("lo")) and _is_number(block.get("hi")):
        return float(block["lo"]), float(block["hi"])
    return None, None
