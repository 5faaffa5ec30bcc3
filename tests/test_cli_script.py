"""The command line a researcher scripts against (docs/commands.md; issue 14 item 5): validate's findings
by kind on stdout, ``--output -``, help on every option with examples and exit codes, ASCII text
with the dashboard's decimals, solver-score's reference defaults."""

from __future__ import annotations

import argparse
import json
import shutil
import unicodedata

import pytest

from tcsexam.scoring.pipeline.benchmark import demo_run
from tests.support.runs import MINI_REFERENCE, full_rows, row
from tests.support.runs import TAU2_DATA as TAU2


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def full_parser() -> argparse.ArgumentParser:
    from tcsexam.tui.cli import build_parser

    return build_parser()


# --- validate ------------------------------------------------------------------------------


def test_validate_prints_every_finding_with_its_kind_on_stdout(ws, cli):
    rows = full_rows()
    rows[0]["adoption_status"] = "selected_provisional"  # t1: provisional
    rows[1]["score_status"], rows[1]["score"] = "judge_failed", ""  # t2: incomplete
    rows.append(
        row(track="construction", item="c1", attempt="2", score="0.1", adoption="excluded")
    )  # no note: a warning
    rows.append(row(track="conjecture", item="o1", attempt="2", score="1", adoption="excluded", note="judge crashed"))
    rows.append(row(model="stranger", item="t1"))  # outside the cohort: ignored
    rows = [r for r in rows if r["item"] != "c2"]  # c2: a planned attempt missing
    ws.write_rows(rows)
    code, out, err = cli("validate", str(ws.run), "--benchmark", str(ws.bench))
    assert code == 3 and err == ""
    lines = out.splitlines()
    assert lines[0] == "no rejections; 1 ignored row (see below): 9 rows, 1 model, status incomplete, 8 findings"
    assert sorted(lines[1:]) == sorted(
        [
            "incomplete: m: t2 attempt 1 (line 3): adopted attempt is 'judge_failed': its result is not there yet",
            "incomplete: m: c2: 1 of 1 planned attempts missing",
            "warning: m: c1 attempt 2 (line 8): excluded attempt without a note saying why it was replaced",
            "provisional: m: t1 attempt 1 (line 2): adopted as selected_provisional",
            "excluded: m: c1 attempt 2 (line 8): not adopted (no note)",
            "excluded: m: o1 attempt 2 (line 9): not adopted (note: judge crashed)",
            "ignored row: stranger: t1 attempt 1 (line 10): model not in cohort",
            "warning: m: -: score not checked against records: 2 valid solver scores typed in and none checked: "
            "the run has no records/ folder",
        ]
    )
    kinds = {line.split(": ", 1)[0] for line in lines[1:]}  # the kind is the first field, for scripts
    assert kinds == {"incomplete", "warning", "provisional", "excluded", "ignored row"}


def test_validate_of_a_clean_run_has_no_findings_and_rejected_input_goes_to_stderr(ws, cli):
    ws.write_checked_run()
    code, out, err = cli("validate", str(ws.run), "--benchmark", str(ws.bench))
    assert (code, out, err) == (0, "no problems: 7 rows, 1 model, status complete, 0 findings\n", "")
    rows = full_rows()
    rows[0]["score"] = "0.5"  # a theorem score must be 0 or 1
    ws.write_rows(rows)
    code, out, err = cli("validate", str(ws.run), "--benchmark", str(ws.bench))
    assert code == 1 and out == "" and "line 2: field 'score'" in err
    # the findings need an accepted run: the last line says when they come, which score does not
    assert err.splitlines()[-1] == (
        "validate lists the run's findings (missing, provisional or excluded attempts, warnings) "
        "once nothing is rejected"
    )
    assert "findings" not in cli("score", str(ws.run), "--benchmark", str(ws.bench), "--output", "-")[2]


def test_validate_escapes_control_characters_of_names(ws, cli):
    ws.write_rows(full_rows() + [row(model="evil\x1b[2J", item="t1")])
    out = cli("validate", str(ws.run), "--benchmark", str(ws.bench))[1]
    assert "\x1b" not in out and "ignored row: evil\\x1b[2J: t1 attempt 1 (line 9): model not in cohort" in out


# --- --output - ------------------------------------------------------------------------------


def test_score_output_dash_writes_the_document_alone_to_stdout(ws, cli):
    ws.write_rows(full_rows())
    code, out, err = cli(*ws.score_args()[:-2], "--output", "-")
    assert code == 0 and not ws.out.exists()
    doc = json.loads(out)  # nothing but the document on stdout
    assert doc["models"]["m"]["index"] == 30 * 0.5 + 30 * 0.375 + 30 * 0.8 + 10 * 0
    assert "complete: index.json written to standard output" in err
    assert cli(*ws.score_args())[0] == 0
    on_disk = json.loads(ws.out.read_text())
    for d in (doc, on_disk):
        d["provenance"].pop("generated_at")
    assert doc == on_disk


def test_every_command_with_output_takes_dash(ws, cli, tmp_path):
    records = ws.write_json(
        tmp_path / "s1.json", [{"instance": "a", "status": "ok", "A": 12}, {"instance": "b", "status": "ok", "A": 100}]
    )
    code, out, err = cli(
        "solver-score", "--task", "s1", "--records", str(records), "--benchmark", str(ws.bench), "--output", "-"
    )
    assert code == 0 and json.loads(out)["task"] == "s1" and "relative_score" in err
    code, out, _ = cli("tau2", str(TAU2 / "derived" / "minimal_2x2_example.json"), "--output", "-")
    assert code == 0 and json.loads(out)["num_tasks"] == 2
    ws.write_rows(full_rows() + full_rows(model="n", scores={"t1": 0}))
    ws.write_cohort(models={"m": {"attempts_per_task": 1}, "n": {"attempts_per_task": 1}})
    code, out, _ = cli("compare", str(ws.run), "--benchmark", str(ws.bench), "--models", "m", "n", "--output", "-")
    assert code == 0 and json.loads(out)["tracks"]["theorem"]["mean"] == (1 - 0 + 0 - 0) / 2
    assert cli(*ws.score_args())[0] == 0
    code, out, _ = cli("table", str(ws.out), "--format", "csv", "--output", "-")
    assert code == 0 and out.startswith("suite,solver_protocol,")
    code, out, _ = cli("diff", str(ws.out), str(ws.out), "--output", "-")
    assert code == 0 and json.loads(out)["added"] == []
    code, out, _ = cli("schema", "plan", "--output", "-")
    assert code == 0 and json.loads(out)["$schema"].endswith("2020-12/schema")
    parser = full_parser()
    with_output = [
        name for name, p in subcommands(parser).items() if any("--output" in a.option_strings for a in p._actions)
    ]
    assert {"solver-score", "score", "tau2", "compare", "table", "diff", "schema"} <= set(with_output)


def test_an_empty_output_is_a_usage_error(ws, cli):
    ws.write_rows(full_rows())
    assert cli(*ws.score_args()[:-2], "--output", "")[0] == 2


# --- help ----------------------------------------------------------------------------------


def test_every_option_of_every_command_has_help_text():
    parser = full_parser()
    missing = []
    for name, p in [("tcsexam", parser), *subcommands(parser).items()]:
        for action in p._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            if not (action.help or "").strip():
                missing.append(f"{name} {action.option_strings or action.dest}")
    assert not missing


HEADLESS = sorted(set(subcommands(full_parser())) - {"tui"})  # tui's help belongs to the dashboard (tui/cli.py)


@pytest.mark.parametrize("command", HEADLESS)
def test_help_shows_examples_and_exit_codes(cli, command):
    code, out, _ = cli(command, "--help")
    assert code == 0
    examples = out.split("examples:\n", 1)[1].split("\n\n", 1)[0]
    assert f"tcsexam {command}" in examples  # at least one example of this very command
    assert "exit codes:\n" in out and "  2  usage error" in out  # shown as written, not re-wrapped


# --- ASCII text, the dashboard's decimals ----------------------------------------------------


def test_the_score_summary_is_ascii_with_the_dashboards_decimals(ws, cli):
    ws.write_rows(full_rows() + full_rows(model="n")[1:])
    ws.write_cohort(models={"m": {"attempts_per_task": 1}, "n": {"attempts_per_task": 1}})
    code, out, _ = cli(*ws.score_args())
    assert code == 3 and out.isascii()
    lines = out.splitlines()
    assert lines[1].split() == ["m", "complete", "50.25", "0.500", "0.375", "0.800", "0.000"]
    assert lines[2].split() == ["n", "incomplete", "NA", "NA", "0.375", "0.800", "0.000"]


def test_the_score_summary_keeps_its_columns_for_wide_and_combining_characters(ws, cli):
    """A name in CJK (two columns a character) or with a combining accent (none) pads to the same
    terminal column as an ASCII one: the status column starts at column 25 on every line."""
    names = ["m", "\u6a21\u578b-\u00e9", "cafe\u0301"]  # 'm', '模型-é' (6 columns), 'café' (4 columns)
    ws.write_rows([r for name in names for r in full_rows(model=name)])
    ws.write_cohort(models={name: {"attempts_per_task": 1} for name in names})
    code, out, _ = cli(*ws.score_args())

    def column_of(line: str, word: str) -> int:
        before = line[: line.index(word)]
        return sum(
            0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) == "W" else 1 for c in before
        )

    rows = out.splitlines()[1:4]
    assert [column_of(line, "complete") for line in rows] == [25, 25, 25], rows


def test_the_score_summary_keeps_its_columns_for_long_names(ws, cli):
    """A name over 24 columns widens the model column (to 48 at most); one longer still goes on a line
    of its own, its values under the others'."""
    for names, at in [(["m", "n" * 30], 32), (["m", "n" * 30, "x" * 60], 50)]:
        ws.write_rows([r for name in names for r in full_rows(model=name)])
        ws.write_cohort(models={name: {"attempts_per_task": 1} for name in names})
        code, out, _ = cli(*ws.score_args())
        rows = [line for line in out.splitlines() if " complete " in line]
        assert len(rows) == len(names) and {line.index("complete") for line in rows} == {at - 1}, out
        assert out.splitlines()[0].index("status") == at - 1
        if len(names) == 3:
            assert "x" * 60 in out.splitlines() and rows[-1].startswith(" " * (at - 1))


def test_compare_and_diff_text_are_ascii_with_minus_signs_and_na(ws, cli, tmp_path):
    ws.write_rows(full_rows(scores={"t1": 0}) + full_rows(model="n", scores={"t2": 1}))
    ws.write_cohort(models={"m": {"attempts_per_task": 1}, "n": {"attempts_per_task": 1}})
    code, out, _ = cli("compare", str(ws.run), "--benchmark", str(ws.bench), "--models", "m", "n")
    assert code == 0 and out.isascii()
    assert "paired difference m - n" in out
    # theorem: m has 0, 0; n has 1, 1: the mean difference is -1 (ASCII minus, 4 decimals);
    # index: m 30*0 + 30*0.375 + 30*0.8 = 35.25, n 30*1 + 11.25 + 24 = 65.25
    assert "P theorem       -1.0000" in out
    assert cli(*ws.score_args())[0] == 0
    first = tmp_path / "first.json"
    shutil.copy(ws.out, first)
    ws.write_rows(full_rows(scores={"t1": 0}) + full_rows(model="n", scores={"t2": 1})[1:])
    assert cli(*ws.score_args())[0] == 3
    out = cli("diff", str(first), str(ws.out))[1]
    assert out.isascii() and "n: index 65.25 -> NA" in out and "(NA)" not in out


def test_tau2_text_is_ascii_with_four_decimals(cli):
    code, out, _ = cli("tau2", str(TAU2 / "derived" / "derived_A_graded_4x5.json"))
    assert code == 0 and out.isascii() and "avg_reward 0.5000" in out


# --- solver-score's reference defaults (docs/commands.md) ---------------------------------------------------


def records_file(ws):
    return str(
        ws.write_records(
            "m", "s1", "1", [{"instance": "a", "status": "ok", "A": 12}, {"instance": "b", "status": "ok", "A": 100}]
        )
    )


def test_solver_score_defaults_to_the_benchmark_folders_only_reference(ws, cli, tmp_path):
    out = tmp_path / "s1.json"
    code, text, err = cli(
        "solver-score",
        "--task",
        "s1",
        "--records",
        records_file(ws),
        "--benchmark",
        str(ws.bench),
        "--output",
        str(out),
    )
    assert code == 0, err
    doc = json.loads(out.read_text())
    assert doc["reference_id"] == "ref-test" and doc["suite"] == "lite"
    # a: mu 12, s 2, scale max(2, 0.02*12, 1e-9) = 2, z 0, Phi 0.5; b: mu 100, s 0, scale 0.02*100 = 2, z 0
    assert doc["relative_score"] == 0.5


def test_solver_score_with_two_reference_ids_needs_reference_id(ws, cli, tmp_path):
    ws.write_json(ws.bench / "references" / "other" / "lite.json", {**MINI_REFERENCE, "reference_id": "other"})
    code, _, err = cli(
        "solver-score",
        "--task",
        "s1",
        "--records",
        records_file(ws),
        "--benchmark",
        str(ws.bench),
        "--output",
        str(tmp_path / "o.json"),
    )
    assert code == 1 and "paper-k3-fixed-260925" in err and not (tmp_path / "o.json").exists()
    code, _, _ = cli(
        "solver-score",
        "--task",
        "s1",
        "--records",
        records_file(ws),
        "--benchmark",
        str(ws.bench),
        "--reference-id",
        "other",
        "--output",
        str(tmp_path / "o.json"),
    )
    assert code == 0 and json.loads((tmp_path / "o.json").read_text())["reference_id"] == "other"


def test_solver_score_with_two_suite_files_needs_reference(ws, cli, tmp_path):
    ws.write_json(ws.bench / "references" / "ref-test" / "full.json", {**MINI_REFERENCE, "suite": "full"})
    args = ["solver-score", "--task", "s1", "--records", records_file(ws), "--benchmark", str(ws.bench)]
    code, _, err = cli(*args, "--output", str(tmp_path / "o.json"))
    assert code == 2 and "it holds full and lite: pass --reference lite, full or a PATH" in err  # a missing choice
    assert cli(*args, "--reference", "full", "--output", str(tmp_path / "o.json"))[0] == 0
    assert json.loads((tmp_path / "o.json").read_text())["suite"] == "full"


def test_the_bundled_sample_needs_no_reference_options(cli, tmp_path):
    records = next((demo_run() / "records").rglob("*.json"))
    task = records.parent.name
    code, _, err = cli(
        "solver-score",
        "--task",
        task,
        "--records",
        str(records),
        "--reference",
        "lite",
        "--output",
        str(tmp_path / "o.json"),
    )
    assert code == 0, err
    assert json.loads((tmp_path / "o.json").read_text())["reference_id"] == "sample-k3-synthetic"


def test_tau2_output_never_lands_inside_a_dir_format_run(cli, tmp_path):
    from tests.support.runs import to_dir_format

    folder = to_dir_format(TAU2 / "derived" / "minimal_2x2_example.json", tmp_path / "run")
    before = sorted(p.relative_to(folder) for p in folder.rglob("*"))
    code, _, err = cli("tau2", str(folder), "--output", str(folder / "simulations" / "metrics.json"))
    assert code == 1 and "output lies inside the input folder" in err
    assert sorted(p.relative_to(folder) for p in folder.rglob("*")) == before
    assert cli("tau2", str(folder), "--output", str(tmp_path / "metrics.json"))[0] == 0
