"""Outputs: never an input, a device, a FIFO or a folder; written atomically, through a symbolic link
to the file it names, keeping that file's owner and mode; no temporary file left on a signal."""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import ClassVar

from tcsexam.scoring.errors import InputError, Problem
from tcsexam.scoring.safety.files import Stamp, _kind_of, stamp_of


def check_output(
    path: str | os.PathLike,
    inputs: Iterable[str | os.PathLike] = (),
    folders: Iterable[str | os.PathLike] = (),
    reserved: Iterable[str | os.PathLike] = (),
    *,
    stdout_ok: bool = False,
) -> Path | None:
    """Check an output before anything is computed or written; None means standard output (``-``).

    docs/safety.md: an InputError (exit 1, nothing touched) when ``path`` is a folder, a FIFO, a device
    or a socket (after following links), when it is the same file as one of ``inputs`` (same
    st_dev and st_ino: a hard link, a symbolic link or another spelling of an input is caught),
    when it lies inside one of ``folders`` (input folders such as records/, where any new
    file could be an input; after resolving links), or when ``write_atomic`` would refuse it
    (a file with several hard links, a link that does not resolve to the file it opens).
    Inputs that do not exist are skipped; ``reserved`` are names that are no input yet and become
    one once a file is there (a run folder's records.jsonl, ``RunPaths.reserved``): an output is none
    of them, by resolved name. ``-`` with standard output closed is an InputError too.
    ``stdout_ok``: the writer takes ``-`` for standard output (a command's ``--output``), and a refusal
    says so.
    """
    text = os.fspath(path)
    if text == "-":
        if sys.stdout is None:  # started with >&-: Python then has no standard output at all
            raise InputError(
                [Problem("--output -", "", "", "standard output is closed: nothing can be written to it; give a FILE")]
            )
        return None
    check_outputs([text], inputs, folders, reserved, stdout_ok=stdout_ok)
    return Path(text)


@dataclass(frozen=True, slots=True)
class Output:
    """An output as ``check_outputs`` found it: ``shown`` as given, ``target`` the file a write to it
    lands in (``resolve_output``), ``found`` that file's ``stat`` when there was one, None when there
    was none (fill then knows it cannot already hold its bytes)."""

    shown: str
    target: str
    found: os.stat_result | None


def check_outputs(
    paths: Iterable[str | os.PathLike],
    inputs: Iterable[str | os.PathLike] = (),
    folders: Iterable[str | os.PathLike] = (),
    reserved: Iterable[str | os.PathLike] = (),
    *,
    stdout_ok: bool = False,
) -> list[Output]:
    """``check_output`` for each of the files ``paths`` (fill's thousands of outputs), the inputs'
    identities and the folders' resolved names found once; the first refused output raises. Each
    comes back as the ``Output`` ``write_atomic_all`` writes."""
    identities: dict[tuple[int, int], str] = {}
    for source in inputs:
        try:
            other = os.stat(source)
        except OSError:
            continue
        identities.setdefault((other.st_dev, other.st_ino), os.fspath(source))
    names = {os.path.realpath(name): os.fspath(name) for name in reserved}
    tops = [(os.path.realpath(folder).rstrip(os.sep) + os.sep, os.fspath(folder)) for folder in folders]
    parents: dict[str, str] = {}
    return [_check_one(os.fspath(path), identities, tops, parents, stdout_ok, names) for path in paths]


def _check_one(
    text: str,
    identities: dict[tuple[int, int], str],
    tops: list[tuple[str, str]],
    parents: dict[str, str],
    stdout_ok: bool = False,
    reserved: dict[str, str] | None = None,
) -> Output:
    if text == "":
        raise ValueError("empty output path: commands.options.output_argument rejects it as a usage error")
    try:
        st = os.stat(text)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise InputError([Problem(text, "", "", f"cannot use as output: {exc.strerror or exc}")]) from None
    if st is not None:
        _refuse_the_file(text, st, identities, stdout_ok)
    elif text.endswith(("/", os.sep)):  # 'new/': the write made a file named 'new', the folder meant never came
        raise InputError(
            [Problem(text, "", "", "output ends with '/', which names a folder: give the file's name in it")]
        )
    real = _output_target(text, parents)
    if st is None:  # 'new/../attempts.csv': the kernel finds no file at text, the write lands on the one at real
        with contextlib.suppress(OSError):
            st = os.stat(real)
        if st is not None:
            _refuse_the_file(text, st, identities, stdout_ok)
    for top, folder in tops:
        if real.startswith(top):
            raise InputError([Problem(text, "", "", f"output lies inside the input folder {folder}")])
    if reserved and (source := reserved.get(real)) is not None:
        raise InputError(
            [
                Problem(
                    text,
                    "",
                    "",
                    f"output is {source}, which the run reads as an input once it is there; write elsewhere",
                )
            ]
        )
    return Output(text, real, st)


def _refuse_the_file(text: str, st: os.stat_result, identities: dict[tuple[int, int], str], stdout_ok: bool) -> None:
    """The file an output would replace is a regular file of one name that is no input, or an InputError."""
    if not stat.S_ISREG(st.st_mode):
        raise InputError(
            [
                Problem(
                    text,
                    "",
                    "",
                    f"output is {_kind_of(st.st_mode)}: an output must be a regular file"
                    + (" (or - for standard output)" if stdout_ok else ""),
                )
            ]
        )
    _refuse_an_input(text, st, identities)
    problem = _hard_link_problem(st)
    if problem:
        raise InputError([Problem(text, "", "", problem)])


def _refuse_an_input(text: str, st: os.stat_result, identities: dict[tuple[int, int], str]) -> None:
    source = identities.get((st.st_dev, st.st_ino))
    if source is not None:
        raise InputError([Problem(text, "", "", f"output is the input {source}: writing it would destroy the input")])


def resolve_output(path: str | os.PathLike, parents: dict[str, str] | None = None) -> Path:
    """The file a write to ``path`` lands in: ``path`` with every symbolic link resolved.

    docs/safety.md: an output that is a link is written through, at the file it points to; the
    link itself stays (``latest.json -> index-x.json``; ``/dev/stdout`` when standard output is
    a file). When the resolved name is not the file ``path`` opens (a /proc link to a deleted
    file, a pipe or a socket), writing there would create a stray file: an InputError.
    ``parents`` (one batch of outputs) keeps each folder's resolved name, so that a file that is
    not a link costs one ``lstat`` instead of one per part of its path.
    """
    return Path(_output_target(os.fspath(path), parents))


def _output_target(text: str, parents: dict[str, str] | None) -> str:
    """``resolve_output``'s file, as text."""
    if parents is None:
        real, unfound = os.path.realpath(text), False
    else:
        real, unfound = _resolved(text, parents)
    if unfound:  # lstat found no file at ``text``: neither can stat (there may be one at ``real``: 'new/../x')
        return real
    try:
        opened = os.stat(text)
    except FileNotFoundError:
        return real  # nothing there yet (a link to nothing makes the file it names)
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
    return real


def _resolved(text: str, parents: dict[str, str]) -> tuple[str, bool]:
    """``os.path.realpath(text)``, each folder of it resolved once (and kept in ``parents``): a part
    that is not a link is its resolved folder's name joined with its own; and whether ``lstat``
    found no file at ``text`` (FileNotFoundError)."""
    head, name = os.path.split(text)
    if name in ("", ".", "..") or not head or head == text:
        return os.path.realpath(text), False
    unfound = False
    try:
        link = stat.S_ISLNK(os.lstat(text).st_mode)
    except FileNotFoundError:
        link, unfound = False, True
    except OSError:
        link = False
    if link:
        return os.path.realpath(text), False
    top = parents.get(head)
    if top is None:
        top = parents[head] = _resolved(head, parents)[0]
    return os.path.join(top, name), unfound


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


def _take_identity(fd: int, target: str | os.PathLike) -> None:
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


def _check_replaceable(shown: str, target: str | os.PathLike, unchanged: Stamp | None) -> None:
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


def _missing_folders(folder: str, present: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """The folders of ``folder`` (an absolute name) and its parents that do not exist yet, deepest
    first; a folder of ``present`` (found or made earlier in the same batch) is taken as there
    without a look."""
    missing = []
    while folder not in present and not os.path.exists(folder):
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        missing.append(folder)
        folder = parent
    return missing


def _default_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


_NEW_FILE_MODE = _default_mode()


def write_atomic(
    path: str | os.PathLike, data: bytes | bytearray | Iterable[bytes | memoryview], *, unchanged: Stamp | None = None
) -> None:
    """Write ``data`` (bytes, or chunks of bytes) to ``path`` atomically (docs/commands.md and docs/safety.md).

    A temporary file next to the file ``path`` resolves to (``resolve_output``: a symbolic link is
    written through and stays a link), with the owner, group and mode of the file it replaces;
    fsync; ``os.replace``; fsync of its folder. On any failure (an OSError, SIGINT, SIGTERM or SIGHUP, which raise
    ``Interrupted`` during the write) the temporary file and the folders this call created are
    removed, an existing file is left byte-identical, and an OSError comes back as
    ``WriteFailed`` naming ``path``. Just before the rename the target is checked again
    (``_check_replaceable``): not a link, folder, FIFO or device, not a file of several hard
    links, and, with ``unchanged`` (from ``read_regular_file_stamped``), not changed since it
    was read. SIGKILL cannot be caught: it can leave a ``.<name>.*.tmp`` file.
    """
    shown = os.fspath(path)
    target = resolve_output(shown)
    made = _missing_folders(os.fspath(target.parent))
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
            sync_folder(target.parent)  # the rename itself on disk
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


WRITES_HELD = 256  # write_atomic_all's files written with signals held at once: a Ctrl-C waits for as many


def write_atomic_all(files: Iterable[tuple[Output, bytes | bytearray]]) -> None:
    """Write many files as ``write_atomic`` writes one, with one flush of their data instead of one
    per file (docs/safety.md#how-a-file-is-written). Each output is one ``check_outputs`` checked,
    written at the file the check found its name leads to. Each goes into a temporary file next to the
    file it names, with that file's owner, group and mode, and is not synced on its own; once all
    are written, one ``os.sync`` puts their data on disk; then each is checked as ``write_atomic``
    checks (``_check_replaceable``) and renamed over its file, and a second ``os.sync`` puts the
    new names on disk (a folder per file, as fill's solver-scores/<model>/<item>/ often are,
    would make one fsync per folder as dear as one per file); with no file given, nothing is
    flushed. So a file is, at any moment,
    absent, old or complete. A failure or a signal removes
    every temporary file not yet renamed and the folders this call made that are still empty;
    files already renamed stay, each whole. An OSError comes back as ``WriteFailed`` naming the
    file it concerned. Signals wait while ``WRITES_HELD`` files are written, so that each
    temporary file is created and recorded as one step, without two system calls per file; a
    signal during the renames waits for them all (each file is then whole and new)."""
    batch = _Batch()
    files = iter(files)
    with _signals_raise():
        try:
            while group := list(islice(files, WRITES_HELD)):
                with _signals_held():
                    for output, data in group:
                        batch.write(output, data)
            if batch.pending:
                os.sync()  # their data
                batch.rename_all()
                os.sync()  # their names: one flush, where syncing each folder costs as much as each file
        except BaseException as exc:
            batch.clean_up()
            if isinstance(exc, OSError) and not isinstance(exc, WriteFailed):
                raise WriteFailed(exc.errno, exc.strerror or str(exc), batch.shown) from None
            raise


class _Batch:
    """The temporary files of ``write_atomic_all``: written, then renamed in order."""

    def __init__(self) -> None:
        self.pending: list[tuple[str, str, str]] = []  # (path as given, target, temporary file)
        self.renamed = 0
        self.made: list[str] = []
        self.shown = ""
        self.folders: set[str] = set()  # the folders files were written into or made

    def write(self, output: Output, data: bytes | bytearray) -> None:
        """One file, with signals held by the caller."""
        self.shown, target = output.shown, output.target
        folder, name = os.path.split(target)
        missing = _missing_folders(folder, self.folders)
        for made in reversed(missing):  # outermost first
            os.mkdir(made)
            self.made.append(made)
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
        self.pending.append((self.shown, target, tmp))
        self.folders.add(folder)
        self.folders.update(missing)
        try:
            _take_identity(fd, target)
            _write_all(fd, data)
        finally:
            os.close(fd)

    def rename_all(self) -> None:
        with _signals_held():  # a signal waits for the renames (no write is left: they are quick)
            for shown, target, tmp in self.pending:
                self.shown = shown
                _check_replaceable(shown, target, None)
                os.replace(tmp, target)
                self.renamed += 1

    def clean_up(self) -> None:
        with _signals_held():
            for _, _, tmp in self.pending[self.renamed :]:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(tmp)
            for folder in sorted(self.made, key=lambda f: f.count(os.sep), reverse=True):  # deepest first
                with contextlib.suppress(OSError):  # one something else filled, or a file renamed into, stays
                    os.rmdir(folder)


def _write_all(fd: int, data: bytes | bytearray) -> None:
    """Write all of ``data`` to ``fd`` (``os.write`` may write a part)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def sync_folder(folder: Path) -> None:
    """fsync a folder: the names renamed into it are on disk once this returns. A file system that
    cannot sync a folder (EINVAL) keeps its names as it keeps them."""
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise
    finally:
        os.close(fd)


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
