"""Small things a reader notices: counts agree with their noun, 'an' before a vowel, the README's install
written out in full, test times with the machine they were taken on."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("n", "noun", "plural", "text"),
    [
        (0, "model", None, "0 models"),
        (1, "model", None, "1 model"),
        (2, "task", None, "2 tasks"),
        (1, "match", "matches", "1 match"),
        (3, "match", "matches", "3 matches"),
    ],
)
def test_a_count_takes_the_singular_for_exactly_one(n, noun, plural, text):
    from tcsexam.scoring.grammar import counted

    assert counted(n, noun, plural) == text


@pytest.mark.parametrize(
    ("noun", "text"),
    [
        ("index.json", "an index.json"),
        ("attempts table", "an attempts table"),
        ("records file", "a records file"),
        ("JSON file", "a JSON file"),
    ],
)
def test_the_article_before_a_vowel_is_an(noun, text):
    from tcsexam.scoring.grammar import with_article

    assert with_article(noun) == text


def test_a_folder_given_for_an_index_json_says_an(tmp_path, cli):
    (tmp_path / "x.json").mkdir()
    code, _, err = cli("table", str(tmp_path / "x.json"))
    assert code == 1 and "is a directory, expected an index.json (a regular file)" in err


def one_model_run(tmp_path, cli) -> Path:
    cli("demo", str(tmp_path / "demo"))
    run = tmp_path / "run"
    run.mkdir()
    cohort = json.loads((tmp_path / "demo" / "cohort.json").read_text())
    cohort["models"] = {"atlas-70b": cohort["models"]["atlas-70b"]}
    (run / "cohort.json").write_text(json.dumps(cohort))
    return run


def test_one_model_is_one_model_in_the_console_text(tmp_path, cli):
    run = one_model_run(tmp_path, cli)
    code, out, _ = cli("init", str(run))
    assert code == 0 and " of 1 model over 20 tasks of suite 'lite'" in out
    code, out, _ = cli("validate", str(run))
    assert code == 3 and ", 1 model, status incomplete, " in out.splitlines()[0]
    assert "1 models" not in out


def test_one_problem_one_file_one_instance(tmp_path, cli):
    records = tmp_path / "r.json"
    names = [f"MAX{i:04d}" for i in range(1, 40)]  # all of maxcut-mqlib's 40 but MAX0040
    records.write_text(json.dumps([{"instance": n, "status": "ok", "A": 1.0} for n in names]))
    code, _, err = cli(
        "solver-score", "--task", "maxcut-mqlib", "--reference", "lite", "--records", str(records), "--output", "-"
    )
    assert code == 1 and "1 scored instance of task 'maxcut-mqlib' has no record: MAX0040" in err
    assert err.rstrip().endswith("rejected: 1 problem in 1 file") and f"{records}: 1 problem\n" in err


def test_diagnostics_messages_wrap_to_fit_120_columns():
    from tcsexam.tui.panes.diagnostics.views import wrap_messages

    message = "partial credit must be converted to 0 or 1 before scoring: " + "a theorem is proved or it is not; " * 4
    rows = [["attempts.csv", "line 3", "score", message], ["cohort.json", "-", "suite", "short"]]
    wrapped = wrap_messages(rows, 120)
    beside = (len("attempts.csv") + 2) + (len("line 3") + 2) + (len("field") + 2)  # each column padded by 1 each side
    lines = wrapped[0][3]
    assert len(lines) > 1 and all(beside + len(line) + 2 + 2 <= 120 for line in lines)  # + padding + scrollbar
    assert " ".join(lines) == message.strip() and wrapped[1] == [*rows[1][:3], ["short"]]
    assert [r[:3] for r in wrapped] == [r[:3] for r in rows]


def test_readme_writes_the_install_out_in_full_for_a_venv_and_names_pipx_as_the_alternative():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    install = readme[readme.index("## Install") : readme.index("## Quick start")]
    assert "python3 -m venv .venv && .venv/bin/pip install ./tcsexam" in install
    assert "pipx install ./tcsexam" in install and "<this repository>" not in install


def test_every_test_time_given_names_the_machine_it_was_taken_on():
    for page in ("README.md", "docs/development.md"):
        text = (ROOT / page).read_text(encoding="utf-8")
        for paragraph in text.split("\n\n"):
            if re.search(r"\b\d+(-\d+)? s\b|\bminutes?\b", paragraph) and re.search(
                r"suite|pytest|-n auto|tests", paragraph
            ):
                assert re.search(r"x86_64", paragraph) and re.search(r"\d cores", paragraph), (page, paragraph)


def test_every_count_shown_takes_its_nouns_number():
    """A count is written through grammar.counted ('1 problem', '2 problems'), never as '1 problem(s)'."""
    pattern = re.compile(r"\}\s\w+\(s\)")
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for folder in ("scoring", "tui")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == []
    assert pattern.search('f"{count} problem(s)"') and not pattern.search("f\"{counted(count, 'problem')}\"")
