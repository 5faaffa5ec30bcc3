"""Does the planner tell the truth? A simulation of docs/rules.md#planning-attempts, a benchmark script, not a test.

    python -m tests.bench.planner_sim [--tasks 5] [--r0 2] [--plans 400] [--runs 2000]
                                      [--family normal|mixed] [--seed 1] [--json FILE]

Task scores are drawn with known between-task and within-task spread: per
track, x_ij = mu + b_i + e_ij with b_i ~ N(0, sigma_b) and e_ij ~ N(0, sigma_w)
("normal"); "mixed" makes theorem and conjecture 0/1 attempts of a task whose
success probability is Beta-distributed across tasks (as those tracks score).

Half-width: each of ``--plans`` observed runs (new tasks, r0 attempts each) is
planned with scoring.stats.planning.plan_model; ``--runs`` fresh runs with r attempts
of every task are scored with docs/rules.md#intervals interval (scoring.stats.uncertainty.ci_block).
The report gives the mean projected half-width, its 10th–90th percentiles over
the plans, and the realised mean half-width, for each r.

MDE (normal family only): two models share the task effects b_i, differ by a
task-level interaction u_i ~ N(0, sigma_u) per model and independent attempt
noise. Each observed pair run (r0 attempts) gives a planned MDE(r)
(scoring.stats.planning.mde); ``--runs`` pair runs with r attempts and a true index
gap equal to the median planned MDE(r) are tested with docs/rules.md#ranks's paired t
test (scoring.stats.ranks), and the rejection rate is compared with the 80% the MDE
promises. The same is done at the MDE the true parameters give (the oracle),
which separates the formula's error from the error of estimating the
variances from one observed run.
"""

from __future__ import annotations

import argparse
import json
import math

import numpy as np

from tcsexam.scoring.stats.planning import mde, plan_model
from tcsexam.scoring.stats.uncertainty import ci_block, t_quantile, welch_satterthwaite
from tcsexam.scoring.vocab import TRACKS, WEIGHTS
from tests.support.ranks import pair_p_value, paired_index_difference

MU = {"theorem": 0.4, "solver": 0.5, "construction": 1.2, "conjecture": 0.2}
SIGMA_B = {"theorem": 0.3, "solver": 0.15, "construction": 0.4, "conjecture": 0.2}
SIGMA_W = {"theorem": 0.3, "solver": 0.1, "construction": 0.3, "conjecture": 0.25}
SIGMA_U = {"theorem": 0.15, "solver": 0.08, "construction": 0.2, "conjecture": 0.1}  # model × task interaction
BETA_CONCENTRATION = 2.0  # mixed family: task success probability ~ Beta(mu·k, (1−mu)·k)
R_VALUES = (1, 2, 3, 5, 10)


def draw_run(rng: np.random.Generator, m: int, r: int, family: str) -> dict[str, np.ndarray]:
    """One model's run: per track an (m, r) array of attempt scores."""
    out = {}
    for t in TRACKS:
        if family == "mixed" and t in ("theorem", "conjecture"):
            k = BETA_CONCENTRATION
            p = rng.beta(MU[t] * k, (1 - MU[t]) * k, m)
            out[t] = rng.binomial(1, p[:, None], (m, r)).astype(float)
        else:
            b = rng.normal(0.0, SIGMA_B[t], m)
            out[t] = MU[t] + b[:, None] + rng.normal(0.0, SIGMA_W[t], (m, r))
    return out


def draw_pair(rng: np.random.Generator, m: int, r: int, gap: float) -> tuple[dict, dict]:
    """Two models on the same tasks (normal family): B = A's task effect + its own interaction, A ahead by
    ``gap`` index points spread evenly (gap/100 on every track mean, as the weights sum to 100)."""
    a, b = {}, {}
    for t in TRACKS:
        task = MU[t] + rng.normal(0.0, SIGMA_B[t], m)
        ua, ub = rng.normal(0.0, SIGMA_U[t], m), rng.normal(0.0, SIGMA_U[t], m)
        a[t] = (task + ua + gap / 100.0)[:, None] + rng.normal(0.0, SIGMA_W[t], (m, r))
        b[t] = (task + ub)[:, None] + rng.normal(0.0, SIGMA_W[t], (m, r))
    return a, b


def as_lists(run: dict[str, np.ndarray]) -> dict[str, list[list[float]]]:
    return {t: x.tolist() for t, x in run.items()}


def realised_half_width(run: dict[str, np.ndarray]) -> float:
    values = {t: x.mean(axis=1).tolist() for t, x in run.items()}
    index = math.fsum(WEIGHTS[t] * math.fsum(v) / len(v) for t, v in values.items())
    idx = ci_block(values, index, WEIGHTS)["index"]
    return (idx["hi"] - idx["lo"]) / 2.0


def task_means(run: dict[str, np.ndarray]) -> dict[str, tuple[str, float]]:
    return {f"{t}-{i}": (t, float(v)) for t, x in run.items() for i, v in enumerate(x.mean(axis=1))}


def oracle_mde(m: int, r: int) -> float:
    """MDE(r) from the true variances: σ_bd² = 2σ_u², s_w² = σ_w² for each model."""
    terms = [(WEIGHTS[t] ** 2 * (2 * SIGMA_U[t] ** 2 + 2 * SIGMA_W[t] ** 2 / r) / m, m) for t in TRACKS]
    var = math.fsum(v for v, _ in terms)
    df = welch_satterthwaite(terms)
    return (t_quantile(df) + t_quantile(df, 0.6)) * math.sqrt(var)  # t(0.975) + t(0.80)


def rejection_rate(rng: np.random.Generator, m: int, r: int, gap: float, runs: int) -> float:
    hits = 0
    for _ in range(runs):
        a, b = draw_pair(rng, m, r, gap)
        d = paired_index_difference(task_means(a), task_means(b), WEIGHTS)
        p = pair_p_value(d["difference"], d["se"], d["df"])
        hits += p is not None and p < 0.05
    return hits / runs


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(prog="python -m tests.bench.planner_sim")
    p.add_argument("--tasks", type=int, default=5, help="tasks per track (Lite: 5)")
    p.add_argument("--r0", type=int, default=2, help="attempts per task of the observed run")
    p.add_argument("--plans", type=int, default=400, help="observed runs planned from")
    p.add_argument("--runs", type=int, default=2000, help="simulated runs per r")
    p.add_argument("--family", choices=("normal", "mixed"), default="normal")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", default=None)
    a = p.parse_args(argv)
    rng = np.random.default_rng(a.seed)
    m = a.tasks

    projected = {r: [] for r in R_VALUES}
    planned_mde = {r: [] for r in R_VALUES}
    for _ in range(a.plans):
        pl = plan_model(as_lists(draw_run(rng, m, a.r0, a.family)), WEIGHTS, max_attempts=max(R_VALUES))
        for r in R_VALUES:
            projected[r].append(pl.half_width[str(r)])
        if a.family == "normal":
            xa, xb = draw_pair(rng, m, a.r0, 0.0)
            out = mde({t: list(zip(xa[t].tolist(), xb[t].tolist(), strict=True)) for t in TRACKS}, WEIGHTS)
            for r in R_VALUES:
                planned_mde[r].append(out[str(r)])

    half_width = {}
    for r in R_VALUES:
        proj = np.array(projected[r])
        real = np.array([realised_half_width(draw_run(rng, m, r, a.family)) for _ in range(a.runs)])
        half_width[str(r)] = {
            "projected_mean": float(proj.mean()),
            "projected_p10": float(np.percentile(proj, 10)),
            "projected_p90": float(np.percentile(proj, 90)),
            "realised_mean": float(real.mean()),
            "ratio": float(proj.mean() / real.mean()),
        }
    power = {}
    if a.family == "normal":
        for r in R_VALUES:
            planned = np.array(planned_mde[r])
            median = float(np.median(planned))
            oracle = oracle_mde(m, r)
            power[str(r)] = {
                "planned_mde_median": median,
                "planned_mde_p10": float(np.percentile(planned, 10)),
                "planned_mde_p90": float(np.percentile(planned, 90)),
                "oracle_mde": oracle,
                "power_at_planned": rejection_rate(rng, m, r, median, a.runs),
                "power_at_oracle": rejection_rate(rng, m, r, oracle, a.runs),
            }
    report = {
        "family": a.family,
        "tasks_per_track": m,
        "r0": a.r0,
        "plans": a.plans,
        "runs": a.runs,
        "seed": a.seed,
        "half_width": half_width,
        "mde_power": power,
        "nominal_power": 0.80,
    }
    text = json.dumps(report, indent=2)
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    print(text)
    return report


if __name__ == "__main__":
    main()
