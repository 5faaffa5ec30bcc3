"""Every module of scoring/ has its place in an import-linter layers contract (pyproject.toml), so
that `lint-imports` checks each one's imports; a new module left out of them fails here."""

import pkgutil
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
    modules = {m.name for m in pkgutil.walk_packages(scoring.__path__, "scoring.") if not m.ispkg}
    packages = {m.name for m in pkgutil.walk_packages(scoring.__path__, "scoring.") if m.ispkg}
    named = named_in_layers()
    top_level = {m for m in modules if m.count(".") == 1}  # errors, vocab, __main__: the package contract
    assert not (modules - top_level) - named, "modules in no layers contract"
    assert not top_level - named and not packages - named, "top-level modules or subpackages in no layers contract"
