"""The scoring core never loads textual (checked in a fresh interpreter)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_scoring_does_not_import_textual():
    code = (
        "import sys, tcsexam.scoring, tcsexam.scoring.commands.main, tcsexam.scoring.pipeline.index, tcsexam.scoring.pipeline.aggregate, tcsexam.scoring.tau2.metrics, tcsexam.scoring.reports.compare; "
        "from tcsexam.scoring.commands.main import build_parser; build_parser(); "
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.') or m == 'tcsexam.tui' or m.startswith('tcsexam.tui.')); "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
