"""Every output of the command line on given runs, written to one folder, for a refactoring's check
that nothing a user sees changed (not part of the test suite: it records what the code does, it
judges nothing).

python -m tests.bench.golden_outputs OUT RUN_DIR [RUN_DIR ...]
    for each run: validate, score, compare (first two models), plan, table in every format, diff,
    verify, plot (every kind, SVG), init, fill (dry run and real), solver-score of one attempt; once: schema, tau2 on
    tests/data/tau2, demo (and --benchmark), reference, docs, and every command's --help. Each command's exit code, standard output and standard error go to
    OUT/<run>/<step>.{rc,out,err}, its files beside them. The ``generated_at`` stamp of a document
    and the temporary folders' names are blanked, so two checkouts' folders compare with ``diff -r``.

The command is ``tcsexam`` from the same environment as this interpreter.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tcsexam.scoring.reports.table import FORMATS

TCSEXAM = str(Path(sys.executable).with_name("tcsexam"))
COMMANDS = ("demo", "solver-score", "score", "validate", "tau2", "compare", "schema", "init", "fill")
COMMANDS += ("table", "diff", "verify", "plan", "tui", "reference", "docs", "plot")
STAMP = re.compile(rb'"generated_at":\s*"[^"]*"')


def blank(data: bytes, scratch: Path) -> bytes:
    data = STAMP.sub(b'"generated_at": "-"', data)
    return data.replace(str(scratch).encode(), b"<tmp>")


def step(out: Path, name: str, args: list[str], scratch: Path, cwd: Path) -> None:
    p = subprocess.run([TCSEXAM, *args], capture_output=True, cwd=cwd)
    (out / f"{name}.rc").write_text(f"{p.returncode}\n")
    (out / f"{name}.out").write_bytes(blank(p.stdout, scratch))
    (out / f"{name}.err").write_bytes(blank(p.stderr, scratch))


def keep(out: Path, name: str, src: Path, scratch: Path) -> None:
    if src.is_file():
        (out / name).write_bytes(blank(src.read_bytes(), scratch))
    elif src.is_dir():
        for f in sorted(src.rglob("*")):
            if f.is_file():
                target = out / name / f.relative_to(src)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(blank(f.read_bytes(), scratch))


def one_run(out: Path, run: Path, scratch: Path) -> None:
    work = scratch / run.name
    shutil.copytree(run, work)
    models = list(json.loads((work / "cohort.json").read_text())["models"])
    s = lambda name, *args: step(out, name, list(args), scratch, work)  # noqa: E731
    s("validate", "validate", ".")
    s("score", "score", ".", "--output", "index.json")
    keep(out, "index.json", work / "index.json", scratch)
    s("score-stdout", "score", ".", "--output", "-")
    s("compare", "compare", ".", "--models", models[0], models[1], "--output", "compare.json")
    keep(out, "compare.json", work / "compare.json", scratch)
    s("plan", "plan", ".", "--output", "plan.json")
    keep(out, "plan.json", work / "plan.json", scratch)
    s("plan-target", "plan", ".", "--target", "2", "--max-attempts", "6")
    for fmt in FORMATS:
        s(f"table-{fmt}", "table", "index.json", "--format", fmt)
    s("table-digits", "table", "index.json", "--digits", "4")
    s("verify", "verify", "index.json", ".")
    for kind in ("forest", "tracks", "passk"):  # SVG: text as text, no date, a fixed hash salt
        s(f"plot-{kind}", "plot", "index.json", "--kind", kind, "--output", f"plot-{kind}.svg")
        keep(out, f"plot-{kind}.svg", work / f"plot-{kind}.svg", scratch)
    s("plot-compare", "plot", "index.json", "--kind", "compare", "--models", models[0], models[1], "--output", "c.svg")
    keep(out, "plot-compare.svg", work / "c.svg", scratch)
    # a second index with one score changed, for diff
    rows = (work / "attempts.csv").read_text().splitlines(keepends=True)
    (work / "attempts2.csv").write_text("".join(rows[:-1]))
    s("score-less", "score", ".", "--attempts", "attempts2.csv", "--output", "index2.json")
    s("diff", "diff", "index.json", "index2.json", "--output", "diff.json")
    keep(out, "diff.json", work / "diff.json", scratch)
    # init into a fresh folder with the run's cohort; fill a copy of the run with its scores blanked
    fresh = scratch / f"{run.name}-init"
    fresh.mkdir()
    shutil.copy(work / "cohort.json", fresh / "cohort.json")
    step(out, "init", ["init", str(fresh)], scratch, scratch)
    keep(out, "init-attempts.csv", fresh / "attempts.csv", scratch)
    if (work / "records").is_dir():
        shutil.copytree(work / "records", fresh / "records")
        step(out, "fill-dry", ["fill", str(fresh), "--dry-run"], scratch, scratch)
        step(out, "fill", ["fill", str(fresh)], scratch, scratch)
        keep(out, "fill-attempts.csv", fresh / "attempts.csv", scratch)
        keep(out, "fill-solver-scores", fresh / "solver-scores", scratch)
        step(out, "fill-again", ["fill", str(fresh), "--overwrite"], scratch, scratch)
        first = sorted((work / "records").rglob("*.json"))[0]
        task = first.parent.name
        s(
            "solver-score",
            "solver-score",
            "--task",
            task,
            "--records",
            str(first),
            "--reference",
            "full",
            "--output",
            "ss.json",
        )
        keep(out, "solver-score.json", work / "ss.json", scratch)
    for name in ("compare.json", "plan.json", "diff.json", "ss.json"):
        (work / name).unlink(missing_ok=True)


def main() -> None:
    out = Path(sys.argv[1])
    runs = [Path(a).resolve() for a in sys.argv[2:]]
    out.mkdir(parents=True, exist_ok=False)
    here = Path(__file__).resolve().parents[2]
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        for run in runs:
            (out / run.name).mkdir()
            one_run(out / run.name, run, scratch)
        once = out / "once"
        once.mkdir()
        step(once, "schema-list", ["schema"], scratch, scratch)
        step(once, "schema-dir", ["schema", "--output", str(scratch / "schemas")], scratch, scratch)
        keep(once, "schemas", scratch / "schemas", scratch)
        for f in sorted((here / "tests/data/tau2").rglob("*.json")):
            step(once, f"tau2-{f.stem[:40]}", ["tau2", str(f), "--output", "-"], scratch, scratch)
        step(once, "demo", ["demo", str(scratch / "demo-copy")], scratch, scratch)
        step(once, "demo-benchmark", ["demo", str(scratch / "benchmark-copy"), "--benchmark"], scratch, scratch)
        copied = ["--benchmark", str(scratch / "benchmark-copy"), "--json"]  # its paths are blanked
        step(once, "reference-list", ["reference", *copied], scratch, scratch)
        step(once, "reference-tasks", ["reference", "sample-k3-synthetic", *copied], scratch, scratch)
        task = ["reference", "sample-k3-synthetic", "--suite", "lite", "--task", "maxcut-mqlib", *copied]
        step(once, "reference-task", task, scratch, scratch)
        step(once, "docs-topics", ["docs"], scratch, scratch)
        step(once, "docs-section", ["docs", "formats#the-benchmark-folder"], scratch, scratch)
        step(once, "help", ["--help"], scratch, scratch)
        for command in COMMANDS:
            step(once, f"help-{command}", [command, "--help"], scratch, scratch)
        keep(once, "demo-copy", scratch / "demo-copy", scratch)
        keep(once, "benchmark-copy", scratch / "benchmark-copy", scratch)


if __name__ == "__main__":
    main()
