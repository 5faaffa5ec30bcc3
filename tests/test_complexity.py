"""No function of scoring/, tui/ or sample_runs/ above cyclomatic complexity 20, as radon counts it (docs/development.md#complexity).

radon comes with the dev extra, which the first suite of .ci/run installs; without it the tests skip
and say why.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

radon_complexity = pytest.importorskip(
    "radon.complexity",
    reason="radon is not installed: it comes with the dev extra (pip install -c constraints.txt -e '.[test,dev]')",
)
from radon.visitors import Class, Function  # noqa: E402

LIMIT = 20
ROOT = Path(__file__).resolve().parents[1]
# each folder, with the least it holds (so that a moved folder cannot pass by holding nothing)
FOLDERS = {"scoring": (40, 300), "tui": (30, 300), "sample_runs": (1, 8)}


def functions_in(blocks: Iterable[Function | Class]) -> Iterator[Function]:
    """Every function of radon's blocks: top-level functions, methods, those of inner classes and closures
    (radon counts a closure apart from the function around it)."""
    for b in blocks:
        if isinstance(b, Class):
            yield from functions_in(b.methods)
            yield from functions_in(b.inner_classes)
        else:
            yield b
            yield from functions_in(b.closures)


def complexities(source: str) -> list[tuple[str, int, int]]:
    """Each function of a module's source: its full name, its line and its cyclomatic complexity."""
    top = [b for b in radon_complexity.cc_visit(source) if isinstance(b, Class) or not b.is_method]
    return [(f.fullname, f.lineno, f.complexity) for f in functions_in(top)]


@pytest.mark.parametrize("folder", sorted(FOLDERS))
def test_no_function_above_the_limit(folder):
    modules = sorted((ROOT / folder).rglob("*.py"))
    over, counted = [], 0
    for path in modules:
        found = complexities(path.read_text(encoding="utf-8"))
        counted += len(found)
        rel = path.relative_to(ROOT)
        over += [f"{rel}:{line}: {name}: {cc}" for name, line, cc in found if cc > LIMIT]
    least_modules, least_functions = FOLDERS[folder]
    assert len(modules) > least_modules and counted > least_functions, (
        f"only {len(modules)} modules, {counted} functions found in {folder}/"
    )
    assert not over, f"above cyclomatic complexity {LIMIT}; split them by rule or step:\n" + "\n".join(over)


def branches(indent: int) -> str:
    """A function body of LIMIT ifs, indented by ``indent`` spaces: its complexity is LIMIT + 1."""
    body = "".join(f"if x == {i}:\n    return {i}\n" for i in range(LIMIT))
    return textwrap.indent(body, " " * indent)


def test_methods_closures_and_inner_classes_are_counted():
    source = "def outer(x):\n    def inner(x):\n" + branches(8) + "    return inner\n"
    source += "class A:\n    def method(self, x):\n" + branches(8)
    source += "class B:\n    class C:\n        def deep(self, x):\n" + branches(12)
    found = {name: cc for name, _, cc in complexities(source)}
    assert found == {"outer": 1, "inner": LIMIT + 1, "A.method": LIMIT + 1, "C.deep": LIMIT + 1}
