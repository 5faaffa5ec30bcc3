"""What a user installing tcsexam meets: compatible ranges next to their own packages, exact
versions only in the constraints CI installs with, a licence, a citation, a README that is a front
door and points into docs/ (never to files outside the project)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def declared() -> list[Requirement]:
    project = PYPROJECT["project"]
    extras = [r for group in project["optional-dependencies"].values() for r in group]
    return [Requirement(r) for r in project["dependencies"] + extras]


def constraints() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"constraints.txt: {line!r} is not an exact pin"
            pins[name.lower().replace("_", "-")] = version
    return pins


def test_dependencies_are_ranges_not_pins():
    for req in declared():
        ops = {s.operator for s in req.specifier}
        assert "==" not in ops and "===" not in ops, f"{req}: declare a compatible range"
        assert any(op in (">=", "~=") for op in ops), f"{req}: needs a lower bound"


def test_textual_is_held_to_its_tested_minor():
    (textual,) = [r for r in declared() if r.name == "textual"]
    assert textual.specifier.contains("8.2.8") and not textual.specifier.contains("8.3.0")


def test_constraints_pin_every_declared_dependency_inside_its_range():
    pins = constraints()
    for req in declared():
        key = req.name.lower().replace("_", "-")
        assert key in pins, f"constraints.txt does not pin {req.name}"
        assert req.specifier.contains(pins[key], prereleases=True), f"{req.name}=={pins[key]} outside {req}"


def test_ci_installs_with_the_constraints():
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"pip install .*-c constraints\.txt", ci)


def test_licence_and_citation():
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert PYPROJECT["project"]["license"] == "MIT"
    citation = (ROOT / "CITATION.cff").read_text()
    assert "cff-version:" in citation and f"version: {PYPROJECT['project']['version']}" in citation


def test_readme_is_a_front_door_with_a_picture():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.encode()) <= 12 * 1024
    pictures = re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", readme)
    assert pictures and all((ROOT / p).is_file() for p in pictures)
    assert "pipx install" in readme


def test_readme_and_docs_link_only_to_files_that_exist_and_never_outside():
    for doc in [ROOT / "README.md", *(ROOT / "docs").glob("*.md")]:
        text = doc.read_text()
        assert "SPEC" not in text and "../shared" not in text, doc.name
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
            if "://" in target:
                continue
            assert (doc.parent / target).resolve().is_file(), f"{doc.name}: a link to {target} that is missing"


def test_docs_give_every_input_format_an_example():
    formats = (ROOT / "docs" / "formats.md").read_text()
    for heading, fence in [
        ("Suite manifest", "json"),
        ("Reference", "json"),
        ("Instance records", "json"),
        ("Attempts table", "csv"),
        ("Cohort", "json"),
        ("index.json", "json"),
        ("solver-score output", "json"),
    ]:
        section = formats.split(f"\n## {heading}\n", 1)
        assert len(section) == 2, f"docs/formats.md has no section '{heading}'"
        assert f"```{fence}\n" in section[1].split("\n## ", 1)[0], f"'{heading}' has no {fence} example"
