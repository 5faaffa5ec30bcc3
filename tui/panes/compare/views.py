"""The Compare pane's pure functions: the track differences, the tasks behind them, an instance's differences.

No textual here: each function is testable without a terminal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tcsexam.scoring.reports.numbers import INDEX_DIGITS, TRACK_DIGITS
from tcsexam.scoring.vocab import TRACK_LETTERS as LETTERS
from tcsexam.scoring.vocab import TRACKS

from ...views import (
    DASH,
    fmt,
)

if TYPE_CHECKING:
    pass

# the degrees of freedom of the index difference are `tcsexam compare`'s (and its JSON's), not the screen's
COMPARE_COLUMNS = ("track", "A − B", "se", "95% interval", "tasks")


def compare_rows(result: dict) -> list[list[str]]:
    """Rows of COMPARE_COLUMNS: per track and for the index."""
    rows = []
    for t in TRACKS:
        r = result["tracks"].get(t)
        if r is None:
            rows.append([f"{LETTERS[t]} {t}", DASH, DASH, DASH, "0"])
        else:
            ci = (
                DASH
                if r["lo"] is None
                else f"[{fmt(r['lo'], TRACK_DIGITS, signed=True)}, {fmt(r['hi'], TRACK_DIGITS, signed=True)}]"
            )
            rows.append(
                [
                    f"{LETTERS[t]} {t}",
                    fmt(r["mean"], TRACK_DIGITS, signed=True),
                    fmt(r["se"], TRACK_DIGITS),
                    ci,
                    str(r["m"]),
                ]
            )
    idx = result["index"]
    if idx is None:
        rows.append(["Index (points)", DASH, DASH, DASH, ""])
    else:
        ci = (
            DASH
            if idx["lo"] is None
            else f"[{fmt(idx['lo'], INDEX_DIGITS, signed=True)}, {fmt(idx['hi'], INDEX_DIGITS, signed=True)}]"
        )
        rows.append(
            [
                "Index (points)",
                fmt(idx["value"], INDEX_DIGITS, signed=True),
                fmt(idx["se"], INDEX_DIGITS),
                ci,
                "",
            ]
        )
    return rows


# the track as its letter and the index share as "points": at 80 columns the instance counts stay on screen
TASK_DIFF_COLUMNS = ("task", "track", "points", "A", "B", "A − B", "inst. A>B/B>A/=")


def task_difference_rows(result: dict) -> list[tuple[str, list[str]]]:
    """(item, row of TASK_DIFF_COLUMNS) per task both models scored, the largest contribution to the index
    difference first (its points: A − B × the track's weight ÷ the track's tasks both scored, as compare
    computes it, docs/rules.md#per-task-differences; ties in suite order); solver tasks with per-instance
    counts show them, others —."""
    counts = result.get("instances", {})
    order = sorted(result["tasks"], key=lambda t: -abs(t["contribution"]))  # sorted() is stable
    rows = []
    for t in order:
        c = counts.get(t["item"])
        inst = DASH if c is None else f"{c['a_better']} / {c['b_better']} / {c['equal']}"
        rows.append(
            (
                t["item"],
                [
                    t["item"],
                    LETTERS[t["track"]],
                    fmt(t["contribution"], INDEX_DIGITS, signed=True),
                    fmt(t["a"]),
                    fmt(t["b"]),
                    fmt(t["difference"], TRACK_DIGITS, signed=True),
                    inst,
                ],
            )
        )
    return rows


INSTANCE_DIFF_COLUMNS = ("instance", "A", "B", "A − B")


def instance_difference_rows(diffs: list[dict]) -> list[list[str]]:
    """Rows of INSTANCE_DIFF_COLUMNS from scoring.stats.differences.largest_instance_differences (its order kept)."""
    return [[d["instance"], fmt(d["a"]), fmt(d["b"]), fmt(d["difference"], TRACK_DIGITS, signed=True)] for d in diffs]


def mde_text(mde: dict, note: str | None = None) -> str:
    """``compare``'s ``mde`` (docs/rules.md#planning-attempts) in one line: index points detectable with r attempts per task;
    ``note`` (scoring.reports.compare.mde_note) after it when a variance was clipped at 0."""
    values = sorted(((int(r), v) for r, v in mde.items()), key=lambda rv: rv[0])
    if not values or all(v is None for _, v in values):
        return (
            "Smallest detectable gap (found 80% of the time at 5%, two-sided): not available — a track has < 2 "
            "common tasks, or a model "
            "has no task with 2 valid attempts."
        )
    line = "Smallest detectable gap (found 80% of the time at 5%), index points by attempts per task r: " + "  ".join(
        f"r={r} {fmt(v, 2)}" for r, v in values
    )
    return f"{line}. Note: {note}." if note else line
