"""A newcomer's slips never become a number in silence: rows and records that do not line up,
compare of an incomplete model, score's default output, a typed score left 'missing', the dashboard
opened inside a run, a threshold outside its track's range, the planner's clipped variance."""

from __future__ import annotations

import json
import shutil

from scoring.pipeline.benchmark import demo_run

# --- score writes beside the run it scores ---------------------------------------------------------


def test_score_without_output_writes_into_the_runs_own_build_folder(tmp_path, cli, monkeypatch):
    """docs/commands.md#score: two runs scored from one folder keep one index.json each."""
    for name in ("run-a", "run-b"):
        shutil.copytree(demo_run(), tmp_path / name)
    (tmp_path / "run-b" / "cohort.json").write_text(
        (tmp_path / "run-b" / "cohort.json").read_text().replace("cirrus-mini", "delta-mini")
    )
    (tmp_path / "run-b" / "attempts.csv").write_text(
        (tmp_path / "run-b" / "attempts.csv").read_text().replace("cirrus-mini", "delta-mini")
    )
    shutil.move(tmp_path / "run-b" / "records" / "cirrus-mini", tmp_path / "run-b" / "records" / "delta-mini")
    monkeypatch.chdir(tmp_path)
    code_a, out_a, _ = cli("score", "run-a")
    code_b, out_b, _ = cli("score", "run-b")
    assert (code_a, code_b) == (3, 3)
    assert not (tmp_path / "build").exists()
    a = json.loads((tmp_path / "run-a" / "build" / "index.json").read_text())
    b = json.loads((tmp_path / "run-b" / "build" / "index.json").read_text())
    assert "cirrus-mini" in a["models"] and "delta-mini" in b["models"]
    assert "run-a/build/index.json" in out_a and "run-b/build/index.json" in out_b
