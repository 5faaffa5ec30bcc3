"""The benchmark script runs end to end on a tiny size (its figures are not asserted: timing lives in
the script's report, never in tests)."""

from tests.bench.run_bench import main


def test_benchmark_runs_on_a_tiny_size(tmp_path):
    report = main(
        [
            "--instances",
            "300",
            "--models",
            "1",
            "--attempts",
            "1",
            "--large-models",
            "2",
            "--large-attempts",
            "2",
            "--reps",
            "1",
            "--workdir",
            str(tmp_path),
            "--json",
            str(tmp_path / "report.json"),
            "--cohorts",
            "3,102",
            "--rows",
            "14",
        ]
    )
    assert report["vs_naive"]["same_score"] is True  # the naive scorer agrees with the core
    assert report["run"]["rows"] == 55 and report["dashboard"]["peak_memory_mb"] > 0
    assert report["large_run"]["rows"] == 2 * 2 * 55 and report["score_large_run"]["records"] == 4 * 15 * 125
    assert (tmp_path / "report.json").is_file()
    assert set(report["load_average"]) == {"solver-score", "score", "naive", "dashboard", "models"}
    assert {k: v["models"] for k, v in report["models"].items() if k != "targets"} == {"3": 3, "102": 102, "2": 2}
    assert report["solver_score"]["output_mb"] > 0


def test_the_benchmark_runs_one_part_alone(tmp_path):
    report = main(["--instances", "200", "--reps", "1", "--workdir", str(tmp_path), "--only", "solver-score"])
    assert report["solver_score"]["seconds"] > 0 and list(report["load_average"]) == ["solver-score"]
    assert not {"score_run", "vs_naive", "dashboard"} & set(report)
    assert not (tmp_path / "run").exists() and not (tmp_path / "small").exists()  # nothing else generated


def test_coverage_simulation_runs_on_a_tiny_size():
    from tests.bench.coverage_sim import main as coverage

    report = coverage(["--runs", "50", "--tasks", "5"])
    assert set(report["track_coverage"]) == {"theorem", "solver", "construction", "conjecture"}
    assert 0.0 <= report["index_coverage"] <= 1.0


def test_the_benches_compile_the_modules_where_the_import_system_reads_them():
    """An editable install imports through a tree of links: bytecode written beside the checkout's
    files is never read, and a bench whose processes compile the project on every run times that."""
    import importlib.util
    from pathlib import Path

    import tcsexam.scoring.formats.read_keys as module
    from tests.bench.installed import compile_installed

    cached = Path(importlib.util.cache_from_source(module.__file__))
    cached.unlink(missing_ok=True)
    compile_installed()
    assert cached.is_file()
