"""The wheel as a user installs it (docs/development.md#one-import-name): one top-level package,
``tcsexam``, with the docs and the sample inside it, so that a lab's own ``scoring`` or ``tui`` package
first on PYTHONPATH changes nothing. Built from a copy of the checkout without an index, installed
without its dependencies into a fresh venv that borrows them from this one."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ["pyproject.toml", "README.md", "LICENSE", "src", "scoring", "tui", "sample_runs", "docs"]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    tree = tmp_path_factory.mktemp("checkout")
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(
                source, tree / name, symlinks=True, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
            )
        else:
            shutil.copy2(source, tree / name)
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-w",
            str(out),
            str(tree),
        ],
        check=True,
        capture_output=True,
    )
    (built,) = out.glob("tcsexam-*.whl")
    return built


@pytest.fixture(scope="module")
def fresh_venv(wheel, tmp_path_factory) -> Path:
    venv = tmp_path_factory.mktemp("fresh") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    # the dependencies from this environment's site-packages, added as a path: the .pth files there (an
    # editable install of tcsexam among them) are not read from a path added this way
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    (Path(site) / "borrowed.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv


def test_the_wheel_installs_one_top_level_package_with_its_docs_and_sample(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"tcsexam"}
    for needed in (
        "tcsexam/docs/formats.md",
        "tcsexam/sample_runs/demo/attempts.csv",
        "tcsexam/tui/app.tcss",
        "tcsexam/scoring/commands/help.toml",
        "tcsexam/py.typed",
        "tcsexam/api.py",  # the Python API (docs/api.md), typed for a lab's mypy --strict
        "tcsexam/scoring/api/__init__.py",
        "tcsexam/docs/api.md",
    ):
        assert needed in names, needed


def test_a_lab_package_named_scoring_or_tui_first_on_the_path_changes_nothing(fresh_venv, tmp_path):
    lab = tmp_path / "lab"
    for name in ("scoring", "tui"):
        (lab / name).mkdir(parents=True)
        (lab / name / "__init__.py").write_text(f"LAB = {name!r}\n")
    work = tmp_path / "empty"
    work.mkdir()
    env = {**os.environ, "PYTHONPATH": str(lab)}
    env.pop("TCSEXAM_BENCHMARK", None)

    def tcsexam(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(fresh_venv / "bin" / "tcsexam"), *args], cwd=work, env=env, capture_output=True, text=True, timeout=300
        )

    assert tcsexam("demo", "d").returncode == 0
    scored = tcsexam("score", "d", "--output", "index.json")
    assert scored.returncode == 3, scored.stderr  # scored; the demo run is incomplete by design
    assert '"index"' in (work / "index.json").read_text()
    docs = tcsexam("docs", "formats")
    assert docs.returncode == 0 and "attempts.csv" in docs.stdout
    where = subprocess.run(
        [
            str(fresh_venv / "bin" / "python"),
            "-c",
            "import scoring, tui, tcsexam.scoring, tcsexam.tui; print(scoring.LAB, tui.LAB, tcsexam.scoring.__file__)",
        ],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert where[:2] == ["scoring", "tui"] and where[2].startswith(str(fresh_venv))
    module = subprocess.run(
        [str(fresh_venv / "bin" / "python"), "-m", "tcsexam", "--version"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
    )
    assert module.returncode == 0 and module.stdout.startswith("tcsexam ")
