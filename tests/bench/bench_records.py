"""``tcsexam score`` on runs with records against their read-and-parse floor, as ratios from one run.

    python -m tests.bench.bench_records [--models 2000] [--attempts 1,3] [--reps 3] [--workdir DIR]
                                        [--before OTHER/bin/tcsexam]

Each shape is a run of the bundled Lite sample suite (``synth.write_run``: 5 solver tasks, about
31 records a file) with ``--models`` models and one of ``--attempts`` attempts per task: 2,000
models give 10,000 records files (314,000 records) at one attempt and 30,000 files at three. The
runs are generated into a temporary folder (or ``--workdir``, where they are kept and reused).

The floor is what no scorer of the run can skip: walk records/ once, read every file and
``orjson.loads`` it, parse attempts.csv with the csv module and decode cohort.json, the suite and
the reference with orjson, in a fresh process that imports orjson. ``score`` writes index.json.
A third process runs ``score`` with its records part timed inside (the line-up of rows and
records files, and reading, checking and re-scoring every records file), set against the CPU
time of the floor's own work (without its start-up). The sources are compiled first (as an
install does); every command runs in a fresh process (``bench_tau2.measure``: wall, CPU, peak
memory), interleaved, best of ``--reps``. ``--before`` names another install's ``tcsexam`` (say,
of the previous release) measured in the same rounds, and checks that both write the same
index.json apart from its provenance's time stamp. Target: ``score`` at most 3x the floor
(docs/performance.md#runs-with-records-against-their-floor).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import orjson

from tcsexam.scoring.pipeline.benchmark import sample_root
from tests.bench.bench_tau2 import best_of, measure
from tests.bench.installed import compile_installed, python_of
from tests.bench.synth import REFERENCE_ID, write_run

FLOOR = """
import csv, os, sys, time
import orjson

start = time.process_time()
run, bench, suite = sys.argv[1], sys.argv[2], sys.argv[3]
records = 0
stack = [os.path.join(run, "records")]
while stack:
    for entry in os.scandir(stack.pop()):
        if entry.is_dir(follow_symlinks=False):
            stack.append(entry.path)
        elif entry.name.endswith(".json"):
            with open(entry.path, "rb") as f:
                records += len(orjson.loads(f.read()))
with open(os.path.join(run, "attempts.csv"), newline="", encoding="utf-8") as f:
    rows = sum(1 for _ in csv.DictReader(f))
for path in (
    os.path.join(run, "cohort.json"),
    os.path.join(bench, "suites", suite + ".json"),
    os.path.join(bench, "references", sys.argv[4], suite + ".json"),
):
    with open(path, "rb") as f:
        orjson.loads(f.read())
with open(sys.argv[5], "w") as f:
    f.write(repr(time.process_time() - start))
"""

# ``score`` in one process, with the CPU time of its records part (the line-up of rows and records files,
# and reading, checking and re-scoring every records file) written to the file argv[1].
PART = """
import sys, time
from tcsexam.scoring.commands.process import prepare_process

prepare_process()
import scipy.special  # imported before the clock starts: an import is no records work
import tcsexam.scoring.pipeline.aggregate as aggregate
from tcsexam.tui.cli import main

spent = [0.0]

def timed(step):
    def run(*args, **kwargs):
        start = time.process_time()
        try:
            return step(*args, **kwargs)
        finally:
            spent[0] += time.process_time() - start
    return run

aggregate.line_up = timed(aggregate.line_up)
aggregate.rescore_from_records = timed(aggregate.rescore_from_records)
code = main(sys.argv[2:])
with open(sys.argv[1], "w") as f:
    f.write(repr(spent[0]))
sys.exit(code)
"""


def without_time(path: Path) -> dict:
    """An index.json without what differs between two runs of the same inputs: the time it was made."""
    document = orjson.loads(path.read_bytes())
    document["provenance"].pop("generated_at", None)
    return document


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=2000)
    parser.add_argument("--attempts", default="1,3", help="attempts per task of each shape, comma-separated")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--workdir", type=Path, help="keep the generated runs here (and reuse them)")
    parser.add_argument("--before", help="another tcsexam executable, measured alongside")
    args = parser.parse_args(argv)
    compile_installed()
    if args.before:
        compile_installed(python_of(args.before))
    tcsexam = str(Path(sys.executable).parent / "tcsexam")
    bench = str(sample_root() / "benchmark")
    with tempfile.TemporaryDirectory() as tmp:
        shapes = {}
        for attempts in (int(a) for a in args.attempts.split(",")):
            folder = (args.workdir or Path(tmp)) / f"records-{args.models}x{attempts}"
            run = folder / "run"
            if not (run / "attempts.csv").exists():
                made = write_run(run, models=args.models, attempts=attempts, suite_name="lite")
                print(f"generated {made['models']:,} models x {attempts}: {made['records']:,} records")
            files = sum(1 for _ in (run / "records").rglob("*.json"))
            score = ["score", str(run), "--benchmark", bench, "--output"]
            commands = {
                "score": [tcsexam, *score, str(folder / "index.json")],
                "floor": [sys.executable, "-c", FLOOR, str(run), bench, "lite", REFERENCE_ID, str(folder / "floor")],
                "part": [sys.executable, "-c", PART, str(folder / "part"), *score, str(folder / "index-part.json")],
            }
            if args.before:
                python = str(Path(args.before).parent / "python")
                commands["before"] = [args.before, *score, str(folder / "index-before.json")]
                before_part = [str(folder / "part-before"), *score, str(folder / "index-part-before.json")]
                commands["before part"] = [python, "-c", PART, *before_part]
            shapes[f"{args.models:,} models x {attempts} attempts, {files:,} records files"] = (folder, commands)
        runs: dict[tuple[str, str], list[tuple[float, float, float]]] = {}
        inside: dict[tuple[str, str], list[float]] = {}  # CPU seconds measured in the process
        for _ in range(max(args.reps, 1)):  # interleaved: every command sees the same load
            for shape, (folder, commands) in shapes.items():
                for name, cmd in commands.items():
                    runs.setdefault((shape, name), []).append(measure(cmd, folder))
                    for step, file in (("floor", "floor"), ("part", "part"), ("before part", "part-before")):
                        if name == step:
                            inside.setdefault((shape, name), []).append(float((folder / file).read_text()))
        print(f"best of {args.reps}, load {os.getloadavg()[0]:.1f}:")
        for shape in shapes:
            (sw, sc, sm), (fw, fc, fm) = best_of(runs[(shape, "score")]), best_of(runs[(shape, "floor")])
            print(shape)
            print(f"  score  wall {sw:7.2f} s  CPU {sc:7.2f} s  peak {sm:6.0f} MiB")
            print(f"  floor  wall {fw:7.2f} s  CPU {fc:7.2f} s  peak {fm:6.0f} MiB")
            print(f"  score / floor: wall {sw / fw:.2f}x, CPU {sc / fc:.2f}x")
            floor_in, part = min(inside[(shape, "floor")]), min(inside[(shape, "part")])
            print(
                f"  records part of score CPU {part:5.2f} s, the floor's own work {floor_in:5.2f} s: {part / floor_in:.2f}x"
            )
            if args.before:
                bw, bc, bm = best_of(runs[(shape, "before")])
                folder = shapes[shape][0]
                same = without_time(folder / "index.json") == without_time(folder / "index-before.json")
                print(f"  before wall {bw:7.2f} s  CPU {bc:7.2f} s  peak {bm:6.0f} MiB")
                print(f"  before / floor: wall {bw / fw:.2f}x, CPU {bc / fc:.2f}x; same index.json: {same}")
                before = min(inside[(shape, "before part")])
                print(f"  before: records part CPU {before:5.2f} s: {before / floor_in:.2f}x the floor's own work")


if __name__ == "__main__":
    main()
