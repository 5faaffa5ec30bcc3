"""Textual's private names (one leading underscore) are used only in tui/textual_ext/, and by the tests
only in tests/support/: the places to look at, and to test again, when Textual changes (tui/textual_ext's
__init__ checks the installed version).

Every module of tui/ outside tui/textual_ext/, and of tests/ outside tests/support/, is parsed and fails on:
- an attribute ``x._name`` (read, write or delete) or ``getattr(x, "_name")`` where ``_name`` is a
  private name of a Textual class, unless it is the project's own: ``self._name`` in a class of the
  project that defines ``_name`` itself (or through a base of the project) and none of its Textual bases does;
- an import of a private module or name of Textual (``textual.widgets._select``);
- a class that defines (a method, a class attribute, ``self._name = ...``) a private name of one of
  its Textual bases: an override of Textual's internals.

Textual's private names are those of the Textual classes the project's classes derive from, and of
DataTable, Widget, Select, App, Screen, Footer and ScrollView (the classes a widget is given to read):
their class attributes and the instance attributes their methods assign.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import sys
import textwrap
from functools import cache
from pathlib import Path
from types import ModuleType

from textual.app import App
from textual.screen import Screen
from textual.scroll_view import ScrollView
from textual.widget import Widget
from textual.widgets import DataTable, Footer, Select

REPO = Path(__file__).resolve().parent.parent
TUI = REPO / "tui"
QUARANTINE = TUI / "textual_ext"
READ_BY_WIDGETS = (DataTable, Widget, Select, App, Screen, Footer, ScrollView)
FRAMEWORK = ("textual",)


def is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def from_framework(cls: type) -> bool:
    return cls.__module__.split(".")[0] in FRAMEWORK


@cache
def defined_by(cls: type) -> frozenset[str]:
    """The private names ``cls`` defines in its source: methods and class attributes of its body, and
    attributes its methods assign (``self._name = ...``). A Textual class's names also count as they are
    at run time (some are made by its metaclass)."""
    names = {n for n in vars(cls) if is_private(n)} if from_framework(cls) else set()
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    except (OSError, TypeError, SyntaxError):  # no source (a C type, a generated class)
        return frozenset(names)
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        )
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    names.update(
        node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
    )
    return frozenset(n for n in names if is_private(n))


def framework_names(cls: type) -> frozenset[str]:
    """The private names of the Textual classes in ``cls``'s bases (``cls`` included if it is one)."""
    return frozenset().union(*(defined_by(k) for k in cls.__mro__ if from_framework(k)))


def own_names(cls: type) -> frozenset[str]:
    """The private names the project's classes among ``cls``'s bases define."""
    return frozenset().union(*(defined_by(k) for k in cls.__mro__ if not from_framework(k) and k is not object))


def project_classes(module: ModuleType) -> list[type]:
    found: list[type] = []
    todo = [v for v in vars(module).values() if inspect.isclass(v) and v.__module__ == module.__name__]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo += [v for v in vars(cls).values() if inspect.isclass(v) and v.__module__ == module.__name__]
    return found


def textual_private_names(modules: list[ModuleType]) -> frozenset[str]:
    classes = [
        *READ_BY_WIDGETS,
        *(k for m in modules for c in project_classes(m) for k in c.__mro__ if from_framework(k)),
    ]
    return frozenset().union(*(framework_names(c) for c in classes))


def violations(tree: ast.Module, namespace: dict, private: frozenset[str], filename: str) -> list[str]:
    """Where the module parsed as ``tree`` (whose names are ``namespace``) touches a name of ``private``."""
    found: list[str] = []

    def say(node: ast.AST, what: str) -> None:
        found.append(f"{filename}:{getattr(node, 'lineno', '?')}: {what}")

    def visit(node: ast.AST, cls: type | None) -> None:
        if isinstance(node, ast.ClassDef):
            inner = (namespace if cls is None else vars(cls)).get(node.name)
            inner = inner if inspect.isclass(inner) else None
            if inner is not None:
                textual = framework_names(inner)
                for name in sorted(defined_by(inner) & textual):
                    say(node, f"class {node.name} overrides Textual's private {name}")
            for child in [*node.decorator_list, *node.bases, *node.keywords]:
                visit(child, cls)
            for child in node.body:
                visit(child, inner)
            return
        if isinstance(node, ast.ImportFrom | ast.Import):
            modules = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            names = [a.name for a in node.names] if isinstance(node, ast.ImportFrom) else []
            for module in modules:
                if module.split(".")[0] in FRAMEWORK and any(map(is_private, [*module.split("."), *names])):
                    say(node, f"imports from Textual's private {module}")
        name, target = None, None
        if isinstance(node, ast.Attribute) and is_private(node.attr):
            name, target = node.attr, node.value
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in {"getattr", "setattr", "hasattr", "delattr"}
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and is_private(node.args[1].value)
        ):
            name, target = node.args[1].value, node.args[0]
        module = namespace.get(target.id) if isinstance(target, ast.Name) else None
        if isinstance(module, ModuleType) and not module.__name__.startswith(FRAMEWORK):
            name = None  # a name of another module (os._exit)
        if name is not None and name in private:
            on_self = isinstance(target, ast.Name) and target.id in {"self", "cls"}
            own = cls is not None and on_self and name in own_names(cls) and name not in framework_names(cls)
            if not own:
                say(node, f"uses Textual's private {name}")
        for child in ast.iter_child_nodes(node):
            visit(child, cls)

    visit(tree, None)
    return found


def modules_outside_quarantine() -> list[Path]:
    return sorted(p for p in TUI.rglob("*.py") if QUARANTINE not in p.parents)


def test_no_textual_private_name_outside_textual_ext():
    paths = modules_outside_quarantine()
    modules = [
        importlib.import_module(".".join(("tcsexam", *p.relative_to(REPO).with_suffix("").parts))) for p in paths
    ]
    private = textual_private_names(modules)
    found = [
        problem
        for path, module in zip(paths, modules, strict=True)
        for problem in violations(
            ast.parse(path.read_text(encoding="utf-8")), vars(module), private, str(path.relative_to(REPO))
        )
    ]
    assert found == [], "Textual's private names belong in tui/textual_ext/:\n" + "\n".join(found)


def collected_modules(paths: list[Path]) -> list[ModuleType]:
    """The test modules of ``paths``: those pytest imported when it collected them, the others imported now."""
    tests = REPO / "tests"
    collected = {
        Path(module.__file__): module
        for module in list(sys.modules.values())
        if isinstance(getattr(module, "__file__", None), str) and module.__file__.startswith(str(tests))
    }
    return [
        collected.get(p) or importlib.import_module(".".join(p.relative_to(REPO).with_suffix("").parts)) for p in paths
    ]


def test_no_test_uses_a_textual_private_name_outside_tests_support():
    """The tests read Textual's internals through tests/support/ only (tests/support/dashboard.py)."""
    tests = REPO / "tests"
    paths = sorted(
        p
        for p in tests.rglob("*.py")
        if tests / "support" not in p.parents and tests / "bad_inputs" not in p.parents and p != Path(__file__)
    )
    modules = collected_modules(paths)
    dashboard = [
        importlib.import_module(".".join(("tcsexam", *p.relative_to(REPO).with_suffix("").parts)))
        for p in modules_outside_quarantine()
    ]
    private = textual_private_names(dashboard + modules)
    found = [
        problem
        for path, module in zip(paths, modules, strict=True)
        for problem in violations(
            ast.parse(path.read_text(encoding="utf-8")), vars(module), private, str(path.relative_to(REPO))
        )
    ]
    assert len(paths) > 80 and found == [], "Textual's private names belong in tests/support/:\n" + "\n".join(found)


def test_the_check_finds_a_read_and_an_override_and_lets_the_projects_own_names_be(tmp_path, monkeypatch):
    """The checker itself: an import from a private module, a read of Select's options, an override of
    DataTable's cell rendering; and not a private attribute of a Textual subclass that Textual does not have."""
    source = textwrap.dedent(
        """
        from textual.widgets import DataTable, Select
        from textual.widgets._select import SelectOverlay

        class Table(DataTable):
            def __init__(self):
                super().__init__()
                self._mine = 0

            def _render_cell(self, *args):
                return super()._render_cell(*args)

            def mine(self):
                return self._mine

        def options(select: Select):
            return [v for _, v in select._options] + [getattr(select, "_options")]
        """
    )
    path = tmp_path / "snippet.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("snippet", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "snippet", module)  # where inspect finds a class's source file
    spec.loader.exec_module(module)
    private = textual_private_names([module])
    assert {"_options", "_render_cell", "_styles_cache"} <= private and "_mine" not in private
    found = violations(ast.parse(source), vars(module), private, "snippet")
    assert found == [
        "snippet:3: imports from Textual's private textual.widgets._select",
        "snippet:5: class Table overrides Textual's private _render_cell",
        "snippet:11: uses Textual's private _render_cell",
        "snippet:17: uses Textual's private _options",
        "snippet:17: uses Textual's private _options",
    ]
