"""Every module of scoring/ has its place in an import-linter layers contract (pyproject.toml), so
that `lint-imports` checks each one's imports; a new module left out of them fails here."""

import pkgutil
import re
import tomllib
from pathlib import Path

from tcsexam import scoring

ROOT = Path(__file__).resolve().parents[1]


def named_in_layers() -> set[str]:
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    names = set()
    for contract in contracts:
        if contract["type"] == "layers":
            for layer in contract["layers"]:
                names.update(part.strip() for part in layer.split("|"))
    return names


def test_every_scoring_module_is_in_a_layers_contract():
    modules = {m.name for m in pkgutil.walk_packages(scoring.__path__, "tcsexam.scoring.") if not m.ispkg}
    packages = {m.name for m in pkgutil.walk_packages(scoring.__path__, "tcsexam.scoring.") if m.ispkg}
    named = named_in_layers()
    top_level = {m for m in modules if m.count(".") == 2}  # errors, vocab, __main__: the package contract
    assert not (modules - top_level) - named, "modules in no layers contract"
    assert not top_level - named and not packages - named, "top-level modules or subpackages in no layers contract"


def test_textual_ext_is_forbidden_every_other_module_of_the_dashboard():
    from tcsexam import tui

    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    (quarantine,) = [c for c in contracts if c.get("source_modules") == ["tcsexam.tui.textual_ext"]]
    others = {m.name for m in pkgutil.iter_modules(tui.__path__, "tcsexam.tui.")} - {"tcsexam.tui.textual_ext"}
    assert len(others) > 15 and others == set(quarantine["forbidden_modules"]) - {"tcsexam.scoring"}


def test_code_and_tests_import_the_one_installed_name():
    """``tcsexam.scoring``, never ``scoring``: a bare import would load a second copy of the package from
    the checkout, or a lab's own ``scoring`` (docs/development.md#one-import-name)."""
    # a statement, or one in the code a test hands to ``python -c`` (after a quote or a ';')
    bare = re.compile(r"(?:^\s*|[\"';]\s*)(?:from|import)\s+(?:scoring|tui|sample_runs)\b", re.M)
    found = [
        f"{path.relative_to(ROOT)}: {match.group(0).strip()}"
        for folder in ("scoring", "tui", "sample_runs", "tests")
        for path in (ROOT / folder).rglob("*.py")
        if path.name != "test_wheel.py"  # imports a lab's own scoring and tui on purpose
        for match in bare.finditer(path.read_text(encoding="utf-8"))
    ]
    assert not found
