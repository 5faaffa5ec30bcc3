"""What moved between two index.json documents."""

from __future__ import annotations

import math
from typing import Any

from tcsexam.scoring.errors import InputError, Problem
from tcsexam.scoring.reports.index_file import _interval
from tcsexam.scoring.vocab import TRACKS


def diff_index(old: dict, new: dict, files: tuple[str, str] = ("old", "new")) -> dict:
    """docs/commands.md diff: per model the index and track means before and after, the change, and
    whether it exceeds the new document's 95% half-width; statuses; added/removed; inputs; the reference
    id and how the benchmark was found, before and after (docs/commands.md#diff). ``old`` and ``new``
    are documents read by ``index_file.load_index`` from ``files``; a change beyond a double is rejected
    input naming both values (docs/safety.md#numbers-that-would-overflow)."""
    old_m, new_m = old["models"], new["models"]
    models = {name: model_change(name, old_m, new_m, files) for name in [*old_m, *(n for n in new_m if n not in old_m)]}
    return {
        "models": models,
        "added": [n for n in new_m if n not in old_m],
        "removed": [n for n in old_m if n not in new_m],
        "inputs_changed": changed_inputs(old, new),
        "status": {"old": old["status"], "new": new["status"]},
        "solver_reference_id": {"old": old["solver_reference_id"], "new": new["solver_reference_id"]},
        "benchmark": {"old": old["provenance"]["benchmark"], "new": new["provenance"]["benchmark"]},
    }


def model_change(name: str, old_m: dict, new_m: dict, files: tuple[str, str]) -> dict:
    """One model's entry of the diff (docs/commands.md#diff): its status before and after, and the change
    of its index and of each track mean against the new document's intervals; a model added or removed
    has a null status and null values on the side where it is absent."""
    absent: dict[str, Any] = {"status": None, "index": None, "track_means": {}}
    a, b = old_m.get(name, absent), new_m.get(name, absent)
    ci = b.get("ci") or {}
    where = f"models.{name}"
    entry = {
        "status": {"old": a["status"], "new": b["status"], "changed": a["status"] != b["status"]},
        "index": change(a.get("index"), b.get("index"), _interval(ci.get("index")), files, where, "index"),
    }
    entry["tracks"] = {
        t: change(
            a["track_means"].get(t),
            b["track_means"].get(t),
            _interval((ci.get("tracks") or {}).get(t)),
            files,
            f"{where}.track_means",
            t,
        )
        for t in TRACKS
    }
    return entry


def changed_inputs(old: dict, new: dict) -> list[dict]:
    """The inputs of the provenance whose sha256 differs between the two documents, by name
    (docs/commands.md#diff); an input on one side only counts as changed."""
    old_in = (old.get("provenance") or {}).get("inputs") or {}
    new_in = (new.get("provenance") or {}).get("inputs") or {}
    return [
        {"input": k, "old": (old_in.get(k) or {}).get("sha256"), "new": (new_in.get(k) or {}).get("sha256")}
        for k in sorted(set(old_in) | set(new_in))
        if (old_in.get(k) or {}).get("sha256") != (new_in.get(k) or {}).get("sha256")
    ]


def change(a, b, interval, files: tuple[str, str], where: str, field: str) -> dict:
    """One value before and after: the change, the new 95% half-width and whether the change exceeds it."""
    lo, hi = interval
    hw = None if lo is None or hi is None else hi / 2 - lo / 2  # (hi - lo) / 2, which never overflows
    delta = None if a is None or b is None else b - a
    if delta is not None and not math.isfinite(delta):
        message = f"the change from {a!r} (in {files[0]}) to {b!r} is beyond a double"
        raise InputError([Problem(files[1], where, field, message)])
    exceeds = None if delta is None or hw is None else abs(delta) > hw
    return {"old": a, "new": b, "change": delta, "half_width": hw, "exceeds_half_width": exceeds}
