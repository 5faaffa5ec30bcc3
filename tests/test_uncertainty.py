"""docs/rules.md#intervals: task-clustered t intervals, Welch–Satterthwaite df, paired comparison."""

from __future__ import annotations

import math

import pytest
from scipy import stats

from tcsexam.scoring.errors import InputError
from tcsexam.scoring.reports.compare import compare_models
from tcsexam.scoring.stats.uncertainty import ci_block, track_interval
from tcsexam.scoring.vocab import WEIGHTS
from tests.support.runs import full_rows


def test_track_interval_by_hand():
    # [1, 0, 1, 1]: mean 0.75; deviations .25, -.75, .25, .25; sd = sqrt((3*.0625 + .5625)/3) = sqrt(.25) = .5
    # se = .5 / sqrt(4) = .25; t(0.975, 3) = 3.182446305...; half width = .79561158
    r = track_interval([1, 0, 1, 1])
    assert r["mean"] == 0.75 and r["se"] == pytest.approx(0.25) and r["df"] == 3 and r["m"] == 4
    assert r["lo"] == pytest.approx(0.75 - 3.182446305284263 * 0.25, abs=1e-12)
    assert r["hi"] == pytest.approx(0.75 + 3.182446305284263 * 0.25, abs=1e-12)


def test_no_interval_below_two_tasks():
    r = track_interval([0.4])
    assert r == {"mean": 0.4, "se": None, "lo": None, "hi": None, "df": None, "m": 1}


def test_index_interval_by_hand():
    values = {
        "theorem": [1, 0, 1, 1],  # mean .75, se .25,            m 4
        "solver": [0.2, 0.4],  # mean .3,  se .1,             m 2
        "construction": [1.0, 1.5, 0.5],  # mean 1.0, se .5/sqrt(3),     m 3
        "conjecture": [0, 1],
    }  # mean .5,  se .5,             m 2
    index = 30 * 0.75 + 30 * 0.3 + 30 * 1.0 + 10 * 0.5  # 66.5
    block = ci_block(values, index, WEIGHTS)
    # variance terms w^2 se^2: 900*.0625 = 56.25, 900*.01 = 9, 900*(.25/3) = 75, 100*.25 = 25 -> 165.25
    terms = [(56.25, 4), (9.0, 2), (75.0, 3), (25.0, 2)]
    var = 165.25
    df = var**2 / sum(v * v / (m - 1) for v, m in terms)  # 27307.5625 / 4573.1875 = 5.9712318
    assert df == pytest.approx(5.9712318, abs=1e-7)
    half = stats.t.ppf(0.975, df) * math.sqrt(var)
    idx = block["index"]
    assert idx["value"] == 66.5 and idx["se"] == pytest.approx(math.sqrt(165.25))
    assert idx["df"] == pytest.approx(df, rel=1e-12)
    assert (idx["lo"], idx["hi"]) == pytest.approx((66.5 - half, 66.5 + half), abs=1e-9)
    assert block["method"] == "task-clustered-t" and block["level"] == 0.95


def test_index_interval_needs_two_tasks_in_every_track():
    block = ci_block(
        {"theorem": [1, 0], "solver": [0.2, 0.4], "construction": [1, 2], "conjecture": [1]}, 50.0, WEIGHTS
    )
    assert block["index"] == {"value": 50.0, "se": None, "lo": None, "hi": None, "df": None}
    assert block["tracks"]["conjecture"]["se"] is None


def test_ci_block_in_index_json(ws):
    ws.write_rows(full_rows())
    m = ws.load()["models"]["m"]
    # mini suite: conjecture has one task, so the index carries no interval; theorem has [1, 0]
    assert m["ci"]["tracks"]["theorem"]["se"] == pytest.approx(0.5)
    assert m["ci"]["index"]["value"] == m["index"] and m["ci"]["index"]["lo"] is None


def test_ci_only_for_tracks_with_a_mean(ws):
    ws.write_rows(full_rows()[1:])  # t1 missing: theorem mean null
    m = ws.load()["models"]["m"]
    assert "theorem" not in m["ci"]["tracks"] and m["ci"]["index"] is None


def doc(models: dict[str, dict[str, tuple[str, float | None]]]) -> dict:
    return {
        "models": {
            name: {"tasks": {item: {"track": t, "mean": v} for item, (t, v) in tasks.items()}}
            for name, tasks in models.items()
        }
    }


def test_paired_interval_excludes_zero_where_separate_intervals_overlap():
    a_scores = [0.5, 0.6, 0.7, 0.8, 0.9]
    b_scores = [0.44, 0.56, 0.64, 0.76, 0.84]  # B trails A by 0.04-0.06 on every task
    tasks_a = {f"s{i}": ("solver", v) for i, v in enumerate(a_scores)}
    tasks_b = {f"s{i}": ("solver", v) for i, v in enumerate(b_scores)}
    for t in ("theorem", "construction", "conjecture"):
        tasks_a.update({f"{t}{i}": (t, 1.0 * (i % 2)) for i in range(3)})
        tasks_b.update({f"{t}{i}": (t, 1.0 * (i % 2)) for i in range(3)})
    ra, rb = track_interval(a_scores), track_interval(b_scores)
    assert ra["lo"] < rb["hi"]  # the separate intervals overlap
    result = compare_models(doc({"A": tasks_a, "B": tasks_b}), "A", "B")
    s = result["tracks"]["solver"]
    # diffs .06 .04 .06 .04 .06: mean .052, sd .010954, se .004899, t(.975,4) 2.776 -> [.0384, .0656]
    assert s["mean"] == pytest.approx(0.052) and s["lo"] > 0
    assert s["lo"] == pytest.approx(0.052 - stats.t.ppf(0.975, 4) * 0.0109544511501 / math.sqrt(5), abs=1e-9)
    assert result["index"]["value"] == pytest.approx(30 * 0.052)


def test_paired_uses_only_tasks_both_have_scored():
    a = {"t1": ("theorem", 1.0), "t2": ("theorem", 0.0), "t3": ("theorem", 1.0)}
    b = {"t1": ("theorem", 0.0), "t2": ("theorem", None), "t3": ("theorem", 1.0)}
    result = compare_models(doc({"A": a, "B": b}), "A", "B")
    assert result["tracks"]["theorem"]["m"] == 2 and [t.item for t in result["tasks"]] == ["t1", "t3"]
    assert result["index"] is None  # other tracks have no common task


def test_compare_unknown_model_is_rejected():
    with pytest.raises(InputError, match="not in the cohort"):
        compare_models(doc({"A": {}}), "A", "Z")


def test_compare_cli_on_the_demo(cli, tmp_path):
    import json

    from tcsexam.scoring.pipeline.benchmark import demo_run

    out = tmp_path / "cmp.json"
    code, stdout, _ = cli("compare", str(demo_run()), "--models", "atlas-70b", "borealis-8x22b", "--output", str(out))
    assert code == 0 and "index difference" in stdout
    result = json.loads(out.read_text())
    index = json.loads(json.dumps(result))["index"]
    assert index["lo"] < index["value"] < index["hi"]
