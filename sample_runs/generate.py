"""Seeded generator of the bundled synthetic sample: benchmark and demo run.

    python -m tcsexam.sample_runs.generate           # rewrites sample_runs/benchmark and sample_runs/demo

Every value is synthetic (the reference id says so: sample-k3-synthetic). The
shape and counts are the benchmark's (docs/formats.md#suite-manifest): Full has
1,860 scored and 32 unscored reference instances over 15 solver tasks, Lite the
5 solver tasks of Lite. The demo's solver scores are computed from its records
with the scoring core, so that the records cross-check holds
(docs/rules.md#aggregation).
"""

from __future__ import annotations

import csv
import io
import json
import random
import shutil
from pathlib import Path

REFERENCE_ID = "sample-k3-synthetic"
HERE = Path(__file__).resolve().parent

# (item, kind, direction, scored instances); the first five are Lite's solver tasks.
SOLVER_TASKS = [
    ("maxcut-mqlib", "objective", "maximize", 40),
    ("sat-race", "solve", "maximize", 24),
    ("tsp-concorde", "objective", "minimize", 36),
    ("vrp-cvrp", "objective", "minimize", 30),
    ("miplib-feasibility", "solve", "maximize", 22),
    ("graph-coloring", "objective", "minimize", 170),
    ("knapsack-large", "objective", "maximize", 170),
    ("set-cover", "objective", "minimize", 170),
    ("job-shop", "objective", "minimize", 170),
    ("bin-packing", "objective", "minimize", 170),
    ("steiner-tree", "objective", "minimize", 170),
    ("max-sat", "objective", "maximize", 170),
    ("qap-instances", "objective", "minimize", 170),
    ("facility-location", "objective", "minimize", 170),
    ("smt-lia", "solve", "maximize", 178),
]
UNSCORED_PER_TASK = [2] * 5 + [2] * 9 + [4]  # 32 in all
THEOREM = ["thm-sensitivity", "thm-kkl-variant", "thm-ramsey-bound", "thm-pcp-gap", "thm-circuit-lb",
           "thm-matrix-rigidity", "thm-expander-mixing", "thm-graph-minor", "thm-ldpc-distance", "thm-query-lb",
           "thm-streaming-lb", "thm-sos-degree", "thm-hardness-amp", "thm-kolmogorov", "thm-parity-lb"]
CONSTRUCTION = ["con-cap-set", "con-sidon-set", "con-expander", "con-code-distance", "con-sorting-network",
                "con-golomb-ruler", "con-covering-design", "con-ramsey-coloring", "con-difference-set",
                "con-latin-square", "con-kissing-config", "con-no-three-in-line", "con-sum-free", "con-hadamard",
                "con-turan-graph"]
CONJECTURE = ["conj-sunflower", "conj-union-closed", "conj-log-rank", "conj-1-3-2", "conj-hadwiger-nelson",
              "conj-graceful-tree", "conj-lonely-runner", "conj-erdos-gyarfas", "conj-reconstruction",
              "conj-cerny"]


def suite_manifests() -> dict[str, dict]:
    solver = [t[0] for t in SOLVER_TASKS]
    def tasks(n_p, n_s, n_c, n_o):
        return ([{"item": i, "track": "theorem"} for i in THEOREM[:n_p]]
                + [{"item": i, "track": "solver"} for i in solver[:n_s]]
                + [{"item": i, "track": "construction"} for i in CONSTRUCTION[:n_c]]
                + [{"item": i, "track": "conjecture"} for i in CONJECTURE[:n_o]])
    return {"lite": {"suite": "lite", "tasks": tasks(5, 5, 5, 5)},
            "full": {"suite": "full", "tasks": tasks(len(THEOREM), len(solver), len(CONSTRUCTION), len(CONJECTURE))}}


def reference_values(rng: random.Random, kind: str, direction: str) -> tuple[float, float]:
    """A typical level and spread for one instance."""
    if kind == "solve":
        return 0.0, 0.0
    level = rng.choice([1e2, 1e3, 1e4, 1e5]) * rng.uniform(1, 9)
    spread = level * rng.choice([0.0, 0.001, 0.004, 0.01, 0.03])
    return level, spread


def k3_values(rng: random.Random, kind: str, level: float, spread: float, n_null: int) -> list:
    if kind == "solve":
        vals: list = [1 if rng.random() < 0.7 else 0 for _ in range(3)]
    else:
        vals = [round(rng.gauss(level, spread)) if spread else round(level) for _ in range(3)]
    for i in rng.sample(range(3), n_null):
        vals[i] = None
    return vals


def make_references(seed: int = 260925) -> dict[str, dict]:
    rng = random.Random(seed)
    tasks: dict[str, dict] = {}
    unscored: list[dict] = []
    for (item, kind, direction, n), n_uns in zip(SOLVER_TASKS, UNSCORED_PER_TASK):
        prefix = item.split("-")[0][:3].upper()
        instances = {}
        for j in range(1, n + 1):
            level, spread = reference_values(rng, kind, direction)
            n_null = 1 if rng.random() < 0.12 else 0
            instances[f"{prefix}{j:04d}"] = k3_values(rng, kind, level, spread, n_null)
        tasks[item] = {"kind": kind, "direction": direction, "instances": instances}
        for j in range(n + 1, n + 1 + n_uns):
            level, spread = reference_values(rng, kind, direction)
            unscored.append({"task": item, "instance": f"{prefix}{j:04d}",
                             "values": k3_values(rng, kind, level, spread, rng.choice([2, 3]))})
    floor = {"relative": 0.02, "absolute": 1e-9}
    full = {"reference_id": REFERENCE_ID, "suite": "full",
            "description": "SYNTHETIC sample reference: made by sample_runs/generate.py, not real K3 results",
            "scale_floor": floor, "tasks": tasks, "unscored_reference_instances": unscored}
    lite_items = {t[0] for t in SOLVER_TASKS[:5]}
    lite = {**full, "suite": "lite", "tasks": {k: v for k, v in tasks.items() if k in lite_items},
            "unscored_reference_instances": [u for u in unscored if u["task"] in lite_items]}
    return {"lite": lite, "full": full}


# --- the demo run -----------------------------------------------------------

DEMO_MODELS = {
    # name: (attempts per task, skill in [0, 1], how the run ends)
    "atlas-70b": (3, 0.70, "complete"),
    "borealis-8x22b": (1, 0.55, "provisional"),
    "cirrus-mini": (1, 0.35, "incomplete"),
}


def instance_records(rng: random.Random, ref_task: dict, unscored: list[dict], skill: float) -> list[dict]:
    kind, direction = ref_task["kind"], ref_task["direction"]
    records = []
    for name, values in ref_task["instances"].items():
        usable = [v for v in values if v is not None]
        mu = sum(usable) / len(usable)
        r = rng.random()
        if r < 0.06 * (1.2 - skill):
            records.append({"instance": name, "status": rng.choice(["timeout", "crash", "invalid"])})
            continue
        if kind == "solve":
            records.append({"instance": name, "status": "ok", "solved": rng.random() < 0.4 + 0.5 * skill})
            continue
        sign = 1 if direction == "maximize" else -1
        spread = max(abs(mu) * 0.02, 1.0)
        a = mu + sign * spread * rng.gauss(2.0 * (skill - 0.5), 1.0)
        records.append({"instance": name, "status": "ok", "A": round(a, 1), "wall_seconds": round(rng.uniform(1, 600), 1)})
    for u in unscored:  # observations of unscored reference instances stay in the records
        records.append({"instance": u["instance"], "status": "ok", "A": 1.0 if kind == "solve" else 123.0})
    rng.shuffle(records)
    return records


def relative_score(reference: dict, item: str, records: list[dict]) -> float:
    from tcsexam.scoring.formats.records import parse_records
    from tcsexam.scoring.pipeline.reference import reference_from_dict
    from tcsexam.scoring.pipeline.solver import score_task
    ref = reference_from_dict(reference, "<memory>")
    task = ref.task(item)
    return score_task(task, parse_records(records, "<memory>", task.kind)).relative_score


def make_demo(references: dict[str, dict], suites: dict[str, dict], seed: int = 7) -> tuple[dict, list[dict], dict]:
    """The demo run: every model's rows and solver records (one random stream, in a fixed order), then
    the few rows that tell its story (a replaced attempt, provisional ones, a failed judge, a gap)."""
    rng = random.Random(seed)
    lite_ref = references["lite"]
    cohort: dict = {"suite": "lite", "solver_protocol": "offline", "solver_reference_id": REFERENCE_ID,
              "adoption_rule": "first valid attempt in run order; a replaced attempt stays as excluded with a note",
              "models": {}}
    rows: list[dict] = []
    records: dict[tuple[str, str, str], list[dict]] = {}
    for model, (per_task, skill, ending) in DEMO_MODELS.items():
        plan: dict = {"attempts_per_task": per_task}
        if ending == "provisional":
            plan["attempts_per_item"] = {"con-cap-set": 2}
        cohort["models"][model] = plan
        for task in suites["lite"]["tasks"]:
            item, track = task["item"], task["track"]
            for a in range(1, plan.get("attempts_per_item", {}).get(item, per_task) + 1):
                rows.append(demo_row(rng, lite_ref, (model, track, item, str(a)), skill, records))
    return cohort, demo_story(rows), records


def demo_row(rng: random.Random, lite_ref: dict, key: tuple[str, str, str, str], skill: float, records: dict) -> dict:
    """One attempt's row, drawn from ``rng`` by the model's skill; a solver attempt's records go into ``records``."""
    model, track, item, attempt = key
    row = {"model": model, "track": track, "item": item, "attempt": attempt, "score": "",
           "adoption_status": "selected", "score_status": "valid",
           "score_type": "fixed_reference_relative" if track == "solver" else "original_task_score",
           "solver_protocol": "offline" if track == "solver" else "", "note": "", "reference_id": ""}
    if track == "solver":
        unscored = [u for u in lite_ref["unscored_reference_instances"] if u["task"] == item][:1]
        recs = instance_records(rng, lite_ref["tasks"][item], unscored, skill)
        records[(model, item, attempt)] = recs
        row["score"] = repr(relative_score(lite_ref, item, recs))
        row["reference_id"] = REFERENCE_ID
    elif track == "construction":
        row["score"] = repr(round(max(0.0, rng.gauss(0.6 + 0.6 * skill, 0.35)), 4))
    else:
        p = skill if track == "theorem" else skill * 0.3
        row["score"] = "1" if rng.random() < p else "0"
    return row


def demo_story(rows: list[dict]) -> list[dict]:
    """The demo's rows with what a real run meets: a replaced attempt, provisional attempts, a failed
    judge, a missing attempt and a row of a model outside the cohort."""
    # atlas: attempt 1 of one theorem task failed on infrastructure and was replaced by attempt 4
    for row in rows:
        if (row["model"], row["item"], row["attempt"]) == ("atlas-70b", "thm-pcp-gap", "1"):
            row.update(adoption_status="excluded", score_status="judge_failed", score="",
                       note="judge crashed (infrastructure); replaced by attempt 4 per the adoption rule")
    rows.append({**next(r for r in rows if r["model"] == "atlas-70b" and r["item"] == "thm-pcp-gap"
                        and r["attempt"] == "2"), "attempt": "4", "score": "1", "adoption_status": "selected",
                 "score_status": "valid", "note": ""})
    # borealis: two provisional attempts awaiting a second judge
    for row in rows:
        if row["model"] == "borealis-8x22b" and row["item"] in ("thm-sensitivity", "conj-union-closed"):
            row["adoption_status"] = "selected_provisional"
            row["note"] = "awaiting second judge"
    # cirrus: one judge_failed row and one missing attempt (the row is absent)
    for row in rows:
        if row["model"] == "cirrus-mini" and row["item"] == "thm-ramsey-bound":
            row.update(score_status="judge_failed", score="", note="judge timed out")
    rows = [r for r in rows if not (r["model"] == "cirrus-mini" and r["item"] == "con-expander")]
    # a row of a model outside the cohort (kept in the table, not aggregated)
    rows.append({**rows[0], "model": "atlas-70b-draft", "note": "dry run before the cohort was declared"})
    return rows


def write_json(path: Path, obj, indent: int | None = 1) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=indent, allow_nan=False) + "\n", encoding="utf-8")


def write_all(root: Path = HERE) -> None:
    from tcsexam.scoring.formats.inputs import ATTEMPTS_COLUMNS
    from tcsexam.scoring.vocab import ATTEMPTS_FILE, COHORT_FILE, RECORDS_FOLDER

    suites = suite_manifests()
    refs = make_references()
    bench = root / "benchmark"
    for name, suite in suites.items():
        write_json(bench / "suites" / f"{name}.json", suite)
        write_json(bench / "references" / REFERENCE_ID / f"{name}.json", refs[name])
    cohort, rows, records = make_demo(refs, suites)
    demo = root / "demo"
    if (demo / RECORDS_FOLDER).exists():
        shutil.rmtree(demo / RECORDS_FOLDER)
    write_json(demo / COHORT_FILE, cohort, indent=2)
    buf = io.StringIO()
    # the columns in the order `tcsexam init` writes them (AttemptRow)
    writer = csv.DictWriter(buf, fieldnames=list(ATTEMPTS_COLUMNS), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    (demo / ATTEMPTS_FILE).write_text(buf.getvalue(), encoding="utf-8")
    for (model, item, attempt), recs in records.items():
        write_json(demo / RECORDS_FOLDER / model / item / f"{attempt}.json", recs, indent=None)


if __name__ == "__main__":
    write_all()
    print(f"wrote {HERE / 'benchmark'} and {HERE / 'demo'}")
