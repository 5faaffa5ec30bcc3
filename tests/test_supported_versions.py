"""What tcsexam says it supports is what CI tests (docs/development.md#set-up-and-test): the Pythons
of the classifiers and of requires-python are those .ci/run runs the suite on; CI installs the
newest releases of every extra."""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
CI = (ROOT / ".ci" / "run").read_text()
FIRST_PYTHON = "3.11"  # CI's first run: python3 of the CI machine (docs/development.md#set-up-and-test)


def ci_commands() -> list[list[str]]:
    """The commands of .ci/run, one per logical line (a trailing backslash continues it), as words."""
    text = re.sub(r"\\\n\s*", " ", CI)
    return [shlex.split(line, comments=True) for line in text.splitlines() if line.strip()]


def other_pythons() -> list[str]:
    (loop,) = re.findall(r"^for version in ([\d. ]+); do$", CI, flags=re.M)
    return loop.split()


def test_the_classifiers_name_the_pythons_ci_runs_and_no_other():
    named = sorted(
        c.rsplit(" :: ", 1)[1]
        for c in PROJECT["classifiers"]
        if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    )
    assert named == [FIRST_PYTHON, *other_pythons()] == ["3.11", "3.12", "3.13"]


def test_requires_python_starts_at_the_oldest_python_ci_runs():
    allowed = SpecifierSet(PROJECT["requires-python"])
    assert allowed.contains(f"{FIRST_PYTHON}.0") and not allowed.contains("3.10.13")
    assert all(allowed.contains(f"{v}.0") for v in other_pythons())


def test_each_other_python_runs_the_core_half_and_a_dashboard_smoke_test():
    body = CI.split("for version in", 1)[1].split("\ndone\n", 1)[0]
    runs = [shlex.split(line) for line in re.sub(r"\\\n\s*", " ", body).splitlines() if "-m pytest" in line]
    assert len(runs) == 2
    core, smoke = runs
    assert core[core.index("-m", core.index("pytest")) + 1] == "not dashboard"
    tests = [word for word in smoke if word.startswith("tests/")]
    assert tests and all((ROOT / t.split("::")[0]).is_file() for t in tests)
    assert "-c constraints.txt" in body


def test_the_newest_run_installs_every_extra_and_checks_the_requirements():
    extras = set(PROJECT["optional-dependencies"])
    unpinned = [
        c
        for c in ci_commands()
        if c[1:4] == ["-m", "pip", "install"] and "-c" not in c and any("." in w for w in c[4:])
    ]
    installed = [re.fullmatch(r"\.\[([\w,]+)\]", w) for c in unpinned for w in c if w.startswith(".[")]
    assert len(installed) == 1 and installed[0] is not None
    assert set(installed[0].group(1).split(",")) == extras
    assert any(c[1:] == ["-m", "pip", "check"] for c in ci_commands())


def test_every_dependency_has_an_upper_bound():
    """docs/development.md#set-up-and-test: CI's newest run installs the newest releases the ranges
    allow, so an upper bound is the newest release the suite has passed on; none means any future one."""
    project_requirements = PROJECT["dependencies"] + [r for g in PROJECT["optional-dependencies"].values() for r in g]
    unbounded = [
        r
        for r in map(Requirement, project_requirements)
        if not any(s.operator in ("<", "<=", "~=") for s in r.specifier)
    ]
    assert unbounded == []


def test_the_frames_extra_brings_pandas():
    (pandas,) = [Requirement(r) for r in PROJECT["optional-dependencies"]["frames"]]
    assert pandas.name == "pandas" and pandas.specifier.contains("3.1.1")
