"""What moved between two index.json documents."""

from __future__ import annotations

import math
from typing import Any

from scoring.errors import InputError, Problem
from scoring.reports.index_file import _interval
from scoring.vocab import TRACKS


def diff_index(old: dict, new: dict, files: tuple[str, str] = ("old", "new")) -> dict:
    """SPEC 11 diff: per model the index and track means before and after, the change, and
    whether it exceeds the new document's 95% half-width; statuses; added/removed; inputs; the reference
    id and how the benchmark was found, before and after (docs/commands.md#diff). ``old`` and ``new``
    are documents read by ``index_file.load_index`` from ``files``; a change beyond a double is rejected
    input naming both values (docs/safety.md#numbers-that-would-overflow)."""
    models = {}
    old_m, new_m = old["models"], new["models"]
    for name in [*old_m, *(n for n in new_m if n not in old_m)]:
        absent: dict[str, Any] = {"status": None, "index": None, "track_means": {}}  # a model added or removed
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
        models[name] = entry
    old_in = (old.get("provenance") or {}).get("inputs") or {}
    new_in = (new.get("provenance") or {}).get("inputs") or {}
    inputs = [
        {"input": k, "old": (old_in.get(k) or {}).get("sha256"), "new": (new_in.get(k) or {}).get("sha256")}
        for k in sorted(set(old_in) | set(new_in))
        if (old_in.get(k) or {}).get("sha256") != (new_in.get(k) or {}).get("sha256")
    ]
    return {
        "models": models,
        "added": [n for n in new_m if n not in old_m],
        "removed": [n for n in old_m if n not in new_m],
        "inputs_changed": inputs,
        "status": {"old": old["status"], "new": new["status"]},
        "solver_reference_id": {"old": old["solver_reference_id"], "new": new["solver_reference_id"]},
        "benchmark": {"old": old["provenance"]["benchmark"], "new": new["provenance"]["benchmark"]},
    }


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
