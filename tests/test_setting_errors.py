"""Errors that name the setting behind a symptom (docs/formats.md, docs/commands.md): a benchmark folder
that does not exist, a cohort suite the benchmark lacks, a spreadsheet's CSV, a decimal comma, a
run with no attempts table yet, init on a filled table; and the bounds of a cohort and a header."""

from __future__ import annotations

from tests.support.runs import COLUMNS, csv_text, full_rows


def validate(cli, ws, *extra):
    return cli("validate", str(ws.run), *extra)


def test_a_benchmark_folder_that_does_not_exist_is_named_with_the_variable_it_came_from(ws, cli, monkeypatch):
    ws.write_rows(full_rows())
    ws.write_records("m", "s1", "1", [{"instance": "a", "status": "ok", "A": 12}])  # the reference is needed too
    typo = ws.root / "mybenhc"
    monkeypatch.setenv("TCSEXAM_BENCHMARK", str(typo))
    code, _, err = validate(cli, ws)
    assert code == 1, err
    assert f"{typo}: benchmark folder does not exist (it came from TCSEXAM_BENCHMARK)" in err
    assert "not found" not in err and "1 problem in 1 file" in err
    code, _, err = validate(cli, ws, "--benchmark", str(typo))
    assert code == 1 and "(it came from --benchmark)" in err
    (ws.run / "attempts.csv").unlink()
    code, _, err = cli("init", str(ws.run), "--benchmark", str(typo))
    assert code == 1 and "benchmark folder does not exist (it came from --benchmark)" in err


def test_solver_score_names_the_variable_of_a_benchmark_folder_that_does_not_exist(ws, cli, monkeypatch):
    records = ws.write_records("m", "s1", "1", [{"instance": "a", "status": "ok", "A": 12}])
    monkeypatch.setenv("TCSEXAM_BENCHMARK", str(ws.root / "mybenhc"))
    argv = ["solver-score", "--task", "s1", "--records", str(records), "--output", str(ws.root / "s.json")]
    code, _, err = cli(*argv, "--reference", "lite")
    assert code == 1 and "mybenhc: benchmark folder does not exist (it came from TCSEXAM_BENCHMARK)" in err
    code, _, err = cli(*argv)
    assert code == 1 and "(it came from TCSEXAM_BENCHMARK)" in err
    assert not (ws.root / "s.json").exists()


def test_a_suite_the_benchmark_lacks_is_the_cohorts_field_listing_the_suites(ws, cli):
    ws.write_rows(full_rows())
    ws.write_records("m", "s1", "1", [{"instance": "a", "status": "ok", "A": 12}])
    ws.write_json(ws.bench / "suites" / "full.json", {"suite": "full", "tasks": []})
    ws.write_cohort(suite="Lite")
    code, _, err = validate(cli, ws, "--benchmark", str(ws.bench))
    assert code == 1
    assert (
        f"{ws.run / 'cohort.json'}: field 'suite': 'Lite' is not a suite of the benchmark {ws.bench} "
        "(its suites: full, lite)" in err
    )
    assert "not found" not in err and "Lite.json" not in err  # neither the manifest nor the reference
    (ws.run / "attempts.csv").unlink()
    code, _, err = cli("init", str(ws.run), "--benchmark", str(ws.bench))
    assert code == 1 and "'Lite' is not a suite of the benchmark" in err


def test_a_suite_the_benchmark_lacks_is_listed_beside_the_cohorts_other_problems(ws, cli):
    """A count written as text made the cohort unreadable, and the suite it names was checked only once
    that was mended: both are listed at once. A suite that is no name is never looked for."""
    ws.write_rows(full_rows())
    ws.write_cohort(suite="lyte", models={"m": {"attempts_per_task": "3"}})
    code, _, err = validate(cli, ws, "--benchmark", str(ws.bench))
    cohort = ws.run / "cohort.json"
    assert code == 1 and "2 problems in 1 file" in err, err
    assert f"{cohort}: models.m: field 'attempts_per_task': must be a whole number, got '3'" in err
    assert f"{cohort}: field 'suite': 'lyte' is not a suite of the benchmark {ws.bench}" in err
    ws.write_cohort(suite="lite", models={"m": {"attempts_per_task": "3"}})  # the suite is the benchmark's
    code, _, err = validate(cli, ws, "--benchmark", str(ws.bench))
    assert code == 1 and "1 problem in 1 file" in err and "not a suite" not in err
    ws.write_cohort(suite="../lite", models={"m": {"attempts_per_task": "3"}})
    code, _, err = validate(cli, ws, "--benchmark", str(ws.bench))
    assert code == 1 and "1 problem in 1 file" in err and "not a suite" not in err  # never used as a path


def test_a_reference_the_benchmark_lacks_is_the_cohorts_field_listing_the_references(ws, cli):
    """With records the reference is needed: one problem of cohort.json's solver_reference_id naming the
    file looked for and the references the benchmark holds for the suite; fill says the same."""
    ws.write_rows(full_rows())
    ws.write_records("m", "s1", "1", [{"instance": "a", "status": "ok", "A": 12}])
    ws.write_cohort(solver_reference_id="ref-tset")
    looked_for = ws.bench / "references" / "ref-tset" / "lite.json"
    said = (
        f"{ws.run / 'cohort.json'}: field 'solver_reference_id': 'ref-tset': {looked_for} not found "
        "(the benchmark's references for suite 'lite': ref-test)"
    )
    code, _, err = validate(cli, ws, "--benchmark", str(ws.bench))
    assert code == 1 and said in err and "1 problem in 1 file" in err
    before = (ws.run / "attempts.csv").read_bytes()
    code, _, err = cli("fill", str(ws.run), "--benchmark", str(ws.bench))
    assert code == 1 and said in err
    assert (ws.run / "attempts.csv").read_bytes() == before


def test_a_reference_the_benchmark_lacks_is_a_warning_when_no_records_need_it(ws, cli):
    """Without records the typed-in solver scores are scored; that nothing can check them against the
    reference the cohort names is said, not left silent."""
    ws.write_rows(full_rows())
    ws.write_cohort(solver_reference_id="ref-tset")
    code, _, err = validate(cli, ws, "--benchmark", str(ws.bench))
    assert code == 0, err
    assert (
        f"warning: {ws.run / 'cohort.json'}: solver_reference_id 'ref-tset': "
        f"{ws.bench / 'references' / 'ref-tset' / 'lite.json'} not found "
        "(the benchmark's references for suite 'lite': ref-test): the solver scores typed into the attempts "
        "table cannot be re-scored against it"
    ) in err
    # fill needs the reference to score records: its problem alone, not the warning beside it
    code, _, err = cli("fill", str(ws.run), "--benchmark", str(ws.bench))
    assert code == 1 and "field 'solver_reference_id'" in err and "warning" not in err
    ws.write_cohort(solver_reference_id="ref-test")  # the reference it holds: no such warning
    code, _, err = validate(cli, ws, "--benchmark", str(ws.bench))
    assert code == 0 and "solver_reference_id" not in err


def test_a_semicolon_separated_table_is_said_to_be_so_once(ws, cli):
    path = ws.run / "attempts.csv"
    path.write_text(csv_text(full_rows()).replace(",", ";"))
    code, _, err = validate(cli, ws, "--benchmark", str(ws.bench))
    assert code == 1
    assert f"{path}: line 1: this header looks semicolon-separated: tcsexam reads comma-separated CSV" in err
    assert "required column is missing" not in err and "1 problem in 1 file" in err


def test_capitalised_column_names_are_named(ws, cli):
    path = ws.run / "attempts.csv"
    text = csv_text(full_rows())
    header, rest = text.split("\n", 1)
    path.write_text(header.replace("model", "Model").replace("track", "Track") + "\n" + rest)
    code, _, err = validate(cli, ws, "--benchmark", str(ws.bench))
    assert code == 1
    assert (
        "line 1: field 'model': required column is missing from the header "
        "(found 'Model': column names are lower case)" in err
    )
    assert "field 'track': required column is missing from the header (found 'Track'" in err
    assert "2 problems in 1 file" in err


def test_a_decimal_comma_and_a_percentage_get_the_number_as_written_here_and_problems_come_in_line_order(ws, cli):
    rows = full_rows()
    rows[0]["score"] = "0.5"  # line 2, theorem: partial credit (a rule, checked after the table is read)
    rows[4]["score"] = "0,85"  # line 6
    rows[5]["score"] = "85%"  # line 7
    ws.write_rows(rows)
    code, _, err = validate(cli, ws, "--benchmark", str(ws.bench))
    assert code == 1
    assert "line 6: field 'score': not a number: '0,85': use a decimal point: 0.85" in err
    assert "line 7: field 'score': not a number: '85%': write it as a fraction: 0.85" in err
    lines = [line for line in err.splitlines() if ": line " in line]
    assert [line.split(": line ")[1].split(":")[0] for line in lines] == ["2", "6", "7"], err


def test_a_decimal_comma_without_quotes_is_named_where_the_row_has_a_field_too_many(ws, cli):
    """An editor writes 0,85 unquoted: the row has one field too many. The problem says what the
    header count cannot: the score's two halves read as a decimal comma, and how to write it."""
    path = ws.write_rows(full_rows())
    lines = path.read_text().splitlines()
    header = lines[0].split(",")
    cells = lines[5].split(",")  # line 6
    at = header.index("score")
    cells[at] = "0,85"  # unquoted: two fields
    lines[5] = ",".join(cells)
    cells = lines[6].split(",")  # line 7: one field too many, not a decimal comma
    cells[header.index("note")] = "judge, second pass"
    lines[6] = ",".join(cells)
    path.write_text("\n".join(lines) + "\n")
    code, _, err = validate(cli, ws, "--benchmark", str(ws.bench))
    assert code == 1
    n = len(header)
    assert (
        f"line 6: expected {n} fields as in the header, found {n + 1}: is the score 0,85 written with a decimal "
        "comma? write 0.85 (a comma separates fields)"
    ) in err
    assert f"line 7: expected {n} fields as in the header, found {n + 1}\n" in err + "\n"  # no hint: not a score


def test_a_run_with_its_cohort_and_no_table_names_init(ws, cli):
    code, _, err = validate(cli, ws, "--benchmark", str(ws.bench))
    assert code == 1
    assert f"{ws.run / 'attempts.csv'}: attempts table not found: tcsexam init {ws.run} writes one row" in err
    code, _, err = cli("init", str(ws.run), "--benchmark", str(ws.bench))
    assert code == 0 and (ws.run / "attempts.csv").is_file()


def test_init_on_a_filled_table_says_so_at_once_and_on_a_skeleton_names_force(ws, cli):
    path = ws.write_rows(full_rows())
    before = path.read_bytes()
    code, _, err = cli("init", str(ws.run), "--benchmark", str(ws.bench))
    assert code == 1 and path.read_bytes() == before
    assert "holds 7 filled rows, 7 with a score" in err and "mv " in err and "--force" not in err
    assert "--add-missing" in err
    path.unlink()
    assert cli("init", str(ws.run), "--benchmark", str(ws.bench))[0] == 0
    skeleton = path.read_bytes()
    code, _, err = cli("init", str(ws.run), "--benchmark", str(ws.bench))
    assert code == 1 and "holds nothing filled in: pass --force to replace it" in err
    assert path.read_bytes() == skeleton


def test_planned_attempts_above_the_bound_are_rejected_naming_the_field(ws, cli):
    # docs/formats.md#cohort: at most 1,000 attempts of one task (10^9 made init's table grow past 4.8 GB)
    ws.write_cohort(models={"m": {"attempts_per_task": 10**9, "attempts_per_item": {"t1": 1001, "t2": 1000}}})
    code, _, err = cli("init", str(ws.run), "--benchmark", str(ws.bench))
    assert code == 1 and not (ws.run / "attempts.csv").exists()
    cohort = ws.run / "cohort.json"
    assert f"{cohort}: models.m: field 'attempts_per_task': must be a whole number of at most 1,000" in err
    assert f"{cohort}: models.m.attempts_per_item: field 't1': must be a whole number of at most 1,000" in err
    assert "field 't2'" not in err and "2 problems in 1 file" in err
    ws.write_cohort(models={"m": {"attempts_per_task": 1000}})
    code, out, err = cli("init", str(ws.run), "--benchmark", str(ws.bench))
    assert code == 0 and "init: 7000 planned attempts" in out, err


def test_a_utf16_table_is_named_so_and_a_latin1_byte_by_its_line_and_column(ws, cli):
    path = ws.write_rows(full_rows())
    text = path.read_text(encoding="utf-8")
    path.write_bytes(text.encode("utf-16"))  # a spreadsheet's "Unicode text": a BOM FF FE, two bytes a character
    code, _, err = validate(cli, ws, "--benchmark", str(ws.bench))
    assert code == 1
    assert f"{path}: line 1: UTF-16 text (a spreadsheet's 'Unicode text'), not UTF-8: save it as 'CSV UTF-8'" in err
    lines = text.splitlines(keepends=True)
    lines[2] = "m\u00e9" + lines[2][1:]  # 'mé' in Latin-1: the byte e9 in column 2 of line 3
    path.write_bytes("".join(lines).encode("latin-1"))
    code, _, err = validate(cli, ws, "--benchmark", str(ws.bench))
    assert code == 1 and f"{path}: line 3: byte 0xe9 in column 2 is not valid UTF-8; save the file as UTF-8" in err
    # the column counts characters: 'ü' before it (two bytes in UTF-8) is one
    raw = "".join(lines).encode("utf-8").replace(b"m\xc3\xa9", b"\xc3\xbcx\xe9", 1)
    path.write_bytes(raw)
    code, _, err = validate(cli, ws, "--benchmark", str(ws.bench))
    assert code == 1 and f"{path}: line 3: byte 0xe9 in column 3 is not valid UTF-8" in err


def test_every_run_command_given_a_file_for_its_run_folder_says_so_alike(ws, cli):
    """attempts.csv named instead of its folder: the same sentence from init, fill, pack and validate
    (init said 'cannot use as output: Not a directory' of a path inside the file, pack 'records folder
    not found'); nothing written."""
    table = ws.write_rows(full_rows())
    before = table.read_bytes()
    for command in ("init", "fill", "pack", "validate"):
        code, _, err = (
            cli(command, str(table), "--benchmark", str(ws.bench)) if command != "pack" else cli(command, str(table))
        )
        assert code == 1 and f"{table}: is a file, expected a run directory" in err, (command, err)
    assert table.read_bytes() == before and sorted(p.name for p in ws.run.iterdir()) == ["attempts.csv", "cohort.json"]


def test_a_cohort_of_no_model_and_a_suite_of_no_task_are_said_in_the_projects_words(ws, cli):
    ws.write_rows(full_rows())
    ws.write_cohort(models={})
    code, _, err = validate(cli, ws, "--benchmark", str(ws.bench))
    assert code == 1
    assert f"{ws.run / 'cohort.json'}: field 'models': must hold at least 1 entry, got 0" in err
    assert "dictionary" not in err and "after validation" not in err  # not the library's words
    ws.write_cohort(models={"m": {"attempts_per_task": 1}})
    ws.write_json(ws.bench / "suites" / "lite.json", {"suite": "lite", "tasks": []})
    code, _, err = validate(cli, ws, "--benchmark", str(ws.bench))
    assert code == 1 and "field 'tasks': must hold at least 1 entry, got 0" in err


def test_a_header_of_a_hundred_thousand_named_columns_is_read(ws, cli):
    # the duplicate-column check is linear: 10^5 extra columns (over 120 s when it was quadratic)
    extra = [f"x{i}" for i in range(100_000)]
    rows = [{**r, **dict.fromkeys(extra, "")} for r in full_rows()]
    ws.write_rows(rows, columns=[*COLUMNS, *extra])
    code, out, err = validate(cli, ws, "--benchmark", str(ws.bench))
    assert code == 0, err
    ws.write_rows(rows, columns=[*COLUMNS, *extra, "x7", "x99999", "x7"])  # the rows are one cell short
    code, _, err = validate(cli, ws, "--benchmark", str(ws.bench))
    assert code == 1
    assert "line 1: field 'x7': column appears twice in the header" in err
    assert "line 1: field 'x99999': column appears twice in the header" in err
    assert "2 problems in 1 file" in err
