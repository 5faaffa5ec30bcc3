"""SPEC section 8: tau2-bench results, checked against tau2-bench's own figures and hand counts."""

from __future__ import annotations

import itertools
import json
from fractions import Fraction
from pathlib import Path

import pytest

from scoring.errors import InputError
from scoring.tau2 import load_tau2_results, tau2_metrics_for_file, compute_tau2_metrics

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "tau2"
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason="../shared/data/tau2 (real tau2-bench runs) is not beside the checkout")

# What tau2-bench's own metrics module computes (PROVENANCE.md): avg_reward, pass^k, avg_agent_cost.
PUBLISHED = {
    "gpt-4.1-2025-04-14_telecom_no-user_gpt-4.1-2025-04-14_4trials_5tasks.json": (0.8, [0.8, 0.8, 0.8, 0.8], 0.0471476),
    "2025-08-10T02-44-06_telecom_llm_agent_gpt-4o_user_simulator_gpt-4o.json": (0.7, [0.7], 0.10671312500000003),
    "qwen2.5-7b_airline_default_gpt-4.1-2025-04-14_1trials.json": (0.18, [0.18], 0.0),
}


@needs_data
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


@needs_data
def test_graded_file_success_counts_4_3_2_1_0():
    m = tau2_metrics_for_file(DATA / "derived" / "derived_A_graded_4x5.json")
    assert sorted(t["successes"] for t in m["tasks"]) == [0, 1, 2, 3, 4]
    for k in range(1, 5):
        expected = sum(pass_k_by_enumeration([True] * c + [False] * (4 - c), k) for c in range(5)) / 5
        assert m["pass_hat_k"][str(k)] == pytest.approx(float(expected), abs=1e-15)


@needs_data
def test_infrastructure_error_is_dropped_and_lowers_max_k():
    path = DATA / "derived" / "derived_B_infra_4x5.json"
    raw = json.loads(path.read_text())
    m = tau2_metrics_for_file(path)
    assert m["infra_errors"] == 1 and m["num_simulations"] == len(raw["simulations"]) - 1
    assert m["max_k"] == 3 and sorted(t["n"] for t in m["tasks"]) == [3, 4, 4, 4, 4]
    kept = [s for s in raw["simulations"] if s["termination_reason"] != "infrastructure_error"]
    assert m["avg_reward"] == pytest.approx(sum(s["reward_info"]["reward"] for s in kept) / len(kept), abs=1e-15)


@needs_data
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
        info = {"reward": reward, "reward_basis": list(basis) if basis is not None else None,
                "reward_breakdown": breakdown, "db_check": db}
    return {"task_id": task, "trial": trial, "termination_reason": term, "agent_cost": cost, "reward_info": info}


def metrics(sims, num_trials=None, tmp_path=None):
    from scoring.tau2 import Tau2Results
    return compute_tau2_metrics(Tau2Results.model_validate({"info": {"num_trials": num_trials}, "simulations": sims}))


def test_minimal_gate_and_counts():
    m = metrics([sim("a", 0, 1.0, breakdown={"DB": 1.0}, db={"db_match": True, "db_reward": 1.0}),
                 sim("a", 1, 0.0, breakdown={"DB": 0.0}, db={"db_match": False, "db_reward": 0.0}),
                 sim("b", 0, 0.0, term="max_steps", basis=None),
                 sim("b", 1, 1.0, breakdown={"DB": 1.0})], num_trials=2)
    assert m["pass_hat_k"] == {"1": 0.5, "2": 0.0}
    assert m["db"] == {"match": 1, "mismatch": 1, "not_checked": 2}
    assert m["termination_reasons"] == {"agent_stop": 3, "max_steps": 1}
    assert m["audit"] == []


def test_max_k_is_capped_by_num_trials():
    m = metrics([sim("a", i, 1.0, breakdown={"DB": 1.0}) for i in range(3)], num_trials=2)
    assert m["max_k"] == 2 and list(m["pass_hat_k"]) == ["1", "2"]


def test_audit_flags_a_reward_the_gate_does_not_give():
    m = metrics([sim("a", 0, 1.0, basis=("DB", "COMMUNICATE"), breakdown={"DB": 1.0, "COMMUNICATE": 0.0}),
                 sim("a", 1, 1.0, term="too_many_errors", basis=None)])
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
    m = metrics([sim("a", 0, None, term="infrastructure_error"), sim("a", 1, 1.0, breakdown={"DB": 1.0}),
                 sim("b", 0, 0.0, term="Infrastructure_Error", basis=None)])
    assert m["infra_errors"] == 1 and m["num_simulations"] == 2


def test_older_single_file_run_is_a_bare_list(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps([sim("a", 0, 1.0, breakdown={"DB": 1.0}), sim("a", 1, 0.0, breakdown={"DB": 0.0})]))
    m = tau2_metrics_for_file(path)
    assert m["pass_hat_k"] == {"1": 0.5, "2": 0.0}


@pytest.mark.parametrize("text, fragment", [
    ('{"info": {}}', "simulations"),
    ('{"simulations": [{"task_id": "a"}]}', "termination_reason"),
    ('{"simulations": [{"task_id": "a", "termination_reason": "agent_stop", "reward_info": {"reward": "1"}}]}', "reward"),
    ('{"simulations": [', "invalid JSON"),
    ('"x"', "expected a JSON object"),
])
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
    code, stdout, _ = cli("tau2", str(good), "--output", str(out))
    assert code == 0 and json.loads(out.read_text())["pass_hat_k"] == {"1": 1.0}
    bad = tmp_path / "bad.json"
    bad.write_text('{"simulations": 3}')
    out2 = tmp_path / "o2.json"
    code, _, err = cli("tau2", str(bad), "--output", str(out2))
    assert code == 1 and "simulations" in err and not out2.exists()


def test_a_run_folder_holding_results_json(tmp_path):
    (tmp_path / "results.json").write_text(json.dumps({"info": {"num_trials": 1},
                                                       "simulations": [sim("a", 0, 1.0, breakdown={"DB": 1.0})]}))
    assert tau2_metrics_for_file(tmp_path)["pass_hat_k"] == {"1": 1.0}
