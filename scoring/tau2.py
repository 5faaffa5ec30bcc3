"""tau2-bench results: pass^k, averages and the reward-gate audit (SPEC section 8).

Semantics follow tau2-bench's metrics module (v1.0.x): runs whose
termination_reason is the plain string ``infrastructure_error`` are dropped
first; success is a reward within 1e-6 of 1.0; a run whose reward_info is
null is a failure for pass^k and is left out of avg_reward; per task pass^k =
C(c, k)/C(n, k), averaged over the tasks, for k = 1..min(info.num_trials,
smallest per-task n). No pandas: plain lists and exact integers.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr

from .errors import InputError, Problem
from .jsonio import load_json
from .models import Number, validate_object
from .passk import mean_pass_hat_k, task_pass_hat_k

INFRA = "infrastructure_error"
NORMAL_ENDINGS = ("agent_stop", "user_stop")
SUCCESS_TOLERANCE = 1e-6
AUDIT_TOLERANCE = 1e-9


class DBCheck(BaseModel):
    model_config = ConfigDict(extra="allow")
    db_match: StrictBool | None = None
    db_reward: Number | None = None


class RewardInfo(BaseModel):
    model_config = ConfigDict(extra="allow")
    reward: Number
    db_check: DBCheck | None = None
    env_assertions: list[dict[str, Any]] | None = None
    action_checks: list[dict[str, Any]] | None = None
    communicate_checks: list[dict[str, Any]] | None = None
    nl_assertions: list[dict[str, Any]] | None = None
    reward_basis: list[StrictStr] | None = None
    reward_breakdown: dict[str, Number] | None = None


class Simulation(BaseModel):
    model_config = ConfigDict(extra="allow")
    task_id: StrictStr | StrictInt
    trial: StrictInt | None = None
    termination_reason: StrictStr
    agent_cost: Number | None = None
    reward_info: RewardInfo | None = None


class Info(BaseModel):
    model_config = ConfigDict(extra="allow")
    num_trials: StrictInt | None = Field(default=None, ge=1)


class Tau2Results(BaseModel):
    """tau2-bench's Results file (``info``, ``tasks``, ``simulations``); unused fields are ignored."""

    model_config = ConfigDict(extra="allow")
    info: Info = Field(default_factory=Info)
    simulations: list[Simulation]


def load_tau2_results(path: Path) -> Tau2Results:
    """Read a results.json of tau2-bench 1.0 (the file, or the run folder holding it), or an older
    single-file run (a bare list of simulations)."""
    if path.is_dir() and (path / "results.json").is_file():
        path = path / "results.json"
    file = str(path)
    raw = load_json(path, "tau2-bench results file")
    if isinstance(raw, list):
        raw = {"simulations": raw}
    try:
        return validate_object(Tau2Results, raw, file)
    except InputError as exc:
        problems = exc.problems
        for i, p in enumerate(problems):  # 'simulations.3' reads better as 'simulation 3'
            if p.where.startswith("simulations."):
                head, _, rest = p.where.partition(".")[2].partition(".")
                problems[i] = Problem(p.file, f"simulation {head}" + (f", {rest}" if rest else ""), p.field, p.message)
        raise InputError(problems) from None


def is_successful(reward: float | None) -> bool:
    """tau2-bench: success is a reward within 1e-6 of 1.0 (a null reward is a failure)."""
    return reward is not None and (1 - SUCCESS_TOLERANCE) <= reward <= (1 + SUCCESS_TOLERANCE)


def raw_component(info: RewardInfo, component: str) -> float | None:
    """A component's reward from the raw checks, or None when they were not recorded."""
    if component == "DB":
        return None if info.db_check is None or info.db_check.db_reward is None else float(info.db_check.db_reward)
    if component == "ENV_ASSERTION" and info.env_assertions is not None:
        return math.prod(float(a.get("reward", 1.0 if a.get("met") else 0.0)) for a in info.env_assertions)
    if component == "ACTION" and info.action_checks is not None:
        return math.prod(float(a.get("action_reward", 1.0 if a.get("action_match") else 0.0)) for a in info.action_checks)
    if component == "COMMUNICATE" and info.communicate_checks is not None:
        return 1.0 if all(c.get("met") for c in info.communicate_checks) else 0.0
    if component == "NL_ASSERTION" and info.nl_assertions is not None:
        return 1.0 if all(c.get("met") for c in info.nl_assertions) else 0.0
    return None


def derive_reward(sim: Simulation) -> tuple[float, list[str]]:
    """The reward gate: 0 for an abnormal ending, else the product of the components the basis names.

    A component is read from reward_breakdown, else from its raw checks; the
    names of basis components found in neither are returned (not evaluated).
    """
    info = sim.reward_info
    assert info is not None
    if sim.termination_reason not in NORMAL_ENDINGS:
        return 0.0, []
    reward, missing = 1.0, []
    for component in info.reward_basis or []:
        value = (info.reward_breakdown or {}).get(component)
        if value is None:
            value = raw_component(info, component)
        if value is None:
            missing.append(component)
            continue
        reward *= float(value)
    return reward, missing


def audit(sims: list[Simulation]) -> list[dict]:
    """SPEC 8: every evaluated run whose stored reward differs from the re-derived one, and every
    normally ended run whose basis names a component that was not evaluated."""
    findings = []
    for sim in sims:
        if sim.reward_info is None:
            continue
        derived, missing = derive_reward(sim)
        stored = float(sim.reward_info.reward)
        base = {"task_id": sim.task_id, "trial": sim.trial, "stored_reward": stored, "derived_reward": derived}
        if abs(stored - derived) > AUDIT_TOLERANCE:
            why = (f"stored reward {stored!r} but the gate gives {derived!r}"
                   + (f" (termination '{sim.termination_reason}' scores 0)" if sim.termination_reason not in NORMAL_ENDINGS
                      else f" from {' × '.join(sim.reward_info.reward_basis or []) or 'an empty basis'}"))
            findings.append({**base, "finding": why})
        if missing:
            findings.append({**base, "finding": f"reward_basis names {', '.join(missing)} but it was not evaluated"})
    return findings


def mean_or_none(values: list[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def compute_tau2_metrics(results: Tau2Results, source: str = "") -> dict:
    """SPEC 8 output."""
    all_sims = results.simulations
    sims = [s for s in all_sims if s.termination_reason != INFRA]
    reasons = Counter(s.termination_reason for s in all_sims)
    order: dict[Any, list[Simulation]] = {}
    for s in sims:
        order.setdefault(s.task_id, []).append(s)
    db = {"match": 0, "mismatch": 0, "not_checked": 0}
    for s in sims:
        if s.reward_info is not None and s.reward_info.db_check is not None:
            db["match" if s.reward_info.db_check.db_match else "mismatch"] += 1
        else:
            db["not_checked"] += 1

    tasks = []
    counts = []
    for task_id, runs in order.items():
        rewards = [float(r.reward_info.reward) for r in runs if r.reward_info is not None]
        n = len(runs)
        c = sum(1 for r in runs if is_successful(float(r.reward_info.reward) if r.reward_info else None))
        counts.append((n, c))
        tasks.append({"task_id": task_id, "n": n, "successes": c, "avg_reward": mean_or_none(rewards),
                      "termination_reasons": dict(Counter(r.termination_reason for r in runs)),
                      "pass_hat_k": {str(k): v for k, v in task_pass_hat_k(n, c).items()}})
    max_k = 0
    if counts:
        smallest = min(n for n, _ in counts)
        max_k = min(results.info.num_trials, smallest) if results.info.num_trials else smallest
    pass_k = mean_pass_hat_k(counts, max_k) if max_k else {}
    rewards = [float(s.reward_info.reward) for s in sims if s.reward_info is not None]
    costs = [float(s.agent_cost) for s in sims if s.agent_cost is not None]
    if sims:
        avg_reward, avg_cost = mean_or_none(rewards), mean_or_none(costs)
    else:  # tau2-bench reports zeros when nothing was evaluated
        avg_reward, avg_cost = 0.0, 0.0
    return {
        "source": source,
        "num_simulations": len(sims),
        "num_tasks": len(order),
        "infra_errors": reasons.get(INFRA, 0),
        "max_k": max_k,
        "avg_reward": avg_reward,
        "avg_agent_cost": avg_cost,
        "pass_hat_k": {str(k): v for k, v in pass_k.items()},
        "termination_reasons": dict(sorted(reasons.items())),
        "db": db,
        "tasks": tasks,
        "audit": audit(sims),
    }


def tau2_metrics_for_file(path: Path) -> dict:
    return compute_tau2_metrics(load_tau2_results(path), str(path))


def format_tau2_summary(m: dict) -> str:
    def f(x):
        return "—" if x is None else f"{x:.6g}"
    lines = [f"{m['source']}: {m['num_simulations']} runs over {m['num_tasks']} tasks "
             f"({m['infra_errors']} infrastructure errors dropped)",
             f"avg_reward {f(m['avg_reward'])}   avg_agent_cost {f(m['avg_agent_cost'])}",
             "pass^k  " + "  ".join(f"k={k}: {f(v)}" for k, v in m["pass_hat_k"].items()),
             "termination  " + ", ".join(f"{k} {v}" for k, v in m["termination_reasons"].items()),
             f"db  match {m['db']['match']}, mismatch {m['db']['mismatch']}, not checked {m['db']['not_checked']}",
             f"audit: {len(m['audit'])} finding(s)"]
    lines += [f"  task {a['task_id']} trial {a['trial']}: {a['finding']}" for a in m["audit"][:20]]
    if len(m["audit"]) > 20:
        lines.append(f"  … and {len(m['audit']) - 20} more (see --output)")
    return "\n".join(lines)
