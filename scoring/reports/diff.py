"""What moved between two index.json documents."""

from __future__ import annotations

import math
from typing import Any

from tcsexam.scoring.errors import InputError, Problem
from tcsexam.scoring.reports.index_file import _interval
from tcsexam.scoring.vocab import TRACKS

GROWTH = 2  # docs/commands.md#diff: an index half-width that grew more than twofold is named


def diff_index(old: dict, new: dict, files: tuple[str, str] = ("old", "new")) -> dict:
    """docs/commands.md#diff: per model the index and track means before and after, the change, and
    whether it exceeds the old document's 95% half-width (the new one's when the old has none); the
    models whose index half-width grew more than twofold; statuses; added/removed; inputs; the reference
    id and how the benchmark was found, before and after. ``old`` and ``new`` are documents read by
    ``index_file.load_index`` from ``files``; a change beyond a double is rejected input naming both
    values (docs/safety.md#numbers-that-would-overflow)."""
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
        "half_width_grew": half_widths_grown(models),
    }


def half_widths_grown(models: dict) -> list[dict]:
    """The models whose index 95% half-width grew more than ``GROWTH``-fold from the old document to the
    new, with both half-widths (docs/commands.md#diff): a change of the data that widened the interval it
    is judged against would otherwise pass unseen."""
    out = []
    for name, e in models.items():
        old, new = e["index"]["old_half_width"], e["index"]["half_width"]
        if old is not None and new is not None and new / GROWTH > old:
            out.append({"model": name, "old": old, "new": new})
    return out


def model_change(name: str, old_m: dict, new_m: dict, files: tuple[str, str]) -> dict:
    """One model's entry of the diff (docs/commands.md#diff): its status before and after, and the change
    of its index and of each track mean against the old document's intervals (the new one's where the old
    has none); a model added or removed has a null status and null values on the side where it is absent."""
    absent: dict[str, Any] = {"status": None, "index": None, "track_means": {}}
    a, b = old_m.get(name, absent), new_m.get(name, absent)
    ci_a, ci_b = a.get("ci") or {}, b.get("ci") or {}
    where = f"models.{name}"
    entry = {
        "status": {"old": a["status"], "new": b["status"], "changed": a["status"] != b["status"]},
        "index": change(
            a.get("index"),
            b.get("index"),
            (_interval(ci_a.get("index")), _interval(ci_b.get("index"))),
            files,
            where,
            "index",
        ),
    }
    entry["tracks"] = {
        t: change(
            a["track_means"].get(t),
            b["track_means"].get(t),
            (_interval((ci_a.get("tracks") or {}).get(t)), _interval((ci_b.get("tracks") or {}).get(t))),
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


def half_width(interval: tuple[float | None, float | None]) -> float | None:
    lo, hi = interval
    return None if lo is None or hi is None else hi / 2 - lo / 2  # (hi - lo) / 2, which never overflows


Intervals = tuple[tuple[float | None, float | None], tuple[float | None, float | None]]


def change(a, b, intervals: Intervals, files: tuple[str, str], where: str, field: str) -> dict:
    """One value before and after (docs/commands.md#diff): the change, the old and the new 95% half-width,
    and whether the change exceeds the old one (``judged_against`` "old"), or the new one when the old
    document has no interval ("new"); null when there is no change or no half-width to judge it by. The
    old interval is the yardstick because a mistake in the new data widens the new interval with it."""
    old_hw, new_hw = half_width(intervals[0]), half_width(intervals[1])
    delta = None if a is None or b is None else b - a
    if delta is not None and not math.isfinite(delta):
        message = f"the change from {a!r} (in {files[0]}) to {b!r} is beyond a double"
        raise InputError([Problem(files[1], where, field, message)])
    yardstick, against = (old_hw, "old") if old_hw is not None else (new_hw, "new")
    exceeds = None if delta is None or yardstick is None else abs(delta) > yardstick
    return {
        "old": a,
        "new": b,
        "change": delta,
        "half_width": new_hw,
        "exceeds_half_width": exceeds,
        "old_half_width": old_hw,
        "judged_against": None if exceeds is None else against,
    }
