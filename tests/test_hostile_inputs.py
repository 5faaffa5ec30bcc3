"""Inputs an attacker or an unusual harness hands over (docs/safety.md): integers too long to read,
names that look alike on a screen, a run folder moved or deleted while it is read."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tcsexam.scoring.safety.terminal import escape_for_terminal, look_alikes
from tests.support.invisible import is_invisible
from tests.support.runs import TAU2_DATA, full_rows

# --- integers too long to read ---------------------------------------------------------------


def with_long_integer(text: str, key: str, digits: int) -> str:
    """``text`` (a JSON object's text) with ``"key": 99…9`` as its first member."""
    at = text.index("{") + 1
    return f'{text[:at]}"{key}": {"9" * digits}, {text[at:]}'


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(digits=st.integers(4301, 9000), record=st.integers(0, 2))
def test_a_long_integer_in_an_ignored_records_key_is_rejected_naming_it(ws, cli, digits, record):
    ws.write_rows(full_rows())
    ws.write_records(
        "m", "s1", "1", [{"instance": "a", "status": "ok", "A": 12}, {"instance": "b", "status": "ok", "A": 100}]
    )
    path = ws.run / "records" / "m" / "s1" / "1.json"
    records = json.loads(path.read_text(encoding="utf-8"))
    texts = [json.dumps(r) for r in records]
    k = min(record, len(texts) - 1)
    texts[k] = with_long_integer(texts[k], "extra", digits)
    path.write_text("[\n" + ",\n".join(texts) + "\n]", encoding="utf-8")
    code, out, err = cli(*ws.score_args())
    assert code == 1 and not ws.out.exists()
    assert f"{path}: line {k + 2} column 11: an integer of {digits:,} digits: too long to read" in err
    assert "internal error" not in err


def test_a_long_integer_in_a_tau2_extra_key_is_rejected_naming_it(cli, tmp_path):
    source = TAU2_DATA / "qwen2.5-7b_airline_default_gpt-4.1-2025-04-14_1trials.json"
    text = source.read_text(encoding="utf-8")
    path = tmp_path / "results.json"
    path.write_text(with_long_integer(text, "extra", 5001), encoding="utf-8")
    code, _, err = cli("tau2", str(path))
    assert code == 1
    assert f"{path}: line 1 column 11: an integer of 5,001 digits: too long to read" in err
    assert "internal error" not in err


# --- look-alike names ------------------------------------------------------------------------

INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u202e", "\u2066", "\u180e", "\U000e0041"]


def test_every_invisible_or_format_character_is_escaped():
    missed = [f"U+{c:04X}" for c in range(0x110000) if is_invisible(chr(c)) and escape_for_terminal(chr(c)) == chr(c)]
    assert missed == []


def test_the_format_characters_of_newer_unicode_are_escaped_on_every_python():
    """Unicode 15 (Python 3.12 and 3.13) made U+13439-U+1343F, Egyptian hieroglyph format controls,
    category Cf; Python 3.11's Unicode 14 has them unassigned, so the test above sees them only there."""
    for code in range(0x13439, 0x13440):
        assert escape_for_terminal(chr(code)) == f"\\U{code:08x}"


@given(st.text(st.characters(codec=None), max_size=20))
def test_an_escaped_name_shows_no_invisible_character(name):
    shown = escape_for_terminal(name)
    assert not any(is_invisible(ch) for ch in shown)
    if not any(is_invisible(ch) for ch in name):
        assert shown == name  # nothing else changes: letters, accents, CJK stay as written


@given(
    st.text(st.sampled_from("atlas-70bé日"), min_size=1, max_size=8),
    st.lists(st.sampled_from(INVISIBLE), min_size=1, max_size=3),
    st.data(),
)
def test_a_name_with_invisible_characters_looks_like_the_name_without(name, extra, data):
    spots = sorted(data.draw(st.lists(st.integers(0, len(name)), min_size=len(extra), max_size=len(extra))))
    twin = name
    for spot, ch in zip(reversed(spots), extra, strict=True):
        twin = twin[:spot] + ch + twin[spot:]
    assert look_alikes([name, twin]) == [(twin, name)]
    assert escape_for_terminal(twin) != escape_for_terminal(name)  # and on screen they differ


def test_names_that_only_look_different_in_code_points_are_look_alikes():
    assert look_alikes(["modèle", "mode\u0300le", "ﬁne", "fine", "gpt-4", "GPT-4"]) == [
        ("mode\u0300le", "modèle"),
        ("fine", "ﬁne"),
    ]


@pytest.mark.parametrize("twin", ["atlas-70b\u200b", "atlas\u2060-70b", "\ufeffatlas-70b", "atlas-70b\u202e"])
def test_a_cohort_of_look_alike_names_is_rejected_naming_both(ws, cli, twin):
    ws.write_rows(full_rows("atlas-70b") + full_rows(twin))
    ws.write_cohort(models={"atlas-70b": {"attempts_per_task": 1}, twin: {"attempts_per_task": 1}})
    code, _, err = cli(*ws.score_args())
    assert code == 1 and not ws.out.exists()
    assert (
        f"{ws.run / 'cohort.json'}: models: field '{escape_for_terminal(twin)}': model name looks the same as "
        "'atlas-70b' on a screen"
    ) in err


def test_a_suite_of_look_alike_items_is_rejected(ws, cli):
    suite = json.loads((ws.bench / "suites" / "lite.json").read_text(encoding="utf-8"))
    suite["tasks"].append({"item": "t1\u200d", "track": "theorem"})
    ws.write_json(ws.bench / "suites" / "lite.json", suite)
    ws.write_rows(full_rows())
    code, _, err = cli(*ws.score_args())
    assert code == 1
    assert "tasks[7]: field 'item': item name looks the same as 't1' on a screen" in err


def test_score_and_table_show_a_zero_width_character_escaped(ws, cli, tmp_path):
    ws.write_rows(full_rows("atlas-70b\u200b"))
    ws.write_cohort(models={"atlas-70b\u200b": {"attempts_per_task": 1}})
    code, out, _ = cli(*ws.score_args())
    assert code == 0 and "atlas-70b\\u200b" in out and "\u200b" not in out
    code, out, _ = cli("table", str(ws.out))
    assert code == 0 and "\u200b" not in out


# --- a run folder moved or deleted while it is read ------------------------------------------


def records_run(ws) -> None:
    """A run whose two solver attempts each have a records file (s1: 0.5 and 0, s2: 0 and 0)."""
    ws.write_rows(full_rows(scores={"s2": 0}))
    ws.write_records(
        "m", "s1", "1", [{"instance": "a", "status": "ok", "A": 12}, {"instance": "b", "status": "timeout"}]
    )
    ws.write_records("m", "s2", "1", [{"instance": "x", "status": "timeout"}, {"instance": "y", "status": "crash"}])


def after_first_records_read(monkeypatch, action) -> list[str]:
    """Run ``action`` once, right after the first records file is read; the paths read."""
    from tcsexam.scoring.safety.files import RecordsRoot

    read = RecordsRoot.read_path
    seen: list[str] = []

    def read_then_act(self, path):
        data = read(self, path)
        seen.append(path)
        if len(seen) == 1:
            action()
        return data

    monkeypatch.setattr(RecordsRoot, "read_path", read_then_act)
    return seen


@pytest.mark.parametrize("how", ["moved", "deleted", "replaced", "records moved"])
def test_a_run_folder_moved_or_deleted_while_score_reads_it_is_rejected(ws, cli, monkeypatch, how):
    records_run(ws)
    assert cli(*ws.score_args())[0] == 0  # the run as it stands scores complete
    ws.out.unlink()
    ws.out.parent.rmdir()
    out = ws.run / "build" / "index.json"  # the output inside the run folder: never made again
    args = ["score", str(ws.run), "--benchmark", str(ws.bench), "--output", str(out)]
    copy = ws.root / "copy"
    shutil.copytree(ws.run, copy)
    moved = {
        "moved": lambda: ws.run.rename(ws.root / "elsewhere"),
        "deleted": lambda: shutil.rmtree(ws.run),
        "replaced": lambda: (ws.run.rename(ws.root / "elsewhere"), copy.rename(ws.run)),
        "records moved": lambda: (ws.run / "records").rename(ws.root / "records-elsewhere"),
    }[how]
    seen = after_first_records_read(monkeypatch, moved)
    code, out_text, err = cli(*args)
    assert seen, "the records were read"
    assert code == 1, out_text
    folder = ws.run / "records" if how == "records moved" else ws.run
    state = "replaced by another folder" if how == "replaced" else "deleted or moved away"
    assert f"{folder}: folder {state} while the command read it" in err
    assert not out.exists() and not (ws.root / "elsewhere" / "build").exists()
    if how in ("moved", "deleted"):
        assert not ws.run.exists()  # the folder is not made again for the output


def test_a_run_read_without_a_move_keeps_no_folder_open(ws, cli):
    records_run(ws)
    before = set(os.listdir("/proc/self/fd")) if Path("/proc/self/fd").is_dir() else set()
    assert cli(*ws.score_args())[0] == 0
    after = set(os.listdir("/proc/self/fd")) if Path("/proc/self/fd").is_dir() else set()
    assert after <= before  # every folder opened to watch the run was closed again
