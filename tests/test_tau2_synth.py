"""The tau2 benchmark's generated results files (tests/bench/tau2_synth.py) are shaped as tau2-bench
writes its own, and `tcsexam tau2` reads both of the shapes the benchmark times to the same result."""

from __future__ import annotations

import json

from tests.bench.tau2_synth import write_tau2


def test_the_tau2_bench_shape_is_what_json_dump_with_indent_2_writes(tmp_path):
    path = tmp_path / "run.json"
    write_tau2(path, 40)
    text = path.read_bytes()
    run = json.loads(text)
    assert text.isascii()
    assert text == json.dumps(run, indent=2).encode()  # tau2-bench: json.dump(..., indent=2)
    assert len(run["simulations"]) == 40 and len({s["id"] for s in run["simulations"]}) == 40
    assert len({s["task_id"] for s in run["simulations"]}) == 10  # 5 tasks, copied twice
    assert {t["id"] for t in run["tasks"]} == {s["task_id"] for s in run["simulations"]}


def test_both_shapes_hold_the_same_run_and_score_the_same(cli, tmp_path):
    indented, compact = tmp_path / "indented.json", tmp_path / "compact.json"
    write_tau2(indented, 43)
    write_tau2(compact, 43, compact=True)
    assert b"\n" not in compact.read_bytes().rstrip() and not compact.read_bytes().isascii()
    assert json.loads(indented.read_bytes()) == json.loads(compact.read_bytes())
    outputs = []
    for source in (indented, compact):
        out = tmp_path / f"{source.stem}-metrics.json"
        code, _, err = cli("tau2", str(source), "--output", str(out))
        assert code == 0, err
        document = json.loads(out.read_text())
        outputs.append({k: v for k, v in document.items() if k not in {"source", "provenance", "generated_at"}})
    assert outputs[0] == outputs[1]
