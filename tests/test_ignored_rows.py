"""Ignored rows (docs/rules.md#aggregation, last rules): a row of a model outside the cohort or an item outside the suite is
not aggregated, but never dropped without a word. A row whose name is close to a cohort model or a suite
item (difflib ratio >= 0.8) is a likely typo: index.json names the close name (``did_you_mean``),
``validate`` and ``score`` print it as a warning, and ``validate`` never reads "no problems" with ignored
rows about."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from tcsexam.scoring.pipeline.benchmark import sample_root
from tests.support.runs import checked_rows, row

BENCH = str(sample_root() / "benchmark")
ITEM_TYPO = "warning: atlas-70b: thm-sensitivty attempt 2 (line 3): ignored row: item not in suite 'lite'; did you mean 'thm-sensitivity'?"
MODEL_TYPO = (
    "warning: atlas-7b: thm-sensitivity attempt 3 (line 4): ignored row: model not in cohort; did you mean 'atlas-70b'?"
)
DEMO_EXTRA = "ignored row: atlas-70b-draft: thm-sensitivity attempt 1 (line 103): model not in cohort"


def with_typos(run: Path) -> Path:
    """The demo with two typos: an item on line 3 and a model on line 4 (both thm-sensitivity rows of
    atlas-70b); the demo's own ignored row (line 103, 'atlas-70b-draft') stays."""
    path = run / "attempts.csv"
    lines = path.read_text().split("\n")
    assert lines[2].startswith("atlas-70b,theorem,thm-sensitivity,2,") and lines[3].startswith(
        "atlas-70b,theorem,thm-sensitivity,3,"
    )
    lines[2] = lines[2].replace("thm-sensitivity", "thm-sensitivty")
    lines[3] = lines[3].replace("atlas-70b", "atlas-7b", 1)
    path.write_text("\n".join(lines))
    return run


def test_index_json_names_the_close_name_of_a_typo_and_nothing_for_a_far_one(demo_copy, cli, tmp_path):
    out = tmp_path / "index.json"
    assert cli("score", str(with_typos(demo_copy)), "--benchmark", BENCH, "--output", str(out))[0] == 3
    ignored = json.loads(out.read_text())["ignored_rows"]
    assert ignored["count"] == 3
    assert ignored["items_outside_suite"] == {"thm-sensitivty": 1}
    assert ignored["models_outside_cohort"] == {"atlas-7b": 1, "atlas-70b-draft": 1}
    by_line = {r["line"]: r for r in ignored["rows"]}
    assert by_line[3]["reason"] == "item not in suite 'lite'" and by_line[3]["did_you_mean"] == "thm-sensitivity"
    assert by_line[4]["reason"] == "model not in cohort" and by_line[4]["did_you_mean"] == "atlas-70b"
    # 'atlas-70b-draft' against 'atlas-70b': ratio 2*9/24 = 0.75, below the cutoff: a model of its own
    assert "did_you_mean" not in by_line[103]


def test_the_demos_ignored_row_has_no_suggestion(cli, tmp_path):
    from tcsexam.scoring.pipeline.benchmark import demo_run

    out = tmp_path / "index.json"
    assert cli("score", str(demo_run()), "--benchmark", BENCH, "--output", str(out))[0] == 3
    (only,) = json.loads(out.read_text())["ignored_rows"]["rows"]
    assert only == {
        "line": 103,
        "model": "atlas-70b-draft",
        "track": "theorem",
        "item": "thm-sensitivity",
        "attempt": "1",
        "reason": "model not in cohort",
    }


def test_validate_warns_of_each_typo_and_never_says_no_problems(demo_copy, cli):
    code, out, err = cli("validate", str(with_typos(demo_copy)), "--benchmark", BENCH)
    assert code == 3
    lines = out.splitlines()
    assert lines[0].startswith("no rejections; 3 ignored rows (see below): "), lines[0]
    assert "no problems" not in out
    assert ITEM_TYPO in lines and MODEL_TYPO in lines and DEMO_EXTRA in lines


def test_validate_of_one_ignored_row_says_so_in_the_singular(ws, cli):
    ws.write_checked_run(checked_rows() + [row(model="stranger", item="t1")])
    out = cli("validate", str(ws.run), "--benchmark", str(ws.bench))[1]
    assert (
        out.splitlines()[0] == "no rejections; 1 ignored row (see below): 8 rows, 1 model, status complete, 1 finding"
    )
    assert out.splitlines()[1] == "ignored row: stranger: t1 attempt 1 (line 9): model not in cohort"


@pytest.mark.parametrize("to_stdout", [False, True])
def test_score_prints_the_warnings_on_stderr_and_the_command_that_lists_every_ignored_row(
    demo_copy, cli, tmp_path, to_stdout
):
    run = str(with_typos(demo_copy))
    target = "-" if to_stdout else str(tmp_path / "index.json")
    code, out, err = cli("score", run, "--benchmark", BENCH, "--output", target)
    assert code == 3
    errors = err.splitlines()
    assert ITEM_TYPO in errors and MODEL_TYPO in errors
    assert DEMO_EXTRA not in err + out  # only the likely typos are warnings; validate lists the rest
    summary = errors if to_stdout else out.splitlines()  # the summary goes to stderr with --output -
    hint = f"run `tcsexam validate {shlex.join([run, '--benchmark', BENCH])}` to list them"
    assert f"ignored rows (models outside the cohort, items outside the suite): 3; {hint}" in summary
    if to_stdout:
        assert json.loads(out)["ignored_rows"]["count"] == 3


def test_score_without_ignored_rows_says_nothing_of_them(ws, cli):
    ws.write_checked_run()
    code, out, err = cli(*ws.score_args())
    assert code == 0 and err == "" and not [line for line in out.splitlines() if "ignored rows" in line]


async def test_the_dashboards_coverage_issues_show_the_typo_as_a_warning(demo_copy):
    from textual.widgets import DataTable

    from tcsexam.tui.app import create_app
    from tcsexam.tui.state import DashboardConfig
    from tests.support.dashboard import settle

    app = create_app(DashboardConfig(run_dir=str(with_typos(demo_copy)), benchmark=BENCH))
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await pilot.pause()
        issues = app.main.query_one("#issues-table", DataTable)
        shown = [[str(c) for c in issues.get_row_at(i)] for i in range(issues.row_count)]
        assert [
            "atlas-70b",
            "thm-sensitivty",
            "2",
            "warning",
            "line 3: ignored row: item not in suite 'lite'; did you mean 'thm-sensitivity'?",
        ] in shown
        assert [
            "atlas-7b",
            "thm-sensitivity",
            "3",
            "warning",
            "line 4: ignored row: model not in cohort; did you mean 'atlas-70b'?",
        ] in shown
