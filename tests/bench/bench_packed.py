"""``tcsexam score`` on a packed run (records.jsonl) against the same run as a records/ folder, one interleaved run.

    python -m tests.bench.bench_packed [--models 2000] [--suite full] [--reps 3] [--workdir DIR]

The run is ``synth.write_run`` on the bundled sample suite, one attempt of every task: on the Full
suite, 15 solver tasks of 1,860 scored instances, so 2,000 models make 30,000 records files and
about 3.75 M records. ``tcsexam pack`` writes its records.jsonl (measured once), which is moved
into a second run folder beside a copy of attempts.csv and cohort.json. ``score`` then reads each
run, interleaved, best of ``--reps``, each in a fresh process (``bench_tau2.measure``: wall, CPU,
peak memory). The two index.json files are compared, apart from the records input (path, digest),
which is what names the layout.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from tcsexam.scoring.pipeline.benchmark import sample_root
from tests.bench.bench_tau2 import best_of, measure
from tests.bench.installed import compile_installed
from tests.bench.synth import write_run


def without_inputs(path: Path) -> dict:
    """index.json without what differs between the two layouts by design (docs/formats.md#packed-records)."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    skip = ("generated_at", "inputs", "content_sha256")
    return {**doc, "provenance": {k: v for k, v in doc["provenance"].items() if k not in skip}}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=2000)
    parser.add_argument("--suite", choices=("lite", "full"), default="full")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--workdir", type=Path, help="keep the generated runs here (and reuse them)")
    args = parser.parse_args(argv)
    compile_installed()
    with tempfile.TemporaryDirectory() as tmp:
        folder = (args.workdir or Path(tmp)) / f"packed-{args.suite}-{args.models}"
        run, packed = folder / "folder-run", folder / "packed-run"
        tcsexam = str(Path(sys.executable).parent / "tcsexam")
        if not (run / "attempts.csv").exists():
            made = write_run(run, models=args.models, attempts=1, suite_name=args.suite)
            print(f"generated {made['models']:,} models, {made['records']:,} records")
        if not (packed / "records.jsonl").exists():
            packed.mkdir(parents=True, exist_ok=True)
            for name in ("attempts.csv", "cohort.json"):
                shutil.copyfile(run / name, packed / name)
            (run / "records.jsonl").unlink(missing_ok=True)
            pw, pc, pm = measure([tcsexam, "pack", str(run)], folder)
            os.replace(run / "records.jsonl", packed / "records.jsonl")
            print(f"pack   wall {pw:7.2f} s  CPU {pc:7.2f} s  peak {pm:6.0f} MiB (once)")
        bench = str(sample_root() / "benchmark")
        files = sum(1 for _ in (run / "records").rglob("*.json"))
        folder_bytes = sum(p.stat().st_size for p in (run / "records").rglob("*.json"))
        packed_bytes = (packed / "records.jsonl").stat().st_size
        commands = {
            "folder": [tcsexam, "score", str(run), "--benchmark", bench, "--output", str(folder / "folder.json")],
            "packed": [tcsexam, "score", str(packed), "--benchmark", bench, "--output", str(folder / "packed.json")],
        }
        runs: dict[str, list[tuple[float, float, float]]] = {name: [] for name in commands}
        for _ in range(max(args.reps, 1)):
            for name, cmd in commands.items():  # interleaved: both see the same load
                runs[name].append(measure(cmd, folder))
        same = without_inputs(folder / "folder.json") == without_inputs(folder / "packed.json")
        (fw, fc, fm), (kw, kc, km) = best_of(runs["folder"]), best_of(runs["packed"])
        load = os.getloadavg()[0]
        print(
            f"{args.models:,} models, {args.suite} suite: {files:,} records files ({folder_bytes / 2**20:.0f} MiB) "
            f"or one records.jsonl ({packed_bytes / 2**20:.0f} MiB); index.json the same apart from the "
            f"records input: {same}"
        )
        print(f"best of {args.reps}, load {load:.1f}:")
        print(f"  score, records/       wall {fw:7.2f} s  CPU {fc:7.2f} s  peak {fm:6.0f} MiB")
        print(f"  score, records.jsonl  wall {kw:7.2f} s  CPU {kc:7.2f} s  peak {km:6.0f} MiB")
        print(f"  packed / folder: wall {kw / fw:.2f}x, CPU {kc / fc:.2f}x, peak memory {km / fm:.2f}x")


if __name__ == "__main__":
    main()
