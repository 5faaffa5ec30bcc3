"""pass^k of one task with many trials (tau2-bench runs, docs/tau2.md), timed.

    python -m tests.bench.passk_scale [--trials 2000 10000] [--reps 1]

Times ``task_pass_hat_k(n, c)`` and ``mean_pass_hat_k([(n, c)])`` (every k = 1..n) for one task
of n trials with c = 0.7 n successes, and for 100 tasks of n / 100 trials each; best of --reps.
"""

from __future__ import annotations

import argparse
import time

from tcsexam.scoring.stats.passk import mean_pass_hat_k, task_pass_hat_k


def best(fn, reps: int) -> float:
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, nargs="+", default=[2000, 10000])
    parser.add_argument("--reps", type=int, default=1)
    args = parser.parse_args()
    for n in args.trials:
        c = n * 7 // 10
        one = best(lambda n=n, c=c: (task_pass_hat_k(n, c), mean_pass_hat_k([(n, c)])), args.reps)
        per = max(n // 100, 1)
        many = best(lambda per=per: mean_pass_hat_k([(per, (i * 7) % (per + 1)) for i in range(100)]), args.reps)
        print(f"trials {n}: one task {one:.3f} s; 100 tasks of {per} trials {many:.3f} s")


if __name__ == "__main__":
    main()
