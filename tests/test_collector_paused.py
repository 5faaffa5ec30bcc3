"""Loading and scoring a run pause the cyclic garbage collector (docs/performance.md#leaderboards-of-many-models:
it walked the run's long-lived objects again and again, a fifth of score at 10,000 models) and give it
back as it was, after a rejection too."""

import gc

import pytest

from tcsexam.scoring.errors import InputError
from tcsexam.scoring.pipeline import aggregate, index, run
from tcsexam.scoring.pipeline.benchmark import demo_run
from tcsexam.scoring.pipeline.index import build_index
from tcsexam.scoring.pipeline.run import load_run, resolve_run_paths


@pytest.fixture
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    (gc.enable if was else gc.disable)()


def test_the_collector_is_paused_while_a_run_is_loaded_and_scored(monkeypatch, collector_on):
    seen: dict[str, bool] = {}
    real_load, real_evaluate = run._load_run, aggregate.evaluate_run

    def load(paths):
        seen["load"] = gc.isenabled()
        return real_load(paths)

    def evaluate(loaded, thresholds):
        seen["evaluate"] = gc.isenabled()
        return real_evaluate(loaded, thresholds)

    monkeypatch.setattr(run, "_load_run", load)
    monkeypatch.setattr(index, "evaluate_run", evaluate)
    document = build_index(load_run(resolve_run_paths(str(demo_run()))))
    assert document["status"] == "incomplete"  # the demo, scored as ever
    assert seen == {"load": False, "evaluate": False}
    assert gc.isenabled()


def test_the_collector_comes_back_after_a_rejection(tmp_path, collector_on):
    (tmp_path / "cohort.json").write_text("{", encoding="utf-8")
    (tmp_path / "attempts.csv").write_text("model\n", encoding="utf-8")
    with pytest.raises(InputError):
        load_run(resolve_run_paths(str(tmp_path)))
    assert gc.isenabled()


def test_a_paused_collector_stays_paused(collector_on):
    gc.disable()
    build_index(load_run(resolve_run_paths(str(demo_run()))))
    assert not gc.isenabled()  # a caller's own choice is kept


def test_score_and_validate_keep_it_paused_until_they_have_printed(monkeypatch, collector_on, cli, tmp_path):
    """Given back after scoring, the collector walked the whole document at its next allocation; score
    and validate keep it paused while they write and print, and give it back at their end."""
    from tcsexam.scoring.commands import score

    seen: list[bool] = []
    for name in ("summary_table", "findings"):
        real = getattr(score, name)
        monkeypatch.setattr(score, name, lambda document, real=real: seen.append(gc.isenabled()) or real(document))
    assert cli("score", str(demo_run()), "--output", str(tmp_path / "index.json"))[0] == 3
    assert cli("validate", str(demo_run()))[0] == 3
    assert seen and not any(seen)
    assert gc.isenabled()


def test_fill_keeps_it_paused_while_it_scores_edits_and_writes(monkeypatch, collector_on, cli, ws):
    """fill holds every row, score and output until it writes them, as score holds its run: the
    collector, left on, walked them again and again (docs/performance.md#fill-measured-again)."""
    from tcsexam.scoring.prepare import fill
    from tests.test_prepare import fillable

    seen: list[bool] = []
    for name in ("plan_fill", "edited_table", "write_atomic_all"):
        real = getattr(fill, name)
        monkeypatch.setattr(fill, name, lambda *a, real=real, **k: seen.append(gc.isenabled()) or real(*a, **k))
    fillable(ws)
    code, _, err = cli("fill", str(ws.run), "--benchmark", str(ws.bench))
    assert code == 0, err
    assert (ws.run / "solver-scores/m/s1/1.json").is_file()
    assert seen == [False, False, False]
    assert gc.isenabled()


def test_tau2_keeps_it_paused_while_it_reads_and_measures_a_file(monkeypatch, collector_on, cli, tmp_path):
    """tau2 makes a Struct of every simulation and, for the key check, a dict of every object read
    from: the collector, left on, walked them as they were made (docs/performance.md#tau2-bench-files-and-fill).
    Given back at the end, and after a rejection."""
    from pathlib import Path

    from tcsexam.scoring.tau2 import metrics

    seen: list[bool] = []
    real = metrics.compute_tau2_metrics
    monkeypatch.setattr(metrics, "compute_tau2_metrics", lambda *a, **k: seen.append(gc.isenabled()) or real(*a, **k))
    results = (
        Path(__file__).parent / "data/tau2/gpt-4.1-2025-04-14_telecom_no-user_gpt-4.1-2025-04-14_4trials_5tasks.json"
    )
    code, _, err = cli("tau2", str(results), "--output", str(tmp_path / "tau2.json"))
    assert code == 0, err
    assert seen == [False]
    assert gc.isenabled()
    (tmp_path / "bad.json").write_text('{"info": {}, "simulations": [{"task_id": "t"}]}')
    assert cli("tau2", str(tmp_path / "bad.json"))[0] == 1
    assert gc.isenabled()
