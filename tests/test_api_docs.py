"""docs/api.md's worked example runs as written and prints what the page shows under each block; it
passes ``mypy --strict`` against the installed package, as a lab's own code would; README's lines of
Python give what ``tcsexam score`` gives."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tcsexam.scoring.pipeline.benchmark import demo_run

ROOT = Path(__file__).resolve().parents[1]
MARK = "----- the output of block {} -----"


def fenced(path: Path) -> list[tuple[str, str]]:
    """Every fenced block of a page, in order: (tag, text)."""
    found = re.findall(r"^```(\w*)\n(.*?)^```$", path.read_text(encoding="utf-8"), flags=re.M | re.S)
    return [(tag, text) for tag, text in found]


def python_with_output(path: Path) -> list[tuple[str, str | None]]:
    """Each python block with the text block right after it (what it prints), None when none follows."""
    blocks = fenced(path)
    return [
        (text, blocks[n + 1][1] if n + 1 < len(blocks) and blocks[n + 1][0] == "text" else None)
        for n, (tag, text) in enumerate(blocks)
        if tag == "python"
    ]


def example_script(path: Path) -> str:
    """The page's python blocks as one script, each block's output after a marker line."""
    return "".join(f"print({MARK.format(n)!r})\n{code}" for n, (code, _) in enumerate(python_with_output(path)))


def test_the_api_page_runs_and_prints_what_it_shows(tmp_path):
    blocks = python_with_output(ROOT / "docs" / "api.md")
    assert len(blocks) >= 6 and all(shown is not None for _, shown in blocks)
    (tmp_path / "example.py").write_text(example_script(ROOT / "docs" / "api.md"))
    result = subprocess.run(
        [sys.executable, "example.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stderr[-3000:]
    printed = re.split(r"^----- the output of block \d+ -----\n", result.stdout, flags=re.M)[1:]
    assert [out for out in printed] == [shown for _, shown in blocks]


def test_the_api_page_passes_mypy_strict_against_the_installed_package(tmp_path):
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (it is in the dev extra)")
    (tmp_path / "lab.py").write_text(example_script(ROOT / "docs" / "api.md"))
    (tmp_path / "typo.py").write_text(
        "from tcsexam.api import demo_run, load_run, score\n"
        "value: str = score(load_run(demo_run())).document.models['m'].index\n"
    )
    command = [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir", str(tmp_path / "cache")]
    # one run over both files (the package is analysed once): each file's errors are named by its file
    result = subprocess.run(
        [*command, "lab.py", "typo.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False
    )
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    assert [line for line in errors if not line.startswith("typo.py:")] == [], result.stdout + result.stderr
    # the types come from the package: a float | None given to a str is an error in the lab's file
    assert result.returncode == 1 and len(errors) == 1, result.stdout + result.stderr
    assert errors[0].startswith("typo.py:2:") and 'expression has type "float | None"' in errors[0], result.stdout


def test_readmes_lines_of_python_give_what_tcsexam_score_gives(tmp_path, cli):
    """The README's lines run on the install the README describes (no extra): each model's status and
    index as index.json holds them."""
    readme = [code for code, _ in python_with_output(ROOT / "README.md")]
    assert len(readme) == 1 and len([line for line in readme[0].splitlines() if line.strip()]) == 4
    assert "to_frame" not in readme[0]  # data frames need an extra that the README's install leaves out
    shutil.copytree(demo_run(), tmp_path / "my-run")  # the README's run folder, scored as its text says
    assert cli("score", str(tmp_path / "my-run"), "--output", str(tmp_path / "index.json"))[0] == 3
    written = json.loads((tmp_path / "index.json").read_text())
    (tmp_path / "readme.py").write_text(readme[0])
    result = subprocess.run(
        [sys.executable, "readme.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.splitlines() == [f"{m} {r['status']} {r['index']}" for m, r in written["models"].items()]
