"""Keep the garbage collector's full passes off the dashboard's keypresses.

A loaded run leaves a large heap of long-lived objects (the scored document, the panes'
tables and their render caches). CPython's full collection walks every tracked object, and
it starts whenever enough new objects have survived since the last one, which a tab switch
(a footer composed anew, rows rendered) does every few presses, inside a frame (README,
"Dashboard latency", has the figures). After each accepted load the heap is collected once
and what survives is frozen (``gc.freeze``: left out of later collections); the next load
unfreezes it first, so a replaced state is collected then. Objects made afterwards are
collected as usual.
"""

from __future__ import annotations

import gc


def settle_heap() -> None:
    """Collect everything unreachable now, then leave the survivors out of later full collections."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
