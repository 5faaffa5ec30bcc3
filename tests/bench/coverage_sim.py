"""Coverage simulation of the task-clustered t intervals (docs/rules.md#intervals), a benchmark script, not a test.

    python -m tests.bench.coverage_sim [--runs 4000] [--tasks 5] [--seed 1]

Draws each track's task scores from a known distribution (true means fixed),
computes the ci block with the scoring core, and reports how often the 95%
intervals of the track means and of the index contain the true values. The
task draws are Bernoulli for theorem and conjecture, Beta for solver and
Gamma for construction, as the tracks' scores are.
"""

from __future__ import annotations

import argparse

import numpy as np

from tcsexam.scoring.stats.uncertainty import ci_block
from tcsexam.scoring.vocab import TRACKS, WEIGHTS

TRUE = {"theorem": 0.4, "solver": 0.5, "construction": 1.2, "conjecture": 0.2}


def draw(rng: np.random.Generator, track: str, m: int) -> list[float]:
    if track in ("theorem", "conjecture"):
        return rng.binomial(1, TRUE[track], m).astype(float).tolist()
    if track == "solver":
        return rng.beta(2.0, 2.0, m).tolist()  # mean 0.5
    return rng.gamma(4.0, TRUE["construction"] / 4.0, m).tolist()


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(prog="python -m tests.bench.coverage_sim")
    p.add_argument("--runs", type=int, default=4000)
    p.add_argument("--tasks", type=int, default=5, help="tasks per track (Lite: 5)")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args(argv)
    rng = np.random.default_rng(a.seed)
    true_index = sum(WEIGHTS[t] * TRUE[t] for t in TRACKS)
    hits = {t: 0 for t in TRACKS}
    counted = {t: 0 for t in TRACKS}
    index_hits = index_counted = 0
    for _ in range(a.runs):
        values = {t: draw(rng, t, a.tasks) for t in TRACKS}
        means = {t: float(np.mean(v)) for t, v in values.items()}
        index = sum(WEIGHTS[t] * means[t] for t in TRACKS)
        block = ci_block(values, index, WEIGHTS)
        for t in TRACKS:
            r = block["tracks"][t]
            if r["lo"] is not None and r["se"] > 0:
                counted[t] += 1
                hits[t] += r["lo"] <= TRUE[t] <= r["hi"]
        idx = block["index"]
        if idx and idx["lo"] is not None and idx["se"] > 0:
            index_counted += 1
            index_hits += idx["lo"] <= true_index <= idx["hi"]
    report = {
        "runs": a.runs,
        "tasks_per_track": a.tasks,
        "track_coverage": {t: hits[t] / counted[t] for t in TRACKS if counted[t]},
        "index_coverage": index_hits / index_counted if index_counted else None,
        "nominal": 0.95,
    }
    print(report)
    return report


if __name__ == "__main__":
    main()
