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
