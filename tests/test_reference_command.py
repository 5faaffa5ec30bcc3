"""A benchmark folder a user can build (docs/formats.md#the-benchmark-folder): `tcsexam demo DIR
--benchmark` copies the bundled sample benchmark out as a template, and `tcsexam reference` lists what
a reference holds (docs/commands.md#reference); a records file that lacks instances points there."""

from __future__ import annotations

import json
import shutil
import statistics
from pathlib import Path

import pytest

from tcsexam.scoring.pipeline.benchmark import demo_run, sample_root

SAMPLE = sample_root() / "benchmark"
LITE = json.loads((SAMPLE / "references" / "sample-k3-synthetic" / "lite.json").read_text())
FULL = json.loads((SAMPLE / "references" / "sample-k3-synthetic" / "full.json").read_text())


def files_under(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_demo_benchmark_copies_the_sample_benchmark_and_says_what_to_replace(tmp_path, cli):
    target = tmp_path / "my-benchmark"
    code, out, _ = cli("demo", str(target), "--benchmark")
    assert code == 0
    assert sorted(files_under(target)) == [
        "references/sample-k3-synthetic/full.json",
        "references/sample-k3-synthetic/lite.json",
        "suites/full.json",
        "suites/lite.json",
    ]
    assert files_under(target) == files_under(SAMPLE)  # byte for byte
    for name in ("suites/lite.json", "suites/full.json", "references/sample-k3-synthetic/", "solver_reference_id"):
        assert name in out, name
    assert f"--benchmark {target}" in out


def test_demo_benchmark_refuses_a_folder_that_is_not_empty(tmp_path, cli):
    full = tmp_path / "full"
    full.mkdir()
    (full / "mine.json").write_text("keep")
    code, out, err = cli("demo", str(full), "--benchmark")
    assert code == 1 and "is not empty" in err and out == ""
    assert files_under(full) == {"mine.json": b"keep"} and sorted(p.name for p in tmp_path.iterdir()) == ["full"]


def test_the_copied_benchmark_is_a_benchmark_the_demo_run_scores_with(tmp_path, cli):
    cli("demo", str(tmp_path / "bench"), "--benchmark")
    cli("demo", str(tmp_path / "run"))
    out = tmp_path / "index.json"
    code, _, err = cli("score", str(tmp_path / "run"), "--benchmark", str(tmp_path / "bench"), "--output", str(out))
    assert code == 3, err  # the demo's incomplete model, as with the bundled sample
    assert json.loads(out.read_text())["provenance"]["benchmark"] == "given"


def test_reference_without_an_id_lists_the_references_and_their_suites(cli, tmp_path):
    code, out, _ = cli("reference")
    assert code == 0 and "sample-k3-synthetic  suites: lite, full" in out
    code, out, _ = cli("reference", "--json")
    assert json.loads(out)["references"] == [{"reference_id": "sample-k3-synthetic", "suites": ["lite", "full"]}]
    bench = tmp_path / "b"
    (bench / "references" / "mine").mkdir(parents=True)
    (bench / "references" / "mine" / "lite.json").write_text("{}")
    code, out, _ = cli("reference", "--benchmark", str(bench), "--json")
    assert code == 0 and json.loads(out)["references"] == [{"reference_id": "mine", "suites": ["lite"]}]


def test_reference_lists_each_task_with_kind_direction_and_instance_counts(cli):
    code, out, err = cli("reference", "sample-k3-synthetic", "--json")
    assert code == 0 and "bundled synthetic sample" in err
    listing = json.loads(out)
    assert listing["suite"] == "full"  # Full contains Lite
    expected = [
        {
            "task": task,
            "kind": spec["kind"],
            "direction": spec["direction"],
            "scored": len(spec["instances"]),
            "unscored": sum(u["task"] == task for u in FULL["unscored_reference_instances"]),
        }
        for task, spec in FULL["tasks"].items()
    ]
    assert listing["tasks"] == expected
    code, out, _ = cli("reference", "sample-k3-synthetic", "--suite", "lite")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 2 + len(LITE["tasks"]) + 1
    assert lines[2].split() == ["maxcut-mqlib", "objective", "maximize", "40", "2"]


def test_reference_task_lists_every_instance_in_full(cli):
    code, out, _ = cli("reference", "sample-k3-synthetic", "--suite", "lite", "--task", "maxcut-mqlib", "--json")
    assert code == 0
    listing = json.loads(out)
    spec = LITE["tasks"]["maxcut-mqlib"]
    assert [i["instance"] for i in listing["scored"]] == list(spec["instances"])
    for shown in listing["scored"]:
        usable = [v for v in spec["instances"][shown["instance"]] if v is not None]
        assert abs(shown["mu"] - statistics.fmean(usable)) <= 1e-9 * max(1.0, abs(shown["mu"]))
        assert abs(shown["s"] - statistics.stdev(usable)) <= 1e-9 * max(1.0, shown["s"])
    unscored = [u for u in LITE["unscored_reference_instances"] if u["task"] == "maxcut-mqlib"]
    assert listing["unscored"] == [{"instance": u["instance"], "values": u["values"]} for u in unscored]
    code, text, _ = cli("reference", "sample-k3-synthetic", "--suite", "lite", "--task", "maxcut-mqlib")
    assert code == 0 and all(f"\n  {name}  " in text for name in spec["instances"])


def test_an_unknown_task_or_reference_is_a_usage_error_naming_the_known_ones(cli):
    code, out, err = cli("reference", "sample-k3-synthetic", "--task", "maxcut")
    assert code == 2 and out == "" and "no solver task 'maxcut'; did you mean 'maxcut-mqlib'?" in err
    code, out, err = cli("reference", "paper-k3-fixed-260925")
    assert code == 2 and out == "" and "sample-k3-synthetic" in err and "--benchmark" in err


def test_task_without_a_reference_id_reads_the_benchmarks_only_reference(cli, tmp_path):
    """A review asked for a REFERENCE_ID the bundled sample has only one of: that one is read; with two
    the command still asks which, naming both."""
    code, out, _ = cli("reference", "--task", "maxcut-mqlib", "--json")
    assert code == 0 and json.loads(out)["task"] == "maxcut-mqlib"
    assert out == cli("reference", "sample-k3-synthetic", "--task", "maxcut-mqlib", "--json")[1]
    bench = tmp_path / "bench"
    shutil.copytree(sample_root() / "benchmark", bench)
    shutil.copytree(bench / "references" / "sample-k3-synthetic", bench / "references" / "other-ref")
    code, out, err = cli("reference", "--task", "maxcut-mqlib", "--benchmark", str(bench))
    assert code == 2 and out == "" and "give the REFERENCE_ID too" in err
    assert "(the benchmark holds other-ref, sample-k3-synthetic)" in err


def test_a_records_file_lacking_instances_points_at_the_full_list(tmp_path, cli):
    records = tmp_path / "r.json"
    records.write_text(json.dumps([{"instance": "MAX0001", "status": "ok", "A": 1.0}]))
    code, _, err = cli(
        "solver-score", "--task", "maxcut-mqlib", "--reference", "lite", "--records", str(records), "--output", "-"
    )
    assert code == 1
    assert "39 scored instances of task 'maxcut-mqlib' have no record: MAX0002" in err
    assert "and 19 more (all of them: tcsexam reference sample-k3-synthetic --suite lite --task maxcut-mqlib)" in err
    code, out, _ = cli("reference", "sample-k3-synthetic", "--suite", "lite", "--task", "maxcut-mqlib")
    assert code == 0 and "40 scored instances" in out and "MAX0040" in out


def test_the_next_command_printed_runs_as_printed_with_the_benchmark_given(cli, tmp_path):
    """`reference --benchmark DIR` printed 'its tasks: tcsexam reference ID' without --benchmark, and
    that command then failed on the bundled sample (a review): each next step names the folder given."""
    import shlex

    bench = tmp_path / "my bench"  # a space: the printed line quotes it
    cli("demo", str(bench), "--benchmark")
    shutil.move(bench / "references" / "sample-k3-synthetic", bench / "references" / "mylab-k3")
    for suite in (bench / "references" / "mylab-k3").iterdir():  # a lab's own reference, named as its folder
        suite.write_text(json.dumps({**json.loads(suite.read_text()), "reference_id": "mylab-k3"}))
    code, out, _ = cli("reference", "--benchmark", str(bench))
    assert code == 0
    step = out.splitlines()[-1].removeprefix("its tasks: ")
    assert step == f"tcsexam reference mylab-k3 --benchmark {shlex.quote(str(bench))}"
    code, out, err = cli(*shlex.split(step)[1:])
    assert code == 0, err
    step = out.splitlines()[-1].removeprefix("a task's instances: ")
    assert step.startswith("tcsexam reference mylab-k3 --suite ") and step.endswith(
        f" --benchmark {shlex.quote(str(bench))}"
    )
    code, out, err = cli(*shlex.split(step)[1:])
    assert code == 0 and "instance" in out, err


@pytest.mark.parametrize(("typed", "meant"), [("maxcut", "maxcut-mqlib"), ("sat-rase", "sat-race")])
def test_solver_score_of_a_task_the_reference_lacks_is_a_usage_error_on_task(cli, tmp_path, typed, meant):
    """solver-score's --task typo was a problem of the bundled reference file (exit 1), where `reference
    --task` calls it a usage error: both now say it of --task, with the task meant (exit 2, nothing written)."""
    from tcsexam.scoring.pipeline.benchmark import demo_run

    records = demo_run() / "records" / "atlas-70b" / "maxcut-mqlib" / "1.json"
    out_file = tmp_path / "s.json"
    code, out, err = cli(
        "solver-score", "--task", typed, "--reference", "lite", "--records", str(records), "--output", str(out_file)
    )
    assert code == 2 and out == "" and not out_file.exists()
    assert (
        f"--task: reference 'sample-k3-synthetic' (suite lite) has no solver task '{typed}'; did you mean '{meant}'?"
        in err
    )
    assert "lite.json" not in err  # not a problem of the reference file


def test_records_of_another_task_are_said_to_be_so_after_their_problems(cli, tmp_path):
    """maxcut records scored as sat-race (a solve task: A must be 0 or 1) gave 41 lines on A and no word
    that none of the records is a sat-race instance (a review): the last line says so."""
    from tcsexam.scoring.pipeline.benchmark import demo_run

    records = demo_run() / "records" / "atlas-70b" / "maxcut-mqlib" / "1.json"
    listed = json.loads(records.read_text())
    out_file = tmp_path / "s.json"
    code, _, err = cli(
        "solver-score",
        "--task",
        "sat-race",
        "--reference",
        "lite",
        "--records",
        str(records),
        "--output",
        str(out_file),
    )
    assert code == 1 and not out_file.exists()
    assert err.splitlines()[-1] == (
        f"none of the file's {len(listed)} records names an instance of task 'sat-race' "
        f"(the first names '{listed[0]['instance']}'): are they the records of another task?"
    )
    # records of the task itself with a bad value: no such line
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{**listed[0], "A": "x"}, *listed[1:]]))
    code, _, err = cli(
        "solver-score",
        "--task",
        "maxcut-mqlib",
        "--reference",
        "lite",
        "--records",
        str(bad),
        "--output",
        str(out_file),
    )
    assert code == 1 and "field 'A'" in err and "another task" not in err


# --- tcsexam suite (docs/commands.md#suite) ------------------------------------------------------


def test_suite_lists_the_benchmarks_suites_with_their_tasks_by_track(cli):
    code, out, _ = cli("suite")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"the bundled synthetic sample {SAMPLE}: 2 suites"
    # the sample's manifests: Full holds 15 tasks of each track but 10 of conjecture, Lite 5 of each
    assert lines[1:3] == ["  full  55 tasks (P 15, S 15, C 15, O 10)", "  lite  20 tasks (P 5, S 5, C 5, O 5)"]
    assert lines[3] == "its tasks: tcsexam suite full"


def test_suite_name_lists_every_task_with_its_track_and_index_points(cli):
    """Points: the track's weight over its tasks (30 over 5 theorem tasks: 6; 10 over 5 conjecture
    tasks: 2), what a score of 1 on the task adds to the index."""
    manifest = json.loads((SAMPLE / "suites" / "lite.json").read_text())
    code, out, _ = cli("suite", "lite", "--json")
    assert code == 0
    d = json.loads(out)
    assert d["suite"] == "lite" and d["file"] == str(SAMPLE / "suites" / "lite.json")
    points = {"theorem": 6.0, "solver": 6.0, "construction": 6.0, "conjecture": 2.0}
    assert d["tasks"] == [
        {"item": t["item"], "track": t["track"], "points": points[t["track"]]} for t in manifest["tasks"]
    ]
    assert sum(t["points"] for t in d["tasks"]) == 100  # a score of 1 everywhere is the whole index
    code, out, _ = cli("suite", "lite")
    assert code == 0
    rows = [line.split() for line in out.splitlines()[2:-1]]
    assert [(r[0], r[1], r[2]) for r in rows] == [
        ({"theorem": "P", "solver": "S", "construction": "C", "conjecture": "O"}[t["track"]], t["track"], t["item"])
        for t in manifest["tasks"]
    ]
    assert [r[3] for r in rows] == [f"{points[t['track']]:.2f}" for t in manifest["tasks"]]


def test_suite_the_benchmark_lacks_is_a_usage_error_with_the_one_meant(cli):
    code, out, err = cli("suite", "lit")
    assert code == 2 and out == ""
    assert "has no suite 'lit' (its suites: full, lite); did you mean 'lite'?" in err


def test_every_manifest_a_run_would_refuse_is_named_at_once(cli, tmp_path):
    """As validate refuses them: a malformed manifest, and one naming another suite than its file (a
    cohort declaring 'lite' is refused for it); every one listed, not the first alone."""
    bench = tmp_path / "bench"
    shutil.copytree(SAMPLE, bench)
    (bench / "suites" / "broken.json").write_text('{"suite": "broken", "tasks": []}')
    lite = bench / "suites" / "lite.json"
    lite.write_text(lite.read_text().replace('"suite": "lite"', '"suite": "lite2"'))
    code, out, err = cli("suite", "--benchmark", str(bench))
    assert code == 1 and out == "" and "Traceback" not in err
    assert f"{bench / 'suites' / 'broken.json'}: field 'tasks'" in err
    assert f"{lite}: field 'suite': manifest is suite 'lite2' but its file is lite.json" in err
    code, out, err = cli("suite", "lite", "--benchmark", str(bench))
    assert code == 1 and "manifest is suite 'lite2'" in err
    code, out, err = cli("validate", str(demo_run()), "--benchmark", str(bench))
    assert code == 1 and "manifest is suite 'lite2' but the cohort declares 'lite'" in err


def test_a_folder_without_suites_is_no_benchmark(cli, tmp_path):
    code, out, err = cli("suite", "--benchmark", str(tmp_path))
    assert code == 1 and f"{tmp_path}: holds no suites/*.json: is it a benchmark folder?" in err
