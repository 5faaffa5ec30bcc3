"""Paired comparison of two models (SPEC section 9, `tcsexam compare`).

The per-task differences A − B over the tasks both models have scored; per
track the task-clustered t interval of the mean difference, and for the index
the weighted sum with Welch–Satterthwaite degrees of freedom.
"""

from __future__ import annotations

import math

from .errors import InputError, Problem
from .uncertainty import LEVEL, METHOD, track_interval, weighted_interval
from .vocab import TRACK_LETTERS, TRACKS, WEIGHTS


def paired_differences(document: dict, a: str, b: str) -> list[dict]:
    """Tasks with a (non-null) mean for both models, in suite order, with A − B."""
    ta, tb = document["models"][a]["tasks"], document["models"][b]["tasks"]
    out = []
    for item, ra in ta.items():
        rb = tb.get(item)
        if rb is None or ra["mean"] is None or rb["mean"] is None:
            continue
        out.append(
            {"item": item, "track": ra["track"], "a": ra["mean"], "b": rb["mean"], "diff": ra["mean"] - rb["mean"]}
        )
    return out


def compare_models(document: dict, a: str, b: str) -> dict:
    """SPEC 9: the same formulas as the ``ci`` block, on paired per-task differences."""
    unknown = [m for m in (a, b) if m not in document["models"]]
    if unknown:
        known = ", ".join(document["models"])
        raise InputError([Problem("--models", "", m, f"model not in the cohort (models: {known})") for m in unknown])
    if a == b:
        raise InputError([Problem("--models", "", b, "compare two different models")])
    tasks = paired_differences(document, a, b)
    tracks = {}
    for t in TRACKS:
        diffs = [x["diff"] for x in tasks if x["track"] == t]
        if diffs:
            tracks[t] = track_interval(diffs)
    index = None
    if all(t in tracks for t in TRACKS):
        value = math.fsum(WEIGHTS[t] * tracks[t]["mean"] for t in TRACKS)
        index = weighted_interval(value, tracks, WEIGHTS)
    return {
        "models": [a, b],
        "method": METHOD,
        "level": LEVEL,
        "difference": f"{a} - {b}",
        "tracks": tracks,
        "index": index,
        "tasks": tasks,
    }


def _fmt(x, digits=4):
    return "NA" if x is None else f"{x:+.{digits}f}"  # ASCII for scripts (scoring.cli)


def format_comparison(result: dict) -> str:
    a, b = result["models"]
    lines = [f"paired difference {a} - {b} over tasks both have scored (95% t intervals)"]
    for t in TRACKS:
        r = result["tracks"].get(t)
        if r is None:
            lines.append(f"  {TRACK_LETTERS[t]} {t:<13} no common scored task")
            continue
        ci = f"[{_fmt(r['lo'])}, {_fmt(r['hi'])}]" if r["lo"] is not None else "(no interval: m < 2)"
        lines.append(f"  {TRACK_LETTERS[t]} {t:<13} {_fmt(r['mean'])} {ci}  m={r['m']}")
    idx = result["index"]
    if idx is None:
        lines.append("  index: not available (a track has no common scored task)")
    else:
        ci = f"[{_fmt(idx['lo'], 2)}, {_fmt(idx['hi'], 2)}]" if idx["lo"] is not None else "(no interval)"
        excl = ""
        if idx["lo"] is not None:
            excl = "  (interval excludes 0)" if idx["lo"] > 0 or idx["hi"] < 0 else "  (interval includes 0)"
        lines.append(f"  index difference {_fmt(idx['value'], 2)} points {ci}{excl}")
    return "\n".join(lines)
