"""``tcsexam init --add-missing`` (docs/commands.md#init): the planned attempts a table lacks are
appended, in plan order, under the table's own header and in its line ending; no other byte changes."""

from __future__ import annotations

import pytest

from tests.support.runs import COLUMNS, csv_text, full_rows, row


def init(cli, ws, *extra):
    return cli("init", str(ws.run), "--benchmark", str(ws.bench), *extra)


def test_a_model_added_later_gets_its_rows_and_nothing_else_changes(ws, cli):
    ws.write_rows(full_rows())
    path = ws.run / "attempts.csv"
    before = path.read_bytes()
    ws.write_cohort(
        models={"m": {"attempts_per_task": 1}, "m2": {"attempts_per_task": 1, "attempts_per_item": {"s1": 2}}}
    )
    code, out, err = init(cli, ws, "--add-missing")
    assert code == 0, err
    assert out.strip() == f"init --add-missing: 8 planned attempts appended -> {path}"
    after = path.read_bytes()
    assert after.startswith(before)
    assert after[len(before) :].decode() == (
        "m2,theorem,t1,1,,selected,missing,original_task_score,,,\n"
        "m2,theorem,t2,1,,selected,missing,original_task_score,,,\n"
        "m2,solver,s1,1,,selected,missing,fixed_reference_relative,offline,,\n"
        "m2,solver,s1,2,,selected,missing,fixed_reference_relative,offline,,\n"
        "m2,solver,s2,1,,selected,missing,fixed_reference_relative,offline,,\n"
        "m2,construction,c1,1,,selected,missing,original_task_score,,,\n"
        "m2,construction,c2,1,,selected,missing,original_task_score,,,\n"
        "m2,conjecture,o1,1,,selected,missing,original_task_score,,,\n"
    )
    code, out, _ = init(cli, ws, "--add-missing")  # nothing missing now: nothing written
    assert code == 0 and "0 planned attempts appended" in out and path.read_bytes() == after


def test_the_tables_layout_is_kept_bom_crlf_quoting_column_order_extra_columns(ws, cli):
    rows = [r for r in full_rows() if r["item"] != "s2"]  # s2 missing, and one attempt more planned for c1
    rows[0]["note"] = 'judged twice, "by hand"'
    columns = ["item", "model", *[c for c in COLUMNS if c not in ("item", "model", "reference_id")], "lab notes"]
    text = csv_text([{**r, "lab notes": "x"} for r in rows], columns).replace("\n", "\r\n")
    text = text[: -len("\r\n")]  # no final line ending
    path = ws.run / "attempts.csv"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    ws.write_cohort(models={"m": {"attempts_per_task": 1, "attempts_per_item": {"c1": 2}}})
    code, _, err = init(cli, ws, "--add-missing")
    assert code == 0, err
    assert (
        path.read_bytes()
        == b"\xef\xbb\xbf"
        + (
            text + "\r\n"
            "s2,m,solver,1,,selected,missing,fixed_reference_relative,offline,,\r\n"
            "c1,m,construction,2,,selected,missing,original_task_score,,,\r\n"
        ).encode()
    )
    code, _, err = cli("validate", str(ws.run), "--benchmark", str(ws.bench))
    assert code == 3 and "Traceback" not in err  # two planned attempts missing: reads as a table


def test_add_missing_without_a_table_writes_the_skeleton(ws, cli):
    code, out, err = init(cli, ws, "--add-missing")
    assert code == 0 and out.startswith("init: 7 planned attempts"), err
    assert (ws.run / "attempts.csv").read_text().count("\n") == 8


def test_an_excluded_attempt_is_not_counted_its_replacement_gets_the_next_free_name(ws, cli):
    # docs/rules.md: a task is complete with as many adopted attempts as planned; an excluded one is kept, never adopted
    rows = full_rows()
    rows[0].update(adoption_status="excluded", note="replaced", score="")
    rows[0]["score_status"] = "judge_failed"
    path = ws.write_rows(rows)
    before = path.read_bytes()
    assert init(cli, ws, "--add-missing")[0] == 0
    assert path.read_bytes() == before + b"m,theorem,t1,2,,selected,missing,original_task_score,,,\n"
    rows.append(row(item="t1", attempt="2", score=1))  # the replacement scored: nothing lacks
    path = ws.write_rows(rows)
    before = path.read_bytes()
    assert init(cli, ws, "--add-missing")[0] == 0 and path.read_bytes() == before


@pytest.mark.parametrize("names", [["0", "1"], ["a", "b"], ["1.0", "2.0"], ["2", "7"]])
def test_a_task_with_its_planned_attempts_under_other_names_lacks_none(ws, cli, names):
    """Attempt names are free (docs/formats.md#attempts-table): a task with as many adopted rows as planned
    gets none appended, whatever the rows are called; one short of them gets a row named by the
    smallest whole number its rows leave free."""
    ws.write_cohort(models={"m": {"attempts_per_task": 1, "attempts_per_item": {"t1": 2}}})
    rows = [r for r in full_rows() if r["item"] != "t1"]
    rows += [row(item="t1", attempt=name, score=1) for name in names]
    path = ws.write_rows(rows)
    before = path.read_bytes()
    assert init(cli, ws, "--add-missing")[0] == 0 and path.read_bytes() == before
    code, _, err = cli("validate", str(ws.run), "--benchmark", str(ws.bench))
    assert code == 0, err
    path = ws.write_rows(rows[:-1])  # one short of the plan
    before = path.read_bytes()
    assert init(cli, ws, "--add-missing")[0] == 0
    free = "1" if names[0] != "1" else "2"
    assert path.read_bytes() == before + f"m,theorem,t1,{free},,selected,missing,original_task_score,,,\n".encode()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("model;track\n", "looks semicolon-separated"),
        (csv_text([row(score="0,5")]), "use a decimal point"),
    ],
)
def test_a_table_that_does_not_read_is_left_as_it_is(ws, cli, text, message):
    path = ws.run / "attempts.csv"
    path.write_text(text)
    code, _, err = init(cli, ws, "--add-missing")
    assert code == 1 and message in err and path.read_text() == text


def test_add_missing_and_force_are_one_or_the_other(ws, cli):
    code, _, err = init(cli, ws, "--add-missing", "--force")
    assert code == 2 and "not allowed with argument" in err
    assert not (ws.run / "attempts.csv").exists()


def test_a_row_written_while_init_appends_is_never_lost(ws, cli, monkeypatch):
    from tcsexam.scoring.prepare import csv_fields

    path = ws.write_rows(full_rows())
    ws.write_cohort(models={"m": {"attempts_per_task": 1}, "m2": {"attempts_per_task": 1}})
    real = csv_fields.appended_rows

    def then_edit(*args):
        with path.open("a") as fh:
            fh.write("m,theorem,t1,2,1,selected,valid,original_task_score,,,\n")
        return real(*args)

    monkeypatch.setattr(csv_fields, "appended_rows", then_edit)
    code, _, err = init(cli, ws, "--add-missing")
    assert code == 1 and f"{path}: changed while the command ran" in err
    assert path.read_text().endswith("m,theorem,t1,2,1,selected,valid,original_task_score,,,\n")
    assert "m2," not in path.read_text()
