"""The README's Workflow section runs as written: init -> results arrive -> fill -> score ->
table -> diff -> verify, on the bundled sample, in a fresh folder."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import jsonschema

ROOT = Path(__file__).resolve().parents[1]


def workflow_commands() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Workflow\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", section, flags=re.DOTALL)
    assert len(blocks) >= 2
    return "\n".join(blocks)


def test_the_readme_workflow_runs_as_written(tmp_path):
    (tmp_path / "sample_runs").symlink_to(ROOT / "sample_runs")
    script = f'tcsexam() {{ "{sys.executable}" -m scoring "$@"; echo "[exit $?]"; }}\n' + workflow_commands()
    proc = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False
    )
    out = proc.stdout
    assert "Traceback" not in proc.stderr and "error" not in proc.stderr.lower(), proc.stderr
    codes = [int(c) for c in re.findall(r"\[exit (\d+)\]", out)]
    # init 0, score 3 (nothing scored yet), fill --dry-run 0, fill 0, score 3 (cirrus-mini), table x3 0,
    # diff 0, verify 0, schema 0
    assert codes == [0, 3, 0, 0, 3, 0, 0, 0, 0, 0, 0], out
    assert "init: 101 planned attempts" in out and "would fill 25," in out and "filled 25, already filled 0" in out
    work = tmp_path / "work"
    assert (work / "run/solver-scores/atlas-70b/maxcut-mqlib/1.json").is_file()
    assert "\\toprule" in (work / "table.tex").read_text() and "<svg" in (work / "leaderboard.html").read_text()
    assert "verified:" in out
    index_schema = json.loads((work / "schemas" / "index.schema.json").read_text())
    jsonschema.Draft202012Validator(index_schema).validate(json.loads((work / "index.json").read_text()))
    # the filled run scores as the demo does: its solver scores came from the same records
    index = json.loads((work / "index.json").read_text())
    subprocess.run(
        [
            sys.executable,
            "-m",
            "scoring",
            "score",
            str(ROOT / "sample_runs/demo"),
            "--output",
            str(tmp_path / "demo.json"),
        ],
        capture_output=True,
        timeout=120,
        check=False,
    )
    demo = json.loads((tmp_path / "demo.json").read_text())
    for name, m in demo["models"].items():
        got = index["models"][name]
        assert got["status"] == m["status"]
        assert (got["index"] is None) == (m["index"] is None)
        if m["index"] is not None:
            assert abs(got["index"] - m["index"]) < 1e-9
