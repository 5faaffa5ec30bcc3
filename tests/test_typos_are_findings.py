"""Slips that give a legal but wrong or unchecked number are findings (docs/rules.md#plausible-scores,
docs/rules.md#rows-and-records, docs/rules.md#aggregation, docs/commands.md#fill): a percentage typed
for a fraction, solver scores no records file checks, records of instances the reference does not
know, records files that do not line up with the rows, records not ready, a typo in cohort.json.
Each message is written here from the rule, not taken from the code."""

from __future__ import annotations

import json

from tests.support.runs import CHECKED_RECORDS, checked_rows, full_rows, row

NOT_CHECKED = "score not checked against records"


def validate(cli, ws, *extra: str) -> tuple[int, list[str], str]:
    code, out, err = cli("validate", str(ws.run), "--benchmark", str(ws.bench), *extra)
    return code, out.splitlines(), err


# --- a percentage typed for a fraction ------------------------------------------------------------


def test_a_construction_score_typed_as_a_percentage_is_a_warning_naming_the_row(ws, cli):
    ws.write_checked_run(checked_rows(scores={"c1": 85}))  # c1 is line 6
    code, lines, _ = validate(cli, ws)
    assert code == 0
    assert lines[0] == "no rejections: 7 rows, 1 model, status complete, 1 finding"
    assert lines[1] == (
        "warning: m: c1 attempt 1 (line 6): construction score 85.0 is above 10, far above what a construction "
        "task rewards in practice: a percentage? write 0.85"
    )
    code, lines, err = validate(cli, ws, "--strict")
    assert code == 1 and "rejected by --strict: 1 finding" in err
    # score --strict writes nothing
    code, _, _ = cli(*ws.score_args("--strict"))
    assert code == 1 and not ws.out.exists()


def test_a_construction_score_ten_times_its_tasks_median_is_a_warning(ws, cli):
    ws.write_cohort(models={m: {"attempts_per_task": 1} for m in ("a", "b", "c")})
    # c1's scores in the run: 0.3, 0.4, 5; the median 0.4; 5 > 10 x 0.4 (12.5 times it); 1.2 is no finding
    rows = checked_rows("a", {"c1": 0.3}) + checked_rows("b", {"c1": 0.4}) + checked_rows("c", {"c1": 5})
    ws.write_checked_run(rows, models=("a", "b", "c"))
    code, lines, _ = validate(cli, ws)
    assert code == 0 and lines[1:] == [
        "warning: c: c1 attempt 1 (line 20): construction score 5.0 is 12 times the median 0.4 of its task's "
        "scores in the run: a percentage? write 0.05"
    ]


def test_a_construction_score_just_above_1_is_no_finding(ws, cli):
    ws.write_checked_run(checked_rows(scores={"c1": 1.2, "c2": 2.5}))  # above 1, under 10 and alone in its task
    assert validate(cli, ws) == (0, ["no problems: 7 rows, 1 model, status complete, 0 findings"], "")


def test_a_theorem_score_of_100_is_asked_whether_it_is_a_percentage(ws, cli):
    ws.write_checked_run(checked_rows(scores={"t1": 100}))
    code, _, err = validate(cli, ws)
    assert code == 1
    assert "a theorem score is 1 (complete proof accepted) or 0, got 100.0: a percentage? write 1" in err
    ws.write_checked_run(checked_rows(scores={"t1": 50}))  # 0.5 is no theorem score either: partial credit
    code, _, err = validate(cli, ws)
    assert code == 1 and "got 50.0; partial credit must be converted to 0" in err and "percentage" not in err


# --- solver scores that nothing checked -------------------------------------------------------------


def test_a_model_without_records_is_one_finding_and_index_json_lists_its_unchecked_rows(ws, cli):
    ws.write_rows(full_rows())  # s1 (line 4) and s2 (line 5) typed in; no records/ at all
    code, lines, _ = validate(cli, ws)
    assert code == 0 and lines[1:] == [
        f"warning: m: -: {NOT_CHECKED}: 2 valid solver scores typed in and none checked: the run has no records/ folder"
    ]
    assert validate(cli, ws, "--strict")[0] == 1
    code, _, err = cli(*ws.score_args())
    assert code == 0
    assert "warning: m: 2 valid solver scores not checked against records (tcsexam validate says why)" in err
    coverage = json.loads(ws.out.read_text())["models"]["m"]["coverage"]
    assert coverage["solver_not_checked"] == [
        {"item": "s1", "track": "solver", "attempt": "1", "line": 4},
        {"item": "s2", "track": "solver", "attempt": "1", "line": 5},
    ]
    ws.write_checked_run()  # records that check both: nothing is left unchecked
    code, _, _ = cli(*ws.score_args())
    assert json.loads(ws.out.read_text())["models"]["m"]["coverage"]["solver_not_checked"] == []


# --- records of instances the reference does not know ------------------------------------------------


def test_records_of_unknown_instances_are_named_apart_with_the_instance_meant(ws, cli):
    ws.write_checked_run()
    # 'A' for 'a' (case), 'b.gset' for 'b' (a suffix), 'zz' (nothing near), 'u' (the reference's own unscored)
    extra = [
        {"instance": "A", "status": "ok", "A": 1},
        {"instance": "b.gset", "status": "ok", "A": 1},
        {"instance": "zz", "status": "ok", "A": 1},
        {"instance": "u", "status": "ok", "A": 1},
    ]
    path = ws.write_records("m", "s1", "1", CHECKED_RECORDS["s1"] + extra)
    code, lines, _ = validate(cli, ws)
    assert code == 0 and lines[1:] == [
        "warning: m: s1 attempt 1 (line 4): records/m/s1/1.json: 3 records of instances that reference 'ref-test' "
        "does not know: A (did you mean a?), b.gset (did you mean b?), zz; they are left out of the score"
    ]
    assert validate(cli, ws, "--strict")[0] == 1

    out = ws.root / "s1.json"
    code, _, err = cli(
        "solver-score", "--task", "s1", "--records", str(path), "--reference", "lite", "--benchmark", str(ws.bench),
        "--output", str(out),
    )  # fmt: skip
    document = json.loads(out.read_text())
    assert code == 0 and document["relative_score"] == 0.25
    assert document["unscored_instances"] == ["A", "b.gset", "zz", "u"]
    assert document["unknown_instances"] == ["A", "b.gset", "zz"]
    assert "3 records of instances that reference 'ref-test' does not know" in err


def test_records_named_with_a_suffix_are_rejected_with_the_instance_meant(ws, cli):
    ws.write_checked_run()
    ws.write_records(
        "m", "s1", "1", [{"instance": "a.gset", "status": "ok", "A": 12}, {"instance": "b.gset", "status": "timeout"}]
    )
    code, _, err = validate(cli, ws)
    assert code == 1
    assert "2 scored instances of task 's1' have no record: a, b" in err
    assert (
        "the file holds 2 records of instances the reference does not know, such as 'a.gset' (did you mean 'a'?)" in err
    )


# --- fill and records that do not line up with the rows ----------------------------------------------


def test_fill_refuses_rows_numbered_from_0_beside_files_numbered_from_1(ws, cli):
    ws.cohort["models"]["m"]["attempts_per_item"] = {"s1": 2}
    ws.write_cohort()
    rows = [r for r in full_rows() if r["item"] != "s1"]
    rows[2:2] = [
        row(track="solver", item="s1", attempt=a, score="", status="missing") for a in ("0", "1")
    ]  # lines 4 and 5
    table = ws.write_rows(rows)
    before = table.read_bytes()
    ws.write_records("m", "s1", "1", CHECKED_RECORDS["s1"])
    ws.write_records("m", "s1", "2", CHECKED_RECORDS["s1"])
    code, out, err = cli("fill", str(ws.run), "--benchmark", str(ws.bench))
    assert code == 1 and out == ""
    assert (
        "lines 4, 5: field 'attempt': (m, s1): attempt names and records file names do not line up: "
        "rows have attempts '0', '1'; records files 1.json, 2.json"
    ) in err
    assert table.read_bytes() == before and not (ws.run / "solver-scores").exists()


# --- records not ready ----------------------------------------------------------------------------


def test_validate_names_what_a_records_file_that_is_not_ready_lacks(ws, cli):
    rows = checked_rows()
    rows[2].update(score="", score_status="missing")  # s1, line 4: fill left it
    ws.write_checked_run(rows)
    ws.write_records("m", "s1", "1", CHECKED_RECORDS["s1"][:1])  # 'b' has no record
    code, lines, _ = validate(cli, ws)
    assert code == 3
    assert (
        "incomplete: m: s1 attempt 1 (line 4): adopted attempt is 'missing': its result is not there yet; "
        "records/m/s1/1.json is not ready: 1 scored instance without a record: b: complete it, then run tcsexam fill"
    ) in lines
    ws.write_records("m", "s1", "1", CHECKED_RECORDS["s1"])
    code, lines, _ = validate(cli, ws)
    assert (
        "incomplete: m: s1 attempt 1 (line 4): adopted attempt is 'missing': its result is not there yet; "
        "records/m/s1/1.json is complete: tcsexam fill writes its score"
    ) in lines


def test_validate_names_a_bad_record_of_a_waiting_row_as_fill_does(ws, cli):
    """A records file with a value of the wrong type, for a row fill has not scored yet: validate called it
    "not ready" and gave the message alone; fill rejects it naming the record and the field. validate now
    names it as fill does (a new user's review)."""
    rows = checked_rows()
    rows[2].update(score="", score_status="missing")  # s1, line 4: fill left it
    ws.write_checked_run(rows)
    records = [dict(r) for r in CHECKED_RECORDS["s1"]]
    records[1]["status"] = 7  # not a status
    path = ws.write_records("m", "s1", "1", records)
    code, lines, _ = validate(cli, ws)
    assert code == 3
    finding = next(line for line in lines if line.startswith("incomplete: m: s1 attempt 1 (line 4)"))
    code, _, err = cli("fill", str(ws.run), "--benchmark", str(ws.bench))
    assert code == 1
    rejection = next(line.strip() for line in err.splitlines() if "record 1" in line)
    assert rejection.startswith(f"{path}: record 1 ('{records[1]['instance']}'): field 'status': ")
    assert f"its result is not there yet; {rejection}: mend it, then run tcsexam fill" in finding
    assert "not ready" not in finding


# --- a typo in cohort.json --------------------------------------------------------------------------


def test_a_typo_in_cohort_json_is_one_finding_first_with_the_fix(ws, cli):
    ws.write_cohort(models={"lab-qwen-23b": {"attempts_per_task": 1}})
    ws.write_checked_run(checked_rows("lab-qwen-32b"), models=("lab-qwen-32b",))
    code, lines, _ = validate(cli, ws)
    assert code == 3
    cohort = ws.run / "cohort.json"
    assert lines[1:] == [
        "warning: lab-qwen-23b: -: no row names 'lab-qwen-23b', while 7 rows and 2 records files name "
        f"'lab-qwen-32b', which is not in the cohort: a typo in {cohort} (models.lab-qwen-23b)? Write "
        "'lab-qwen-32b' there; its 7 incomplete findings, and the 7 ignored rows and 2 unused records files of "
        "'lab-qwen-32b', follow from it and are not listed"
    ]
    assert lines[0].endswith(", 1 finding")
    code, _, _ = cli(*ws.score_args())
    ignored = json.loads(ws.out.read_text())["ignored_rows"]
    assert ignored["cohort_typos"] == [
        {"cohort_model": "lab-qwen-23b", "rows_model": "lab-qwen-32b", "rows": 7, "records_files": 2}
    ]
    assert ignored["count"] == 7 and all("did_you_mean" not in r for r in ignored["rows"])


def test_a_cohort_planning_more_attempts_than_every_task_has_is_one_finding_with_the_fix(ws, cli):
    """Every task of a model one attempt short of the cohort's plan is one cause (the plan, or the rows
    of one attempt missing throughout): one finding naming both fixes, its tasks counted, not listed."""
    ws.write_cohort(models={"atlas-70b": {"attempts_per_task": 2}})
    ws.write_checked_run(checked_rows("atlas-70b"), models=("atlas-70b",))
    code, lines, _ = validate(cli, ws)
    assert code == 3
    assert lines[1:] == [
        "incomplete: atlas-70b: -: every one of its 7 tasks has 1 of 2 planned attempts: if 1 attempts a task "
        "were run, write 1 as its attempts_per_task in cohort.json (and in its attempts_per_item, where it has "
        "them); else add the rows it lacks (tcsexam init --add-missing); its 7 incomplete tasks follow from it "
        "and are not listed"
    ]
    assert lines[0].endswith(", 1 finding")


def test_a_cohort_model_with_no_row_yet_is_one_finding_in_its_models_place(ws, cli):
    """A model of the cohort whose rows are not in the table yet: one finding (not one a task), between
    the findings of the models before and after it in the cohort."""
    models = ("atlas-70b", "borealis-8x22b", "cirrus-mini")
    ws.write_cohort(models={m: {"attempts_per_task": 1} for m in models})
    rows = checked_rows("atlas-70b") + checked_rows("cirrus-mini")
    rows[0]["adoption_status"] = rows[-1]["adoption_status"] = "selected_provisional"
    ws.write_checked_run(rows, models=("atlas-70b", "cirrus-mini"))
    code, lines, _ = validate(cli, ws)
    assert code == 3
    assert [line.split(": ")[:2] for line in lines[1:]] == [
        ["provisional", "atlas-70b"],
        ["incomplete", "borealis-8x22b"],
        ["provisional", "cirrus-mini"],
    ]
    assert lines[2] == (
        "incomplete: borealis-8x22b: -: no attempt of any of its 7 tasks is in the attempts table (1 planned for "
        "each): tcsexam init --add-missing adds their rows; its 7 incomplete tasks follow from it and are not listed"
    )


def test_tasks_short_of_their_plan_by_different_counts_are_listed_one_by_one(ws, cli):
    """When the tasks of a model lack different numbers of attempts there is no one cause: each task is
    its own finding, as before."""
    ws.write_cohort(models={"atlas-70b": {"attempts_per_task": 3}})
    rows = checked_rows("atlas-70b") + [row(model="atlas-70b", item="t1", attempt="2")]
    ws.write_checked_run(rows, models=("atlas-70b",))
    code, lines, _ = validate(cli, ws)
    assert code == 3
    missing = [line for line in lines[1:] if "planned attempts missing" in line]
    assert "incomplete: atlas-70b: t1: 1 of 3 planned attempts missing" in missing
    assert "incomplete: atlas-70b: t2: 2 of 3 planned attempts missing" in missing
    assert len(missing) == 7 and not any("every one of its" in line for line in lines)


def test_a_row_typo_still_suggests_the_cohorts_name(ws, cli):
    """The other way round, the cohort is right: its model has rows, and a row's near name is the typo."""
    ws.write_cohort(models={"atlas-70b": {"attempts_per_task": 1}})
    ws.write_checked_run(checked_rows("atlas-70b") + [row(model="atlas-70c", item="t1")], models=("atlas-70b",))
    code, lines, _ = validate(cli, ws)
    assert (
        "warning: atlas-70c: t1 attempt 1 (line 9): ignored row: model not in cohort; did you mean 'atlas-70b'?"
        in lines
    )


NFC, NFD = "caf\u00e9", "cafe\u0301"  # 'café' typed as one character, and as 'e' and a combining accent


def test_rows_naming_the_cohorts_model_in_another_unicode_form_are_one_finding_saying_so(ws, cli):
    """A name that looks the same as the cohort's is what was meant, however unlike difflib finds the two
    (here 0.67): one finding, whose message writes both out in escapes, not eight rows 'not in cohort'."""
    ws.write_cohort(models={NFC: {"attempts_per_task": 1}})
    ws.write_rows(full_rows(NFD))
    code, lines, _ = validate(cli, ws)
    assert code == 3
    assert lines[1:] == [
        f"warning: {NFC}: -: no row names '{NFC}', while 7 rows name '{NFD}', which is not in the cohort "
        "('cafe\\u0301' and 'caf\\xe9' look the same but are written with other characters): a typo in "
        f"{ws.run / 'cohort.json'} (models.{NFC})? Write '{NFD}' there; its 7 incomplete findings, and the "
        f"7 ignored rows and 0 unused records files of '{NFD}', follow from it and are not listed"
    ]


def test_a_row_naming_a_model_in_another_unicode_form_asks_for_the_cohorts(ws, cli):
    ws.write_cohort(models={NFC: {"attempts_per_task": 1}})
    ws.write_rows(full_rows(NFC) + [row(model=NFD, item="t1", attempt="2")])
    code, lines, _ = validate(cli, ws)
    assert (
        f"warning: {NFD}: t1 attempt 2 (line 9): ignored row: model not in cohort; did you mean '{NFC}'? "
        "('cafe\\u0301' and 'caf\\xe9' look the same but are written with other characters)"
    ) in lines


def test_score_counts_many_models_without_records_in_one_line(ws, cli):
    """score names each model up to five; more are one line (validate still has one finding a model)."""
    models = [f"m{k}" for k in range(6)]
    ws.write_cohort(models={m: {"attempts_per_task": 1} for m in models})
    ws.write_rows([r for m in models for r in full_rows(m)])
    code, _, err = cli(*ws.score_args())
    assert code == 0 and err.splitlines() == [
        "warning: 6 models (m0, m1, m2, ...) have 12 valid solver scores not checked against records "
        "(tcsexam validate says why)"
    ]
    assert len(validate(cli, ws)[1]) == 1 + 6


def test_verify_of_a_document_with_typed_in_solver_scores_says_so(ws, cli):
    ws.write_rows(full_rows())  # no records/: s1 and s2 typed in
    assert cli(*ws.score_args())[0] == 0
    code, out, err = cli("verify", str(ws.out))
    assert code == 0 and "verified" in out
    assert err == "warning: m: 2 valid solver scores not checked against records (tcsexam validate says why)\n"


def test_validate_says_names_do_not_line_up_before_advising_fill(ws, cli):
    """A row waiting for fill on a task whose rows (0, 1) and records files (1.json, 2.json) do not line up
    is told so, not that fill would write its score (fill refuses such a task)."""
    ws.cohort["models"]["m"]["attempts_per_item"] = {"s1": 2}
    ws.write_cohort()
    rows = [r for r in full_rows() if r["item"] != "s1"]
    rows[2:2] = [row(track="solver", item="s1", attempt=a, score="", status="missing") for a in ("0", "1")]
    ws.write_rows(rows)
    ws.write_records("m", "s1", "1", CHECKED_RECORDS["s1"])
    ws.write_records("m", "s1", "2", CHECKED_RECORDS["s1"])
    code, lines, _ = validate(cli, ws)
    (line,) = [x for x in lines if x.startswith("incomplete: m: s1 attempt 1 (line 5)")]
    assert "attempt names and records file names do not line up for this task (rows have attempts '0', '1'; " in line
    assert "fill writes its score" not in line


def test_score_prints_the_warnings_validate_finds(ws, cli):
    """A percentage typed for a fraction is on score's standard error too, not only in validate."""
    ws.write_checked_run(checked_rows(scores={"c1": 85}))
    code, _, err = cli(*ws.score_args())
    assert code == 0
    assert "warning: m: c1 attempt 1 (line 6): construction score 85.0 is above 10" in err
