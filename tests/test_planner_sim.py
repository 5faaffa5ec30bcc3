"""The planner simulation (tests/bench/planner_sim.py) on a small fixed-seed size: with many tasks per
track the plan's projection must match the realised half-width and the MDE must give about 80% power.
The full-size figures are in the README; these bounds are loose enough for 300 runs and still fail if
the projection drops the between-task part or the MDE uses one t quantile instead of two."""

from tests.bench.planner_sim import main


def test_planner_projection_matches_simulated_runs():
    report = main(["--tasks", "30", "--plans", "100", "--runs", "300", "--seed", "3"])
    for r in ("1", "10"):
        assert 0.9 < report["half_width"][r]["ratio"] < 1.1
        power = report["mde_power"][r]
        assert 0.7 < power["power_at_oracle"] < 0.9 and 0.7 < power["power_at_planned"] < 0.9
    assert set(report["half_width"]) == {"1", "2", "3", "5", "10"}
