"""``tcsexam tau2`` against the floor of its work, reported as ratios measured in one run.

    python -m tests.bench.bench_tau2 [--sizes 10000,50000] [--shapes tau2-bench,compact,dir] [--reps 3] [--workdir DIR]

For each size and shape, a results file of that many simulations (``tau2_synth``: the real 5-task,
4-trial gpt-4.1 run of tests/data/tau2 copied under new task ids) is generated into a temporary
folder (or ``--workdir``, where it is kept and reused): ``tau2-bench`` writes it as tau2-bench does
(indented by 2, ASCII with escapes; 10,000 simulations are about 200 MB), ``compact`` without white
space and with raw UTF-8 text (about 125 MB), ``dir`` in tau2-bench's dir format (results.json with a
``simulation_index``, one file a simulation in simulations/, converted from the first shape; its
floor reads the index and every simulation file). Then, interleaved,
best of ``--reps``: ``tcsexam tau2 FILE --output OUT`` and the floor, a process that reads the same
file and decodes it with msgspec into Structs of only the fields the command uses (its Structs
are written out below, not imported, so that the floor does not import the project). Each runs
in a fresh process spawned by a small launcher, which reports the child's CPU time (user + sys),
wall time and peak resident memory (``os.wait4``). Printed: each figure, tau2 ÷ floor for CPU and
wall, and the peak memory of tau2 as a multiple of the file's size (targets: CPU at most 3× the
floor, memory at most 2× the file).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.bench.installed import compile_installed
from tests.bench.tau2_synth import write_tau2
from tests.support.runs import to_dir_format

ROOT = Path(__file__).resolve().parents[2]

# Spawns the command from a small process, so that its peak memory is its own (Linux carries the
# high-water mark over exec from the image that spawned it), and reports wall, CPU and peak RSS.
LAUNCH = """
import os, sys, time
t = time.perf_counter()
pid = os.posix_spawn(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(pid, 0)
elapsed = time.perf_counter() - t
with open(sys.argv[1], "w") as f:
    f.write(f"{elapsed!r} {usage.ru_utime + usage.ru_stime!r} {usage.ru_maxrss}")
sys.exit(os.waitstatus_to_exitcode(status))
"""

# The floor: read the file and decode the fields tcsexam tau2 reads (docs/tau2.md), nothing else.
STRUCTS = """
import sys
import msgspec

class DB(msgspec.Struct):
    db_match: bool | None = None
    db_reward: float | None = None

class Env(msgspec.Struct):
    met: bool | None = None
    reward: float | None = None

class Action(msgspec.Struct):
    action_match: bool | None = None
    action_reward: float | None = None

class Met(msgspec.Struct):
    met: bool | None = None

class RewardInfo(msgspec.Struct):
    reward: float
    db_check: DB | None = None
    env_assertions: list[Env] | None = None
    action_checks: list[Action] | None = None
    communicate_checks: list[Met] | None = None
    nl_assertions: list[Met] | None = None
    reward_basis: list[str] | None = None
    reward_breakdown: dict[str, float] | None = None

class Simulation(msgspec.Struct):
    task_id: str | int
    termination_reason: str
    id: str | None = None
    trial: int | None = None
    agent_cost: float | None = None
    reward_info: RewardInfo | None = None

class LLM(msgspec.Struct):
    llm: str | None = None

class Env_(msgspec.Struct):
    domain_name: str | None = None

class Info(msgspec.Struct):
    num_trials: int | None = None
    agent_info: LLM | None = None
    user_info: LLM | None = None
    environment_info: Env_ | None = None

class Results(msgspec.Struct):
    info: Info
    simulations: list[Simulation]

class Entry(msgspec.Struct):
    id: str
    task_id: str | int
    trial: int
    reward: float | None = None
    termination_reason: str | None = None

class Index(msgspec.Struct):
    info: Info
    simulation_index: list[Entry]
"""

FLOOR = (
    STRUCTS
    + """
with open(sys.argv[1], "rb") as f:
    data = f.read()
run = msgspec.json.decode(data, type=Results)
print(len(run.simulations))
"""
)

# The floor of a run in the dir format: results.json's index, and each simulation file it lists.
FLOOR_DIR = (
    STRUCTS
    + """
import os
with open(os.path.join(sys.argv[1], "results.json"), "rb") as f:
    index = msgspec.json.decode(f.read(), type=Index)
sims = []
for entry in index.simulation_index:
    with open(os.path.join(sys.argv[1], "simulations", entry.id + ".json"), "rb") as f:
        sims.append(msgspec.json.decode(f.read(), type=Simulation))
print(len(sims))
"""
)


def measure(cmd: list[str], scratch: Path) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MB) of one fresh process running ``cmd``."""
    measured = scratch / "measured"
    launch = [sys.executable, "-c", LAUNCH, str(measured), *cmd]
    proc = subprocess.run(launch, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        raise SystemExit(f"{cmd[:3]} failed ({proc.returncode}): {proc.stderr.decode()[-2000:]}")
    wall, cpu, maxrss = measured.read_text().split()
    return float(wall), float(cpu), int(maxrss) / 1024


def best_of(runs: list[tuple[float, float, float]]) -> tuple[float, float, float]:
    """The least wall time, the least CPU time and the least peak memory of the runs."""
    return min(r[0] for r in runs), min(r[1] for r in runs), min(r[2] for r in runs)


def bench_size(sims: int, shape: str, folder: Path, reps: int) -> None:
    if shape == "dir":  # tau2-bench's dir format, converted from its own json shape
        source = folder / f"tau2-{sims}-dir"
        if not source.exists():
            indented = folder / f"tau2-{sims}-tau2-bench.json"
            if not indented.exists():
                write_tau2(indented, sims, compact=False)
            to_dir_format(indented, source)
        size_mb = sum(f.stat().st_size for f in source.rglob("*.json")) / 2**20
        floor = FLOOR_DIR
    else:
        source = folder / f"tau2-{sims}-{shape}.json"
        if not source.exists():
            write_tau2(source, sims, compact=shape == "compact")
        size_mb = source.stat().st_size / 2**20
        floor = FLOOR
    tcsexam = str(Path(sys.executable).parent / "tcsexam")
    commands = {
        "tau2": [tcsexam, "tau2", str(source), "--output", str(folder / f"out-{sims}.json")],
        "floor": [sys.executable, "-c", floor, str(source)],
    }
    runs: dict[str, list[tuple[float, float, float]]] = {name: [] for name in commands}
    for _ in range(reps):
        for name, cmd in commands.items():  # interleaved: both see the same load
            runs[name].append(measure(cmd, folder))
    (tw, tc, tm), (fw, fc, fm) = best_of(runs["tau2"]), best_of(runs["floor"])
    load = os.getloadavg()[0]
    print(f"{sims:,} simulations, {shape} ({size_mb:.0f} MiB), best of {reps}, load {load:.1f}:")
    print(f"  tau2   wall {tw:7.2f} s  CPU {tc:7.2f} s  peak {tm:7.0f} MiB ({tm / size_mb:.2f}x the file)")
    print(f"  floor  wall {fw:7.2f} s  CPU {fc:7.2f} s  peak {fm:7.0f} MiB ({fm / size_mb:.2f}x the file)")
    print(f"  tau2 / floor: CPU {tc / fc:.2f}x, wall {tw / fw:.2f}x, memory {tm / fm:.2f}x")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,50000", help="simulations per file, comma-separated")
    parser.add_argument("--shapes", default="tau2-bench,compact", help="tau2-bench, compact, dir (comma-separated)")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--workdir", type=Path, help="keep the generated files here (and reuse them)")
    args = parser.parse_args(argv)
    compile_installed()
    sizes = [int(s) for s in args.sizes.split(",")]
    shapes = args.shapes.split(",")
    if not set(shapes) <= {"tau2-bench", "compact", "dir"}:
        parser.error(f"--shapes: tau2-bench, compact or dir, not {args.shapes!r}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.workdir or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for sims in sizes:
            for shape in shapes:
                bench_size(sims, shape, folder, max(args.reps, 1))


if __name__ == "__main__":
    main()
