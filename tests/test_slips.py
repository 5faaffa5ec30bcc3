"""A newcomer's slips never become a number in silence: rows and records that do not line up,
compare of an incomplete model, score's default output, a typed score left 'missing', the dashboard
opened inside a run, a threshold outside its track's range, the planner's clipped variance."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from tcsexam.scoring.pipeline.benchmark import demo_run

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

    from tcsexam.tui.cli import build_parser, config_from_args
    from tcsexam.tui.state import resolve_paths, run_name, uses_demo

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


# --- rows and records that do not line up -----------------------------------------------------------

from tcsexam.scoring.pipeline.lineup import NOT_LINED_UP  # noqa: E402
from tcsexam.scoring.vocab import NOT_CHECKED  # noqa: E402
from tests.support.runs import full_rows, row  # noqa: E402

AT_MU = [{"instance": "a", "status": "ok", "A": 12}, {"instance": "b", "status": "ok", "A": 100}]  # Phi 0.5, 0.5
ABOVE = [{"instance": "a", "status": "ok", "A": 14}, {"instance": "b", "status": "ok", "A": 100}]  # Phi(1), 0.5
ABOVE_SCORE = (0.8413447460685429 + 0.5) / 2


def solver_rows(attempts_and_scores, model="m", item="s1") -> list[dict]:
    return [row(model=model, track="solver", item=item, attempt=a, score=s) for a, s in attempts_and_scores]


def mini_rows(s1_rows: list[dict]) -> list[dict]:
    """MINI_SUITE's tasks for model m, one attempt each, with ``s1_rows`` in place of s1's row."""
    rows = [r for r in full_rows() if r["item"] != "s1"]
    return rows[:2] + s1_rows + rows[2:]


def write_s2_records(ws, cli, model="m") -> None:
    """Records of s2's attempt 1, and its score filled in from them (tcsexam fill)."""
    ws.write_records(
        model, "s2", "1", [{"instance": "x", "status": "ok", "A": 1}, {"instance": "y", "status": "ok", "A": 1}]
    )
    code, _, err = cli("fill", str(ws.run), "--benchmark", str(ws.bench), "--overwrite")
    assert code == 0, err


def validate_lines(cli, ws, *extra) -> tuple[int, list[str], str]:
    code, out, err = cli("validate", str(ws.run), "--benchmark", str(ws.bench), *extra)
    return code, out.splitlines()[1:], err


def test_an_attempt_written_1_0_names_the_records_file_it_leaves_unused(ws, cli):
    """docs/rules.md#rows-and-records: '1.0' (pandas) with any score, records/m/s1/1.json beside it."""
    ws.write_rows(mini_rows(solver_rows([("1.0", 0.99)])))
    ws.write_records("m", "s1", "1", AT_MU)
    code, lines, _ = validate_lines(cli, ws)
    assert code == 0
    unused = [x for x in lines if x.startswith("unused records: ")]
    assert unused == [
        "unused records: m: s1 attempt 1: records/m/s1/1.json is used by no adopted row: there is no attempt '1' "
        f"among the adopted rows '1.0' (1 planned): {NOT_LINED_UP} (row '1.0' for file '1.json'?)"
    ]
    (s1,) = [x for x in lines if x.startswith("warning: m: s1 attempt 1.0 (line 4): ")]
    assert f"{NOT_CHECKED}: no records file records/m/s1/1.0.json" in s1
    assert f"records/m/s1/1.json is there: {NOT_LINED_UP}" in s1
    (s2,) = [x for x in lines if x.startswith("warning: m: s2 attempt 1 (line 5): ")]  # typed in, no records
    assert NOT_CHECKED in s2 and NOT_LINED_UP not in s2

    code, _, err = cli(*ws.score_args())
    assert code == 0 and unused[0][len("unused records: m: s1 attempt 1: ") :] in err
    assert "warning: m: 2 valid solver scores not checked against records (tcsexam validate says why)" in err
    document = json.loads(ws.out.read_text())
    assert document["unused_records"] == [
        {
            "file": "m/s1/1.json",
            "model": "m",
            "item": "s1",
            "attempt": "1",
            "reason": "there is no attempt '1' among the adopted rows '1.0' (1 planned): "
            f"{NOT_LINED_UP} (row '1.0' for file '1.json'?)",
            "near": ["1.0"],
        }
    ]
    assert [i["line"] for i in document["models"]["m"]["issues"] if i["message"].startswith(NOT_CHECKED)] == [4, 5]


def test_strict_turns_every_finding_into_exit_1_and_score_writes_nothing(ws, cli):
    """docs/commands.md#validate: for CI pipelines."""
    ws.write_rows(mini_rows(solver_rows([("1.0", 0.99)])))
    ws.write_records("m", "s1", "1", AT_MU)
    code, lines, err = validate_lines(cli, ws, "--strict")
    assert code == 1 and len(lines) == 3 and "rejected by --strict: 3 findings" in err
    code, out, err = cli(*ws.score_args("--strict"))
    assert code == 1 and not ws.out.exists() and "rejected by --strict: 3 findings; nothing written" in err
    assert "records/m/s1/1.json is used by no adopted row" in err

    ws.write_rows(mini_rows(solver_rows([("1", 0.5)])))  # lined up, every solver row checked against records
    write_s2_records(ws, cli)
    assert validate_lines(cli, ws, "--strict")[:2] == (0, [])
    assert cli(*ws.score_args("--strict"))[0] == 0 and ws.out.exists()


def test_records_outside_the_cohort_the_plan_or_the_solver_track_are_each_named(ws, cli):
    ws.cohort["models"]["m"]["attempts_per_item"] = {"s1": 3}
    ws.write_cohort()
    ws.write_rows(mini_rows(solver_rows([("1", 0.5), ("2", 0.5), ("3", 0.5), ("4", 0.5)])[:3]))
    for attempt in ("1", "2", "3", "7"):
        ws.write_records("m", "s1", attempt, AT_MU)
    ws.write_records("m-v9", "s1", "1", AT_MU)  # a model not in the cohort
    ws.write_records("M", "s1", "9", AT_MU)  # the cohort's 'm' in another letter case
    records = ws.run / "records"
    folds = os.path.samefile(records / "M", records / "m")  # a file system that ignores case: one folder
    ws.write_records("org/m", "s1", "1", AT_MU)  # nested: the model 'org/m', not in the cohort either
    ws.write_records("m", "t1", "1", AT_MU)  # a theorem task
    ws.write_records("m", "nope", "1", AT_MU)  # not in the suite
    ws.write_json(ws.run / "records" / "m" / "stray.json", AT_MU)  # not at <model>/<item>/<attempt>.json
    (ws.run / "records" / "m" / "s1" / "notes.txt").write_text("not a records file")
    code, lines, _ = validate_lines(cli, ws)
    assert code == 0
    unused = sorted(x for x in lines if x.startswith("unused records: "))
    case = (
        "unused records: M: s1 attempt 9: records/M/s1/9.json is used by no adopted row: "
        "model 'M' is not in the cohort: the cohort's 'm' differs only in letter case (names are matched exactly)"
    )
    if folds:  # records/M/s1/9.json is records/m/s1/9.json there
        case = (
            "unused records: m: s1 attempt 9: records/m/s1/9.json is used by no adopted row: "
            "there is no attempt '9' among the adopted rows '1', '2', '3' (3 planned)"
        )
    assert case in unused
    unused.remove(case)
    assert unused == [
        "unused records: -: -: records/m/stray.json is used by no adopted row: "
        "not at records/<model>/<item>/<attempt>.json",
        "unused records: m-v9: s1 attempt 1: records/m-v9/s1/1.json is used by no adopted row: "
        "model 'm-v9' is not in the cohort",
        "unused records: m: nope attempt 1: records/m/nope/1.json is used by no adopted row: "
        "item 'nope' is not in the lite suite",
        "unused records: m: s1 attempt 7: records/m/s1/7.json is used by no adopted row: "
        "there is no attempt '7' among the adopted rows '1', '2', '3' (3 planned)",
        "unused records: m: t1 attempt 1: records/m/t1/1.json is used by no adopted row: "
        "item 't1' is not a solver task: records are read for solver tasks only",
        "unused records: org/m: s1 attempt 1: records/org/m/s1/1.json is used by no adopted row: "
        "model 'org/m' is not in the cohort",
    ]
    assert not any(NOT_LINED_UP in x for x in lines)


def test_a_records_folder_named_with_a_typo_says_which_name_was_meant(ws, cli):
    """A review made records/gtp-x/ and records/<model>/maxcut-mqlb/: the same typos in attempts.csv are
    asked about ("did you mean"); the folders' names now are too, and a solver task of another suite
    is no longer said to be no solver task."""
    ws.write_cohort(models={"gpt-x": {"attempts_per_task": 1}})
    ws.write_rows([{**r, "model": "gpt-x"} for r in mini_rows(solver_rows([("1", 0.5)]))])
    ws.write_records("gpt-x", "s1", "1", AT_MU)
    ws.write_records("gtp-x", "s1", "1", AT_MU)  # the model's name, two letters swapped
    ws.write_records("gpt-x", "s11", "1", AT_MU)  # the solver item 's1', a letter more
    code, lines, _ = validate_lines(cli, ws)
    assert code == 0
    unused = sorted(x for x in lines if x.startswith("unused records: "))
    assert unused == [
        "unused records: gpt-x: s11 attempt 1: records/gpt-x/s11/1.json is used by no adopted row: "
        "item 's11' is not in the lite suite; did you mean 's1'?",
        "unused records: gtp-x: s1 attempt 1: records/gtp-x/s1/1.json is used by no adopted row: "
        "model 'gtp-x' is not in the cohort; did you mean 'gpt-x'?",
    ]


def test_an_excluded_attempts_records_are_no_finding_and_a_model_without_records_is_one(ws, cli):
    """docs/rules.md#rows-and-records: the records of an excluded row are no finding; a model whose valid
    solver scores no records file checks is one finding (not one per row)."""
    ws.cohort["models"]["n"] = {"attempts_per_task": 1}
    ws.write_cohort()
    excluded = row(model="m", track="solver", item="s1", attempt="1", score=0.5, adoption="excluded", note="rerun")
    rows = mini_rows([excluded, *solver_rows([("2", 0.5)])]) + full_rows("n")
    ws.write_rows(rows)
    ws.write_records("m", "s1", "1", AT_MU)
    ws.write_records("m", "s1", "2", AT_MU)
    write_s2_records(ws, cli)
    code, lines, _ = validate_lines(cli, ws)
    assert code == 0 and lines == [
        "excluded: m: s1 attempt 1 (line 4): not adopted (note: rerun)",
        "warning: n: -: score not checked against records: 2 valid solver scores typed in and none checked: "
        "records/n/ holds none",
    ]


def test_attempts_numbered_from_0_are_told_that_the_names_do_not_line_up_not_to_overwrite(ws, cli):
    """The cross-check's advice (docs/rules.md#rows-and-records): fill --overwrite would write the score
    of attempt 1.json into the row of the second attempt."""
    ws.cohort["models"]["m"]["attempts_per_item"] = {"s1": 2}
    ws.write_cohort()
    ws.write_records("m", "s1", "1", AT_MU)
    ws.write_records("m", "s1", "2", ABOVE)
    ws.write_rows(mini_rows(solver_rows([("0", 0.5), ("1", ABOVE_SCORE)])))
    code, lines, err = validate_lines(cli, ws)
    assert code == 1 and lines == []
    (problem,) = [x for x in err.splitlines() if "line 5: field 'score'" in x]
    assert f"{NOT_LINED_UP} for (m, s1) (rows have attempts '0', '1'; records files 1.json, 2.json)" in problem
    assert "fill --overwrite writes" not in problem

    ws.write_rows(mini_rows(solver_rows([("1", 0.5), ("2", 0.25)])))  # names line up, a wrong score: as before
    code, _, err = validate_lines(cli, ws)
    assert code == 1 and "tcsexam fill --overwrite writes their score" in err and NOT_LINED_UP not in err


def test_the_coverage_issue_list_shows_unused_records(ws):
    from tcsexam.tui.panes.coverage.views import issue_rows

    ws.write_rows(mini_rows(solver_rows([("1.0", 0.99)])))
    ws.write_records("m", "s1", "1", AT_MU)
    ws.write_records("m-v9", "s1", "1", AT_MU)
    rows = [r for r in issue_rows(ws.load()) if r.kind == "unused records"]
    assert [(r.model, r.item, r.attempt) for r in rows] == [("m", "s1", "1"), ("m-v9", "s1", "1")]
    assert rows[0].reason.startswith("records/m/s1/1.json is used by no adopted row") and NOT_LINED_UP in rows[0].reason


def test_records_names_are_data_and_only_regular_files_count(ws, cli):
    """docs/safety.md: a FIFO named like a records file is never opened, a link to a folder never walked,
    a name that is not UTF-8 is kept as data in valid JSON."""
    import os

    ws.write_rows(mini_rows(solver_rows([("1", 0.5)])))
    ws.write_records("m", "s1", "1", AT_MU)
    write_s2_records(ws, cli)
    os.mkfifo(ws.run / "records" / "m" / "s1" / "9.json")
    outside = ws.root / "elsewhere" / "s1"
    outside.mkdir(parents=True)
    (outside / "5.json").write_text("[]")
    os.symlink(ws.root / "elsewhere", ws.run / "records" / "linked")
    odd = os.fsencode(ws.run / "records" / "m" / "s1") + b"/\xff.json"
    with open(odd, "w") as f:
        f.write("[]")
    code, _, err = cli(*ws.score_args())
    assert code == 0, err
    document = json.loads(ws.out.read_text(encoding="utf-8"))
    assert [u["file"] for u in document["unused_records"]] == ["m/s1/\\xff.json"]


# --- compare of an incomplete model; the Overview's leader among models with an index --------------------


def test_compare_of_an_incomplete_model_names_the_tasks_left_out_and_exits_3(tmp_path, cli):
    """docs/rules.md#per-task-differences: not a difference of indices."""
    run = tmp_path / "d"
    shutil.copytree(demo_run(), run)
    out = tmp_path / "cmp.json"
    code, text, _ = cli("compare", str(run), "--models", "cirrus-mini", "atlas-70b", "--output", str(out))
    assert code == 3
    assert (
        "note: cirrus-mini is incomplete (2 tasks left out: thm-ramsey-bound, con-expander): this is a difference "
        "over the 18 tasks both have scored, not a difference of indices"
    ) in text
    assert "index difference" not in text and "difference over the common tasks" in text
    result = json.loads(out.read_text())
    assert result["incomplete"] == {"cirrus-mini": ["thm-ramsey-bound", "con-expander"]}
    assert len(result["tasks"]) == 18

    code, text, _ = cli("compare", str(run), "--models", "atlas-70b", "borealis-8x22b", "--output", str(out))
    assert code == 0 and "note:" not in text.split("MDE")[0] and "index difference" in text
    assert json.loads(out.read_text())["incomplete"] == {}


def test_the_leader_line_says_it_is_among_complete_models():
    """docs/dashboard.md: 'Leader: X' over one complete model of two says so."""
    from tcsexam.tui.panes.overview.views import ranked_scope, top_line

    def doc(indices: dict) -> dict:
        ranks = {m: {"best": 1, "worst": 1} for m, v in indices.items() if v is not None}
        return {
            "models": {m: {"index": v} for m, v in indices.items()},
            "ranks": {"method": "paired-t-holm", "alpha": 0.05, "models": ranks, "pairs": []},
        }

    one_of_two = doc({"my-llm-v1": 56.86, "my-llm-v2": None})
    assert ranked_scope(one_of_two) == " among models with an index (1 of 2)"
    assert "".join(p for p, _ in top_line(one_of_two)) == (
        "Leader among models with an index (1 of 2): my-llm-v1 with 56.86 points"
    )
    assert ranked_scope(doc({"a": 50.0})) == ""
    assert "".join(p for p, _ in top_line(doc({"a": 50.0}))) == "Leader: a with 50.00 points"


# --- the planner's projection beside the run's own interval; clipped variances ----------------------

TWO_EACH = {
    "suite": "lite",
    "tasks": [
        {"item": "t1", "track": "theorem"},
        {"item": "t2", "track": "theorem"},
        {"item": "s1", "track": "solver"},
        {"item": "s2", "track": "solver"},
        {"item": "c1", "track": "construction"},
        {"item": "c2", "track": "construction"},
        {"item": "o1", "track": "conjecture"},
        {"item": "o2", "track": "conjecture"},
    ],
}
SCORES = {  # two attempts of every task; theorem: task means 0.5 and 0.5 (S² = 0) under attempt noise s_w² = 0.5
    "t1": (1, 0),
    "t2": (0, 1),
    "s1": (0.2, 0.3),
    "s2": (0.8, 0.9),
    "c1": (1.0, 1.2),
    "c2": (0.2, 0.4),
    "o1": (1, 1),
    "o2": (0, 0),
}


def two_attempt_run(ws, models: dict[str, dict]) -> None:
    ws.write_json(ws.bench / "suites" / "lite.json", TWO_EACH)
    ws.write_cohort(models={m: {"attempts_per_task": 2} for m in models})
    track = {t["item"]: t["track"] for t in TWO_EACH["tasks"]}
    ws.write_rows(
        [
            row(model=m, track=track[item], item=item, attempt=str(k + 1), score=s)
            for m, scores in models.items()
            for item, pair in scores.items()
            for k, s in enumerate(pair)
        ]
    )


def test_plan_shows_the_observed_half_width_and_that_a_clipped_sigma_b2_makes_it_conservative(ws, cli):
    """docs/rules.md#planning-attempts: theorem's S² = 0 < s_w²·mean(1/r) = 0.25, so σ_b² is clipped at 0."""
    two_attempt_run(ws, {"m": SCORES})
    out = ws.root / "plan.json"
    code, text, err = cli("plan", str(ws.run), "--benchmark", str(ws.bench), "--output", str(out))
    assert code == 0, err
    plan = json.loads(out.read_text())["models"]["m"]
    assert plan["tracks"]["theorem"]["sigma_b2"] == 0.0 and plan["clipped"] == ["theorem"]
    index = ws.load()["models"]["m"]["ci"]["index"]
    assert plan["observed"] == {"half_width": index["hi"] - index["value"], "attempts": 2}
    assert (
        f"  observed: index 95% half-width {plan['observed']['half_width']:.2f} at r=2 (the run's own interval)" in text
    )
    assert "  note: σ_b² clipped at 0 for theorem (task means vary less than attempt noise predicts): " in text
    assert "the projection is conservative" in text


def test_compare_notes_a_clipped_between_task_variance_in_its_mde(ws, cli):
    """The same task means for both models on theorem: S_d² = 0 < the attempt noise, σ_bd² clipped at 0."""
    other = {**SCORES, "t1": (0, 1), "t2": (1, 0), "s1": (0.1, 0.5), "s2": (0.6, 0.9)}
    two_attempt_run(ws, {"m": SCORES, "n": other})
    out = ws.root / "cmp.json"
    code, text, err = cli(
        "compare", str(ws.run), "--benchmark", str(ws.bench), "--models", "m", "n", "--output", str(out)
    )
    assert code == 0, err
    result = json.loads(out.read_text())
    assert "theorem" in result["mde_clipped"]
    assert f"note: σ_bd² clipped at 0 for {', '.join(result['mde_clipped'])} " in text
    assert "the MDE is conservative" in text


async def test_the_compare_pane_says_an_incomplete_model_leaves_tasks_out():
    """docs/dashboard.md: the Compare tab says what `tcsexam compare` says of an incomplete model."""
    from textual.widgets import Static

    from tcsexam.tui.app import create_app
    from tcsexam.tui.panes.compare.pane import ComparePane
    from tests.support.dashboard import settle, wait_until

    app = create_app()
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        await pilot.press("5")
        await settle(pilot)
        app.query_one(ComparePane).choose("cirrus-mini", "atlas-70b")

        def verdict() -> str:
            return str(app.query_one("#compare-verdict", Static).render())

        await wait_until(pilot, lambda: "incomplete" in verdict(), lambda: f"the verdict says {verdict()!r}")
        assert (
            "cirrus-mini is incomplete (2 tasks left out: thm-ramsey-bound, con-expander): this is a difference "
            "over the 18 tasks both have scored, not a difference of indices. Difference over the common tasks "
        ) in verdict().replace("\n", " ")
        assert "Index difference" not in verdict()


@pytest.mark.parametrize("written", ["NaN", "Infinity", "-Infinity"])
def test_a_nan_written_by_json_dump_is_named_with_what_to_write(ws, cli, written):
    """Python's json.dump writes a float nan as NaN (no JSON reader takes it): the message names it and
    says to write null, where it said only 'invalid character'."""
    ws.write_checked_run()
    path = ws.run / "records" / "m" / "s1" / "1.json"
    path.write_text(path.read_text().replace('"A": 12', f'"A": {written}'))
    assert written in path.read_text()
    code, out, err = cli("validate", str(ws.run), "--benchmark", str(ws.bench))
    word = written.lstrip("-")
    assert code == 1 and "1.json: line 1 column" in err, err
    assert f"invalid JSON: {word} is not a JSON value (Python's json.dump writes it for a float nan or inf): " in err
    assert "write null where there is no number" in err


def test_a_records_folder_that_only_looks_like_a_cohort_model_says_how_they_are_written(ws, cli):
    """'café' as one character in cohort.json, as 'e' and an accent in the folder's name (as a copy from
    macOS may write it): the hint names the model and how the two differ, not a name that reads the same."""
    composed, decomposed = "caf\u00e9", "cafe\u0301"
    ws.write_cohort(models={composed: {"attempts_per_task": 1}})
    ws.write_rows([{**r, "model": composed} for r in mini_rows(solver_rows([("1", 0.5)]))])
    ws.write_records(composed, "s1", "1", AT_MU)
    ws.write_records(decomposed, "s1", "1", AT_MU)
    code, lines, _ = validate_lines(cli, ws)
    assert code == 0
    (line,) = [x for x in lines if x.startswith("unused records: ")]
    assert line.endswith(
        f"is not in the cohort; did you mean '{composed}'? ('cafe\\u0301' and 'caf\\xe9' look the same but are "
        "written with other characters)"
    ), line


@pytest.mark.parametrize(
    ("data", "message"),
    [(b'{"a" NaN}', "expected ':'"), (b"{NaN: 1}", "object keys must be strings"), (b'{"a": "NaN"', "truncated")],
)
def test_the_nan_hint_is_given_only_where_a_value_was_expected(data, message):
    """The hint replaces the decoder's 'invalid character' only: a missing ':' or a key stays named as it is."""
    import msgspec

    from tcsexam.scoring.formats.decode import syntax_problem

    with pytest.raises(msgspec.DecodeError) as info:
        msgspec.json.decode(data)
    problem = syntax_problem(info.value, data, "f.json")
    assert message in problem.message and "write null" not in problem.message, problem.message
