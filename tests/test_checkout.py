"""The repository as a checkout without links installs (docs/development.md#one-import-name): no
symbolic link is tracked; every package folder of scoring/, tui/ and sample_runs/ is listed in
pyproject.toml; a clone made with links disabled builds and imports; the sdist builds the same wheel as
the repository; the installed modules are the checkout's files. Built once per module, without an index."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAPPED = {"scoring": "tcsexam.scoring", "tui": "tcsexam.tui", "sample_runs": "tcsexam.sample_runs"}


def _git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def _in_git() -> bool:
    return subprocess.run(["git", "rev-parse"], cwd=ROOT, capture_output=True).returncode == 0


needs_git = pytest.mark.skipif(not _in_git(), reason="not a git checkout")


def _pip_wheel(source: Path, out: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "--no-index"]
        + ["-w", str(out), str(source)],
        check=True,
        capture_output=True,
    )
    (built,) = out.glob("tcsexam-*.whl")
    return built


def _contents(wheel: Path) -> dict[str, str]:
    """Each file of the wheel but its RECORD, with the sha256 of its bytes."""
    with zipfile.ZipFile(wheel) as archive:
        return {
            name: hashlib.sha256(archive.read(name)).hexdigest()
            for name in archive.namelist()
            if not name.endswith(".dist-info/RECORD")
        }


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """A clone of the committed HEAD with links disabled, as on a system without them."""
    target = tmp_path_factory.mktemp("clone") / "tcsexam"
    subprocess.run(
        ["git", "-c", "core.symlinks=false", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(target)],
        check=True,
        capture_output=True,
    )
    return target


@pytest.fixture(scope="module")
def clone_wheel(clone, tmp_path_factory) -> Path:
    return _pip_wheel(clone, tmp_path_factory.mktemp("clone-dist"))


@needs_git
def test_no_symbolic_link_is_tracked() -> None:
    links = [line.split("\t", 1)[1] for line in _git("ls-files", "-s").splitlines() if line.startswith("120000 ")]
    assert links == []


def test_every_package_folder_is_listed() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    listed = set(config["packages"])
    for folder, name in MAPPED.items():
        assert config["package-dir"][name] == folder
        on_disk = {
            ".".join([name, *init.parent.relative_to(ROOT / folder).parts])
            for init in (ROOT / folder).rglob("__init__.py")
            if "__pycache__" not in init.parts
        }
        assert on_disk, folder
        assert on_disk - listed == set(), "packages missing from pyproject.toml's [tool.setuptools] packages"


def test_every_folder_of_shipped_data_with_a_package_name_is_listed() -> None:
    """A folder whose files are shipped as package data and whose name could be imported must be
    listed too: the build otherwise warns, once per folder, that it is absent from ``packages``."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    listed = set(config["packages"])
    for name, patterns in config["package-data"].items():
        base = ROOT / config["package-dir"].get(name, "")
        for pattern in patterns:
            for path in base.glob(pattern):
                parts = path.parent.relative_to(base).parts
                if parts and all(part.isidentifier() for part in parts):
                    assert ".".join([name, *parts]) in listed, (name, pattern)


@needs_git
def test_a_clone_without_links_installs_and_imports(clone, clone_wheel, tmp_path) -> None:
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target", str(target)]
        + [str(clone_wheel)],
        check=True,
        capture_output=True,
    )
    code = "import tcsexam, tcsexam.scoring, tcsexam.tui, tcsexam.sample_runs; print(tcsexam.scoring.__file__)"
    done = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(target)!r}); {code}"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
        text=True,
    )
    assert Path(done.stdout.strip()).is_relative_to(target)


@needs_git
def test_the_sdist_builds_the_same_wheel(clone, clone_wheel, tmp_path) -> None:
    sdists = tmp_path / "sdist"
    # pip builds no sdist: setuptools' backend, as a build frontend calls it
    subprocess.run(
        [sys.executable, "-c", "from setuptools import build_meta as b; b.build_sdist(__import__('sys').argv[1])"]
        + [str(sdists)],
        cwd=clone,
        check=True,
        capture_output=True,
    )
    (sdist,) = sdists.glob("tcsexam-*.tar.gz")
    with tarfile.open(sdist) as archive:
        archive.extractall(tmp_path / "unpacked", filter="data")
    (unpacked,) = (tmp_path / "unpacked").iterdir()
    from_sdist = _pip_wheel(unpacked, tmp_path / "sdist-dist")
    assert _contents(from_sdist) == _contents(clone_wheel)


@needs_git
def test_the_installed_modules_are_the_checkouts_files(clone, clone_wheel) -> None:
    """Every module of the committed checkout, and nothing else, is in the wheel with the same bytes."""
    tracked = set(_git("ls-files").splitlines())
    with zipfile.ZipFile(clone_wheel) as archive:
        installed = {name: archive.read(name) for name in archive.namelist() if name.endswith(".py")}
    expected = {
        f"tcsexam/{path.removeprefix('src/tcsexam/')}" if path.startswith("src/tcsexam/") else f"tcsexam/{path}"
        for path in tracked
        if path.endswith(".py")
        and (path.startswith("src/tcsexam/") or path.split("/", 1)[0] in MAPPED)
        and (clone / path).parent.joinpath("__init__.py").exists()
    }
    assert set(installed) == expected
    for name, data in installed.items():
        relative = name.removeprefix("tcsexam/")
        source = clone / ("src/tcsexam/" + relative if relative.split("/", 1)[0] not in MAPPED else relative)
        assert data == source.read_bytes(), name
