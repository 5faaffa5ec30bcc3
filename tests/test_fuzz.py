"""Fuzzing every loader: from random bytes and from mutations of valid files, the only exception
that may escape is the project's own InputError (which the command line turns into exit 1)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tcsexam.scoring.errors import InputError
from tcsexam.scoring.formats.attempts import load_attempts
from tcsexam.scoring.pipeline.benchmark import sample_root
from tcsexam.scoring.pipeline.reference import load_reference
from tcsexam.scoring.pipeline.run import load_cohort_file, load_suite_file
from tcsexam.scoring.pipeline.solver import score_file
from tcsexam.scoring.tau2.files import load_tau2_results

SAMPLE = sample_root()
DEMO = SAMPLE / "demo"
LITE_REFERENCE = SAMPLE / "benchmark" / "references" / "sample-k3-synthetic" / "lite.json"
RECORDS_FILE = next((DEMO / "records").rglob("*.json"))
RECORDS_TASK = load_reference(LITE_REFERENCE).task(RECORDS_FILE.parent.name)  # records/<model>/<item>/<attempt>
VALID = {
    "attempts": (DEMO / "attempts.csv").read_bytes(),
    "cohort": (DEMO / "cohort.json").read_bytes(),
    "suite": (SAMPLE / "benchmark" / "suites" / "lite.json").read_bytes(),
    "reference": LITE_REFERENCE.read_bytes(),
    "records": RECORDS_FILE.read_bytes(),
    "tau2": (
        b'{"info": {"num_trials": 2}, "simulations": [{"task_id": "a", "trial": 0, "termination_reason": '
        b'"agent_stop", "agent_cost": 0.1, "reward_info": {"reward": 1.0, "reward_basis": ["DB"], '
        b'"reward_breakdown": {"DB": 1.0}, "db_check": {"db_match": true, "db_reward": 1.0}}}]}'
    ),
}
LOADERS = {
    "attempts": load_attempts,
    "cohort": load_cohort_file,
    "suite": load_suite_file,
    "reference": load_reference,
    "records": lambda p: score_file(RECORDS_TASK, p),  # the path every command scores a file by
    "tau2": load_tau2_results,
}
TOKENS = [
    b"NaN",
    b"Infinity",
    b"-1e400",
    b"1e400",
    b'"',
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b"null",
    b"true",
    b"\x00",
    b"\xff",
    b"\r\n",
    b"\n",
    b"-",
    b"0",
    b"1.5",
    b'""',
    b"\xef\xbb\xbf",
    b"[" * 3000,
]
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def run_loader(kind: str, data: bytes) -> None:
    fd, name = tempfile.mkstemp(suffix=".json" if kind != "attempts" else ".csv")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        try:
            LOADERS[kind](Path(name))
        except InputError as exc:
            assert exc.problems and all(p.file == name or p.file.startswith(name) for p in exc.problems)
    finally:
        os.unlink(name)


@st.composite
def mutated(draw, kind: str) -> bytes:
    data = bytearray(VALID[kind])
    for _ in range(draw(st.integers(1, 6))):
        pos = draw(st.integers(0, max(len(data) - 1, 0)))
        op = draw(st.sampled_from(["flip", "delete", "insert", "truncate"]))
        if op == "flip" and data:
            data[pos] = draw(st.integers(0, 255))
        elif op == "delete":
            del data[pos : pos + draw(st.integers(1, 40))]
        elif op == "insert":
            data[pos:pos] = draw(st.sampled_from(TOKENS))
        else:
            del data[pos:]
    return bytes(data)


def make_tests(kind: str):
    @FUZZ
    @given(st.binary(max_size=300))
    def from_random_bytes(data):
        run_loader(kind, data)

    @FUZZ
    @given(mutated(kind))
    def from_mutations(data):
        run_loader(kind, data)

    return from_random_bytes, from_mutations


test_attempts_random, test_attempts_mutated = make_tests("attempts")
test_cohort_random, test_cohort_mutated = make_tests("cohort")
test_suite_random, test_suite_mutated = make_tests("suite")
test_reference_random, test_reference_mutated = make_tests("reference")
test_records_random, test_records_mutated = make_tests("records")
test_tau2_random, test_tau2_mutated = make_tests("tau2")


@FUZZ
@given(mutated("attempts"))
def test_whole_run_from_a_mutated_table(data):
    """The full pipeline (rules, cross-check, index) on the demo with a mutated attempts table."""
    from tcsexam.scoring.pipeline.index import build_index
    from tcsexam.scoring.pipeline.run import load_run, resolve_run_paths

    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp)
        (run / "attempts.csv").write_bytes(data)
        (run / "cohort.json").write_bytes(VALID["cohort"])
        os.symlink(DEMO / "records", run / "records")
        try:
            doc = build_index(load_run(resolve_run_paths(str(run))))
        except InputError:
            return
        assert doc["status"] in ("complete", "provisional", "incomplete")
