"""tui/textual_ext checks on import that the installed Textual is the minor release its overrides of
Textual's internals were written for; ``tcsexam tui`` turns a mismatch into one line and exit 1."""

from __future__ import annotations

import importlib
import importlib.metadata
import sys

import pytest
import textual

from tcsexam import tui
from tcsexam.tui.cli import main

EXPECTED = (
    'the dashboard was written for Textual 8.2: install the tested version with pip install "textual>=8.2.8,<8.3"'
)


@pytest.fixture
def fresh(monkeypatch):
    """Import tui.textual_ext anew (its check runs at import); the module as it was is put back after."""

    def load():
        return importlib.import_module("tcsexam.tui.textual_ext")

    importlib.import_module("tcsexam.tui.textual_ext")  # as installed: what is put back
    monkeypatch.delitem(sys.modules, "tcsexam.tui.textual_ext")
    monkeypatch.delattr(tui, "textual_ext", raising=False)
    return load


@pytest.mark.parametrize("found", ["9.0.0", "8.3.0", "8.1.4", "7.2.8", "8", "nightly"])
def test_another_minor_release_is_refused_naming_both_versions_and_the_fix(fresh, monkeypatch, found):
    monkeypatch.setattr(textual, "__version__", found, raising=False)
    with pytest.raises(ImportError) as refused:
        fresh()
    assert str(refused.value) == f"Textual {found} is installed, but {EXPECTED}"
    assert refused.value.name == "tcsexam.tui.textual_ext"


@pytest.mark.parametrize("found", ["8.2.8", "8.2.0", "8.2.99"])
def test_a_release_of_the_minor_it_was_written_for_is_accepted(fresh, monkeypatch, found):
    monkeypatch.setattr(textual, "__version__", found, raising=False)
    assert fresh().installed_version() == found


def test_without_textual_version_the_installed_distribution_is_asked(fresh, monkeypatch):
    def no_version(name: str):
        raise AttributeError(name)

    monkeypatch.setattr(textual, "__getattr__", no_version, raising=False)  # where textual makes __version__
    monkeypatch.delattr(textual, "__version__", raising=False)
    monkeypatch.setattr(importlib.metadata, "version", lambda dist: "9.1.0" if dist == "textual" else "0")
    with pytest.raises(ImportError, match=r"^Textual 9\.1\.0 is installed"):
        fresh()


def test_tcsexam_tui_says_it_in_one_line_and_exits_1(fresh, monkeypatch, capsys):
    monkeypatch.setattr(textual, "__version__", "9.0.0", raising=False)
    assert main(["tui"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"tcsexam tui: error: Textual 9.0.0 is installed, but {EXPECTED}\n"


def test_the_check_and_pyproject_name_the_same_textual():
    import tomllib
    from pathlib import Path

    from packaging.requirements import Requirement

    from tcsexam.tui.textual_ext import REQUIREMENT, WRITTEN_FOR

    pyproject = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    (declared,) = [r for r in pyproject["project"]["dependencies"] if Requirement(r).name == "textual"]
    assert declared == REQUIREMENT
    major, minor = WRITTEN_FOR
    spec = Requirement(declared).specifier
    assert spec.contains(f"{major}.{minor}.99") and not spec.contains(f"{major}.{minor + 1}.0")
