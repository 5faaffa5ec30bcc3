"""A columnar peer of `tcsexam score`: the same index, coverage status and track means from
attempts.csv with polars, no checks and no ranks (docs/performance.md#against-a-columnar-peer).

    python -m tests.bench.peer_index RUN_DIR --benchmark BENCH_DIR --output peer.json

It trusts its input (no rejection, no ignored-row report): it is a yardstick for the time
`score` takes, and tests/test_peer_index.py checks that its index equals score's.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import orjson
import polars as pl

WEIGHTS = {"theorem": 30.0, "solver": 30.0, "construction": 30.0, "conjecture": 10.0}  # docs/rules.md#the-index


def peer_index(run: Path, benchmark: Path) -> dict[str, dict]:
    cohort = json.loads((run / "cohort.json").read_text())
    suite = json.loads((benchmark / "suites" / f"{cohort['suite']}.json").read_text())
    tasks = pl.DataFrame(suite["tasks"]).select("item", "track")
    plan = pl.DataFrame(
        [
            {
                "model": m,
                "item": t["item"],
                "planned": spec.get("attempts_per_item", {}).get(t["item"], spec["attempts_per_task"]),
            }
            for m, spec in cohort["models"].items()
            for t in suite["tasks"]
        ],
        schema={"model": pl.String, "item": pl.String, "planned": pl.Int64},
    ).join(tasks, on="item")
    rows = pl.read_csv(run / "attempts.csv", infer_schema=False).filter(
        pl.col("adoption_status").is_in(["selected", "selected_provisional"])
    )
    per_task = rows.group_by("model", "item").agg(
        adopted=pl.len(),
        valid=(pl.col("score_status") == "valid").sum(),
        provisional=(pl.col("adoption_status") == "selected_provisional").any(),
        mean=pl.col("score").cast(pl.Float64).mean(),
    )
    cells = plan.join(per_task, on=["model", "item"], how="left").with_columns(
        complete=(pl.col("adopted").fill_null(0) == pl.col("planned")) & (pl.col("valid") == pl.col("adopted"))
    )
    tracks = cells.group_by("model", "track").agg(
        mean=pl.when(pl.col("complete").all()).then(pl.col("mean").mean()),  # a track with a gap has no mean
        complete=pl.col("complete").all(),
        provisional=pl.col("provisional").fill_null(False).any(),
    )
    out: dict[str, dict] = {}
    for (model,), group in tracks.group_by("model"):
        means = dict(zip(group["track"], group["mean"], strict=True))
        complete = bool(group["complete"].all())
        status = "incomplete" if not complete else "provisional" if group["provisional"].any() else "complete"
        index = sum(WEIGHTS[t] * means[t] for t in WEIGHTS) if complete else None
        out[str(model)] = {"status": status, "index": index, "track_means": means}
    return out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m tests.bench.peer_index")
    p.add_argument("run", type=Path)
    p.add_argument("--benchmark", type=Path, required=True)
    p.add_argument("--output", type=Path, required=True)
    args = p.parse_args(argv)
    args.output.write_bytes(orjson.dumps(peer_index(args.run, args.benchmark)))


if __name__ == "__main__":
    main()
