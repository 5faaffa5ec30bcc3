"""Every module of scoring/ and tui/ has its place in an import-linter layers contract (pyproject.toml), so
that `lint-imports` checks each one's imports; a new module left out of them fails here, and so does an
import circle in tui/, also inside one layer, and a module of tui/ over MAX_LINES lines
(docs/architecture.md#the-dashboard)."""

import ast
import pkgutil
import re
import tomllib
from pathlib import Path

import pytest

from tcsexam import scoring, tui

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 500  # of a module of tui/ (scoring/ is not held to it: scoring/formats/results.py has 521)


def named_in_layers() -> set[str]:
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    names = set()
    for contract in contracts:
        if contract["type"] == "layers":
            for layer in contract["layers"]:
                names.update(part.strip() for part in re.split("[|:]", layer))
    return names


def test_every_scoring_module_is_in_a_layers_contract():
    modules = {m.name for m in pkgutil.walk_packages(scoring.__path__, "tcsexam.scoring.") if not m.ispkg}
    packages = {m.name for m in pkgutil.walk_packages(scoring.__path__, "tcsexam.scoring.") if m.ispkg}
    named = named_in_layers()
    top_level = {m for m in modules if m.count(".") == 2}  # errors, vocab, __main__: the package contract
    assert not (modules - top_level) - named, "modules in no layers contract"
    assert not top_level - named and not packages - named, "top-level modules or subpackages in no layers contract"


def test_every_dashboard_module_and_package_is_in_a_layers_contract():
    top = {m.name for m in pkgutil.iter_modules(tui.__path__, "tcsexam.tui.")}
    assert len(top) > 15 and not top - named_in_layers()


def circles(imports: dict[str, set[str]]) -> list[set[str]]:
    """The import circles of a graph (module -> the modules it imports): its strongly connected parts of
    more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in imports.get(module, ()):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            part = set()
            while True:
                member = stack.pop()
                part.add(member)
                if member == module:
                    break
            if len(part) > 1:
                found.append(part)

    for module in sorted(imports):
        if module not in index:
            visit(module)
    return found


def test_circles_finds_a_circle_and_only_circles():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert circles(graph) == [{"a", "b", "c"}]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_the_dashboard_has_no_import_circle():
    """Imports under TYPE_CHECKING count: a circle of meaning is a circle, even if it never runs."""
    grimp = pytest.importorskip(
        "grimp",
        reason="grimp comes with import-linter in the dev extra (pip install -c constraints.txt -e '.[test,dev]')",
    )
    graph = grimp.build_graph("tcsexam", include_external_packages=False, cache_dir=None)
    dashboard = {m for m in graph.modules if m.startswith("tcsexam.tui.")}
    imports = {m: graph.find_modules_directly_imported_by(m) & dashboard for m in dashboard}
    assert circles(imports) == []


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


def longer_than(folder: Path, limit: int) -> list[str]:
    """The .py files under ``folder`` of more than ``limit`` lines, each with its count."""
    counts = {path: len(path.read_text(encoding="utf-8").splitlines()) for path in sorted(folder.rglob("*.py"))}
    return [f"{path.relative_to(folder)}: {n} lines" for path, n in counts.items() if n > limit]


def test_longer_than_counts_lines_in_subfolders(tmp_path):
    (tmp_path / "pane").mkdir()
    (tmp_path / "pane" / "long.py").write_text("x = 1\n" * 501)
    (tmp_path / "short.py").write_text("x = 1\n" * 500)
    assert longer_than(tmp_path, 500) == [f"{Path('pane', 'long.py')}: 501 lines"]


def test_no_module_of_the_dashboard_is_over_the_limit():
    """A module that grows past it is split by concern (docs/architecture.md#the-dashboard)."""
    assert len(list((ROOT / "tui").rglob("*.py"))) > 30
    assert longer_than(ROOT / "tui", MAX_LINES) == []


def spelled(source: str, names: set[str]) -> list[tuple[int, str]]:
    """(line, name) wherever one of ``names`` is a string constant in code: a string standing alone as a
    statement (a docstring) is prose, not code."""
    tree = ast.parse(source)
    prose = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    return [
        (n.lineno, n.value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and n.value in names and id(n) not in prose
    ]


def test_spelled_finds_a_name_in_code_and_not_in_prose():
    source = '"""attempts.csv"""\n# attempts.csv\npath = root / "attempts.csv"\n'
    assert spelled(source, {"attempts.csv"}) == [(3, "attempts.csv")]
    assert spelled('def f():\n    """Reads attempts.csv."""\n    return "attempts.csv"\n', {"attempts.csv"}) == [
        (3, "attempts.csv")
    ]


def test_a_run_folders_file_names_are_spelled_once():
    """attempts.csv and cohort.json are named once, by scoring/vocab.py; every module takes them from there."""
    names = {"attempts.csv", "cohort.json"}
    found = []
    for folder in ("scoring", "tui", "sample_runs"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            found += [(str(path.relative_to(ROOT)), name) for _, name in spelled(path.read_text("utf-8"), names)]
    assert sorted(found) == [("scoring/vocab.py", "attempts.csv"), ("scoring/vocab.py", "cohort.json")], found


def test_the_app_stylesheet_styles_no_panes_own_widgets():
    """A pane's rules are its widgets' DEFAULT_CSS, in its folder: no id or class of app.tcss is given by
    a module of tui/panes/ (docs/architecture.md#the-dashboard)."""
    sheet = re.sub(r"/\*.*?\*/", "", (ROOT / "tui" / "app.tcss").read_text(encoding="utf-8"), flags=re.S)
    selectors = set(re.findall(r"[#.]([A-Za-z][\w-]*)", re.sub(r"\{[^}]*\}", "", sheet)))
    assert {"help-body", "section-title", "gone"} <= selectors  # the sheet is read: what the dashboard shares
    given = set()
    for path in (ROOT / "tui" / "panes").rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        for names in re.findall(r"""\b(?:id|classes)=["']([^"']+)["']""", source):
            given.update(names.split())
    shared = {"section-title", "gone"}  # classes every pane uses, styled once
    assert (selectors & given) - shared == set()
