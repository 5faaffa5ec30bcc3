"""The README and docs/ as a user reads them: every command they show runs as written.

Convention (docs/development.md): a fenced block tagged ``sh`` is a sequence of commands that a
user types in an empty folder, in order, one file at a time; a trailing ``# exit N`` states the
command's exit code (0 otherwise). ``text`` blocks hold synopses and trees, never commands to run.
``tcsexam tui`` lines are run up to the moment the full-screen app would open (the same checks,
the same exit codes).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\S*)\s*$")
EXIT = re.compile(r"#\s*exit (\d+)\b")
SHELL_TAGS = {"bash", "console", "shell", "zsh", ""}

TUI_CHECK = """
import sys
from tcsexam.scoring.commands.main import run
from tcsexam.tui.cli import build_parser, check_run_dirs
parser = build_parser()
args = parser.parse_args(sys.argv[1:])


def check(a):
    check_run_dirs(a)  # what it rejects and the notice it prints; the paths it resolves are not needed here
    return 0


sys.exit(run(check, args, parser))
"""


def blocks(path: Path) -> list[tuple[str, int, list[str]]]:
    """Every fenced block of a Markdown file: (tag, line number of its first line, lines)."""
    out: list[tuple[str, int, list[str]]] = []
    tag, start, lines = None, 0, []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        fence = FENCE.match(line)
        if fence and tag is None:
            tag, start, lines = fence.group(1), number + 1, []
        elif line.startswith("```") and tag is not None:
            out.append((tag, start, lines))
            tag = None
        elif tag is not None:
            lines.append(line)
    assert tag is None, f"{path.name}: a fenced block is not closed"
    return out


def commands(path: Path) -> list[tuple[int, str, int]]:
    """The commands of a file's ``sh`` blocks: (line number, command, expected exit code);
    a line ending in a backslash continues on the next."""
    out = []
    for tag, start, lines in blocks(path):
        if tag != "sh":
            continue
        pending, first = "", 0
        for offset, line in enumerate(lines):
            if not pending:
                first = start + offset
            pending += line
            if pending.endswith("\\"):
                pending = pending[:-1] + " "
                continue
            if pending.strip() and not pending.lstrip().startswith("#"):
                expected = EXIT.search(pending)
                out.append((first, pending.strip(), int(expected.group(1)) if expected else 0))
            pending = ""
    return out


def name(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_the_documents_hold_commands_to_run():
    counts = {name(p): len(commands(p)) for p in DOCS}
    assert counts["README.md"] >= 10 and counts["docs/commands.md"] >= 15, counts


@pytest.mark.parametrize("path", DOCS, ids=name)
def test_no_command_hides_in_a_block_that_is_not_run(path):
    """A tcsexam command shown in a shell-like block that is not tagged sh would never be run."""
    for tag, start, lines in blocks(path):
        if tag in SHELL_TAGS:
            for offset, line in enumerate(lines):
                assert not re.match(r"\s*(\$\s*)?tcsexam\b", line), f"{name(path)}:{start + offset}: tag it sh"


def script_for(path: Path, work: Path) -> str:
    """One bash script running the file's commands in order, each checked against its exit code."""
    (work / ".tui_check.py").write_text(TUI_CHECK)
    lines = ["set -u", "failed=0"]
    for number, command, expected in commands(path):
        if re.match(r"tcsexam\s+tui\b", command):
            command = f'"{sys.executable}" .tui_check.py ' + command.split(None, 1)[1]
        shown = command.replace("'", "'\\''")
        lines += [
            f"echo '>>> {name(path)}:{number}: {shown}'",
            "{",
            command,
            "}",
            "rc=$?",
            f"if [ $rc -ne {expected} ]; then echo '!!! {name(path)}:{number}: exit '$rc', the text says {expected}';"
            " failed=1; fi",
        ]
    lines.append("exit $failed")
    return "\n".join(lines) + "\n"


def run_document(path: Path, work: Path) -> subprocess.CompletedProcess:
    """Run a document's commands in the empty folder ``work`` with the installed tcsexam first on PATH."""
    bin_dir = Path(sys.executable).parent
    assert (bin_dir / "tcsexam").is_file(), "the tcsexam command is not installed beside this Python"
    assert shutil.which("bash")
    env = {k: v for k, v in os.environ.items() if k != "TCSEXAM_BENCHMARK"}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    work.mkdir()
    return subprocess.run(
        ["bash", "-c", script_for(path, work)],
        cwd=work,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=600,
    )


def check_ran_as_written(result: subprocess.CompletedProcess) -> None:
    report = result.stdout[-6000:] + result.stderr[-4000:]
    assert result.returncode == 0, report
    assert "Traceback" not in result.stdout + result.stderr, report


COMMANDS_MD = ROOT / "docs" / "commands.md"


# docs/commands.md, the longest, is run once: by the paper workflow's test below, with the same checks
@pytest.mark.parametrize("path", [p for p in DOCS if commands(p) and p != COMMANDS_MD], ids=name)
def test_every_command_shown_runs_as_written(path, tmp_path):
    check_ran_as_written(run_document(path, tmp_path / "empty-folder"))


def test_the_paper_workflow_ends_with_the_demos_figures(tmp_path):
    """docs/commands.md's way from a skeleton to a paper table: every command runs as written, as
    for the other pages; fill gives the demo's solver scores (same records), so the index is the
    demo's; the tables, schemas and verification are there."""
    assert commands(COMMANDS_MD)
    work = tmp_path / "empty-folder"
    result = run_document(COMMANDS_MD, work)
    out = result.stdout
    check_ran_as_written(result)
    assert "init: 101 planned attempts" in out and "would fill 25," in out and "filled 25, already filled 0" in out
    assert f"work/index.json: verified against the run in {work / 'work/run'}: every input matches" in out
    assert (work / "work/run/solver-scores/atlas-70b/maxcut-mqlib/1.json").is_file()
    assert "\\toprule" in (work / "work/table.tex").read_text()
    assert "<svg" in (work / "work/leaderboard.html").read_text()
    index = json.loads((work / "work/index.json").read_text())
    jsonschema.Draft202012Validator(json.loads((work / "work/schemas/index.schema.json").read_text())).validate(index)
    from tcsexam.scoring.pipeline.benchmark import demo_run
    from tcsexam.scoring.pipeline.index import build_index
    from tcsexam.scoring.pipeline.run import load_run, resolve_run_paths

    demo = build_index(load_run(resolve_run_paths(str(demo_run()))))
    for model, m in demo["models"].items():
        got = index["models"][model]
        assert got["status"] == m["status"] and got["track_means"] == m["track_means"]
        assert got["index"] == m["index"]


def example(heading: str, n: int = 0, fence: str = "json") -> str:
    """The n-th ``fence`` block of the section ``heading`` of docs/formats.md."""
    text = (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(rf"```{fence}\n(.*?)```", section, flags=re.DOTALL)[n]


def test_the_format_examples_are_one_run_that_loads(tmp_path, cli):
    """docs/formats.md's suite, reference, records, attempts table and cohort, written as they stand,
    make a benchmark folder and a run that tcsexam accepts (incomplete: the example plans more)."""
    bench, run = tmp_path / "bench", tmp_path / "run"
    files = {
        bench / "suites" / "lite.json": example("Suite manifest"),
        bench / "references" / "paper-k3-fixed-260925" / "lite.json": example("Reference"),
        run / "records" / "my-model" / "maxcut-mqlib" / "1.json": example("Instance records", 0),
        run / "records" / "my-model" / "sat-race" / "1.json": example("Instance records", 1),
        run / "attempts.csv": example("Attempts table", 0, "csv"),
        run / "cohort.json": example("Cohort"),
    }
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    code, out, err = cli("validate", str(run), "--benchmark", str(bench))
    assert code == 3 and err == "", err  # every record and row accepted, the cross-check included
    assert "excluded: my-model: thm-pcp-gap attempt 1" in out and "provisional: my-model: con-cap-set" in out
    reference = str(bench / "references" / "paper-k3-fixed-260925" / "lite.json")
    code, out, err = cli(
        "solver-score", "--task", "maxcut-mqlib", "--reference", reference,
        "--records", str(run / "records" / "my-model" / "maxcut-mqlib" / "1.json"), "--output", "-",
    )  # fmt: skip
    scored = json.loads(out)
    assert code == 0 and scored["unscored_instances"] == ["G81"] and scored["n_scored"] == 2
