"""docs/safety.md through the real commands: signals during `tcsexam score`'s write, no surviving
process, terminal text on any stdout encoding, `table` and `diff` escaping names, the
dashboard's exit code after a crash, and the scale-free intervals (docs/rules.md#intervals under docs/safety.md)."""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from tcsexam.scoring.pipeline.benchmark import sample_root
from tcsexam.scoring.safety.numbers import NumberTooLarge
from tcsexam.scoring.stats.uncertainty import ci_block, track_interval, welch_satterthwaite
from tcsexam.scoring.vocab import WEIGHTS
from tests.support.processes import shell_signals
from tests.support.runs import csv_text, full_rows
from tests.support.waiting import wait_for

ROOT = Path(__file__).resolve().parents[1]
TCSEXAM = [sys.executable, "-c", "from tcsexam.tui.cli import entry; entry()"]
OUTSIDERS = 100_000  # rows of models outside the cohort: each is listed in index.json (about 23 MB)
OLD = b'{"old": "index"}\n'


@pytest.fixture(scope="module")
def large_run(tmp_path_factory) -> Path:
    """The demo run with many ignored rows, so that index.json takes a while to write."""
    run = tmp_path_factory.mktemp("large") / "run"
    shutil.copytree(sample_root() / "demo", run)
    text = (run / "attempts.csv").read_text()
    extra = "".join(
        f"outsider-{i},theorem,thm-sensitivity,1,1,selected,valid,original_task_score,,,\n" for i in range(OUTSIDERS)
    )
    (run / "attempts.csv").write_text(text + extra)
    return run


def env() -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}


def start_score(run: Path, out: Path, **popen) -> subprocess.Popen:
    """`tcsexam score` in its own process group (so that any process it started can be found)."""
    return subprocess.Popen(
        [*TCSEXAM, "score", str(run), "--output", str(out)],
        cwd=ROOT,
        env=env(),
        start_new_session=True,
        preexec_fn=shell_signals,
        **popen,
    )


def wait_for_temp(folder: Path, child: subprocess.Popen, timeout: float = 120) -> bool:
    """True once the write's temporary file exists; False when the command ended first."""

    def temp_or_ended() -> str | None:
        if any(name.endswith(".tmp") for name in os.listdir(folder)):
            return "temp"
        return "ended" if child.poll() is not None else None

    try:
        return wait_for(temp_or_ended, "score's temporary file", timeout, pause=0.001) == "temp"
    except AssertionError:
        child.kill()
        raise


def group_is_gone(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


SIGNALS = [signal.SIGTERM, signal.SIGHUP, signal.SIGINT]


@pytest.mark.parametrize("sig", SIGNALS, ids=[s.name for s in SIGNALS])
def test_a_signal_during_score_s_write_leaves_no_temp_file_and_the_old_index(large_run, tmp_path, sig):
    out = tmp_path / "out" / "index.json"
    out.parent.mkdir()
    for _ in range(3):  # the window is the write itself: try again if the command ended before it
        out.write_bytes(OLD)
        child = start_score(large_run, out, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        caught = wait_for_temp(out.parent, child)
        if caught:
            child.send_signal(sig)
        code = child.wait(timeout=120)
        if caught and code not in (0, 3):  # 3, the demo is incomplete: the write ended before the signal came
            break
    else:
        pytest.skip("the write always finished before the signal arrived")
    assert code == 128 + sig, child.stderr.read().decode() if child.stderr else code
    assert sorted(os.listdir(out.parent)) == ["index.json"]  # no .index.json.*.tmp
    assert out.read_bytes() == OLD
    assert group_is_gone(child.pid)


def test_sigkill_of_score_leaves_no_process_and_a_pipe_to_cat_returns(large_run, tmp_path):
    # SIGKILL cannot be caught: the temporary file may stay (README "Safety"); no process may
    out = tmp_path / "out" / "index.json"
    out.parent.mkdir()
    child = start_score(large_run, out, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    cat = subprocess.Popen(["cat"], stdin=child.stdout, stdout=subprocess.PIPE)
    assert child.stdout is not None
    child.stdout.close()  # cat alone reads the pipe now
    time.sleep(1.0)  # mid-run: loading, scoring or writing
    child.kill()
    assert child.wait(timeout=30) == -signal.SIGKILL
    cat.communicate(timeout=30)  # returns: nothing else holds the pipe
    assert cat.returncode == 0
    assert group_is_gone(child.pid)
    leftovers = [n for n in os.listdir(out.parent) if n != "index.json"]
    assert all(n.startswith(".index.json.") and n.endswith(".tmp") for n in leftovers)


def test_score_on_an_ascii_stdout_writes_escaped_names_and_exits_0(ws, tmp_path):
    # a non-UTF-8 stdout: the summary cannot fail after index.json is written
    ws.write_cohort(models={"modèle": {"attempts_per_task": 1}})
    ws.write_rows(full_rows("modèle"))
    proc = subprocess.run(
        [*TCSEXAM, *ws.score_args()],
        cwd=ROOT,
        env={**env(), "PYTHONIOENCODING": "ascii"},
        capture_output=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert b"mod\\xe8le" in proc.stdout and b"Traceback" not in proc.stderr
    assert "modèle" in json.loads(ws.out.read_text(encoding="utf-8"))["models"]  # JSON keeps the name


def test_table_and_diff_show_a_hostile_model_name_escaped(ws, cli, tmp_path):
    name = "m\x1b]52;c;cHduZWQ=\x07\u202e"
    ws.write_cohort(models={name: {"attempts_per_task": 1}})
    ws.write_rows(full_rows(name))
    code, out, err = cli(*ws.score_args())
    assert code == 0 and name in json.loads(ws.out.read_text())["models"]
    old = tmp_path / "old.json"
    ws.write_rows(full_rows(name, {"t1": 0}))
    shutil.copy(ws.out, old)
    assert cli(*ws.score_args())[0] == 0
    escaped = "\\x1b]52;c;cHduZWQ=\\x07"
    markdown = escaped.replace("\\", "\\\\").replace("]", "\\]")  # markdown's own backslashes on top
    for argv, text in (
        (["table", str(ws.out)], markdown),
        (["table", str(ws.out), "--format", "html"], escaped),
        (["diff", str(old), str(ws.out)], escaped),
    ):
        code, out, err = cli(*argv)
        assert code == 0, err
        shown = out + err
        assert text in shown, shown
        assert not any(c in shown for c in "\x1b\x07\u202e"), shown


def test_every_problem_message_is_escaped_once_in_the_printer(ws, cli):
    # a rejection whose message quotes a name: the one printer of problems escapes it
    ws.write_cohort(models={"m\x1b[2J\x9b ": {"attempts_per_task": 1}})
    ws.write_rows(full_rows())
    code, out, err = cli(*ws.score_args())
    assert code == 1 and "m\\x1b[2J\\x9b " in err and "\x1b" not in err and "\x9b" not in err


def test_the_dashboard_exits_1_after_a_crash(monkeypatch):
    from textual.app import App

    import tcsexam.tui.app
    from tcsexam.tui.cli import main

    class Crashing(App):
        def on_mount(self) -> None:
            raise RuntimeError("a crash in the dashboard")

        def run(self, **kwargs):
            return super().run(headless=True)

    monkeypatch.setattr(tcsexam.tui.app, "create_app", lambda config, **_: Crashing())
    assert main(["tui"]) == 1


def test_the_dashboard_exits_0_when_it_quits(monkeypatch):
    from textual.app import App

    import tcsexam.tui.app
    from tcsexam.tui.cli import main

    class Quitting(App):
        def on_mount(self) -> None:
            self.exit()

        def run(self, **kwargs):
            return super().run(headless=True)

    monkeypatch.setattr(tcsexam.tui.app, "create_app", lambda config, **_: Quitting())
    assert main(["tui"]) == 0


# --- the intervals' squares, scale-free (docs/rules.md#intervals and docs/safety.md) ---------------------------------------------


def plain_track(values: list[float]) -> tuple[float, float]:
    """The textbook formula, written out: mean and se = sd/sqrt(m) with sd over m - 1."""
    m = len(values)
    mean = math.fsum(values) / m
    return mean, math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (m - 1)) / math.sqrt(m)


def test_ordinary_values_give_the_same_bits_as_the_plain_formula():
    rng = random.Random(13)
    for _ in range(500):
        values = [rng.uniform(0, 10) ** rng.choice((1, 3)) for _ in range(rng.randint(2, 30))]
        r = track_interval(values)
        assert (r["mean"], r["se"]) == plain_track(values)
        terms = [(rng.uniform(0, 100), rng.randint(2, 9)) for _ in range(4)]
        var = math.fsum(v for v, _ in terms)
        assert welch_satterthwaite(terms) == var * var / math.fsum(v * v / (m - 1) for v, m in terms)


def test_construction_values_of_4e154_have_a_finite_interval():
    # [4e154, 0]: mean 2e154, deviations ±2e154 (squares 4e308 overflow); sd = 2e154·sqrt(2), se = 2e154
    r = track_interval([4e154, 0.0])
    assert r["mean"] == 2e154 and r["se"] == pytest.approx(2e154, rel=1e-15)
    half = stats.t.ppf(0.975, 1) * 2e154
    assert (r["lo"], r["hi"]) == pytest.approx((2e154 - half, 2e154 + half), rel=1e-12)


def test_the_index_df_stays_finite_for_construction_values_of_1e76():
    # construction [1e76, 0]: se = 5e75, term 900·2.5e151 (its square overflows in the plain
    # formula, df = nan); with every other track's term negligible df = 1 (one task's m - 1)
    values = {"theorem": [1, 0], "solver": [0.2, 0.4], "construction": [1e76, 0.0], "conjecture": [0, 1]}
    index = 30 * 0.5 + 30 * 0.3 + 30 * 5e75 + 10 * 0.5
    idx = ci_block(values, index, WEIGHTS)["index"]
    assert idx["df"] == pytest.approx(1.0, rel=1e-12) and idx["se"] == pytest.approx(30 * 5e75, rel=1e-12)
    assert math.isfinite(idx["lo"]) and math.isfinite(idx["hi"])


def test_an_interval_end_beyond_the_largest_double_names_the_value():
    with pytest.raises(NumberTooLarge) as info:
        track_interval([1.7e308, 0.0])  # se 8.5e307, times t(0.975, 1) = 12.7
    assert info.value.value == 1.7e308


def test_a_records_file_is_read_only_through_records_root(ws, cli, monkeypatch):
    # docs/safety.md: the cross-check reads every records file through RecordsRoot.read_path
    import tcsexam.scoring.safety.files

    ws.write_rows(full_rows())
    ws.write_records(
        "m", "s1", "1", [{"instance": "a", "status": "ok", "A": 12}, {"instance": "b", "status": "timeout"}]
    )
    read = []
    real = tcsexam.scoring.safety.files.RecordsRoot.read_path
    monkeypatch.setattr(
        tcsexam.scoring.safety.files.RecordsRoot, "read_path", lambda self, p: read.append(p) or real(self, p)
    )
    assert cli(*ws.score_args())[0] == 0
    assert sorted(read) == [str(ws.run / "records" / "m" / item / "1.json") for item in ("s1", "s2")]


def test_csv_text_of_a_nested_model_reads_nested_records(ws, cli):
    # a model 'org/m' has its records in records/org/m/<item>/<attempt>.json (docs/safety.md)
    ws.write_cohort(models={"org/m": {"attempts_per_task": 1}})
    (ws.run / "attempts.csv").write_text(csv_text(full_rows("org/m", {"s1": 0.3})))
    ws.write_records(
        "org/m", "s1", "1", [{"instance": "a", "status": "ok", "A": 12}, {"instance": "b", "status": "timeout"}]
    )
    code, _, err = cli(*ws.score_args())
    assert code == 1 and "records/org/m/s1/1.json" in err and "differs from 0.25" in err  # it was read


def test_every_output_option_of_every_command_rejects_an_empty_value():
    # docs/safety.md: `--output ''` is a usage error (exit 2) in every command that has an output
    import argparse

    from tcsexam.scoring.commands.options import output_argument
    from tcsexam.tui.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    with_output = {
        name: action for name, p in sub.choices.items() for action in p._actions if "--output" in action.option_strings
    }
    assert {"score", "solver-score", "tau2", "compare", "tui", "table", "diff"} <= set(with_output)
    assert all(action.type is output_argument for action in with_output.values()), with_output


@pytest.mark.parametrize("command", ["table", "diff"])
@pytest.mark.parametrize("target", ["attempts.csv", "cohort.json", "records/new.md"])
def test_table_and_diff_never_write_over_the_inputs_the_index_records(demo_copy, cli, command, target):
    """docs/safety.md#outputs-never-destroy-inputs: the index names the run's inputs, and `table` or `diff`
    with --output on one of them replaced the results the index came from (exit 0, 'table written')."""
    assert cli("score", str(demo_copy))[0] == 3  # the demo is incomplete: index.json is written, exit 3
    index = str(demo_copy / "build" / "index.json")
    before = {p: p.read_bytes() for p in demo_copy.rglob("*") if p.is_file() and "build" not in p.parts}
    args = [index] if command == "table" else [index, index]
    code, out, err = cli(command, *args, "--output", str(demo_copy / target))
    assert code == 1 and "written" not in out, (out, err)
    assert ("destroy the input" in err) if target.endswith((".csv", ".json")) else ("inside the input folder" in err)
    assert {p: p.read_bytes() for p in demo_copy.rglob("*") if p.is_file() and "build" not in p.parts} == before


def test_table_with_an_empty_output_is_a_usage_error(ws, cli, tmp_path):
    ws.write_rows(full_rows())
    assert cli(*ws.score_args())[0] == 0
    code, _, err = cli("table", str(ws.out), "--output", "")
    assert code == 2 and "an empty --output names no file" in err


GOOD_RECORD = '{"instance": "g", "status": "ok", "A": 3}'


@pytest.mark.parametrize(
    ("text", "key", "record"),
    [
        ('[{"instance": "a", "status": "ok", "A": 1, "A": 2}]', "A", 0),  # the typed value keeps one A
        (f'[{GOOD_RECORD}, {{"instance": "a", "status": "ok", "A": 1, "x": 1, "x": 2}}]', "x", 1),  # ignored key
        (
            f'[{GOOD_RECORD},\n {GOOD_RECORD.replace("g", "h")},\n {{"instance": "a", "status": "timeout", "A": null, "A": null}}]',
            "A",
            2,
        ),
        ('[{"instance": "a:b", "status": "ok", "A": 1, "status": "ok"}]', "status", 0),  # ':' in a value
    ],
)
def test_records_with_a_key_twice_are_rejected_naming_the_record_on_every_path_of_the_check(text, key, record):
    from tcsexam.scoring.errors import InputError
    from tcsexam.scoring.formats.records import read_records

    with pytest.raises(InputError) as info:
        read_records(text.encode(), "r.json", "objective")
    assert [(p.where, p.field, p.message) for p in info.value.problems] == [
        (f"record {record}", key, f"key '{key}' appears twice in one object")
    ]


def test_a_key_twice_is_listed_with_every_other_problem_of_the_records():
    """docs/commands.md#validate: every problem at once. Record 0's status is no status, record 1 holds
    A twice, records 2 and 3 name one instance twice: each is listed, in record order."""
    from tcsexam.scoring.errors import InputError
    from tcsexam.scoring.formats.records import read_records

    text = (
        '[{"instance": "a", "status": "fine", "A": 1}, {"instance": "b", "status": "ok", "A": 1, "A": 2},'
        ' {"instance": "c", "status": "ok", "A": 1}, {"instance": "c", "status": "ok", "A": 2}]'
    )
    with pytest.raises(InputError) as info:
        read_records(text.encode(), "r.json", "objective")
    assert [(p.where.split(" (")[0], p.field) for p in info.value.problems] == [
        ("record 0", "status"),
        ("record 1", "A"),
        ("record 3", "instance"),
    ]
    for bom in (b"", b"\xef\xbb\xbf"):  # the good records alone: the key twice is the one problem
        good = b'[{"instance": "a", "status": "ok", "A": 1}, {"instance": "b", "status": "ok", "A": 1, "A": 2}]'
        with pytest.raises(InputError) as info:
            read_records(bom + good, "r.json", "objective")
        assert [(p.where, p.field) for p in info.value.problems] == [("record 1", "A")]


@pytest.mark.parametrize(
    "text",
    [
        '[{"instance": "a", "status": "ok", "A": 1, "x": {"y": 1}}, {"instance": "b", "status": "timeout", "A": null}]',
        '[{"instance": "a\\u003ab", "status": "ok", "A": 1}]',  # a ':' written as an escape
    ],
)
def test_records_without_a_key_twice_are_accepted_when_the_cheap_check_cannot_tell(text):
    from tcsexam.scoring.formats.records import read_records

    assert read_records(text.encode(), "r.json", "objective").names[0] in ("a", "a:b")


def test_the_records_type_never_adds_a_key_when_encoded():
    import msgspec

    from tcsexam.scoring.formats.decode import only_drops_keys
    from tcsexam.scoring.formats.records import Record

    assert only_drops_keys(Record)
    assert msgspec.json.decode(msgspec.json.encode(Record(instance="a", status="timeout"))) == {
        "instance": "a",
        "status": "timeout",
    }


def test_a_full_disk_names_the_output_and_removes_the_folders_the_write_made(ws, cli, monkeypatch):
    import errno

    import tcsexam.scoring.safety.outputs

    ws.write_rows(full_rows())
    out = ws.root / "new" / "deeper" / "index.json"

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(tcsexam.scoring.safety.outputs.os, "fsync", full)
    code, _, err = cli(*ws.score_args()[:-1], str(out))
    assert code == 1 and err.strip() == f"tcsexam: cannot write {out}: No space left on device"
    assert not (ws.root / "new").exists()


def test_a_reference_with_a_key_twice_in_a_task_is_rejected_and_one_with_extra_keys_accepted():
    from tcsexam.scoring.errors import InputError
    from tcsexam.scoring.formats.decode import only_drops_keys
    from tcsexam.scoring.formats.reference import Reference
    from tcsexam.scoring.pipeline.reference import read_reference

    assert only_drops_keys(Reference)  # the cheap check applies: encoding adds no key
    head = '{"reference_id": "r", "suite": "lite", "scale_floor": {"relative": 0.01, "absolute": 1e-9}, "note": "x", '
    task = '"kind": "objective", "direction": "maximize", "instances": {"a": [1, 2], "b": [3, 4]}'
    ok = read_reference((head + '"tasks": {"t": {' + task + "}}}").encode(), "ref.json")
    assert ok.task("t").names == ["a", "b"]
    twice = head + '"tasks": {"t": {' + task.replace('"b": [3, 4]', '"a": [3, 4]') + "}}}"
    with pytest.raises(InputError) as info:
        read_reference(twice.encode(), "ref.json")
    assert [p.message for p in info.value.problems] == ["key 'a' appears twice in one object"]


@pytest.mark.parametrize("unscored", ['"unscored_reference_instances": []', None])
def test_a_valid_reference_is_written_back_with_every_key_it_had(unscored, monkeypatch):
    """The cheap duplicate-key check (same key count after encoding) holds for every valid
    reference, an empty unscored_reference_instances included: no second, generic parse."""
    import msgspec

    import tcsexam.scoring.formats.decode
    from tcsexam.scoring.formats.json import same_key_count
    from tcsexam.scoring.formats.reference import REFERENCE
    from tcsexam.scoring.pipeline.reference import read_reference

    head = '{"reference_id": "r", "suite": "lite", "scale_floor": {"relative": 0.01, "absolute": 1e-9}, '
    task = '"tasks": {"t": {"kind": "objective", "direction": "maximize", "instances": {"a": [1, 2], "b": [3, 4]}}}'
    text = (head + task + (", " + unscored if unscored else "") + "}").encode()
    assert same_key_count(text, msgspec.json.encode(REFERENCE.decode(text)))

    def no_generic_parse(data):
        raise AssertionError("the generic re-parse ran")

    monkeypatch.setattr(tcsexam.scoring.formats.decode.orjson, "loads", no_generic_parse)
    loaded = read_reference(text, "ref.json")
    assert loaded.header.unscored == [] and loaded.task("t").unscored == frozenset()


def test_a_reference_with_an_empty_unscored_list_and_a_key_twice_is_still_rejected():
    from tcsexam.scoring.errors import InputError
    from tcsexam.scoring.pipeline.reference import read_reference

    text = (
        '{"reference_id": "r", "suite": "lite", "scale_floor": {"relative": 0.01, "absolute": 1e-9}, '
        '"tasks": {"t": {"kind": "objective", "direction": "maximize", "instances": {"a": [1, 2], "a": [3, 4]}}}, '
        '"unscored_reference_instances": []}'
    )
    with pytest.raises(InputError) as info:
        read_reference(text.encode(), "ref.json")
    assert [p.message for p in info.value.problems] == ["key 'a' appears twice in one object"]


def test_the_type_property_of_the_duplicate_key_check_is_worked_out_once_per_type():
    from tcsexam.scoring.formats.decode import only_drops_keys
    from tcsexam.scoring.formats.records import check_records

    data = b'[{"instance": "a", "status": "ok", "A": 1}]'
    walks = []
    for files in (1, 50):
        only_drops_keys.cache_clear()
        check_records([data] * files, [f"r{k}.json" for k in range(files)], "objective")
        walks.append(only_drops_keys.cache_info().misses)
    assert walks[0] == walks[1] > 0  # the type is walked as often for 50 files as for one


@settings(max_examples=200, deadline=None)
@given(
    names=st.lists(st.text(alphabet=st.sampled_from('ab:\\"é\u2028'), min_size=1, max_size=6), unique=True, max_size=5),
    values=st.lists(st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False)), max_size=3),
    unscored=st.booleans(),
)
def test_the_reference_colon_count_is_that_of_its_encoding(names, values, unscored):
    """``reference.encoded_colons`` (no encoding of the instance values) against msgspec's own
    encoding of the whole reference, names with ':' , quotes and escapes included."""
    import msgspec

    from tcsexam.scoring.formats.reference import REFERENCE, encoded_colons

    doc = {
        "reference_id": "r:1",
        "suite": "lite",
        "scale_floor": {"relative": 0.01, "absolute": 1e-9},
        "tasks": {
            "t:a": {"kind": "objective", "direction": "maximize", "instances": {n: values for n in names}},
            "b": {"kind": "solve", "direction": "maximize", "instances": {}},
        },
    }
    if unscored:
        doc["unscored_reference_instances"] = [{"task": "t:a", "instance": "x:y", "values": [1.0, None]}]
    header = REFERENCE.decode(msgspec.json.encode(doc))
    assert encoded_colons(header) == msgspec.json.encode(header).count(b":")


def test_a_reference_with_a_key_twice_among_instances_with_colons_is_rejected():
    from tcsexam.scoring.errors import InputError
    from tcsexam.scoring.pipeline.reference import read_reference

    text = (
        '{"reference_id": "r", "suite": "lite", "scale_floor": {"relative": 0.01, "absolute": 1e-9}, '
        '"tasks": {"t": {"kind": "objective", "direction": "maximize", '
        '"instances": {"a:1": [1, 2], "b\\u003a2": [3, 4], "a:1": [5, 6]}}}}'
    )
    with pytest.raises(InputError) as info:
        read_reference(text.encode(), "ref.json")
    assert [p.message for p in info.value.problems] == ["key 'a:1' appears twice in one object"]
