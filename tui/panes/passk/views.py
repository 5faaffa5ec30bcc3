"""The pass^k pane's pure functions: its table, the shares and the attempts plan.

No textual here: each function is testable without a terminal.
"""

from __future__ import annotations

from collections.abc import Mapping

from tcsexam.scoring.reports.plan import unreached
from tcsexam.scoring.vocab import TRACK_LETTERS as LETTERS
from tcsexam.scoring.vocab import TRACKS

from ...charts import sparkline
from ...views import fmt


def passk_rows(document: dict, model: str) -> tuple[int, list[list[str]]]:
    """(largest k, rows of track, threshold, tasks, pass^1..pass^K as a sparkline, then as numbers)."""
    pk = document["models"][model]["pass_hat_k"]
    kmax = max((len(v["by_k"]) for v in pk.values()), default=0)
    rows = []
    for t in TRACKS:
        v = pk[t]
        values = [v["by_k"].get(str(k)) for k in range(1, kmax + 1)]
        rows.append(
            [f"{LETTERS[t]} {t}", f"{v['threshold']:g}", str(v["tasks"]), sparkline(values)] + [fmt(x) for x in values]
        )
    return kmax, rows


def plan_row(plan_entry: dict) -> tuple[list[str], list[str]]:
    """(column labels r=1.., the projected 95% index half-widths in points) of one model's plan (docs/rules.md#planning-attempts)."""
    keys = sorted(plan_entry["half_width"], key=int)
    return [f"r={k}" for k in keys], [fmt(plan_entry["half_width"][k], 2) for k in keys]


def plan_summary(plan_entry: dict) -> list[str]:
    """The planner's inputs per track (its tasks, the variance within a task s_w² / between tasks σ_b²,
    docs/rules.md#planning-attempts; the heading says so in words), two tracks a line short enough for
    80 columns, so that no track's figures are wrapped apart."""
    parts = []
    for t in TRACKS:
        v = plan_entry["tracks"][t]
        tasks = f"{v['m']} task{'' if v['m'] == 1 else 's'}"
        parts.append(f"{LETTERS[t]} {tasks} {fmt(v['s_w2'], 4)} / {fmt(v['sigma_b2'], 4)}")
    return ["    ".join(parts[i : i + 2]) for i in range(0, len(parts), 2)]


def target_text(
    typed: str, half_width: Mapping[str, float | None], needed: int | None, limit: float | None = None
) -> str:
    """What the target half-width H typed asks for (docs/rules.md#planning-attempts attempts_for_target), given
    the projected half-width by attempts, the fewest attempts reaching H (``needed``) and the half-width with
    unlimited attempts (``limit``)."""
    if not typed.strip():
        return "Type a target half-width H (index points) to see the attempts per task it needs."
    target = parse_target(typed)
    if target is None:
        return f"H must be a positive number of index points, not {typed}."
    if all(h is None for h in half_width.values()):
        return f"H = {target:g}: nothing to project for this model (a track has fewer than 2 tasks or no task with 2 attempts)."
    if needed is None:
        return f"H = {target:g}: {unreached(len(half_width), limit, target)}."
    return f"H = {target:g}: {needed} attempt{'s' if needed != 1 else ''} per task."


def parse_target(value: str) -> float | None:
    """The target field: a positive number of index points, else None (nothing asked)."""
    try:
        x = float(value)
    except ValueError:
        return None
    return x if x > 0 and x != float("inf") else None


# --- Leaderboard (docs/commands.md: the groups and cells of `tcsexam table`) -----------------------------------
