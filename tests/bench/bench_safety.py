"""Cost of docs/safety.md checks, reported as ratios measured in one run.

    python -m tests.bench.bench_safety [--instances 1000000] [--files 10000] [--reps 3]

Measures (best of --reps, the cyclic collector off as in the one-shot commands):
  1. duplicate-key detection on a records file of N records: orjson.loads alone, against
     orjson.loads followed by the fast check (``find_duplicate_key`` given orjson.dumps of
     the parsed document), against orjson.loads followed by the stdlib parse with a pairs
     hook (the slow path), and the hook parse against a plain stdlib parse;
  2. reading M small records files: ``open().read()`` against ``read_regular_file``
     (stat, O_NONBLOCK open, fstat) and against ``RecordsRoot.read_path`` (plus the link check);
  3. ``check_name`` over the (model, item, attempt) names of M rows, against building the
     M path strings alone.
"""

from __future__ import annotations

import argparse
import gc
import json
import tempfile
import time
from pathlib import Path

import orjson

from tcsexam.scoring.formats.json import find_duplicate_key
from tcsexam.scoring.safety.files import RecordsRoot, read_regular_file
from tcsexam.scoring.safety.names import check_name


def best(fn, reps: int) -> float:
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--instances", type=int, default=1_000_000)
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args(argv)
    gc.disable()  # as the one-shot commands run (scoring/commands/)
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        records = [{"instance": f"i{k}", "status": "ok", "A": k * 0.5} for k in range(args.instances)]
        data = orjson.dumps(records)
        text = data.decode()
        t_orjson = best(lambda: orjson.loads(data), args.reps)
        parsed = orjson.loads(data)
        t_extra = best(lambda: find_duplicate_key(data, orjson.dumps(parsed)), args.reps)
        t_both = best(lambda: (orjson.loads(data), find_duplicate_key(text)), args.reps)
        t_fast = best(lambda: find_duplicate_key(data, orjson.dumps(orjson.loads(data))), args.reps)
        t_hook = best(lambda: find_duplicate_key(text), args.reps)
        t_stdlib = best(lambda: json.loads(text), args.reps)
        out.update(
            {
                "orjson_s": t_orjson,
                "orjson_plus_check_s": t_both,
                "orjson_plus_fast_check_s": t_fast,
                "orjson_plus_fast_check_over_orjson": t_fast / t_orjson,
                "fast_check_given_parsed_over_orjson": t_extra / t_orjson,
                "check_alone_s": t_hook,
                "stdlib_plain_s": t_stdlib,
                "orjson_plus_check_over_orjson": t_both / t_orjson,
                "check_over_stdlib_plain": t_hook / t_stdlib,
            }
        )

        root = Path(tmp) / "records"
        paths = []
        for k in range(args.files):
            folder = root / "org" / f"m{k % 30}" / f"s{k % 50}"
            folder.mkdir(parents=True, exist_ok=True)
            p = folder / f"{k}.json"
            p.write_bytes(b'[{"instance": "a", "status": "ok", "A": 1}]')
            paths.append(str(p))

        def plain():
            for p in paths:
                with open(p, "rb") as f:
                    f.read()

        t_plain = best(plain, args.reps)
        t_regular = best(lambda: [read_regular_file(p) for p in paths], args.reps)
        t_records = best(lambda: [r.read_path(p) for r in [RecordsRoot(root)] for p in paths], args.reps)
        out.update(
            {
                "open_read_s": t_plain,
                "read_regular_file_s": t_regular,
                "records_root_read_s": t_records,
                "read_regular_over_open": t_regular / t_plain,
                "read_records_over_open": t_records / t_plain,
            }
        )

        names = [(f"org/m{k % 30}", f"s{k % 50}", str(k)) for k in range(args.files)]
        t_join = best(lambda: [f"R/{m}/{i}/{a}.json" for m, i, a in names], args.reps)
        t_check = best(
            lambda: [(check_name(m, "model"), check_name(i, "item"), check_name(a, "attempt")) for m, i, a in names],
            args.reps,
        )
        out.update(
            {"names_check_s": t_check, "names_join_s": t_join, "names_check_per_row_us": t_check / args.files * 1e6}
        )
    for key, value in out.items():
        print(f"{key:32} {value:.4g}")


if __name__ == "__main__":
    main()
