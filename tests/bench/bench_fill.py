"""``tcsexam fill`` against ``tcsexam score`` on the same run, reported as ratios measured in one run.

    python -m tests.bench.bench_fill [--models 2000] [--reps 3] [--workdir DIR] [--before OTHER/bin/tcsexam]

The run (``synth.write_run`` on the bundled Lite sample suite, one attempt: 5 solver tasks, so
10,000 records files at 2,000 models, about 150 records each) is generated into a temporary
folder (or ``--workdir``, where it is kept and reused). ``fill`` needs solver rows without a
score: before each ``fill`` the run's attempts.csv is replaced by a copy whose solver rows are
empty (``score_status`` missing) and ``solver-scores/`` is moved aside, outside the measured
process (into ``removed/`` beside the run, deleted once every figure is measured: on ext4
without a journal a file or folder made within a minute of 22,000 deletions, six while their
blocks are unwritten, waits while the kernel skips the recently deleted inodes, which took fill
from about 6 s to 12-16 s); ``fill`` then scores the records and writes a solver-scores file
for every attempt and attempts.csv. ``score`` reads the same run (filled) and writes index.json. Interleaved,
best of ``--reps``, each in a fresh process (``bench_tau2.measure``: wall, CPU, peak memory),
each round's CPU printed too. ``fill`` is also run again on the filled run (every score in, every
output up to date), as a user does when results come in. Target: fill at most 1.5x score.
``--before`` runs another install's ``fill`` in the same rounds, the two taking turns to go first,
and checks that both write the same attempts.csv and solver-scores files.

The file system's floor, in the same rounds: a process that writes files of the same names and
sizes as fill's outputs (``FS_FLOOR``: each folder made, a temporary file written beside its
target, one ``sync``, the renames, one ``sync``; no check, no JSON). What it costs is what the
layout of one file per attempt asks of this file system at this moment: its system time moves
by seconds from sitting to sitting (on ext4, creating files soon after many were deleted is
slow), so fill's own work is printed as fill minus the floor as well.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from tcsexam.scoring.pipeline.benchmark import sample_root
from tests.bench.bench_tau2 import best_of, measure
from tests.bench.installed import compile_installed, python_of
from tests.bench.synth import write_run

FS_FLOOR = """
import json, os, sys, tempfile
target, manifest = sys.argv[1], json.load(open(sys.argv[2]))
pending = []
for rel, size in manifest:
    path = os.path.join(target, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".f.", suffix=".tmp", dir=os.path.dirname(path))
    os.write(fd, bytes(size))
    os.close(fd)
    pending.append((tmp, path))
os.sync()
for tmp, path in pending:
    os.replace(tmp, path)
os.sync()
"""


def emptied(table: str) -> str:
    """attempts.csv with every solver row's score emptied, as before its records were scored."""
    rows = list(csv.DictReader(io.StringIO(table)))
    for row in rows:
        if row["track"] == "solver":
            row["score"], row["score_status"], row["reference_id"] = "", "missing", ""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()


def written_digest(run: Path) -> str:
    """One digest of what fill wrote: attempts.csv and every solver-scores file, by path."""
    digest = hashlib.sha256((run / "attempts.csv").read_bytes())
    for path in sorted((run / "solver-scores").rglob("*.json")):
        digest.update(str(path.relative_to(run)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=2000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--workdir", type=Path, help="keep the generated run here (and reuse it)")
    parser.add_argument("--before", help="another install's tcsexam, measured in the same rounds")
    args = parser.parse_args(argv)
    compile_installed()
    if args.before:
        compile_installed(python_of(args.before))
    with tempfile.TemporaryDirectory() as tmp:
        folder = (args.workdir or Path(tmp)) / f"fill-{args.models}"
        run = folder / "run"
        if not (run / "attempts.csv").exists():
            made = write_run(run, models=args.models, attempts=1, suite_name="lite")
            print(f"generated {made['models']:,} models, {made['records']:,} records")
        filled = (run / "attempts.csv").read_text(encoding="utf-8")
        empty = emptied(filled)
        tcsexam = str(Path(sys.executable).parent / "tcsexam")
        bench = str(sample_root() / "benchmark")
        score = [tcsexam, "score", str(run), "--benchmark", bench, "--output", str(folder / "index.json")]
        fills = {"fill": [tcsexam, "fill", str(run), "--benchmark", bench]}
        if args.before:
            fills["before"] = [args.before, "fill", str(run), "--benchmark", bench]
        files = sum(1 for _ in (run / "records").rglob("*.json"))
        runs: dict[str, list[tuple[float, float, float]]] = {
            "fill": [],
            "before": [],
            "score": [],
            "floor": [],
            "again": [],
        }
        removed = folder / "removed"
        removed.mkdir(exist_ok=True)
        manifest, floor_out = folder / "floor-manifest.json", folder / "floor-out"
        for rep in range(max(args.reps, 1)):
            outputs = set()
            order = list(fills.items())
            for name, fill in order if rep % 2 == 0 else order[::-1]:  # neither install always first
                (run / "attempts.csv").write_text(empty, encoding="utf-8")
                if (run / "solver-scores").exists():
                    (run / "solver-scores").rename(removed / f"{name}-{rep}-{os.getpid()}")
                runs[name].append(measure(fill, folder))
                outputs.add(written_digest(run))
            if len(outputs) > 1:
                raise SystemExit("fill and --before wrote different files")
            runs["score"].append(measure(score, folder))  # on the table fill has just written
            runs["again"].append(measure(fills["fill"], folder))  # every score in, every output up to date
            if not manifest.exists():
                scores = run / "solver-scores"
                sizes = [[str(p.relative_to(scores)), p.stat().st_size] for p in sorted(scores.rglob("*.json"))]
                manifest.write_text(json.dumps(sizes), encoding="utf-8")
            if floor_out.exists():
                floor_out.rename(removed / f"floor-{rep}-{os.getpid()}")
            runs["floor"].append(measure([sys.executable, "-c", FS_FLOOR, str(floor_out), str(manifest)], folder))
        written = sum(1 for _ in (run / "solver-scores").rglob("*.json"))
        if floor_out.exists():
            floor_out.rename(removed / f"floor-last-{os.getpid()}")
        shutil.rmtree(removed)
        (fw, fc, fm), (sw, sc, sm) = best_of(runs["fill"]), best_of(runs["score"])
        lw, lc, _ = best_of(runs["floor"])
        load = os.getloadavg()[0]
        print(f"{args.models:,} models, {files:,} records files; fill wrote {written:,} solver-score files")
        print(f"best of {args.reps}, load {load:.1f}:")
        print(f"  fill   wall {fw:7.2f} s  CPU {fc:7.2f} s  peak {fm:6.0f} MiB")
        print(f"  score  wall {sw:7.2f} s  CPU {sc:7.2f} s  peak {sm:6.0f} MiB")
        print(f"  floor  wall {lw:7.2f} s  CPU {lc:7.2f} s  (the same files written, nothing else)")
        print(f"  fill / score: wall {fw / sw:.2f}x, CPU {fc / sc:.2f}x")
        print(f"  fill - floor: wall {fw - lw:.2f} s, CPU {fc - lc:.2f} s; that over score: CPU {(fc - lc) / sc:.2f}x")
        aw, ac, _ = best_of(runs["again"])
        print(f"  fill again (all filled): wall {aw:.2f} s, CPU {ac:.2f} s; over score: CPU {ac / sc:.2f}x")
        for name, measured in runs.items():
            if measured:
                print(f"  {name:6s} CPU by round: {', '.join(f'{cpu:.2f}' for _, cpu, _ in measured)} s")
        if args.before:
            bw, bc, bm = best_of(runs["before"])
            print(f"  before wall {bw:7.2f} s  CPU {bc:7.2f} s  peak {bm:6.0f} MiB (the same files written)")
            print(f"  before / score: wall {bw / sw:.2f}x, CPU {bc / sc:.2f}x")


if __name__ == "__main__":
    main()
