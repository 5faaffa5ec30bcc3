"""The fixed, versioned solver reference (docs/formats.md#reference, rules R4 and R5): ``load_reference``
makes a ``LoadedReference`` of one ``TaskReference`` per task.

A reference file is decoded by one typed decoder (``formats.reference.Reference``); the rules on
its values (R4, the magnitude limit, solve values, no instance both scored and
unscored) are then checked on one flat numpy array per task, each worded from
the instances it flags. The per-task statistics mu, s and scale (docs/rules.md#solver-score) are computed once, at load, and the raw values let go.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import msgspec
import numpy as np

from tcsexam.scoring.errors import InputError, Problem, Problems
from tcsexam.scoring.formats.decode import decode
from tcsexam.scoring.formats.json import collector_paused
from tcsexam.scoring.formats.reference import REFERENCE, Reference, encoded_colons
from tcsexam.scoring.safety.files import read_regular_file
from tcsexam.scoring.safety.names import check_name
from tcsexam.scoring.safety.numbers import check_relative_floor

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
    reference_id: str = ""  # of the file it comes from: how ``tcsexam reference`` names it
    suite: str = ""

    @cached_property
    def position(self) -> dict[str, int]:
        return dict(zip(self.names, range(len(self.names)), strict=True))

    @property
    def n_scored(self) -> int:
        return len(self.names)

    def listed_by(self) -> str:
        """The command that lists every instance of this task (docs/commands.md#reference): a
        message that names only some of them points there."""
        return f"tcsexam reference {self.reference_id} --suite {self.suite} --task {self.task}"


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

    def lacking_task(self, task: str) -> Problem:
        """The problem of a solver task this reference does not hold (docs/rules.md#aggregation and docs/commands.md)."""
        return Problem(str(self.path), "tasks", task, f"solver task '{task}' is not in reference '{self.reference_id}'")


def sample_mean_and_sd(values: TaskValues) -> tuple[np.ndarray, np.ndarray]:
    """docs/rules.md#solver-score: mu = mean of the usable values (math.fsum), s = their sample sd (n-1).

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
    """docs/rules.md#solver-score: scale = max(s, relative*|mu|, absolute) with both floors from the reference file."""
    return np.maximum(np.maximum(s, relative * np.abs(mu)), absolute)


def reference_statistics(header: Reference, task: str, values: TaskValues) -> TaskReference:
    """docs/rules.md#solver-score: mu, s and scale of every scored instance of one task."""
    spec = header.tasks[task]
    mu, s = sample_mean_and_sd(values)
    floor = header.scale_floor
    scale = scale_with_floors(mu, s, floor.relative, floor.absolute)
    unscored = frozenset(u.instance for u in header.unscored if u.task == task)
    return TaskReference(
        task, spec.kind, spec.direction, values.names, mu, s, scale, unscored, header.reference_id, header.suite
    )


def _name_rows(problems: Problems, file: str, where: str, names: list[str], rows: np.ndarray, message: str) -> None:
    for i in rows[:MAX_LISTED].tolist():
        problems.add(file, where, names[i], message)
    if rows.size > MAX_LISTED:
        problems.add(file, where, "", f"… and {rows.size - MAX_LISTED} more instances: {message}")


def check_reference_names(ref: Reference, file: str, problems: Problems) -> None:
    """docs/safety.md: the reference id, the suite and every task are names (never paths); README
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
    the names and the relative floor (docs/safety.md)."""
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
    return read_reference(read_regular_file(path, "reference file"), str(path), path)
