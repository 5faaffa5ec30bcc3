"""Keep the garbage collector's full passes off the dashboard's keypresses.

A loaded run leaves a large heap of long-lived objects (the scored document, the panes'
tables and their render caches). CPython's full collection walks every tracked object that
is not frozen, and it starts whenever enough new objects have survived since the last one,
which every few tab switches do, inside a frame (40-60 ms on a 60-model run; README,
"Dashboard latency"). So the heap is settled at moments when nobody waits:

- after each accepted load, and after a long pause once the heap has been frozen piecemeal
  a while, the whole heap is collected and what survives frozen (``gc.freeze``: left out
  of later collections), unfrozen first so that whatever died since is collected
  (``Heap.settle``, 80-200 ms);
- at each short pause after some input, only what was made since the last freeze is
  collected and the survivors frozen (``Heap.settle_recent``, a few ms), so a full
  collection that still comes inside a frame walks only what the last keypresses made.

An object frozen while alive that then dies in a reference cycle waits for the next whole
settle (about a thousand objects per tab switch); ``pause_action`` bounds how many piecemeal
freezes come between two whole settles.

The C allocator's part is set once, when the console script opens the dashboard
(``map_large_blocks``).
"""

from __future__ import annotations

import gc
import os

SHORT_PAUSE_S = 0.3  # a pause after input this long: settle what it made
LONG_PAUSE_S = 2.0  # a pause this long: settle the whole heap, if frozen piecemeal a while
PIECEMEAL_BEFORE_LONG = 10  # piecemeal settles before a long pause settles the whole heap
PIECEMEAL_MAX = 50  # at most this many piecemeal settles between whole ones, pause or not
M_MMAP_THRESHOLD = -3  # glibc's malloc.h: mallopt's parameter for the size served by a mapping of its own
MMAP_THRESHOLD = 128 * 2**10  # glibc's own starting value, kept fixed


def pause_action(paused_s: float, input_since_settle: bool, piecemeal: int) -> str | None:
    """What a pause of ``paused_s`` seconds calls for: "whole", "recent" or nothing."""
    if input_since_settle and paused_s >= SHORT_PAUSE_S:
        return "whole" if piecemeal >= PIECEMEAL_MAX else "recent"
    if piecemeal >= PIECEMEAL_BEFORE_LONG and paused_s >= LONG_PAUSE_S:
        return "whole"
    return None


class Heap:
    """The dashboard's settling of its heap; ``piecemeal`` counts freezes since the last whole settle."""

    def __init__(self) -> None:
        self.piecemeal = 0

    def settle(self) -> None:
        """Collect everything unreachable now, then leave the survivors out of later full collections."""
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self.piecemeal = 0

    def settle_later(self) -> None:
        """Freeze the heap as it is, leaving its collection to the next long pause (``pause_action``): after
        the load of a run of many models the whole collection takes about half a second, which right
        after the run appears would hold the keys the user types then."""
        gc.freeze()
        self.piecemeal = max(self.piecemeal, PIECEMEAL_BEFORE_LONG)

    def settle_recent(self) -> None:
        """Collect what was made since the last freeze (the frozen part is not walked) and freeze what
        survives."""
        gc.collect()
        gc.freeze()
        self.piecemeal += 1

    def on_pause(self, paused_s: float, input_since_settle: bool) -> bool:
        """Settle as ``pause_action`` says; whether anything was done."""
        action = pause_action(paused_s, input_since_settle, self.piecemeal)
        if action == "whole":
            self.settle()
        elif action == "recent":
            self.settle_recent()
        return action is not None


def map_large_blocks() -> bool:
    """On glibc, have every block of MMAP_THRESHOLD bytes or more (numpy's arrays, a load's buffers) served
    by a mapping of its own, given back to the system when it is freed; whether that was set. glibc
    starts so, but each time such a block is freed it raises the threshold to that block's size, after
    which blocks of that size come from the heap, where what a reload frees stays resident
    (docs/performance.md#memory, docs/dashboard-large-runs.md#memory-over-reloads). Setting the
    threshold turns that raising off, for the whole process."""
    try:
        libc = os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (AttributeError, ValueError, OSError):
        libc = ""
    if not libc.startswith("glibc"):
        return False
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    return mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1
