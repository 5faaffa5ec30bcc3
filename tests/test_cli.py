"""docs/commands.md: the command line, exit codes, messages, nothing written on rejection."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tcsexam.scoring.pipeline.benchmark import demo_run, sample_root
from tests.support.runs import full_rows, row

ROOT = Path(__file__).resolve().parents[1]


def test_exit_0_when_complete(ws, cli):
    ws.write_checked_run()
    code, out, err = cli(*ws.score_args())
    assert code == 0 and ws.out.is_file() and "complete" in out and err == ""


def test_exit_0_when_provisional(ws, cli):
    rows = full_rows()
    rows[0]["adoption_status"] = "selected_provisional"
    ws.write_rows(rows)
    assert cli(*ws.score_args())[0] == 0
    assert json.loads(ws.out.read_text())["status"] == "provisional"


def test_exit_3_when_incomplete_and_output_written(ws, cli):
    ws.write_rows(full_rows()[1:])
    code, out, _ = cli(*ws.score_args())
    assert code == 3
    doc = json.loads(ws.out.read_text())
    assert doc["status"] == "incomplete" and doc["models"]["m"]["index"] is None


def test_exit_1_on_rejection_names_file_line_field_and_writes_nothing(ws, cli):
    rows = full_rows()
    rows[0]["score"] = "0.5"
    ws.write_rows(rows)
    code, out, err = cli(*ws.score_args())
    assert code == 1 and not ws.out.exists()
    assert f"{ws.run / 'attempts.csv'}: line 2: field 'score':" in err
    assert "Traceback" not in err


def test_rejection_leaves_an_existing_output_byte_identical(ws, cli):
    ws.out.parent.mkdir(parents=True)
    ws.out.write_bytes(b'{"previous": true}\n')
    ws.write_rows(full_rows() + [row(item="t1")])
    assert cli(*ws.score_args())[0] == 1
    assert ws.out.read_bytes() == b'{"previous": true}\n'
    assert sorted(p.name for p in ws.out.parent.iterdir()) == ["index.json"]


def test_exit_2_on_usage(cli):
    assert cli("score", "--bogus")[0] == 2
    assert cli("solver-score", "--task", "x")[0] == 2


def test_version(cli):
    code, out, _ = cli("--version")
    assert code == 0 and out.startswith("tcsexam ")


def test_suite_option_disagreeing_with_cohort_is_rejected(ws, cli):
    ws.write_rows(full_rows())
    code, _, err = cli(*ws.score_args("--suite", "full"))
    assert code == 1 and "cohort declares suite 'lite'" in err


def test_validate_lists_every_problem_grouped_by_file_and_writes_nothing(ws, cli):
    rows = full_rows()
    rows[0]["score"] = "0.5"
    rows[2]["solver_protocol"] = "online"
    ws.write_rows(rows)
    code, out, err = cli("validate", str(ws.run), "--benchmark", str(ws.bench))
    assert code == 1
    assert f"{ws.run / 'attempts.csv'}: 2 problems" in err and "rejected: 2 problems in 1 file" in err
    assert not ws.out.exists()


def test_validate_collects_problems_across_files(ws, cli):
    ws.write_rows(full_rows())
    (ws.run / "cohort.json").write_text('{"suite": "lite", "models": {}}')
    (ws.run / "attempts.csv").write_text("model,track\nm,theorem\n")
    code, _, err = cli("validate", str(ws.run), "--benchmark", str(ws.bench))
    assert code == 1
    assert "cohort.json: 3 problems" in err and "attempts.csv: 7 problems" in err


def test_missing_run_dir_is_exit_1(tmp_path, cli):
    code, _, err = cli("score", str(tmp_path / "nope"), "--output", str(tmp_path / "o.json"))
    assert code == 1 and "run directory not found" in err


def test_unwritable_output_is_a_clean_error(ws, cli, tmp_path):
    ws.write_rows(full_rows())
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, _, err = cli(*ws.score_args()[:-2], "--output", str(blocker / "index.json"))
    assert code == 1 and f"{blocker / 'index.json'}: cannot use as output: Not a directory" in err  # docs/safety.md


def test_an_output_that_is_a_folder_names_the_standard_output_only_where_it_is_one(ws, cli, tmp_path):
    """A command's --output takes '-' for standard output, and its refusal of a folder says so; plot
    (a figure is never written to standard output) does not."""
    ws.write_rows(full_rows())
    code, _, err = cli(*ws.score_args()[:-2], "--output", str(tmp_path))
    assert (
        code == 1
        and f"{tmp_path}: output is a directory: an output must be a regular file (or - for standard output)" in err
    )
    assert cli(*ws.score_args())[0] == 0
    folder = tmp_path / "figure.pdf"
    folder.mkdir()
    code, _, err = cli("plot", str(ws.out), "--output", str(folder))
    assert code == 1 and "an output must be a regular file" in err and "standard output" not in err


@pytest.mark.parametrize("command", ["score", "table", "plot"])
def test_an_output_ending_with_a_slash_names_a_folder_and_nothing_is_written(ws, cli, tmp_path, command):
    """`--output new/` wrote a file named 'new' and said 'written to new/' (a review): a folder that is
    not there yet is named by the slash alone, so it is refused as a folder is (exit 1, nothing made)."""
    ws.write_rows(full_rows())
    assert cli(*ws.score_args())[0] == 0
    target = str(tmp_path / "new") + "/"
    args = (
        [*ws.score_args()[:-2], "--output", target]
        if command == "score"
        else [command, str(ws.out), "--output", target]
    )
    code, out, err = cli(*args)
    assert code == 1 and "written" not in out, (out, err)
    assert f"{target}: output ends with '/', which names a folder: give the file's name in it" in err
    assert not (tmp_path / "new").exists()


def test_no_traceback_in_a_real_process(tmp_path):
    bad = tmp_path / "run"
    bad.mkdir()
    (bad / "attempts.csv").write_bytes(b"\xff\xfe not utf8")
    (bad / "cohort.json").write_text("{")
    proc = subprocess.run(
        [sys.executable, "-m", "tcsexam.scoring", "score", str(bad), "--output", str(tmp_path / "o.json")],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr and "attempts.csv" in proc.stderr and "cohort.json" in proc.stderr
    assert not (tmp_path / "o.json").exists()


# --- the bundled sample --------------------------------------------------------


def test_demo_has_one_complete_one_provisional_one_incomplete(tmp_path, cli):
    out = tmp_path / "index.json"
    code, stdout, _ = cli("score", str(demo_run()), "--output", str(out))
    assert code == 3
    doc = json.loads(out.read_text())
    assert sorted(m["status"] for m in doc["models"].values()) == ["complete", "incomplete", "provisional"]
    incomplete = next(m for m in doc["models"].values() if m["status"] == "incomplete")
    assert (
        incomplete["coverage"]["missing"] and incomplete["coverage"]["not_valid"][0]["score_status"] == "judge_failed"
    )
    assert any(len(p["by_k"]) == 3 for m in doc["models"].values() for p in m["pass_hat_k"].values())
    assert any(e["note"] for m in doc["models"].values() for e in m["coverage"]["excluded"])
    assert doc["provenance"]["inputs"]["records"]["files"] == len(list((demo_run() / "records").rglob("*.json")))
    assert doc["ignored_rows"]["count"] >= 1


def test_demo_solver_score_gives_z_and_phi(tmp_path, cli):
    rec = next((demo_run() / "records").rglob("*.json"))
    item = rec.parent.name
    out = tmp_path / "x.json"
    code, _, _ = cli(
        "solver-score",
        "--task",
        item,
        "--records",
        str(rec),
        "--reference",
        "lite",
        "--reference-id",
        "sample-k3-synthetic",
        "--output",
        str(out),
    )
    assert code == 0
    doc = json.loads(out.read_text())
    assert all("z" in i and "phi" in i for i in doc["instances"])
    assert 0 <= doc["relative_score"] <= 1


def test_sample_reference_has_the_real_counts():
    full = json.loads((sample_root() / "benchmark/references/sample-k3-synthetic/full.json").read_text())
    lite = json.loads((sample_root() / "benchmark/references/sample-k3-synthetic/lite.json").read_text())
    assert sum(len(t["instances"]) for t in full["tasks"].values()) == 1860
    assert len(full["unscored_reference_instances"]) == 32
    suite = json.loads((sample_root() / "benchmark/suites/lite.json").read_text())
    lite_solver = {t["item"] for t in suite["tasks"] if t["track"] == "solver"}
    assert len(suite["tasks"]) == 20 and set(lite["tasks"]) == lite_solver and len(lite_solver) == 5
    kinds = {(t["kind"], t["direction"]) for t in full["tasks"].values()}
    assert {("objective", "maximize"), ("objective", "minimize"), ("solve", "maximize")} <= kinds
    assert any(v is None for t in full["tasks"].values() for vals in t["instances"].values() for v in vals)


def test_generator_reproduces_the_bundled_sample(tmp_path):
    from tcsexam.sample_runs.generate import write_all

    write_all(tmp_path)
    for rel in ("benchmark/references/sample-k3-synthetic/full.json", "demo/attempts.csv", "demo/cohort.json"):
        assert (tmp_path / rel).read_bytes() == (sample_root() / rel).read_bytes(), rel


def test_benchmark_from_the_environment(ws, cli, monkeypatch):
    ws.write_rows(full_rows())
    monkeypatch.setenv("TCSEXAM_BENCHMARK", str(ws.bench))
    code, _, _ = cli("score", str(ws.run), "--output", str(ws.out))
    assert code == 0 and json.loads(ws.out.read_text())["provenance"]["inputs"]["suite"]["path"] == str(
        (ws.bench / "suites" / "lite.json").resolve()
    )


def test_suite_given_as_a_path(ws, cli, tmp_path):
    ws.write_rows(full_rows())
    manifest = ws.bench / "suites" / "lite.json"
    assert cli(*ws.score_args("--suite", str(manifest)))[0] == 0
    other = tmp_path / "other.json"
    other.write_text(manifest.read_text().replace('"lite"', '"full"'))
    code, _, err = cli(*ws.score_args("--suite", str(other)))
    assert code == 1 and "manifest is suite 'full' but the cohort declares 'lite'" in err


def test_single_path_overrides(ws, cli, tmp_path):
    ws.write_rows(full_rows())
    moved = tmp_path / "elsewhere.csv"
    moved.write_text((ws.run / "attempts.csv").read_text())
    (ws.run / "attempts.csv").unlink()
    code, _, _ = cli(
        "score",
        "--attempts",
        str(moved),
        "--cohort",
        str(ws.run / "cohort.json"),
        "--benchmark",
        str(ws.bench),
        "--output",
        str(ws.out),
    )
    assert code == 0


def test_tui_arguments_reach_the_dashboard_config():
    from tcsexam.tui.cli import build_parser, config_from_args

    args = build_parser().parse_args(
        ["tui", "runs/x", "--watch", "--output", "o.json", "--threshold", "solver=0.6", "--tau2", "r.json"]
    )
    config = config_from_args(args)
    assert (config.run_dir, config.watch, config.output, config.tau2) == ("runs/x", True, "o.json", "r.json")
    assert config.thresholds == {"solver": 0.6}


# --- the process: the shell owns it, nothing outlives a command ------------------


def _modules_after(*argv: str) -> tuple[int, set[str]]:
    code = (
        "import sys, runpy; sys.argv = ['tcsexam', *sys.argv[1:]]\n"
        "try:\n    runpy.run_module('tcsexam.tui.cli', run_name='__main__')\n"
        "except SystemExit as exc:\n    code = exc.code\n"
        "print('MODULES', ' '.join(sorted(sys.modules)))\nsys.exit(code)"
    )
    proc = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=ROOT)
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("MODULES"))
    return proc.returncode, set(line.split()[1:])  # a package's modules with the package itself


def test_a_command_imports_only_its_own_module(tmp_path):
    """The command line imports the module of the command it runs and no other command's (plot,
    compare, tau2 ... cost their imports only when they run); ``--help`` lists every command from
    their help texts alone."""
    from tcsexam.scoring.commands.main import COMMANDS

    modules_of_commands = {f"tcsexam.scoring.commands.{m}" for m in COMMANDS.values()}
    cases = [
        (["score", str(demo_run()), "--output", str(tmp_path / "index.json")], 3, "score"),
        (["validate", str(demo_run())], 3, "score"),
        (["table", "--help"], 0, "reports"),
        (["--help"], 0, None),
        (["--version"], 0, None),
    ]
    for argv, expected, own in cases:
        code, modules = _modules_after(*argv)
        assert code == expected, argv
        others = modules_of_commands - {f"tcsexam.scoring.commands.{own}"}
        assert not modules & others, (argv, sorted(modules & others))
    assert "asyncio" not in _modules_after("score", str(demo_run()), "--output", "-")[1]  # the dashboard's


def test_the_command_registry_is_the_order_of_help():
    """Every command of ``COMMANDS`` in its order, each from its own module, and ``tcsexam --help`` the
    same whichever command's module was loaded."""
    from tcsexam.scoring.commands.main import COMMANDS
    from tcsexam.scoring.commands.main import build_parser as headless

    full, sub = headless()
    assert list(sub.choices) == list(COMMANDS)
    for name, module in COMMANDS.items():
        assert sub.choices[name].get_default("handler").__module__ == f"tcsexam.scoring.commands.{module}", name
    for argv in (["score", "run"], ["--help"], ["plot"], ["no-such-command"]):
        lazy, _ = headless(argv)
        assert lazy.format_help() == full.format_help(), argv


def test_version_and_help_import_neither_numpy_nor_pydantic():
    for argv in (["--version"], ["--help"], ["score", "--help"]):
        code, modules = _modules_after(*argv)
        assert code == 0, argv
        assert not modules & {"numpy", "pydantic", "scipy", "textual", "msgspec"}, (
            argv,
            modules & {"numpy", "pydantic"},
        )


def test_solver_score_does_not_import_pydantic(tmp_path):
    """solver-score decodes its two inputs with msgspec: the pydantic models of the other
    inputs are not loaded."""
    bench = sample_root() / "benchmark" / "references" / "sample-k3-synthetic" / "lite.json"
    task = next(iter(json.loads(bench.read_text())["tasks"]))
    records = next((demo_run() / "records").rglob(f"{task}/*.json"))
    code, modules = _modules_after(
        "solver-score", "--task", task, "--records", str(records), "--reference", str(bench),
        "--output", str(tmp_path / "s.json"),
    )  # fmt: skip
    assert code == 0 and (tmp_path / "s.json").is_file()
    assert {"numpy", "msgspec"} <= modules and "pydantic" not in modules


def test_score_does_not_import_scipy_stats(tmp_path):
    code = (
        "import sys, runpy; sys.argv = ['tcsexam', *sys.argv[1:]]\n"
        "try:\n    runpy.run_module('tcsexam.tui.cli', run_name='__main__')\n"
        "except SystemExit as exc:\n    code = exc.code\n"
        "print('STATS', 'scipy.stats' in sys.modules)\nsys.exit(code)"
    )
    argv = ["score", str(demo_run()), "--output", str(tmp_path / "index.json")]
    proc = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 3 and "STATS False" in proc.stdout, proc.stderr[-2000:]


def test_the_console_script_is_the_shell_and_offers_tui():
    text = (ROOT / "pyproject.toml").read_text()
    assert 'tcsexam = "tcsexam.tui.cli:entry"' in text
    from tcsexam.tui.cli import build_parser

    args = build_parser().parse_args(["tui"])
    # no fixed default: `e` writes each run's own RUN_DIR/build/index.json (tests/test_tui_export_paths.py)
    assert args.command == "tui" and args.output is None
    from tcsexam.scoring.commands.main import build_parser as headless

    with pytest.raises(SystemExit):  # the headless parser has no dashboard
        headless()[0].parse_args(["tui"])


def test_score_forks_nothing_and_gives_the_collector_back(tmp_path, monkeypatch, cli):
    import gc
    import multiprocessing
    import os

    import tcsexam.scoring.pipeline.crosscheck as agg
    from tests.bench.synth import write_run

    write_run(tmp_path / "run", models=4, attempts=9)  # 540 records files, all re-scored from records
    collecting = []
    real = agg.rescore_task
    monkeypatch.setattr(agg, "rescore_task", lambda *work: collecting.append(gc.isenabled()) or real(*work))

    def no_fork():
        raise AssertionError("score started a process")

    monkeypatch.setattr(os, "fork", no_fork)
    monkeypatch.setattr(os, "_exit", lambda code: no_fork())
    code, _, err = cli("score", str(tmp_path / "run"), "--output", str(tmp_path / "index.json"))
    assert code == 0, err
    assert json.loads((tmp_path / "index.json").read_text())["provenance"]["inputs"]["records"]["files"] == 540
    # paused while the run is loaded and scored (a local pause, tests/test_collector_paused.py), on after
    assert collecting and not any(collecting) and gc.isenabled()
    assert multiprocessing.active_children() == []


def test_score_piped_ends_with_its_process(tmp_path):
    """`tcsexam score … | cat` ends when score ends: no child keeps the pipe open."""
    from tests.bench.synth import write_run

    write_run(tmp_path / "run", models=2, attempts=2)
    proc = subprocess.Popen(
        [sys.executable, "-m", "tcsexam.tui.cli", "score", str(tmp_path / "run"), "--output", str(tmp_path / "i.json")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    out, _ = proc.communicate(timeout=60)  # EOF on stdout only once every holder of the pipe is gone
    assert proc.returncode == 0 and b"index.json written" in out


def test_a_rejection_crosses_a_process_boundary_intact():
    import pickle

    from tcsexam.scoring.errors import InputError, Problem

    exc = InputError([Problem("f.json", "record 3", "A", "must be a number")])
    back = pickle.loads(pickle.dumps(exc))
    assert isinstance(back, InputError) and back.problems == exc.problems and str(back) == str(exc)


def test_table_and_diff_load_no_scipy_numpy_or_pydantic(tmp_path):
    """Only a t quantile, a rank p-value or a solver score needs scipy, and only scoring a run needs
    the input schemas (pydantic) and numpy: reading an index.json and checking its content hash do not
    (docs/performance.md#start-up)."""
    index = tmp_path / "index.json"
    code, _ = _modules_after("score", str(demo_run()), "--output", str(index))
    assert code == 3 and index.is_file()
    for argv in (["table", str(index)], ["diff", str(index), str(index)]):
        code, modules = _modules_after(*argv)
        assert code == 0, argv
        assert "msgspec" in modules, argv  # it did read the document
        assert not modules & {"scipy", "numpy", "pydantic"}, (argv, modules & {"scipy", "numpy", "pydantic"})


def test_every_command_that_writes_an_output_file_says_where(cli, tmp_path):
    """tau2, compare, table and diff wrote their --output file without a word, into folders they made
    where the path had none: each now ends with the line that names the file, as score, plan and plot
    do, so that a folder name typed wrong shows. Standard output (`--output -`) gets no such line."""
    tau2 = ROOT / "tests/data/tau2/gpt-4.1-2025-04-14_telecom_no-user_gpt-4.1-2025-04-14_4trials_5tasks.json"
    index = tmp_path / "index.json"
    assert cli("score", str(demo_run()), "--output", str(index))[0] == 3
    commands = {
        "tau2 metrics": ["tau2", str(tau2)],
        "comparison": ["compare", str(demo_run()), "--models", "atlas-70b", "borealis-8x22b"],
        "table": ["table", str(index)],
        "diff": ["diff", str(index), str(index)],
    }
    for what, argv in commands.items():
        target = tmp_path / "new" / what.replace(" ", "-") / "out"
        code, out, err = cli(*argv, "--output", str(target))
        assert code == 0, (what, err)
        assert target.is_file()
        assert out.splitlines()[-1] == f"{what} written to {target}", (what, out)
        code, out, err = cli(*argv, "--output", "-")
        assert code == 0 and "written to" not in out + err, what
    code, out, err = cli("score", str(demo_run()), "--output", "-")  # score's status line says where it went
    assert code == 3 and "written to" not in out and "incomplete: index.json written to standard output" in err


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["score", "-o", "x"], "tcsexam score: error: unrecognized arguments: -o; did you mean '--output'?"),
        (
            ["score", "--outptu", "x"],
            "tcsexam score: error: unrecognized arguments: --outptu; did you mean '--output'?",
        ),
        (
            ["tau2", "r.json", "--ouput=o.json"],
            "tcsexam tau2: error: unrecognized arguments: --ouput=o.json; did you mean '--output'?",
        ),
        (["validate", "run", "more"], "tcsexam validate: error: unrecognized arguments: more"),
        # '--quiet' and '--suite' share only their '--' and 'ui': no option is meant (a review)
        (["score", "run", "--quiet"], "tcsexam score: error: unrecognized arguments: --quiet"),
        (
            ["score", "run", "--strcit"],
            "tcsexam score: error: unrecognized arguments: --strcit; did you mean '--strict'?",
        ),
    ],
)
def test_an_unknown_argument_is_the_commands_usage_error_with_the_option_meant(cli, argv, said):
    """`score -o x` printed the top-level usage ('tcsexam [-h] [--version] COMMAND ...'), not score's (a
    new user's review): the command's usage line, and the option it was likely meant to be."""
    code, out, err = cli(*argv)
    assert code == 2 and out == ""
    assert err.startswith(f"usage: tcsexam {argv[0]} ") and err.rstrip().endswith(said), err


def test_validate_json_gives_the_findings_of_an_accepted_run_as_the_text_lists_them(demo_copy, cli):
    """docs/commands.md#validate: --json writes the verdict as one JSON document on standard output,
    with the exit code of the text form; each finding's fields, put together as the text form puts them,
    give its line. The demo's findings, from its story (sample_runs): atlas-70b's attempt replaced by
    attempt 4, borealis-8x22b's two provisional attempts, cirrus-mini's judge failure and missing
    attempt, and the draft model's row."""
    code, out, _ = cli("validate", str(demo_copy))
    text_lines = out.splitlines()[1:]
    code_json, out_json, _ = cli("validate", str(demo_copy), "--json")
    assert code == code_json == 3
    d = json.loads(out_json)
    assert (d["accepted"], d["strict"], d["status"], d["rows"], d["models"], d["problems"], d["hint"]) == (
        True,
        False,
        "incomplete",
        102,
        3,
        [],
        None,
    )
    assert [(f["kind"], f["model"], f["item"], f["attempt"], f["line"]) for f in d["findings"]] == [
        ("excluded", "atlas-70b", "thm-pcp-gap", "1", 11),
        ("provisional", "borealis-8x22b", "thm-sensitivity", "1", 62),
        ("provisional", "borealis-8x22b", "conj-union-closed", "1", 79),
        ("incomplete", "cirrus-mini", "thm-ramsey-bound", "1", 85),
        ("incomplete", "cirrus-mini", "con-expander", None, None),
        ("ignored row", "atlas-70b-draft", "thm-sensitivity", "1", 103),
    ]

    def as_text(f: dict) -> str:
        where = (f["item"] or "-") + (f" attempt {f['attempt']}" if f["attempt"] else "")
        return (
            f"{f['kind']}: {f['model']}: {where}" + (f" (line {f['line']})" if f["line"] else "") + f": {f['message']}"
        )

    assert [as_text(f) for f in d["findings"]] == text_lines


def test_validate_json_gives_the_problems_of_a_rejected_run_on_standard_output(demo_copy, cli):
    table = demo_copy / "attempts.csv"
    lines = table.read_text().splitlines(keepends=True)
    lines[2] = lines[2].replace(",valid,", ",vaild,")
    table.write_text("".join(lines))
    code, out, err = cli("validate", str(demo_copy), "--json")
    assert code == 1 and "vaild" not in err  # the problem is in the JSON, not said twice
    d = json.loads(out)
    assert (d["accepted"], d["status"], d["rows"], d["models"], d["findings"]) == (False, None, None, None, [])
    assert "once nothing is rejected" in d["hint"]  # as the text form ends
    assert d["problems"] == [
        {
            "file": str(table),
            "where": "line 3",
            "field": "score_status",
            "message": "must be one of valid, judge_failed, not_finished, missing; got 'vaild'; did you mean 'valid'?",
        }
    ]


def test_validate_json_with_strict_is_not_accepted_when_there_is_a_finding(demo_copy, cli):
    """A pipeline reading only the JSON sees what exit 1 says: with --strict a finding is a rejection."""
    code, out, err = cli("validate", str(demo_copy), "--json", "--strict")
    d = json.loads(out)
    assert code == 1 and (d["accepted"], d["strict"], d["status"]) == (False, True, "incomplete")
    assert len(d["findings"]) == 6 and d["problems"] == []
    assert err.splitlines()[-1] == "rejected by --strict: 6 findings"


def test_validate_json_names_no_model_for_a_records_file_outside_the_models_folders(demo_copy, cli):
    (demo_copy / "records" / "stray.json").write_text("[]")
    code, out, _ = cli("validate", str(demo_copy), "--json")
    unused = [f for f in json.loads(out)["findings"] if f["kind"] == "unused records"]
    assert code == 3 and len(unused) == 1
    assert (unused[0]["model"], unused[0]["item"], unused[0]["attempt"]) == (None, None, None)
    code, out, _ = cli("validate", str(demo_copy))
    assert any(line.startswith("unused records: -: -: ") for line in out.splitlines())


def test_a_suite_option_typed_close_to_a_suite_name_is_asked_about(demo_copy, cli):
    code, _, err = cli("validate", str(demo_copy), "--suite", "lit")
    assert code == 1 and "lit: --suite names no suite (lite, full) and no file; did you mean 'lite'?" in err
    code, _, err = cli("validate", str(demo_copy), "--benchmark", str(demo_copy / "cohort.json"))
    assert code == 1 and "cohort.json: is a file, not a benchmark folder (it came from --benchmark)" in err


def test_validate_lists_the_tables_row_problems_beside_a_cohort_problem(demo_copy, cli):
    """A problem of cohort.json hid every problem of attempts.csv until the next run (a review): they
    are listed together, each enum slip with the value meant."""
    cohort = demo_copy / "cohort.json"
    cohort.write_text(cohort.read_text().replace('"offline"', '"ofline"'))
    table = demo_copy / "attempts.csv"
    lines = table.read_text().splitlines(keepends=True)
    lines[2] = lines[2].replace(",valid,", ",vaild,")
    table.write_text("".join(lines))
    code, out, err = cli("validate", str(demo_copy))
    assert code == 1 and out == ""
    assert "field 'solver_protocol': must be one of online, offline; got 'ofline'; did you mean 'offline'?" in err
    assert (
        "line 3: field 'score_status': must be one of valid, judge_failed, not_finished, missing; got 'vaild'; did you mean 'valid'?"
        in err
    )
    assert "rejected: 2 problems in 2 files" in err


def test_an_enum_value_far_from_every_allowed_one_gets_no_guess():
    from tcsexam.scoring.formats.wording import one_of

    allowed = ("valid", "judge_failed", "not_finished", "missing")
    assert one_of(allowed, "'ok'", "ok") == "must be one of valid, judge_failed, not_finished, missing; got 'ok'"
    assert one_of(allowed, "'Missing'", "Missing").endswith("; did you mean 'missing'?")
    assert one_of(allowed, "3", 3).endswith("got 3")  # not a string: nothing to compare
