"""Settling the heap while the user pauses (tui/heap.py)."""

from __future__ import annotations

import gc
import weakref

import pytest

from tcsexam.tui.app import create_app
from tcsexam.tui.heap import LONG_PAUSE_S, PIECEMEAL_BEFORE_LONG, PIECEMEAL_MAX, SHORT_PAUSE_S, Heap, pause_action
from tests.support.dashboard import settle, wait_until


@pytest.fixture(autouse=True)
def unfrozen():
    yield
    gc.unfreeze()


@pytest.mark.parametrize(
    ("paused", "new_input", "piecemeal", "action"),
    [
        (SHORT_PAUSE_S - 0.05, True, 0, None),  # still typing
        (SHORT_PAUSE_S, True, 0, "recent"),
        (SHORT_PAUSE_S, True, PIECEMEAL_MAX - 1, "recent"),
        (SHORT_PAUSE_S, True, PIECEMEAL_MAX, "whole"),  # bounded, pause or not
        (SHORT_PAUSE_S, False, 3, None),  # nothing new since the last settle
        (LONG_PAUSE_S, False, PIECEMEAL_BEFORE_LONG - 1, None),
        (LONG_PAUSE_S, False, PIECEMEAL_BEFORE_LONG, "whole"),
        (LONG_PAUSE_S - 0.1, False, PIECEMEAL_BEFORE_LONG, None),
        (LONG_PAUSE_S, True, PIECEMEAL_BEFORE_LONG, "recent"),  # new input first: then the long pause
    ],
)
def test_pause_action(paused, new_input, piecemeal, action):
    assert pause_action(paused, new_input, piecemeal) == action


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def test_recent_freezes_survivors_and_whole_frees_what_died_frozen():
    heap = Heap()
    heap.settle()
    before = gc.get_freeze_count()
    a, b = Node(), Node()
    a.other, b.other = b, a  # a cycle: only the collector frees it
    gone = weakref.ref(a)
    heap.settle_recent()
    assert heap.piecemeal == 1
    assert gc.get_freeze_count() >= before + 2  # the survivors left out of later collections
    del a, b
    gc.collect()
    assert gone() is not None  # died frozen: a collection does not see it
    heap.settle()
    assert gone() is None and heap.piecemeal == 0


def test_on_pause_acts_and_counts():
    heap = Heap()
    assert not heap.on_pause(0.0, True)
    assert heap.on_pause(SHORT_PAUSE_S, True) and heap.piecemeal == 1
    heap.piecemeal = PIECEMEAL_BEFORE_LONG
    assert heap.on_pause(LONG_PAUSE_S, False) and heap.piecemeal == 0


async def test_the_dashboard_settles_once_after_input_and_a_pause():
    """Each step waits for the state it needs, never counts within a time window: on a busy machine a
    timer fires late, never early."""
    from textual import events

    app = create_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await wait_until(pilot, lambda: app._pause_timer is None, "the start's input settled")
        app.heap.piecemeal = 0
        await pilot.pause(SHORT_PAUSE_S + 0.2)
        assert app.heap.piecemeal == 0 and app._pause_timer is None  # no input: nothing to settle, nothing waits
        before = app._input_at
        app.post_message(events.Key("2", "2"))  # as the driver does, without the pilot's waits
        await wait_until(pilot, lambda: app._input_at > before, "the key counted as input")
        await wait_until(pilot, lambda: app.heap.piecemeal == 1, "a piecemeal settle after the pause")
        await wait_until(pilot, lambda: app._pause_timer is None, "nothing left to wait for")
        assert app.heap.piecemeal == 1  # no input since: nothing more until the long pause
        await pilot.pause(SHORT_PAUSE_S + 0.2)
        assert app.heap.piecemeal == 1 and app._pause_timer is None


async def test_a_long_pause_settles_the_whole_heap_after_piecemeal_ones():
    from textual import events

    app = create_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await wait_until(pilot, lambda: app._pause_timer is None, "the start's input settled")
        app.heap.piecemeal = PIECEMEAL_BEFORE_LONG - 1
        app.post_message(events.Key("2", "2"))
        await wait_until(pilot, lambda: app.heap.piecemeal != PIECEMEAL_BEFORE_LONG - 1, "this pause's settle")
        assert app.heap.piecemeal == PIECEMEAL_BEFORE_LONG  # this pause's piecemeal settle comes first
        await wait_until(pilot, lambda: app.heap.piecemeal == 0, "the whole heap settled after the long pause")
        await wait_until(pilot, lambda: app._pause_timer is None, "nothing left to wait for")
