"""Files the dashboard writes from its threads (a cache file, the palette's figure): the process ends
between two such writes, never in the middle of one (tui/cli.py ``end_now``)."""

from __future__ import annotations

import threading

WRITING = threading.Lock()  # held while such a file is written
