"""tau2-bench results: their files, pass^k and the reward-gate audit."""
