"""Only regular files are read (a FIFO, a device or a folder is rejected without blocking), and a
(model, item, attempt) becomes a path under records/ in one place only."""

from __future__ import annotations

import errno
import os
import stat
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field

from tcsexam.scoring.errors import InputError, Problem
from tcsexam.scoring.grammar import with_article
from tcsexam.scoring.safety.names import check_name


def _kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _not_regular(path: str, what: str, mode: int) -> InputError:
    return InputError([Problem(path, "", "", f"is {_kind_of(mode)}, expected {with_article(what)} (a regular file)")])


def _os_problem(path: str, what: str, exc: OSError) -> InputError:
    if isinstance(exc, (FileNotFoundError, NotADirectoryError)):
        if os.path.lexists(path):
            return InputError([Problem(path, "", "", f"{what} is a symbolic link to nothing")])
        return InputError([Problem(path, "", "", f"{what} not found")])
    if isinstance(exc, PermissionError):
        return InputError([Problem(path, "", "", f"cannot read {what}: permission denied")])
    if exc.errno == errno.ELOOP:
        return InputError([Problem(path, "", "", f"cannot read {what}: too many levels of symbolic links")])
    return InputError([Problem(path, "", "", f"cannot read {what}: {exc.strerror or exc}")])


def read_regular_file(path: str | os.PathLike, what: str = "file", max_bytes: int | None = None) -> bytes:
    """The whole content of the regular file ``path``; anything else is an InputError naming it.

    docs/safety.md: a FIFO, a device, a socket or a folder is rejected and never waited on. ``os.stat``
    first keeps a device from even being opened (opening one can have effects); the open uses
    O_NONBLOCK (a FIFO swapped in after the stat opens at once instead of blocking) and the
    ``fstat`` of the open descriptor is what decides, so the check and the read concern the same
    file. A symlink is followed: one to /dev/zero is a device and rejected. ``max_bytes`` (None:
    no cap) rejects a larger file, and a file that grows past it while being read.
    """
    return _read_regular(path, what, max_bytes)[0]


Stamp = tuple[int, int, int, int, int]  # st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns


def stamp_of(st: os.stat_result) -> Stamp:
    """What changes when a file is edited in place or replaced: the ``unchanged`` of ``write_atomic``."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def read_regular_file_stamped(path: str | os.PathLike, what: str = "file") -> tuple[bytes, Stamp]:
    """``read_regular_file`` and the stamp of the file as it was opened (before the read): give it
    to ``write_atomic(..., unchanged=stamp)`` to replace the file only when nothing else wrote to
    it meanwhile (an edit during the read changes the stamp too)."""
    data, st = _read_regular(path, what, None)
    return data, stamp_of(st)


def _read_regular(path: str | os.PathLike, what: str, max_bytes: int | None) -> tuple[bytes, os.stat_result]:
    file = os.fspath(path)
    try:
        mode = os.stat(file).st_mode
        if not stat.S_ISREG(mode):
            raise _not_regular(file, what, mode)
        fd = os.open(file, _READ_FLAGS)
    except OSError as exc:
        raise _os_problem(file, what, exc) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _not_regular(file, what, st.st_mode)
        return _read_open(fd, st, file, what, max_bytes), st
    except OSError as exc:
        raise _os_problem(file, what, exc) from None
    finally:
        os.close(fd)


_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)


def _read_open(fd: int, st: os.stat_result, file: str, what: str, max_bytes: int | None) -> bytes:
    """The content of the regular file open at ``fd`` (``st``: its fstat), within ``max_bytes``."""
    size = st.st_size
    if max_bytes is not None and size > max_bytes:
        raise InputError([Problem(file, "", "", f"{what} is {size} bytes, more than the {max_bytes} allowed")])
    chunks = []
    total = 0
    limit = (max_bytes + 1) if max_bytes is not None else None
    step = size + 1  # the whole file in one read: joining chunks would copy a large file once more
    while True:
        chunk = os.read(fd, step if limit is None else min(step, limit - total))
        step = 1 << 24
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        if limit is not None and total >= limit:
            raise InputError([Problem(file, "", "", f"{what} grew past the {max_bytes} bytes allowed")])
    return b"".join(chunks)


def records_file(root: str, model: str, item: str, attempt: str) -> str:
    """The path of the records file of one attempt: ``root/<model parts>/<item>/<attempt>.json``
    (``records_rel``)."""
    return os.path.join(root, records_rel(model, item, attempt))


def records_rel(model: str, item: str, attempt: str) -> str:
    """Where the records file of one attempt sits under the records folder: ``<model parts>/<item>/<attempt>.json``.

    docs/safety.md and docs/formats.md#instance-records. Each name is checked with ``check_name`` first (a bad one raises ValueError with
    the problem: the loaders report it on the attempts-table line, so here it is a bug), which
    keeps the path lexically inside the records folder.
    """
    for value, kind in ((model, "model"), (item, "item"), (attempt, "attempt")):
        problem = check_name(value, kind)
        if problem:
            raise ValueError(problem)
    return f"{model}/{item}/{attempt}.json"


RECORDS_SUFFIX = ".json"
_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


@dataclass
class RecordsListing:
    """What one walk of a records folder found (``RecordsRoot.listing``). Paths are relative to the
    records folder, '/'-separated, with the names as the file system gives them.

    ``json_files``: the parts of every ``*.json`` entry that is a file, a link to one included (the
    records files of docs/formats.md#instance-records); ``plain``: of those, the ones reached
    through real folders only and not links themselves, with their inode (the file the walk saw
    there); ``folders``: the folders listed; ``entries``: every name in them, of any kind."""

    json_files: list[tuple[str, ...]] = field(default_factory=list)
    plain: dict[str, int] = field(default_factory=dict)
    folders: set[str] = field(default_factory=set)
    entries: set[str] = field(default_factory=set)
    root_fd: int | None = None  # the records folder, held open while the listing is used
    device: int = -1  # the records folder's st_dev: a file on another one is read the slow way


class RecordsRoot:
    """The records folder of one load, the one way to find and read a records file (docs/safety.md and docs/formats.md#instance-records).

    README "Safety": a records file that is, or sits under, a symbolic link pointing out of the
    records folder is rejected (a run cannot make the tool read, hash and report files elsewhere
    on the machine); links that stay inside are followed, and the records folder itself may be a
    link (resolved once). The check is about what the run holds, not about a file swapped while
    it is being read. Make a new RecordsRoot for each load.

    How it stays cheap at 10^4 files and more (docs/performance.md#runs-with-records-against-their-floor):
    the folder is walked once (``listing``), each folder opened relative to the records folder's
    descriptor without following a link, and entered only when it is the folder its parent listed
    (same inode, same device). A file the walk saw as a plain file is then opened the same way
    (``O_NOFOLLOW``) and read when its ``fstat`` shows the file the walk saw: a regular file, same
    inode and device. No path is resolved for it, since the walk went through real folders only.
    The walk is made by ``listing``, which the line-up calls before any records file is read
    (``lineup.discover_records``); until then ``read_path`` and ``exists`` check each path.
    Anything else (a link, a FIFO, a device, a folder, a file swapped since the walk, one the walk
    did not see) takes the slow way, ``read_checked``: its path resolved, the links followed within
    the records folder only, with the messages of docs/safety.md.
    """

    def __init__(self, root: str | os.PathLike):
        self.root = os.fspath(root)
        self.real_root = os.path.realpath(self.root)
        self._prefix = self.real_root.rstrip(os.sep) + os.sep
        self._under = os.path.join(self.root, "")
        self._folders: dict[str, str] = {}
        self._listing: RecordsListing | None = None

    def path(self, model: str, item: str, attempt: str) -> str:
        """The records file of one attempt, ``root/<model parts>/<item>/<attempt>.json``."""
        return records_file(self.root, model, item, attempt)

    def listing(self) -> RecordsListing:
        """The walk of the records folder, made on first use (an unreadable folder is left out: what is
        read there reports it)."""
        if self._listing is None:
            self._listing = _walk(self.root)
            if self._listing.root_fd is not None:
                weakref.finalize(self, os.close, self._listing.root_fd)
        return self._listing

    def exists(self, path: str) -> bool:
        """``os.path.lexists(path)`` for a path under the records folder, from the walk where it listed
        the path's folder."""
        listing = self._listing
        rel = self._rel(path)
        if listing is not None and rel is not None and rel.rpartition("/")[0] in listing.folders:
            return rel in listing.entries
        return os.path.lexists(path)

    def outside(self, path: str) -> str | None:
        """The problem when the existing ``path`` resolves out of the records folder, else None."""
        folder, name = os.path.split(path)
        real_folder = self._folders.get(folder)
        if real_folder is None:
            real_folder = self._folders[folder] = os.path.realpath(folder)
        real = os.path.join(real_folder, name)
        if os.path.islink(real):
            real = os.path.realpath(real)
        if real.startswith(self._prefix):
            return None
        return f"records file resolves to {real}, outside the records folder {self.real_root}"

    def shown(self, path: str) -> str:
        """How a message names the records file at ``path``: the path itself."""
        return path

    def located(self, problems: list[Problem]) -> list[Problem]:
        """Problems of records files as they are (a packed file puts its line in them)."""
        return problems

    def read(self, model: str, item: str, attempt: str) -> tuple[str, bytes | None]:
        """The path of one attempt's records file and its bytes (None when there is no file); a
        folder, FIFO, device, link to nothing or link out of the records folder is a problem."""
        path = self.path(model, item, attempt)
        return path, self.read_path(path)

    def read_path(self, path: str) -> bytes | None:
        """``read`` for a path already made by ``path``."""
        listing = self._listing
        rel = self._rel(path)
        if listing is not None and rel is not None and rel in listing.plain:
            data = _read_seen(listing, rel, path)
            if data is not None:
                return data
        return self.read_checked(path)

    def read_checked(self, path: str) -> bytes | None:
        """``read_path`` the slow way: the path's links resolved and followed within the records folder."""
        if not os.path.lexists(path):
            return None
        problem = self.outside(path)
        if problem:
            raise InputError([Problem(path, "", "", problem)])
        return read_regular_file(path, "records file")

    def __getstate__(self) -> dict:
        """A copy for another process (the dashboard's loader sends the run back) leaves the walk
        behind: its descriptor is this process's. The copy reads the slow way until it walks again."""
        return {**self.__dict__, "_listing": None}

    def _rel(self, path: str) -> str | None:
        return path[len(self._under) :] if path.startswith(self._under) else None


def _read_seen(listing: RecordsListing, rel: str, path: str) -> bytes | None:
    """The bytes of the plain file the walk saw at ``rel``, or None when what opens there now is not
    that file (or does not open): the caller then takes the slow way, which says what it is."""
    inode = listing.plain[rel]
    assert listing.root_fd is not None  # a listing with files has its folder open
    try:
        fd = os.open(rel, _READ_FLAGS | _NOFOLLOW, dir_fd=listing.root_fd)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_ino != inode or st.st_dev != listing.device:
            return None
        return _read_open(fd, st, path, "records file", None)
    except OSError as exc:
        raise _os_problem(path, "records file", exc) from None
    finally:
        os.close(fd)


def _walk(root: str) -> RecordsListing:
    """One walk of the records folder ``root`` (``RecordsListing``); a link to a folder is not walked
    and nothing but folders is opened."""
    listing = RecordsListing()
    try:
        fd = os.open(root, _FOLDER_FLAGS)  # the records folder itself may be a link
        listing.device = os.fstat(fd).st_dev
    except OSError:
        return listing
    listing.root_fd = fd
    stack: list[tuple[str, tuple[str, ...], int | None]] = [("", (), None)]  # (rel, parts, inode its parent listed)
    while stack:
        rel, parts, inode = stack.pop()
        try:
            folder = os.open(rel, _FOLDER_FLAGS | _NOFOLLOW, dir_fd=fd) if rel else os.dup(fd)
        except OSError:  # unreadable: what is read there reports it
            continue
        try:
            st = os.fstat(folder)
            if inode is not None and (st.st_ino != inode or st.st_dev != listing.device):
                continue  # not the folder its parent listed (swapped, or another file system): not walked
            with os.scandir(folder) as entries:
                _list_folder(listing, entries, rel, parts, stack)
        except OSError:
            continue
        finally:
            os.close(folder)
    return listing


def _list_folder(
    listing: RecordsListing,
    entries: Iterable[os.DirEntry],
    rel: str,
    parts: tuple[str, ...],
    stack: list[tuple[str, tuple[str, ...], int | None]],
) -> None:
    listing.folders.add(rel)
    before = f"{rel}/" if rel else ""
    for entry in entries:
        name = entry.name
        path = before + name
        listing.entries.add(path)
        try:
            if entry.is_dir(follow_symlinks=False):
                stack.append((path, (*parts, name), entry.inode()))
            elif name.endswith(RECORDS_SUFFIX) and entry.is_file():
                listing.json_files.append((*parts, name))
                if not entry.is_symlink():
                    listing.plain[path] = entry.inode()
        except OSError:
            continue


class FolderWatch:
    """The folders a run is read from, held open from before the first read
    (docs/safety.md#a-run-folder-moved-while-it-is-read): ``problems`` names each that no longer is, at its path, the
    folder that was opened (moved, deleted, replaced by another). Holding it open keeps its identity
    (st_dev, st_ino) from going to a new folder made in its place. A folder missing at the start is
    not watched: the readers report what is missing in it. The descriptors are closed by ``close``,
    or when the watch is collected."""

    def __init__(self, folders: Iterable[str | os.PathLike]):
        self._held: list[tuple[str, int, tuple[int, int]]] = []
        for folder in dict.fromkeys(os.fspath(f) for f in folders):
            try:
                fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
            except OSError:
                continue
            st = os.fstat(fd)
            self._held.append((folder, fd, (st.st_dev, st.st_ino)))
        self._close = weakref.finalize(self, _close_all, [fd for _, fd, _ in self._held])

    def problems(self) -> list[Problem]:
        """One problem per watched folder that is not the opened one any more."""
        found = []
        for folder, _, identity in self._held:
            try:
                st = os.stat(folder)
                now: tuple[int, int] | None = (st.st_dev, st.st_ino)
            except OSError:
                now = None
            if now != identity:
                what = "deleted or moved away" if now is None else "replaced by another folder"
                found.append(
                    Problem(
                        folder,
                        "",
                        "",
                        f"folder {what} while the command read it: what was read may be half of it; "
                        "nothing written: run the command again",
                    )
                )
        return found

    def identities(self) -> list[tuple[str, tuple[int, int]]]:
        """Each folder held, with its identity (st_dev, st_ino) as it was opened."""
        return [(folder, identity) for folder, _, identity in self._held]

    def close(self) -> None:
        self._close()


def _close_all(fds: list[int]) -> None:
    for fd in fds:
        os.close(fd)
