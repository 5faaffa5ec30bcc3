"""Reopening a run from the cache of scored runs (tui/cache.py): the time to the Overview, before and after.

    python -m tests.bench.dashboard_cache [--cohort 2000] [--records 500] [--repeat 2] [--workdir DIR] [--json FILE]
    python -m tests.bench.dashboard_cache --reopen-only --before PYTHON [--records 2000] [--cohort 0] ...
    python -m tests.bench.dashboard_cache --cold [--packed] [--records 2000] [--cohort 0] ...

Generates two runs (tests/bench/synth.py): a leaderboard of --cohort models without records
(``cohort``) and a run of --records models with a records file for every solver attempt (``run``,
--attempts 1). For each it measures, each time in a fresh process, `tcsexam tui RUN_DIR` headless
(``App.run_test``, 120x40) from the process's start to the Overview's table holding every model:

  - no cache: ``--no-cache``, the run scored from scratch (what every open did before the cache);
  - first open: an empty cache folder, so the run is scored and stored;
  - reopen: the same cache folder, the run unchanged (target: within 2 s);
  - hashing: the time to hash the run's records files alone, in this process (part of every reopen).

Reports the best of --repeat for each, and the ratios no cache / reopen. Absolute times drift on a
shared machine; the ratios hold better. A reopen reports two times: to the Overview holding every model
(``reopen_s``: what the cache holds, shown at once while the inputs are checked) and to the end of that
check (``checked_s``: the checked run loaded, the mark gone); ``first_rows_s``: to the Overview's first
rows (a table of many models is filled a chunk at a time, the first screenful first).

--before PYTHON: the same reopen measured, interleaved, with another install of tcsexam (its
interpreter, e.g. a venv of an older checkout), each with its own cache folder and first open; prints
the ratio before / after. --reopen-only skips the --no-cache open (minutes at 3.75 M records).

--cold: a cold open (``--no-cache``) against `tcsexam score` of the same run, interleaved, each in a
fresh process, best of --repeat: the dashboard's time to the run loaded (``loaded_s``) and to the
Overview holding every model (``overview_s``), score's wall time, and the ratios (target: 1.5x); the CPU
time of each whole process (the dashboard's with its loader process, to the probe's end; score's) and its
ratio; the peak resident size of the dashboard's process and of its loader process (the largest of the
repeats).
--packed adds the same run as one packed records.jsonl (``tcsexam pack``, in a folder of its own).
With --before PYTHON the other install's cold open is measured too, interleaved (``before_`` figures).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.bench.installed import compile_installed

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import asyncio, json, os, sys, time
t0 = float(sys.argv[2])
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
from tcsexam.tui.app import create_app
from tcsexam.tui.state import DashboardConfig

async def drive():
    config = DashboardConfig(run_dir=sys.argv[1], benchmark=sys.argv[3] or None, cache=sys.argv[4] == "cache")
    app = create_app(config)
    async with app.run_test(size=(120, 40)) as pilot:
        table = app.query_one("#overview-table")

        def shown():  # the checked run, or what the cache holds while it is checked (a reopen)
            return app.state or getattr(app.shown, "preview", None)

        first_rows_s = loaded_s = None
        while not (shown() is not None and table.row_count == len(shown().document["models"])):
            if first_rows_s is None and table.row_count:
                first_rows_s = time.time() - t0
            if loaded_s is None and app.state is not None:
                loaded_s = time.time() - t0
            await asyncio.sleep(0.02)
        await pilot.pause()
        overview_s = time.time() - t0
        while app.state is None or app.loading:
            await asyncio.sleep(0.02)
        first_rows_s = first_rows_s or overview_s
        checked_s = time.time() - t0
        out = {"first_rows_s": first_rows_s, "overview_s": overview_s, "checked_s": checked_s}
        out["loaded_s"] = loaded_s or checked_s
        models = table.row_count
    import resource  # peak resident sizes: this process's, and its loader's (joined once it has answered)
    out["app_peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    out["loader_peak_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(json.dumps({**out, "models": models}))

asyncio.run(drive())
"""


def children_cpu() -> float:
    """CPU seconds (user + system) of this process's children that have ended (and theirs)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def overview(run_dir: Path, benchmark: Path | None, cache: bool, cache_home: Path, python: str = "") -> dict:
    """{"overview_s", "checked_s", ...} of one open in a fresh process (``python``: this interpreter if
    empty); ``cpu_s``: the CPU time of that process and its loader process, to the probe's end."""
    cpu = children_cpu()
    t0 = time.time()
    proc = subprocess.run(
        [
            python or sys.executable,
            "-c",
            PROBE,
            str(run_dir),
            repr(t0),
            str(benchmark or ""),
            "cache" if cache else "no",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        env={**os.environ, "XDG_CACHE_HOME": str(cache_home)},
    )
    if proc.returncode:
        raise SystemExit(f"the headless probe failed:\n{proc.stderr}")
    return {**json.loads(proc.stdout.strip().splitlines()[-1]), "cpu_s": children_cpu() - cpu}


def hashing(records: Path) -> float:
    from tcsexam.tui.stat_index import records_digests

    t0 = time.perf_counter()
    records_digests(records)
    return time.perf_counter() - t0


def measure(name: str, run_dir: Path, benchmark: Path | None, repeat: int, work: Path) -> dict:
    no_cache, first, reopen = [], [], []
    for i in range(repeat):
        home = work / f"cache-{name}-{i}"
        shutil.rmtree(home, ignore_errors=True)  # an empty cache folder: the first open stores the run
        no_cache.append(overview(run_dir, benchmark, False, home)["overview_s"])
        first.append(overview(run_dir, benchmark, True, home)["overview_s"])
        reopen.append(overview(run_dir, benchmark, True, home)["overview_s"])
    out = {
        "no_cache_s": round(min(no_cache), 2),
        "first_open_s": round(min(first), 2),
        "reopen_s": round(min(reopen), 2),
        "ratio_no_cache_over_reopen": round(min(no_cache) / min(reopen), 1),
        "cache_file_mb": round(
            sum(p.stat().st_size for p in (work / f"cache-{name}-0").rglob("*.tcsexam-run")) / 2**20, 1
        ),
    }
    if (run_dir / "records").is_dir():
        out["hash_records_s"] = round(min(hashing(run_dir / "records") for _ in range(repeat)), 2)
        out["records_files"] = sum(1 for p in (run_dir / "records").rglob("*") if p.is_file())
    return out


def before_after(name: str, run_dir: Path, benchmark: Path | None, before: str, repeat: int, work: Path) -> dict:
    """Reopen with the ``before`` interpreter and with this one, interleaved, each with its cache folder
    filled by one first open: the best of ``repeat`` of each, and before / after."""
    homes = {"before": work / f"cache-{name}-before", "after": work / f"cache-{name}-after"}
    pythons = {"before": before, "after": ""}
    for side, home in homes.items():
        shutil.rmtree(home, ignore_errors=True)
        overview(run_dir, benchmark, True, home, pythons[side])  # the first open stores the run
    seen: dict[str, list[dict]] = {"before": [], "after": []}
    for _ in range(repeat):
        for side in ("before", "after"):
            seen[side].append(overview(run_dir, benchmark, True, homes[side], pythons[side]))
    out: dict = {}
    for side, runs in seen.items():
        out[f"{side}_first_rows_s"] = round(min(r["first_rows_s"] for r in runs), 2)
        out[f"{side}_overview_s"] = round(min(r["overview_s"] for r in runs), 2)
        out[f"{side}_checked_s"] = round(min(r["checked_s"] for r in runs), 2)
    for what in ("first_rows", "overview", "checked"):
        out[f"{what}_before_over_after"] = round(out[f"before_{what}_s"] / out[f"after_{what}_s"], 1)
    return out


def score_wall(run_dir: Path, benchmark: Path | None, work: Path) -> tuple[float, float]:
    """Wall seconds of `tcsexam score RUN_DIR` in a fresh process, from its start to its exit, and its
    CPU seconds."""
    cmd = [sys.executable, "-m", "tcsexam.tui.cli", "score", str(run_dir), "--output", str(work / "cold-index.json")]
    if benchmark is not None:
        cmd += ["--benchmark", str(benchmark)]
    cpu, t0 = children_cpu(), time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False)
    if proc.returncode:
        raise SystemExit(f"score failed:\n{proc.stderr}")
    return time.time() - t0, children_cpu() - cpu


def packed_copy(run_dir: Path) -> Path:
    """The run with its records packed into one records.jsonl (``tcsexam pack``), in a folder beside it."""
    packed = run_dir.with_name(run_dir.name + "-packed")
    if not (packed / "records.jsonl").exists():
        packed.mkdir(exist_ok=True)
        for name in ("attempts.csv", "cohort.json"):
            shutil.copyfile(run_dir / name, packed / name)
        (run_dir / "records.jsonl").unlink(missing_ok=True)
        subprocess.run([sys.executable, "-m", "tcsexam.tui.cli", "pack", str(run_dir)], cwd=ROOT, check=True)
        os.replace(run_dir / "records.jsonl", packed / "records.jsonl")  # a run holds records/ or the file
    return packed


def cold(runs: dict[str, tuple[Path, Path | None]], repeat: int, work: Path, before: str = "") -> dict:
    """A cold open (--no-cache) against score of the same run, for each of ``runs`` (name: run folder and
    benchmark), all interleaved: the best of ``repeat`` of each. ``before``: another install's interpreter,
    whose cold open is measured too, interleaved with this one's (``before_`` figures)."""
    home = work / "cache-cold"  # --no-cache reads and writes nothing there
    sides = {"before_": before, "": ""} if before else {"": ""}
    opens: dict[tuple[str, str], list[dict]] = {(side, name): [] for side in sides for name in runs}
    scores: dict[str, list[tuple[float, float]]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, (run_dir, benchmark) in runs.items():
            for side, python in sides.items():
                opens[side, name].append(overview(run_dir, benchmark, False, home, python))
            scores[name].append(score_wall(run_dir, benchmark, work))
    result: dict = {}
    for name in runs:
        out = {
            "score_s": round(min(w for w, _ in scores[name]), 2),
            "score_cpu_s": round(min(c for _, c in scores[name]), 2),
        }
        for side in sides:
            seen = opens[side, name]
            out[f"{side}cold_loaded_s"] = round(min(o["loaded_s"] for o in seen), 2)
            out[f"{side}cold_overview_s"] = round(min(o["overview_s"] for o in seen), 2)
            out[f"{side}loaded_over_score"] = round(out[f"{side}cold_loaded_s"] / out["score_s"], 2)
            out[f"{side}overview_over_score"] = round(out[f"{side}cold_overview_s"] / out["score_s"], 2)
            out[f"{side}cold_cpu_s"] = round(min(o["cpu_s"] for o in seen), 2)
            out[f"{side}cpu_over_score"] = round(out[f"{side}cold_cpu_s"] / out["score_cpu_s"], 2)
            out[f"{side}app_peak_mb"] = round(max(o["app_peak_mb"] for o in seen))
            out[f"{side}loader_peak_mb"] = round(max(o["loader_peak_mb"] for o in seen))
        result[name] = out
    return result


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cohort", type=int, default=2000, help="models of the run without records")
    p.add_argument("--records", type=int, default=500, help="models of the run with records")
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--workdir")
    p.add_argument("--json")
    p.add_argument(
        "--before", metavar="PYTHON", help="another install's interpreter: reopen (or --cold) before / after"
    )
    p.add_argument("--reopen-only", action="store_true", help="with --before: measure the reopen alone")
    p.add_argument("--cold", action="store_true", help="a cold open (--no-cache) against score, alone")
    p.add_argument("--packed", action="store_true", help="with --cold: the records run packed too")
    args = p.parse_args(argv)
    compile_installed()
    if args.before:
        compile_installed(args.before)
    # absolute: a relative XDG_CACHE_HOME is no cache folder (the dashboard would use ~/.cache)
    work = Path(args.workdir or tempfile.mkdtemp(prefix="tcsexam-cache-bench-")).resolve()
    synth = [sys.executable, "-m", "tests.bench.synth"]
    cohort = work / f"c{args.cohort}"
    if args.cohort and not (cohort / "run" / "attempts.csv").exists():
        subprocess.run([*synth, "cohort", str(cohort), "--models", str(args.cohort)], cwd=ROOT, check=True)
    records = work / f"run{args.records}"
    if args.records and not (records / "attempts.csv").exists():
        subprocess.run(
            [*synth, "run", str(records), "--models", str(args.records), "--attempts", "1"], cwd=ROOT, check=True
        )
    runs = {
        name: (models, run_dir, benchmark)
        for name, models, run_dir, benchmark in (
            ("cohort", args.cohort, cohort / "run", cohort / "bench"),
            ("records", args.records, records, None),
        )
        if models
    }
    result: dict = {}
    if args.cold:
        opened = {name: (run_dir, benchmark) for name, (_, run_dir, benchmark) in runs.items()}
        if args.packed and "records" in runs:
            opened["packed"] = (packed_copy(runs["records"][1]), None)
        result = cold(opened, args.repeat, work, args.before or "")
        runs = {}
    for name, (models, run_dir, benchmark) in runs.items():
        result[name] = {"models": models}
        if not args.reopen_only:
            result[name].update(measure(name, run_dir, benchmark, args.repeat, work))
        if args.before:
            result[name].update(before_after(name, run_dir, benchmark, args.before, args.repeat, work))
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n")
    return result


if __name__ == "__main__":
    main()
