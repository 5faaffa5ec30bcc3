"""The tau2 pane's pure functions: the task table, the simulations and a trajectory's messages and reward.

No textual here: each function is testable without a terminal.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...find import natural_key
from ...views import (
    DASH,
    cut_apart,
    fmt,
    plain,
)


def fmt_cost(cost: float | None) -> str:
    """tau2's agent cost in US dollars (what tau2-bench records): $0.0471; — for null."""
    return DASH if cost is None else f"${cost:.4f}"


TAU2_ID_MIN = 12  # the task_id column never narrower than this (the table then scrolls sideways)


def tau2_columns(metrics: dict) -> list[str]:
    kmax = max((len(t["pass_hat_k"]) for t in metrics["tasks"]), default=0)
    return ["task_id", "n", "successes", "avg reward", *[f"pass^{k}" for k in range(1, kmax + 1)], "termination"]


def tau2_sorted(metrics: dict, column: int = 0, reverse: bool = False) -> list[dict]:
    """The per-task results sorted by a column of ``tau2_columns`` (nulls last either way)."""
    columns = tau2_columns(metrics)
    name = columns[column]

    def value(t):
        if name == "task_id":
            return natural_key(t["task_id"])
        if name == "termination":
            return ", ".join(sorted(t["termination_reasons"]))
        if name.startswith("pass^"):
            return t["pass_hat_k"].get(name[5:])
        return t[{"n": "n", "successes": "successes", "avg reward": "avg_reward"}[name]]

    present = [t for t in metrics["tasks"] if value(t) is not None]
    absent = [t for t in metrics["tasks"] if value(t) is None]
    return sorted(present, key=value, reverse=reverse) + absent


def tau2_task_rows(
    metrics: dict, tasks: list[dict] | None = None, width: int | None = None
) -> tuple[int, list[list[str]]]:
    """(largest k, one row per task: id, n, successes, avg reward, pass^k…, reasons). The id takes the
    width the other columns leave of ``width`` (``cut_ids``); no cut without ``width``."""
    kmax = max((len(t["pass_hat_k"]) for t in metrics["tasks"]), default=0)
    rows = []
    for t in metrics["tasks"] if tasks is None else tasks:
        reasons = ", ".join(f"{k} {v}" for k, v in sorted(t["termination_reasons"].items()))
        rows.append(
            [plain(str(t["task_id"])), str(t["n"]), str(t["successes"]), fmt(t["avg_reward"])]
            + [fmt(t["pass_hat_k"].get(str(k))) for k in range(1, kmax + 1)]
            + [reasons]
        )
    if width is not None:
        cut_ids(rows, tau2_columns(metrics), width)
    return kmax, rows


def cut_ids(rows: list[list[str]], headers: Sequence[str], width: int) -> None:
    """The task id (each row's first cell) cut, in place, to the width the other columns leave of
    ``width`` (the table's, in cells: each column pads 1 either side, and a scrollbar may take 2), at
    least ``TAU2_ID_MIN``; with a start and an end that tell the ids apart (``cut_apart``: they often
    share both)."""
    if not rows:
        return
    others = sum(max(len(h), *(len(r[i]) for r in rows)) + 2 for i, h in enumerate(headers) if i)
    free = max(TAU2_ID_MIN, width - others - 2 - 2)
    for r, shown in zip(rows, cut_apart([r[0] for r in rows], free), strict=True):
        r[0] = shown


TAU2_AUDIT_COLUMNS = ("task_id", "trial", "stored", "derived", "finding")


def tau2_audit_rows(audit: list[dict], width: int | None = None) -> list[list[str]]:
    """One row per reward-gate finding: task id, trial, stored and derived reward, the finding. The id
    takes the width the other columns leave of ``width`` (``cut_ids``), so that trial and
    rewards stay on screen; the line under the table gives the finding in full."""
    rows = [
        [
            plain(str(a["task_id"])),
            DASH if a["trial"] is None else str(a["trial"]),
            fmt(a["stored_reward"], 7),
            fmt(a["derived_reward"], 7),
            plain(a["finding"]),
        ]
        for a in audit
    ]
    if width is not None:
        cut_ids(rows, TAU2_AUDIT_COLUMNS, width)
    return rows


TAU2_SIMULATION_COLUMNS = ("trial", "reward", "success", "termination reason", "agent cost")


def tau2_simulation_rows(simulations: list[dict]) -> list[list[str]]:
    """One row per simulation of a task (scoring.tau2.trajectory.task_simulations), as the table shows it."""
    return [
        [
            DASH if s["trial"] is None else str(s["trial"]),
            fmt(s["reward"]),
            "✓" if s["success"] else "✗",
            s["termination_reason"],
            cost_text(s["agent_cost"]),
        ]
        for s in simulations
    ]


def plain_lines(value: str) -> str:
    """Multi-line text shown as plain text: each line escaped (``plain``), the line breaks kept."""
    return "\n".join(plain(line) for line in str(value).split("\n"))


def tau2_message_blocks(trajectory: dict) -> list[tuple[str, str]]:
    """(heading, body) per message of a simulation (scoring.tau2.trajectory.simulation_trajectory): the
    turn and role, then its text and each tool call as ``→ name(arguments)``; escaped, plain text."""
    blocks = []
    for m in trajectory["messages"]:
        heading = " · ".join(
            x
            for x in (
                "" if m["turn"] is None else f"turn {m['turn']}",
                plain(m["role"]),
                "tool error" if m["error"] else "",
            )
            if x
        )
        body = [plain_lines(m["text"])] if m["text"] else []
        body += [f"→ {plain_lines(call)}" for call in m["tool_calls"]]
        blocks.append((heading, "\n".join(body) or DASH))
    return blocks


TAU2_REWARD_COLUMNS = ("outcome", "value", "part", "name")
OUTCOME_STYLE = {"✗ not met": "bold red", "✓ met": "green"}


def tau2_reward_rows(reward: dict) -> list[list[str]]:
    """The reward of a simulation, one row each, the outcome first (why it failed is the question): each named
    check with its outcome (✓ met, ✗ not met) and reward, then the stored and re-derived reward and each
    component of its reward_basis (its value and where it was read)."""

    def outcome(met) -> str:
        return DASH if met is None else ("✓ met" if met else "✗ not met")

    rows = [
        [outcome(check["met"]), fmt(check["reward"]), check["section"], check["name"]] for check in reward["checks"]
    ]
    rows += [
        ["", fmt(reward["stored"]), "reward", "stored"],
        ["", fmt(reward["derived"]), "reward", f"re-derived ({reward.get('gate') or 'product of the basis'})"],
    ]
    for c in reward["components"]:
        where = f"from {c['source']}" if c["source"] else "not evaluated"
        rows.append(["", fmt(c["value"]), "basis", f"{c['component']} ({where})"])
    return rows


def tau2_meta_line(meta: dict) -> str:
    """Domain, agent, user simulator and trials of a tau2-bench run, as far as its ``info`` names them."""
    parts = [
        f"domain {meta.get('domain') or DASH}",
        f"agent {meta.get('agent') or DASH}",
        f"user {meta.get('user') or DASH}",
        f"trials {meta.get('trials') or DASH}",
    ]
    return " · ".join(parts)


def cost_text(cost: float | None) -> str:
    """tau2's avg_agent_cost in dollars (``fmt_cost``): 0 means that no cost was recorded, not a free agent."""
    if cost is None:
        return DASH
    return "$0 (no cost recorded)" if cost == 0 else fmt_cost(cost)
