"""The dashboard's pure view functions, on plain data (no terminal)."""

from __future__ import annotations

import copy

import numpy as np

from tcsexam.tui.charts import histogram_counts
from tcsexam.tui.panes.coverage.views import coverage_cell, coverage_grid, issue_rows
from tcsexam.tui.panes.instances.table import format_row
from tcsexam.tui.panes.instances.views import explain_instance
from tcsexam.tui.panes.overview.views import leader, overview_rows, sort_rows, status_line, top_line
from tcsexam.tui.panes.passk.views import passk_rows
from tcsexam.tui.panes.tau2.views import tau2_task_rows
from tcsexam.tui.state import InstanceColumns


def model(status, index, means, tasks, coverage=None, issues=(), ci=None, pass_hat_k=None):
    return {
        "status": status,
        "index": index,
        "track_means": means,
        "tasks": tasks,
        "coverage": coverage or {"missing": [], "provisional": [], "not_valid": [], "excluded": []},
        "issues": list(issues),
        "ci": ci or {"tracks": {}, "index": None},
        "pass_hat_k": pass_hat_k
        or {t: {"threshold": 1.0, "tasks": 0, "by_k": {}} for t in ("theorem", "solver", "construction", "conjecture")},
    }


def task(track, status="complete", adopted=1, planned=1):
    return {
        "track": track,
        "mean": 1.0,
        "partial_mean": 1.0,
        "adopted": adopted,
        "valid": adopted,
        "planned": planned,
        "status": status,
    }


MEANS = {"theorem": 1.0, "solver": 0.5, "construction": 1.0, "conjecture": 0.0}
DOC = {
    "status": "incomplete",
    "ignored_rows": {
        "rows": [
            {"line": 9, "model": "x", "track": "theorem", "item": "t1", "attempt": "1", "reason": "model not in cohort"}
        ]
    },
    "models": {
        "a": model(
            "complete",
            60.0,
            MEANS,
            {"t1": task("theorem"), "s1": task("solver")},
            ci={"tracks": {"theorem": {"mean": 1.0, "hi": 1.25}}, "index": {"value": 60.0, "hi": 70.0}},
        ),
        "b": model(
            "incomplete",
            None,
            {**MEANS, "theorem": None},
            {"t1": task("theorem", "incomplete", 0, 1), "s1": task("solver", "provisional")},
            coverage={
                "missing": [{"item": "t1"}],
                "provisional": [{"item": "s1", "attempt": "2"}],
                "not_valid": [],
                "excluded": [{"item": "s1", "attempt": "2", "line": 6, "note": ""}],
            },
            issues=[
                {"kind": "incomplete", "item": "t1", "attempt": None, "message": "1 of 1 planned attempts missing"}
            ],
        ),
        "c": model("complete", 75.5, MEANS, {"t1": task("theorem"), "s1": task("solver")}),
    },
    # a and c are not separated (both rank 1-2); b has no index and so no rank
    "ranks": {
        "method": "paired-t-holm",
        "alpha": 0.05,
        "pairs": [],
        "models": {"a": {"best": 1, "worst": 2}, "c": {"best": 1, "worst": 2}},
    },
}


def test_overview_rows_show_index_pm_and_task_counts():
    rows = {r.model: r for r in overview_rows(DOC)}
    assert rows["a"].cells()[2] == "60.00 ± 10.00"
    assert rows["a"].cells()[6] == "1.000 ± 0.250  1/1"
    assert rows["b"].cells()[2] == "—" and rows["b"].cells()[6] == "—  0/1"
    assert rows["a"].cells("──●──")[3] == "──●──"  # the forest-plot cell, made by the pane


def test_sort_puts_nulls_last_both_ways():
    rows = overview_rows(DOC)
    assert [r.model for r in sort_rows(rows, 2, reverse=True)] == ["c", "a", "b"]
    assert [r.model for r in sort_rows(rows, 2, reverse=False)] == ["a", "c", "b"]
    assert [r.model for r in sort_rows(rows, 0)] == ["a", "b", "c"]


def test_ranks_show_best_worst_and_a_dash_without_an_index():
    rows = {r.model: r for r in overview_rows(DOC)}
    assert rows["a"].cells()[4] == "1–2" and rows["c"].cells()[4] == "1–2" and rows["b"].cells()[4] == "—"
    alone = {**DOC, "ranks": {**DOC["ranks"], "models": {"c": {"best": 1, "worst": 1}, "a": {"best": 2, "worst": 2}}}}
    rows = {r.model: r for r in overview_rows(alone)}
    assert rows["c"].cells()[4] == "1" and rows["a"].cells()[4] == "2"
    # sorting by rank: best rank first, no rank last
    assert [r.model for r in sort_rows(list(rows.values()), 4)] == ["c", "a", "b"]


def plain_top_line(doc) -> str:
    return "".join(part for part, _ in top_line(doc))


def test_no_leader_while_the_top_group_holds_two_models():
    # c has the higher index (75.5 > 60) but is not separated from a: no leader, the group is counted;
    # b has no index, so the ranks are among the complete models, 2 of 3
    assert leader(DOC) is None
    assert plain_top_line(DOC) == "No single leader: 2 share rank 1 among models with an index (2 of 3)"


def test_a_lone_top_model_is_named_leader():
    alone = {**DOC, "ranks": {**DOC["ranks"], "models": {"c": {"best": 1, "worst": 1}, "a": {"best": 2, "worst": 2}}}}
    assert leader(alone) == "c"
    assert plain_top_line(alone) == "Leader among models with an index (2 of 3): c with 75.50 points"
    every = copy.deepcopy(alone)
    del every["models"]["b"]
    assert plain_top_line(every) == "Leader: c with 75.50 points"  # every model ranked: no scope


def test_the_status_line_is_one_line_of_status_leader_and_suite():
    run = {
        **DOC,
        "status": "incomplete",
        "suite": "lite",
        "solver_protocol": "offline",
        "solver_reference_id": "ref-test",
    }
    line = "".join(part for part, _ in status_line(run, demo=True))
    assert line == (
        "DEMO · Run incomplete (1 incomplete) · No single leader: 2 share rank 1 among models with an index (2 of 3)"
        " · lite/offline/ref-test"
    )
    assert "\n" not in line


def test_a_top_group_of_thousands_is_a_count_not_a_list():
    doc = copy.deepcopy(DOC)
    for i in range(2000):
        doc["models"][f"m{i:04d}"] = doc["models"]["c"]
    doc["ranks"]["models"].update({f"m{i:04d}": {"best": 1, "worst": 2002} for i in range(2000)})
    assert plain_top_line(doc) == "No single leader: 2,002 share rank 1 among models with an index (2,002 of 2,003)"


def test_no_index_no_leader():
    empty = {**DOC, "ranks": {**DOC["ranks"], "models": {}}}
    assert leader(empty) is None and plain_top_line(empty) == "No model has an index yet"


def test_a_document_without_ranks_gets_them_from_scoring():
    # an older index.json: a and c share no construction or conjecture task, so their paired index
    # difference (and p) is undefined, the pair is not separated and both share ranks 1-2
    old = {k: v for k, v in DOC.items() if k != "ranks"}
    old["weights"] = {"theorem": 25, "solver": 25, "construction": 25, "conjecture": 25}
    rows = {r.model: r for r in overview_rows(old)}
    assert rows["a"].rank == (1, 2) and rows["c"].rank == (1, 2) and rows["b"].rank is None


def test_coverage_glyphs():
    items, grid = coverage_grid(DOC)
    assert items == ["t1", "s1"]
    assert grid["a"] == [("●", "complete"), ("●", "complete")]
    assert grid["b"] == [("0/1", "missing"), ("◐+x", "provisional")]
    nv = {
        "missing": [],
        "provisional": [],
        "not_valid": [{"item": "t1", "score_status": "judge_failed"}],
        "excluded": [],
    }
    assert coverage_cell(task("theorem", "incomplete"), nv, "t1") == ("✗", "not_valid")
    # a row init wrote, its score not yet in: awaiting, not a failure (a fresh run is not all ✗)
    waiting = dict(nv, not_valid=[{"item": "t1", "score_status": "missing"}])
    assert coverage_cell(task("theorem", "incomplete"), waiting, "t1") == ("…", "awaiting")
    waiting_excluded = dict(waiting, excluded=[{"item": "t1"}])
    assert coverage_cell(task("theorem", "incomplete"), waiting_excluded, "t1") == ("…+x", "awaiting")
    both = dict(
        nv, not_valid=[{"item": "t1", "score_status": "missing"}, {"item": "t1", "score_status": "not_finished"}]
    )
    assert coverage_cell(task("theorem", "incomplete"), both, "t1") == ("✗", "not_valid")  # one failed: ✗


def test_issue_rows_include_provisional_excluded_and_ignored():
    rows = issue_rows(DOC)
    kinds = [(r.model, r.item, r.kind) for r in rows]
    assert (
        ("b", "t1", "incomplete") in kinds
        and ("b", "s1", "provisional") in kinds
        and ("x", "t1", "ignored row") in kinds
        and ("b", "s1", "excluded") in kinds
    )
    assert next(r for r in rows if r.kind == "ignored row").reason == "line 9: model not in cohort"


def test_coverage_lists_each_finding_validate_lists_on_the_demo(cli):
    """Diagnostics says Coverage shows each of validate's findings; Coverage listed 5 of the demo's 6 (the
    excluded attempt was in its grid only, a review). Each of validate's lines has its Coverage row."""
    import json

    from tcsexam.scoring.pipeline.benchmark import demo_run

    code, out, _ = cli("validate", str(demo_run()))
    found = out.splitlines()[1:]
    assert code == 3 and len(found) == 6
    document = json.loads(cli("score", str(demo_run()), "--output", "-")[1])
    rows = issue_rows(document)
    assert len(rows) == len(found)
    excluded = [line for line in found if line.startswith("excluded: ")]
    (row,) = [r for r in rows if r.kind == "excluded"]
    assert excluded == [f"excluded: {row.model}: {row.item} attempt {row.attempt} (line {row.line}): {row.reason}"]


def test_an_issues_source_is_its_row_a_missing_row_or_the_model_as_a_whole():
    """The Coverage line under an issue says where it comes from: its attempts.csv line; a planned attempt
    with no row; or, for a finding of the model as a whole (no task, no line), no row at all."""
    doc = copy.deepcopy(DOC)
    doc["models"]["c"]["issues"] = [
        {"kind": "warning", "item": "", "attempt": None, "line": None, "message": "score not checked against records"},
        {"kind": "warning", "item": "t1", "attempt": "1", "line": 7, "message": "score reads as a percentage"},
    ]
    sources = {(r.model, r.item, r.kind): r.source for r in issue_rows(doc) if r.model in ("b", "c")}
    assert sources[("c", "—", "warning")] == "the model as a whole, not one row"
    assert sources[("c", "t1", "warning")].endswith("attempts.csv line 7")
    assert (
        sources[("b", "t1", "incomplete")].startswith("no row in ")
        and "for an attempt the cohort plans" in (sources[("b", "t1", "incomplete")])
    )


def test_an_ignored_row_with_a_close_name_is_a_warning_naming_it():
    doc = copy.deepcopy(DOC)
    doc["ignored_rows"]["rows"][0]["did_you_mean"] = "a"
    (row,) = [r for r in issue_rows(doc) if r.model == "x"]
    assert (row.kind, row.reason) == ("warning", "line 9: ignored row: model not in cohort; did you mean 'a'?")


def test_passk_rows():
    doc = {
        "models": {
            "m": model(
                "complete",
                1,
                MEANS,
                {},
                pass_hat_k={
                    "theorem": {"threshold": 1.0, "tasks": 2, "by_k": {"1": 0.5, "2": 0.25}},
                    "solver": {"threshold": 0.5, "tasks": 1, "by_k": {"1": 1.0}},
                    "construction": {"threshold": 1.0, "tasks": 0, "by_k": {}},
                    "conjecture": {"threshold": 1.0, "tasks": 0, "by_k": {}},
                },
            )
        }
    }
    kmax, rows = passk_rows(doc, "m")
    assert kmax == 2
    # the sparkline: 0.5 is 3.5 sevenths (▅), 0.25 is 1.75 (▃), 1 the top (█); then 3 decimals, as every mean
    assert rows[0] == ["P theorem", "1", "2", "▅▃", "0.500", "0.250"]
    assert rows[1] == ["S solver", "0.5", "1", "█", "1.000", "—"]
    assert rows[2] == ["C construction", "1", "0", "—", "—", "—"]


def test_explain_instance_names_the_binding_floor():
    text = explain_instance("G1", "ok", 15.0, 12.0, 2.0, 2.0, 1.5, 0.9332, "maximize", 0.02)
    assert "(s)" in text and "z = (A − mu)/scale = 1.500" in text
    text = explain_instance("G1", "ok", 1010.0, 1000.0, 0.0, 20.0, 0.5, 0.69, "minimize", 0.02)
    assert "relative floor 0.02·|mu|" in text and "(mu − A)/scale" in text
    assert "scores 0" in explain_instance("G2", "timeout", np.nan, 1, 1, 1, np.nan, 0.0, "maximize", 0.02)


def test_histogram_counts_cover_zero_and_one():
    assert histogram_counts(np.array([0.0, 0.05, 0.5, 1.0, 1.0])) == [2, 0, 0, 0, 0, 1, 0, 0, 0, 2]


def columns(phi, status=None, names=None):
    n = len(phi)
    arr = np.asarray(phi, dtype=float)
    nm = np.array([x.encode() for x in (names or [f"i{k}" for k in range(n)])], dtype="S")
    st = np.zeros(n, dtype=np.int8) if status is None else np.asarray(status, dtype=np.int8)
    z = np.where(st == 0, arr, np.nan)
    return InstanceColumns("t", "maximize", "objective", nm, st, arr, arr, arr, arr + 1, z, arr, 0.5, [])


def test_sort_order_by_value_with_failures_last():
    cols = columns([0.3, 0.9, 0.1, 0.5], status=[0, 0, 1, 0])
    assert cols.order("z", False).tolist() == [0, 3, 1, 2]
    assert cols.order("z", True).tolist() == [1, 3, 0, 2]
    assert cols.order("phi", True).tolist() == [1, 3, 0, 2]
    assert cols.order("phi", False, status=0).tolist() == [0, 3, 1]


def test_sort_order_by_name_and_status():
    cols = columns([1, 2, 3], names=["b", "c", "a"], status=[1, 0, 2])
    assert cols.order("instance", False).tolist() == [2, 0, 1]
    assert cols.order("instance", True).tolist() == [1, 0, 2]
    assert cols.order("status", False).tolist() == [1, 0, 2]


def test_format_row_shows_dash_for_failure_values():
    cols = columns([0.3, 0.9], status=[0, 1])
    assert format_row(cols, 1).split()[:3] == ["i1", "timeout", "—"]


def test_tau2_task_rows():
    metrics = {
        "tasks": [
            {
                "task_id": "a",
                "n": 2,
                "successes": 1,
                "avg_reward": 0.5,
                "pass_hat_k": {"1": 0.5, "2": 0.0},
                "termination_reasons": {"agent_stop": 2},
            }
        ]
    }
    kmax, rows = tau2_task_rows(metrics)
    assert kmax == 2 and rows == [["a", "2", "1", "0.500", "0.500", "0.000", "agent_stop 2"]]


def test_names_are_utf8_and_sort_as_python_strings():
    names = ["é-1", "z", "a", "ß", "日本"]
    cols = columns([1, 2, 3, 4, 5], names=names)
    assert [cols.name(i) for i in cols.order("instance", False)] == sorted(names)
    assert [cols.name(i) for i in range(5)] == names


def test_columns_keep_each_instances_status():
    # the dashboard maps scoring's status codes onto its own: every failure keeps its name
    from tcsexam.scoring.formats.records import parse_records
    from tcsexam.scoring.pipeline.reference import reference_from_dict
    from tcsexam.scoring.pipeline.solver import score_task
    from tcsexam.tui.state import STATUS_CODES, columns_from_score

    statuses = ["ok", "timeout", "invalid", "certificate_failed", "crash", "out_of_memory", "ok"]
    instances = {f"i{k}": [1.0, 2.0, 4.0] for k in range(len(statuses))}
    ref = reference_from_dict(
        {
            "reference_id": "r",
            "suite": "lite",
            "scale_floor": {"relative": 0.02, "absolute": 1e-9},
            "tasks": {"t": {"kind": "objective", "direction": "maximize", "instances": instances}},
        },
        "ref.json",
    ).task("t")
    records = [{"instance": f"i{k}", "status": s, "A": 2.5} for k, s in enumerate(statuses)]
    cols = columns_from_score(score_task(ref, parse_records(records[::-1], "r.json", "objective")))
    assert [STATUS_CODES[c] for c in cols.status.tolist()] == statuses


def test_task_differences_largest_contribution_to_the_index_first_with_instance_counts():
    from tcsexam.tui.panes.compare.views import task_difference_rows

    # contributions as compare computes them (docs/rules.md#per-task-differences): two theorem tasks (weight 30):
    # 0 × 30/2 = 0 and −0.5 × 30/2 = −7.5; one solver task: −0.5 × 30 = −15; one construction task: 0.3 × 30 = 9;
    # one conjecture task: −0.6 × 10 = −6. By raw A − B, o1 (−0.6) would come first.
    result = {
        "tasks": [
            {"item": "t1", "track": "theorem", "a": 1.0, "b": 1.0, "difference": 0.0, "contribution": 0.0},
            {"item": "s1", "track": "solver", "a": 0.25, "b": 0.75, "difference": -0.5, "contribution": -15.0},
            {"item": "c1", "track": "construction", "a": 1.2, "b": 0.9, "difference": 0.3, "contribution": 9.0},
            {"item": "t2", "track": "theorem", "a": 0.0, "b": 0.5, "difference": -0.5, "contribution": -7.5},
            {"item": "o1", "track": "conjecture", "a": 0.4, "b": 1.0, "difference": -0.6, "contribution": -6.0},
        ],
        "instances": {"s1": {"a_better": 2, "b_better": 5, "equal": 1, "mean_difference": -0.5}},
    }
    rows = task_difference_rows(result)
    assert [item for item, _ in rows] == ["s1", "c1", "t2", "o1", "t1"]
    assert rows[0][1] == ["s1", "S", "-15.00", "0.250", "0.750", "-0.500", "2 / 5 / 1"]
    assert rows[1][1][2] == "+9.00" and rows[1][1][5] == "+0.300" and rows[1][1][6] == "—"


def test_instance_difference_rows_keep_the_order_given():
    from tcsexam.tui.panes.compare.views import instance_difference_rows

    diffs = [
        {"instance": "[b]x", "a": 0.0, "b": 0.75, "difference": -0.75},
        {"instance": "y", "a": 0.5, "b": 0.25, "difference": 0.25},
    ]
    assert instance_difference_rows(diffs) == [
        ["[b]x", "0.000", "0.750", "-0.750"],
        ["y", "0.500", "0.250", "+0.250"],
    ]


def test_mde_text_by_attempts_and_when_not_available():
    from tcsexam.tui.panes.compare.views import mde_text

    assert (
        mde_text({"2": 7.5, "1": 10.25})
        == "Smallest detectable gap (found 80% of the time at 5%), index points by attempts per task r: r=1 10.25  r=2 7.50"
    )
    assert mde_text(dict.fromkeys(("1", "2"))).startswith(
        "Smallest detectable gap (found 80% of the time at 5%, two-sided): not available"
    )


def test_variance_budget_beside_the_index_interval():
    shares = {"theorem": 0.125, "solver": 0.004, "construction": 0.7, "conjecture": 0.171}
    doc = {
        **DOC,
        "models": {
            **DOC["models"],
            "a": {**DOC["models"]["a"], "ci": {"tracks": {}, "index": {"value": 60.0, "hi": 70.0, "shares": shares}}},
        },
    }
    rows = {r.model: r for r in overview_rows(doc)}
    # 12.5 -> 12 (round half to even), 0.4 -> 0, 70, 17.1 -> 17
    assert rows["a"].cells()[5] == "P12 S0 C70 O17 %"
    assert rows["c"].cells()[5] == "—"  # no index interval, no shares


def test_plan_row_and_target():
    from tcsexam.tui.panes.passk.views import parse_target, plan_row, target_text

    entry = {"half_width": {"1": 14.0, "2": 11.5, "10": 9.0, "3": None}}
    assert plan_row(entry) == (["r=1", "r=2", "r=3", "r=10"], ["14.00", "11.50", "—", "9.00"])
    assert [parse_target(v) for v in ("8", "0", "-1", "x", "nan", "inf", "2.5")] == [
        8.0,
        None,
        None,
        None,
        None,
        None,
        2.5,
    ]
    widths = {str(r): 20.0 - r for r in range(1, 11)}
    assert target_text("9.5", widths, 10) == "H = 9.5: 10 attempts per task."
    assert target_text("1", widths, None) == "H = 1: not reached with up to 10 attempts."
    assert target_text("1", widths, None, 9.04) == (  # the limit with unlimited attempts, as plan prints it
        "H = 1: not reached with up to 10 attempts; with more it levels off at 9.04 points, "
        "the spread between tasks: more tasks narrow it, more attempts do not."
    )
    assert target_text("", widths, None).startswith("Type a target")
    assert target_text("-3", widths, None) == "H must be a positive number of index points, not -3."
    assert target_text("0", widths, None) == "H must be a positive number of index points, not 0."
    # no projection at all (every r null): said so, never "not reached"
    assert target_text("129", dict.fromkeys(widths), None) == (
        "H = 129: nothing to project for this model (a track has fewer than 2 tasks or no task with 2 attempts)."
    )


def test_the_planners_inputs_come_two_tracks_a_line_each_track_whole_within_80_columns():
    """The pass^k pane's planning lines: a track's tasks and its two variances (within a task / between
    tasks, the heading says so in words) are never wrapped apart (the paragraph they were once part of
    wrapped mid-track at 80 columns); no symbol a reader must look up (a review: s_w², σ_b²)."""
    from tcsexam.tui.panes.passk.views import plan_summary

    wide = {"m": 12, "s_w2": 0.123456, "sigma_b2": None}
    entry = {
        "tracks": {t: dict(wide, m=10 + i) for i, t in enumerate(("theorem", "solver", "construction", "conjecture"))}
    }
    lines = plan_summary(entry)
    assert lines == [
        "P 10 tasks 0.1235 / —    S 11 tasks 0.1235 / —",
        "C 12 tasks 0.1235 / —    O 13 tasks 0.1235 / —",
    ]
    one = {"m": 1, "s_w2": None, "sigma_b2": None}
    assert plan_summary({"tracks": dict.fromkeys(entry["tracks"], one)})[0].startswith("P 1 task — / —")
    many = {"m": 1234, "s_w2": 12.3456, "sigma_b2": 98.7654}  # a construction track spans more than [0, 1]
    assert all(len(line) <= 76 for line in plan_summary({"tracks": dict.fromkeys(entry["tracks"], many)}))


# --- number conventions, names, the forest plot (docs/dashboard.md#numbers, #names, #tabs) -----------------------


def test_objective_values_have_four_significant_digits_never_mixed_notation():
    from tcsexam.tui.views import fmt_sig

    assert [fmt_sig(x) for x in (47563.2, 479.13, 0.078312, 12.0, 0.0)] == ["47560", "479.1", "0.07831", "12.00", "0"]
    assert fmt_sig(9999.7) == "10000"  # the rounding carries into the next power
    assert fmt_sig(-1234.5) == "-1234"  # round half to even, as Python formats
    assert fmt_sig(1.2345e13) == "1.234e+13" and fmt_sig(0.00012345) == "1.234e-04"  # outside 10^-3 .. 10^9
    assert fmt_sig(None) == "—" and fmt_sig(float("nan")) == "—"


def test_every_interval_is_written_with_one_spacing_and_the_quantitys_decimals():
    from tcsexam.tui.panes.overview.views import fmt_pm
    from tcsexam.tui.panes.tau2.views import fmt_cost

    assert fmt_pm(92.2, 5.5712, 2) == "92.20 ± 5.57"
    assert fmt_pm(0.9333, 0.076, 3) == "0.933 ± 0.076"
    assert fmt_pm(0.5, None, 3) == "0.500" and fmt_pm(None, 1.0, 2) == "—"
    assert fmt_cost(0.04712) == "$0.0471"


def test_a_long_name_keeps_its_start_and_end_and_fits_its_cells():
    from rich.cells import cell_len

    from tcsexam.tui.views import middle_ellipsis

    long = "anthropic/claude-sonnet-4-5-20250929-with-a-very-long-fine-tune-suffix-v2"
    short = middle_ellipsis(long, 24)
    assert cell_len(short) <= 24 and "…" in short
    assert short.startswith("anthropic/cl") and short.endswith("suffix-v2")
    assert middle_ellipsis("atlas-70b", 24) == "atlas-70b"
    wide = middle_ellipsis("日本語" * 20, 11)  # wide characters count two cells
    assert cell_len(wide) <= 11 and wide.startswith("日本") and wide.endswith("語")
    assert middle_ellipsis("\u202e" * 3 + "x" * 40, 12).startswith("\\u202e")  # escaped before it is cut
    assert cell_len(middle_ellipsis("x" * 10**5, 24)) == 24


def test_the_column_under_the_mouse_counts_the_fixed_columns_and_the_scroll():
    from tcsexam.tui.panes.overview.views import column_under

    widths = [10, 5, 5, 5]
    assert column_under(widths, 1, 0, 0) == 0 and column_under(widths, 1, 0, 12) == 1
    assert column_under(widths, 1, 5, 12) == 2  # column 1 scrolled under the fixed Model column
    assert column_under(widths, 1, 5, 2) == 0  # the fixed column stays
    assert column_under(widths, 1, 0, 99) is None


def test_the_forest_plot_draws_each_index_and_interval_on_one_scale():
    from tcsexam.tui.forest import forest_gauge, forest_header, forest_top, position

    assert forest_top([(76.9, 10.5), (55.2, 20.1), (None, None)]) == 100  # the index is in points: 0 to 100
    # an upper end past 100: the round value just above it, in tens, so no third of the plot is empty
    assert forest_top([(95.0, 12.0)]) == 110  # 107
    assert forest_top([(100.0, 7.64)]) == 110  # 107.64 (2,000 models): 110, not 150
    assert forest_top([(95.0, 6.34)]) == 110  # 101.34
    assert forest_top([(150.0, 1.0)]) == 160 and forest_top([(180.0, 40.0)]) == 220
    g = forest_gauge(50.0, 10.0, 100.0, 21)
    assert len(g) == 21 and g[10] == "●"  # 50 of 100 over 20 steps: the 11th character
    assert g[position(40, 100, 21) : position(60, 100, 21) + 1] == "──●──"
    assert forest_gauge(50.0, None, 100.0, 21).count("─") == 0  # no interval: the point alone
    # models at 93.6 and 71.5 stand apart, as they did not in the old chart
    assert forest_gauge(93.6, 1.0, 100, 21).index("●") != forest_gauge(71.5, 1.0, 100, 21).index("●")
    null = forest_gauge(None, None, 100.0, 21, "incomplete")
    assert null == "○ incomplete".ljust(21) and "●" not in null  # never a point at 0
    header = forest_header(100.0, 21)
    assert len(header) == 21 and header.startswith("0") and header.endswith("100") and "50" in header
    # every labelled tick is a round step: 150 in thirds, 250 in fifths, 100 in quarters when wide
    assert forest_header(150.0, 31).split() == ["0", "50", "100", "150"]
    assert forest_header(250.0, 31).split() == ["0", "50", "100", "150", "200", "250"]
    assert forest_header(100.0, 31).split() == ["0", "25", "50", "75", "100"]
    assert forest_header(150.0, 17).split() == ["0", "50", "100", "150"]
    # 110: round steps of 50 from 0 and the end; 100 would touch 110's label, so it is left out
    assert forest_header(110.0, 31).split() == ["0", "50", "110"]
    assert forest_header(110.0, 61).split() == ["0", "50", "100", "110"]


def test_no_tick_of_the_forest_plot_sits_under_another_ticks_label():
    """On a scale to 110 at 17 characters the tick of 100 sat one character left of the end, under the
    label 110, and read as 110: a tick under another tick's label is left out. One beside a label keeps
    its place without a label of its own (100 on a scale to 120, where a reader needs it near 100),
    and every label has its own tick under it."""
    import re

    from tcsexam.tui.forest import forest_gauge, forest_header

    assert forest_gauge(55.0, None, 110.0, 17) == "·      ·●       ·"  # 0, 50, 110: no tick for 100
    assert forest_header(110.0, 17).split() == ["0", "50", "110"]
    assert forest_header(120.0, 17).split() == ["0", "50", "120"]
    assert forest_gauge(30.0, None, 120.0, 17) == "·   ●  ·     ·  ·"  # 100 at 13, beside 120's label
    for top in (1.0, 1.5, 2.0, 100.0, 110.0, 120.0, 150.0, 160.0, 220.0, 250.0, 2.5e13):
        for width in range(9, 40):
            header = forest_header(top, width)
            rows = [forest_gauge(top * x, None, top, width) for x in (0.33, 0.66)]  # a point hides its tick
            ticks = [i for i in range(width) if "·" in (rows[0][i], rows[1][i])]
            spans = [(m.start(), m.end()) for m in re.finditer(r"\S+", header)]
            for a, b in spans:  # each label over exactly one tick: its own
                assert sum(a <= t < b for t in ticks) == 1, (top, width, header, rows[0])


def test_a_short_interval_shows_both_whiskers_and_half_line_ends():
    from tcsexam.tui.forest import forest_gauge

    # ±3.9 on a 17-character scale to 100 (6.25 points a character): the ends at 46.1 and 53.9 fall within
    # the point's own character (position 8 = 50); one character each side is drawn, as half lines
    assert forest_gauge(50.0, 3.9, 100.0, 17)[7:10] == "╶●╴"
    # 49 to 53 (x 7.84 to 8.48, the point at 8.16): both ends round to the point's own character, and still
    # each side gets its whisker, where rounding the ends alone drew the point bare
    assert forest_gauge(51.0, 2.0, 100.0, 17)[7:10] == "╶●╴"


def test_an_interval_reaching_below_zero_is_marked_at_the_scales_start():
    from tcsexam.tui.forest import forest_gauge

    # 218.15 ± 386.53 (a score of 71.5 for 0.715) on a scale to 610: the interval starts at -168.38
    assert forest_gauge(218.15, 386.53, 610.0, 31).startswith("◂─") and "●" in forest_gauge(218.15, 386.53, 610.0, 31)
    assert "◂" not in forest_gauge(50.0, 10.0, 100.0, 21)  # 40 to 60: within the scale
    assert forest_gauge(5.0, 5.0, 100.0, 21)[0] == "─"  # an end at 0 exactly: within the scale, no mark
    assert forest_gauge(12.0, 14.0, 100.0, 21)[0] == "◂"  # -2 to 26
    assert forest_gauge(0.0, 3.0, 100.0, 21)[0] == "●"  # the point at 0 itself stays a point
    # 40 to 60 on 21 characters (5 points a character): whole characters, 8 to 12
    assert forest_gauge(50.0, 10.0, 100.0, 21)[8:13] == "──●──"
    # 37.5 to 62.5 on 21 characters: the ends at 7.5 and 12.5 lie half into characters 8 (rounded) and 12
    g = forest_gauge(50.0, 12.5, 100.0, 21)
    assert g[7] == " " and g[8] in "─╶" and g[12] in "─╴" and g[10] == "●"


def test_the_forest_plot_is_bounded_for_any_finite_value():
    import math

    from tcsexam.tui.forest import forest_gauge, forest_header, forest_top

    # a construction score of 1e13 gives an index of about 1e14: the old chart's tick loops never ended on it
    top = forest_top([(1e14, 3e13), (50.0, 5.0), (math.inf, None), (1e308, 1e308)])
    assert math.isfinite(top) and top >= 1.3e14
    for value in (1e14, 50.0, 1e308):
        assert len(forest_gauge(value, 3e13, top, 31)) == 31
    assert len(forest_header(top, 17)) == 17 and forest_header(top, 17).startswith("0")


def test_the_compare_tabs_note_on_a_clipped_variance_is_in_plain_words():
    """docs/dashboard.md#tabs: the dashboard says what a clipped between-task variance means for the gaps shown,
    without the formula's symbols (those are `tcsexam compare`'s and docs/rules.md#planning-attempts's)."""
    from tcsexam.scoring.reports.compare import mde_plain_note
    from tcsexam.tui.panes.compare.views import mde_text

    line = mde_text({"1": 12.0, "2": 9.0}, mde_plain_note({"mde_clipped": ["theorem", "solver"]}))
    assert "on theorem, solver the task differences vary less than attempt noise" in line
    assert "safe side" in line
    assert not any(jargon in line for jargon in ("σ", "²", "MDE", "clipped", "conservative"))
    assert mde_plain_note({"mde_clipped": []}) is None


def test_cut_apart_picks_the_split_that_tells_ids_apart():
    """tau2-bench's telecom task ids share their start and their end: cut evenly at 80 columns, 20 ids of a
    real run showed as 11 texts ('[mms_issue]br…PERSONA:Hard]' twice). One split for all, the one that
    tells the most apart; the even split when it already does, or on a tie."""
    from tcsexam.tui.views import cut_apart, middle_ellipsis

    ids = [
        "[mms_issue]break_apn_mms_setting[PERSONA:Hard]",
        "[mms_issue]break_app_sms_permission[PERSONA:Hard]",
        "[mms_issue]bad_network_preference[PERSONA:None]",
        "[mms_issue]bad_wifi_calling[PERSONA:Easy]",
    ]
    even = [middle_ellipsis(i, 27) for i in ids]
    assert even[0] == even[1] == "[mms_issue]br…PERSONA:Hard]"
    shown = cut_apart(ids, 27)
    assert len(set(shown)) == 4 and all(len(s) == 27 and "…" in s for s in shown)
    for whole, cut in zip(ids, shown, strict=True):  # a start and an end of the id itself
        head, tail = cut.split("…")
        assert whole.startswith(head) and whole.endswith(tail)
    models = ["anthropic/claude-sonnet-4-5-20250929", "openai/gpt-4.1-2025-04-14"]
    assert cut_apart(models, 24) == [middle_ellipsis(m, 24) for m in models]  # apart already: the even split
    assert cut_apart(["short", "also"], 24) == ["short", "also"]
    same = ["same-start-and-end", "same-start-and-end"]
    assert cut_apart(same, 10) == [middle_ellipsis(same[0], 10)] * 2  # nothing tells them apart: even


def test_cut_apart_shows_a_stretch_of_the_middle_when_no_start_and_end_tell_ids_apart():
    """The tau2 tab at 80 columns with four trials (12 cells for the id): five telecom ids showed as two texts,
    '[mobil…None]' three times (a review). Where no start and end tell them apart, one stretch of the
    middle does, the same stretch for all, with … for what is cut on either side."""
    from tcsexam.tui.views import cut_apart

    ids = [
        "[mobile_data_issue]airplane_mode_on|data_mode_off[PERSONA:None]",
        "[mobile_data_issue]airplane_mode_on|user_abroad_roaming_enabled_off[PERSONA:None]",
        "[mobile_data_issue]data_mode_off|data_usage_exceeded[PERSONA:None]",
        "[mobile_data_issue]data_saver_mode_on|data_usage_exceeded[PERSONA:Easy]",
        "[mobile_data_issue]data_usage_exceeded|user_abroad_roaming_enabled_off[PERSONA:Easy]",
    ]
    shown = cut_apart(ids, 12)
    assert len(set(shown)) == 5 and all(len(s) == 12 for s in shown), shown
    starts = set()
    for whole, cut in zip(ids, shown, strict=True):  # a stretch of the id itself, cut on both sides
        assert cut.startswith("…") and cut.endswith("…") and cut[1:-1] in whole
        starts.add(whole.index(cut[1:-1]))
    assert len(starts) == 1  # the same stretch of every id
    assert shown == cut_apart(ids, 12)  # the same cut on every call (a reload, a resize back)


def test_the_instances_filter_note_reads_as_a_sentence_after_showing():
    """The status line says "Showing NOTE.": with nothing left it read "Showing 0 of 40 instances have
    status crash: nothing to show" (a review)."""
    from tcsexam.tui.panes.instances.views import filter_note

    assert f"Showing {filter_note(40, 40, None)}." == "Showing 40 instances."
    assert f"Showing {filter_note(3, 40, 'timeout')}." == "Showing 3 of 40 instances with status timeout."
    assert f"Showing {filter_note(0, 40, 'crash')}." == (
        "Showing 0 of 40 instances, as none has status crash (f changes the filter)."
    )


def test_a_z_far_from_zero_is_written_with_two_significant_digits_in_every_table():
    """Instances wrote a z beyond ±100 with 2 significant digits, the worst-instances list with all its
    decimals, which widened its z column to 16 cells and cut the status beside it at 80 columns (a review)."""
    import math

    from tcsexam.tui.find import WorstInstance
    from tcsexam.tui.views import fmt_z

    assert fmt_z(-1.2914) == "-1.291" and fmt_z(99.9) == "99.900"
    assert fmt_z(-123456.7) == "-120000" and fmt_z(250.0) == "250" and fmt_z(-3.4e12) == "-3.4e+12"
    assert fmt_z(math.nan) == "—" and fmt_z(None) == "—"
    far = WorstInstance("maxcut-mqlib", "1", "MAX0002", 0.0, -123456.7, "ok")
    assert far.cells()[4] == "-120000"


def test_an_instances_header_cut_to_its_column_says_it_is_cut_and_keeps_the_sort_mark():
    """At 80 columns the header read 'instanc ▲' (a name cut with no sign of it, a review)."""
    from tcsexam.tui.panes.instances.table import WIDTHS, header_line

    def first_two(name_width: int, sort: tuple[str, bool]) -> list[str]:
        return header_line((name_width, 7, *WIDTHS[2:]), sort).split()[:2]

    assert first_two(10, ("instance", False)) == ["instance", "▲"]  # room: as before
    assert first_two(9, ("instance", False)) == ["instance▲", "status"]
    assert first_two(8, ("instance", True)) == ["instan…▼", "status"]
    assert first_two(8, ("status", False)) == ["instance", "status▲"]
