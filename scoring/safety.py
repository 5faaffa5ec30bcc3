"""Safety rules for untrusted inputs (SPEC section 13): names are data, files are files.

One rule lives here once; the loaders, the commands and the dashboard call it.

- ``check_name``: a model, item or attempt name, a suite name or a reference id
  that could leave its folder (or that no CSV row can match) is a problem.
- ``read_regular_file`` / ``read_regular_file_if_present``: only regular files
  are read; a FIFO, a device or a folder is rejected without ever blocking.
- ``records_file`` / ``RecordsRoot``: the one place that turns (model, item,
  attempt) into a path under records/, and refuses a file whose real path leaves
  the records folder.
- ``check_output`` / ``output_argument`` / ``write_atomic`` / ``write_output``:
  an output is never an input, a device, a FIFO or a folder; a write leaves no
  temporary file on SIGINT, SIGTERM or SIGHUP, names the file when the disk is
  full, removes the folders it made, and keeps an existing file intact; it goes
  through a symbolic link to the file it names, keeps that file's owner and mode,
  never replaces a file of several hard links, and (``read_regular_file_stamped``)
  never one that changed since it was read (docs/safety.md).
- ``escape_for_terminal``: control characters of a name shown escaped.
- ``finite_fsum`` / ``finite_mean`` / ``require_finite``: a result that would
  overflow is a problem naming the value, never an internal error.
- ``find_duplicate_key`` and ``check_relative_floor``: the README "Safety"
  decisions on duplicate JSON keys and on a relative floor above 1.

Standard library only (plus ``errors``): it is imported by every command.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import math
import os
import re
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import ClassVar

from .errors import InputError, Problem

# ---------------------------------------------------------------- names (SPEC 13, first rule)

NAME_KINDS = ("model", "item", "attempt", "suite", "reference id")


def check_name(value: object, kind: str) -> str | None:
    """The problem with ``value`` as a name of ``kind`` (one of NAME_KINDS), or None when it is fine.

    SPEC 13: a name is data, never a path. Every kind: no backslash, no NUL, not empty, not
    ``.`` or ``..``, not absolute, and no leading or trailing white space (CSV cells are stripped,
    so such a name in a cohort or suite could never match a row). Only a model name may hold
    ``/`` (``org/model``), and then none of its ``/``-separated parts is empty, ``.`` or ``..``.
    The caller attaches the file, the line or key, and the field.
    """
    if kind not in NAME_KINDS:
        raise ValueError(f"unknown name kind {kind!r}")
    if not isinstance(value, str):
        return f"{kind} name must be a string"
    if value == "":
        return f"{kind} name is empty"
    if "\x00" in value:
        return f"{kind} name holds a NUL character"
    if "\\" in value:
        return f"{kind} name holds a backslash"
    if value != value.strip():
        return f"{kind} name has leading or trailing white space, which no attempts-table cell can match"
    if value.startswith("/"):
        return f"{kind} name is an absolute path"
    if kind == "model":
        if any(part in ("", ".", "..") for part in value.split("/")):
            return "model name has an empty, '.' or '..' part between its '/'"
        return None
    if "/" in value:
        return f"{kind} name holds '/'"
    if value in (".", ".."):
        return f"{kind} name is '{value}'"
    return None


# ---------------------------------------------------------------- regular files only (SPEC 13, second rule)


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
    return InputError([Problem(path, "", "", f"is {_kind_of(mode)}, expected a {what} (a regular file)")])


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

    SPEC 13: a FIFO, a device, a socket or a folder is rejected and never waited on. ``os.stat``
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
        fd = os.open(file, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise _os_problem(file, what, exc) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _not_regular(file, what, st.st_mode)
        size = st.st_size
        if max_bytes is not None and size > max_bytes:
            raise InputError([Problem(file, "", "", f"{what} is {size} bytes, more than the {max_bytes} allowed")])
        chunks = []
        total = 0
        limit = (max_bytes + 1) if max_bytes is not None else None
        while True:
            chunk = os.read(fd, 1 << 24 if limit is None else min(1 << 24, limit - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if limit is not None and total >= limit:
                raise InputError([Problem(file, "", "", f"{what} grew past the {max_bytes} bytes allowed")])
        return b"".join(chunks), st
    except OSError as exc:
        raise _os_problem(file, what, exc) from None
    finally:
        os.close(fd)


def read_regular_file_if_present(path: str | os.PathLike, what: str = "file") -> bytes | None:
    """Like ``read_regular_file``, but None when nothing at all is at ``path`` (SPEC 13: a records
    file is optional, and read only when it is a regular file). A folder, FIFO, device or a
    symbolic link to nothing where the file belongs is a problem, never "no file"."""
    file = os.fspath(path)
    if not os.path.lexists(file):
        return None
    return read_regular_file(file, what)


# ---------------------------------------------------------------- records files inside records/


def records_file(root: str, model: str, item: str, attempt: str) -> str:
    """The path of the records file of one attempt: ``root/<model parts>/<item>/<attempt>.json``.

    SPEC 13 / 2.3. Each name is checked with ``check_name`` first (a bad one raises ValueError with
    the problem: the loaders report it on the attempts-table line, so here it is a bug), which
    keeps the path lexically inside ``root``.
    """
    for value, kind in ((model, "model"), (item, "item"), (attempt, "attempt")):
        problem = check_name(value, kind)
        if problem:
            raise ValueError(problem)
    return os.path.join(root, model, item, attempt + ".json")


class RecordsRoot:
    """The records folder of one load, the one way to find and read a records file (SPEC 13, 2.3).

    README "Safety": a records file that is, or sits under, a symbolic link pointing out of the
    records folder is rejected (a run cannot make the tool read, hash and report files elsewhere
    on the machine); links that stay inside are followed, and the records folder itself may be a
    link (resolved once). The real path of each folder is computed once per load (the files of
    a run share few folders); make a new RecordsRoot for each load. The check is about what the
    run holds, not about a file swapped while it is being read.
    """

    def __init__(self, root: str | os.PathLike):
        self.root = os.fspath(root)
        self.real_root = os.path.realpath(self.root)
        self._prefix = self.real_root.rstrip(os.sep) + os.sep
        self._folders: dict[str, str] = {}

    def path(self, model: str, item: str, attempt: str) -> str:
        """The records file of one attempt, ``root/<model parts>/<item>/<attempt>.json``."""
        return records_file(self.root, model, item, attempt)

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

    def read(self, model: str, item: str, attempt: str) -> tuple[str, bytes | None]:
        """The path of one attempt's records file and its bytes (None when there is no file); a
        folder, FIFO, device, link to nothing or link out of the records folder is a problem."""
        path = self.path(model, item, attempt)
        return path, self.read_path(path)

    def read_path(self, path: str) -> bytes | None:
        """``read`` for a path already made by ``path``."""
        if not os.path.lexists(path):
            return None
        problem = self.outside(path)
        if problem:
            raise InputError([Problem(path, "", "", problem)])
        return read_regular_file(path, "records file")


# ---------------------------------------------------------------- outputs (SPEC 13, third rule)


def output_argument(text: str) -> str:
    """argparse ``type=`` of every ``--output``: an empty value is a usage error (exit 2)."""
    if text == "":
        raise argparse.ArgumentTypeError("an empty --output names no file: give a FILE, or - for standard output")
    return text


def check_output(
    path: str | os.PathLike, inputs: Iterable[str | os.PathLike] = (), folders: Iterable[str | os.PathLike] = ()
) -> Path | None:
    """Check an output before anything is computed or written; None means standard output (``-``).

    SPEC 13: an InputError (exit 1, nothing touched) when ``path`` is a folder, a FIFO, a device
    or a socket (after following links), when it is the same file as one of ``inputs`` (same
    st_dev and st_ino: a hard link, a symbolic link or another spelling of an input is caught),
    when it lies inside one of ``folders`` (input folders such as records/, where any new
    file could be an input; after resolving links), or when ``write_atomic`` would refuse it
    (a file with several hard links, a link that does not resolve to the file it opens).
    Inputs that do not exist are skipped.
    """
    text = os.fspath(path)
    if text == "":
        raise ValueError("empty output path: output_argument rejects it as a usage error")
    if text == "-":
        return None
    try:
        st = os.stat(text)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise InputError([Problem(text, "", "", f"cannot use as output: {exc.strerror or exc}")]) from None
    if st is not None:
        if not stat.S_ISREG(st.st_mode):
            raise InputError(
                [
                    Problem(
                        text,
                        "",
                        "",
                        f"output is {_kind_of(st.st_mode)}: an output must be a "
                        "regular file (or - for standard output)",
                    )
                ]
            )
        for source in inputs:
            try:
                other = os.stat(source)
            except OSError:
                continue
            if (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino):
                raise InputError(
                    [
                        Problem(
                            text, "", "", f"output is the input {os.fspath(source)}: writing it would destroy the input"
                        )
                    ]
                )
        problem = _hard_link_problem(st)
        if problem:
            raise InputError([Problem(text, "", "", problem)])
    real = os.fspath(resolve_output(text))
    for folder in folders:
        top = os.path.realpath(folder)
        if real.startswith(top.rstrip(os.sep) + os.sep):
            raise InputError([Problem(text, "", "", f"output lies inside the input folder {os.fspath(folder)}")])
    return Path(text)


def resolve_output(path: str | os.PathLike) -> Path:
    """The file a write to ``path`` lands in: ``path`` with every symbolic link resolved.

    docs/safety.md: an output that is a link is written through, at the file it points to; the
    link itself stays (``latest.json -> index-x.json``; ``/dev/stdout`` when standard output is
    a file). When the resolved name is not the file ``path`` opens (a /proc link to a deleted
    file, a pipe or a socket), writing there would create a stray file: an InputError.
    """
    text = os.fspath(path)
    real = os.path.realpath(text)
    try:
        opened = os.stat(text)
    except FileNotFoundError:
        return Path(real)  # nothing there yet (a link to nothing makes the file it names)
    except OSError as exc:
        raise InputError([Problem(text, "", "", f"cannot use as output: {exc.strerror or exc}")]) from None
    try:
        found = os.stat(real)
    except OSError:
        found = None
    if found is None or (found.st_dev, found.st_ino) != (opened.st_dev, opened.st_ino):
        raise InputError(
            [Problem(text, "", "", f"output resolves to {real}, which is not the file it opens: nothing written")]
        )
    return Path(real)


def _hard_link_problem(st: os.stat_result) -> str | None:
    """docs/safety.md: a file with several names (hard links) is never replaced: a new file under
    one name would leave the other names with the old content, and writing into the file in
    place could leave it half written (on a full disk, an interrupt)."""
    if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
        return (
            f"output has {st.st_nlink} names (hard links): replacing it would leave the other names with the "
            "old content, and writing into it in place could leave it half written; nothing written. "
            "Give it a name of its own first (cp FILE FILE.copy && mv FILE.copy FILE), or write elsewhere"
        )
    return None


def _take_identity(fd: int, target: Path) -> None:
    """Give the temporary file ``fd`` the owner, group and mode of the file it replaces (mkstemp
    makes 0600 files of the running user), else the usual mode of a new file. The owner comes back
    only where the system allows (root); else the group when the user is in it; the mode always,
    after the owner (a change of owner clears the set-id bits)."""
    try:
        old = os.stat(target)
    except FileNotFoundError:
        os.fchmod(fd, _NEW_FILE_MODE)
        return
    own = os.fstat(fd)
    if (own.st_uid, own.st_gid) != (old.st_uid, old.st_gid):
        try:
            os.fchown(fd, old.st_uid, old.st_gid)
        except OSError:
            with contextlib.suppress(OSError):
                os.fchown(fd, -1, old.st_gid)
    os.fchmod(fd, old.st_mode & 0o7777)


def _check_replaceable(shown: str, target: Path, unchanged: Stamp | None) -> None:
    """Right before the rename: ``target`` is still a regular file of one name that is not a link
    (something may have changed it during the write), and, with ``unchanged``, still the file that
    was read (same stamp); else an InputError naming ``shown`` and nothing is replaced."""
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISLNK(st.st_mode):
        raise InputError([Problem(shown, "", "", "output became a symbolic link during the write: not replaced")])
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise InputError(
            [Problem(shown, "", "", f"output is {_kind_of(st.st_mode)}: an output must be a regular file")]
        )
    problem = _hard_link_problem(st) if st is not None else None
    if problem:
        raise InputError([Problem(shown, "", "", problem)])
    if unchanged is not None and (st is None or stamp_of(st) != unchanged):
        raise InputError([changed_since_read(shown)])


def changed_since_read(path: str) -> Problem:
    """The problem of a file that changed after it was read and before it was to be replaced."""
    return Problem(
        path,
        "",
        "",
        "changed while the command ran (another program wrote to it, or moved it): left as it is, "
        "nothing replaced; run the command again",
    )


class Interrupted(KeyboardInterrupt):
    """SIGINT, SIGTERM or SIGHUP during a write; the command exits 128 + ``signum``."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


class WriteFailed(OSError):
    """A write that failed (disk full, permission, ...); its message names the file."""

    def __str__(self) -> str:
        return f"cannot write {self.filename}: {self.strerror}"


WRITE_SIGNALS = (signal.SIGINT, signal.SIGTERM) + ((signal.SIGHUP,) if hasattr(signal, "SIGHUP") else ())


class _Held:
    """Write signals that arrived while held (main thread only): a process-directed signal can
    be taken by another thread whose mask does not block it, and Python then runs the handler
    in the main thread at once; the handler sees ``depth`` and keeps the signal for later."""

    depth: ClassVar[int] = 0
    pending: ClassVar[list[int]] = []


@contextmanager
def _signals_raise() -> Iterator[None]:
    """During the block, the first SIGINT, SIGTERM or SIGHUP raises ``Interrupted``; later ones
    are dropped, so that a second signal cannot cut short the clean-up the first started (the
    command exits on the first). A signal the process ignores, as under ``nohup``, stays
    ignored; the previous handlers come back after the block. Only the main thread can set
    handlers: elsewhere the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    fired: list[int] = []

    def _raise_interrupted(signum, frame):
        if fired:
            return
        if _Held.depth:  # inside a held step: raised when the step is done
            if not _Held.pending:
                _Held.pending.append(signum)
            return
        fired.append(signum)
        raise Interrupted(signum)

    previous = {}
    try:
        for sig in WRITE_SIGNALS:
            if signal.getsignal(sig) is not signal.SIG_IGN:
                previous[sig] = signal.signal(sig, _raise_interrupted)
        yield
    finally:
        _Held.pending.clear()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@contextmanager
def _signals_held() -> Iterator[None]:
    """Signals of WRITE_SIGNALS wait during the block and arrive after it: a temporary file is
    created and recorded, or removed, or renamed, as one step. They are blocked in this thread
    (``pthread_sigmask``); one that another thread takes is kept by the handler (``_Held``) and
    raised again in this thread when the block ends."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    masking = hasattr(signal, "pthread_sigmask")
    old = signal.pthread_sigmask(signal.SIG_BLOCK, WRITE_SIGNALS) if masking else set()
    _Held.depth += 1
    try:
        yield
    finally:
        _Held.depth -= 1
        if masking:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
        if not _Held.depth and _Held.pending:
            signum = _Held.pending.pop()
            _Held.pending.clear()
            signal.raise_signal(signum)  # to this thread: the handler runs now, outside the step


def _missing_folders(folder: Path) -> list[Path]:
    """The folders of ``folder`` and its parents that do not exist yet, deepest first."""
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing


def _default_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


_NEW_FILE_MODE = _default_mode()


def write_atomic(
    path: str | os.PathLike, data: bytes | bytearray | Iterable[bytes | memoryview], *, unchanged: Stamp | None = None
) -> None:
    """Write ``data`` (bytes, or chunks of bytes) to ``path`` atomically (SPEC 6, 13).

    A temporary file next to the file ``path`` resolves to (``resolve_output``: a symbolic link is
    written through and stays a link), with the owner, group and mode of the file it replaces;
    fsync; ``os.replace``. On any failure (an OSError, SIGINT, SIGTERM or SIGHUP, which raise
    ``Interrupted`` during the write) the temporary file and the folders this call created are
    removed, an existing file is left byte-identical, and an OSError comes back as
    ``WriteFailed`` naming ``path``. Just before the rename the target is checked again
    (``_check_replaceable``): not a link, folder, FIFO or device, not a file of several hard
    links, and, with ``unchanged`` (from ``read_regular_file_stamped``), not changed since it
    was read. SIGKILL cannot be caught: it can leave a ``.<name>.*.tmp`` file.
    """
    shown = os.fspath(path)
    target = resolve_output(shown)
    made = _missing_folders(target.parent)
    tmp: str | None = None
    with _signals_raise():
        try:
            with _signals_held():
                target.parent.mkdir(parents=True, exist_ok=True)
                fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
            with os.fdopen(fd, "wb") as fh:
                _take_identity(fh.fileno(), target)
                for chunk in [data] if isinstance(data, (bytes, bytearray, memoryview)) else data:
                    fh.write(chunk)
                fh.flush()
                os.fsync(fh.fileno())
            with _signals_held():
                _check_replaceable(shown, target, unchanged)
                os.replace(tmp, target)
                tmp = None
        except BaseException as exc:
            with _signals_held():
                if tmp is not None:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(tmp)
                for folder in made:  # deepest first; a folder something else filled meanwhile stays
                    try:
                        os.rmdir(folder)
                    except OSError:
                        break
            if isinstance(exc, OSError) and not isinstance(exc, WriteFailed):
                raise WriteFailed(exc.errno, exc.strerror or str(exc), shown) from None
            raise


def write_output(path: Path | None, data: bytes | bytearray | Iterable[bytes | memoryview]) -> None:
    """Write to the file ``path`` (``write_atomic``), or to standard output when ``path`` is None
    (``--output -``, see ``check_output``)."""
    if path is not None:
        write_atomic(path, data)
        return
    out = sys.stdout.buffer
    for chunk in [data] if isinstance(data, (bytes, bytearray, memoryview)) else data:
        out.write(chunk)
    out.flush()


# ---------------------------------------------------------------- terminal text (SPEC 13, fourth rule)

# C0 controls, DEL, C1 controls (C1 CSI 0x9b acts like ESC [ on some terminals), the bidi
# embeddings, overrides and isolates and the Arabic letter mark (they reorder what follows: a
# name could show as another), the line and paragraph separators, and lone surrogates (bytes
# that were not UTF-8; no terminal encoding can print them).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]")


def _escape_char(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_for_terminal(text: str, encoding: str | None = None) -> str:
    """``text`` with every character a terminal could act on shown escaped (SPEC 13): ESC as
    ``\\x1b``, other C0/C1 controls and DEL as ``\\xNN``, bidi controls, line separators and lone
    surrogates as ``\\uNNNN``. With ``encoding`` (the stream's, e.g. ``sys.stdout.encoding``), a
    character that encoding cannot hold is shown as ``\\uNNNN`` / ``\\UNNNNNNNN`` too, so printing
    never fails. A backslash is left as it is (names cannot hold one). JSON outputs do not use
    this: they keep names as they are."""
    if _UNSAFE.search(text) is not None:
        text = _UNSAFE.sub(_escape_char, text)
    if encoding is not None:
        try:
            text.encode(encoding)
        except UnicodeEncodeError:
            text = text.encode(encoding, errors="backslashreplace").decode(encoding)
        except LookupError:
            pass
    return text


def say(text: str, file=None) -> None:
    """Print ``text`` (default to standard output) with every line escaped for the terminal
    (SPEC 13): the one way the command line prints summaries, messages and problems. The tool's
    own line breaks stay; the stream's encoding is passed on, so printing never fails."""
    stream = sys.stdout if file is None else file
    encoding = getattr(stream, "encoding", None)
    print("\n".join(escape_for_terminal(line, encoding) for line in text.split("\n")), file=stream)


# ---------------------------------------------------------------- overflow (SPEC 13, fifth rule)


class NumberTooLarge(ValueError):
    """A result that would not be finite; ``value`` is the input that made it so. The caller
    turns it into a Problem naming the file, line and field of that value."""

    def __init__(self, what: str, value: float):
        self.what, self.value = what, value
        super().__init__(f"{what} would overflow: the value {value!r} is too large")


def _largest(values: list[float]) -> float:
    return max(values, key=lambda v: math.inf if math.isnan(v) else abs(v)) if values else math.nan


def finite_fsum(values: Iterable[float], what: str) -> float:
    """``math.fsum(values)``, or NumberTooLarge naming the largest value when the sum is not
    finite: fsum raises OverflowError when finite values overflow and gives inf (or raises
    ValueError for inf + -inf) when a value already is infinite."""
    values = list(values)
    try:
        total = math.fsum(values)
    except (OverflowError, ValueError):
        raise NumberTooLarge(what, _largest(values)) from None
    if not math.isfinite(total):
        raise NumberTooLarge(what, _largest(values))
    return total


def finite_mean(values: Iterable[float], what: str) -> float:
    """The mean by ``math.fsum`` (SPEC 4), or NumberTooLarge naming the largest value."""
    values = list(values)
    if not values:
        raise ValueError(f"mean of no values ({what})")
    return finite_fsum(values, what) / len(values)


def require_finite(result: float, what: str, culprit: float) -> float:
    """``result`` when it is finite, else NumberTooLarge naming ``culprit`` (for products and
    squares, e.g. 30·mean in the index or (x-mu)² in a standard deviation)."""
    if not math.isfinite(result):
        raise NumberTooLarge(what, culprit)
    return result


# ---------------------------------------------------------------- README "Safety" decisions

RELATIVE_FLOOR_MAX = 1.0


def check_relative_floor(value: float) -> str | None:
    """README "Safety": a reference's ``scale_floor.relative`` above 1 (a scale larger than the
    mean itself; 1e300 overflows the scale) is rejected; the problem message, or None."""
    if not (0 <= value <= RELATIVE_FLOOR_MAX):
        return f"relative scale floor {value!r} is outside [0, {RELATIVE_FLOOR_MAX:g}]"
    return None


class _DuplicateKey(Exception):
    def __init__(self, key: str):
        self.key = key


def _pairs_without_duplicates(pairs: list[tuple[str, object]]) -> dict:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return obj


_DUPLICATE_DECODER = json.JSONDecoder(object_pairs_hook=_pairs_without_duplicates)


_ESCAPED_COLON = re.compile(rb"(\\+)u003[aA]")


def _escaped_colons(raw: bytes) -> int:
    """How many ``\\u003a`` escapes (a ':' written as an escape) ``raw`` holds: a run of an odd
    number of backslashes before ``u003a`` is an escape, an even one is literal backslashes."""
    if b"u003" not in raw:
        return 0
    return sum(len(m.group(1)) % 2 for m in _ESCAPED_COLON.finditer(raw))


def check_duplicate_keys(raw: bytes, reserialized: bytes | None, file: str) -> None:
    """README "Safety": a key twice in one JSON object of the input ``file`` is rejected, naming
    the key. ``reserialized``: see ``find_duplicate_key`` (None: the slow exact check)."""
    key = find_duplicate_key(raw, reserialized)
    if key is not None:
        raise InputError([Problem(file, "", key, f"key '{key}' appears twice in one object")])


def same_key_count(raw: bytes, reserialized: bytes) -> bool:
    """True when ``reserialized`` (what a parse of ``raw`` kept, written back by a writer that
    never escapes ':' and never adds a key) has as many keys as ``raw``: then no key of ``raw``
    was dropped, so none appears twice (see ``find_duplicate_key``)."""
    return key_colons(raw) == reserialized.count(b":")


def key_colons(raw: bytes) -> int:
    """The ':' of ``raw`` with those written as ``\\u003a`` escapes: what a writer that never
    escapes ':' writes back for the same document when no key is dropped (``same_key_count``)."""
    raw = raw.removeprefix(b"\xef\xbb\xbf")
    return raw.count(b":") + _escaped_colons(raw)


def find_duplicate_key(raw: str | bytes, reserialized: bytes | None = None) -> str | None:
    """The first key that occurs twice in one JSON object of ``raw`` (already known to be valid
    JSON), or None. README "Safety": such a file is rejected naming the key, since orjson and
    msgspec keep the last value and another reader may keep the first.

    ``reserialized`` (optional) is the parsed document written back by a writer that never
    escapes ':' (``orjson.dumps``). Every key brings one ':' outside strings, so when no key is
    dropped the ':' of ``raw`` (plus those it wrote as ``\\u003a``) number exactly those of
    ``reserialized``; a dropped key only lowers the second count. A file without duplicates then
    costs two byte counts, and only a file with one is parsed again, with the standard library,
    to name the key.
    """
    if isinstance(raw, str):
        raw = raw.encode("utf-8")
    raw = bytes(raw).removeprefix(b"\xef\xbb\xbf")
    if reserialized is not None and same_key_count(raw, reserialized):
        return None
    try:
        _DUPLICATE_DECODER.decode(raw.decode("utf-8"))
    except _DuplicateKey as exc:
        return exc.key
    return None
