"""docs/tau2.md#what-is-checked: a key twice in one object is rejected in every object of a tau2-bench
results file that a field is read from, and only there; the rest of the file is still valid JSON,
valid UTF-8 and holds no integer too long to read (docs/safety.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tcsexam.scoring.errors import InputError
from tcsexam.scoring.formats import read_keys
from tcsexam.scoring.formats.json import has_digit_run
from tcsexam.scoring.tau2.files import load_tau2_results
from tcsexam.scoring.tau2.trajectory import simulation_trajectory
from tests.support.runs import to_dir_format

DATA = Path(__file__).resolve().parent / "data" / "tau2"
FOUR = DATA / "gpt-4.1-2025-04-14_telecom_no-user_gpt-4.1-2025-04-14_4trials_5tasks.json"
# tau2-bench's own figures for FOUR (PROVENANCE.md there): avg_reward, pass^1..4
FOUR_AVG_REWARD, FOUR_PASS_K = 0.8, [0.8, 0.8, 0.8, 0.8]

MARK = "__here__"


def with_pairs(obj: dict, place, pairs: str) -> str:
    """The JSON text of ``obj`` with ``pairs`` (text such as '"a": 1, "a": 2') written into the object
    that ``place`` picks out of it (a function of the document)."""
    place(obj)[MARK] = 0
    text = json.dumps(obj)
    assert text.count(f'"{MARK}": 0') == 1
    return text.replace(f'"{MARK}": 0', pairs)


def four() -> dict:
    return json.loads(FOUR.read_text(encoding="utf-8"))


def run_tau2(cli, tmp_path: Path, text: str | bytes):
    path = tmp_path / "results.json"
    if isinstance(text, str):
        text = text.encode("utf-8")
    path.write_bytes(text)
    out = tmp_path / "metrics.json"
    code, _, err = cli("tau2", str(path), "--output", str(out))
    return code, err, out, path


# Objects a field is read from, each with a key written twice in it.
READ_FROM = {
    "the file itself": (lambda d: d, '"info": {}, "info": {"num_trials": 4}', "info"),
    "a simulation": (lambda d: d["simulations"][5], '"task_id": "x", "task_id": "y"', "task_id"),
    "a simulation, an unknown key": (lambda d: d["simulations"][5], '"seen": 1, "seen": 2', "seen"),
    "info": (lambda d: d["info"], '"num_trials": 1, "num_trials": 4', "num_trials"),
    "info.agent_info": (lambda d: d["info"]["agent_info"], '"llm": "a", "llm": "b"', "llm"),
    "reward_info": (lambda d: d["simulations"][7]["reward_info"], '"reward": 0.0, "reward": 1.0', "reward"),
    "db_check": (
        lambda d: d["simulations"][0]["reward_info"]["db_check"],
        '"db_match": true, "db_match": false',
        "db_match",
    ),
    "an env assertion check": (
        lambda d: d["simulations"][0]["reward_info"]["env_assertions"][1],
        '"met": true, "met": false',
        "met",
    ),
    "an action check": (
        lambda d: d["simulations"][0]["reward_info"]["action_checks"][0],
        '"why": 1, "why": 2',
        "why",
    ),
    "reward_breakdown": (
        lambda d: d["simulations"][19]["reward_info"]["reward_breakdown"],
        '"DB": 1.0, "DB": 0.0',
        "DB",
    ),
    "a key holding ':'": (lambda d: d["simulations"][3], '"a:b": 1, "a:b": 2', "a:b"),
    # an escaped ':' in one key may not hide a key twice in the same object
    "beside a key with an escaped ':'": (lambda d: d["simulations"][3], '"a\\u003ab": 1, "x": 0, "x": 0', "x"),
}


@pytest.mark.parametrize("case", sorted(READ_FROM))
def test_a_key_twice_in_an_object_read_from_is_rejected_naming_it(cli, tmp_path, case):
    place, pairs, key = READ_FROM[case]
    code, err, out, path = run_tau2(cli, tmp_path, with_pairs(four(), place, pairs))
    assert code == 1 and not out.exists()
    assert f"{path}: field '{key}': key '{key}' appears twice in one object" in err
    assert "internal error" not in err


# Objects no field is read from: the figures are those of the file without the second key.
NOT_READ = {
    "a message": (lambda d: d["simulations"][2]["messages"][0], '"content": "a", "content": "b"'),
    "a tool call's arguments": (
        lambda d: next(m for m in d["simulations"][2]["messages"] if m.get("tool_calls"))["tool_calls"][0]["arguments"],
        '"line_id": "L1", "line_id": "L2"',
    ),
    "a task": (lambda d: d["tasks"][1], '"id": "x", "id": "y"'),
    "the action an action check names": (
        lambda d: d["simulations"][0]["reward_info"]["action_checks"][0]["action"],
        '"name": "a", "name": "b"',
    ),
}


@pytest.mark.parametrize("case", sorted(NOT_READ))
def test_a_key_twice_where_no_field_is_read_changes_nothing(cli, tmp_path, case):
    place, pairs = NOT_READ[case]
    code, err, out, _ = run_tau2(cli, tmp_path, with_pairs(four(), place, pairs))
    assert code == 0, err
    metrics = json.loads(out.read_text())
    assert metrics["avg_reward"] == pytest.approx(FOUR_AVG_REWARD, abs=1e-12)
    assert [metrics["pass_hat_k"][str(k)] for k in range(1, 5)] == pytest.approx(FOUR_PASS_K, abs=1e-12)


# Values of the file's own object that change how it is walked: decoded with the file in one call
# (objects, lists of objects, scalars), or value by value (a list of numbers or of lists).
FILE_VALUES = {
    "a number": '"extra": 7',
    "a string holding ':'": '"extra": "12:00:00"',
    "a string holding an escaped ':'": '"extra": "12\\u003a00"',
    "an object of objects": '"extra": {"a": {"b": 1, "c": "x:y"}}',
    "a list of objects": '"extra": [{"a": 1}, null, {"b:c": [1, 2]}]',
    "a list of numbers": '"extra": [1, 2.5, 3]',
    "a list of lists": '"extra": [[{"a": 1}], []]',
}


def with_first_pair(text: str, pair: str) -> str:
    """The JSON text of an object, ``pair`` ('"key": value') written as its first pair."""
    assert text.startswith("{")
    return "{" + pair + ", " + text[1:]


@pytest.mark.parametrize("value", sorted(FILE_VALUES))
@pytest.mark.parametrize("case", ["the file itself", "a simulation", "reward_breakdown", "a key holding ':'"])
def test_a_key_twice_is_named_whatever_else_the_file_holds(cli, tmp_path, value, case):
    place, pairs, key = READ_FROM[case]
    text = with_first_pair(with_pairs(four(), place, pairs), FILE_VALUES[value])
    code, err, out, path = run_tau2(cli, tmp_path, text)
    assert code == 1 and not out.exists()
    assert f"{path}: field '{key}': key '{key}' appears twice in one object" in err


@pytest.mark.parametrize("value", sorted(FILE_VALUES))
def test_a_file_without_a_key_twice_is_read_without_parsing_it_again(tmp_path, monkeypatch, value):
    """The ':' are counted exactly whatever the file's own values are (an escaped ':' included), so
    the slow parse that names a repeated key does not run on a file that has none."""
    parsed = []
    repeated_key = read_keys._repeated_key
    monkeypatch.setattr(read_keys, "_repeated_key", lambda *a: parsed.append(1) or repeated_key(*a))
    path = tmp_path / "results.json"
    path.write_text(with_first_pair(json.dumps(four(), indent=2), FILE_VALUES[value]), encoding="utf-8")
    assert len(load_tau2_results(path).simulations) == 20
    assert parsed == []


def test_the_browser_names_a_key_twice_in_the_messages_it_opens(tmp_path):
    text = with_pairs(four(), lambda d: d["simulations"][2]["messages"][1], '"role": "user", "role": "assistant"')
    path = tmp_path / "results.json"
    path.write_text(text, encoding="utf-8")
    results = load_tau2_results(path)
    assert simulation_trajectory(results, 1)["messages"]  # another simulation opens as before
    with pytest.raises(InputError) as caught:
        simulation_trajectory(results, 2)
    (problem,) = caught.value.problems
    assert (problem.file, problem.field) == (str(path), "role")
    assert problem.message == "key 'role' appears twice in one object"


def test_dir_format_a_key_twice_in_a_simulation_file_or_the_index_is_rejected(tmp_path):
    folder = to_dir_format(FOUR, tmp_path / "run")
    meta = folder / "results.json"
    text = meta.read_text()
    meta.write_text(text.replace('"trial": 0,', '"trial": 0, "trial": 0,', 1))
    with pytest.raises(InputError) as caught:
        load_tau2_results(folder)
    assert [(p.file, p.field) for p in caught.value.problems] == [(str(meta), "trial")]
    meta.write_text(text)
    sim = sorted((folder / "simulations").iterdir())[3]
    sim_text = sim.read_text()
    sim.write_text(sim_text.replace('"db_match": ', '"db_match": true, "db_match": ', 1))
    with pytest.raises(InputError) as caught:
        load_tau2_results(folder)
    assert [(p.file, p.field) for p in caught.value.problems] == [(str(sim), "db_match")]
    sim.write_text(sim_text.replace('"role": ', '"role": "user", "role": ', 1))  # in its messages: not read
    assert len(load_tau2_results(folder).simulations) == 20


@pytest.mark.parametrize("together", [1, 2**20])  # each file's keys checked alone, or all 20 at once
def test_dir_format_every_simulation_file_is_named_with_its_own_problems_in_the_index_order(
    tmp_path, monkeypatch, together
):
    """The simulation files' keys are checked many files at a time: each problem still names its
    own file, files without one are not named, and the files come in the index's order."""
    from tcsexam.scoring.tau2 import files

    monkeypatch.setattr(files, "CHECKED_TOGETHER", together)
    folder = to_dir_format(FOUR, tmp_path / "run")
    index = json.loads((folder / "results.json").read_text())["simulation_index"]
    sims = [folder / "simulations" / f"{entry['id']}.json" for entry in index]
    edits = {
        2: ('"db_match": ', '"db_match": true, "db_match": '),  # a key twice, read from
        5: ('"role": ', '"role": "user", "role": '),  # a key twice in a message: not read
        11: ('"trial": ', '"trial": 9, "x": '),  # disagrees with its index entry
        17: ('"met": ', '"met": false, "met": '),  # a key twice, read from
    }
    for n, (old, new) in edits.items():
        text = sims[n].read_text()
        assert old in text
        sims[n].write_text(text.replace(old, new, 1))
    with pytest.raises(InputError) as caught:
        load_tau2_results(folder)
    assert [(p.file, p.field) for p in caught.value.problems] == [
        (str(sims[2]), "db_match"),
        (str(sims[11]), "trial"),
        (str(sims[17]), "met"),
    ]


def test_a_byte_that_is_not_utf8_in_unread_text_is_still_rejected(cli, tmp_path):
    text = with_pairs(four(), lambda d: d["simulations"][9]["messages"][2], '"content": "caf\\u00e9"').encode()
    bad = text.replace(b"caf\\u00e9", b"caf\xe9")  # latin-1, not UTF-8
    at = bad.index(b"caf\xe9") + 3
    code, err, out, path = run_tau2(cli, tmp_path, bad)
    line, column = bad.count(b"\n", 0, at) + 1, at - (bad.rfind(b"\n", 0, at) + 1) + 1
    assert code == 1 and not out.exists()
    assert f"{path}: line {line} column {column}: invalid JSON: not valid UTF-8" in err


def test_a_long_integer_in_a_message_is_rejected_and_as_many_digits_in_a_string_are_not(cli, tmp_path):
    digits = "7" * 4301
    text = with_pairs(four(), lambda d: d["simulations"][11]["messages"][0], f'"n": {digits}')
    code, err, out, path = run_tau2(cli, tmp_path, text)
    at = text.index(digits)
    assert code == 1 and not out.exists()
    assert f"{path}: line 1 column {at + 1}: an integer of 4,301 digits: too long to read" in err
    text = with_pairs(four(), lambda d: d["simulations"][11]["messages"][0], f'"n": "{digits}"')
    code, err, out, _ = run_tau2(cli, tmp_path, text)
    assert code == 0, err


@given(
    before=st.text(alphabet="ab1 ", max_size=30),
    run=st.integers(0, 120),
    after=st.text(alphabet="ab1 ", max_size=30),
    length=st.integers(2, 40),
)
def test_a_run_of_digits_is_found_wherever_it_starts(before, run, after, length):
    raw = f"{before}{'5' * run}{after}".encode()
    longest = max((len(m) for m in re.findall(rb"[0-9]+", raw)), default=0)
    assert has_digit_run(raw, length) == (longest >= length)


@given(
    lengths=st.lists(st.integers(0, 3 * read_keys._BATCH + 5), min_size=1, max_size=4),
    every=st.integers(1, 5000),
    offset=st.integers(0, 4999),
)
def test_the_colons_of_values_of_any_size_are_counted_as_their_bytes_hold(lengths, every, offset):
    """The key check counts ':' in the values it does not walk into, large ones slice by slice; a
    count one too high would hide a key twice (docs/tau2.md#what-is-checked)."""
    values = []
    for n in lengths:
        value = bytearray(b"a" * n)
        value[offset % every :: every] = b":" * len(range(offset % every, n, every))
        values.append(bytes(value))
    assert read_keys._colons([msgspec.Raw(v) for v in values]) == sum(v.count(b":") for v in values)


def test_a_long_string_opening_the_file_is_matched_in_little_memory():
    """The pairs that open a file are matched without backtracking: a 2.4 MB string with an escape
    every 6 bytes held 77 MB of the regular expression engine when matched a run of plain
    characters at a time, and more matched a character at a time."""
    import tracemalloc

    text = b'{"notes": "' + b'ab:\\"c' * 400_000 + b'", "n": 1, "info": {}}'
    tracemalloc.start()
    try:
        found = read_keys._leading_scalars(text)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert found == {"notes": text[10 : text.index(b', "n"')], "n": b"1"}
    assert peak < 20 * 2**20  # the value found, 2.4 MB, and little more


def test_nesting_too_deep_for_the_key_check_is_a_problem_not_an_internal_error(tmp_path, monkeypatch):
    """The key check's parsers run deeper in the stack than the typed decode that read the file:
    nesting that the one took and the other cannot is worded as a JSON problem of the file."""

    def too_deep(*args):
        raise RecursionError("maximum recursion depth exceeded while deserializing an object")

    monkeypatch.setattr(read_keys, "_repeated_key", too_deep)
    place, pairs = NOT_READ["a task"]  # a key twice where nothing is read: the file is parsed again
    path = tmp_path / "results.json"
    path.write_text(with_pairs(four(), place, pairs), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_tau2_results(path)
    (problem,) = caught.value.problems
    assert (problem.file, problem.message) == (str(path), "invalid JSON: nested too deeply")


# A key twice whose first value is of the wrong type: the typed decode refuses the file, and its
# message would be worded from the other value ("must be a whole number, got 1").
WRONG_FIRST = {
    "a simulation's trial": (lambda d: d["simulations"][5], '"trial": "x", "trial": 1', "trial", ("trial",)),
    "info's num_trials": (lambda d: d["info"], '"num_trials": 0, "num_trials": 4', "num_trials", ("num_trials",)),
    "the file's info": (lambda d: d, '"info": "a:b", "info": {"num_trials": 4}', "info", ("info",)),
}


@pytest.mark.parametrize("case", sorted(WRONG_FIRST))
def test_a_key_twice_is_named_even_where_one_of_its_values_has_the_wrong_type(cli, tmp_path, case):
    place, pairs, key, drop = WRONG_FIRST[case]

    def emptied(d):
        target = place(d)
        for name in drop:
            target.pop(name, None)
        return target

    code, err, out, path = run_tau2(cli, tmp_path, with_pairs(four(), emptied, pairs))
    assert code == 1 and not out.exists()
    assert f"{path}: field '{key}': key '{key}' appears twice in one object" in err
    assert "got" not in err
