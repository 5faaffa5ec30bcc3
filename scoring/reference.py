"""The fixed, versioned solver reference (SPEC section 2.2, rules R4 and R5).

A reference file is decoded by one typed decoder (``Reference``); the rules on
its values (R4, the magnitude limit, solve values, no instance both scored and
unscored) are then checked on one flat numpy array per task, each worded from
the instances it flags. The per-task statistics mu, s and scale (SPEC section
3) are computed once, at load, and the raw values let go.
"""

from __future__ import annotations

import gc
import hashlib
import itertools
import math
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Annotated

import msgspec
import numpy as np

from .decode import decode
from .errors import InputError, Problem, Problems, UsageError
from .jsonio import read_bytes
from .safety import check_name, check_relative_floor
from .vocab import Direction, Kind

NonEmpty = Annotated[str, msgspec.Meta(min_length=1)]


class ScaleFloor(msgspec.Struct, omit_defaults=True):  # SPEC 2.2 / R5
    """The floors of an instance's scale, max(s, relative·|mu|, absolute): both are required."""

    relative: Annotated[float, msgspec.Meta(ge=0)]
    absolute: Annotated[float, msgspec.Meta(gt=0)]


class ReferenceTask(msgspec.Struct, gc=False, omit_defaults=True):
    kind: Kind
    direction: Direction
    instances: dict[str, list[float | None]]


class UnscoredReferenceInstance(msgspec.Struct, gc=False, omit_defaults=True):
    task: NonEmpty
    instance: NonEmpty
    values: list[float | None] = msgspec.field(default_factory=list)


# SPEC 2.2. Every struct of the file omits defaults when encoded, so that encoding never adds a key
# (the cheap duplicate-key check, ``decode.reject_duplicate_keys``). The docstring is the schema's
# description (``tcsexam schema reference``).
class Reference(msgspec.Struct, gc=False, omit_defaults=True):
    """A fixed, versioned solver reference: per solver task its kind, direction and reference
    instances, against which solver attempts are scored; extra keys are ignored
    (docs/rules.md#solver-score)."""

    reference_id: NonEmpty
    suite: NonEmpty
    scale_floor: ScaleFloor
    tasks: dict[str, ReferenceTask]
    # UNSET when the file leaves it out (then none): encoding writes back exactly the keys the file
    # had, an empty list included, so the cheap duplicate-key check holds for every valid file
    unscored_reference_instances: (
        Annotated[list[UnscoredReferenceInstance], msgspec.Meta(extra_json_schema={"default": []})] | msgspec.UnsetType
    ) = msgspec.UNSET

    @property
    def unscored(self) -> list[UnscoredReferenceInstance]:
        """The unscored reference instances ([] when the file lists none)."""
        return self.unscored_reference_instances or []


REFERENCE = msgspec.json.Decoder(Reference)


def encoded_colons(header: Reference) -> int:
    """The ':' of ``header``'s JSON encoding (the cheap duplicate-key check,
    ``decode.reject_duplicate_keys``), without encoding its 10^6 instance values: the rest is
    encoded with every task's instances left out, and each instance adds the ':' after its name
    and those in its name (a list of numbers and nulls holds none)."""
    tasks = {task: msgspec.structs.replace(spec, instances={}) for task, spec in header.tasks.items()}
    rest = msgspec.json.encode(msgspec.structs.replace(header, tasks=tasks)).count(b":")
    return rest + sum(len(spec.instances) + "".join(spec.instances).count(":") for spec in header.tasks.values())


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic garbage collection while a reference's 10^6 value lists are alive (they hold no
    cycles; the collector would walk them again and again as other objects are made)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def sample_root() -> Path:
    """The bundled synthetic sample (package data of ``sample_runs``), installed or editable."""
    return Path(str(resources.files("sample_runs")))


SAMPLE_BENCHMARK = "bundled synthetic sample"  # provenance.benchmark when the sample was found
GIVEN_BENCHMARK = "given"  # provenance.benchmark for --benchmark or $TCSEXAM_BENCHMARK


def locate_benchmark(option: str | Path | None) -> tuple[Path, str]:
    """SPEC 2: the benchmark folder (--benchmark, else $TCSEXAM_BENCHMARK, else the bundled
    sample) and how it was found, as provenance.benchmark words it."""
    if option:
        return Path(option), GIVEN_BENCHMARK
    env = os.environ.get("TCSEXAM_BENCHMARK")
    if env:
        return Path(env), GIVEN_BENCHMARK
    return sample_root() / "benchmark", SAMPLE_BENCHMARK


def sample_benchmark_notice(source: str, benchmark: Path, reference_id: str) -> str | None:
    """SPEC 2: the synthetic sample is never used in silence. None for a given benchmark; the
    notice line for a cohort naming a reference the sample holds; else a usage error naming
    both ways to point at the real benchmark. ``reference_id`` is a checked name."""
    if source != SAMPLE_BENCHMARK:
        return None
    if (benchmark / "references" / reference_id).is_dir():
        return (
            f"note: the benchmark is the bundled synthetic sample (reference '{reference_id}'), "
            "not the real TCSExam benchmark"
        )
    raise UsageError(
        f"the cohort names reference '{reference_id}', which the bundled synthetic sample does not hold: "
        "point at the real benchmark folder with --benchmark DIR or TCSEXAM_BENCHMARK=DIR "
        "(docs/formats.md#the-benchmark-folder)"
    )


DEFAULT_REFERENCE_ID = "paper-k3-fixed-260925"
MAX_REFERENCE_MAGNITUDE = 1e150
MAX_LISTED = 200  # instances named per rule and task; the rest are counted


@dataclass
class TaskValues:
    """The reference runs of one task: names, the raw lists and one flat array (NaN = unusable)."""

    names: list[str]
    lists: list[list]
    lengths: np.ndarray
    flat: np.ndarray

    @cached_property
    def row(self) -> np.ndarray:
        return np.repeat(np.arange(len(self.names)), self.lengths)

    @cached_property
    def usable(self) -> np.ndarray:
        return np.isfinite(self.flat)

    @cached_property
    def position(self) -> dict[str, int]:
        return dict(zip(self.names, range(len(self.names)), strict=True))

    @cached_property
    def counts(self) -> np.ndarray:
        """R4: the number of usable (finite) values of each instance."""
        return np.bincount(self.row[self.usable], minlength=len(self.names))


def task_values(instances: dict[str, list[float | None]]) -> TaskValues:
    """A task's instances flattened into one array (null -> NaN)."""
    names = list(instances)
    lists = list(instances.values())
    lengths = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
    flat = np.array(list(itertools.chain.from_iterable(lists)), dtype=np.float64).reshape(-1)
    return TaskValues(names, lists, lengths, flat)


@dataclass
class TaskReference:
    """Per-instance reference statistics of one solver task, as aligned arrays."""

    task: str
    kind: str
    direction: str
    names: list[str]
    mu: np.ndarray
    s: np.ndarray
    scale: np.ndarray
    unscored: frozenset[str] = frozenset()

    @cached_property
    def position(self) -> dict[str, int]:
        return dict(zip(self.names, range(len(self.names)), strict=True))

    @property
    def n_scored(self) -> int:
        return len(self.names)


@dataclass
class LoadedReference:
    """A checked reference file: its header (ids, floors, unscored instances) and the statistics
    of each task."""

    path: Path
    header: Reference  # every task's instances emptied once its statistics are computed
    tasks: dict[str, TaskReference]
    sha256: str = ""

    @property
    def reference_id(self) -> str:
        return self.header.reference_id

    @property
    def suite(self) -> str:
        return self.header.suite

    def has_task(self, task: str) -> bool:
        return task in self.tasks

    def task(self, task: str) -> TaskReference:
        return self.tasks[task]


def sample_mean_and_sd(values: TaskValues) -> tuple[np.ndarray, np.ndarray]:
    """SPEC 3: mu = mean of the usable values (math.fsum), s = their sample sd (n-1).

    s uses the corrected two-pass formula, var = (sum d^2 - (sum d)^2 / n) / (n - 1)
    with d = x - mu, clipped at 0 before the square root.
    """
    n_inst = len(values.names)
    counts = values.counts
    lists = values.lists
    unusable_rows = np.unique(values.row[~values.usable]).tolist()
    if unusable_rows:  # rows with a null run: fsum over their usable values only
        lists = list(lists)
        for i in unusable_rows:
            lists[i] = [x for x in lists[i] if x is not None]
    sums = np.fromiter(map(math.fsum, lists), dtype=np.float64, count=n_inst)
    mu = sums / np.maximum(counts, 1)
    d = np.where(values.usable, values.flat - mu[values.row], 0.0)
    sum_d = np.bincount(values.row, weights=d, minlength=n_inst)
    sum_d2 = np.bincount(values.row, weights=d * d, minlength=n_inst)
    with np.errstate(divide="ignore", invalid="ignore"):
        var = (sum_d2 - sum_d * sum_d / counts) / (counts - 1)
    s = np.sqrt(np.maximum(var, 0.0))
    return mu, s


def scale_with_floors(mu: np.ndarray, s: np.ndarray, relative: float, absolute: float) -> np.ndarray:
    """SPEC 3: scale = max(s, relative*|mu|, absolute) with both floors from the reference file."""
    return np.maximum(np.maximum(s, relative * np.abs(mu)), absolute)


def reference_statistics(header: Reference, task: str, values: TaskValues) -> TaskReference:
    """SPEC 3: mu, s and scale of every scored instance of one task."""
    spec = header.tasks[task]
    mu, s = sample_mean_and_sd(values)
    floor = header.scale_floor
    scale = scale_with_floors(mu, s, floor.relative, floor.absolute)
    unscored = frozenset(u.instance for u in header.unscored if u.task == task)
    return TaskReference(task, spec.kind, spec.direction, values.names, mu, s, scale, unscored)


def _name_rows(problems: Problems, file: str, where: str, names: list[str], rows: np.ndarray, message: str) -> None:
    for i in rows[:MAX_LISTED].tolist():
        problems.add(file, where, names[i], message)
    if rows.size > MAX_LISTED:
        problems.add(file, where, "", f"… and {rows.size - MAX_LISTED} more instances: {message}")


def check_reference_names(ref: Reference, file: str, problems: Problems) -> None:
    """SPEC 13: the reference id, the suite and every task are names (never paths); README
    "Safety": a relative scale floor outside [0, 1] is rejected."""
    for value, kind, field_name in ((ref.reference_id, "reference id", "reference_id"), (ref.suite, "suite", "suite")):
        problem = check_name(value, kind)
        if problem:
            problems.add(file, "", field_name, problem)
    for task in ref.tasks:
        problem = check_name(task, "item")
        if problem:
            problems.add(file, "tasks", task, problem)
    problem = check_relative_floor(ref.scale_floor.relative)
    if problem:
        problems.add(file, "scale_floor", "relative", problem)


def check_reference_rules(ref: Reference, values: dict[str, TaskValues], file: str) -> list[Problem]:
    """R4 (two usable values per scored instance), magnitude limit, solve values in {0,1}, no overlap;
    the names and the relative floor (SPEC 13)."""
    problems = Problems()
    check_reference_names(ref, file, problems)
    for task, spec in ref.tasks.items():
        v = values[task]
        where = f"tasks.{task}.instances"
        if not v.names:
            problems.add(file, f"tasks.{task}", "instances", "a task needs at least one scored instance")
            continue
        few = np.flatnonzero(v.counts < 2)
        for i in few[:MAX_LISTED].tolist():
            problems.add(
                file,
                where,
                v.names[i],
                f"R4: a scored instance needs at least two usable values, "
                f"found {int(v.counts[i])}; move it to unscored_reference_instances",
            )
        if few.size > MAX_LISTED:
            problems.add(
                file, where, "", f"… and {few.size - MAX_LISTED} more instances with fewer than two usable values"
            )
        big = v.usable & (np.abs(v.flat) > MAX_REFERENCE_MAGNITUDE)
        _name_rows(
            problems, file, where, v.names, np.unique(v.row[big]), "a reference value exceeds 1e150 in magnitude"
        )
        if spec.kind == "solve":
            bad = v.usable & (v.flat != 0.0) & (v.flat != 1.0)
            _name_rows(
                problems,
                file,
                where,
                v.names,
                np.unique(v.row[bad]),
                "a 'solve' task takes values 1 (solved) or 0 (not solved)",
            )
    seen: set[tuple[str, str]] = set()
    for i, u in enumerate(ref.unscored):
        where = f"unscored_reference_instances[{i}]"
        if u.task in values and u.instance in values[u.task].position:
            problems.add(file, where, "instance", f"'{u.instance}' of task '{u.task}' is also a scored instance")
        if (u.task, u.instance) in seen:
            problems.add(file, where, "instance", f"'{u.instance}' of task '{u.task}' is listed twice")
        seen.add((u.task, u.instance))
    return problems.items


def read_reference(data: bytes, file: str, path: Path | None = None) -> LoadedReference:
    """Decode and check a reference file's bytes; raises InputError listing every problem."""
    with collector_paused():  # until the value lists are let go
        header = decode(data, Reference, file, REFERENCE, encoded_colons)
        values = {task: task_values(spec.instances) for task, spec in header.tasks.items()}
        problems = check_reference_rules(header, values, file)
        if problems:
            raise InputError(problems)
        tasks = {task: reference_statistics(header, task, v) for task, v in values.items()}
        for spec in header.tasks.values():
            spec.instances = {}  # the raw values are let go: the statistics are all that is used
        del values
    return LoadedReference(path or Path(file), header, tasks, hashlib.sha256(data).hexdigest())


def reference_from_dict(raw: object, file: str) -> LoadedReference:
    """``read_reference`` for a reference already in memory (the Python API, tests, generators)."""
    return read_reference(msgspec.json.encode(raw), file)


def load_reference(path: Path) -> LoadedReference:
    """Load and check a reference file; raises InputError listing every problem."""
    return read_reference(read_bytes(path, "reference file"), str(path), path)


def reference_path(benchmark: Path, reference_id: str, suite: str) -> Path:
    """BENCHMARK/references/<id>/<suite>.json for an id and a suite already checked (SPEC 13)."""
    for value, kind in ((reference_id, "reference id"), (suite, "suite")):
        problem = check_name(value, kind)
        if problem:  # the id and the suite are checked where they are read: here it is a bug
            raise ValueError(problem)
    return benchmark / "references" / reference_id / f"{suite}.json"


def default_reference_id(benchmark: Path) -> str:
    """SPEC 6: the benchmark folder's only reference id when it holds exactly one, else the
    paper's (DEFAULT_REFERENCE_ID)."""
    root = benchmark / "references"
    ids = sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
    return ids[0] if len(ids) == 1 else DEFAULT_REFERENCE_ID


def default_reference_suite(benchmark: Path, reference_id: str | None) -> str:
    """``solver-score`` without ``--reference``: the suite of the reference's only file
    (BENCHMARK/references/<id>/<suite>.json); several or none is a problem naming them."""
    rid = reference_id or default_reference_id(benchmark)
    folder = benchmark / "references" / rid
    suites = sorted(p.stem for p in folder.glob("*.json") if p.stem in ("lite", "full")) if folder.is_dir() else []
    if len(suites) == 1:
        return suites[0]
    if not suites:  # a missing input (exit 1)
        raise InputError(
            [Problem(str(folder), "", "", "it holds no lite.json or full.json: pass --reference-id or --benchmark")]
        )
    raise UsageError(f"{folder}: it holds {' and '.join(suites)}: pass --reference lite, full or a PATH")


def is_not_found(exc: InputError) -> bool:
    """True when ``exc`` is ``read_regular_file``'s "not found" and nothing else (a FIFO, folder
    or device at the path stays its own problem)."""
    return len(exc.problems) == 1 and exc.problems[0].message.endswith(" not found")


def resolve_reference(spec: str, benchmark: Path, reference_id: str | None) -> LoadedReference:
    """SPEC 6: ``lite``/``full`` resolve to BENCHMARK/references/<id>/<suite>.json (id: ``reference_id``,
    else ``default_reference_id``); anything else is a path."""
    if spec in ("lite", "full") and not (os.sep in spec or Path(spec).suffix):
        rid = reference_id or default_reference_id(benchmark)
        path = reference_path(benchmark, rid, spec)
        try:
            loaded = load_reference(path)
        except InputError as exc:
            if not is_not_found(exc):
                raise
            root = benchmark / "references"
            known = sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
            hint = f" (available: {', '.join(known)})" if known else ""
            raise InputError(
                [
                    Problem(
                        str(path),
                        "",
                        "",
                        f"reference '{rid}' for suite '{spec}' not found{hint}; pass --reference-id, or "
                        "--benchmark DIR (or TCSEXAM_BENCHMARK=DIR) for the benchmark that holds it",
                    )
                ]
            ) from None
        check_reference_identity(loaded, rid, spec)
        return loaded
    loaded = load_reference(Path(spec))
    if reference_id and loaded.reference_id != reference_id:
        raise InputError(
            [
                Problem(
                    spec,
                    "",
                    "reference_id",
                    f"file declares '{loaded.reference_id}' but --reference-id asks for '{reference_id}'",
                )
            ]
        )
    return loaded


def check_reference_identity(loaded: LoadedReference, reference_id: str, suite: str) -> None:
    """A file found under references/<id>/<suite>.json must declare that id and suite (R5: versioned)."""
    problems = Problems()
    if loaded.reference_id != reference_id:
        problems.add(
            loaded.path,
            "",
            "reference_id",
            f"file declares '{loaded.reference_id}' but was looked up as '{reference_id}'",
        )
    if loaded.suite != suite:
        problems.add(loaded.path, "", "suite", f"file declares suite '{loaded.suite}', expected '{suite}'")
    problems.raise_if_any()
