"""The API's data frames (docs/api.md#data-frames) agree with index.json, read with the json module,
number for number, in pandas and in polars; the instance frame with ``tcsexam solver-score``; and
with neither library installed a frame asks for the extra that installs one."""

from __future__ import annotations

import json
import math
import sys

import pytest

from tcsexam import api
from tcsexam.scoring.pipeline.benchmark import demo_run

TRACKS = ("theorem", "solver", "construction", "conjecture")  # docs/rules.md#the-index, in its order
LIBRARIES = ("pandas", "polars")


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> dict:
    from tcsexam.scoring.commands.main import main

    path = tmp_path_factory.mktemp("cli") / "index.json"
    assert main(["score", str(demo_run()), "--output", str(path)]) == 3
    return json.loads(path.read_text())


@pytest.fixture(scope="module")
def scored() -> api.Index:
    return api.score(api.load_run(api.demo_run()))


def records_of(frame) -> list[dict]:
    """A frame's rows as dicts, a missing value as None, in either library."""
    rows = frame.to_dicts() if hasattr(frame, "to_dicts") else frame.to_dict("records")
    return [{k: None if isinstance(v, float) and math.isnan(v) else v for k, v in row.items()} for row in rows]


def same(a, b) -> bool:
    """Equal values; a whole number a pandas column holds as a float counts as that number."""
    return a == b and (a is None) == (b is None)


def expected_index_rows(document: dict) -> list[dict]:
    """docs/api.md#data-frames, from the document's keys: per model each track then the index."""
    rows = []
    for model, result in document["models"].items():
        rank = (document["ranks"]["models"] or {}).get(model, {})
        for track in (*TRACKS, "index"):
            ci = (result["ci"]["tracks"].get(track) if track != "index" else result["ci"]["index"]) or {}
            value = result["index"] if track == "index" else result["track_means"][track]
            rows.append(
                {
                    "model": model,
                    "status": result["status"],
                    "track": track,
                    "value": value,
                    "se": ci.get("se"),
                    "lo": ci.get("lo"),
                    "hi": ci.get("hi"),
                    "df": ci.get("df"),
                    "tasks": ci.get("m"),
                    "rank_best": rank.get("best"),
                    "rank_worst": rank.get("worst"),
                }
            )
    return rows


@pytest.mark.parametrize("library", LIBRARIES)
def test_the_index_frame_is_index_json_number_for_number(scored, written, library):
    pytest.importorskip(library)
    got = records_of(scored.to_frame(library))
    want = expected_index_rows(written)
    assert len(got) == 5 * len(written["models"]) == 15
    assert [list(row) for row in got] == [list(row) for row in want]
    for g, w in zip(got, want, strict=True):
        assert all(same(g[k], w[k]) for k in w), (g, w)
    by = {(r["model"], r["track"]): r for r in got}
    # three cells read off the demo's index.json by eye: an index, a rank, an incomplete model's null
    assert by["atlas-70b", "index"]["value"] == written["models"]["atlas-70b"]["index"]
    assert by["borealis-8x22b", "theorem"]["rank_worst"] == 2
    assert by["cirrus-mini", "index"]["value"] is None and by["cirrus-mini", "theorem"]["lo"] is None


@pytest.mark.parametrize("library", LIBRARIES)
def test_the_tasks_frame_is_index_json_number_for_number(scored, written, library):
    pytest.importorskip(library)
    got = records_of(scored.tasks_frame(library))
    want = [
        {"model": model, "item": item, **task}
        for model, result in written["models"].items()
        for item, task in result["tasks"].items()
    ]
    assert len(got) == len(want) == 3 * 20
    for g, w in zip(got, want, strict=True):
        assert set(g) == set(w) and all(same(g[k], w[k]) for k in w), (g, w)


@pytest.mark.parametrize("library", LIBRARIES)
def test_the_instances_frame_is_what_solver_score_gives(scored, cli, library, tmp_path):
    pytest.importorskip(library)
    rows = records_of(scored.instances_frame(library))
    key = ("borealis-8x22b", "tsp-concorde", "1")
    attempt = [r for r in rows if (r["model"], r["item"], r["attempt"]) == key]
    records = demo_run() / "records" / key[0] / key[1] / f"{key[2]}.json"
    code, out, _ = cli(
        "solver-score", "--task", key[1], "--records", str(records), "--reference", "lite", "--output", "-"
    )
    assert code == 0
    single = json.loads(out)
    want = [
        {"instance": i["instance"], "status": i["status"], "A": i.get("A"), "z": i["z"], "phi": i["phi"]}
        for i in single["instances"]
    ]
    assert [{k: r[k] for k in ("instance", "status", "A", "z", "phi")} for r in attempt] == want
    # docs/rules.md#solver-score: the relative score is the mean of the instance scores
    assert math.isclose(sum(r["phi"] for r in attempt) / len(attempt), single["relative_score"], rel_tol=1e-12)


def test_with_neither_library_a_frame_names_the_extra(scored, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now raises ImportError
    monkeypatch.setitem(sys.modules, "polars", None)
    with pytest.raises(api.FramesUnavailable, match=r'pip install "tcsexam\[frames\]"') as error:
        scored.to_frame()
    assert isinstance(error.value, ImportError)
    with pytest.raises(ImportError, match="polars"):
        scored.tasks_frame("polars")


def test_polars_is_taken_when_pandas_is_missing(scored, monkeypatch):
    polars = pytest.importorskip("polars")
    monkeypatch.setitem(sys.modules, "pandas", None)
    assert isinstance(scored.to_frame(), polars.DataFrame)


def test_a_numeric_column_without_any_value_is_numeric_in_pandas():
    """docs/api.md#data-frames: a missing value is NaN in a pandas column of numbers, even when the
    column has no value at all (a run whose only model is incomplete: no index, no interval, no rank);
    a column of whole numbers with a value missing stays whole (Int64, <NA>)."""
    pandas = pytest.importorskip("pandas")
    from tcsexam.scoring.api.frames import make_frame

    rows = [
        {"model": "m", "value": None, "tasks": None, "rank_best": None},
        {"model": "n", "value": None, "tasks": 3, "rank_best": None},
    ]
    frame = make_frame(rows, ("model", "value", "tasks", "rank_best"), "pandas")
    assert [frame[name].dtype.kind for name in ("value", "rank_best")] == ["f", "f"]
    assert str(frame["tasks"].dtype) == "Int64"
    assert frame["model"].tolist() == ["m", "n"] and frame["tasks"].tolist() == [pandas.NA, 3]


def test_the_index_frames_task_counts_are_whole_numbers(scored):
    pytest.importorskip("pandas")
    frame = scored.to_frame("pandas")
    assert str(frame["tasks"].dtype) == "Int64"
    assert frame[frame["track"] == "index"]["tasks"].isna().all()
    assert (frame[frame["track"] != "index"]["tasks"].dropna() >= 1).all()
