"""Seeded generator of large runs for benchmarks (not part of the scoring core).

python -m tests.bench.synth run OUT [--models 30] [--attempts 3] [--seed 1]
    a run directory against the bundled Full sample reference: attempts.csv,
    cohort.json and records/ for every solver attempt (1,860 scored instances
    each, in shuffled order), with a realistic mix of statuses; solver scores are computed with
    the scoring core so that the records cross-check holds.
python -m tests.bench.synth big OUT [--instances 1000000] [--seed 1]
    a benchmark folder with a one-task reference of N instances (OUT/bench),
    one records file of N records (OUT/records.json) and a run using them
    (OUT/run), for the extremes.
python -m tests.bench.synth cohort OUT [--models 2000] [--seed 1]
    a leaderboard of many models (OUT/bench, OUT/run): a Lite-like suite of 7 tasks (theorem 2,
    solver 2, construction 2, conjecture 1), one adopted attempt of every task for every model,
    no records; what ``score`` costs as the cohort grows.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import random
from pathlib import Path

import numpy as np
import orjson

from tcsexam.sample_runs.generate import REFERENCE_ID
from tcsexam.scoring.formats.inputs import ATTEMPTS_COLUMNS
from tcsexam.scoring.formats.records import parse_records
from tcsexam.scoring.pipeline.benchmark import sample_root
from tcsexam.scoring.pipeline.reference import reference_from_dict
from tcsexam.scoring.pipeline.solver import score_task

FAILURES = ("timeout", "invalid", "crash", "out_of_memory", "certificate_failed")
COLUMNS = list(ATTEMPTS_COLUMNS)


def make_records(
    rng: np.random.Generator,
    names: list[str],
    mu: np.ndarray,
    scale: np.ndarray,
    kind: str,
    direction: str,
    skill: float,
    extra_unscored: list[str] = (),
) -> list[dict]:
    n = len(names)
    fail = rng.random(n) < 0.05 * (1.2 - skill)
    out = []
    if kind == "solve":
        solved = rng.random(n) < 0.4 + 0.5 * skill
        for i in range(n):
            out.append(
                {"instance": names[i], "status": FAILURES[i % 5]}
                if fail[i]
                else {"instance": names[i], "status": "ok", "solved": bool(solved[i])}
            )
    else:
        sign = 1.0 if direction == "maximize" else -1.0
        a = mu + sign * scale * rng.normal(2.0 * (skill - 0.5), 1.0, n)
        a = np.round(a, 2).tolist()
        for i in range(n):
            out.append(
                {"instance": names[i], "status": FAILURES[i % 5]}
                if fail[i]
                else {"instance": names[i], "status": "ok", "A": a[i]}
            )
    out.extend({"instance": u, "status": "ok", "A": 1.0} for u in extra_unscored)
    # real records come in the order the solver finished them, not in the reference's order
    return [out[i] for i in rng.permutation(len(out)).tolist()]


def write_csv(path: Path, rows: list[dict]) -> None:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    path.write_text(buf.getvalue(), encoding="utf-8")


def write_run(out: Path, models: int = 30, attempts: int = 3, seed: int = 1, suite_name: str = "full") -> dict:
    """A run of the bundled sample suite ``suite_name`` (full or lite): every task of every model,
    ``attempts`` adopted attempts each."""
    rng = np.random.default_rng(seed)
    pyrng = random.Random(seed)
    bench = sample_root() / "benchmark"
    suite = json.loads((bench / "suites" / f"{suite_name}.json").read_text())
    ref_raw = json.loads((bench / "references" / REFERENCE_ID / f"{suite_name}.json").read_text())
    ref = reference_from_dict(ref_raw, f"{suite_name}.json")
    unscored = {}
    for u in ref_raw["unscored_reference_instances"]:
        unscored.setdefault(u["task"], []).append(u["instance"])
    out.mkdir(parents=True, exist_ok=True)
    cohort = {
        "suite": suite_name,
        "solver_protocol": "offline",
        "solver_reference_id": REFERENCE_ID,
        "adoption_rule": "synthetic benchmark run",
        "models": {},
    }
    rows = []
    n_records = 0
    for m in range(models):
        name = f"model-{m:03d}"
        skill = pyrng.uniform(0.2, 0.9)
        cohort["models"][name] = {"attempts_per_task": attempts}
        for task in suite["tasks"]:
            item, track = task["item"], task["track"]
            for a in range(1, attempts + 1):
                row = {
                    "model": name,
                    "track": track,
                    "item": item,
                    "attempt": str(a),
                    "adoption_status": "selected",
                    "score_status": "valid",
                    "solver_protocol": "",
                    "reference_id": "",
                    "note": "",
                    "score_type": "original_task_score",
                }
                if track == "solver":
                    t = ref.task(item)
                    recs = make_records(
                        rng, t.names, t.mu, t.scale, t.kind, t.direction, skill, unscored.get(item, [])[:1]
                    )
                    path = out / "records" / name / item / f"{a}.json"
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_bytes(orjson.dumps(recs))
                    n_records += len(recs)
                    score = score_task(t, parse_records(recs, str(path), t.kind)).relative_score
                    row.update(
                        score=repr(score),
                        score_type="fixed_reference_relative",
                        solver_protocol="offline",
                        reference_id=REFERENCE_ID,
                    )
                elif track == "construction":
                    row["score"] = repr(round(max(0.0, pyrng.gauss(0.5 + skill, 0.4)), 4))
                else:
                    row["score"] = "1" if pyrng.random() < skill * (1.0 if track == "theorem" else 0.3) else "0"
                rows.append(row)
    write_csv(out / "attempts.csv", rows)
    (out / "cohort.json").write_text(json.dumps(cohort, indent=1))
    return {"rows": len(rows), "records": n_records, "models": models}


def write_big(out: Path, instances: int = 1_000_000, seed: int = 1) -> dict:
    """One solver task of N instances: a benchmark folder, a records file and a run around them."""
    rng = np.random.default_rng(seed)
    bench = out / "bench"
    names = [f"I{i:07d}" for i in range(instances)]
    level = rng.choice([1e2, 1e3, 1e4], instances) * rng.uniform(1, 9, instances)
    vals = np.round(level[:, None] + rng.normal(0, 1, (instances, 3)) * level[:, None] * 0.03).tolist()
    for i in range(0, instances, 11):
        vals[i][1] = None
    task = {"kind": "objective", "direction": "maximize", "instances": dict(zip(names, vals, strict=True))}
    ref = {
        "reference_id": "bench-synthetic-1m",
        "suite": "bench",
        "scale_floor": {"relative": 0.02, "absolute": 1e-9},
        "tasks": {"big-task": task},
        "unscored_reference_instances": [],
    }
    (bench / "references" / "bench-synthetic-1m").mkdir(parents=True, exist_ok=True)
    ref_path = bench / "references" / "bench-synthetic-1m" / "bench.json"
    ref_path.write_bytes(orjson.dumps(ref))
    suite = {
        "suite": "bench",
        "tasks": [
            {"item": "t1", "track": "theorem"},
            {"item": "big-task", "track": "solver"},
            {"item": "c1", "track": "construction"},
            {"item": "o1", "track": "conjecture"},
        ],
    }
    (bench / "suites").mkdir(parents=True, exist_ok=True)
    (bench / "suites" / "bench.json").write_text(json.dumps(suite))
    loaded = reference_from_dict(ref, str(ref_path))
    t = loaded.task("big-task")
    recs = make_records(rng, t.names, t.mu, t.scale, t.kind, t.direction, 0.6)
    (out / "records.json").write_bytes(orjson.dumps(recs))
    score = score_task(t, parse_records(recs, "records.json", t.kind)).relative_score
    run = out / "run"
    (run / "records" / "m" / "big-task").mkdir(parents=True, exist_ok=True)
    (run / "records" / "m" / "big-task" / "1.json").write_bytes(orjson.dumps(recs))
    rows = [
        {
            "model": "m",
            "track": tr,
            "item": it,
            "attempt": "1",
            "score": sc,
            "adoption_status": "selected",
            "score_status": "valid",
            "score_type": st,
            "solver_protocol": pr,
            "reference_id": rid,
            "note": "",
        }
        for tr, it, sc, st, pr, rid in (
            ("theorem", "t1", "1", "original_task_score", "", ""),
            ("solver", "big-task", repr(score), "fixed_reference_relative", "offline", "bench-synthetic-1m"),
            ("construction", "c1", "0.8", "original_task_score", "", ""),
            ("conjecture", "o1", "0", "original_task_score", "", ""),
        )
    ]
    write_csv(run / "attempts.csv", rows)
    (run / "cohort.json").write_text(
        json.dumps(
            {
                "suite": "bench",
                "solver_protocol": "offline",
                "solver_reference_id": "bench-synthetic-1m",
                "models": {"m": {"attempts_per_task": 1}},
            }
        )
    )
    return {"instances": instances, "reference": str(ref_path), "records": str(out / "records.json")}


COHORT_TASKS = (
    ("thm-a", "theorem"),
    ("thm-b", "theorem"),
    ("sol-a", "solver"),
    ("sol-b", "solver"),
    ("con-a", "construction"),
    ("con-b", "construction"),
    ("conj-a", "conjecture"),
)


def write_cohort(out: Path, models: int = 2000, seed: int = 1, eight: bool = False) -> dict:
    """A cohort of ``models`` models, each complete with one attempt of each of 7 Lite-like tasks
    (no records: the solver scores are taken as given). Scores are rounded, so models tie. With one
    conjecture task no pair has an se (no p); ``eight`` adds a second one, so that every pair has."""
    tasks = (*COHORT_TASKS, ("conj-b", "conjecture")) if eight else COHORT_TASKS
    rng = np.random.default_rng(seed)
    bench = out / "bench"
    ref_id = "bench-cohort"
    (bench / "suites").mkdir(parents=True, exist_ok=True)
    (bench / "references" / ref_id).mkdir(parents=True, exist_ok=True)
    suite = {"suite": "cohort", "tasks": [{"item": i, "track": t} for i, t in tasks]}
    (bench / "suites" / "cohort.json").write_text(json.dumps(suite))
    instance = {"kind": "objective", "direction": "maximize", "instances": {"i1": [1.0, 2.0, 3.0]}}
    reference = {
        "reference_id": ref_id,
        "suite": "cohort",
        "scale_floor": {"relative": 0.02, "absolute": 1e-9},
        "tasks": {i: instance for i, t in tasks if t == "solver"},
        "unscored_reference_instances": [],
    }
    (bench / "references" / ref_id / "cohort.json").write_bytes(orjson.dumps(reference))
    skill = rng.uniform(0.1, 0.9, models)
    run = out / "run"
    run.mkdir(parents=True, exist_ok=True)
    names = [f"model-{m:06d}" for m in range(models)]
    cells = []
    for _, track in tasks:
        if track in ("theorem", "conjecture"):
            cells.append(np.where(rng.random(models) < skill, "1", "0"))
        else:
            value = np.clip(rng.normal(skill, 0.15), 0.0, 1.0).round(2)
            cells.append(np.array([repr(float(v)) for v in value]))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    for m, name in enumerate(names):
        for (item, track), column in zip(tasks, cells, strict=True):
            solver = track == "solver"
            writer.writerow(
                [
                    name,
                    track,
                    item,
                    "1",
                    column[m],
                    "selected",
                    "valid",
                    "fixed_reference_relative" if solver else "original_task_score",
                    "offline" if solver else "",
                    ref_id if solver else "",
                    "",
                ]
            )
    (run / "attempts.csv").write_text(buffer.getvalue())
    cohort = {
        "suite": "cohort",
        "solver_protocol": "offline",
        "solver_reference_id": ref_id,
        "models": {name: {"attempts_per_task": 1} for name in names},
    }
    (run / "cohort.json").write_bytes(orjson.dumps(cohort))
    return {"models": models, "rows": models * len(tasks), "run": str(run), "benchmark": str(bench)}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m tests.bench.synth")
    sub = p.add_subparsers(dest="what", required=True)
    r = sub.add_parser("run")
    r.add_argument("out")
    r.add_argument("--models", type=int, default=30)
    r.add_argument("--attempts", type=int, default=3)
    r.add_argument("--seed", type=int, default=1)
    b = sub.add_parser("big")
    b.add_argument("out")
    b.add_argument("--instances", type=int, default=1_000_000)
    b.add_argument("--seed", type=int, default=1)
    c = sub.add_parser("cohort")
    c.add_argument("out")
    c.add_argument("--models", type=int, default=2000)
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--eight", action="store_true", help="a second conjecture task (every pair has a p)")
    a = p.parse_args(argv)
    if a.what == "cohort":
        print(write_cohort(Path(a.out), a.models, a.seed, a.eight))
    elif a.what == "run":
        print(write_run(Path(a.out), a.models, a.attempts, a.seed))
    else:
        print(write_big(Path(a.out), a.instances, a.seed))


if __name__ == "__main__":
    main()
