"""Realistic tau2-bench results files of any size, for the tau2 benchmark (tests/bench/bench_tau2.py).

    python -m tests.bench.tau2_synth OUT.json --simulations 10000

The real 5-task, 4-trial gpt-4.1 telecom run of tests/data/tau2 is the template: its tasks are
copied under new task ids (``<id>#<copy>``) with all their trials, and every simulation gets a
fresh id (seeded: the same file every time). Written without indentation (tau2-bench indents by 2,
which only adds white space): 10,000 simulations make about 125 MB, 50,000 about 624 MB.
"""

from __future__ import annotations

import argparse
import random
import uuid
from pathlib import Path

import orjson

TEMPLATE = Path(__file__).resolve().parents[1] / "data" / "tau2"
TEMPLATE_FILE = "gpt-4.1-2025-04-14_telecom_no-user_gpt-4.1-2025-04-14_4trials_5tasks.json"


def write_tau2(out: Path, simulations: int, seed: int = 3803) -> int:
    """Write a results file of ``simulations`` simulations to ``out``; its size in bytes."""
    run = orjson.loads((TEMPLATE / TEMPLATE_FILE).read_bytes())
    rng = random.Random(seed)
    sims, tasks = run["simulations"], run["tasks"]
    copies = -(-simulations // len(sims))
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("wb") as f:
        head = {"timestamp": run["timestamp"], "info": run["info"]}
        f.write(orjson.dumps(head)[:-1] + b',"tasks":[')
        f.write(b",".join(orjson.dumps({**task, "id": f"{task['id']}#{c}"}) for c in range(copies) for task in tasks))
        f.write(b'],"simulations":[')
        written = 0
        for c in range(copies):
            for sim in sims:
                if written == simulations:
                    break
                new = {**sim, "id": str(uuid.UUID(int=rng.getrandbits(128))), "task_id": f"{sim['task_id']}#{c}"}
                f.write((b"," if written else b"") + orjson.dumps(new))
                written += 1
        f.write(b"]}\n")
    return out.stat().st_size


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--simulations", type=int, default=10_000)
    args = parser.parse_args(argv)
    size = write_tau2(args.out, args.simulations)
    print(f"{args.out}: {args.simulations:,} simulations, {size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
