"""Writes the bad-input corpus: one folder per case under tests/bad_inputs/.

    python -m tests.bad_inputs.make_cases

Each case folder holds the files that differ from ``_base`` (a valid, complete
run of the mini benchmark) and ``case.json``: the command line (with {run},
{bench}, {case}, {out} placeholders), the expected exit code, a fragment of the
expected message and a fragment naming where (line, record, field). Optional
keys: ``make_dir`` (paths turned into directories), ``unreadable`` (paths
whose reading fails with a permission error), ``remove`` (paths deleted),
``make_fifo`` (paths turned into FIFOs), ``symlink`` ({path: target}, the
target may use the placeholders or name a device such as /dev/null, which is
only pointed at), ``hardlink`` ({path: existing path}), ``unchanged`` (paths
whose bytes must be the same after the command: inputs an output was aimed
at), ``escaped`` (a name as it must be printed, control characters escaped),
``stdout_json`` (``--output -``: the document on stdout), ``writes_nothing``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.support.runs import MINI_REFERENCE, MINI_SUITE, csv_text, full_rows, row

HERE = Path(__file__).resolve().parent
BASE_ROWS = full_rows()
BASE_CSV = csv_text(BASE_ROWS)
COHORT = {
    "suite": "lite",
    "solver_protocol": "offline",
    "solver_reference_id": "ref-test",
    "adoption_rule": "first valid attempt",
    "models": {"m": {"attempts_per_task": 1}},
}
SCORE = ["score", "{run}", "--benchmark", "{bench}", "--output", "{out}"]
SOLVER = [
    "solver-score",
    "--task",
    "s1",
    "--records",
    "{case}/records.json",
    "--reference",
    "{case}/reference.json",
    "--output",
    "{out}",
]
TAU2 = ["tau2", "{case}/results.json", "--output", "{out}"]
GOOD_RECORDS = [{"instance": "a", "status": "ok", "A": 12}, {"instance": "b", "status": "timeout"}]  # s1 = 0.25
SIM = {
    "task_id": "a",
    "trial": 0,
    "termination_reason": "agent_stop",
    "agent_cost": 0.1,
    "reward_info": {"reward": 1.0, "reward_basis": ["DB"], "reward_breakdown": {"DB": 1.0}},
}

CASES: dict[str, dict] = {}


def case(name: str, argv, exit_code: int, message: str, where: str, files: dict | None = None, **extra) -> None:
    CASES[name] = {
        "spec": {"argv": argv, "exit": exit_code, "message": message, "where": where, **extra},
        "files": files or {},
    }


def csv_with(*changes, rows=None) -> str:
    """The base table with row i's fields changed: changes are (i, {field: value})."""
    out = [dict(r) for r in (rows or BASE_ROWS)]
    for i, fields in changes:
        out[i].update(fields)
    return csv_text(out)


def js(obj) -> str:
    return json.dumps(obj)


def ref_with(**task_changes) -> dict:
    ref = json.loads(js(MINI_REFERENCE))
    for k, v in task_changes.items():
        ref[k] = v
    return ref


# --- attempts table ---------------------------------------------------------------
A = "run/attempts.csv"
case("csv-empty-file", SCORE, 1, "file is empty", "line 1", {A: ""})
case(
    "csv-semicolon-separated",
    SCORE,
    1,
    "this header looks semicolon-separated",
    "attempts.csv: line 1",
    {A: BASE_CSV.replace(",", ";")},
)
case(
    "csv-capitalised-header",
    SCORE,
    1,
    "(found 'Model': column names are lower case)",
    "line 1: field 'model'",
    {A: "M" + BASE_CSV[1:]},
)
case(
    "csv-decimal-comma",
    SCORE,
    1,
    "use a decimal point: 0.25",
    "line 4: field 'score'",
    {A: csv_with((2, {"score": "0,25"}))},
)
case(
    "csv-percentage",
    SCORE,
    1,
    "write it as a fraction: 0.25",
    "line 4: field 'score'",
    {A: csv_with((2, {"score": "25%"}))},
)
case(
    "suite-benchmark-folder-missing",
    ["score", "{run}", "--benchmark", "{case}/mybenhc", "--output", "{out}"],
    1,
    "benchmark folder does not exist (it came from --benchmark)",
    "mybenhc",
)
case(
    "cohort-too-many-attempts",
    SCORE,
    1,
    "must be a whole number of at most 1,000",
    "models.m: field 'attempts_per_task'",
    {"run/cohort.json": js({**COHORT, "models": {"m": {"attempts_per_task": 10**9}}})},
)
case(
    "csv-wrong-encoding", SCORE, 1, "not valid UTF-8", "line 3", {A: BASE_CSV.replace("t2", "t\xe92").encode("latin-1")}
)
case("csv-bom-accepted", SCORE, 0, "complete", "", {A: "\ufeff" + BASE_CSV})
case("csv-crlf-accepted", SCORE, 0, "complete", "", {A: BASE_CSV.replace("\n", "\r\n")})
case("csv-bom-and-crlf-accepted", SCORE, 0, "complete", "", {A: "\ufeff" + BASE_CSV.replace("\n", "\r\n")})
case("csv-missing-header", SCORE, 1, "required column is missing", "line 1", {A: BASE_CSV.split("\n", 1)[1]})
case(
    "csv-missing-column",
    SCORE,
    1,
    "required column is missing",
    "field 'score'",
    {
        A: "\n".join(",".join(c for j, c in enumerate(line.split(",")) if j != 4) for line in BASE_CSV.splitlines())
        + "\n"
    },
)
case(
    "csv-duplicate-column",
    SCORE,
    1,
    "column appears twice",
    "line 1",
    {A: BASE_CSV.replace("reference_id", "score", 1)},
)
case(
    "csv-unknown-adoption-status",
    SCORE,
    1,
    "must be one of selected, selected_provisional, excluded; got 'chosen'",
    "line 3: field 'adoption_status'",
    {A: csv_with((1, {"adoption_status": "chosen"}))},
)
case(
    "csv-unknown-track",
    SCORE,
    1,
    "must be one of theorem, solver, construction, conjecture; got 'proofs'",
    "line 2: field 'track'",
    {A: csv_with((0, {"track": "proofs"}))},
)
case(
    "csv-unknown-score-status",
    SCORE,
    1,
    "must be one of valid, judge_failed, not_finished, missing; got 'pending'",
    "field 'score_status'",
    {A: csv_with((0, {"score_status": "pending"}))},
)
case("csv-non-numeric-score", SCORE, 1, "not a number", "line 4: field 'score'", {A: csv_with((2, {"score": "abc"}))})
case("csv-score-with-comma", SCORE, 1, "not a number", "field 'score'", {A: csv_with((5, {"score": "0,4"}))})
case("csv-nan-score", SCORE, 1, "must be finite", "line 6: field 'score'", {A: csv_with((4, {"score": "nan"}))})
case(
    "csv-infinity-score", SCORE, 1, "must be finite", "line 6: field 'score'", {A: csv_with((4, {"score": "Infinity"}))}
)
case("csv-overflow-score", SCORE, 1, "must be finite", "line 6: field 'score'", {A: csv_with((4, {"score": "1e400"}))})
case("csv-negative-construction", SCORE, 1, ">= 0", "line 6: field 'score'", {A: csv_with((4, {"score": "-0.5"}))})
case("csv-solver-above-one", SCORE, 1, "[0, 1]", "line 4: field 'score'", {A: csv_with((2, {"score": "1.5"}))})
case("csv-solver-negative", SCORE, 1, "[0, 1]", "line 5: field 'score'", {A: csv_with((3, {"score": "-0.01"}))})
case(
    "csv-theorem-partial-credit",
    SCORE,
    1,
    "partial credit",
    "line 2: field 'score'",
    {A: csv_with((0, {"score": "0.5"}))},
)
case(
    "csv-conjecture-partial-credit",
    SCORE,
    1,
    "partial credit",
    "line 8: field 'score'",
    {A: csv_with((6, {"score": "0.3"}))},
)
case("csv-theorem-score-two", SCORE, 1, "partial credit", "line 3: field 'score'", {A: csv_with((1, {"score": "2"}))})
case(
    "csv-duplicate-attempt",
    SCORE,
    1,
    "duplicate attempt",
    "line 9: field 'attempt'",
    {A: csv_text(BASE_ROWS + [row(item="t1", score=0)])},
)
case(
    "csv-duplicate-attempt-excluded",
    SCORE,
    1,
    "duplicate attempt",
    "line 9: field 'attempt'",
    {A: csv_text(BASE_ROWS + [row(item="t1", score=0, adoption="excluded", note="rerun")])},
)
case(
    "csv-over-planned-attempts",
    SCORE,
    1,
    "2 adopted attempts",
    "field 'adoption_status'",
    {A: csv_text(BASE_ROWS + [row(item="t2", attempt="2", score=1)])},
)
case(
    "csv-protocol-mismatch",
    SCORE,
    1,
    "cohort's protocol is 'offline'",
    "line 4: field 'solver_protocol'",
    {A: csv_with((2, {"solver_protocol": "online"}))},
)
case(
    "csv-protocol-empty-on-solver",
    SCORE,
    1,
    "'online' or 'offline'",
    "line 5: field 'solver_protocol'",
    {A: csv_with((3, {"solver_protocol": ""}))},
)
case(
    "csv-protocol-unknown",
    SCORE,
    1,
    "must be one of online, offline, (empty); got 'batch'",
    "field 'solver_protocol'",
    {A: csv_with((3, {"solver_protocol": "batch"}))},
)
case(
    "csv-reference-id-mismatch",
    SCORE,
    1,
    "cohort declares 'ref-test'",
    "line 4: field 'reference_id'",
    {A: csv_with((2, {"reference_id": "paper-k3-fixed-260925"}))},
)
case(
    "csv-score-type-mismatch",
    SCORE,
    1,
    "takes score_type",
    "line 4: field 'score_type'",
    {A: csv_with((2, {"score_type": "original_task_score"}))},
)
case(
    "csv-track-disagrees-with-suite",
    SCORE,
    1,
    "is a construction task",
    "line 6: field 'track'",
    {A: csv_with((4, {"track": "theorem", "score": "1"}))},
)
case("csv-empty-score-valid", SCORE, 1, "empty score", "line 7: field 'score'", {A: csv_with((5, {"score": ""}))})
case(
    "csv-wrong-field-count",
    SCORE,
    1,
    "expected 11 fields",
    "line 3",
    {A: BASE_CSV.replace("m,theorem,t2,1,0,", "m,theorem,t2,1,0,extra,", 1)},
)
case("csv-unterminated-quote", SCORE, 1, "expected 11 fields", "line 9", {A: BASE_CSV + '"m,theorem,t9\n'})
case("csv-nul-byte", SCORE, 1, "NUL", "", {A: BASE_CSV.replace("t2", "t\x002")})
case(
    "csv-empty-attempt",
    SCORE,
    1,
    "must be a non-empty string",
    "line 2: field 'attempt'",
    {A: csv_with((0, {"attempt": ""}))},
)
case("csv-directory", SCORE, 1, "is a directory", "attempts.csv", make_dir=[A])
case("csv-unreadable", SCORE, 1, "permission denied", "attempts.csv", unreadable=[A])
case("csv-missing-file", SCORE, 1, "not found", "attempts.csv", remove=[A])
case("csv-header-only", SCORE, 3, "incomplete", "", {A: BASE_CSV.split("\n", 1)[0] + "\n"})

# --- cohort -----------------------------------------------------------------------------
C = "run/cohort.json"
case("cohort-empty-file", SCORE, 1, "file is empty", "cohort.json", {C: ""})
case("cohort-truncated-json", SCORE, 1, "invalid JSON", "line 1 column", {C: js(COHORT)[:40]})
case("cohort-list-not-object", SCORE, 1, "expected an object, found a list", "cohort.json", {C: js([COHORT])})
case(
    "cohort-missing-models",
    SCORE,
    1,
    "required field is missing",
    "field 'models'",
    {C: js({k: v for k, v in COHORT.items() if k != "models"})},
)
case(
    "cohort-no-models",
    SCORE,
    1,
    "must hold at least 1 entry, got 0",
    "field 'models'",
    {C: js({**COHORT, "models": {}})},
)
case(
    "cohort-unknown-key",
    SCORE,
    1,
    "unknown field",
    "field 'attempt_per_item'",
    {C: js({**COHORT, "models": {"m": {"attempts_per_task": 1, "attempt_per_item": {"t1": 2}}}})},
)
case(
    "cohort-zero-attempts",
    SCORE,
    1,
    "must be a whole number of at least 1, got 0",
    "field 'attempts_per_task'",
    {C: js({**COHORT, "models": {"m": {"attempts_per_task": 0}}})},
)
case(
    "cohort-string-attempts",
    SCORE,
    1,
    "must be a whole number",
    "field 'attempts_per_task'",
    {C: js({**COHORT, "models": {"m": {"attempts_per_task": "1"}}})},
)
case(
    "cohort-unknown-protocol",
    SCORE,
    1,
    "must be one of online, offline; got 'hybrid'",
    "field 'solver_protocol'",
    {C: js({**COHORT, "solver_protocol": "hybrid"})},
)
case(
    "cohort-unknown-suite",
    SCORE,
    1,
    "'full' is not a suite of the benchmark",
    "cohort.json: field 'suite'",
    {C: js({**COHORT, "suite": "full"})},
)
case("cohort-suite-option-disagrees", [*SCORE, "--suite", "full"], 1, "but --suite says 'full'", "cohort.json")
case(
    "cohort-per-item-unknown",
    SCORE,
    1,
    "is not in suite",
    "field 'c9'",
    {C: js({**COHORT, "models": {"m": {"attempts_per_task": 1, "attempts_per_item": {"c9": 2}}}})},
)
case("cohort-deep-nesting", SCORE, 1, "invalid JSON", "cohort.json", {C: "[" * 5000 + "]" * 5000})
case("cohort-nan", SCORE, 1, "invalid JSON", "line 1 column", {C: js(COHORT).replace('"offline"', "NaN")})
case("cohort-directory", SCORE, 1, "is a directory", "cohort.json", make_dir=[C])

# --- suite manifest ------------------------------------------------------------------------
S = "bench/suites/lite.json"
case(
    "suite-duplicate-item",
    SCORE,
    1,
    "duplicate item 't1'",
    "tasks[1]: field 'item'",
    {S: js({"suite": "lite", "tasks": [MINI_SUITE["tasks"][0]] + MINI_SUITE["tasks"]})},
)
case(
    "suite-track-without-task",
    SCORE,
    1,
    "has no task",
    "field 'tasks'",
    {S: js({"suite": "lite", "tasks": MINI_SUITE["tasks"][:-1]})},
)
case(
    "suite-unknown-track",
    SCORE,
    1,
    "must be one of theorem, solver, construction, conjecture; got 'proof'",
    "tasks.0: field 'track'",
    {S: js({"suite": "lite", "tasks": [{"item": "t1", "track": "proof"}] + MINI_SUITE["tasks"][1:]})},
)
case(
    "suite-tasks-object",
    SCORE,
    1,
    "must be a list, got an object",
    "field 'tasks'",
    {S: js({"suite": "lite", "tasks": {"t1": "theorem"}})},
)
case(
    "suite-no-tasks",
    SCORE,
    1,
    "must hold at least 1 entry, got 0",
    "field 'tasks'",
    {S: js({"suite": "lite", "tasks": []})},
)
case("suite-truncated-json", SCORE, 1, "invalid JSON", "line 1 column", {S: js(MINI_SUITE)[:-3]})

# --- reference (through the records cross-check, and through solver-score) -------------------
R = "bench/references/ref-test/lite.json"
REC = "run/records/m/s1/1.json"
bad = ref_with(
    tasks={
        **MINI_REFERENCE["tasks"],
        "s1": {"kind": "objective", "direction": "maximize", "instances": {"a": [10, 12, 14], "b": [100, None, None]}},
    }
)
case("reference-one-usable-value", SCORE, 1, "R4", "field 'b'", {R: js(bad), REC: js(GOOD_RECORDS)})
case(
    "reference-missing-absolute-floor",
    SCORE,
    1,
    "required field is missing",
    "scale_floor: field 'absolute'",
    {R: js(ref_with(scale_floor={"relative": 0.02})), REC: js(GOOD_RECORDS)},
)
case(
    "reference-missing-relative-floor",
    SOLVER,
    1,
    "required field is missing",
    "field 'relative'",
    {"reference.json": js(ref_with(scale_floor={"absolute": 1e-9})), "records.json": js(GOOD_RECORDS)},
)
case(
    "reference-overflow-value",
    SOLVER,
    1,
    "out of range",
    "tasks.s1.instances: field 'a[1]'",
    {"reference.json": js(MINI_REFERENCE).replace("[10, 12, 14]", "[10, 1e400, 14]"), "records.json": js(GOOD_RECORDS)},
)
case(
    "reference-value-beyond-1e150",
    SOLVER,
    1,
    "exceeds 1e150",
    "field 'a'",
    {"reference.json": js(MINI_REFERENCE).replace("[10, 12, 14]", "[1e151, 1e151]"), "records.json": js(GOOD_RECORDS)},
)
case(
    "reference-string-value",
    SOLVER,
    1,
    "must be a number",
    "field 'a[1]'",
    {"reference.json": js(MINI_REFERENCE).replace("[10, 12, 14]", '[10, "12", 14]'), "records.json": js(GOOD_RECORDS)},
)
case(
    "reference-unknown-kind",
    SOLVER,
    1,
    "must be one of objective, solve; got 'objectives'",
    "tasks.s1: field 'kind'",
    {"reference.json": js(MINI_REFERENCE).replace('"objective"', '"objectives"'), "records.json": js(GOOD_RECORDS)},
)
case(
    "reference-id-mismatch",
    SCORE,
    1,
    "looked up as 'ref-test'",
    "field 'reference_id'",
    {R: js(ref_with(reference_id="ref-other")), REC: js(GOOD_RECORDS)},
)
case(
    "reference-missing-for-records",
    SCORE,
    1,
    "not found",
    "references/ref-test/lite.json",
    {REC: js(GOOD_RECORDS)},
    remove=[R],
)
case(
    "reference-task-not-listed",
    SOLVER[:2] + ["s9"] + SOLVER[3:],
    2,  # a usage error of --task, as in `reference --task`
    "--task: reference 'ref-test' (suite lite) has no solver task 's9' (its tasks: s1, s2)",
    "",
    {"reference.json": js(MINI_REFERENCE), "records.json": js(GOOD_RECORDS)},
)

# --- instance records ---------------------------------------------------------------------------
case("records-instance-missing", SCORE, 1, "has no record: b", "field 'instance'", {REC: js(GOOD_RECORDS[:1])})
case(
    "records-infra-status",
    SCORE,
    1,
    "incomplete observation",
    "record 1 ('b'): field 'status'",
    {REC: js([GOOD_RECORDS[0], {"instance": "b", "status": "infra_error"}])},
)
case(
    "records-missing-status",
    SCORE,
    1,
    "incomplete observation",
    "record 1 ('b'): field 'status'",
    {REC: js([GOOD_RECORDS[0], {"instance": "b", "status": "missing"}])},
)
case(
    "records-duplicate-instance",
    SCORE,
    1,
    "duplicate instance",
    "record 2 ('a'): field 'instance'",
    {REC: js(GOOD_RECORDS + [GOOD_RECORDS[0]])},
)
case("records-object-not-list", SCORE, 1, "expected a JSON list", "1.json", {REC: js({"a": GOOD_RECORDS[0]})})
case(
    "records-overflow-A",
    SCORE,
    1,
    "out of range",
    "record 0 ('a'): field 'A'",
    {REC: js(GOOD_RECORDS).replace('"A": 12', '"A": 1e400')},
)
case(
    "records-unknown-status",
    SCORE,
    1,
    "must be one of ok, timeout, invalid, certificate_failed, crash, out_of_memory, missing, infra_error",
    "record 1 ('b'): field 'status'",
    {REC: js([GOOD_RECORDS[0], {"instance": "b", "status": "solved"}])},
)
case(
    "records-ok-without-A",
    SCORE,
    1,
    "finite value A",
    "record 0 ('a'): field 'A'",
    {REC: js([{"instance": "a", "status": "ok"}, GOOD_RECORDS[1]])},
)
case("records-truncated-json", SCORE, 1, "invalid JSON", "line 1 column", {REC: js(GOOD_RECORDS)[:-5]})
case(
    "records-cross-check-mismatch",
    SCORE,
    1,
    "differs from 0.25",
    "line 4: field 'score'",
    {REC: js(GOOD_RECORDS), A: csv_with((2, {"score": "0.3"}))},
)
case("records-cross-check-ok", SCORE, 0, "complete", "", {REC: js(GOOD_RECORDS)})
case(
    "records-solver-score-missing-instance",
    SOLVER,
    1,
    "has no record: b",
    "records.json",
    {"reference.json": js(MINI_REFERENCE), "records.json": js(GOOD_RECORDS[:1])},
)
case(
    "records-solver-score-directory",
    SOLVER,
    1,
    "is a directory",
    "records.json",
    {"reference.json": js(MINI_REFERENCE)},
    make_dir=["records.json"],
)

# --- tau2-bench results ---------------------------------------------------------------------------
T = "results.json"
case("tau2-empty-file", TAU2, 1, "file is empty", "results.json", {T: ""})
case("tau2-truncated-json", TAU2, 1, "invalid JSON", "line 1 column", {T: js({"simulations": [SIM]})[:30]})
case(
    "tau2-simulations-not-list",
    TAU2,
    1,
    "must be a list, got an object",
    "field 'simulations'",
    {T: js({"simulations": {"a": SIM}})},
)
case("tau2-missing-simulations", TAU2, 1, "required field is missing", "field 'simulations'", {T: js({"info": {}})})
case(
    "tau2-missing-termination",
    TAU2,
    1,
    "required field is missing",
    "simulation 0: field 'termination_reason'",
    {T: js({"simulations": [{k: v for k, v in SIM.items() if k != "termination_reason"}]})},
)
case(
    "tau2-string-reward",
    TAU2,
    1,
    "must be a number",
    "simulation 0, reward_info: field 'reward'",
    {T: js({"simulations": [{**SIM, "reward_info": {**SIM["reward_info"], "reward": "1.0"}}]})},
)
case(
    "tau2-nan-reward",
    TAU2,
    1,
    "invalid JSON",
    "line 1 column",
    {T: js({"simulations": [SIM]}).replace("1.0,", "NaN,", 1)},
)
case("tau2-top-level-string", TAU2, 1, "expected an object, found 'results'", "results.json", {T: js("results")})
case(
    "tau2-bad-num-trials",
    TAU2,
    1,
    "must be a whole number of at least 1, got 0",
    "field 'num_trials'",
    {T: js({"info": {"num_trials": 0}, "simulations": [SIM]})},
)
case(
    "tau2-wrong-encoding",
    TAU2,
    1,
    "invalid JSON",
    "line 1 column",
    {T: js({"simulations": [SIM]}).replace("a", "\xe9").encode("latin-1")},
)


def write_base(root: Path) -> None:
    base = root / "_base"
    if base.exists():
        shutil.rmtree(base)
    (base / "bench" / "suites").mkdir(parents=True)
    (base / "bench" / "references" / "ref-test").mkdir(parents=True)
    (base / "run").mkdir(parents=True)
    (base / "bench" / "suites" / "lite.json").write_text(js(MINI_SUITE))
    (base / "bench" / "references" / "ref-test" / "lite.json").write_text(js(MINI_REFERENCE))
    (base / "run" / "cohort.json").write_text(js(COHORT))
    (base / "run" / "attempts.csv").write_text(BASE_CSV)


def write_all(root: Path = HERE) -> int:
    write_base(root)
    for old in root.iterdir():
        if old.is_dir() and (old / "case.json").exists():
            shutil.rmtree(old)
    for name, c in CASES.items():
        folder = root / name
        folder.mkdir()
        (folder / "case.json").write_text(json.dumps(c["spec"], indent=1) + "\n")
        for rel, content in c["files"].items():
            path = folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return len(CASES)


# === tau2-bench: malformed values, overflow, bare lists and the dir format (docs/tau2.md and docs/safety.md) =============
# One block, kept apart from the cases above: each is a message and its place, never an internal error.


def sim_with(**reward_info) -> dict:
    return {**SIM, "reward_info": {**SIM["reward_info"], **reward_info}}


def tau2_run(*sims, **top) -> str:
    return js({"info": {"num_trials": 1}, "simulations": list(sims), **top})


DIR_RESULTS = {
    "info": {"num_trials": 1},
    "tasks": [],
    "simulation_index": [{"id": "s0", "task_id": "a", "trial": 0, "reward": 1.0, "termination_reason": "agent_stop"}],
}
DIR_SIM = {**SIM, "id": "s0"}
W0 = "simulation 0, reward_info"
case(
    "tau2-env-assertion-reward-string",
    TAU2,
    1,
    "must be a number, got 'x'",
    f"{W0}.env_assertions[0]: field 'reward'",
    {T: tau2_run(sim_with(env_assertions=[{"met": True, "reward": "x"}]))},
)
case(
    "tau2-env-assertion-reward-null",
    TAU2,
    1,
    "must be a number, got null",
    f"{W0}.env_assertions[0]: field 'reward'",
    {T: tau2_run(sim_with(env_assertions=[{"met": True, "reward": None}]))},
)
case(
    "tau2-action-reward-list",
    TAU2,
    1,
    "must be a number, got a list",
    f"{W0}.action_checks[0]: field 'action_reward'",
    {T: tau2_run(sim_with(action_checks=[{"action_match": True, "action_reward": [1]}]))},
)
case(
    "tau2-reward-out-of-range",
    TAU2,
    1,
    "number out of range",
    f"{W0}: field 'reward'",
    {T: tau2_run(SIM).replace('"reward": 1.0', '"reward": 1e999', 1)},
)
case(
    "tau2-rewards-overflow-the-mean",
    TAU2,
    1,
    "the mean reward would overflow: the value 1.5e+308 is too large",
    "simulation 1, reward_info: field 'reward'",
    {
        T: tau2_run(
            sim_with(reward=1e308, reward_basis=[]), {**sim_with(reward=1.5e308, reward_basis=[]), "task_id": "b"}
        )
    },
)
case(
    "tau2-costs-overflow-the-mean",
    TAU2,
    1,
    "the mean agent cost would overflow: the value 1.5e+308 is too large",
    "simulation 1: field 'agent_cost'",
    {T: tau2_run({**SIM, "agent_cost": 1e308}, {**SIM, "trial": 1, "agent_cost": 1.5e308})},
)
case(
    "tau2-components-overflow",
    TAU2,
    1,
    "multiply past the largest double",
    f"{W0}: field 'reward_basis'",
    {T: tau2_run(sim_with(reward_basis=["DB", "ACTION"], reward_breakdown={"DB": 1e200, "ACTION": 1e200}))},
)
case(
    "tau2-bare-list",
    TAU2,
    1,
    "'info', 'tasks' and 'simulations'",
    "expected an object, found a list",
    {T: js([SIM])},
)
case(
    "tau2-dir-missing-simulation-file",
    TAU2,
    1,
    "not found",
    "simulations/s0.json",
    {T: js(DIR_RESULTS), "simulations/other.txt": "not a simulation"},
)
case(
    "tau2-dir-unlisted-simulation-file",
    TAU2,
    1,
    "not listed in",
    "simulations/extra.json",
    {T: js(DIR_RESULTS), "simulations/s0.json": js(DIR_SIM), "simulations/extra.json": js({**DIR_SIM, "id": "extra"})},
)
case(
    "tau2-dir-trial-disagrees",
    TAU2,
    1,
    "simulation_index entry 0 says 0",
    "simulations/s0.json: field 'trial'",
    {T: js(DIR_RESULTS), "simulations/s0.json": js({**DIR_SIM, "trial": 3})},
)
case(
    "tau2-dir-id-leaves-the-folder",
    TAU2,
    1,
    "'../results': simulation id name holds '/'",
    "simulation_index entry 0: field 'id'",
    {
        T: js({**DIR_RESULTS, "simulation_index": [{**DIR_RESULTS["simulation_index"][0], "id": "../results"}]}),
        "simulations/s0.json": js(DIR_SIM),
    },
)
case("tau2-dir-accepted", TAU2, 0, "1 run over 1 task", "", {T: js(DIR_RESULTS), "simulations/s0.json": js(DIR_SIM)})


# === docs/safety.md: names, special files, outputs aimed at inputs, overflow, duplicate keys, terminal text ===
# Each class in one block; special files are made by the test in the case's temporary folder.

VALIDATE = ["validate", "{run}", "--benchmark", "{bench}"]
COMPARE = ["compare", "{run}", "--benchmark", "{bench}", "--models", "m", "m2", "--output", "{out}"]


def score_to(output: str) -> list[str]:
    return [*SCORE[:-1], output]


def solver_with(**changes) -> list[str]:
    argv = list(SOLVER)
    for option, value in changes.items():
        argv[argv.index(f"--{option}") + 1] = value
    return argv


def cohort_with(**changes) -> str:
    return js({**COHORT, **changes})


def models_csv(*models: str) -> str:
    return csv_text([r for m in models for r in full_rows(m)])


SOLVER_FILES = {"reference.json": js(MINI_REFERENCE), "records.json": js(GOOD_RECORDS)}

# --- names are data, never paths: rejected where they are read, naming file, line or key, field
for name, field, value, message in (
    ("csv-model-dotdot", "model", "../../x", "model name has an empty, '.' or '..' part"),
    ("csv-model-absolute", "model", "/etc/x", "model name is an absolute path"),
    ("csv-model-backslash", "model", "a\\b", "model name holds a backslash"),
    ("csv-model-trailing-slash", "model", "org/", "model name has an empty, '.' or '..' part"),
    ("csv-item-slash", "item", "s1/x", "item name holds '/'"),
    ("csv-attempt-dotdot", "attempt", "../../../../x", "attempt name holds '/'"),
    ("csv-attempt-dot", "attempt", ".", "attempt name is '.'"),
):
    case(name, SCORE, 1, message, f"line 4: field '{field}'", {A: csv_with((2, {field: value}))})
case(
    "csv-model-nested-accepted",
    SCORE,
    0,
    "complete",
    "",
    {
        A: models_csv("org/m"),
        C: cohort_with(models={"org/m": {"attempts_per_task": 1}}),
        "run/records/org/m/s1/1.json": js(GOOD_RECORDS),
    },
)
case(
    "cohort-model-empty",
    SCORE,
    1,
    "model name is empty",
    "cohort.json: models: model name",
    {C: cohort_with(models={"": {"attempts_per_task": 1}})},
)
case(
    "cohort-model-trailing-space",
    SCORE,
    1,
    "white space, which no attempts-table cell can match",
    "models: field 'm '",
    {C: cohort_with(models={"m ": {"attempts_per_task": 1}})},
)
case("cohort-suite-path", SCORE, 1, "suite name holds '/'", "field 'suite'", {C: cohort_with(suite="../../run/easy")})
case(
    "cohort-reference-id-path",
    SCORE,
    1,
    "reference id name holds '/'",
    "field 'solver_reference_id'",
    {C: cohort_with(solver_reference_id="../../run/fake")},
)
case(
    "cohort-reference-id-dotdot",
    SCORE,
    1,
    "reference id name is '..'",
    "field 'solver_reference_id'",
    {C: cohort_with(solver_reference_id="..")},
)
case(
    "cohort-per-item-slash",
    SCORE,
    1,
    "item name holds '/'",
    "models.m.attempts_per_item: field 'a/b'",
    {C: cohort_with(models={"m": {"attempts_per_task": 1, "attempts_per_item": {"a/b": 1}}})},
)
suite_item = json.loads(js(MINI_SUITE))
suite_item["tasks"][0]["item"] = "t1/x"
case("suite-item-slash", SCORE, 1, "item name holds '/'", "tasks[0]: field 'item'", {S: js(suite_item)})
case(
    "suite-name-dotdot",
    SCORE,
    1,
    "suite name is '..'",
    "lite.json: field 'suite'",
    {S: js({**MINI_SUITE, "suite": ".."})},
)
case(
    "reference-id-slash",
    SOLVER,
    1,
    "reference id name holds '/'",
    "field 'reference_id'",
    {**SOLVER_FILES, "reference.json": js(ref_with(reference_id="a/b"))},
)
case("reference-solver-task-dotdot", solver_with(task=".."), 2, "--task: item name is '..'", "", SOLVER_FILES)
case(
    "reference-solver-reference-id-slash",
    [*solver_with(reference="lite"), "--benchmark", "{bench}", "--reference-id", "../x"],
    2,
    "--reference-id: reference id name holds '/'",
    "",
    SOLVER_FILES,
)

# --- only regular files are read: a FIFO, a device, a folder or a link to nothing is rejected, never waited on
RECORDS_OK = {REC: js(GOOD_RECORDS)}
case("records-fifo", SCORE, 1, "is a FIFO, expected a records file", "records/m/s1/1.json", make_fifo=[REC])
case("records-directory", SCORE, 1, "is a directory, expected a records file", "records/m/s1/1.json", make_dir=[REC])
case("records-devnull", SCORE, 1, "outside the records folder", "records/m/s1/1.json", symlink={REC: "/dev/null"})
case("records-devzero", SCORE, 1, "outside the records folder", "records/m/s1/1.json", symlink={REC: "/dev/zero"})
case(
    "records-dangling-link",
    SCORE,
    1,
    "records file is a symbolic link to nothing",
    "records/m/s1/1.json",
    symlink={REC: "{run}/records/m/s1/nothing.json"},
)
case(
    "records-link-outside",
    SCORE,
    1,
    "outside the records folder",
    "records/m/s1/1.json",
    {"secret.json": js(GOOD_RECORDS)},
    symlink={REC: "{case}/secret.json"},
)
case(
    "records-folder-link-outside",
    SCORE,
    1,
    "outside the records folder",
    "records/m/s1/1.json",
    {"elsewhere/s1/1.json": js(GOOD_RECORDS), "run/records/.keep": ""},
    symlink={"run/records/m": "{case}/elsewhere"},
)
case(
    "records-link-inside-accepted",
    SCORE,
    0,
    "complete",
    "",
    {"run/records/m/s1/other.json": js(GOOD_RECORDS)},
    symlink={REC: "other.json"},
)
case("csv-fifo", SCORE, 1, "is a FIFO, expected an attempts table", "attempts.csv", make_fifo=[A])
case("cohort-fifo", SCORE, 1, "is a FIFO, expected a cohort file", "cohort.json", make_fifo=[C])
case("cohort-devzero", SCORE, 1, "is a device, expected a cohort file", "cohort.json", symlink={C: "/dev/zero"})
case("suite-fifo", SCORE, 1, "is a FIFO, expected a suite manifest", "lite.json", make_fifo=[S])
case(
    "reference-fifo", SCORE, 1, "is a FIFO, expected a reference file", "ref-test/lite.json", RECORDS_OK, make_fifo=[R]
)
case(
    "records-solver-fifo",
    SOLVER,
    1,
    "is a FIFO, expected a records file",
    "records.json",
    {"reference.json": js(MINI_REFERENCE)},
    make_fifo=["records.json"],
)
case(
    "reference-solver-device",
    SOLVER,
    1,
    "is a device, expected a reference file",
    "reference.json",
    {"records.json": js(GOOD_RECORDS)},
    symlink={"reference.json": "/dev/zero"},
)
case("tau2-fifo", TAU2, 1, "is a FIFO", "results.json", make_fifo=[T])
case("tau2-devzero", TAU2, 1, "is a device", "results.json", symlink={T: "/dev/zero"})

# --- an output is never an input, a device, a FIFO or a folder (exit 1, nothing touched)
IS_INPUT = "writing it would destroy the input"
case("output-is-attempts", score_to("{run}/attempts.csv"), 1, IS_INPUT, "attempts.csv", unchanged=[A])
case("output-is-attempts-relative", score_to("{run}/../run/attempts.csv"), 1, IS_INPUT, "attempts.csv", unchanged=[A])
case(
    "output-is-cohort-hardlink",
    score_to("{case}/out.json"),
    1,
    IS_INPUT,
    "out.json",
    unchanged=[C],
    hardlink={"out.json": C},
)
case(
    "output-is-cohort-symlink",
    score_to("{case}/out.json"),
    1,
    IS_INPUT,
    "out.json",
    unchanged=[C],
    symlink={"out.json": "{run}/cohort.json"},
)
case("output-is-suite", score_to("{bench}/suites/lite.json"), 1, IS_INPUT, "lite.json", unchanged=[S])
case(
    "output-is-reference",
    score_to("{bench}/references/ref-test/lite.json"),
    1,
    IS_INPUT,
    "ref-test/lite.json",
    RECORDS_OK,
    unchanged=[R],
)
case(
    "output-in-records",
    score_to("{run}/records/m/s1/9.json"),
    1,
    "output lies inside the input folder",
    "records/m/s1/9.json",
    RECORDS_OK,
)
case(
    "output-solver-is-reference",
    solver_with(output="{case}/reference.json"),
    1,
    IS_INPUT,
    "reference.json",
    SOLVER_FILES,
    unchanged=["reference.json"],
)
case(
    "output-solver-is-records",
    solver_with(output="{case}/records.json"),
    1,
    IS_INPUT,
    "records.json",
    SOLVER_FILES,
    unchanged=["records.json"],
)
case(
    "output-tau2-is-results",
    ["tau2", "{case}/results.json", "--output", "{case}/results.json"],
    1,
    IS_INPUT,
    "results.json",
    {T: tau2_run(SIM)},
    unchanged=[T],
)
case("output-compare-is-cohort", [*COMPARE[:-1], "{run}/cohort.json"], 1, IS_INPUT, "cohort.json", unchanged=[C])
case("output-devnull", score_to("{case}/null"), 1, "output is a device", "null", symlink={"null": "/dev/null"})
case("output-fifo", score_to("{case}/out"), 1, "output is a FIFO", "out", make_fifo=["out"])
case("output-directory", score_to("{case}/outdir"), 1, "output is a directory", "outdir", make_dir=["outdir"])
case("output-empty", score_to(""), 2, "an empty --output names no file", "")
case("output-solver-empty", solver_with(output=""), 2, "an empty --output names no file", "", SOLVER_FILES)
case("output-dash-accepted", score_to("-"), 0, "index.json written to standard output", "", stdout_json=True)

# --- numbers that would overflow a result: scale-free where the result is finite, else rejected naming the value
# 4e154 and 0: a deviation of 2e154 from the mean, whose square overflows unless taken scale-free
case(
    "csv-construction-4e154-accepted",
    SCORE,
    0,
    "complete",
    "",
    {A: csv_with((4, {"score": "4e154"}), (5, {"score": "0"}))},
)
case(
    "csv-construction-1e307-twice",
    SCORE,
    1,
    "the index would overflow: the value 1e+307 is too large",
    "line 6: field 'score'",
    {A: csv_with((4, {"score": "1e307"}), (5, {"score": "1e307"}))},
)
case(
    "csv-construction-interval-overflow",
    SCORE,
    1,
    "would overflow: the value 1.7e+308 is too large",
    "line 6: field 'score'",
    {A: csv_with((4, {"score": "1.7e308"}), (5, {"score": "1.7e308"}))},
)
for floor in (1e300, 1.5):
    case(
        f"reference-relative-floor-{floor:g}",
        SOLVER,
        1,
        f"relative scale floor {floor!r} is outside [0, 1]",
        "scale_floor: field 'relative'",
        {**SOLVER_FILES, "reference.json": js(ref_with(scale_floor={"relative": floor, "absolute": 1e-9}))},
    )


# --- a key twice in one JSON object is rejected, naming the key (README "Safety")
def twice(text: str, key_value: str) -> str:
    """``text`` (a JSON object) with ``key_value`` ('"key": value') written once more at its start."""
    return "{" + key_value + ", " + text[1:]


case(
    "cohort-duplicate-key",
    SCORE,
    1,
    "key 'suite' appears twice in one object",
    "field 'suite'",
    {C: twice(js(COHORT), '"suite": "full"')},
)
case(
    "suite-duplicate-key",
    SCORE,
    1,
    "key 'suite' appears twice in one object",
    "lite.json",
    {S: twice(js(MINI_SUITE), '"suite": "lite"')},
)
case(
    "records-duplicate-key",
    SCORE,
    1,
    "key 'A' appears twice in one object",
    "records/m/s1/1.json",
    {REC: '[{"instance": "a", "status": "ok", "A": 99, "A": 12}, {"instance": "b", "status": "timeout"}]'},
)
case(
    "reference-duplicate-key",
    SOLVER,
    1,
    "key 'reference_id' appears twice in one object",
    "reference.json",
    {**SOLVER_FILES, "reference.json": twice(js(MINI_REFERENCE), '"reference_id": "other"')},
)
case(
    "tau2-duplicate-key",
    TAU2,
    1,
    "key 'info' appears twice in one object",
    "results.json",
    {T: twice(tau2_run(SIM), '"info": {}')},
)

# --- every text printed to a terminal shows control characters escaped (the JSON output keeps them)
OSC = "m\x1b]2;pwned\x07"
OSC_SHOWN = "m\\x1b]2;pwned\\x07"
OSC_RUN = {A: models_csv(OSC), C: cohort_with(models={OSC: {"attempts_per_task": 1}})}
case("csv-model-osc-score", SCORE, 0, "complete", "", OSC_RUN, escaped=OSC_SHOWN)
case(
    "csv-model-osc-validate",
    VALIDATE,
    3,
    "1 of 1 planned attempts missing",
    "",
    {**OSC_RUN, A: csv_text(full_rows(OSC)[:-1])},
    escaped=f"incomplete: {OSC_SHOWN}: o1: 1 of 1 planned attempts missing",
    writes_nothing=True,
)
case(
    "csv-model-osc-compare",
    [*COMPARE[:5], OSC, "m2", *COMPARE[7:]],
    0,
    "paired difference",
    "",
    {A: models_csv(OSC, "m2"), C: cohort_with(models={OSC: {"attempts_per_task": 1}, "m2": {"attempts_per_task": 1}})},
    escaped=f"paired difference {OSC_SHOWN} - m2",
)
case(
    "csv-model-osc-rejected",
    SCORE,
    1,
    "white space",
    "models: field 'm\\x1b[2J '",
    {C: cohort_with(models={"m\x1b[2J ": {"attempts_per_task": 1}})},
)
case(
    "csv-model-osc-unknown-model",
    [*COMPARE[:5], OSC, "m", *COMPARE[7:]],
    1,
    "",
    "",
    {A: models_csv("m"), C: cohort_with(models={"m": {"attempts_per_task": 1}})},
    escaped=OSC_SHOWN,
)
case(
    "csv-model-bidi",
    SCORE,
    0,
    "complete",
    "",
    {A: models_csv("m\u202e"), C: cohort_with(models={"m\u202e": {"attempts_per_task": 1}})},
    escaped="m\\u202e",
)


if __name__ == "__main__":
    print(f"{write_all()} cases written to {HERE}")
