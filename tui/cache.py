"""The cache of scored runs: reopening an unchanged run shows it without scoring it again.

One file per scored run in ``$XDG_CACHE_HOME/tcsexam/runs/`` (``~/.cache/tcsexam/runs/``; an empty
or relative HOME is no home, and then there is no cache), named by the run's key: the sha256 of
every input file's bytes (attempts.csv, cohort.json, the suite, the reference, every file under
records/), the paths the index names, the thresholds, the tool version and the digest of the
scoring code itself. A records file's sha256 is taken again only when its stat changed, as git's
index does: the stat index of a records folder (``StatIndex``) keeps each file's size, mtime, ctime,
inode and device with the sha256 they had, and an entry is trusted only when the file's ctime was
more than ``RACY_NS`` before the hash was taken (docs/decisions.md#the-dashboard). A file holds what the
dashboard's state needs beside the loaded run: the index document, the plan, the records files
used and the per-instance columns, as msgpack (msgspec) with the arrays as raw bytes, never a
pickle. It is written atomically (scoring.safety.outputs.write_atomic) and read defensively: a file
that does not decode, holds another key or arrays of the wrong length is ignored. The CACHE_KEEP
most recently used files are kept (docs/dashboard.md#the-cache-of-scored-runs).

A file is the Overview's part first (``CachedHead``: the index document as the Overview reads it,
``overview_part``), its length before it, then the rest (``CachedBody``: the whole document, the
plan, the columns), so that a reopen reads and decodes what it shows first without the rest.

Beside them, for each run's place (the paths as the command line names them, the thresholds, the
code digest), the key last stored or read there (``LastStored``): a reopen shows that run before any
input is read or even located (``peek``), and the stat of attempts.csv and cohort.json then decides
whether a large run is read in the dashboard's process (``stored_before``).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import stat
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from .columns import InstanceColumns
from .settings import user_folder
from .stat_index import STATS, FileStat, StatIndex, records_digests, stat_of, stats_path

CACHE_FORMAT = 2
CACHE_KEEP = 8  # scored runs kept: the most recently used
SUFFIX = ".tcsexam-run"
LAST = ".tcsexam-last"  # the key last stored for a run's place (``LastStored``)
FLOAT = np.dtype("<f8")
CODE = np.dtype("u1")


def cache_folder() -> Path | None:
    """Where scored runs are kept (XDG_CACHE_HOME, else ~/.cache); None without a home."""
    folder = user_folder("XDG_CACHE_HOME", ".cache")
    return None if folder is None else folder / "runs"


@functools.cache
def code_digest() -> str:
    """The tool version and a sha256 of the scoring code and of this loader (its .py files), so that
    an edited or upgraded tool never serves what an older one computed under the same version."""
    from tcsexam import scoring
    from tcsexam.scoring import __version__

    digest = hashlib.sha256(__version__.encode())
    here = Path(__file__).parent
    files = sorted(Path(scoring.__file__).parent.rglob("*.py")) + [
        here / n for n in ("state.py", "loader.py", "cache.py", "stat_index.py", "columns.py")
    ]
    for path in files:
        digest.update(str(path.relative_to(path.parents[1]) if path.is_relative_to(here) else path.name).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def indexed_records_digests(folder: Path, root: Path, say=None) -> dict[str, str] | None:
    """``records_digests`` with the folder's stat index in the cache ``folder``: read (a file that does
    not decode, or is another folder's, is no index), then written back as the files are now; ``say``
    hears how far the check is."""
    path = stats_path(folder, root)
    real = os.path.realpath(root)
    known: dict[str, FileStat] = {}
    with contextlib.suppress(OSError, msgspec.DecodeError, msgspec.ValidationError):
        index = msgspec.msgpack.decode(path.read_bytes(), type=StatIndex)
        if index.format == CACHE_FORMAT and index.root == real:
            known = index.files
    before = dict(known)
    digests = records_digests(root, known, say)
    if digests is not None and known != before:
        store(folder, path, msgspec.msgpack.encode(StatIndex(CACHE_FORMAT, real, known)))
    return digests


def run_key(run, thresholds: dict[str, float], records: dict[str, str] | None) -> str:
    """The key of a loaded run (scoring.pipeline.run.Run, whose ``sha256`` holds the hashes of the bytes it
    parsed): the sha256 of everything the scored run depends on."""
    parts = {
        "format": CACHE_FORMAT,
        "code": code_digest(),
        "thresholds": sorted(thresholds.items()),
        "benchmark": str(run.paths.benchmark_source),
        "inputs": {name: [str(Path(run.input_paths[name]).resolve()), sha] for name, sha in sorted(run.sha256.items())},
        "records": None,
    }
    if run.paths.records is not None:
        parts["records"] = [str(Path(run.paths.records).resolve()), sorted((records or {}).items())]
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def place_path(folder: Path, config) -> Path:
    """Where the key last stored for a run's place is kept (``LastStored``): named by the paths the
    command line names (tui.state.DashboardConfig: RUN_DIR and the options, resolved as the file system
    has them now, the current folder where no RUN_DIR is named; never their bytes), the thresholds and
    the code digest, so that it is found before any input is read or located. Where the inputs then
    lie, and what they hold, is what the check of a reopen finds out."""
    named = [config.run_dir, config.attempts, config.cohort, config.records, config.benchmark]
    place = {
        "code": code_digest(),
        "thresholds": sorted(config.thresholds.items()),
        "named": [None if p is None else os.path.realpath(p) for p in named],
        "here": None if config.run_dir else os.path.realpath("."),
        "suite": config.suite,
    }
    return folder / f"{hashlib.sha256(json.dumps(place, sort_keys=True).encode()).hexdigest()}{LAST}"


class LastStored(msgspec.Struct, forbid_unknown_fields=True):
    """The key of the scored run last stored (or read) for a run's place, and the stat of its
    attempts.csv and cohort.json then (``stat_of``)."""

    format: int
    key: str
    tables: list[tuple[int, int, int, int, int]]


def table_stats(paths) -> list[tuple[int, int, int, int, int]] | None:
    try:
        return [stat_of(os.stat(p)) for p in (paths.attempts, paths.cohort)]
    except OSError:
        return None


def last_stored(folder: Path, config) -> LastStored | None:
    """What ``place_path`` holds; None for nothing there, or a file that does not decode."""
    with contextlib.suppress(OSError, msgspec.DecodeError, msgspec.ValidationError):
        last = msgspec.msgpack.decode(place_path(folder, config).read_bytes(), type=LastStored)
        if last.format == CACHE_FORMAT:
            return last
    return None


def remember(folder: Path, config, paths, key: str) -> None:
    """Keep ``key`` as the run last stored or read at this place (written only when it changed)."""
    stats = table_stats(paths)
    if stats is None:
        return
    last = LastStored(CACHE_FORMAT, key, stats)
    if last_stored(folder, config) != last:
        store(folder, place_path(folder, config), msgspec.msgpack.encode(last))


def stored_before(config, paths) -> bool:
    """Whether this run was stored with its attempts.csv and cohort.json as they are now (their stat,
    as ``trusted`` compares it; nothing is read): whether a large run is worth reading in the
    dashboard's own process rather than in a loader process. It decides only where the run is read,
    never what is shown."""
    folder = cache_folder()
    last = last_stored(folder, config) if folder is not None else None
    return last is not None and [tuple(t) for t in last.tables] == table_stats(paths)


HEAD_LENGTH = 8  # bytes: the length of a cache file's head (``CachedHead``), little-endian, first in the file


OVERVIEW_MODEL_FIELDS = ("status", "index", "track_means", "ci")  # of a model's entry, with its tasks'
OVERVIEW_TASK_FIELDS = ("track", "status")


def overview_part(document: dict) -> dict:
    """The index document as the Overview reads it (tui/panes/overview/views.py: its rows, status line
    and detail line): every top-level field, and of each model its status, index, track means and
    intervals and its tasks' track and status; a third of the objects of the whole document at 2,000
    models, so that a reopen decodes it in a third of the time."""
    models = {
        name: {
            **{field: m[field] for field in OVERVIEW_MODEL_FIELDS if field in m},
            "tasks": {t: {f: task[f] for f in OVERVIEW_TASK_FIELDS} for t, task in m["tasks"].items()},
        }
        for name, m in document["models"].items()
    }
    return {**document, "models": models}


class CachedHead(msgspec.Struct, forbid_unknown_fields=True):
    """The first part of a cache file: what the Overview shows (``overview_part``)."""

    format: int
    key: str
    overview: dict[str, Any]


def read_head(path: Path, key: str) -> CachedHead | None:
    """The head of the cache file ``path`` alone (the rest is not read), when it is a scored run of
    ``key``; None for no such file or anything else."""
    with contextlib.suppress(OSError, ValueError, msgspec.DecodeError, msgspec.ValidationError):
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        with open(fd, "rb") as fh:
            st = os.fstat(fh.fileno())
            length = int.from_bytes(fh.read(HEAD_LENGTH), "little")
            if not stat.S_ISREG(st.st_mode) or HEAD_LENGTH + length > st.st_size:
                return None
            data = fh.read(length)
            if len(data) != length:
                return None
        head = msgspec.msgpack.decode(data, type=CachedHead)
        if head.format == CACHE_FORMAT and head.key == key:
            return head
    return None


def peek(config) -> dict | None:
    """The Overview's part (``overview_part``) of the scored run last stored for this run's place
    (``place_path``), read before any input is read or located: what a reopen shows at once, marked as
    being checked; None when there is none, or no such file. Only the file's head is read (``read_head``)."""
    folder = cache_folder()
    last = last_stored(folder, config) if folder is not None else None
    if folder is None or last is None:
        return None
    head = read_head(entry_path(folder, last.key), last.key)
    return None if head is None else head.overview


class CachedTask(msgspec.Struct, forbid_unknown_fields=True):
    direction: str
    kind: str
    width: int  # the names' fixed width in bytes (numpy dtype S)
    names: bytes
    mu: bytes
    s: bytes
    scale: bytes


class CachedAttempt(msgspec.Struct, array_like=True):
    model: str
    item: str
    attempt: str
    task: str
    start: int  # its instances' slice of the status, A, z and phi arrays
    stop: int
    relative_score: float
    unscored: list[str]


class CachedBody(msgspec.Struct, forbid_unknown_fields=True):
    """The rest of a cache file, after its head (``CachedHead``): the records files used and the columns."""

    format: int
    key: str
    document: dict[str, Any]
    plan: dict[str, Any] | None
    records_used: dict[str, str]
    tasks: dict[str, CachedTask]
    attempts: list[CachedAttempt]
    # the per-instance arrays: decoded as views of the file's bytes, not copies (and encoded from views)
    status: memoryview
    A: memoryview
    z: memoryview
    phi: memoryview


def entry_path(folder: Path, key: str) -> Path:
    return folder / f"{key}{SUFFIX}"


def encode_run(
    key: str, document: dict, plan: dict | None, records_used: dict[str, str], columns: dict, consume: bool = False
) -> bytes:
    """A scored run's cache file: the columns of each task's attempts share its names, mu, s and scale.
    ``consume``: each attempt's per-instance arrays are let go once joined (the columns are of no more use
    to the caller), so that they are never held twice."""
    tasks: dict[str, CachedTask] = {}
    attempts: list[CachedAttempt] = []
    at = 0
    for (model, item, attempt), cols in columns.items():
        if cols.task not in tasks:
            tasks[cols.task] = CachedTask(
                cols.direction,
                cols.kind,
                cols.names.dtype.itemsize,
                cols.names.tobytes(),
                *(np.ascontiguousarray(getattr(cols, f), FLOAT).tobytes() for f in ("mu", "s", "scale")),
            )
        n = len(cols)
        attempts.append(CachedAttempt(model, item, attempt, cols.task, at, at + n, cols.relative_score, cols.unscored))
        at += n
    values = list(columns.values())

    def joined(field: str, dtype: np.dtype) -> memoryview:  # encoded as bytes, without a copy
        out = np.concatenate([np.asarray(getattr(c, field), dtype) for c in values]) if values else np.zeros(0, dtype)
        if consume:
            for c in values:
                setattr(c, field, None)
        return out.data

    head = msgspec.msgpack.encode(CachedHead(CACHE_FORMAT, key, overview_part(document)))
    body = CachedBody(
        CACHE_FORMAT,
        key,
        document,
        plan,
        records_used,
        tasks,
        attempts,
        joined("status", CODE),
        joined("A", FLOAT),
        joined("z", FLOAT),
        joined("phi", FLOAT),
    )
    return len(head).to_bytes(HEAD_LENGTH, "little") + head + msgspec.msgpack.encode(body)


class NotOurs(Exception):
    """A cache file that is not a scored run of this key (corrupt, foreign, or of another version)."""


def decode_run(data: bytes, key: str) -> tuple[dict, dict | None, dict[str, str], dict]:
    """(document, plan, records_used, columns) from a cache file; NotOurs for anything else."""
    length = int.from_bytes(data[:HEAD_LENGTH], "little")
    if len(data) < HEAD_LENGTH + length:
        raise NotOurs("a head longer than the file")
    view = memoryview(data)
    try:
        head = msgspec.msgpack.decode(view[HEAD_LENGTH : HEAD_LENGTH + length], type=CachedHead)
        entry = msgspec.msgpack.decode(view[HEAD_LENGTH + length :], type=CachedBody)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise NotOurs(str(exc)) from None
    if {head.format, entry.format} != {CACHE_FORMAT} or {head.key, entry.key} != {key}:
        raise NotOurs("another run's or another version's file")
    try:
        status = np.frombuffer(entry.status, CODE)
        A, z, phi = (np.frombuffer(getattr(entry, f), FLOAT) for f in ("A", "z", "phi"))
        total = len(status)
        if not (len(A) == len(z) == len(phi) == total):
            raise NotOurs("arrays of different lengths")
        shared: dict[str, tuple] = {}
        for name, task in entry.tasks.items():
            names = np.frombuffer(task.names, f"S{task.width}") if task.width else np.zeros(0, "S1")
            mu, s, scale = (np.frombuffer(getattr(task, f), FLOAT) for f in ("mu", "s", "scale"))
            if not (len(names) == len(mu) == len(s) == len(scale)):
                raise NotOurs(f"task {name}: arrays of different lengths")
            shared[name] = (task, names, mu, s, scale)
        columns: dict = {}
        first: dict[str, InstanceColumns] = {}
        for a in entry.attempts:
            task, names, mu, s, scale = shared[a.task]
            if not (0 <= a.start <= a.stop <= total) or a.stop - a.start != len(names):
                raise NotOurs(f"attempt {a.model}/{a.item}/{a.attempt}: a slice that does not fit")
            part = slice(a.start, a.stop)
            cols = InstanceColumns(
                a.task, task.direction, task.kind, names, status[part], A[part], mu, s, scale, z[part], phi[part],
                a.relative_score, a.unscored,
            )  # fmt: skip
            like = first.setdefault(a.task, cols)
            if like is not cols:
                cols.orders["instance"] = like.ascending("instance")
            cols.ascending("instance")
            columns[(a.model, a.item, a.attempt)] = cols
    except (KeyError, ValueError) as exc:
        raise NotOurs(str(exc)) from None
    return entry.document, entry.plan, entry.records_used, columns


def stored_run(folder: Path, key: str) -> bytes | None:
    """The bytes of the cache file of ``key``, not yet decoded (``decoded_run``); None when there is none."""
    path = entry_path(folder, key)
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode):
            return None
        return path.read_bytes()
    except OSError:
        return None


def decoded_run(folder: Path, key: str, data: bytes):
    """The scored run in ``data``, the cache file of ``key`` (``decode_run``), or None when the file is
    not ours (then it is removed, so that it is written anew)."""
    path = entry_path(folder, key)
    try:
        found = decode_run(data, key)
    except NotOurs:
        with contextlib.suppress(OSError):
            path.unlink()
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # the most recently used are kept
    return found


def write_run(folder: Path, key: str, data: bytes) -> None:
    """Store a scored run (atomically), then keep only the CACHE_KEEP most recently used. A cache that
    cannot be written is no cache: nothing is reported."""
    store(folder, entry_path(folder, key), data)


def store(folder: Path, path: Path, data: bytes) -> None:
    """Write a cache file (atomically), then keep only the CACHE_KEEP most recently used of each kind; a
    cache that cannot be written is no cache: nothing is reported."""
    from tcsexam.scoring.safety.outputs import write_atomic

    from .writes import WRITING

    with WRITING, contextlib.suppress(OSError):
        write_atomic(path, data)
        for suffix in (SUFFIX, LAST, STATS):
            entries = sorted(
                (p for p in folder.iterdir() if p.name.endswith(suffix)),
                key=lambda p: p.stat().st_mtime_ns,
                reverse=True,
            )
            for old in entries[CACHE_KEEP:]:
                old.unlink()


def restamped(document: dict) -> dict:
    """The document as scoring it now gives it: only ``generated_at`` differs (and it is outside
    ``content_sha256``, docs/formats.md)."""
    provenance = {**document["provenance"], "generated_at": datetime.now(UTC).isoformat(timespec="seconds")}
    return {**document, "provenance": provenance}


def same_but_time(a: dict, b: dict) -> bool:
    """Whether two index documents differ at most by ``generated_at`` (``restamped``)."""
    untimed = [{**d, "provenance": {k: v for k, v in d["provenance"].items() if k != "generated_at"}} for d in (a, b)]
    return untimed[0] == untimed[1]


class RunCache:
    """The cache file of one loaded run: ``read`` what was stored for it, ``write`` what scoring gave;
    either way the run's place then names its key (``remember``)."""

    def __init__(
        self, folder: Path, key: str, records: dict[str, str] | None, run, config, packed: bool = False
    ) -> None:
        self.folder, self.key, self.records = folder, key, records
        self.paths, self.config = run.paths, config  # config: tui.state.DashboardConfig, the run's place
        self.packed = packed  # the records are a packed file (docs/formats.md#packed-records), hashed as read

    @classmethod
    def for_run(cls, run, config, say) -> RunCache | None:
        """The cache file of ``run``, loaded as ``config`` names it; None when there is no cache folder, or
        the records folder holds more than plain files."""
        folder = cache_folder()
        thresholds = config.thresholds
        if folder is None:
            return None
        from tcsexam.scoring.formats.packed import PackedRecords
        from tcsexam.scoring.vocab import PACKED_RECORDS_FILE

        root = run.records_root
        if isinstance(root, PackedRecords):  # read whole by load_run: its digest is that of the bytes scored
            packed = {PACKED_RECORDS_FILE: root.sha256}
            key = run_key(run, thresholds, packed)
            return cls(folder, key, packed, run, config, packed=True)
        records = None
        if run.paths.records is not None:
            say("listing the records files (to look for the run in the cache)")
            try:
                records = indexed_records_digests(folder, run.paths.records, say)
            except OSError:
                return None
            if records is None:
                return None
        return cls(folder, run_key(run, thresholds, records), records, run, config)

    def stored(self) -> bytes | None:
        """The cache file of this key, not yet decoded (``stored_run``)."""
        return stored_run(self.folder, self.key)

    def decoded(self, data: bytes):
        """The stored run in ``data``, from ``stored`` (``decoded_run``)."""
        found = decoded_run(self.folder, self.key, data)
        if found is not None:
            remember(self.folder, self.config, self.paths, self.key)
        return found

    def write(self, document: dict, plan: dict | None, checked) -> bytes | None:
        """Store the scored run, unless a records file changed between its hash here and its read by
        the cross-check (the key would then not describe what was scored); the file's bytes, or None
        when it is not stored."""
        records_used = checked.records_used.items()
        if not self.packed and any(self.records is None or self.records.get(rel) != sha for rel, sha in records_used):
            return None
        data = encode_run(self.key, document, plan, checked.records_used, checked.scores)
        write_run(self.folder, self.key, data)
        remember(self.folder, self.config, self.paths, self.key)
        return data
