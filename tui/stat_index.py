"""The stat index of a records folder, as git's index keeps one: each file's size, mtime, ctime, inode
and device with the sha256 they had, so that a reopen takes a file's sha256 again only when its stat
changed (docs/decisions.md#the-dashboard). ``tui/cache.py`` stores the index beside the scored runs."""

from __future__ import annotations

import hashlib
import os
import stat
import time
from pathlib import Path

import msgspec

STATS = ".tcsexam-stats"  # a records folder's stat index (``StatIndex``)
# A stored sha256 is trusted only for a file whose ctime was this long before the hash was taken: a
# file written in the same tick of a coarse clock as it was hashed may change without a new ctime.
RACY_NS = 2 * 10**9


class FileStat(msgspec.Struct, array_like=True):
    """A records file as ``lstat`` saw it when its sha256 was taken, and when that was."""

    size: int
    mtime_ns: int
    ctime_ns: int
    ino: int
    dev: int
    hashed_at_ns: int
    sha256: str


class StatIndex(msgspec.Struct, forbid_unknown_fields=True):
    format: int
    root: str
    files: dict[str, FileStat]


def stat_of(st: os.stat_result) -> tuple[int, int, int, int, int]:
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev


def trusted(entry: FileStat | None, st: os.stat_result) -> bool:
    """Whether a stored sha256 still describes the file ``st`` describes: the same size, mtime, ctime,
    inode and device (a write, a rename over it, ``cp -p`` or ``touch -r`` all give a new ctime), and a
    ctime more than ``RACY_NS`` older than the hash (docs/decisions.md#the-dashboard)."""
    return (
        entry is not None
        and (entry.size, entry.mtime_ns, entry.ctime_ns, entry.ino, entry.dev) == stat_of(st)
        and entry.ctime_ns < entry.hashed_at_ns - RACY_NS
    )


CHECKING = "records files checked (to look for the run in the cache)"


def records_digests(root: Path, known: dict[str, FileStat] | None = None, say=None) -> dict[str, str] | None:
    """sha256 of every file under the records folder by its path relative to it (as the cross-check
    names them); None when the folder holds anything but folders and regular files (a link, a FIFO):
    such a run is always scored, the safety rules decide about it (docs/safety.md). A file whose entry
    in ``known`` is ``trusted`` keeps its stored sha256; ``known`` receives the entries as they are now.
    ``say(text)`` hears how far the check is, the count first (``1,204 / 30,000 records files checked``),
    at most ten times a second."""
    real = os.path.realpath(root)
    found: list[tuple[str, str, os.stat_result]] = []
    for folder, dirs, files in os.walk(real):
        for name in dirs:
            if os.path.islink(os.path.join(folder, name)):
                return None
        for name in files:
            path = os.path.join(folder, name)
            st = os.lstat(path)
            if not stat.S_ISREG(st.st_mode):
                return None
            found.append((path, os.path.relpath(path, real), st))
    out: dict[str, str] = {}
    now: dict[str, FileStat] = {}
    said = time.monotonic()
    for done, (path, rel, st) in enumerate(found, 1):
        entry = (known or {}).get(rel)
        if entry is None or not trusted(entry, st):
            entry = hashed(path, st)
        out[rel], now[rel] = entry.sha256, entry
        if say is not None and (done == len(found) or time.monotonic() - said >= 0.1):
            said = time.monotonic()
            say(f"{done:,} / {len(found):,} {CHECKING}")
    if known is not None:
        known.clear()
        known.update(now)
    return out


def hashed(path: str, st: os.stat_result) -> FileStat:
    """The file's sha256 and the stat it was taken under; an entry never trusted later (``hashed_at_ns``
    0) when the file opened is not the one ``st`` describes (replaced between the two)."""
    at = time.time_ns()
    with open(path, "rb") as fh:
        digest = hashlib.file_digest(fh, "sha256").hexdigest()
        same = stat_of(os.fstat(fh.fileno())) == stat_of(st)
    return FileStat(*stat_of(st), at if same else 0, digest)


def stats_path(folder: Path, root: Path) -> Path:
    return folder / f"{hashlib.sha256(os.path.realpath(root).encode()).hexdigest()}{STATS}"
