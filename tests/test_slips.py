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


# --- a judge score typed in while score_status is still the skeleton's 'missing' -------------------


def test_a_score_left_with_status_missing_is_told_to_set_it_to_valid(tmp_path, cli):
    """docs/rules.md#aggregation: the row is incomplete, and validate names the fix on its line."""
    run = tmp_path / "r"
    run.mkdir()
    shutil.copy(demo_run() / "cohort.json", run / "cohort.json")
    assert cli("init", str(run))[0] == 0
    lines = (run / "attempts.csv").read_text().splitlines(keepends=True)
    assert lines[1].startswith("atlas-70b,theorem,thm-sensitivity,1,,selected,missing,")
    lines[1] = lines[1].replace(",1,,selected,missing,", ",1,1,selected,missing,", 1)
    (run / "attempts.csv").write_text("".join(lines))
    code, out, _ = cli("validate", str(run))
    assert code == 3
    hinted = [x for x in out.splitlines() if "(line 2)" in x]
    assert hinted == [
        "incomplete: atlas-70b: thm-sensitivity attempt 1 (line 2): "
        "line 2 has a score but score_status 'missing': set it to valid"
    ]
    unfilled = [x for x in out.splitlines() if "(line 3)" in x]  # no score typed: as before
    assert unfilled and unfilled[0].endswith("adopted attempt is 'missing': its result is not there yet")


# --- a pass^k threshold outside its track's range ----------------------------------------------------


def test_a_threshold_outside_its_tracks_range_is_a_usage_error(tmp_path, cli):
    """docs/rules.md#passk: solver=50 (a percentage) would make every solver pass^k 0."""
    run = tmp_path / "d"
    shutil.copytree(demo_run(), run)
    out = tmp_path / "th.json"
    for threshold, shown in (
        ("solver=50", "[0, 1], got 50 (a percentage? write 0.5)"),
        ("theorem=1.5", "[0, 1], got 1.5"),
        ("conjecture=-0.1", "[0, 1], got -0.1"),
        ("construction=-1", ">= 0, got -1"),
    ):
        code, _, err = cli("score", str(run), "--threshold", threshold, "--output", str(out))
        track = threshold.split("=")[0]
        assert code == 2 and f"threshold of {track} must lie in its scores' range {shown}" in err, err
        assert not out.exists()
    code, _, _ = cli(
        "score", str(run), "--threshold", "construction=2.5", "--threshold", "solver=1", "--output", str(out)
    )
    assert (
        code == 3
        and json.loads(out.read_text())["models"]["atlas-70b"]["pass_hat_k"]["construction"]["threshold"] == 2.5
    )


# --- tcsexam tui inside a run folder ----------------------------------------------------------------


def test_tui_with_no_run_dir_opens_the_current_folder_when_it_holds_a_run(tmp_path, monkeypatch):
    """docs/dashboard.md: '.' when it holds cohort.json, the bundled demo only where it holds none."""
    from pathlib import Path

    from tui.cli import build_parser, config_from_args
    from tui.state import resolve_paths, run_name, uses_demo

    run = tmp_path / "own"
    shutil.copytree(demo_run(), run)
    monkeypatch.chdir(run)
    config = config_from_args(build_parser().parse_args(["tui"]))
    assert config.run_dir == "." and not uses_demo(config) and run_name(config) == "own"
    assert resolve_paths(config).cohort == Path("cohort.json")

    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.chdir(empty)
    config = config_from_args(build_parser().parse_args(["tui"]))
    assert config.run_dir is None and uses_demo(config)
    assert resolve_paths(config).cohort == demo_run() / "cohort.json"
