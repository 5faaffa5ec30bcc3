"""One tau2-bench task's simulations and one simulation's trajectory, as ``tau2 view`` shows them
(docs/tau2.md#browsing-the-simulations): what the dashboard's tau2 browser lists, computed here.

A run's metrics read only what they need of each simulation; the messages and the named checks of a
simulation are read again from its file when it is opened (``simulation_trajectory``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec

from tcsexam.scoring.errors import InputError, Problem
from tcsexam.scoring.formats.decode import reject_duplicate_keys
from tcsexam.scoring.tau2.files import Simulation, Tau2Results, read_file
from tcsexam.scoring.tau2.metrics import NORMAL_ENDINGS, RAW_CHECKS, derive_reward, is_successful, raw_component


def task_simulations(results: Tau2Results, task_id: str) -> list[dict]:
    """The simulations of one task (its id as text), by trial: their position in ``results.simulations``
    (``slot``), trial, reward (None without reward_info), success, termination reason and agent cost."""
    rows = []
    for slot, sim in enumerate(results.simulations):
        if str(sim.task_id) != task_id:
            continue
        reward = sim.reward_info.reward if sim.reward_info is not None else None
        rows.append(
            {
                "slot": slot,
                "id": sim.id,
                "trial": sim.trial,
                "reward": reward,
                "success": is_successful(reward),
                "termination_reason": sim.termination_reason,
                "agent_cost": sim.agent_cost,
            }
        )
    return sorted(rows, key=lambda r: (r["trial"] is None, r["trial"] or 0, r["slot"]))


class _ToolCall(msgspec.Struct):
    name: Any = None
    arguments: Any = None


class _Message(msgspec.Struct):
    role: Any = None
    content: Any = None
    tool_calls: list[_ToolCall] | None = None
    error: Any = None
    turn_idx: Any = None


class _Trajectory(msgspec.Struct):
    messages: list[_Message] | None = None
    reward_info: dict[str, Any] | None = None


class _JsonRun(msgspec.Struct):
    simulations: list[msgspec.Raw] = []


def as_text(value: Any) -> str:
    """A message's content or a tool call's arguments as text: a string as it is, else its JSON."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)


def simulation_trajectory(results: Tau2Results, slot: int) -> dict:
    """The messages of one simulation (role, turn, text, tool calls as ``name(arguments)``, whether a tool
    result is an error) and its reward breakdown (``reward_breakdown``); raises InputError naming the
    file when it can no longer be read as it was."""
    file, label = results.origins[slot]
    try:
        data = read_file(Path(file), "tau2-bench results")
        if label:  # the json format: the slot-th simulation of results.json
            data = bytes(msgspec.json.decode(data, type=_JsonRun).simulations[slot])
        found = msgspec.json.decode(data, type=_Trajectory)
    except (msgspec.DecodeError, msgspec.ValidationError, IndexError) as exc:
        where = label or ""
        raise InputError([Problem(file, where, "messages", f"cannot be read: {exc}")]) from None
    reject_duplicate_keys(data, file)  # the messages are read here only (docs/tau2.md#what-is-checked)
    messages = [
        {
            "turn": m.turn_idx if isinstance(m.turn_idx, int) and not isinstance(m.turn_idx, bool) else None,
            "role": as_text(m.role) or "?",
            "text": as_text(m.content),
            "tool_calls": [f"{as_text(c.name)}({as_text(c.arguments)})" for c in m.tool_calls or []],
            "error": m.error is True,
        }
        for m in found.messages or []
    ]
    return {"messages": messages, "reward": reward_breakdown(results.simulations[slot], found.reward_info)}


def reward_breakdown(sim: Simulation, raw: dict[str, Any] | None) -> dict:
    """The reward of one simulation by component: for each component its reward_basis names, its value
    (from reward_breakdown, else from the raw checks, else None: not evaluated) and where it came from;
    each named check (DB, env assertions, actions, communicate checks, NL assertions) with its outcome;
    the stored and the re-derived reward (docs/tau2.md#the-reward-gate-audit)."""
    info = sim.reward_info
    if info is None:
        return {"stored": None, "derived": None, "basis": [], "components": [], "checks": []}
    components = []
    for component in info.reward_basis or []:
        value, source = (info.reward_breakdown or {}).get(component), "reward_breakdown"
        if value is None:
            value, source = raw_component(info, component), "checks"
        components.append({"component": component, "value": value, "source": source if value is not None else ""})
    derived, _ = derive_reward(sim)
    gate = "" if sim.termination_reason in NORMAL_ENDINGS else f"0: ended by {sim.termination_reason}"
    return {
        "stored": info.reward,
        "derived": derived,
        "gate": gate,
        "basis": list(info.reward_basis or []),
        "components": components,
        "checks": named_checks(raw or {}),
    }


def named_checks(raw: dict[str, Any]) -> list[dict]:
    """Each check of a reward_info by section, with its name and outcome (met / matched, reward)."""
    out = []
    db = raw.get("db_check")
    if isinstance(db, dict):
        out.append(
            {
                "section": "DB",
                "name": "database",
                "met": _flag(db.get("db_match")),
                "reward": _number(db.get("db_reward")),
            }
        )
    names = {
        "env_assertions": ("env_assertion", "func_name", "met", "reward"),
        "action_checks": ("action", "name", "action_match", "action_reward"),
        "communicate_checks": (None, "info", "met", None),
        "nl_assertions": (None, "nl_assertion", "met", None),
    }
    section_of = {field: component for component, (field, _) in RAW_CHECKS.items()}
    for field, (inner, key, met, reward) in names.items():
        for check in raw.get(field) or []:
            if not isinstance(check, dict):
                continue
            holder = check.get(inner) if inner else check
            name = holder.get(key) if isinstance(holder, dict) else None
            out.append(
                {
                    "section": section_of[field],
                    "name": as_text(name) or DASH,
                    "met": _flag(check.get(met)),
                    "reward": _number(check.get(reward)) if reward else None,
                }
            )
    return out


def _flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


DASH = "—"
