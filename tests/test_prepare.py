"""docs/commands.md: ``tcsexam init`` and ``tcsexam fill``.

Expected scores are written out from docs/rules.md#solver-score by hand (reference [10, 12, 14]: mu 12, scale 2;
[100, null, 100, 100]: mu 100, s 0, scale = 0.02*100 = 2), and expected files byte for byte.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import os
import stat

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcsexam.scoring.formats.results import SolverScoreOutput
from tcsexam.scoring.prepare.csv_fields import scan_csv
from tests.support.runs import COLUMNS, MINI_SUITE, csv_text, full_rows, row

HEADER = "model,track,item,attempt,score,adoption_status,score_status,score_type,solver_protocol"
PHI_1 = 0.5 * (1 + math.erf(1 / math.sqrt(2)))  # Phi(1)
S1_HALF = [{"instance": "a", "status": "ok", "A": 12}, {"instance": "b", "status": "timeout"}]  # 0.5 and 0: 0.25
S1_HIGH = [{"instance": "a", "status": "ok", "A": 14}, {"instance": "b", "status": "ok", "A": 100}]  # Phi(1), 0.5
S2_ALL = [{"instance": "x", "status": "ok", "solved": True}, {"instance": "y", "status": "crash"}]


def fill(cli, ws, *extra):
    return cli("fill", str(ws.run), "--benchmark", str(ws.bench), *extra)


def tree(root):
    return {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file()}


# --- init -----------------------------------------------------------------------------------------


def test_init_writes_one_row_per_planned_attempt_in_cohort_and_suite_order(ws, cli):
    ws.write_cohort(
        models={"m": {"attempts_per_task": 1, "attempts_per_item": {"s1": 2}}, "a": {"attempts_per_task": 1}}
    )
    code, out, err = cli("init", str(ws.run), "--benchmark", str(ws.bench))
    assert code == 0, err
    tail = ",selected,missing,"
    expected = (
        "model,track,item,attempt,score,adoption_status,score_status,score_type,solver_protocol,note,reference_id\n"
        f"m,theorem,t1,1,{tail}original_task_score,,,\n"
        f"m,theorem,t2,1,{tail}original_task_score,,,\n"
        f"m,solver,s1,1,{tail}fixed_reference_relative,offline,,\n"
        f"m,solver,s1,2,{tail}fixed_reference_relative,offline,,\n"
        f"m,solver,s2,1,{tail}fixed_reference_relative,offline,,\n"
        f"m,construction,c1,1,{tail}original_task_score,,,\n"
        f"m,construction,c2,1,{tail}original_task_score,,,\n"
        f"m,conjecture,o1,1,{tail}original_task_score,,,\n"
        f"a,theorem,t1,1,{tail}original_task_score,,,\n"
        f"a,theorem,t2,1,{tail}original_task_score,,,\n"
        f"a,solver,s1,1,{tail}fixed_reference_relative,offline,,\n"
        f"a,solver,s2,1,{tail}fixed_reference_relative,offline,,\n"
        f"a,construction,c1,1,{tail}original_task_score,,,\n"
        f"a,construction,c2,1,{tail}original_task_score,,,\n"
        f"a,conjecture,o1,1,{tail}original_task_score,,,\n"
    )
    assert (ws.run / "attempts.csv").read_text() == expected
    assert "15 planned attempts" in out


def test_init_never_replaces_an_existing_table_without_force(ws, cli):
    path = ws.write_rows(skeleton_rows())
    before = path.read_bytes()
    code, _, err = cli("init", str(ws.run), "--benchmark", str(ws.bench))
    assert code == 1 and path.read_bytes() == before
    assert str(path) in err and "--force" in err and "Traceback" not in err
    ws.write_cohort(models={"m": {"attempts_per_task": 2}})
    code, _, err = cli("init", str(ws.run), "--benchmark", str(ws.bench), "--force")  # a skeleton over a skeleton
    assert code == 0, err
    assert path.read_text().count("\n") == 1 + 2 * 7 and path.read_text().count(",selected,missing,") == 14


TRACK_ITEMS = [(t["track"], t["item"]) for t in MINI_SUITE["tasks"]]


def skeleton_rows() -> list[dict]:
    return [row(track=t, item=i, score="", status="missing") for t, i in TRACK_ITEMS]


@pytest.mark.parametrize(
    "change",
    [
        {"score": "0.5"},
        {"score_status": "valid"},
        {"score_status": "invalid"},
        {"adoption_status": "excluded"},
        {"note": "rejudged by hand"},
        {"reference_id": "ref-test"},
        {"comment": "an extra column"},
    ],
)
def test_init_force_never_discards_a_table_with_anything_filled_in(ws, cli, change):
    # docs/safety.md: --force replaces a skeleton only; one filled cell anywhere is enough to refuse
    rows = skeleton_rows()
    rows[3].update(change)
    path = ws.write_rows(rows, columns=[*COLUMNS, "comment"])
    before = path.read_bytes()
    code, out, err = cli("init", str(ws.run), "--benchmark", str(ws.bench), "--force")
    assert code == 1 and path.read_bytes() == before, out
    assert f"{path}: attempts table holds 1 filled row, {int('score' in change)} with a score" in err
    assert "nothing written" in err and "mv " in err and "Traceback" not in err
    assert sorted(p.name for p in ws.run.iterdir()) == ["attempts.csv", "cohort.json"]  # no backup, no temp


def test_init_force_on_a_scored_table_counts_what_it_would_discard(ws, cli):
    rows = full_rows()  # 7 valid scores
    rows[0]["adoption_status"], rows[0]["note"] = "excluded", "replaced"
    path = ws.write_rows(rows)
    before = path.read_bytes()
    code, _, err = cli("init", str(ws.run), "--benchmark", str(ws.bench), "--force")
    assert code == 1 and path.read_bytes() == before
    assert "holds 7 filled rows, 7 with a score" in err


def test_init_force_on_a_table_it_cannot_read_refuses(ws, cli):
    path = ws.run / "attempts.csv"
    path.write_bytes(b"model,note\nm,caf\xe9\n")  # Latin-1: what it holds cannot be told
    code, _, err = cli("init", str(ws.run), "--benchmark", str(ws.bench), "--force")
    assert code == 1 and path.read_bytes() == b"model,note\nm,caf\xe9\n"
    assert "cannot tell what the attempts table holds" in err and "not valid UTF-8" in err


def test_init_then_score_exits_3_naming_every_planned_attempt(ws, cli):
    ws.write_cohort(models={"m": {"attempts_per_task": 2}, "b": {"attempts_per_task": 1}})
    assert cli("init", str(ws.run), "--benchmark", str(ws.bench))[0] == 0
    code, _, _ = cli(*ws.score_args())
    assert code == 3
    doc = json.loads(ws.out.read_text())
    items = ["t1", "t2", "s1", "s2", "c1", "c2", "o1"]
    for model, planned in (("m", 2), ("b", 1)):
        named = {(e["item"], e["attempt"]) for e in doc["models"][model]["coverage"]["not_valid"]}
        assert named == {(i, str(k)) for i in items for k in range(1, planned + 1)}
        assert doc["models"][model]["index"] is None


def test_init_rejects_a_bad_cohort_naming_the_field(ws, cli):
    ws.write_cohort(solver_protocol="sideways")
    code, _, err = cli("init", str(ws.run), "--benchmark", str(ws.bench))
    assert code == 1 and "solver_protocol" in err and not (ws.run / "attempts.csv").exists()


# --- fill -----------------------------------------------------------------------------------------


def blank_solver(rows):
    for r in rows:
        if r["track"] == "solver":
            r["score"], r["score_status"] = "", "missing"
    return rows


def fillable(ws):
    """The mini run with its solver rows blank and the records of both solver tasks: s1 scores 0.25."""
    ws.write_rows(blank_solver(full_rows()))
    ws.write_records("m", "s1", "1", S1_HALF)
    ws.write_records("m", "s2", "1", S2_ALL)


def test_fill_writes_the_relative_score_status_reference_and_solver_score_output(ws, cli, tmp_path):
    fillable(ws)
    code, out, err = fill(cli, ws)
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO((ws.run / "attempts.csv").read_text())))
    s1 = next(r for r in rows if r["item"] == "s1")
    s2 = next(r for r in rows if r["item"] == "s2")
    assert (s1["score"], s1["score_status"], s1["reference_id"]) == ("0.25", "valid", "ref-test")
    # s2: x solved against [1, 0, 1] (mu 2/3, s sqrt(1/3)): z = (1/3)/sqrt(1/3) = sqrt(1/3); y crashed: 0
    expected_s2 = 0.5 * (1 + math.erf(math.sqrt(1 / 3) / math.sqrt(2))) / 2
    assert abs(float(s2["score"]) - expected_s2) < 1e-15 and s2["score"] == repr(float(s2["score"]))
    # the stored output is what solver-score writes for the same records
    own = tmp_path / "own.json"
    assert (
        cli(
            "solver-score",
            "--task",
            "s1",
            "--records",
            str(ws.run / "records/m/s1/1.json"),
            "--reference",
            "lite",
            "--reference-id",
            "ref-test",
            "--benchmark",
            str(ws.bench),
            "--output",
            str(own),
        )[0]
        == 0
    )
    assert json.loads((ws.run / "solver-scores/m/s1/1.json").read_text()) == json.loads(own.read_text())
    for written in (ws.run / "solver-scores").rglob("*.json"):  # every written file validates against its schema
        msgspec.json.decode(written.read_bytes(), type=SolverScoreOutput)
    assert "line 4" in out and "0.25" in out
    assert cli(*ws.score_args())[0] == 0  # the filled table scores, and agrees with its records


def test_fill_preserves_every_byte_it_does_not_edit(ws, cli):
    # BOM, CRLF and LF mixed, quoted fields, an extra column with commas and quotes, rows out of
    # order, a blank line, no reference_id column and no final newline.
    text = (
        "\ufeff" + HEADER + ',"comment",note\r\n'
        'm,solver,s2,1,,selected,missing,fixed_reference_relative,offline,"say ""hi"", twice",\n'
        '"m",theorem,t1,1,1,selected,valid,original_task_score,,,\r\n'
        "\r\n"
        'm,"solver","s1",1,"",selected,"missing",fixed_reference_relative,offline,"two\r\nlines",n\r\n'
        "m,theorem,t2,1,0,selected,valid,original_task_score,,x,\n"
        "m,construction,c1,1,1.2,selected,valid,original_task_score,,,\n"
        "m,construction,c2,1,0.4,selected,valid,original_task_score,,,\n"
        "m,conjecture,o1,1,0,selected,valid,original_task_score,,,"
    )
    (ws.run / "attempts.csv").write_bytes(text.encode("utf-8"))
    ws.write_records("m", "s1", "1", S1_HIGH)
    ws.write_records("m", "s2", "1", S2_ALL)
    code, _, err = fill(cli, ws)
    assert code == 0, err
    s1 = repr((PHI_1 + 0.5) / 2)
    s2_value = float(
        next(
            r
            for r in csv.DictReader(io.StringIO((ws.run / "attempts.csv").read_text("utf-8-sig")))
            if r["item"] == "s2"
        )["score"]
    )
    s2 = repr(s2_value)
    expected = (
        "\ufeff" + HEADER + ',"comment",note,reference_id\r\n'
        f'm,solver,s2,1,{s2},selected,valid,fixed_reference_relative,offline,"say ""hi"", twice",,ref-test\n'
        '"m",theorem,t1,1,1,selected,valid,original_task_score,,,,\r\n'
        "\r\n"
        f'm,"solver","s1",1,"{s1}",selected,"valid",fixed_reference_relative,offline,"two\r\nlines",n,ref-test\r\n'
        "m,theorem,t2,1,0,selected,valid,original_task_score,,x,,\n"
        "m,construction,c1,1,1.2,selected,valid,original_task_score,,,,\n"
        "m,construction,c2,1,0.4,selected,valid,original_task_score,,,,\n"
        "m,conjecture,o1,1,0,selected,valid,original_task_score,,,,"
    )
    assert (ws.run / "attempts.csv").read_bytes() == expected.encode("utf-8")
    assert abs((PHI_1 + 0.5) / 2 - 0.6706723730342715) < 1e-15  # the arithmetic, written out
    assert cli(*ws.score_args())[0] == 0


def test_fill_with_a_reference_id_column_edits_only_that_cell(ws, cli):
    rows = blank_solver(full_rows())
    ws.write_rows(rows)
    before = (ws.run / "attempts.csv").read_text()
    ws.write_records("m", "s1", "1", S1_HALF)
    code, _, _ = fill(cli, ws)
    assert code == 3  # s2 has no records file: it stays missing
    after = (ws.run / "attempts.csv").read_text()
    assert after == before.replace(
        "m,solver,s1,1,,selected,missing,fixed_reference_relative,offline,,",
        "m,solver,s1,1,0.25,selected,valid,fixed_reference_relative,offline,,ref-test",
    )
    assert after != before


def test_conflicts_exit_1_list_every_one_and_write_nothing(ws, cli):
    rows = full_rows(scores={"s1": 0.3, "s2": 0.9})
    ws.write_rows(rows)
    ws.write_records("m", "s1", "1", S1_HALF)
    ws.write_records("m", "s2", "1", S2_ALL)
    before = tree(ws.run)
    code, _, err = fill(cli, ws)
    assert code == 1 and tree(ws.run) == before
    assert "line 4: field 'score'" in err and "line 5: field 'score'" in err and "0.3" in err and "0.25" in err
    for item in ("s1", "s2"):  # each conflict names the records file its score came from
        assert f"scored from {ws.run / 'records' / 'm' / item / '1.json'} against 'ref-test'" in err
    # two conflicts are two problems; the way out is said once, after the count, not counted as a third
    assert "rejected: 2 problems in 1 file\npass --overwrite to replace the conflicting scores" in err
    assert "Traceback" not in err
    code, out, err = fill(cli, ws, "--overwrite")
    assert code == 0, err
    assert out.count("conflict") >= 2 and "0.3 -> 0.25" in out
    assert (
        next(r for r in csv.DictReader(io.StringIO((ws.run / "attempts.csv").read_text())) if r["item"] == "s1")[
            "score"
        ]
        == "0.25"
    )


def test_a_score_within_1e9_is_no_conflict_and_is_left_as_written(ws, cli):
    rows = full_rows(scores={"s1": "0.2500000000004"})
    for r in rows:
        r["reference_id"] = "ref-test" if r["track"] == "solver" else ""
    ws.write_rows(rows)
    ws.write_records("m", "s1", "1", S1_HALF)
    before = (ws.run / "attempts.csv").read_bytes()
    code, out, _ = fill(cli, ws)
    assert code == 0 and (ws.run / "attempts.csv").read_bytes() == before
    assert (ws.run / "solver-scores/m/s1/1.json").is_file() and "already filled 1" in out


def test_not_ready_rows_are_listed_left_alone_and_exit_3(ws, cli):
    ws.write_rows(blank_solver(full_rows()))
    ws.write_records(
        "m", "s1", "1", [{"instance": "a", "status": "infra_error"}, {"instance": "b", "status": "ok", "A": 1}]
    )
    ws.write_records("m", "s2", "1", [{"instance": "x", "status": "ok", "solved": True}])  # no record for y
    before = (ws.run / "attempts.csv").read_bytes()
    code, out, err = fill(cli, ws)
    assert code == 3, err
    assert (ws.run / "attempts.csv").read_bytes() == before and not (ws.run / "solver-scores").exists()
    assert "not ready: line 4: m s1 attempt 1" in out and "infra_error" in out
    assert "not ready: line 5: m s2 attempt 1" in out and "y" in out


def test_a_not_ready_reason_names_every_incomplete_observation_and_every_instance_without_a_record(ws, cli):
    # docs/commands.md: one attempt both incomplete (a: missing) and lacking a scored instance (b): both said
    ws.write_rows(blank_solver(full_rows()))
    ws.write_records("m", "s1", "1", [{"instance": "a", "status": "missing"}])
    code, out, err = fill(cli, ws)
    assert code == 3, err
    line = next(x for x in out.splitlines() if "not ready: line 4: m s1 attempt 1" in x)
    assert "1 incomplete observation: a (missing)" in line and "1 scored instance without a record: b" in line


def test_a_not_ready_file_with_another_problem_is_rejected_for_that_problem(ws, cli):
    # an incomplete observation never hides a broken record of the same file: rejected, numbered as in the file
    ws.write_rows(blank_solver(full_rows()))
    ws.write_records(
        "m", "s1", "1", [{"instance": "a", "status": "infra_error"}, {"instance": "b", "status": "ok", "A": "x"}]
    )
    before = (ws.run / "attempts.csv").read_bytes()
    code, out, err = fill(cli, ws)
    assert code == 1 and (ws.run / "attempts.csv").read_bytes() == before
    assert "record 1" in err and "field 'A'" in err and "not ready" not in out


def test_any_other_records_problem_rejects_and_writes_nothing(ws, cli):
    ws.write_rows(blank_solver(full_rows()))
    ws.write_records("m", "s1", "1", S1_HALF)  # fine, but must not be written either
    bad = ws.write_records(
        "m", "s2", "1", [{"instance": "x", "status": "solved-ish"}, {"instance": "y", "status": "missing"}]
    )
    before = tree(ws.run)
    code, _, err = fill(cli, ws)
    assert code == 1 and tree(ws.run) == before
    assert str(bad) in err and "record 0" in err and "status" in err


@pytest.mark.parametrize("edit", ["same size", "shorter"])
def test_filling_again_rewrites_only_the_outputs_that_changed(ws, cli, edit):
    """docs/commands.md#fill: an output already holding the bytes fill would write is left as it
    is (same file, same time stamp); one that differs, even by a byte of the same length, is
    written again."""
    fillable(ws)
    assert fill(cli, ws)[0] == 0
    kept, edited = ws.run / "solver-scores/m/s1/1.json", ws.run / "solver-scores/m/s2/1.json"
    expected = edited.read_bytes()
    was = os.stat(kept)
    changed = expected.replace(b'"relative_score"', b'"relative_scorf"') if edit == "same size" else b"{}\n"
    assert changed != expected and (len(changed) == len(expected)) == (edit == "same size")
    edited.write_bytes(changed)
    code, out, err = fill(cli, ws)
    assert code == 0, err
    assert "already filled 2" in out
    now = os.stat(kept)
    assert (now.st_ino, now.st_mtime_ns) == (was.st_ino, was.st_mtime_ns)
    assert edited.read_bytes() == expected


def test_a_kept_output_the_new_table_relies_on_is_flushed_before_the_table(ws, cli, monkeypatch):
    """docs/safety.md: once attempts.csv is the new one, every output it relies on is on disk, a
    kept one too (restored by a copy, or renamed by a fill killed before its flush)."""
    from tcsexam.scoring.prepare import fill as fill_module

    fillable(ws)
    blank = (ws.run / "attempts.csv").read_bytes()
    assert fill(cli, ws)[0] == 0
    (ws.run / "attempts.csv").write_bytes(blank)  # the scores gone, the outputs still there
    events: list[str] = []
    monkeypatch.setattr(os, "sync", lambda: events.append("sync"))
    real = fill_module.write_atomic
    monkeypatch.setattr(fill_module, "write_atomic", lambda *a, **k: events.append("table") or real(*a, **k))
    code, out, err = fill(cli, ws)
    assert code == 0 and "filled 2" in out, err
    assert events == ["sync", "table"]


def test_an_output_that_gains_a_name_while_fill_runs_is_refused_even_when_it_holds_the_bytes(ws, cli, monkeypatch):
    from tcsexam.scoring.prepare import fill as fill_module

    fillable(ws)
    assert fill(cli, ws)[0] == 0
    output = ws.run / "solver-scores/m/s1/1.json"
    real = fill_module.check_outputs

    def then_link(*args, **kwargs):
        checked = real(*args, **kwargs)
        os.link(output, ws.run / "other-name.json")
        return checked

    monkeypatch.setattr(fill_module, "check_outputs", then_link)
    code, _, err = fill(cli, ws)
    assert code == 1 and "hard links" in err and "1.json" in err


def test_the_scanner_and_the_reader_must_agree_on_every_row_that_gains_a_cell():
    """attempts.csv's edit checks that the field scanner's records are the reader's rows: the edited
    ones always, and every one when a column is appended to each (else nothing is written)."""
    from types import SimpleNamespace

    from tcsexam.scoring.prepare.csv_fields import edited_text

    text = "model,item,attempt,score\nm,s,1,\nm,s,2,\n"
    rows = [SimpleNamespace(model="m", item="s", attempt=a, line=n) for a, n in (("9", 2), ("2", 3))]  # line 2 differs
    kept = edited_text(text, ["model", "item", "attempt", "score"], rows, {3: {"score": "1.0"}})
    assert kept == "model,item,attempt,score\nm,s,1,\nm,s,2,1.0\n"  # line 2 is kept as it is: no harm
    with pytest.raises(ValueError, match="line 2"):  # line 2 edited
        edited_text(text, ["model", "item", "attempt", "score"], rows, {2: {"score": "1.0"}})
    with pytest.raises(ValueError, match="line 2"):  # line 2 gains a reference_id cell
        edited_text(text, ["model", "item", "attempt", "score"], rows, {3: {"score": "1.0", "reference_id": "r"}})


def test_dry_run_prints_the_changes_and_writes_nothing(ws, cli):
    fillable(ws)
    before = tree(ws.run)
    code, out, _ = fill(cli, ws, "--dry-run")
    assert code == 0 and tree(ws.run) == before
    assert "would fill: line 4: m s1 attempt 1: score (empty) -> 0.25" in out and "nothing written" in out


def test_excluded_and_other_tracks_are_not_filled(ws, cli):
    rows = blank_solver(full_rows())
    rows[2]["adoption_status"], rows[2]["note"] = "excluded", "replaced"
    ws.write_rows(rows)
    ws.write_records("m", "s1", "1", S1_HALF)
    before = (ws.run / "attempts.csv").read_bytes()
    code, out, _ = fill(cli, ws)
    assert code == 3 and (ws.run / "attempts.csv").read_bytes() == before and "filled 0" in out


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=["a", ",", '"', "\r", "\n", " ", "\t", "\x0b", "\x85", "\u2028", "é"], max_size=40))
def test_the_field_scanner_reads_what_the_csv_module_reads(text):
    try:
        expected = [r for r in csv.reader(io.StringIO(text, newline=""), strict=False) if "".join(r).strip()]
    except csv.Error:
        return  # the reader rejects it: attempts.csv would be rejected before any edit
    got = [r.values for r in scan_csv(text) if not r.blank]
    assert got == expected
    assert [r.blank for r in scan_csv(text)] == [not "".join(r.values).strip() for r in scan_csv(text)]
    for rec in scan_csv(text):  # spans cover the fields: the text between them is only commas
        for (_, e0), (s1, _) in itertools.pairwise(rec.spans):
            assert text[e0:s1] == ","


def test_a_name_that_could_leave_its_folder_is_rejected_and_nothing_written(ws, cli):
    rows = blank_solver(full_rows())
    for r in rows:
        if r["item"] == "s1":
            r["attempt"] = "../../../escape"
    ws.write_cohort(models={"m": {"attempts_per_task": 1}})
    ws.write_rows(rows)
    ws.write_records("m", "s2", "1", S2_ALL)
    before = tree(ws.run)
    code, _, err = fill(cli, ws)
    assert code == 1 and tree(ws.run) == before and not (ws.root / "escape.json").exists()
    assert "line 4: field 'attempt': attempt name holds '/'" in err  # docs/safety.md, where the table is read


def test_fill_shows_control_characters_of_names_escaped(ws, cli):
    name = "m\x1b[2J"
    ws.write_cohort(models={name: {"attempts_per_task": 1}})
    ws.write_rows(blank_solver(full_rows(name)))
    ws.write_records(name, "s1", "1", S1_HALF)
    code, out, _ = fill(cli, ws)
    assert code == 3 and "\x1b" not in out and "filled: line 4: m\\x1b[2J s1 attempt 1: score (empty) -> 0.25" in out


def test_attempts_csv_is_replaced_only_after_every_solver_score_output(ws, cli, monkeypatch):
    from tcsexam.scoring.safety import outputs

    ws.write_rows(blank_solver(full_rows()))
    ws.write_records("m", "s1", "1", S1_HALF)
    (ws.run / "solver-scores").write_text("a file where the outputs' folder belongs")
    before = (ws.run / "attempts.csv").read_bytes()
    code, _, err = fill(cli, ws)  # refused when the outputs are checked, before any write
    assert code == 1 and f"{ws.run / 'solver-scores'}/m/s1/1.json: cannot use as output" in err
    assert (ws.run / "attempts.csv").read_bytes() == before and "Traceback" not in err
    (ws.run / "solver-scores").unlink()

    def full_disk(*args):  # the flush of the solver-score outputs' data finds the disk full
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(outputs.os, "sync", full_disk)
    code, _, err = fill(cli, ws)
    assert code == 1 and f"cannot write {ws.run / 'solver-scores'}/m/s1/1.json" in err and "Traceback" not in err
    assert (ws.run / "attempts.csv").read_bytes() == before
    assert [p.name for p in ws.run.iterdir() if p.name.startswith(".")] == []  # no temporary file left
    assert not (ws.run / "solver-scores").exists()  # nor the folders made for the outputs


@pytest.mark.parametrize("kind", ["link to the cohort", "folder", "hard link to the cohort"])
def test_init_never_writes_over_an_input_or_a_folder(ws, cli, kind):
    # docs/safety.md: an output is never one of the command's inputs (after links), never a folder
    ws.write_cohort()
    cohort = ws.run / "cohort.json"
    before = cohort.read_bytes()
    target = ws.run / "attempts.csv"
    if target.exists():
        target.unlink()
    if kind == "folder":
        target.mkdir()
    elif kind == "link to the cohort":
        target.symlink_to("cohort.json")
    else:
        os.link(cohort, target)
    code, _, err = cli("init", str(ws.run), "--benchmark", str(ws.bench), "--force")
    assert code == 1 and "attempts.csv" in err
    assert cohort.read_bytes() == before
    assert target.is_dir() if kind == "folder" else target.read_bytes() == before


# --- fill keeps what the user had (docs/safety.md) ---------------------------------------------------


def filled_s1(rows):
    """``rows`` after a fill that finds only m/s1/1 (S1_HALF: 0.25 against ref-test)."""
    for r in rows:
        if r["item"] == "s1":
            r["score"], r["score_status"], r["reference_id"] = "0.25", "valid", "ref-test"
    return rows


ORDERS = {
    "reference_id before score": [0, 1, 2, 3, 10, 4, 5, 6, 7, 8, 9],
    "score_status before score": [0, 1, 2, 3, 6, 5, 4, 7, 8, 9, 10],
    "the three reversed": [0, 1, 2, 3, 10, 9, 6, 7, 8, 5, 4],
    "every column reversed": list(range(10, -1, -1)),
    "score last": [10, 6, 0, 1, 2, 3, 5, 7, 8, 9, 4],
    "no reference_id, status before score": [6, 0, 1, 2, 3, 5, 7, 8, 9, 4],
    "no reference_id, reversed": list(range(9, -1, -1)),
}


@pytest.mark.parametrize("order", ORDERS.values(), ids=ORDERS.keys())
def test_fill_edits_the_right_cells_whatever_the_column_order(ws, cli, order):
    # docs/formats.md#attempts-table fixes the column names, not their order: each cell is edited where it sits in the line
    columns = [COLUMNS[i] for i in order]
    ws.write_rows(blank_solver(full_rows()), columns=columns)
    ws.write_records("m", "s1", "1", S1_HALF)
    code, _, err = fill(cli, ws)
    assert code == 3, err  # s2 has no records file
    appended = [] if "reference_id" in columns else ["reference_id"]
    expected = csv_text(filled_s1(blank_solver(full_rows())), columns=columns + appended)
    assert (ws.run / "attempts.csv").read_text() == expected
    assert cli("validate", str(ws.run), "--benchmark", str(ws.bench))[0] in (0, 3)


def test_fill_writes_through_a_symlinked_table_and_keeps_the_link(ws, cli, tmp_path):
    shared = tmp_path / "elsewhere" / "shared-attempts.csv"
    shared.parent.mkdir()
    shared.write_text(csv_text(blank_solver(full_rows())))
    (ws.run / "attempts.csv").symlink_to(shared)
    ws.write_records("m", "s1", "1", S1_HALF)
    code, _, err = fill(cli, ws)
    assert code == 3, err
    assert os.readlink(ws.run / "attempts.csv") == str(shared)  # still the link
    assert shared.read_text() == csv_text(filled_s1(blank_solver(full_rows())))  # the file it names is filled


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_fill_keeps_the_owner_group_and_mode_of_the_table(ws, cli):
    path = ws.write_rows(blank_solver(full_rows()))
    os.chown(path, 65534, 65534)
    os.chmod(path, 0o640)
    ws.write_records("m", "s1", "1", S1_HALF)
    assert fill(cli, ws)[0] == 3
    st = os.stat(path)
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (65534, 65534, 0o640)
    assert path.read_text() == csv_text(filled_s1(blank_solver(full_rows())))


def test_fill_refuses_a_hard_linked_table_before_writing_anything(ws, cli, tmp_path):
    path = ws.write_rows(blank_solver(full_rows()))
    os.link(path, tmp_path / "other-name.csv")
    ws.write_records("m", "s1", "1", S1_HALF)
    before = tree(ws.run)
    code, _, err = fill(cli, ws)
    assert code == 1 and tree(ws.run) == before  # no solver-scores/ either
    assert f"{path}: output has 2 names (hard links)" in err and "Traceback" not in err
    assert (tmp_path / "other-name.csv").read_bytes() == before[path.relative_to(ws.run)]
    assert fill(cli, ws, "--dry-run")[0] == 3  # a dry run writes nothing: nothing to refuse


@pytest.mark.parametrize("link", ["solver-scores", "solver-scores/m"])
def test_fill_never_writes_its_outputs_over_its_own_records(ws, cli, link):
    # docs/safety.md: solver-scores/ (or a folder in it) resolving into records/ is refused, nothing touched
    ws.write_rows(blank_solver(full_rows()))
    ws.write_records("m", "s1", "1", S1_HALF)
    place = ws.run / link
    place.parent.mkdir(parents=True, exist_ok=True)
    place.symlink_to(os.path.relpath(ws.run / "records" / link.removeprefix("solver-scores").strip("/"), place.parent))
    before = tree(ws.run)
    code, _, err = fill(cli, ws)
    assert code == 1 and tree(ws.run) == before
    assert "output lies inside the input folder" in err and "solver-scores/m/s1/1.json" in err


def edit_theorem_row(path):
    """What a user (or a judge harness) does while fill runs: rescore a theorem row by hand."""
    text = path.read_text()
    edited = text.replace("m,theorem,t2,1,0,selected,valid,", "m,theorem,t2,1,1,selected,valid,")
    assert edited != text
    path.write_text(edited)
    return edited


def test_an_edit_made_while_fill_writes_its_outputs_is_kept_and_fill_refuses(ws, cli, monkeypatch):
    # docs/safety.md: attempts.csv changed after fill read it is never replaced (exit 1, named)
    from tcsexam.scoring.pipeline import solver as solver_score

    path = ws.write_rows(blank_solver(full_rows()))
    ws.write_records("m", "s1", "1", S1_HALF)
    real = solver_score.solver_score_bytes
    kept = []

    def slow_output(*args, **kwargs):
        kept.append(edit_theorem_row(path))  # the edit lands while the solver-score outputs are written
        return real(*args, **kwargs)

    monkeypatch.setattr(solver_score, "solver_score_bytes", slow_output)
    code, _, err = fill(cli, ws)
    assert code == 1 and path.read_text() == kept[0]
    assert f"{path}: changed while the command ran" in err and "nothing replaced" in err
    assert [p.name for p in ws.run.iterdir() if p.name.startswith(".")] == []  # no temporary file left


def test_a_row_appended_while_fill_scores_is_a_clear_refusal_not_an_internal_error(ws, cli, monkeypatch):
    from tcsexam.scoring.prepare import fill as prepare

    path = ws.write_rows(blank_solver(full_rows()))
    ws.write_records("m", "s1", "1", S1_HALF)
    real = prepare.plan_fill

    def then_append(*args):
        plan = real(*args)
        with path.open("a") as fh:
            fh.write("m,theorem,t1,2,1,selected,valid,original_task_score,,,\n")
        return plan

    monkeypatch.setattr(prepare, "plan_fill", then_append)
    code, _, err = fill(cli, ws)
    after = path.read_bytes()
    assert code == 1 and "internal error" not in err
    assert f"{path}: changed while the command ran" in err
    assert after.endswith(b"m,theorem,t1,2,1,selected,valid,original_task_score,,,\n")
    assert not (ws.run / "solver-scores").exists()  # refused before anything was written


@settings(max_examples=200, deadline=None)
@given(
    order=st.permutations(COLUMNS),
    drop_reference=st.booleans(),
    quoting=st.sampled_from([csv.QUOTE_MINIMAL, csv.QUOTE_ALL]),
    terminator=st.sampled_from(["\n", "\r\n"]),
    edited=st.sets(st.integers(0, 2)),
    note=st.text(alphabet=["a", ",", '"', "\n", " "], max_size=6),
)
def test_edited_text_changes_exactly_the_edited_cells_in_any_layout(
    order, drop_reference, quoting, terminator, edited, note
):
    from types import SimpleNamespace

    from tcsexam.scoring.prepare.csv_fields import edited_text

    columns = [c for c in order if not (drop_reference and c == "reference_id")]
    rows = [dict(row(track="solver", item=f"s{k}", score="", status="missing"), note=note) for k in range(3)]
    buf = io.StringIO()
    csv.writer(buf, quoting=quoting, lineterminator=terminator).writerows(
        [columns, *([r[c] for c in columns] for r in rows)]
    )
    text = buf.getvalue()
    table_rows = [SimpleNamespace(model="m", item=f"s{k}", attempt="1", line=k + 2) for k in range(3)]
    edits = {k + 2: {"score": "0.5", "score_status": "valid", "reference_id": "ref-x"} for k in edited}
    got = list(csv.reader(io.StringIO(edited_text(text, columns, table_rows, edits), newline="")))
    header = columns + (["reference_id"] if drop_reference and edited else [])  # appended only when filled
    for k in edited:
        rows[k].update(score="0.5", score_status="valid", reference_id="ref-x")
    assert got == [header, *([r[c] for c in header] for r in rows)]


def test_fill_names_a_fifo_where_the_reference_belongs_as_a_fifo_not_as_missing(ws, cli):
    # one reference lookup for score and fill: a FIFO at the reference's path is its own problem
    ws.write_rows(blank_solver(full_rows()))
    ref = ws.bench / "references" / "ref-test" / "lite.json"
    ref.unlink()
    os.mkfifo(ref)
    code, _, err = fill(cli, ws)
    assert code == 1 and f"{ref}:" in err and "FIFO" in err and "not found" not in err


def test_fill_in_the_run_folder_names_an_output_as_the_run_names_its_files(demo_copy, cli, monkeypatch):
    """Run from inside the run folder (no RUN_DIR), a refused output is 'solver-scores/...', as attempts.csv
    is 'attempts.csv': no './' before it."""
    (demo_copy / "solver-scores" / "atlas-70b" / "maxcut-mqlib" / "1.json").mkdir(parents=True)
    monkeypatch.chdir(demo_copy)
    code, _, err = cli("fill")
    assert code == 1
    assert "\n  solver-scores/atlas-70b/maxcut-mqlib/1.json: output is a directory" in err, err


def test_fill_interrupted_says_every_file_is_whole_and_exits_128_plus_the_signal(ws, cli, monkeypatch):
    """A signal while fill writes (raised as the handler raises it): exit 130, and a line on standard error
    says what is on disk, where before there was silence."""
    import signal

    from tcsexam.scoring.prepare import fill as fill_module
    from tcsexam.scoring.safety.outputs import Interrupted

    fillable(ws)
    before = tree(ws.run)

    def interrupted(files):
        raise Interrupted(signal.SIGINT)

    monkeypatch.setattr(fill_module, "write_atomic_all", interrupted)
    code, out, err = fill(cli, ws)
    assert code == 130 and tree(ws.run) == before
    assert "interrupted (SIGINT): every file is whole, as it was or as written" in err
    assert "run the command again to finish" in err and "Traceback" not in err


def test_ctrl_c_before_any_write_says_so_too(ws, cli, monkeypatch):
    """Ctrl-C while the inputs are read (Python's own KeyboardInterrupt, before any write): exit 130 and
    the same line as during a write, where a review found a silent 130."""
    from tcsexam.scoring.commands import main as main_module

    def ctrl_c():
        raise KeyboardInterrupt

    ws.write_rows(full_rows())
    before = tree(ws.run)
    monkeypatch.setattr(main_module, "load_numeric_libraries", ctrl_c)
    code, out, err = cli("score", str(ws.run), "--benchmark", str(ws.bench))
    assert code == 130 and tree(ws.run) == before and out == ""
    assert "interrupted (SIGINT): every file is whole, as it was or as written" in err and "Traceback" not in err


def test_a_signal_during_a_write_keeps_its_number_wherever_it_is_said():
    """``interrupted`` says the signal an ``Interrupted`` carries (SIGTERM: 143), Ctrl-C's otherwise (130)."""
    import signal

    from tcsexam.scoring.commands.main import interrupted
    from tcsexam.scoring.safety.outputs import Interrupted

    assert interrupted(Interrupted(signal.SIGTERM)) == 143 and interrupted(KeyboardInterrupt()) == 130


def test_init_without_a_cohort_says_what_it_needs_and_where_it_is_described(cli, tmp_path):
    """`tcsexam init` in an empty folder said only "cohort.json: cohort file not found" (a new user's
    review): it says that init works from a cohort, where its format is described, and where to see one."""
    code, out, err = cli("init", str(tmp_path))
    assert code == 1 and out == "" and list(tmp_path.iterdir()) == []
    assert "cohort.json: cohort file not found" in err
    assert err.rstrip().endswith(
        "init writes attempts.csv from the run's cohort.json: write that first (its format: tcsexam docs "
        "formats#cohort), or see one in a demo run (tcsexam demo DIR)"
    )
