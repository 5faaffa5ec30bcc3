"""docs/rules.md through the command line: index.json's ``ranks`` and ``ci.index.shares``, ``compare``'s
``tasks`` / ``instances`` / ``mde``, and ``tcsexam plan``, on hand-built runs with the arithmetic
written out, and on the demo run against an independent route (numpy and scipy.stats)."""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path

import msgspec
import numpy as np
import pytest
from scipy import stats
from scipy.special import ndtr

from tcsexam.scoring.formats.results import CompareDocument, IndexDocument, PlanDocument
from tcsexam.scoring.vocab import TRACKS, WEIGHTS
from tests.support.runs import MINI_SUITE, row

DEMO = Path(__file__).resolve().parents[1] / "sample_runs" / "demo"

# two tasks per track, so that every track can have an interval
SUITE8 = {**MINI_SUITE, "tasks": [*MINI_SUITE["tasks"], {"item": "o2", "track": "conjecture"}]}
TRACK_OF = {t["item"]: t["track"] for t in SUITE8["tasks"]}


def write_run(ws, scores: dict[str, dict[str, list[float]]], per_item: dict | None = None) -> None:
    """A SUITE8 run: ``scores[model][item]`` lists the valid selected attempts' scores in order."""
    ws.write_json(ws.bench / "suites" / "lite.json", SUITE8)
    rows = []
    cohort = {}
    for model, items in scores.items():
        counts = {item: len(xs) for item, xs in items.items()}
        default = max(set(counts.values()), key=list(counts.values()).count)
        plan = {"attempts_per_task": default}
        extra = {item: n for item, n in counts.items() if n != default}
        extra.update((per_item or {}).get(model, {}))
        if extra:
            plan["attempts_per_item"] = extra
        cohort[model] = plan
        for item, xs in items.items():
            for k, x in enumerate(xs, start=1):
                rows.append(row(model=model, track=TRACK_OF[item], item=item, attempt=str(k), score=repr(float(x))))
    ws.write_rows(rows)
    ws.write_cohort(models=cohort)


def read(path: Path, kind: type) -> dict:
    """A written file, decoded through its output type (fails on a missing, extra or mistyped key)."""
    data = path.read_bytes()
    msgspec.json.decode(data, type=kind)
    return json.loads(data)


# --- index.json: ranks (docs/rules.md#ranks) and shares (docs/rules.md#variance-budget) ----------------------------------------

# One attempt each. hi − lo is .5 or 1 on every task, the same within each track (se = 0: p = 0);
# mid is hi on the first task of each track and lo on the second.
LO = {"t1": 0, "t2": 0, "s1": 0.1, "s2": 0.1, "c1": 0.2, "c2": 0.2, "o1": 0, "o2": 0}  # 3 + 6 = 9
HI = {"t1": 1, "t2": 1, "s1": 0.6, "s2": 0.6, "c1": 0.7, "c2": 0.7, "o1": 1, "o2": 1}  # 30 + 18 + 21 + 10 = 79
MID = {"t1": 1, "t2": 0, "s1": 0.6, "s2": 0.1, "c1": 0.7, "c2": 0.2, "o1": 1, "o2": 0}  # 15 + 10.5 + 13.5 + 5 = 44


def test_index_json_ranks_one_separated_pair_and_shares_by_hand(ws, cli):
    # cohort order lo, mid, hi: ranks list the models by index, highest first
    write_run(ws, {m: {i: [x] for i, x in s.items()} for m, s in (("lo", LO), ("mid", MID), ("hi", HI))})
    code, _, err = cli(*ws.score_args())
    assert code == 0, err
    doc = read(ws.out, IndexDocument)
    ranks = doc["ranks"]
    assert (ranks["method"], ranks["alpha"]) == ("paired-t-holm", 0.05)
    # hi − mid and mid − lo: per track differences [0, 1], [0, .5], [0, .5], [0, 1] (or reversed):
    # d = 30·.5 + 30·.25 + 30·.25 + 10·.5 = 35; se per track .5, .25, .25, .5;
    # var = 900·.25 + 900·.0625 + 900·.0625 + 100·.25 = 225 + 56.25 + 56.25 + 25 = 362.5;
    # df = 362.5² / (225² + 56.25² + 56.25² + 25²) (m − 1 = 1 each) = 131406.25 / 57578.125
    se, df = math.sqrt(362.5), 131406.25 / 57578.125
    p = 2 * stats.t.sf(35 / se, df)
    assert p > 0.05 / 2  # Holm: 3·0 for hi–lo, then 2·p for both others: not separated
    expected_pairs = [
        ("hi", "mid", 35.0, se, df, p, 2 * p, False),
        ("hi", "lo", 70.0, 0.0, None, 0.0, 0.0, True),  # 30·1 + 30·.5 + 30·.5 + 10·1 = 70, se = 0: p = 0
        ("mid", "lo", 35.0, se, df, p, 2 * p, False),
    ]
    assert len(ranks["pairs"]) == 3
    for got, (a, b, d, s, f, pv, ph, sep) in zip(ranks["pairs"], expected_pairs, strict=True):
        assert (got["a"], got["b"], got["separated"]) == (a, b, sep)
        assert got["difference"] == pytest.approx(d, abs=1e-9) and got["se"] == pytest.approx(s, abs=1e-9)
        assert got["df"] == (None if f is None else pytest.approx(f, rel=1e-9))
        assert got["p"] == pytest.approx(pv, rel=1e-9, abs=1e-300) and got["p_holm"] == pytest.approx(ph, rel=1e-9)
    # best = 1 + separated above, worst = 3 − separated below
    assert ranks["models"] == {
        "hi": {"best": 1, "worst": 2},
        "mid": {"best": 1, "worst": 3},
        "lo": {"best": 2, "worst": 3},
    }
    # shares: hi and lo have no spread in any track (var = 0): the key is left out;
    # mid: w²se² = 225, 56.25, 56.25, 25 over 362.5
    assert "shares" not in doc["models"]["hi"]["ci"]["index"] and "shares" not in doc["models"]["lo"]["ci"]["index"]
    assert doc["models"]["mid"]["ci"]["index"]["shares"] == pytest.approx(
        {"theorem": 225 / 362.5, "solver": 56.25 / 362.5, "construction": 56.25 / 362.5, "conjecture": 25 / 362.5},
        rel=1e-9,
    )
    # table: the rank column as best or best–worst, rows by index
    code, out, _ = cli("table", str(ws.out))
    assert code == 0
    assert "| 1–2 | hi |" in out and "| 1–3 | mid |" in out and "| 2–3 | lo |" in out


def test_index_json_single_model_ranks_first_without_pairs(ws, cli):
    write_run(ws, {"only": {i: [x] for i, x in MID.items()}})
    assert cli(*ws.score_args())[0] == 0
    ranks = read(ws.out, IndexDocument)["ranks"]
    assert ranks["models"] == {"only": {"best": 1, "worst": 1}} and ranks["pairs"] == []


def _se_by_numpy(values: list[float]) -> float:
    return float(np.std(np.asarray(values, dtype=float), ddof=1) / math.sqrt(len(values)))


def test_demo_index_json_ranks_and_shares_by_an_independent_route(cli, tmp_path):
    out = tmp_path / "index.json"
    code, _, err = cli("score", str(DEMO), "--output", str(out))
    assert code == 3, err  # cirrus-mini is incomplete
    doc = read(out, IndexDocument)
    models = doc["models"]
    by_track = {
        m: {t: [x["mean"] for x in e["tasks"].values() if x["track"] == t] for t in TRACKS} for m, e in models.items()
    }
    # shares from numpy's standard errors of the task means
    for m in ("atlas-70b", "borealis-8x22b"):
        terms = {t: WEIGHTS[t] ** 2 * _se_by_numpy(by_track[m][t]) ** 2 for t in TRACKS}
        total = sum(terms.values())
        shares = models[m]["ci"]["index"]["shares"]
        assert shares == pytest.approx({t: v / total for t, v in terms.items()}, rel=1e-9, abs=1e-15)
        assert math.fsum(shares.values()) == pytest.approx(1.0, abs=1e-12)
    assert models["borealis-8x22b"]["ci"]["index"]["shares"]["conjecture"] == 0.0  # every conjecture task 0
    assert models["cirrus-mini"]["ci"]["index"] is None  # no index, no shares
    # the one pair: the paired difference recomputed with numpy, p with scipy.stats
    diffs = {
        t: [a - b for a, b in zip(by_track["atlas-70b"][t], by_track["borealis-8x22b"][t], strict=True)] for t in TRACKS
    }
    d = sum(WEIGHTS[t] * np.mean(diffs[t]) for t in TRACKS)
    v = {t: WEIGHTS[t] ** 2 * _se_by_numpy(diffs[t]) ** 2 for t in TRACKS}
    var = sum(v.values())
    df = var**2 / sum(x**2 / (len(diffs[t]) - 1) for t, x in v.items())
    p = 2 * stats.t.sf(abs(d) / math.sqrt(var), df)
    ranks = doc["ranks"]
    (pair,) = ranks["pairs"]
    assert (pair["a"], pair["b"]) == ("atlas-70b", "borealis-8x22b")
    assert pair["difference"] == pytest.approx(models["atlas-70b"]["index"] - models["borealis-8x22b"]["index"])
    assert (pair["difference"], pair["se"], pair["df"]) == pytest.approx((d, math.sqrt(var), df), rel=1e-9)
    assert pair["p"] == pytest.approx(p, rel=1e-9) and pair["p_holm"] == pair["p"]  # K = 1
    assert p > 0.05 and pair["separated"] is False
    assert ranks["models"] == {"atlas-70b": {"best": 1, "worst": 2}, "borealis-8x22b": {"best": 1, "worst": 2}}
    # the same difference as `compare` writes
    cmp_out = tmp_path / "compare.json"
    assert cli("compare", str(DEMO), "--models", "atlas-70b", "borealis-8x22b", "--output", str(cmp_out))[0] == 0
    index = read(cmp_out, CompareDocument)["index"]
    assert (index["value"], index["se"], index["df"]) == pytest.approx((d, math.sqrt(var), df), rel=1e-9)
    table = cli("table", str(out))[1]
    assert "| 1–2 | atlas-70b |" in table and "| 1–2 | borealis-8x22b † |" in table and "|  | cirrus-mini |" in table


# --- compare: tasks, instances, mde (docs/rules.md#per-task-differences and docs/rules.md#planning-attempts) ----------------------------------------------

PHI1, PHIM1 = float(ndtr(1.0)), float(ndtr(-1.0))
# s1 (objective, maximize): instance a from [10, 12, 14]: mu 12, scale 2; b from [100, 100, 100]: mu 100,
# s 0, scale max(0, .02·100, 1e-9) = 2. s2 (solve): x from [1, 0, 1]: mu 2/3, scale sd = sqrt(1/3);
# y from [1, 1]: mu 1, scale .02; solved y: z = 0.
S1_RECORDS = {
    ("A", "1"): ([{"instance": "a", "status": "ok", "A": 14}, {"instance": "b", "status": "ok", "A": 100}]),
    ("A", "2"): ([{"instance": "a", "status": "ok", "A": 10}, {"instance": "b", "status": "ok", "A": 102}]),
    ("B", "1"): ([{"instance": "a", "status": "ok", "A": 12}, {"instance": "b", "status": "timeout"}]),
    ("B", "2"): ([{"instance": "a", "status": "ok", "A": 14}, {"instance": "b", "status": "ok", "A": 100}]),
}
# Phi per instance (a, b): A1 (Phi(1), .5), A2 (Phi(-1), Phi(1)), B1 (.5, 0), B2 (Phi(1), .5)
S1_SCORES = {"A": [(PHI1 + 0.5) / 2, (PHIM1 + PHI1) / 2], "B": [0.25, (PHI1 + 0.5) / 2]}
S2_X_A, S2_X_B = float(ndtr((1 - 2 / 3) / math.sqrt(1 / 3))), float(ndtr((0 - 2 / 3) / math.sqrt(1 / 3)))
S2_RECORDS = {
    ("A", "1"): [{"instance": "x", "status": "ok", "solved": True}, {"instance": "y", "status": "ok", "solved": True}],
    ("A", "2"): [{"instance": "x", "status": "ok", "solved": True}, {"instance": "y", "status": "ok", "solved": True}],
    ("B", "1"): [{"instance": "x", "status": "ok", "solved": False}, {"instance": "y", "status": "ok", "solved": True}],
}  # B's attempt 2 of s2 has no records file: s2 has no per-instance counts
S2_SCORES = {"A": [(S2_X_A + 0.5) / 2] * 2, "B": [(S2_X_B + 0.5) / 2, 0.3]}
PAIR_SCORES = {
    "A": {"t1": [1, 1], "t2": [1, 0], "c1": [1.2, 0.8], "c2": [0.4, 0.6], "o1": [1, 0], "o2": [0, 0]},
    "B": {"t1": [1, 0], "t2": [0, 0], "c1": [0.9, 0.7], "c2": [0.5, 0.3], "o1": [0, 0], "o2": [1, 0]},
}


def write_pair_run(ws) -> dict[str, dict[str, list[float]]]:
    scores = {
        m: {
            "t1": PAIR_SCORES[m]["t1"],
            "t2": PAIR_SCORES[m]["t2"],
            "s1": S1_SCORES[m],
            "s2": S2_SCORES[m],
            **{i: PAIR_SCORES[m][i] for i in ("c1", "c2", "o1", "o2")},
        }
        for m in ("A", "B")
    }
    write_run(ws, scores)
    for item, records in (("s1", S1_RECORDS), ("s2", S2_RECORDS)):
        for (model, attempt), recs in records.items():
            ws.write_records(model, item, attempt, recs)
    return scores


def _within(tasks: list[list[float]]) -> float:
    """s_w² by docs/rules.md#planning-attempts formula, written out with numpy."""
    num = sum(float(np.sum((np.asarray(xs) - np.mean(xs)) ** 2)) for xs in tasks if len(xs) >= 2)
    return num / sum(len(xs) - 1 for xs in tasks if len(xs) >= 2)


def test_compare_tasks_instances_and_mde_on_a_hand_built_run(ws, cli, tmp_path):
    scores = write_pair_run(ws)
    out = tmp_path / "compare.json"
    code, text, err = cli(
        "compare", str(ws.run), "--benchmark", str(ws.bench), "--models", "A", "B", "--output", str(out)
    )
    assert code == 0, err
    result = read(out, CompareDocument)
    # tasks: task means and A − B in suite order
    expected = {
        "t1": (1.0, 0.5),
        "t2": (0.5, 0.0),
        "s1": ((PHI1 + 0.5 + PHIM1 + PHI1) / 4, (0.25 + (PHI1 + 0.5) / 2) / 2),
        "s2": ((S2_X_A + 0.5) / 2, ((S2_X_B + 0.5) / 2 + 0.3) / 2),
        "c1": (1.0, 0.8),
        "c2": (0.5, 0.4),
        "o1": (0.5, 0.0),
        "o2": (0.0, 0.5),
    }
    assert [x["item"] for x in result["tasks"]] == list(expected)
    for x in result["tasks"]:
        a, b = expected[x["item"]]
        assert (x["track"], x["a"], x["b"]) == (TRACK_OF[x["item"]], pytest.approx(a), pytest.approx(b))
        assert x["difference"] == pytest.approx(a - b, abs=1e-12)
    # instances: s1 only (B's second attempt of s2 has no records file). Mean Phi per instance:
    # a: A (Phi(1) + Phi(-1))/2 = .5, B (.5 + Phi(1))/2 > .5: B better;
    # b: A (.5 + Phi(1))/2, B (0 + .5)/2 = .25: A better; mean difference
    # ((Phi(-1) − .5)/2 + Phi(1)/2)/2 = (Phi(1) + Phi(-1) − .5)/4 = .125
    assert result["instances"] == {
        "s1": {"a_better": 1, "b_better": 1, "equal": 0, "mean_difference": pytest.approx(0.125, abs=1e-12)}
    }
    assert result["instances_left_out"] == {"s2": "B's attempt 2 was not re-scored from a records file"}
    # mde: docs/rules.md#planning-attempts formulas written out with numpy, quantiles by scipy.stats.t.ppf
    terms = {}
    for t in TRACKS:
        items = [i for i in SUITE8_ITEMS if TRACK_OF[i] == t]
        a, b = [scores["A"][i] for i in items], [scores["B"][i] for i in items]
        d = [np.mean(x) - np.mean(y) for x, y in zip(a, b, strict=True)]
        swa, swb = _within(a), _within(b)
        sbd = max(
            0.0, float(np.var(d, ddof=1)) - np.mean([swa / len(x) + swb / len(y) for x, y in zip(a, b, strict=True)])
        )
        terms[t] = (sbd, swa + swb, len(items))
    for r in range(1, 11):
        v = {t: WEIGHTS[t] ** 2 * (sbd + sw / r) / m for t, (sbd, sw, m) in terms.items()}
        var = sum(v.values())
        df = var**2 / sum(x**2 / (terms[t][2] - 1) for t, x in v.items())
        mde = (stats.t.ppf(0.975, df) + stats.t.ppf(0.80, df)) * math.sqrt(var)
        assert result["mde"][str(r)] == pytest.approx(mde, rel=1e-9)
    assert list(result["mde"]) == [str(r) for r in range(1, 11)]
    # text: the per-task differences largest first (|.5| ties in suite order), the instance counts, the MDE
    order = [line.split()[0] for line in text.split("largest difference first")[1].splitlines()[1:9]]
    assert order == ["t1", "t2", "o1", "o2", "s2", "c1", "s1", "c2"]
    assert "s1" in text.split("solver instances")[1] and "    1 /     1 /     0" in text
    assert f"r=1: {result['mde']['1']:.2f}" in text


SUITE8_ITEMS = [t["item"] for t in SUITE8["tasks"]]


def test_compare_scores_each_records_file_once(ws, cli, tmp_path, monkeypatch):
    # the per-instance Phi come from the records cross-check: every file is scored exactly once
    import tcsexam.scoring.pipeline.crosscheck as crosscheck

    write_pair_run(ws)
    calls = []
    real = crosscheck.score_records

    def counting(task_ref, records):
        calls.extend(records.files)  # the files this call scores
        return real(task_ref, records)

    monkeypatch.setattr(crosscheck, "score_records", counting)
    code, _, err = cli("compare", str(ws.run), "--benchmark", str(ws.bench), "--models", "A", "B")
    assert code == 0, err
    assert len(calls) == len(S1_RECORDS) + len(S2_RECORDS)  # 7 files


def test_compare_mde_null_without_repeated_attempts_and_instances_empty_without_records(ws, cli, tmp_path):
    write_run(ws, {"A": {i: [x] for i, x in HI.items()}, "B": {i: [x] for i, x in MID.items()}})
    out = tmp_path / "c.json"
    code, text, err = cli(
        "compare", str(ws.run), "--benchmark", str(ws.bench), "--models", "A", "B", "--output", str(out)
    )
    assert code == 0, err
    result = read(out, CompareDocument)
    assert result["mde"] == {str(r): None for r in range(1, 11)}  # one attempt per task: s_w² null
    assert result["instances"] == {}
    no_records = "A has no attempt re-scored from records; B has no attempt re-scored from records"
    assert result["instances_left_out"] == {"s1": no_records, "s2": no_records}
    assert f"  s1, s2: {no_records}" in text  # one line per reason
    assert "MDE: not available" in text


def compare_json(ws, cli, tmp_path) -> tuple[int, str, dict]:
    out = tmp_path / "c.json"
    code, text, err = cli(
        "compare", str(ws.run), "--benchmark", str(ws.bench), "--models", "A", "B", "--output", str(out)
    )
    assert code in (0, 3), err
    return code, text, read(out, CompareDocument)


def test_compare_counts_instances_only_from_attempts_that_count_and_says_why_a_task_has_none(ws, cli, tmp_path):
    # docs/rules.md#per-task-differences: B's attempt 2 of s1 is judge_failed though its records file is
    # there (S1_RECORDS): it does not count, B has no task mean for s1, and s1 has no instance counts
    write_pair_run(ws)
    rows = list(csv.DictReader(io.StringIO((ws.run / "attempts.csv").read_text())))
    (failed,) = [r for r in rows if (r["model"], r["item"], r["attempt"]) == ("B", "s1", "2")]
    failed.update(score="", score_status="judge_failed")
    ws.write_rows(rows)
    assert (ws.run / "records" / "B" / "s1" / "2.json").is_file()
    code, text, result = compare_json(ws, cli, tmp_path)
    assert code == 3  # B is incomplete
    assert "s1" not in [x["item"] for x in result["tasks"]] and result["instances"] == {}
    assert result["instances_left_out"] == {
        "s1": "B has no task mean (adopted attempt 2 is 'judge_failed')",
        "s2": "B's attempt 2 was not re-scored from a records file",
    }
    lines = text.split("solver tasks without instance counts (only attempts that count are compared):\n")[1]
    assert lines.splitlines()[:2] == [
        "  s1: B has no task mean (adopted attempt 2 is 'judge_failed')",
        "  s2: B's attempt 2 was not re-scored from a records file",
    ]


def test_compare_counts_no_instances_of_a_task_a_model_has_not_scored(ws, cli, tmp_path):
    # A plans 3 attempts of s1 and ran 2, both re-scored from records: A has no task mean for s1, so s1
    # is in neither `tasks` nor `instances`, though every adopted attempt has its records
    scores = {m: {i: [x] for i, x in MID.items()} for m in ("A", "B")}
    scores["A"]["s1"] = S1_SCORES["A"]
    scores["B"]["s1"] = S1_SCORES["B"]
    write_run(ws, scores, per_item={"A": {"s1": 3}, "B": {"s1": 2}})
    for (model, attempt), recs in S1_RECORDS.items():
        ws.write_records(model, "s1", attempt, recs)
    _, _, result = compare_json(ws, cli, tmp_path)
    assert "s1" not in [x["item"] for x in result["tasks"]] and result["instances"] == {}
    assert result["instances_left_out"]["s1"] == "A has no task mean (2 of 3 planned attempts)"


def test_compare_names_the_track_without_a_common_task_and_computes_no_index(ws, cli, tmp_path):
    # A ran neither construction task as planned (2 planned, 1 run): no construction task is scored by
    # both, so construction has no difference and the paired index difference, over every track, has none
    scores = {m: {i: [x] for i, x in MID.items()} for m in ("A", "B")}
    write_run(ws, scores, per_item={"A": {"c1": 2, "c2": 2}})
    code, text, result = compare_json(ws, cli, tmp_path)
    assert code == 3 and result["index"] is None
    assert set(result["tracks"]) == {"theorem", "solver", "conjecture"}
    assert "  C construction  no task scored by both models" in text
    assert (
        "  index: no construction task is scored by both models, so the paired index difference is not computed" in text
    )


def test_compare_usage_and_rejections_write_nothing(ws, cli, tmp_path):
    write_pair_run(ws)
    out = tmp_path / "c.json"
    base = ["compare", str(ws.run), "--benchmark", str(ws.bench), "--output", str(out)]
    code, _, err = cli(*base, "--models", "A", "Z")
    assert code == 1 and "Z" in err and "--models" in err and "Traceback" not in err
    assert cli(*base, "--models", "A")[0] == 2
    assert not out.exists()


# --- plan (docs/rules.md#planning-attempts) ----------------------------------------------------------------------------

# Per track, hand-worked:
# theorem  t1 [1, 0] (mean .5), t2 [1, 1, 1] (mean 1): s_w² = (.25 + .25 + 0)/(1 + 2) = 1/6;
#          S² = 2·.25²/1 = .125, mean(1/r) = (1/2 + 1/3)/2 = 5/12: σ_b² = .125 − 5/72 = 1/18
# solver   s1 [.2, .4], s2 [.6, .8]: s_w² = 4·.01/2 = .02; S² = 2·.2² = .08; σ_b² = .08 − .02/2 = .07
# constr.  c1 [1, 1], c2 [.5, .5]: s_w² = 0; S² = 2·.25² = .125 = σ_b²
# conject. o1 [0, 1], o2 [0, 1]: s_w² = 4·.25/2 = .5; S² = 0: σ_b² = max(0, 0 − .5/2) = 0 (floored)
PLAN_SCORES = {
    "t1": [1, 0],
    "t2": [1, 1, 1],
    "s1": [0.2, 0.4],
    "s2": [0.6, 0.8],
    "c1": [1.0, 1.0],
    "c2": [0.5, 0.5],
    "o1": [0, 1],
    "o2": [0, 1],
}
PLAN_VARIANCES = {
    "theorem": (2, 1 / 6, 1 / 18),
    "solver": (2, 0.02, 0.07),
    "construction": (2, 0.0, 0.125),
    "conjecture": (2, 0.5, 0.0),
}


def hand_half_width(r: int) -> float:
    # var(r) = Σ w²(σ_b² + s_w²/r)/m; r = 1: 900·(2/9)/2 + 900·.09/2 + 900·.125/2 + 100·.5/2
    #        = 100 + 40.5 + 56.25 + 25 = 221.75
    v = {t: WEIGHTS[t] ** 2 * (sb + sw / r) / m for t, (m, sw, sb) in PLAN_VARIANCES.items()}
    var = sum(v.values())
    df = var**2 / sum(x**2 / (PLAN_VARIANCES[t][0] - 1) for t, x in v.items())
    return float(stats.t.ppf(0.975, df) * math.sqrt(var))


def test_hand_half_width_matches_the_written_out_sum():
    # r = 1: var 221.75, df = 221.75² / (100² + 40.5² + 56.25² + 25²)
    df = 221.75**2 / (100**2 + 40.5**2 + 56.25**2 + 25**2)
    assert hand_half_width(1) == pytest.approx(stats.t.ppf(0.975, df) * math.sqrt(221.75), rel=1e-12)
    # r = 2: 62.5 + 36 + 56.25 + 12.5 = 167.25
    df = 167.25**2 / (62.5**2 + 36**2 + 56.25**2 + 12.5**2)
    assert hand_half_width(2) == pytest.approx(stats.t.ppf(0.975, df) * math.sqrt(167.25), rel=1e-12)


def test_plan_cli_on_a_hand_built_run(ws, cli, tmp_path):
    flat = {i: [0.5] * 2 if TRACK_OF[i] == "solver" else [1, 1] for i in SUITE8_ITEMS}  # var = 0
    once = {i: [x] for i, x in MID.items()}  # one attempt per task: s_w² null
    write_run(ws, {"m": PLAN_SCORES, "flat": flat, "once": once})
    out = tmp_path / "plan.json"
    target = (hand_half_width(2) + hand_half_width(3)) / 2  # reached with 3 attempts, not with 2
    args = ["plan", str(ws.run), "--benchmark", str(ws.bench), "--max-attempts", "4", "--output", str(out)]
    code, text, err = cli(*args, "--target", repr(target))
    assert code == 0, err
    plan = read(out, PlanDocument)
    assert (plan["target"], plan["level"]) == (target, 0.95)
    assert list(plan["models"]) == ["m", "flat", "once"]
    m = plan["models"]["m"]
    for t, (n, sw, sb) in PLAN_VARIANCES.items():
        got = m["tracks"][t]
        assert got["m"] == n and got["s_w2"] == pytest.approx(sw, abs=1e-12)
        assert got["sigma_b2"] == pytest.approx(sb, abs=1e-12)
    assert m["tracks"]["conjecture"]["sigma_b2"] == 0.0  # floored, not negative
    assert m["half_width"] == pytest.approx({str(r): hand_half_width(r) for r in range(1, 5)}, rel=1e-9)
    assert m["attempts_for_target"] == 3
    flat_plan = plan["models"]["flat"]
    assert flat_plan["half_width"] == {str(r): 0.0 for r in range(1, 5)} and flat_plan["attempts_for_target"] == 1
    once_plan = plan["models"]["once"]
    assert all(v["s_w2"] is None and v["sigma_b2"] is None and v["m"] == 2 for v in once_plan["tracks"].values())
    assert once_plan["half_width"] == dict.fromkeys(map(str, range(1, 5))) and once_plan["attempts_for_target"] is None
    assert f"r=3: {hand_half_width(3):.2f}" in text and "3 attempts per task" in text
    # "once" has no half-width at all: said once, never as a target "not reached"
    assert "half-width: not available" in text and "not reached" not in text
    # without --target: null; the default R is 10
    code, _, _ = cli("plan", str(ws.run), "--benchmark", str(ws.bench), "--output", str(out))
    plan = read(out, PlanDocument)
    assert code == 0 and plan["target"] is None and plan["models"]["m"]["attempts_for_target"] is None
    assert list(plan["models"]["m"]["half_width"]) == [str(r) for r in range(1, 11)]


def test_plan_of_an_incomplete_run_exits_3_and_plans_the_tasks_with_a_mean(ws, cli, tmp_path):
    # t2 planned 3 times but run twice: no task mean, so theorem has m = 1 and nothing can be planned
    scores = dict(PLAN_SCORES, t2=[1, 1])
    write_run(ws, {"m": scores}, per_item={"m": {"t2": 3}})
    out = tmp_path / "plan.json"
    code, _, err = cli("plan", str(ws.run), "--benchmark", str(ws.bench), "--output", str(out))
    assert code == 3, err
    m = read(out, PlanDocument)["models"]["m"]
    assert m["tracks"]["theorem"] == {"m": 1, "s_w2": None, "sigma_b2": None}
    assert m["tracks"]["solver"]["s_w2"] == pytest.approx(0.02, abs=1e-12)
    assert set(m["half_width"].values()) == {None}


@pytest.mark.parametrize(
    "extra",
    [
        ["--max-attempts", "0"],
        ["--max-attempts", "1001"],
        ["--max-attempts", "two"],
        ["--target", "0"],
        ["--target", "-1"],
        ["--target", "nan"],
        ["--target", "inf"],
        ["--bogus"],
    ],
)
def test_plan_usage_errors_exit_2_and_write_nothing(ws, cli, tmp_path, extra):
    write_run(ws, {"m": PLAN_SCORES})
    out = tmp_path / "plan.json"
    code, stdout, err = cli("plan", str(ws.run), "--benchmark", str(ws.bench), "--output", str(out), *extra)
    assert code == 2 and "usage: tcsexam" in err and stdout == "" and not out.exists()


def test_plan_rejected_input_exits_1_and_writes_nothing(ws, cli, tmp_path):
    write_run(ws, {"m": PLAN_SCORES})
    rows = (ws.run / "attempts.csv").read_text(encoding="utf-8").replace(",0.2,", ",1.5,")  # solver score > 1
    (ws.run / "attempts.csv").write_text(rows, encoding="utf-8")
    out = tmp_path / "plan.json"
    code, stdout, err = cli("plan", str(ws.run), "--benchmark", str(ws.bench), "--output", str(out))
    assert code == 1 and "attempts.csv" in err and "score" in err and "Traceback" not in err
    assert not out.exists()


def test_compare_of_a_model_typed_wrong_says_which_was_meant_and_names_at_most_ten(cli):
    """`compare --models atlas-7b …` listed the cohort and no "did you mean", which a row of attempts.csv
    gets (a new user's review); a cohort of 2,000 models was listed whole."""
    from tcsexam.scoring.errors import InputError
    from tcsexam.scoring.pipeline.benchmark import demo_run
    from tcsexam.scoring.reports.compare import NAMED, check_pair

    code, _, err = cli("compare", str(demo_run()), "--models", "atlas-7b", "borealis-8x22b")
    assert code == 1
    assert (
        "--models: field 'atlas-7b': model not in the cohort; did you mean 'atlas-70b'? "
        "(models: atlas-70b, borealis-8x22b, cirrus-mini)"
    ) in err
    many = {"models": {f"model-{k:04d}": {} for k in range(2000)}}
    with pytest.raises(InputError) as caught:
        check_pair(many, "model-0001", "zzz")
    [problem] = caught.value.problems
    assert problem.field == "zzz" and "did you mean" not in problem.message
    assert problem.message.endswith(f"model-{NAMED - 1:04d} and {2000 - NAMED:,} more)")
