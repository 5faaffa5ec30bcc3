"""tau2-bench results: pass^k, averages and the reward-gate audit (docs/tau2.md).

Semantics follow tau2-bench's metrics module (v1.0.x): runs whose
termination_reason is the plain string ``infrastructure_error`` are dropped
first; success is a reward within 1e-6 of 1.0; a run whose reward_info is
null is a failure for pass^k and is left out of avg_reward; per task pass^k =
C(c, k)/C(n, k), averaged over the tasks, for k = 1..min(info.num_trials,
smallest per-task n). No pandas: plain lists; pass^k is ``stats.passk``'s. Reading the
files (json and dir formats) is ``scoring.tau2.files``; the metrics here do not
depend on the format.
"""

from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Any

from tcsexam.scoring.errors import InputError, Problem
from tcsexam.scoring.formats.wording import describe
from tcsexam.scoring.safety.numbers import NumberTooLarge, finite_mean
from tcsexam.scoring.stats.passk import mean_pass_hat_k, task_pass_hat_k
from tcsexam.scoring.tau2.files import (
    IndexEntry,
    RewardInfo,
    Simulation,
    Tau2Results,
    load_tau2_results,
)

INFRA = "infrastructure_error"


NORMAL_ENDINGS = ("agent_stop", "user_stop")


SUCCESS_TOLERANCE = 1e-6


AUDIT_TOLERANCE = 1e-9


Origin = tuple[str, str]  # (file, where in it) of one simulation


REWARD = ("reward_info", "reward")  # where a simulation's reward sits in it: (section, field)


COST = ("", "agent_cost")


def located_mean(values: list[tuple[float, Origin, tuple[str, str]]], what: str) -> float | None:
    """The mean (docs/safety.md: ``finite_mean``) of (value, origin, (section, field)) triples; None for no
    values. A result that overflows is rejected input naming where its largest value is."""
    if not values:
        return None
    try:
        return finite_mean([v for v, _, _ in values], what)
    except NumberTooLarge as exc:
        _, (file, where), (section, field) = max(values, key=lambda t: abs(t[0]))
        raise InputError([Problem(file, ", ".join(x for x in (where, section) if x), field, str(exc))]) from None


def is_successful(reward: float | None) -> bool:
    """tau2-bench: success is a reward within 1e-6 of 1.0 (a null reward is a failure)."""
    return reward is not None and (1 - SUCCESS_TOLERANCE) <= reward <= (1 + SUCCESS_TOLERANCE)


def product_of_checks(checks, reward: str, matched: str) -> float:
    """The product of each check's reward, or 1/0 from its match when it has no float reward."""
    return math.prod(
        getattr(a, reward) if isinstance(getattr(a, reward), float) else (1.0 if getattr(a, matched) else 0.0)
        for a in checks
    )


def all_met(checks) -> float:
    return 1.0 if all(c.met for c in checks) else 0.0


# each basis component: where its raw checks are in reward_info, and how they make a reward
RAW_CHECKS = {
    "ENV_ASSERTION": ("env_assertions", lambda checks: product_of_checks(checks, "reward", "met")),
    "ACTION": ("action_checks", lambda checks: product_of_checks(checks, "action_reward", "action_match")),
    "COMMUNICATE": ("communicate_checks", all_met),
    "NL_ASSERTION": ("nl_assertions", all_met),
}


def raw_component(info: RewardInfo, component: str) -> float | None:
    """A component's reward from the raw checks, or None when they were not recorded."""
    if component == "DB":
        return None if info.db_check is None else info.db_check.db_reward
    if component not in RAW_CHECKS:
        return None
    section, reward_of = RAW_CHECKS[component]
    checks = getattr(info, section)
    return None if checks is None else reward_of(checks)


def derive_reward(sim: Simulation, origin: Origin = ("", "")) -> tuple[float, list[str]]:
    """The reward gate: 0 for an abnormal ending, else the product of the components the basis names.

    A component is read from reward_breakdown, else from its raw checks; the
    names of basis components found in neither are returned (not evaluated).
    A product past the largest double is rejected input (docs/safety.md).
    """
    info = sim.reward_info
    assert info is not None
    if sim.termination_reason not in NORMAL_ENDINGS:
        return 0.0, []
    reward, missing, factors = 1.0, [], []
    for component in info.reward_basis or []:
        value = (info.reward_breakdown or {}).get(component)
        if value is None:
            value = raw_component(info, component)
        if value is None:
            missing.append(component)
            continue
        factors.append((component, value))
        reward *= value
    if not math.isfinite(reward):
        named = " × ".join(f"{c} {describe(v)}" for c, v in factors)
        raise InputError(
            [
                Problem(
                    origin[0],
                    ", ".join(x for x in (origin[1], "reward_info") if x),
                    "reward_basis",
                    f"its components multiply past the largest double ({named})",
                )
            ]
        )
    return reward, missing


def index_findings(sim: Simulation, slot: int, entry: IndexEntry, origin: Origin) -> list[dict]:
    """Dir format: the index's reward or termination_reason disagreeing with the simulation file."""
    stored = sim.reward_info.reward if sim.reward_info is not None else None
    derived = derive_reward(sim, origin)[0] if sim.reward_info is not None else None
    base = {"task_id": sim.task_id, "trial": sim.trial, "stored_reward": stored, "derived_reward": derived}
    name = Path(origin[0]).name
    out = []
    if (stored is None) != (entry.reward is None) or (
        stored is not None and entry.reward is not None and abs(stored - entry.reward) > AUDIT_TOLERANCE
    ):
        out.append(
            {
                **base,
                "finding": f"simulation_index entry {slot} gives reward {describe(entry.reward)} "
                f"but {name} stores {describe(stored)}",
            }
        )
    if entry.termination_reason is not None and entry.termination_reason != sim.termination_reason:
        out.append(
            {
                **base,
                "finding": f"simulation_index entry {slot} gives termination_reason "
                f"{describe(entry.termination_reason)} but {name} has "
                f"{describe(sim.termination_reason)}",
            }
        )
    return out


def audit(sims: list[Simulation], origins: list[Origin]) -> list[dict]:
    """docs/tau2.md: every evaluated run whose stored reward differs from the re-derived one, and every
    normally ended run whose basis names a component that was not evaluated."""
    findings = []
    for sim, origin in zip(sims, origins, strict=True):
        if sim.reward_info is None:
            continue
        derived, missing = derive_reward(sim, origin)
        stored = sim.reward_info.reward
        base = {"task_id": sim.task_id, "trial": sim.trial, "stored_reward": stored, "derived_reward": derived}
        if abs(stored - derived) > AUDIT_TOLERANCE:
            why = f"stored reward {stored!r} but the gate gives {derived!r}" + (
                f" (termination '{sim.termination_reason}' scores 0)"
                if sim.termination_reason not in NORMAL_ENDINGS
                else f" from {' × '.join(sim.reward_info.reward_basis or []) or 'an empty basis'}"
            )
            findings.append({**base, "finding": why})
        if missing:
            findings.append({**base, "finding": f"reward_basis names {', '.join(missing)} but it was not evaluated"})
    return findings


def run_description(results: Tau2Results) -> dict:
    """What a run's ``info`` says about it: domain, agent and user models, trials (None when absent)."""
    info = results.info
    return {
        "domain": info.environment_info.domain_name if info.environment_info else None,
        "agent": info.agent_info.llm if info.agent_info else None,
        "user": info.user_info.llm if info.user_info else None,
        "trials": info.num_trials,
    }


def db_counts(sims: list[Simulation]) -> dict[str, int]:
    """How many kept runs' database check matched, did not, or was not made."""
    db = {"match": 0, "mismatch": 0, "not_checked": 0}
    for s in sims:
        if s.reward_info is not None and s.reward_info.db_check is not None:
            db["match" if s.reward_info.db_check.db_match else "mismatch"] += 1
        else:
            db["not_checked"] += 1
    return db


@lru_cache(maxsize=1024)
def _task_pass_hat_k(n: int, c: int) -> tuple[tuple[str, float], ...]:
    """A task's pass^k as written, k = 1..n; the same (n, c) recur over a run's tasks (a run of
    4 trials a task has 5), so each is computed once."""
    return tuple((str(k), v) for k, v in task_pass_hat_k(n, c).items())


def task_row(task_id: Any, runs: list[tuple[Simulation, Origin]]) -> dict:
    """One task's n, successes, mean reward, termination reasons and pass^k (docs/tau2.md)."""
    rewards = [(r.reward_info.reward, o, REWARD) for r, o in runs if r.reward_info is not None]
    n = len(runs)
    c = sum(1 for reward, _, _ in rewards if is_successful(reward))
    reasons: dict[str, int] = {}
    for r, _ in runs:
        reasons[r.termination_reason] = reasons.get(r.termination_reason, 0) + 1
    return {
        "task_id": task_id,
        "n": n,
        "successes": c,
        "avg_reward": located_mean(rewards, f"task {task_id!r}'s mean reward"),
        "termination_reasons": reasons,
        "pass_hat_k": dict(_task_pass_hat_k(n, c)),
    }


def audit_line(finding: dict) -> str:
    """One finding of the reward-gate audit as ``tcsexam tau2`` prints it and the dashboard shows it:
    'task T trial N: what' (no trial when the simulation has none)."""
    trial = "" if finding["trial"] is None else f" trial {finding['trial']}"
    return f"task {finding['task_id']}{trial}: {finding['finding']}"


def largest_k_note(metrics: dict) -> str:
    """Why pass^k stops where it does, when a task with fewer runs than the others stops it (an
    infrastructure error dropped, a trial missing): 'k stops at 3: task T has 3 runs, the others up to 4';
    '' otherwise (docs/tau2.md, first section)."""
    ns = [t["n"] for t in metrics["tasks"]]
    if not ns or metrics["max_k"] != min(ns) or min(ns) == max(ns):
        return ""
    fewest = [str(t["task_id"]) for t in metrics["tasks"] if t["n"] == min(ns)]
    who = f"task {fewest[0]} has" if len(fewest) == 1 else f"{len(fewest)} tasks have"
    return f"k stops at {min(ns)}: {who} {min(ns)} runs, the others up to {max(ns)}"


def largest_k(counts: list[tuple[int, int]], num_trials: int | None) -> int:
    """k runs up to min(info.num_trials, the smallest n); 0 for no task."""
    if not counts:
        return 0
    smallest = min(n for n, _ in counts)
    return min(num_trials, smallest) if num_trials else smallest


def compute_tau2_metrics(results: Tau2Results, source: str = "") -> dict:
    """The output of docs/tau2.md, the same for a run in the json and in the dir format."""
    all_sims = results.simulations
    all_origins = results.origins or [("", f"simulation {i}") for i in range(len(all_sims))]
    kept = [(s, o) for s, o in zip(all_sims, all_origins, strict=True) if s.termination_reason != INFRA]
    sims = [s for s, _ in kept]
    reasons = Counter(s.termination_reason for s in all_sims)
    order: dict[Any, list[tuple[Simulation, Origin]]] = {}
    for s, o in kept:
        order.setdefault(s.task_id, []).append((s, o))
    tasks = [task_row(task_id, runs) for task_id, runs in order.items()]
    counts = [(t["n"], t["successes"]) for t in tasks]
    max_k = largest_k(counts, results.info.num_trials)
    pass_k = mean_pass_hat_k(counts, max_k) if max_k else {}
    rewards = [(s.reward_info.reward, o, REWARD) for s, o in kept if s.reward_info is not None]
    costs = [(s.agent_cost, o, COST) for s, o in kept if s.agent_cost is not None]
    if sims:
        avg_reward, avg_cost = located_mean(rewards, "the mean reward"), located_mean(costs, "the mean agent cost")
    else:  # tau2-bench reports zeros when nothing was evaluated
        avg_reward, avg_cost = 0.0, 0.0
    findings = audit(sims, [o for _, o in kept])
    # a json-format run has no index: nothing to compare then
    for sim, origin, (slot, entry) in zip(all_sims, all_origins, results.index, strict=False):
        findings.extend(index_findings(sim, slot, entry, origin))
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
        "db": db_counts(sims),
        "tasks": tasks,
        "audit": findings,
    }


def tau2_metrics_for_file(path: Path) -> dict:
    """docs/tau2.md output for a run on disk (its results.json or its folder, json or dir format)."""
    return compute_tau2_metrics(load_tau2_results(path), str(path))
