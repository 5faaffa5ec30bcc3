"""tui/textual_ext/workers.py: a finished thread worker of the dashboard holds nothing it was given.

Textual marks the running worker in the pool thread's own context and never clears the mark, so the
pool thread keeps the last worker it ran, and the worker's arguments, alive. ``released`` clears it.
The first test shows Textual's behaviour: when it fails, Textual clears the mark itself and
``released`` can go. The last checks that every thread worker of tui/ is wrapped."""

from __future__ import annotations

import ast
import gc
import weakref
from pathlib import Path

import pytest
from textual import work
from textual.app import App

from tcsexam.tui.textual_ext.workers import released
from tests.support.dashboard import settle

pytestmark = pytest.mark.dashboard

TUI = Path(__file__).resolve().parent.parent / "tui"


class Payload:
    """Something large a worker is given (a run)."""


class OneWorker(App):
    loading = False  # what tests/support/dashboard.py settle asks of an app

    def __init__(self, wrap: bool) -> None:
        super().__init__()
        self.wrap = wrap
        self.done = False

    def start(self, payload: Payload) -> None:
        def body(given: Payload) -> None:
            self.done = True

        task = released(body) if self.wrap else body
        self.run_worker(lambda: task(payload), thread=True)


@pytest.mark.parametrize(("wrap", "kept"), [(False, True), (True, False)], ids=["textual", "released"])
async def test_a_finished_thread_worker_keeps_what_it_was_given_unless_released(wrap, kept):
    app = OneWorker(wrap)
    async with app.run_test() as pilot:
        payload = Payload()
        ref = weakref.ref(payload)
        app.start(payload)
        del payload
        await settle(pilot)  # the worker finished, and the app has handled what it said
        assert app.done and len(app.workers) == 0
        gc.collect()
        assert (ref() is not None) is kept


class Decorated(App):
    loading = False

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[int] = []

    @work(thread=True)
    @released
    def count(self, payload: Payload) -> None:
        self.seen.append(1)


async def test_released_under_work_keeps_the_method_a_thread_worker_of_its_arguments():
    app = Decorated()
    async with app.run_test() as pilot:
        payload = Payload()
        ref = weakref.ref(payload)
        worker = app.count(payload)
        del payload
        del worker
        await settle(pilot)
        assert app.seen == [1] and len(app.workers) == 0
        gc.collect()
        assert ref() is None


def thread_workers(tree: ast.AST) -> list[tuple[int, bool]]:
    """(line, released) of each thread worker in a module: ``@work(thread=True, ...)`` followed by
    ``@released``, or ``run_worker(released(...), thread=True, ...)``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            names = node.decorator_list
            for i, d in enumerate(names):
                if isinstance(d, ast.Call) and getattr(d.func, "id", None) == "work" and is_thread(d):
                    after = names[i + 1 : i + 2]
                    found.append((d.lineno, bool(after) and getattr(after[0], "id", None) == "released"))
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "run_worker" and is_thread(node):
            first = node.args[0] if node.args else None
            wrapped = isinstance(first, ast.Call) and getattr(first.func, "id", None) == "released"
            found.append((node.lineno, wrapped))
    return found


def is_thread(call: ast.Call) -> bool:
    return any(k.arg == "thread" and isinstance(k.value, ast.Constant) and k.value.value is True for k in call.keywords)


def test_every_thread_worker_of_the_dashboard_is_released():
    workers = {
        (path.relative_to(TUI).as_posix(), line): ok
        for path in TUI.rglob("*.py")
        for line, ok in thread_workers(ast.parse(path.read_text()))
    }
    assert len(workers) >= 8  # the loads of a run and of a tau2 file, the panes' and the figure's workers
    assert [where for where, ok in workers.items() if not ok] == []


def test_the_check_finds_an_unreleased_thread_worker():
    source = """
class A:
    @work(thread=True, exclusive=True)
    def a(self): ...

    @work(thread=True)
    @released
    def b(self): ...

    def c(self):
        self.run_worker(partial(f, 1), thread=True)
        self.run_worker(released(partial(f, 1)), thread=True)
        self.run_worker(g(), exclusive=True)
"""
    assert sorted(thread_workers(ast.parse(source))) == [(3, False), (6, True), (11, False), (12, True)]
