"""Realistic tau2-bench results files of any size, for the tau2 benchmark (tests/bench/bench_tau2.py).

    python -m tests.bench.tau2_synth OUT.json --simulations 10000 [--compact]

The real 5-task, 4-trial gpt-4.1 telecom run of tests/data/tau2 is the template: its tasks are
copied under new task ids (``<id>#<copy>``) with all their trials, and every simulation gets a
fresh id (seeded: the same file every time). Written as tau2-bench writes its results (Python's
``json.dump`` with ``indent=2``: every character beyond ASCII as a ``\\u`` escape, as in the real
files of tests/data/tau2), or with ``--compact`` without white space and with raw UTF-8 text, the
smallest shape a tool could write: 10,000 simulations make about 125 MB compact.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import uuid
from pathlib import Path

import orjson

TEMPLATE = Path(__file__).resolve().parents[1] / "data" / "tau2"
TEMPLATE_FILE = "gpt-4.1-2025-04-14_telecom_no-user_gpt-4.1-2025-04-14_4trials_5tasks.json"


_NOT_ASCII = re.compile(rb"[\x80-\xff]+")


def _as_tau2_bench(value: object, depth: int) -> bytes:
    """``value`` as ``json.dump(..., indent=2)`` writes it ``depth`` levels down (ASCII only)."""
    text = orjson.dumps(value, option=orjson.OPT_INDENT_2).replace(b"\n", b"\n" + b"  " * depth)
    return _NOT_ASCII.sub(lambda m: json.dumps(m.group().decode())[1:-1].encode(), text)


def write_tau2(out: Path, simulations: int, seed: int = 3803, compact: bool = False) -> int:
    """Write a results file of ``simulations`` simulations to ``out``; its size in bytes."""
    dump = orjson.dumps if compact else lambda value: _as_tau2_bench(value, 2)
    run = orjson.loads((TEMPLATE / TEMPLATE_FILE).read_bytes())
    rng = random.Random(seed)
    sims, tasks = run["simulations"], run["tasks"]
    copies = -(-simulations // len(sims))
    out.parent.mkdir(parents=True, exist_ok=True)
    comma, inside = (b",", b"") if compact else (b",\n    ", b"\n    ")
    with out.open("wb") as f:
        head = {"timestamp": run["timestamp"], "info": run["info"]}
        if compact:
            f.write(orjson.dumps(head)[:-1] + b',"tasks":[')
        else:
            f.write(_as_tau2_bench(head, 0)[:-2] + b',\n  "tasks": [' + inside)
        f.write(comma.join(dump({**task, "id": f"{task['id']}#{c}"}) for c in range(copies) for task in tasks))
        f.write(b'],"simulations":[' if compact else b'\n  ],\n  "simulations": [' + inside)
        written = 0
        for c in range(copies):
            for sim in sims:
                if written == simulations:
                    break
                new = {**sim, "id": str(uuid.UUID(int=rng.getrandbits(128))), "task_id": f"{sim['task_id']}#{c}"}
                f.write((comma if written else b"") + dump(new))
                written += 1
        f.write(b"]}\n" if compact else b"\n  ]\n}")
    return out.stat().st_size


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--simulations", type=int, default=10_000)
    parser.add_argument("--compact", action="store_true", help="no white space, raw UTF-8 text")
    args = parser.parse_args(argv)
    size = write_tau2(args.out, args.simulations, compact=args.compact)
    print(f"{args.out}: {args.simulations:,} simulations, {size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
