"""docs/tau2.md: tau2-bench results, checked against tau2-bench's own figures and hand counts."""

from __future__ import annotations

import itertools
import json
import os
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tcsexam.scoring.errors import InputError
from tcsexam.scoring.tau2.files import load_tau2_results, parse_results_json
from tcsexam.scoring.tau2.metrics import compute_tau2_metrics, tau2_metrics_for_file
from tests.support.runs import to_dir_format

DATA = Path(__file__).resolve().parent / "data" / "tau2"  # real tau2-bench runs (PROVENANCE.md there)
REAL_FILES = sorted(p.relative_to(DATA).as_posix() for p in DATA.rglob("*.json"))

# What tau2-bench's own metrics module computes (PROVENANCE.md): avg_reward, pass^k, avg_agent_cost.
PUBLISHED = {
    "gpt-4.1-2025-04-14_telecom_no-user_gpt-4.1-2025-04-14_4trials_5tasks.json": (0.8, [0.8, 0.8, 0.8, 0.8], 0.0471476),
    "2025-08-10T02-44-06_telecom_llm_agent_gpt-4o_user_simulator_gpt-4o.json": (0.7, [0.7], 0.10671312500000003),
    "qwen2.5-7b_airline_default_gpt-4.1-2025-04-14_1trials.json": (0.18, [0.18], 0.0),
}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_real_runs_match_tau2_bench(name):
    avg_reward, pass_k, cost = PUBLISHED[name]
    m = tau2_metrics_for_file(DATA / name)
    assert m["avg_reward"] == pytest.approx(avg_reward, abs=1e-12)
    assert [m["pass_hat_k"][str(k)] for k in range(1, len(pass_k) + 1)] == pytest.approx(pass_k, abs=1e-12)
    assert len(m["pass_hat_k"]) == len(pass_k)
    assert m["avg_agent_cost"] == pytest.approx(cost, abs=1e-7 if name.startswith("gpt-4.1") else 1e-12)


def pass_k_by_enumeration(outcomes: list[bool], k: int) -> Fraction:
    """Oracle: the share of k-subsets of the runs that are all successes."""
    subsets = list(itertools.combinations(outcomes, k))
    return Fraction(sum(all(s) for s in subsets), len(subsets))


def test_graded_file_success_counts_4_3_2_1_0():
    m = tau2_metrics_for_file(DATA / "derived" / "derived_A_graded_4x5.json")
    assert sorted(t["successes"] for t in m["tasks"]) == [0, 1, 2, 3, 4]
    for k in range(1, 5):
        expected = sum(pass_k_by_enumeration([True] * c + [False] * (4 - c), k) for c in range(5)) / 5
        assert m["pass_hat_k"][str(k)] == pytest.approx(float(expected), abs=1e-15)


def test_infrastructure_error_is_dropped_and_lowers_max_k():
    path = DATA / "derived" / "derived_B_infra_4x5.json"
    raw = json.loads(path.read_text())
    m = tau2_metrics_for_file(path)
    assert m["infra_errors"] == 1 and m["num_simulations"] == len(raw["simulations"]) - 1
    assert m["max_k"] == 3 and sorted(t["n"] for t in m["tasks"]) == [3, 4, 4, 4, 4]
    kept = [s for s in raw["simulations"] if s["termination_reason"] != "infrastructure_error"]
    assert m["avg_reward"] == pytest.approx(sum(s["reward_info"]["reward"] for s in kept) / len(kept), abs=1e-15)


def test_edge_file_tolerance_partial_rewards_and_null_reward_info():
    path = DATA / "derived" / "derived_C_edge_4x5.json"
    raw = json.loads(path.read_text())
    m = tau2_metrics_for_file(path)
    rewards = [s["reward_info"]["reward"] for s in raw["simulations"] if s["reward_info"] is not None]
    assert len(rewards) == 19  # the null reward_info run is left out of avg_reward ...
    assert m["avg_reward"] == pytest.approx(sum(rewards) / 19, abs=1e-15)
    by_task = {}
    for s in raw["simulations"]:
        r = s["reward_info"]["reward"] if s["reward_info"] else None
        # ... and is a failure for pass^k; 0.9999995 is within 1e-6 of 1, 0.999998 and 0.5 are not
        by_task.setdefault(s["task_id"], []).append(r is not None and abs(r - 1.0) <= 1e-6)
    for k in range(1, 5):
        expected = sum(pass_k_by_enumeration(v, k) for v in by_task.values()) / len(by_task)
        assert m["pass_hat_k"][str(k)] == pytest.approx(float(expected), abs=1e-15)
    assert any("0.9999995" in a["finding"] for a in m["audit"])
    assert any("0.5" in a["finding"] for a in m["audit"])


def sim(task, trial, reward, term="agent_stop", basis=("DB",), breakdown=None, db=None, cost=0.1):
    info = None
    if reward is not None:
        info = {
            "reward": reward,
            "reward_basis": list(basis) if basis is not None else None,
            "reward_breakdown": breakdown,
            "db_check": db,
        }
    return {"task_id": task, "trial": trial, "termination_reason": term, "agent_cost": cost, "reward_info": info}


def metrics(sims, num_trials=None):
    return compute_tau2_metrics(
        parse_results_json(json.dumps({"info": {"num_trials": num_trials}, "simulations": sims}).encode())
    )


def test_minimal_gate_and_counts():
    m = metrics(
        [
            sim("a", 0, 1.0, breakdown={"DB": 1.0}, db={"db_match": True, "db_reward": 1.0}),
            sim("a", 1, 0.0, breakdown={"DB": 0.0}, db={"db_match": False, "db_reward": 0.0}),
            sim("b", 0, 0.0, term="max_steps", basis=None),
            sim("b", 1, 1.0, breakdown={"DB": 1.0}),
        ],
        num_trials=2,
    )
    assert m["pass_hat_k"] == {"1": 0.5, "2": 0.0}
    assert m["db"] == {"match": 1, "mismatch": 1, "not_checked": 2}
    assert m["termination_reasons"] == {"agent_stop": 3, "max_steps": 1}
    assert m["audit"] == []


def test_max_k_is_capped_by_num_trials():
    m = metrics([sim("a", i, 1.0, breakdown={"DB": 1.0}) for i in range(3)], num_trials=2)
    assert m["max_k"] == 2 and list(m["pass_hat_k"]) == ["1", "2"]


def test_audit_flags_a_reward_the_gate_does_not_give():
    m = metrics(
        [
            sim("a", 0, 1.0, basis=("DB", "COMMUNICATE"), breakdown={"DB": 1.0, "COMMUNICATE": 0.0}),
            sim("a", 1, 1.0, term="too_many_errors", basis=None),
        ]
    )
    findings = [a["finding"] for a in m["audit"]]
    assert len(findings) == 2
    assert "DB × COMMUNICATE" in findings[0] and "too_many_errors" in findings[1]


def test_audit_flags_a_basis_component_not_evaluated():
    m = metrics([sim("a", 0, 1.0, basis=("DB", "ACTION"), breakdown={"DB": 1.0})])
    assert [a["finding"] for a in m["audit"]] == ["reward_basis names ACTION but it was not evaluated"]


def test_components_fall_back_to_raw_checks():
    s = sim("a", 0, 0.0, basis=("DB", "ENV_ASSERTION"), db={"db_match": True, "db_reward": 1.0})
    s["reward_info"]["env_assertions"] = [{"met": True, "reward": 1.0}, {"met": False, "reward": 0.0}]
    assert metrics([s])["audit"] == []


def test_infra_compared_as_plain_string_only():
    m = metrics(
        [
            sim("a", 0, None, term="infrastructure_error"),
            sim("a", 1, 1.0, breakdown={"DB": 1.0}),
            sim("b", 0, 0.0, term="Infrastructure_Error", basis=None),
        ]
    )
    assert m["infra_errors"] == 1 and m["num_simulations"] == 2


def test_a_bare_list_is_rejected_naming_what_a_results_file_holds(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps([sim("a", 0, 1.0, breakdown={"DB": 1.0}), sim("a", 1, 0.0, breakdown={"DB": 0.0})]))
    with pytest.raises(InputError) as info:
        load_tau2_results(path)
    text = str(info.value)
    assert str(path) in text and "found a list" in text and "'info', 'tasks' and 'simulations'" in text


@pytest.mark.parametrize(
    "text, fragment",
    [
        ('{"info": {}}', "simulations"),
        ('{"simulations": [{"task_id": "a"}]}', "termination_reason"),
        (
            '{"simulations": [{"task_id": "a", "termination_reason": "agent_stop", "reward_info": {"reward": "1"}}]}',
            "reward",
        ),
        ('{"simulations": [', "invalid JSON"),
        ('"x"', "expected an object, found 'x'"),
    ],
)
def test_malformed_results_are_rejected(tmp_path, text, fragment):
    path = tmp_path / "r.json"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        load_tau2_results(path)
    assert fragment in str(info.value)
    assert str(path) in str(info.value)


def test_cli_writes_json_and_rejects_bad_input(tmp_path, cli):
    good = tmp_path / "r.json"
    good.write_text(json.dumps({"info": {"num_trials": 1}, "simulations": [sim("a", 0, 1.0, breakdown={"DB": 1.0})]}))
    out = tmp_path / "o.json"
    code, _, _ = cli("tau2", str(good), "--output", str(out))
    assert code == 0 and json.loads(out.read_text())["pass_hat_k"] == {"1": 1.0}
    bad = tmp_path / "bad.json"
    bad.write_text('{"simulations": 3}')
    out2 = tmp_path / "o2.json"
    code, _, err = cli("tau2", str(bad), "--output", str(out2))
    assert code == 1 and "simulations" in err and not out2.exists()


def test_a_run_folder_holding_results_json(tmp_path):
    (tmp_path / "results.json").write_text(
        json.dumps({"info": {"num_trials": 1}, "simulations": [sim("a", 0, 1.0, breakdown={"DB": 1.0})]})
    )
    assert tau2_metrics_for_file(tmp_path)["pass_hat_k"] == {"1": 1.0}


# --- the dir format (tau2-bench 1.0: results.json + simulation_index + simulations/<id>.json) ---------


def without_source(m: dict) -> dict:
    return {k: v for k, v in m.items() if k != "source"}


@pytest.mark.parametrize("name", REAL_FILES)
def test_dir_format_gives_the_json_formats_output(name, tmp_path):
    expected = without_source(tau2_metrics_for_file(DATA / name))
    run = to_dir_format(DATA / name, tmp_path / "run")
    assert len(list((run / "simulations").iterdir())) == len(json.loads((DATA / name).read_text())["simulations"])
    assert without_source(tau2_metrics_for_file(run)) == expected  # the run folder
    assert without_source(tau2_metrics_for_file(run / "results.json")) == expected  # or its results.json


def test_cli_output_is_the_same_for_both_formats(tmp_path, cli):
    name = "derived/derived_C_edge_4x5.json"
    run = to_dir_format(DATA / name, tmp_path / "run")
    code_a, out_a, _ = cli("tau2", str(DATA / name), "--output", str(tmp_path / "a.json"))
    code_b, out_b, _ = cli("tau2", str(run), "--output", str(tmp_path / "b.json"))
    assert code_a == code_b == 0
    a, b = json.loads((tmp_path / "a.json").read_text()), json.loads((tmp_path / "b.json").read_text())
    assert a["source"] == str(DATA / name) and b["source"] == str(run)
    assert without_source(a) == without_source(b) and len(a["audit"]) == 9
    # the first line names the source, the last the file written
    assert out_a.splitlines()[1:-1] == out_b.splitlines()[1:-1]
    assert out_a.splitlines()[-1] == f"tau2 metrics written to {tmp_path / 'a.json'}"


def test_dir_format_keeps_the_index_order_not_the_file_names(tmp_path):
    sims = [
        dict(sim("b", 0, 1.0, breakdown={"DB": 1.0}), id="z"),
        dict(sim("a", 0, 0.0, breakdown={"DB": 0.0}), id="a"),
    ]
    src = tmp_path / "src.json"
    src.write_text(json.dumps({"info": {"num_trials": 1}, "simulations": sims}))
    m = tau2_metrics_for_file(to_dir_format(src, tmp_path / "run"))
    assert [t["task_id"] for t in m["tasks"]] == ["b", "a"]  # as in the json format, not sorted by file name


@pytest.fixture
def small_dir_run(tmp_path) -> Path:
    sims = [
        dict(sim("a", t, 1.0 if t else 0.0, breakdown={"DB": 1.0 if t else 0.0}), id=f"sim-a-{t}") for t in range(2)
    ]
    src = tmp_path / "src.json"
    src.write_text(json.dumps({"info": {"num_trials": 2}, "tasks": [], "simulations": sims}))
    return to_dir_format(src, tmp_path / "run")


def edit_index(run: Path, change) -> None:
    meta = json.loads((run / "results.json").read_text())
    change(meta)
    (run / "results.json").write_text(json.dumps(meta))


def rejection(path: Path) -> str:
    with pytest.raises(InputError) as info:
        tau2_metrics_for_file(path)
    return str(info.value)


def test_dir_format_a_listed_file_missing_is_rejected_naming_it(small_dir_run):
    (small_dir_run / "simulations" / "sim-a-1.json").unlink()
    text = rejection(small_dir_run)
    assert f"{small_dir_run / 'simulations' / 'sim-a-1.json'}: simulation file" in text and "not found" in text
    assert "simulation_index entry 1" in text


@pytest.mark.parametrize("field, value", [("id", "sim-other"), ("task_id", "b"), ("trial", 5), ("trial", None)])
def test_dir_format_a_file_disagreeing_with_its_index_entry_is_rejected(small_dir_run, field, value):
    path = small_dir_run / "simulations" / "sim-a-1.json"
    data = json.loads(path.read_text())
    data[field] = value
    path.write_text(json.dumps(data))
    text = rejection(small_dir_run)
    assert f"{path}: field '{field}': " in text and "simulation_index entry 1 says" in text


def test_dir_format_a_task_id_of_another_type_is_a_disagreement(small_dir_run):
    edit_index(small_dir_run, lambda m: m["simulation_index"][0].update(task_id=7))
    path = small_dir_run / "simulations" / "sim-a-0.json"
    data = json.loads(path.read_text())
    data["task_id"] = "7"
    path.write_text(json.dumps(data))
    assert f"{path}: field 'task_id': '7', but" in rejection(small_dir_run)


def test_dir_format_a_duplicate_id_is_rejected_naming_the_file(small_dir_run):
    edit_index(small_dir_run, lambda m: m["simulation_index"][1].update(id="sim-a-0"))
    (small_dir_run / "simulations" / "sim-a-1.json").unlink()
    text = rejection(small_dir_run)
    assert "simulation_index entry 1: field 'id': duplicate id 'sim-a-0' (also entry 0)" in text
    assert str(small_dir_run / "simulations" / "sim-a-0.json") in text


def test_dir_format_an_unlisted_file_is_rejected(small_dir_run):
    extra = small_dir_run / "simulations" / "left-over.json"
    extra.write_text(json.dumps(dict(sim("a", 2, 1.0), id="left-over")))
    (small_dir_run / "simulations" / "notes.txt").write_text("not a simulation")  # not .json: not ours
    text = rejection(small_dir_run / "results.json")
    assert f"{extra}: not listed in {small_dir_run / 'results.json'}'s simulation_index" in text
    assert "notes.txt" not in text


@pytest.mark.parametrize("bad_id", ["../../etc/passwd", "a/b", "..", "", "a\\b"])
def test_dir_format_an_id_that_would_leave_simulations_is_rejected(small_dir_run, bad_id):
    edit_index(small_dir_run, lambda m: m["simulation_index"][0].update(id=bad_id))
    text = rejection(small_dir_run)
    assert "simulation_index entry 0: field 'id':" in text and "simulation id name " in text  # the one name rule


def test_dir_format_without_an_index_or_with_two_copies_is_rejected(small_dir_run):
    edit_index(small_dir_run, lambda m: m.pop("simulation_index"))
    assert "field 'simulation_index': required field is missing" in rejection(small_dir_run)
    edit_index(small_dir_run, lambda m: m.update(simulation_index=[], simulations=[sim("a", 0, 1.0)]))
    assert "field 'simulations': holds 1 simulation, but a simulations/ folder is beside it" in rejection(small_dir_run)


def test_a_dir_results_json_without_its_folder_says_so(small_dir_run):
    import shutil

    shutil.rmtree(small_dir_run / "simulations")
    assert "has a simulation_index (the dir format) but no simulations/ folder" in rejection(small_dir_run)


def test_a_simulation_file_with_a_bad_value_is_named(small_dir_run):
    path = small_dir_run / "simulations" / "sim-a-0.json"
    data = json.loads(path.read_text())
    data["reward_info"]["reward"] = "1"
    path.write_text(json.dumps(data))
    assert f"{path}: reward_info: field 'reward': must be a number, got '1'" in rejection(small_dir_run)


def test_dir_format_index_reward_or_termination_disagreeing_is_an_audit_finding(small_dir_run):
    before = tau2_metrics_for_file(small_dir_run)
    assert before["audit"] == []
    edit_index(
        small_dir_run,
        lambda m: (
            m["simulation_index"][0].update(reward=1.0),
            m["simulation_index"][1].update(termination_reason="max_steps"),
        ),
    )
    after = tau2_metrics_for_file(small_dir_run)
    assert [a["finding"] for a in after["audit"]] == [
        "simulation_index entry 0 gives reward 1.0 but sim-a-0.json stores 0.0",
        "simulation_index entry 1 gives termination_reason 'max_steps' but sim-a-1.json has 'agent_stop'",
    ]
    assert [(a["task_id"], a["trial"], a["stored_reward"]) for a in after["audit"]] == [("a", 0, 0.0), ("a", 1, 1.0)]
    assert without_source(after) == {**without_source(before), "audit": after["audit"]}  # the metrics stay the files'


# --- malformed values (docs/safety.md): a message naming file, simulation and field, never an internal error ---


def one_sim_file(tmp_path, **reward_info) -> Path:
    s = sim(
        "a", 0, 1.0, basis=("DB", "ENV_ASSERTION", "ACTION"), breakdown=None, db={"db_match": True, "db_reward": 1.0}
    )
    s["reward_info"].update(reward_info)
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"info": {"num_trials": 1}, "simulations": [s]}))
    return path


@pytest.mark.parametrize(
    "change, where, message",
    [
        (
            {"env_assertions": [{"met": True, "reward": "x"}]},
            "simulation 0, reward_info.env_assertions[0]: field 'reward'",
            "must be a number, got 'x'",
        ),
        (
            {"env_assertions": [{"met": True, "reward": None}]},
            "simulation 0, reward_info.env_assertions[0]: field 'reward'",
            "must be a number, got null",
        ),
        (
            {"action_checks": [{"action_match": True, "action_reward": [1]}]},
            "simulation 0, reward_info.action_checks[0]: field 'action_reward'",
            "must be a number, got a list",
        ),
        ({"reward_basis": ["DB", 3]}, "simulation 0, reward_info: field 'reward_basis[1]'", "must be a string, got 3"),
        (
            {"reward_breakdown": {"DB": "1"}},
            "simulation 0, reward_info.reward_breakdown: field 'DB'",
            "must be a number, got '1'",
        ),
        (
            {"db_check": {"db_match": "yes"}},
            "simulation 0, reward_info.db_check: field 'db_match'",
            "must be true or false or null, got 'yes'",
        ),
        ({"reward": True}, "simulation 0, reward_info: field 'reward'", "must be a number, got true"),
    ],
)
def test_malformed_reward_values_are_named(tmp_path, change, where, message):
    path = one_sim_file(tmp_path, **change)
    assert f"{path}: {where}: {message}" in rejection(path)


def test_raw_checks_typed_still_give_the_gate(tmp_path):
    path = one_sim_file(
        tmp_path,
        env_assertions=[{"met": True}, {"met": True, "reward": 0.5}],
        action_checks=[{"action_match": True}],
        reward=0.5,
    )
    assert tau2_metrics_for_file(path)["audit"] == []  # 1 (db) × (1 × 0.5) × 1 = 0.5, the stored reward


def test_a_number_beyond_a_double_is_rejected_naming_it(tmp_path):
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"simulations": [sim("a", 0, 1.0)]}).replace('"reward": 1.0', '"reward": 1e999'))
    assert f"{path}: simulation 0, reward_info: field 'reward': number out of range" in rejection(path)


@pytest.mark.parametrize("field, what", [("reward", "the mean reward"), ("agent_cost", "the mean agent cost")])
def test_values_whose_mean_overflows_are_rejected_naming_the_value(tmp_path, field, what):
    # 1e308 + 1.5e308 exceeds the largest double (about 1.8e308); each value alone is a double
    sims = [sim("a", 0, 1.0, basis=None), sim("b", 0, 1.0, basis=None)]
    for s, value in zip(sims, (1e308, 1.5e308), strict=True):
        if field == "reward":
            s["reward_info"]["reward"] = value
        else:
            s["agent_cost"] = value
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"simulations": sims}))
    text = rejection(path)
    assert (
        f"{path}: simulation 1, reward_info: field 'reward'" in text
        if field == "reward"
        else f"{path}: simulation 1: field 'agent_cost'" in text
    )
    assert f"{what} would overflow: the value 1.5e+308 is too large" in text


def test_a_task_mean_that_overflows_is_rejected_though_the_run_mean_does_not(tmp_path):
    sims = [
        sim("a", 0, 1e308, basis=None),
        sim("a", 1, 1e308, basis=None),
        sim("b", 0, -1e308, basis=None),
        sim("b", 1, -1e308, basis=None),
    ]
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"simulations": sims}))
    assert "field 'reward': task 'a''s mean reward would overflow: the value 1e+308 is too large" in rejection(path)


def test_components_multiplying_past_a_double_are_rejected(tmp_path):
    path = one_sim_file(tmp_path, reward_basis=["DB", "ACTION"], reward_breakdown={"DB": 1e200, "ACTION": 1e200})
    assert (
        f"{path}: simulation 0, reward_info: field 'reward_basis': its components multiply past the largest "
        "double (DB 1e+200 × ACTION 1e+200)"
    ) in rejection(path)


def test_cli_rejects_malformed_values_without_an_internal_error(tmp_path, cli):
    path = one_sim_file(tmp_path, env_assertions=[{"met": True, "reward": None}])
    out = tmp_path / "o.json"
    code, _, err = cli("tau2", str(path), "--output", str(out))
    assert code == 1 and "internal error" not in err and "field 'reward'" in err and not out.exists()


async def test_the_dashboard_opens_a_dir_format_run(tmp_path):
    from textual.widgets import DataTable, Static

    from tcsexam.tui.app import create_app
    from tcsexam.tui.state import DashboardConfig
    from tests.support.dashboard import settle

    run = to_dir_format(DATA / "derived" / "derived_C_edge_4x5.json", tmp_path / "run")
    app = create_app(DashboardConfig(tau2=str(run)))
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        assert app.tau2_metrics is not None and app.tau2_metrics["source"] == str(run)
        assert app.query_one("#tau2-tasks", DataTable).row_count == 5
        assert app.query_one("#tau2-audit", DataTable).row_count == 9
        assert "avg_reward 0.605" in str(app.query_one("#tau2-summary", Static).render())


def test_a_fifo_in_place_of_a_simulation_file_is_rejected_not_waited_on(small_dir_run):
    path = small_dir_run / "simulations" / "sim-a-1.json"
    path.unlink()
    os.mkfifo(path)
    assert f"{path}: is a FIFO, expected a simulation file" in rejection(small_dir_run)


def test_a_folder_in_place_of_results_json_is_rejected(tmp_path):
    (tmp_path / "run" / "results.json").mkdir(parents=True)
    assert "is a directory, expected a tau2-bench results file" in rejection(tmp_path / "run")


def test_nesting_deeper_than_the_parser_allows_is_invalid_json(tmp_path):
    path = tmp_path / "results.json"
    # 100,000 levels: beyond the parser's depth on every supported Python (3.13's allows 5,000)
    path.write_text('{"simulations": [], "tasks": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert f"{path}: invalid JSON: nested too deeply" in rejection(path)


def test_text_that_is_not_utf8_is_rejected_even_in_fields_not_read(tmp_path):
    path = tmp_path / "results.json"
    path.write_bytes(
        b'{"simulations": [],\n "tasks": ["caf\xe9"]}'
    )  # ' "tasks": ["caf' is 15 characters: the bad byte is column 16
    assert f"{path}: line 2 column 16: invalid JSON: not valid UTF-8" in rejection(path)


MUTATIONS = st.lists(
    st.tuples(
        st.integers(0, 10_000),
        st.sampled_from(
            [b"", b"null", b"1e999", b'"x"', b"[1]", b"{}", b"-", b"1e308", b"\xff", b"[" * 3000, b'"id": "..", ']
        ),
    ),
    min_size=1,
    max_size=4,
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(which=st.sampled_from(["results.json", "simulations/sim-a-0.json"]), edits=MUTATIONS)
def test_fuzz_a_dir_format_run_only_input_errors_escape(small_dir_run, which, edits):
    path = small_dir_run / which
    original = path.read_bytes()
    data = original
    for at, token in edits:
        at %= len(data) + 1
        data = data[:at] + token + data[at + len(token) // 2 :]
    path.write_bytes(data)
    try:
        tau2_metrics_for_file(small_dir_run)
    except InputError as exc:
        assert exc.problems and all(str(small_dir_run) in p.file for p in exc.problems)
    finally:
        path.write_bytes(original)


@pytest.mark.parametrize(
    "reward_info",
    [
        {"env_assertions": [{"met": True, "reward": None}]},
        {"reward_basis": ["DB", "ACTION"], "reward_breakdown": {"DB": 1e200, "ACTION": 1e200}},
    ],
)
async def test_the_dashboard_shows_malformed_tau2_values_as_rejected(tmp_path, reward_info):
    from textual.widgets import DataTable, Static

    from tcsexam.tui.app import create_app
    from tcsexam.tui.state import DashboardConfig
    from tests.support.dashboard import settle

    path = one_sim_file(tmp_path, **reward_info)
    app = create_app(DashboardConfig(tau2=str(path)))
    async with app.run_test(size=(140, 45)) as pilot:
        await settle(pilot)
        text = str(app.main.query_one("#tau2-summary", Static).render())
        assert "tau2-bench results rejected" in text  # the tab says so; Diagnostics says where
        table = app.main.query_one("#diagnostics-tau2", DataTable)
        rows = [" ".join(map(str, table.get_row_at(i))) for i in range(table.row_count)]
        assert any("simulation 0, reward_info" in r for r in rows), rows
        assert app.tau2_metrics is None


def test_tau2_audit_rows_cut_the_task_id_to_leave_trial_and_rewards_on_screen():
    """At 80 columns the audit's task ids (70 characters) pushed trial, rewards and finding off screen: the
    id now takes the width the other columns leave (at least 12), keeping its start and end."""
    from tcsexam.scoring.tau2.metrics import audit_line
    from tcsexam.tui.panes.tau2.views import TAU2_AUDIT_COLUMNS, tau2_audit_rows

    finding = {
        "task_id": "[mobile_data_issue]data_mode_off|data_usage_exceeded[PERSONA:None]",
        "trial": 2,
        "stored_reward": 0.0,
        "derived_reward": 1.0,
        "finding": "stored reward 0.0 but the gate gives 1.0 from ENV_ASSERTION",
    }
    [row] = tau2_audit_rows([finding])
    assert row == [finding["task_id"], "2", "0.0000000", "1.0000000", finding["finding"]]  # no width: whole
    [row] = tau2_audit_rows([finding], width=150)
    others = sum(max(len(h), len(v)) + 2 for h, v in zip(TAU2_AUDIT_COLUMNS[1:], row[1:], strict=True))
    assert len(row[0]) == 150 - others - 4 and row[0].startswith("[mobile_data_issue]") and row[0].endswith("None]")
    [row] = tau2_audit_rows([finding], width=76)
    assert row[0] == "[mobil…None]"  # at least 12: the table then scrolls sideways for the finding
    assert audit_line(finding) == f"task {finding['task_id']} trial 2: {finding['finding']}"
    assert audit_line({**finding, "trial": None}) == f"task {finding['task_id']}: {finding['finding']}"


async def test_at_80_columns_the_audit_shows_trial_and_rewards_and_its_line_the_whole_finding():
    from textual.widgets import DataTable, Static

    from tcsexam.tui.app import create_app
    from tcsexam.tui.state import DashboardConfig
    from tests.support.dashboard import settle
    from tests.test_tui_no_cut_numbers import shown_cells

    app = create_app(DashboardConfig(tau2=str(DATA / "derived" / "derived_C_edge_4x5.json")))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        audit = app.query_one("#tau2-audit", DataTable)
        audit.focus()
        audit.move_cursor(row=1)
        audit.scroll_visible(animate=False)
        await settle(pilot)
        seen = [shown for whole, shown in shown_cells(audit)]
        assert "0.9999995" in [s.strip() for s in seen] and "1.0000000" in [s.strip() for s in seen]
        second = app.tau2_metrics["audit"][1]
        line = str(app.query_one("#tau2-audit-detail", Static).render())
        assert line == f"task {second['task_id']} trial {second['trial']}: {second['finding']}"


def test_the_summary_says_which_task_stops_pass_k(cli):
    """derived_B drops an infrastructure error: one task has 3 runs, the others 4, and pass^k stopped at
    k=3 without a word (a new user's review)."""
    code, out, _ = cli("tau2", str(DATA / "derived" / "derived_B_infra_4x5.json"))
    assert code == 0
    [line] = [line for line in out.splitlines() if line.startswith("pass^k")]
    assert line.endswith(
        "k=3: 0.2500  (k stops at 3: task [mobile_data_issue]airplane_mode_on|data_mode_off[PERSONA:None] "
        "has 3 runs, the others up to 4)"
    )
    code, out, _ = cli("tau2", str(DATA / "derived" / "derived_A_graded_4x5.json"))  # every task 4 runs
    [line] = [line for line in out.splitlines() if line.startswith("pass^k")]
    assert line.endswith("k=4: 0.2000")
