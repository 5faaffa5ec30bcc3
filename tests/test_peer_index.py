"""The columnar peer that tests/bench/bench_peer.py times `score` against does the same job: its index
and status per model equal those of index.json, on the demo and on generated runs (the peer is a
yardstick, not a second scorer: were it to compute less, the ratio would flatter it)."""

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from tcsexam.scoring.pipeline.benchmark import demo_run, sample_root
from tests.bench.synth import write_cohort, write_run

pytest.importorskip("polars")
from tests.bench.peer_index import peer_index  # needs polars

ROOT = Path(__file__).resolve().parent.parent


def _score(run: Path, bench: Path, out: Path) -> dict:
    cmd = [sys.executable, "-m", "tcsexam", "score", str(run), "--benchmark", str(bench), "--output", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode in (0, 3), proc.stderr  # 3: a run with an incomplete model
    return json.loads(out.read_text(encoding="utf-8"))["models"]


def _same(scored: dict, peer: dict) -> None:
    assert set(scored) == set(peer)
    for name, model in scored.items():
        assert peer[name]["status"] == model["status"], name
        if model["index"] is None:
            assert peer[name]["index"] is None, name
        else:
            assert math.isclose(peer[name]["index"], model["index"], rel_tol=1e-12, abs_tol=1e-12), name
        assert peer[name]["track_means"] == pytest.approx(model["track_means"], rel=1e-12, abs=1e-12), name


def test_the_peer_agrees_with_score_on_the_demo(tmp_path):
    scored = _score(demo_run(), sample_root() / "benchmark", tmp_path / "index.json")
    assert {m["status"] for m in scored.values()} == {"complete", "provisional", "incomplete"}
    _same(scored, peer_index(demo_run(), sample_root() / "benchmark"))


@pytest.mark.parametrize("shape", ["cohort", "run"])
def test_the_peer_agrees_with_score_on_generated_runs(tmp_path, shape):
    if shape == "cohort":
        made = write_cohort(tmp_path / "c", models=40, seed=3)
        run, bench = Path(made["run"]), Path(made["benchmark"])
    else:  # several attempts a task, records beside the table (the peer reads the table's scores alone)
        write_run(tmp_path / "r", models=4, attempts=3, seed=3)
        run, bench = tmp_path / "r", sample_root() / "benchmark"
    _same(_score(run, bench, tmp_path / "index.json"), peer_index(run, bench))
