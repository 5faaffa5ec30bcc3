"""Runs and files for the tests: a tiny benchmark and run written into a folder (``Workspace``,
``MINI_SUITE``, ``MINI_REFERENCE``, rows of the attempts table), variants of the demo, tau2-bench
results in the dir format."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

from tcsexam.scoring.formats.inputs import ATTEMPTS_COLUMNS
from tcsexam.scoring.pipeline.benchmark import demo_run
from tcsexam.scoring.vocab import TRACK_SCORE_TYPE

TAU2_DATA = Path(__file__).resolve().parents[1] / "data" / "tau2"  # copies with their provenance (PROVENANCE.md)


COLUMNS = list(ATTEMPTS_COLUMNS)  # as init writes them


MINI_SUITE = {
    "suite": "lite",
    "tasks": [
        {"item": "t1", "track": "theorem"},
        {"item": "t2", "track": "theorem"},
        {"item": "s1", "track": "solver"},
        {"item": "s2", "track": "solver"},
        {"item": "c1", "track": "construction"},
        {"item": "c2", "track": "construction"},
        {"item": "o1", "track": "conjecture"},
    ],
}


MINI_REFERENCE = {
    "reference_id": "ref-test",
    "suite": "lite",
    "scale_floor": {"relative": 0.02, "absolute": 1e-9},
    "tasks": {
        "s1": {
            "kind": "objective",
            "direction": "maximize",
            "instances": {"a": [10, 12, 14], "b": [100, None, 100, 100]},
        },
        "s2": {"kind": "solve", "direction": "maximize", "instances": {"x": [1, 0, 1], "y": [1, 1]}},
    },
    "unscored_reference_instances": [{"task": "s1", "instance": "u", "values": [7, None]}],
}


def row(
    model="m",
    track="theorem",
    item="t1",
    attempt="1",
    score="1",
    adoption="selected",
    status="valid",
    protocol=None,
    score_type=None,
    **cells,
) -> dict:
    """One attempts.csv row by column: a valid selected attempt, the track's score type and (on
    solver rows) protocol offline; every other declared column its skeleton cell, or ``cells``."""
    skeleton = {name: column.skeleton or "" for name, column in ATTEMPTS_COLUMNS.items()}
    return {
        **skeleton,
        "model": model,
        "track": track,
        "item": item,
        "attempt": str(attempt),
        "score": str(score),
        "adoption_status": adoption,
        "score_status": status,
        "score_type": score_type or TRACK_SCORE_TYPE.get(track, "original_task_score"),
        "solver_protocol": protocol if protocol is not None else ("offline" if track == "solver" else ""),
        **cells,
    }


def full_rows(model="m", scores=None) -> list[dict]:
    """One selected, valid attempt per task of MINI_SUITE (scores per item override the defaults)."""
    defaults = {"t1": 1, "t2": 0, "s1": 0.25, "s2": 0.5, "c1": 1.2, "c2": 0.4, "o1": 0}
    defaults.update(scores or {})
    return [row(model=model, track=t["track"], item=t["item"], score=defaults[t["item"]]) for t in MINI_SUITE["tasks"]]


# Records that score both solver tasks of MINI_SUITE 0.25 by hand: s1's 'a' at its mean (Phi(0) = 0.5)
# and 'b' timed out (0); s2's 'x' timed out and 'y' solved at its mean 1 (0.5): (0.5 + 0) / 2 each.
CHECKED_RECORDS = {
    "s1": [{"instance": "a", "status": "ok", "A": 12}, {"instance": "b", "status": "timeout"}],
    "s2": [{"instance": "x", "status": "timeout"}, {"instance": "y", "status": "ok", "solved": True}],
}


def checked_rows(model="m", scores=None) -> list[dict]:
    """``full_rows`` whose solver scores are those of CHECKED_RECORDS (``Workspace.write_checked_run``)."""
    return full_rows(model, {"s1": 0.25, "s2": 0.25, **(scores or {})})


def csv_text(rows: list[dict], columns=COLUMNS) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n", extrasaction="ignore")
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


class Workspace:
    """A benchmark folder and a run folder under tmp_path."""

    def __init__(self, root: Path):
        self.root = root
        self.bench = root / "bench"
        self.run = root / "run"
        self.out = root / "out" / "index.json"
        self.write_json(self.bench / "suites" / "lite.json", MINI_SUITE)
        self.write_json(self.bench / "references" / "ref-test" / "lite.json", MINI_REFERENCE)
        self.cohort = {
            "suite": "lite",
            "solver_protocol": "offline",
            "solver_reference_id": "ref-test",
            "adoption_rule": "first valid attempt",
            "models": {"m": {"attempts_per_task": 1}},
        }
        self.write_cohort()

    @staticmethod
    def write_json(path: Path, obj) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(obj), encoding="utf-8")
        return path

    def write_cohort(self, **changes) -> None:
        self.cohort.update(changes)
        self.write_json(self.run / "cohort.json", self.cohort)

    def write_rows(self, rows: list[dict], columns=COLUMNS) -> Path:
        path = self.run / "attempts.csv"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(csv_text(rows, columns), encoding="utf-8")
        return path

    def write_records(self, model: str, item: str, attempt: str, records: list[dict]) -> Path:
        return self.write_json(self.run / "records" / model / item / f"{attempt}.json", records)

    def write_checked_run(self, rows: list[dict] | None = None, models=("m",)) -> Path:
        """A run with nothing to report: ``checked_rows`` of each model (or ``rows``) and the records
        files that check their solver scores (docs/rules.md#rows-and-records)."""
        for model in models:
            for item, records in CHECKED_RECORDS.items():
                self.write_records(model, item, "1", records)
        return self.write_rows(rows if rows is not None else [r for m in models for r in checked_rows(m)])

    def score_args(self, *extra: str) -> list[str]:
        return ["score", str(self.run), "--benchmark", str(self.bench), "--output", str(self.out), *extra]

    def load(self, thresholds=None):
        from tcsexam.scoring.pipeline.index import build_index
        from tcsexam.scoring.pipeline.run import load_run, resolve_run_paths

        run = load_run(resolve_run_paths(str(self.run), benchmark=str(self.bench)))
        return build_index(run, thresholds)


def online_copy(target: Path) -> Path:
    """The demo with solver protocol online, atlas-70b's first thm-sensitivity attempt failed (0) and
    cirrus-mini renamed delta-mini."""
    shutil.copytree(demo_run(), target)
    attempts = target / "attempts.csv"
    lines = []
    for line in attempts.read_text().splitlines(keepends=True):
        if line.startswith("atlas-70b,theorem,thm-sensitivity,1,1,"):
            line = line.replace("thm-sensitivity,1,1,", "thm-sensitivity,1,0,", 1)
        lines.append(line.replace(",offline,", ",online,").replace("cirrus-mini", "delta-mini"))
    attempts.write_text("".join(lines))
    cohort = target / "cohort.json"
    cohort.write_text(cohort.read_text().replace('"offline"', '"online"').replace("cirrus-mini", "delta-mini"))
    (target / "records" / "cirrus-mini").rename(target / "records" / "delta-mini")
    return target


def to_dir_format(source: Path, folder: Path) -> Path:
    """What `tau2 convert-results PATH --to dir` writes (tau2-bench's Results.save(format="dir")):
    results.json without `simulations`, with a `simulation_index`, and simulations/<id>.json."""
    raw = json.loads(source.read_text())
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "simulations").mkdir()
    meta = {k: v for k, v in raw.items() if k != "simulations"}
    meta["simulation_index"] = [
        {
            "id": s["id"],
            "task_id": s["task_id"],
            "trial": s["trial"],
            "reward": s["reward_info"]["reward"] if s["reward_info"] else None,
            "termination_reason": s["termination_reason"],
            "agent_cost": s.get("agent_cost"),
            "duration": s.get("duration"),
        }
        for s in raw["simulations"]
    ]
    (folder / "results.json").write_text(json.dumps(meta, indent=2))
    for s in raw["simulations"]:
        (folder / "simulations" / f"{s['id']}.json").write_text(json.dumps(s, indent=2))
    return folder
