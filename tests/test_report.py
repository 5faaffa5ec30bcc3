"""docs/commands.md: ``tcsexam table``, ``diff`` and ``verify``.

Index values are written out by hand from docs/rules.md#the-index (index = 30P + 30S + 30C + 10O); the default
rows of tests.conftest.full_rows give P = (1+0)/2, S = (0.25+0.5)/2, C = (1.2+0.4)/2, O = 0:
15 + 11.25 + 24 + 0 = 50.25.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
import struct
import subprocess
import tempfile
from pathlib import Path

import pytest

from tcsexam.scoring.pipeline.benchmark import demo_run
from tests.support.runs import full_rows


def doc_for(ws, scores: dict[str, dict | None], suite="lite", protocol="offline") -> dict:
    """An index.json of models ``scores`` (None: incomplete, its first row left out)."""
    rows = []
    for model, over in scores.items():
        rows += full_rows(model, over or {})[(1 if over is None else 0) :]
    ws.write_cohort(models={m: {"attempts_per_task": 1} for m in scores})
    ws.write_rows(rows)
    doc = ws.load()
    doc["suite"], doc["solver_protocol"] = suite, protocol  # table reads these to group
    return doc


def with_backslash(doc: dict) -> dict:
    """``doc`` with 'BS' in names turned into a backslash: a run cannot name a model with one
    (docs/safety.md), but an index.json handed to ``table`` can hold anything."""
    return json.loads(json.dumps(doc).replace("BS", "\\\\"))


def save(tmp_path: Path, name: str, doc: dict) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


def sections(markdown: str) -> dict[str, str]:
    out, title = {}, None
    for line in markdown.splitlines():
        if line.startswith("### "):
            title = line[4:]
            out[title] = ""
        elif title:
            out[title] += line + "\n"
    return out


def test_groups_in_spec_order_and_never_mixed(ws, cli, tmp_path):
    files = [
        save(tmp_path, "a.json", doc_for(ws, {"lo-1": {}}, "lite", "online")),
        save(tmp_path, "b.json", doc_for(ws, {"fo-1": {}, "fo-2": {"s1": 1}}, "full", "offline")),
        save(tmp_path, "c.json", doc_for(ws, {"lf-1": {}}, "lite", "offline")),
        save(tmp_path, "d.json", doc_for(ws, {"fn-1": {}}, "full", "online")),
        save(tmp_path, "e.json", doc_for(ws, {"fo-3": {"s1": 0}}, "full", "offline")),
    ]
    code, out, err = cli("table", *files)
    assert code == 0, err
    parts = sections(out)
    assert list(parts) == ["full / offline", "full / online", "lite / offline", "lite / online"]
    names = ["lo-1", "fo-1", "fo-2", "lf-1", "fn-1", "fo-3"]
    expected = {
        "full / offline": {"fo-1", "fo-2", "fo-3"},
        "full / online": {"fn-1"},
        "lite / offline": {"lf-1"},
        "lite / online": {"lo-1"},
    }
    for title, body in parts.items():
        assert {n for n in names if f"| {n} |" in body} == expected[title]


def test_rows_by_index_highest_first_null_last(ws, cli, tmp_path):
    # s1 = 0: S = 0.25, index 15 + 7.5 + 24 = 46.5; default 50.25; s1 = 1: S = 0.75, 15 + 22.5 + 24 = 61.5
    zero = {"t1": 0, "s1": 0, "s2": 0, "c1": 0, "c2": 0}  # index 0: still above a null index
    doc = doc_for(ws, {"mid": {}, "none": None, "low": {"s1": 0}, "zero": zero, "high": {"s1": 1}})
    code, out, _ = cli("table", save(tmp_path, "x.json", doc))
    assert code == 0
    body = [line for line in out.splitlines() if line.startswith("|") and not line.startswith(("| rank", "|--"))]
    order = [line.split("|")[2].strip() for line in body]
    assert order == ["high", "mid", "low", "zero", "none"]
    # one conjecture task: no pair has an se, none is separated (docs/rules.md#ranks), so every index ranks 1–4
    assert [line.split("|")[1].strip() for line in body] == ["1–4", "1–4", "1–4", "1–4", ""]
    # the mini suite has one conjecture task: no interval for the index (docs/rules.md#intervals: none when m < 2)
    assert "| high | complete | 61.50 | " in out and "| mid | complete | 50.25 | " in out
    assert "| low | complete | 46.50 | " in out
    none_row = next(line for line in out.splitlines() if "| none |" in line)
    assert "| incomplete | — | — |" in none_row and none_row.endswith("| 6/7 |")


def test_a_model_in_two_files_of_one_group_is_rejected(ws, cli, tmp_path):
    a = save(tmp_path, "a.json", doc_for(ws, {"m": {}}))
    b = save(tmp_path, "b.json", doc_for(ws, {"m": {"s1": 1}, "n": {}}))
    code, out, err = cli("table", a, b)
    assert code == 1 and out == ""
    assert b in err and a in err and "models.m" in err and "Traceback" not in err
    c = save(tmp_path, "c.json", doc_for(ws, {"m": {}}, "lite", "online"))  # another group: allowed
    assert cli("table", a, c)[0] == 0


def test_provisional_mark_digits_and_default_rounding(ws, cli, tmp_path):
    rows = full_rows("p")
    rows[0]["adoption_status"] = "selected_provisional"
    ws.write_rows(rows)
    ws.write_cohort(models={"p": {"attempts_per_task": 1}})
    path = save(tmp_path, "p.json", ws.load())
    out = cli("table", path)[1]
    assert "| p † | provisional | 50.25 | " in out and "| 0.375 ± " in out and "†" in out.split("\n\n")[-1]
    out = cli("table", path, "--digits", "1")[1]
    assert "| 50.2 | " in out  # 50.25 is exact in binary: to one decimal, half to even
    assert "| 0.4 ± " in out


def test_rank_column_reads_the_ranks_block(ws, cli, tmp_path):
    doc = doc_for(ws, {"a": {"s1": 1}, "b": {}, "c": None})
    doc["ranks"] = {
        "method": "paired-t-holm",
        "alpha": 0.05,
        "models": {"a": {"best": 1, "worst": 2}, "b": {"best": 1, "worst": 1}},
        "pairs": [],
    }
    path = save(tmp_path, "r.json", doc)
    out = cli("table", path)[1]
    assert "| 1–2 | a |" in out and "| 1 | b |" in out and "|  | c |" in out and "no ranks block" not in out
    latex = cli("table", path, "--format", "latex")[1]
    assert "1--2 & a &" in latex  # an en dash in LaTeX
    rows = list(csv.DictReader(io.StringIO(cli("table", path, "--format", "csv")[1])))
    assert [(r["model"], r["rank_best"], r["rank_worst"]) for r in rows] == [
        ("a", "1", "2"),
        ("b", "1", "1"),
        ("c", "", ""),
    ]
    del doc["ranks"]  # the index's schema requires it: such a document is rejected, the field named
    code, _, err = cli("table", save(tmp_path, "s.json", doc))
    assert code == 1 and "s.json: field 'ranks': required field is missing" in err


def test_ranks_not_computed_show_no_rank_and_say_why(ws, cli, tmp_path):
    # docs/rules.md#ranks: above 5,000 models the ranks block has models null and a reason; the pairs unlisted
    doc = doc_for(ws, {"a": {"s1": 1}, "b": {}})
    doc["ranks"] = {
        "method": "paired-t-holm",
        "alpha": 0.05,
        "models": None,
        "pairs": [],
        "pairs_listed": False,
        "reason": "more than 5,000 models",
    }
    path = save(tmp_path, "r.json", doc)
    code, out = cli("table", path)[:2]
    assert code == 0 and "|  | a |" in out and "|  | b |" in out
    assert "rank: not computed (more than 5,000 models)." in out and "no ranks block" not in out
    rows = list(csv.DictReader(io.StringIO(cli("table", path, "--format", "csv")[1])))
    assert [(r["rank_best"], r["rank_worst"]) for r in rows] == [("", ""), ("", "")]


def test_latex_escapes_names_and_uses_booktabs_pm_and_ascii_nulls(ws, cli, tmp_path):
    doc = with_backslash(doc_for(ws, {"a_b&c%d#e$f~g^h{i}jBSk": {}, "null": None}))
    out = cli("table", save(tmp_path, "l.json", doc), "--format", "latex")[1]
    escaped = r"a\_b\&c\%d\#e\$f\textasciitilde{}g\textasciicircum{}h\{i\}j\textbackslash{}k"
    assert f" & {escaped} & complete & 50.25 & 0.500${{}}\\pm{{}}$" in out
    assert r"\toprule" in out and r"\midrule" in out and r"\bottomrule" in out and r"\begin{tabular}" in out
    suite, protocol = doc["suite"], doc["solver_protocol"]
    assert out.count(f"{suite} / {protocol}") == 1  # named once, in the table's first row, not again in a comment
    null_row = next(line for line in out.splitlines() if " & null & " in line)
    assert " & incomplete & -- & -- & " in null_row and "—" not in null_row


def test_latex_compiles_in_a_standard_document_with_booktabs(ws, cli, tmp_path):
    engine = shutil.which("pdflatex")
    if engine is None:
        pytest.skip("no LaTeX engine (pdflatex) on PATH: apt-get install texlive-latex-recommended")
    doc = with_backslash(doc_for(ws, {"a_b&c%d#e$f~g^h{i}jBSk": {}, "null": None, "prov": {}}))
    doc["models"]["prov"]["status"] = "provisional"
    cli("table", save(tmp_path, "l.json", doc), "--format", "latex", "--output", str(tmp_path / "table.tex"))
    (tmp_path / "doc.tex").write_text(
        "\\documentclass{article}\n\\usepackage[utf8]{inputenc}\n"
        "\\usepackage{booktabs}\n\\begin{document}\n\\input{table.tex}\n\\end{document}\n"
    )
    proc = subprocess.run(
        [engine, "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert (tmp_path / "doc.pdf").stat().st_size > 1000


def test_csv_is_unrounded_with_value_lo_hi(ws, cli, tmp_path):
    doc = doc_for(ws, {"m": {"s1": 0.123456789012345}})
    out = cli("table", save(tmp_path, "c.json", doc), "--format", "csv")[1]
    (row,) = list(csv.DictReader(io.StringIO(out)))
    s = (0.123456789012345 + 0.5) / 2
    assert float(row["S"]) == s and row["S"] == repr(s)
    ci = doc["models"]["m"]["ci"]
    assert (
        ci["index"]["lo"] is None and row["index_ci95_lo"] == "" and row["index"] == repr(doc["models"]["m"]["index"])
    )
    assert float(row["S_ci95_hi"]) == ci["tracks"]["solver"]["hi"] and row["S_ci95_lo"] == repr(
        ci["tracks"]["solver"]["lo"]
    )
    assert (row["suite"], row["solver_protocol"], row["tasks_complete"], row["tasks_total"]) == (
        "lite",
        "offline",
        "7",
        "7",
    )


def test_markdown_escapes_a_pipe_in_a_name(ws, cli, tmp_path):
    out = cli("table", save(tmp_path, "m.json", doc_for(ws, {"a|b": {}})))[1]
    assert "| a\\|b |" in out


def test_output_is_never_one_of_the_inputs(ws, cli, tmp_path):
    path = save(tmp_path, "x.json", doc_for(ws, {"m": {}}))
    before = Path(path).read_bytes()
    code, _, err = cli("table", path, "--output", path)
    assert code == 1 and Path(path).read_bytes() == before and "output is the input" in err


def test_malformed_index_is_rejected_naming_the_field(ws, cli, tmp_path):
    doc = doc_for(ws, {"m": {}})
    doc["models"]["m"]["index"] = "high"
    code, _, err = cli("table", save(tmp_path, "bad.json", doc))
    assert code == 1 and "models.m" in err and "'index'" in err and "Traceback" not in err


@pytest.mark.parametrize("command", ["table", "verify", "diff"])
def test_a_file_that_is_no_index_is_named_so_not_picked_apart(ws, cli, tmp_path, command):
    """A cohort.json, a compare output or another JSON object given for an index.json: one problem saying
    it is none (its keys would each be 'unknown field'), and what it looks like where that is plain."""
    ws.write_cohort(models={"atlas-70b": {"attempts_per_task": 1}, "mid": {"attempts_per_task": 1}})
    other = {"suite": "lite", "models": {"m": {}}, "status": "complete", "tracks": {}}
    for path, looks in [
        (ws.run / "cohort.json", " It looks like a run's cohort.json: tcsexam score RUN writes the run's index.json."),
        (save(tmp_path, "cmp.json", {"models": ["a", "b"], "difference": 1.0, "mde": 2.0}), COMPARE),
        (
            save(tmp_path, "sims.json", {"info": {}, "simulations": []}),
            " It looks like tau2-bench results: tcsexam tau2 reads them.",
        ),
        (save(tmp_path, "other.json", other), ""),
    ]:
        args = [command, str(path)] + ([str(path)] if command == "diff" else [])
        code, out, err = cli(*args)
        lines = [line.strip() for line in err.splitlines() if "not an index.json" in line]
        assert code == 1 and lines and "unknown field" not in err and "Traceback" not in err, err
        assert (
            lines[0]
            == f"{path}: not an index.json written by tcsexam score: it has no 'metric_id' or 'provenance'.{looks}"
        )


COMPARE = " It looks like the output of tcsexam compare."


@pytest.mark.parametrize("command", ["table", "verify", "diff"])
def test_a_table_given_for_an_index_is_named_so(ws, cli, tmp_path, command):
    """attempts.csv (or another CSV) given for an index.json: 'invalid JSON at line 1 column 1' would not
    say the wrong file was given."""
    ws.write_cohort(models={"atlas-70b": {"attempts_per_task": 1}})
    ws.write_rows([])
    other = tmp_path / "scores.csv"
    other.write_bytes(b"\xef\xbb\xbfname,score\nx,1\n")
    for path, looks in [
        (ws.run / "attempts.csv", "a run's attempts.csv: tcsexam score RUN writes the run's index.json"),
        (other, "a table of comma-separated values, not JSON"),
    ]:
        args = [command, str(path)] + ([str(path)] if command == "diff" else [])
        code, _, err = cli(*args)
        lines = [line.strip() for line in err.splitlines() if "not an index.json" in line]
        assert code == 1 and lines[0] == f"{path}: not an index.json written by tcsexam score: it looks like {looks}"
        assert "invalid JSON" not in err
    broken = tmp_path / "broken.json"  # JSON with a slip stays JSON's own problem, at its place
    broken.write_text('{"metric_id": 1,}\n')
    code, _, err = cli(command, *[str(broken)] * (2 if command == "diff" else 1))
    assert code == 1 and "invalid JSON" in err and "looks like" not in err


def test_a_key_that_is_not_utf8_is_the_index_readers_problem_not_an_internal_error(ws, cli, tmp_path):
    path = tmp_path / "bad.json"
    path.write_bytes(json.dumps(doc_for(ws, {"m": {}})).encode().replace(b'"metric_id"', b'"\xffmetric_id"', 1))
    for command in ("table", "verify"):
        code, _, err = cli(command, str(path))
        assert code == 1 and "internal error" not in err and "UTF-8" in err, err


# --- HTML -----------------------------------------------------------------------------------------


def html_table(ws, cli, tmp_path) -> Path:
    doc = doc_for(ws, {"atlas <b>": {"s1": 1}, "mid": {}, "none": None})
    out = tmp_path / "t.html"
    assert cli("table", save(tmp_path, "h.json", doc), "--format", "html", "--output", str(out))[0] == 0
    return out


def test_html_is_one_self_contained_file(ws, cli, tmp_path):
    text = html_table(ws, cli, tmp_path).read_text()
    lower = text.lower()
    assert "<script" not in lower and "<link" not in lower and "@import" not in lower and "url(" not in lower
    assert "src=" not in lower and "http://" not in lower.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "<svg" in text and "atlas &lt;b&gt;" in text and "atlas <b>" not in text  # names are escaped
    assert text.count("<circle") == 2  # the two models with an index


def browser() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


def test_html_renders_in_headless_chromium(ws, cli, tmp_path):
    exe = browser()
    if exe is None:
        pytest.skip("no Chromium on PATH (Debian: apt-get install -y chromium; .ci/run installs it)")
    page = html_table(ws, cli, tmp_path)
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ]
    shot = tmp_path / "out.png"
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [
                exe,
                *flags,
                f"--user-data-dir={profile}",
                f"--screenshot={shot}",
                "--window-size=1200,900",
                page.as_uri(),
            ],
            capture_output=True,
            timeout=120,
            check=True,
        )
    with tempfile.TemporaryDirectory() as profile:
        dom = subprocess.run(
            [exe, *flags, f"--user-data-dir={profile}", "--dump-dom", page.as_uri()],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        ).stdout
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1200, 900) and len(data) > 10_000  # a page with content, not a blank one
    assert "lite / offline" in dom and "atlas &lt;b&gt;" in dom and "61.50" in dom and "<svg" in dom


# --- diff -----------------------------------------------------------------------------------------


def test_diff_figures(ws, cli, tmp_path):
    old = save(tmp_path, "old.json", doc_for(ws, {"a": {}, "gone": {}}))
    new_doc = doc_for(ws, {"a": {"s1": 0.75}, "added": {}})
    new = save(tmp_path, "new.json", new_doc)
    out_json = tmp_path / "diff.json"
    code, out, err = cli("diff", old, new, "--output", str(out_json))
    assert code == 0, err
    d = json.loads(out_json.read_text())
    a = d["models"]["a"]
    # S: (0.25+0.5)/2 = 0.375 -> (0.75+0.5)/2 = 0.625; index 50.25 -> 57.75
    assert a["index"]["old"] == 50.25 and a["index"]["new"] == 57.75 and a["index"]["change"] == 7.5
    assert a["tracks"]["solver"]["change"] == 0.25 and a["tracks"]["theorem"]["change"] == 0
    assert a["index"]["half_width"] is None and a["index"]["exceeds_half_width"] is None  # no interval (m = 1 on O)
    ci = new_doc["models"]["a"]["ci"]["tracks"]["solver"]
    hw = (ci["hi"] - ci["lo"]) / 2
    assert a["tracks"]["solver"]["half_width"] == hw and a["tracks"]["solver"]["exceeds_half_width"] == (hw < 0.25)
    assert d["added"] == ["added"] and d["removed"] == ["gone"]
    assert d["models"]["added"]["index"]["old"] is None and d["models"]["added"]["index"]["new"] == 50.25
    assert d["models"]["gone"]["index"]["new"] is None and d["models"]["gone"]["status"]["new"] is None
    assert [i["input"] for i in d["inputs_changed"]] == ["attempts", "cohort"]
    assert "a: index 50.25 -> 57.75 (+7.50)" in out and "added: added" in out and "removed: gone" in out
    assert "input changed: attempts" in out and "−" not in out


def test_diff_flags_a_change_beyond_the_new_half_width(ws, cli, tmp_path):
    old = doc_for(ws, {"a": {}, "b": {}})
    new = doc_for(ws, {"a": {"s1": 0.75}, "b": {"s1": 0.75}})
    new["models"]["a"]["ci"]["index"] = {
        "value": 57.75,
        "se": 2.5,
        "lo": 52.75,
        "hi": 62.75,
        "df": 3,
    }  # half-width 5 < 7.5
    new["models"]["b"]["ci"]["index"] = {
        "value": 57.75,
        "se": 5,
        "lo": 47.75,
        "hi": 67.75,
        "df": 3,
    }  # half-width 10 > 7.5
    out_json = tmp_path / "d.json"
    code, out, _ = cli("diff", save(tmp_path, "o.json", old), save(tmp_path, "n.json", new), "--output", str(out_json))
    d = json.loads(out_json.read_text())["models"]
    assert (
        code == 0 and d["a"]["index"]["exceeds_half_width"] is True and d["b"]["index"]["exceeds_half_width"] is False
    )
    assert "a: index 50.25 -> 57.75 (+7.50) (exceeds the new 95% half-width: the old has none)" in out
    assert "b: index 50.25 -> 57.75 (+7.50) (within the new 95% half-width: the old has none)" in out


def test_diff_judges_a_typo_against_the_old_half_width(demo_copy, cli, tmp_path):
    # a construction score typed as a percentage (88.12 for 0.8812) moves the index far more than the old
    # interval allows, and inflates the new interval with it: judged against the new one it would pass
    old, new, out_json = tmp_path / "old.json", tmp_path / "new.json", tmp_path / "d.json"
    assert cli("score", str(demo_copy), "--output", str(old))[0] == 3  # the demo has an incomplete model
    attempts = demo_copy / "attempts.csv"
    typo = attempts.read_text().replace(
        "atlas-70b,construction,con-cap-set,1,0.8812,", "atlas-70b,construction,con-cap-set,1,88.12,"
    )
    assert typo != attempts.read_text()
    attempts.write_text(typo)
    assert cli("score", str(demo_copy), "--output", str(new))[0] == 3
    code, out, err = cli("diff", str(old), str(new), "--output", str(out_json))
    assert code == 0, err
    d = json.loads(out_json.read_text())
    i = d["models"]["atlas-70b"]["index"]
    # docs/rules.md#the-index: con-cap-set's mean (of 3 attempts) moves by (88.12 - 0.8812)/3, C's (5 tasks)
    # by a fifth of that, the index by 30 times C's
    assert i["change"] == pytest.approx(30 * (88.12 - 0.8812) / 3 / 5, abs=1e-9)
    before, after = (json.loads(f.read_text())["models"]["atlas-70b"]["ci"]["index"] for f in (old, new))
    old_hw, new_hw = (before["hi"] - before["lo"]) / 2, (after["hi"] - after["lo"]) / 2
    assert old_hw < i["change"] < new_hw  # within the new half-width, far beyond the old
    assert (i["old_half_width"], i["half_width"]) == (pytest.approx(old_hw), pytest.approx(new_hw))
    assert i["exceeds_half_width"] is True and i["judged_against"] == "old"
    assert (
        f"atlas-70b: index {i['old']:.2f} -> {i['new']:.2f} (+{i['change']:.2f}) (exceeds the old 95% half-width)"
        in out
    )
    # the interval grew more than twofold: named, in the JSON and the text; the other models' did not move
    assert d["half_width_grew"] == [{"model": "atlas-70b", "old": pytest.approx(old_hw), "new": pytest.approx(new_hw)}]
    assert f"atlas-70b: index 95% half-width {old_hw:.2f} -> {new_hw:.2f}, more than twofold" in out
    assert out.count("more than twofold") == 1
    # C's track line is marked, and a line says what the mark means
    c = d["models"]["atlas-70b"]["tracks"]["construction"]
    assert c["exceeds_half_width"] is True
    assert f"  C: {c['old']:.3f} -> {c['new']:.3f} (+{c['change']:.3f}) *" in out.splitlines()
    assert "* the track mean moved by more than its 95% half-width (the old one, else the new one)" in out


def test_diff_falls_back_to_the_new_half_width_and_says_so(ws, cli, tmp_path):
    # the old document has no index interval (one conjecture task): the new one's is used, and said
    old = doc_for(ws, {"a": {}})
    new = doc_for(ws, {"a": {"s1": 0.75}})
    new["models"]["a"]["ci"]["index"] = {"value": 57.75, "se": 2.5, "lo": 52.75, "hi": 62.75, "df": 3}
    out_json = tmp_path / "d.json"
    code, out, _ = cli("diff", save(tmp_path, "o.json", old), save(tmp_path, "n.json", new), "--output", str(out_json))
    d = json.loads(out_json.read_text())
    i = d["models"]["a"]["index"]
    assert code == 0 and i["old_half_width"] is None and i["half_width"] == 5.0 and i["judged_against"] == "new"
    assert "a: index 50.25 -> 57.75 (+7.50) (exceeds the new 95% half-width: the old has none)" in out
    assert d["half_width_grew"] == [] and "twofold" not in out  # no old half-width to grow from


def test_diff_names_a_half_width_that_grew_more_than_twofold_only(ws, cli, tmp_path):
    # the same index before and after; half-widths 2 -> 4 (twofold: not more) and 2 -> 4.5
    old = doc_for(ws, {"a": {}, "b": {}})
    new = json.loads(json.dumps(old))
    for doc, hws in ((old, {"a": 2, "b": 2}), (new, {"a": 4, "b": 4.5})):
        for name, hw in hws.items():
            doc["models"][name]["ci"]["index"] = {"value": 50.25, "se": 1, "lo": 50.25 - hw, "hi": 50.25 + hw, "df": 3}
    out_json = tmp_path / "d.json"
    code, out, _ = cli("diff", save(tmp_path, "o.json", old), save(tmp_path, "n.json", new), "--output", str(out_json))
    d = json.loads(out_json.read_text())
    assert code == 0 and d["half_width_grew"] == [{"model": "b", "old": 2.0, "new": 4.5}]
    assert "b: index 95% half-width 2.00 -> 4.50, more than twofold" in out and "a: index 95% half-width" not in out
    assert "a: index 50.25 -> 50.25 (+0.00) (within the old 95% half-width)" in out


def test_table_shows_the_index_half_width(ws, cli, tmp_path):
    doc = doc_for(ws, {"m": {}})
    doc["models"]["m"]["ci"]["index"] = {"value": 50.25, "se": 1.5, "lo": 47.25, "hi": 53.25, "df": 3}
    out = cli("table", save(tmp_path, "x.json", doc))[1]
    assert "| m | complete | 50.25 ± 3.00 |" in out


def test_diff_status_change_and_bad_input(ws, cli, tmp_path):
    old = save(tmp_path, "old.json", doc_for(ws, {"a": {}}))
    new = save(tmp_path, "new.json", doc_for(ws, {"a": None}))
    code, out, _ = cli("diff", old, new)
    assert code == 0 and "a: index 50.25 -> NA; status complete -> incomplete" in out
    (tmp_path / "bad.json").write_text("{")
    code, _, err = cli("diff", old, str(tmp_path / "bad.json"))
    assert code == 1 and "bad.json" in err and "line 1" in err


# --- verify ---------------------------------------------------------------------------------------


@pytest.fixture
def scored_demo(tmp_path, cli):
    run = tmp_path / "demo"
    shutil.copytree(demo_run(), run)
    index = tmp_path / "index.json"
    assert cli("score", str(run), "--output", str(index))[0] == 3
    return run, index


def test_verify_accepts_an_untouched_index(scored_demo, cli):
    run, index = scored_demo
    code, out, _ = cli("verify", str(index))
    assert code == 0 and "verified" in out
    assert cli("verify", str(index), str(run))[0] == 0


def test_verify_catches_a_number_edited_by_hand(scored_demo, cli):
    _, index = scored_demo
    doc = json.loads(index.read_text())
    doc["models"]["atlas-70b"]["index"] += 0.01
    index.write_text(json.dumps(doc))
    code, out, _ = cli("verify", str(index))
    assert code == 1 and "does not hash to its content_sha256" in out
    assert "$.models.atlas-70b.index: stored" in out


def test_verify_catches_a_changed_input(scored_demo, cli):
    run, index = scored_demo
    attempts = run / "attempts.csv"
    attempts.write_text(
        attempts.read_text().replace(
            "atlas-70b,theorem,thm-sensitivity,1,1,", "atlas-70b,theorem,thm-sensitivity,1,0,", 1
        )
    )
    code, out, _ = cli("verify", str(index))
    assert code == 1 and "input attempts" in out and str(attempts) in out
    assert "recomputed content_sha256" in out and "$.models.atlas-70b.index" in out
    assert "does not hash" not in out  # the document itself is intact


def test_verify_catches_a_changed_records_file(scored_demo, cli):
    run, index = scored_demo
    rec = min((run / "records" / "atlas-70b" / "sat-race").glob("*.json"))
    rec.write_text(rec.read_text() + "\n")  # same records, other bytes: the digest still moves
    code, out, _ = cli("verify", str(index), str(run))
    assert code == 1 and "input records" in out


def test_verify_of_a_missing_file_is_a_clean_error(tmp_path, cli):
    code, _, err = cli("verify", str(tmp_path / "none.json"))
    assert code == 1 and "none.json" in err and "Traceback" not in err


def test_digits_out_of_range_is_a_usage_error(ws, cli, tmp_path):
    path = save(tmp_path, "x.json", doc_for(ws, {"m": {}}))
    assert cli("table", path, "--digits", "-1")[0] == 2 and cli("table", path, "--digits", "x")[0] == 2


def test_verify_accepts_a_run_copied_elsewhere(scored_demo, cli, tmp_path):
    run, index = scored_demo
    moved = tmp_path / "elsewhere" / "run"
    shutil.copytree(run, moved)
    shutil.rmtree(run)
    code, out, _ = cli("verify", str(index), str(moved))
    assert code == 0, out


def test_control_characters_in_a_name_are_shown_escaped(ws, cli, tmp_path):
    name = "evil\x1b[31m"
    a = save(tmp_path, "a.json", doc_for(ws, {name: {}}))
    b = save(tmp_path, "b.json", doc_for(ws, {name: {"s1": 1}}))
    shown = {"markdown": "evil\\\\x1b\\[31m", "latex": "evil\\textbackslash{}x1b[31m", "html": "evil\\x1b[31m"}
    for fmt, text in shown.items():
        out = cli("table", a, "--format", fmt)[1]
        assert "\x1b" not in out and text in out
    out = cli("diff", a, b)[1]
    assert "\x1b" not in out and "evil\\x1b[31m: index 50.25 -> 61.50" in out
    rows = list(csv.DictReader(io.StringIO(cli("table", a, "--format", "csv")[1])))
    assert rows[0]["model"] == "evil\\x1b[31m"  # a table is text to read: escaped as on a terminal, in CSV too


def test_table_marks_a_model_with_warnings_and_says_what_the_mark_means(ws, cli, tmp_path):
    # 71.5 typed for 0.715: a construction score above 10 reads as a percentage, a warning (docs/rules.md)
    doc = doc_for(ws, {"m": {"c1": 71.5}, "n": {}})
    assert [i["kind"] for i in doc["models"]["m"]["issues"]].count("warning") >= 1
    source = save(tmp_path, "x.json", doc)
    out = cli("table", source)[1]
    assert "| m ‡ | complete |" in out and "| n | complete |" in out
    assert "; ‡ the model has warnings in its index.json (tcsexam validate lists them)" in out
    assert r"m$^\ddagger$ & complete" in cli("table", source, "--format", "latex")[1]
    rows = {r["model"]: r for r in csv.DictReader(io.StringIO(cli("table", source, "--format", "csv")[1]))}
    assert (rows["m"]["warnings"], rows["n"]["warnings"]) == ("1", "0")


def test_table_does_not_mark_solver_scores_no_records_file_checked(ws, cli, tmp_path):
    # a run without records/: its solver scores are typed in, a warning score counts apart, not a mark
    doc = doc_for(ws, {"n": {}})
    assert any(i["message"].startswith("score not checked against records") for i in doc["models"]["n"]["issues"])
    out = cli("table", save(tmp_path, "x.json", doc))[1]
    assert "‡" not in out


def test_diff_says_an_unchanged_status_is_unchanged_and_no_change_where_a_side_has_no_value(ws, cli, tmp_path):
    """'status: incomplete -> incomplete' read as a change, and '(NA)' after 'NA -> 0.200' went unexplained
    (a review): an unchanged status says so, and a change with one side NA is not written."""
    doc = doc_for(ws, {"a": {}, "null": None})
    old = save(tmp_path, "old.json", doc)
    code, out, _ = cli("diff", old, old)
    assert code == 0 and out.splitlines()[0] == "status: incomplete (unchanged)"
    assert "(NA)" not in out
