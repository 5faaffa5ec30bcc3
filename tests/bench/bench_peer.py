"""``tcsexam score`` against a columnar peer on the same leaderboard, as ratios measured in one run.

    python -m tests.bench.bench_peer [--cohorts 2000,10000] [--reps 3] [--workdir DIR]

Each cohort (``synth.write_cohort``: 7 tasks a model, one attempt, every model complete) is generated
into a temporary folder (or ``--workdir``, where it is kept and reused). ``score`` writes index.json
(with ranks up to 5,000 models, none above); the peer (``tests/bench/peer_index.py``, polars) computes
the same index, track means and coverage status from the same files and writes them with orjson, and
nothing else (no checks, intervals, pass^k, ranks or hash). Interleaved, best of ``--reps``, each in a
fresh process (``bench_tau2.measure``: wall, CPU, peak memory). Target: score at most 3x the peer.
Needs polars (the ``frames`` extra).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from tests.bench.bench_tau2 import best_of, measure
from tests.bench.installed import compile_installed
from tests.bench.synth import write_cohort


def bench_cohort(models: int, folder: Path, reps: int) -> None:
    made = folder / f"cohort-{models}"
    run, bench = made / "run", made / "bench"
    if not (run / "attempts.csv").exists():
        write_cohort(made, models)
    tcsexam = str(Path(sys.executable).parent / "tcsexam")
    commands = {
        "score": [tcsexam, "score", str(run), "--benchmark", str(bench), "--output", str(made / "index.json")],
        "peer": [sys.executable, "-m", "tests.bench.peer_index", str(run), "--benchmark", str(bench)]
        + ["--output", str(made / "peer.json")],
    }
    runs: dict[str, list[tuple[float, float, float]]] = {name: [] for name in commands}
    for _ in range(max(reps, 1)):
        for name, cmd in commands.items():
            runs[name].append(measure(cmd, made))
    (sw, sc, sm), (pw, pc, pm) = best_of(runs["score"]), best_of(runs["peer"])
    print(f"{models:,} models, best of {reps}, load {os.getloadavg()[0]:.1f}:")
    print(f"  score  wall {sw:7.2f} s  CPU {sc:7.2f} s  peak {sm:6.0f} MiB")
    print(f"  peer   wall {pw:7.2f} s  CPU {pc:7.2f} s  peak {pm:6.0f} MiB")
    print(f"  score / peer: wall {sw / pw:.2f}x, CPU {sc / pc:.2f}x")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cohorts", default="2000,10000", help="comma-separated numbers of models")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--workdir", type=Path, help="keep the generated cohorts here (and reuse them)")
    args = parser.parse_args(argv)
    compile_installed()
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.workdir or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for models in (int(n) for n in args.cohorts.split(",")):
            bench_cohort(models, folder, args.reps)


if __name__ == "__main__":
    main()
