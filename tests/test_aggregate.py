"""docs/rules.md#the-index and docs/rules.md#aggregation: index, averaging order, rejection / incomplete / provisional rules."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcsexam.scoring.errors import InputError
from tcsexam.scoring.pipeline.aggregate import index_from_track_means
from tcsexam.scoring.vocab import TRACKS, WEIGHTS
from tests.support.runs import checked_rows, full_rows, row


def problems(ws, rows):
    ws.write_rows(rows)
    with pytest.raises(InputError) as info:
        ws.load()
    return info.value.problems


def test_worked_example_55_5():
    # docs/rules.md#the-index: P=0.4, S=0.25, C=1.2, O=0 -> 30*0.4 + 30*0.25 + 30*1.2 + 10*0 = 12 + 7.5 + 36 + 0 = 55.5
    assert index_from_track_means({"theorem": 0.4, "solver": 0.25, "construction": 1.2, "conjecture": 0}) == 55.5


def test_worked_example_through_a_run(ws):
    # t1=1, t2=0 -> P 0.5; s1=0.25, s2=0.5 -> S 0.375; c1=1.2, c2=0.4 -> C 0.8; O 0
    # index = 15 + 11.25 + 24 + 0 = 50.25
    ws.write_rows(full_rows())
    doc = ws.load()
    m = doc["models"]["m"]
    assert m["track_means"] == {"theorem": 0.5, "solver": 0.375, "construction": 0.8, "conjecture": 0.0}
    assert m["index"] == pytest.approx(50.25, abs=1e-12)
    assert m["status"] == "complete" and doc["status"] == "complete"


def test_index_may_exceed_100(ws):
    ws.write_rows(full_rows(scores={"t1": 1, "t2": 1, "s1": 1, "s2": 1, "c1": 3.0, "c2": 3.0, "o1": 1}))
    assert ws.load()["models"]["m"]["index"] == pytest.approx(30 + 30 + 90 + 10)


def test_averaging_order_task_run_three_times_weighs_as_one(ws):
    # R1: c1 run 3 times with 1, 1, 0.4 -> task mean 0.8; c2 once with 0.2 -> C = (0.8 + 0.2) / 2 = 0.5.
    # Pooling the four attempts would give (1 + 1 + 0.4 + 0.2) / 4 = 0.65 instead.
    ws.write_cohort(models={"m": {"attempts_per_task": 1, "attempts_per_item": {"c1": 3}}})
    rows = [r for r in full_rows(scores={"c2": 0.2}) if r["item"] != "c1"]
    rows += [row(track="construction", item="c1", attempt=a, score=s) for a, s in ((1, 1), (2, 1), (3, 0.4))]
    ws.write_rows(rows)
    m = ws.load()["models"]["m"]
    assert m["tasks"]["c1"]["mean"] == pytest.approx(0.8)
    assert m["track_means"]["construction"] == pytest.approx(0.5)


def test_missing_attempt_gives_null_index_and_names_it(ws):
    ws.write_cohort(models={"m": {"attempts_per_task": 1, "attempts_per_item": {"t1": 2}}})
    ws.write_rows([r for r in full_rows() if r["item"] != "c2"])
    doc = ws.load()
    m = doc["models"]["m"]
    assert doc["status"] == "incomplete" and m["status"] == "incomplete" and m["index"] is None
    assert m["track_means"]["construction"] is None and m["track_means"]["theorem"] is None
    assert m["track_means"]["solver"] == 0.375
    missing = {(e["item"], e["adopted"], e["planned"]) for e in m["coverage"]["missing"]}
    assert missing == {("c2", 0, 1), ("t1", 1, 2)}
    assert m["ci"]["index"] is None


@pytest.mark.parametrize("status", ["judge_failed", "not_finished", "missing"])
def test_adopted_attempt_not_valid_is_incomplete(ws, status):
    rows = full_rows()
    rows[0].update(score_status=status, score="")
    ws.write_rows(rows)
    m = ws.load()["models"]["m"]
    assert m["status"] == "incomplete" and m["index"] is None
    assert m["coverage"]["not_valid"][0]["score_status"] == status
    assert m["tasks"]["t1"]["status"] == "incomplete"


def test_provisional_attempt_flags_the_result_and_keeps_the_index(ws):
    rows = full_rows()
    rows[2]["adoption_status"] = "selected_provisional"
    ws.write_rows(rows)
    doc = ws.load()
    assert doc["status"] == "provisional" and doc["models"]["m"]["status"] == "provisional"
    assert doc["models"]["m"]["index"] == pytest.approx(50.25)
    assert [e["item"] for e in doc["models"]["m"]["coverage"]["provisional"]] == ["s1"]


def test_overall_status_is_the_worst_model(ws):
    ws.write_cohort(
        models={"a": {"attempts_per_task": 1}, "b": {"attempts_per_task": 1}, "c": {"attempts_per_task": 1}}
    )
    rows_b = full_rows("b")
    rows_b[0]["adoption_status"] = "selected_provisional"
    ws.write_rows(full_rows("a") + rows_b + full_rows("c")[1:])
    doc = ws.load()
    assert [doc["models"][k]["status"] for k in "abc"] == ["complete", "provisional", "incomplete"]
    assert doc["status"] == "incomplete"


def test_excluded_rows_are_kept_but_never_aggregated(ws):
    rows = checked_rows()
    rows.append(row(item="t2", attempt="0", score=1, adoption="excluded", note="judge crashed, rerun"))
    ws.write_checked_run(rows)
    m = ws.load()["models"]["m"]
    assert m["tasks"]["t2"]["mean"] == 0 and m["track_means"]["theorem"] == 0.5
    assert m["coverage"]["excluded"] == [
        {"item": "t2", "track": "theorem", "attempt": "0", "line": 9, "score": 1.0, "note": "judge crashed, rerun"}
    ]
    assert not [i for i in m["issues"] if i["kind"] == "warning"]


def test_excluded_row_without_note_is_a_warning(ws):
    rows = checked_rows() + [row(item="t2", attempt="0", score=1, adoption="excluded")]
    ws.write_checked_run(rows)
    m = ws.load()["models"]["m"]
    assert m["status"] == "complete"
    assert [i["kind"] for i in m["issues"]] == ["warning"]


def test_excluded_rows_scores_are_not_judged(ws):
    rows = full_rows() + [
        row(item="t2", attempt="0", score=0.5, adoption="excluded", note="partial"),
        row(track="construction", item="c1", attempt="0", score="nan", adoption="excluded", note="crashed"),
    ]
    ws.write_rows(rows)
    m = ws.load()["models"]["m"]
    assert m["status"] == "complete"
    assert [e["score"] for e in m["coverage"]["excluded"]] == [0.5, None]


def test_rows_outside_cohort_or_suite_are_counted_not_aggregated(ws):
    rows = full_rows() + [row(model="m-typo"), row(item="t9"), row(item="t9", attempt="2")]
    ws.write_rows(rows)
    doc = ws.load()
    ign = doc["ignored_rows"]
    assert ign["count"] == 3
    assert ign["models_outside_cohort"] == {"m-typo": 1}
    assert ign["items_outside_suite"] == {"t9": 2}
    assert doc["models"]["m"]["index"] == pytest.approx(50.25)


# --- rejections (docs/rules.md#aggregation) -----------------------------------------------------


def test_duplicate_attempt_rejected_even_when_excluded(ws):
    rows = full_rows() + [row(item="t1", attempt="1", adoption="excluded", note="x")]
    (p,) = problems(ws, rows)
    assert p.field == "attempt" and "duplicate" in p.message and p.where == "line 9"
    assert "first at line 2" in p.message


def test_more_adopted_attempts_than_planned_rejected(ws):
    rows = full_rows() + [row(item="t1", attempt="2")]
    (p,) = problems(ws, rows)
    assert "2 adopted attempts" in p.message and "1 planned" in p.message


def test_excluded_extra_attempt_is_not_over_planned(ws):
    ws.write_rows(full_rows() + [row(item="t1", attempt="2", adoption="excluded", note="replaced")])
    assert ws.load()["models"]["m"]["status"] == "complete"


def test_protocol_mismatch_rejected(ws):
    rows = full_rows()
    rows[2]["solver_protocol"] = "online"
    (p,) = problems(ws, rows)
    assert p.field == "solver_protocol" and "offline" in p.message


def test_protocol_of_excluded_row_is_not_judged(ws):
    ws.write_rows(
        full_rows()
        + [
            row(
                track="solver",
                item="s1",
                attempt="9",
                score=0.9,
                adoption="excluded",
                protocol="online",
                note="online try",
            )
        ]
    )
    assert ws.load()["models"]["m"]["status"] == "complete"


@pytest.mark.parametrize(
    "track, item, score_type", [("solver", "s1", "original_task_score"), ("theorem", "t1", "fixed_reference_relative")]
)
def test_score_type_must_fit_track(ws, track, item, score_type):
    rows = [r for r in full_rows() if r["item"] != item] + [row(track=track, item=item, score=0, score_type=score_type)]
    (p,) = problems(ws, rows)
    assert p.field == "score_type"


def test_track_disagreeing_with_manifest_rejected(ws):
    rows = [r for r in full_rows() if r["item"] != "c1"] + [row(track="theorem", item="c1", score=1)]
    (p,) = problems(ws, rows)
    assert p.field == "track" and "construction" in p.message


@pytest.mark.parametrize(
    "track, item, score, fragment",
    [
        ("theorem", "t1", "0.5", "partial credit"),
        ("conjecture", "o1", "0.99", "partial credit"),
        ("solver", "s1", "1.2", "[0, 1]"),
        ("solver", "s1", "-0.1", "[0, 1]"),
        ("construction", "c1", "-0.1", ">= 0"),
        ("construction", "c1", "inf", "finite"),
        ("construction", "c1", "nan", "finite"),
        ("construction", "c1", "1e400", "'1e400' is out of range: a score must be finite"),  # as typed, not 'inf'
        ("construction", "c1", "-1e400", "'-1e400' is out of range"),
    ],
)
def test_scores_outside_their_track_range_rejected(ws, track, item, score, fragment):
    rows = [r for r in full_rows() if r["item"] != item] + [row(track=track, item=item, score=score)]
    (p,) = problems(ws, rows)
    assert p.field == "score" and fragment in p.message


def test_reference_id_column_must_match_cohort(ws):
    rows = full_rows()
    rows[2]["reference_id"] = "paper-k3-fixed-260925"
    (p,) = problems(ws, rows)
    assert p.field == "reference_id"


def test_every_problem_listed_at_once(ws):
    rows = full_rows()
    rows[0]["score"] = "0.5"  # partial credit
    rows[2]["solver_protocol"] = "online"  # protocol
    rows.append(row(item="t2", attempt="1"))  # duplicate
    rows.append(row(item="t1", score="abc", attempt="7"))  # not a number
    found = {(p.where, p.field) for p in problems(ws, rows)}
    assert found == {("line 2", "score"), ("line 4", "solver_protocol"), ("line 9", "attempt"), ("line 10", "score")}


def test_attempts_per_item_naming_an_unknown_item_rejected(ws):
    ws.write_cohort(models={"m": {"attempts_per_task": 1, "attempts_per_item": {"c3": 2}}})
    (p,) = problems(ws, full_rows())
    assert p.field == "c3"


# --- re-scoring from records (docs/rules.md#aggregation, last rule) -------------------------------


def solver_records():
    # s1: a -> A=12 (z 0, phi .5), b -> timeout (0): 0.25.   s2: x solved (z>0), y unsolved
    return [
        {"instance": "a", "status": "ok", "A": 12},
        {"instance": "b", "status": "timeout"},
        {"instance": "u", "status": "ok", "A": 7},
    ]


def test_records_cross_check_accepts_matching_score(ws):
    ws.write_rows(full_rows(scores={"s1": 0.25}))
    ws.write_records("m", "s1", "1", solver_records())
    doc = ws.load()
    assert doc["models"]["m"]["status"] == "complete"
    assert doc["provenance"]["inputs"]["records"]["files"] == 1


def test_records_cross_check_rejects_a_difference_over_1e9(ws):
    ws.write_rows(full_rows(scores={"s1": 0.25 + 2e-9}))
    ws.write_records("m", "s1", "1", solver_records())
    (p,) = problems(ws, full_rows(scores={"s1": 0.25 + 2e-9}))
    assert p.field == "score" and "re-scored" in p.message and "1e-9" in p.message


def test_records_cross_check_tolerates_1e10(ws):
    ws.write_rows(full_rows(scores={"s1": 0.25 + 1e-10}))
    ws.write_records("m", "s1", "1", solver_records())
    assert ws.load()["models"]["m"]["status"] == "complete"


def test_bad_records_in_a_run_are_rejected(ws):
    ws.write_rows(full_rows())
    ws.write_records(
        "m", "s1", "1", [{"instance": "a", "status": "infra_error"}, {"instance": "b", "status": "ok", "A": 1}]
    )
    (p,) = problems(ws, full_rows())
    assert p.file.endswith("records/m/s1/1.json") and p.field == "status"


# --- the index ------------------------------------------------------------------

unit = st.floats(min_value=0, max_value=1, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(
    st.tuples(unit, unit, st.floats(min_value=0, max_value=5), unit),
    st.tuples(unit, unit, st.floats(min_value=0, max_value=5), unit),
    st.floats(min_value=-3, max_value=3),
)
def test_index_is_linear_in_the_track_means(a, b, lam):
    ma, mb = dict(zip(TRACKS, a, strict=True)), dict(zip(TRACKS, b, strict=True))
    combo = {t: ma[t] + lam * mb[t] for t in TRACKS}
    lhs = index_from_track_means(combo)
    rhs = index_from_track_means(ma) + lam * index_from_track_means(mb)
    assert math.isclose(lhs, rhs, rel_tol=1e-12, abs_tol=1e-9)
    assert index_from_track_means({t: 1.0 for t in TRACKS}) == sum(WEIGHTS.values())


def test_attempts_table_problems_come_in_line_order_and_good_rows_stay():
    # rows are validated in one call; a failing table is re-checked row by row so that every
    # problem keeps its line, CSV-level and field-level problems interleaved by line
    from tcsexam.scoring.formats.attempts import parse_attempts
    from tcsexam.scoring.formats.inputs import REQUIRED_COLUMNS

    header = ",".join(REQUIRED_COLUMNS)
    good = "m,theorem,p1,a1,1,selected,valid,original_task_score,"
    text = (
        "\n".join(
            [
                header,
                "m,poetry,p1,a1,1,selected,valid,original_task_score,",  # line 2: unknown track
                "m,theorem,p1,a1,1,selected",  # line 3: too few fields
                "m,theorem,p1,a2,one,selected,valid,original_task_score,",  # line 4: score not a number
                good.replace("a1", "a3"),  # line 5: good
                "m,theorem,p1,a4,,selected,valid,original_task_score,",  # line 6: empty but valid
                "m,theorem,p1,a5,1,chosen,valid,original_task_score,",  # line 7: unknown adoption
                good.replace("a1", "a6"),
            ]
        )
        + "\n"
    )  # line 8: good
    table = parse_attempts(text, "attempts.csv")
    assert [p.where for p in table.problems] == ["line 2", "line 3", "line 4", "line 6", "line 7"]
    assert [(p.field) for p in table.problems] == ["track", "", "score", "score", "adoption_status"]
    assert [(r.line, r.attempt) for r in table.rows] == [(5, "a3"), (8, "a6")]


def test_a_table_of_several_batches_keeps_every_good_row_and_names_each_bad_one_in_line_order():
    # rows are validated VALIDATED_TOGETHER at a time: a batch with a bad row is re-checked row by row,
    # the others stay one call; every row is kept or named, whichever batch it falls in
    from tcsexam.scoring.formats.attempts import VALIDATED_TOGETHER, parse_attempts
    from tcsexam.scoring.formats.inputs import REQUIRED_COLUMNS

    total = 2 * VALIDATED_TOGETHER + 10
    bad = {3: "poetry", VALIDATED_TOGETHER + 1: "prose", total + 1: "verse"}  # line -> an unknown track
    lines = [",".join(REQUIRED_COLUMNS)]
    for line in range(2, total + 2):
        lines.append(f"m,{bad.get(line, 'theorem')},p1,a{line},1,selected,valid,original_task_score,")
    table = parse_attempts("\n".join(lines) + "\n", "attempts.csv")
    assert [(p.where, p.field) for p in table.problems] == [(f"line {n}", "track") for n in sorted(bad)]
    assert [r.line for r in table.rows] == [n for n in range(2, total + 2) if n not in bad]
    assert [r.attempt for r in table.rows] == [f"a{n}" for n in range(2, total + 2) if n not in bad]


def test_an_interval_that_overflows_names_its_model_and_row_among_many(ws, cli):
    # the ci blocks of all models are one array computation; an overflow in one of them is still
    # reported for that model, at the row of its largest score (docs/safety.md), in cohort order, and the
    # others' blocks do not hide it. With two conjecture tasks (df about 1): construction
    # [1e306, 0] gives an index of 1.5e307 but an index se of 1.5e307, and t(0.975, 1)·se = 1.9e308
    from tests.support.runs import MINI_SUITE, full_rows, row

    suite = {**MINI_SUITE, "tasks": [*MINI_SUITE["tasks"], {"item": "o2", "track": "conjecture"}]}
    ws.write_json(ws.bench / "suites" / "lite.json", suite)
    models = ["a", "b", "c", "d"]
    rows = []
    for n, m in enumerate(models):
        rows += full_rows(m, {"c1": 1e306, "c2": 0} if m in ("b", "d") else {"s1": 0.1 * n})
        rows.append(row(model=m, track="conjecture", item="o2", score=1))
    ws.write_cohort(models={m: {"attempts_per_task": 1} for m in models})
    ws.write_rows(rows)
    code, _, err = cli(*ws.score_args())
    assert code == 1 and "Traceback" not in err and not ws.out.exists()
    lines = [i + 2 for i, r in enumerate(rows) if r["item"] == "c1" and r["model"] in ("b", "d")]  # header is line 1
    named = [line for line in err.splitlines() if "would overflow" in line]
    assert len(named) == 2, err
    assert "model 'b'" in named[0] and f"line {lines[0]}" in named[0] and "the index's interval" in named[0]
    assert "model 'd'" in named[1] and f"line {lines[1]}" in named[1]
