"""The fixed, versioned solver reference (SPEC section 2.2, rules R4 and R5).

Loading validates the whole file and lists every problem. The envelope is
validated by pydantic; instance values are checked in bulk (types, R4, the
magnitude limit) over one flat numpy array per task, and only when that check
fails is the strict pydantic model run to word the problems. The per-task
statistics mu, s and scale (SPEC section 3) are computed once per task.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
from pydantic import ValidationError

from .errors import InputError, Problem, Problems
from .jsonio import parse_json_bytes, read_bytes
from .models import Reference, ReferenceHeader, problems_from_validation

DEFAULT_REFERENCE_ID = "paper-k3-fixed-260925"
MAX_REFERENCE_MAGNITUDE = 1e150
MAX_LISTED = 200  # instances named per rule and task; the rest are counted
_NUMBER_TYPES = {int, float, type(None)}


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
        return {name: i for i, name in enumerate(self.names)}

    @cached_property
    def counts(self) -> np.ndarray:
        """R4: the number of usable (finite) values of each instance."""
        return np.bincount(self.row[self.usable], minlength=len(self.names))


def task_values(instances: dict) -> TaskValues | None:
    """Flatten a task's instances; None when some value is not a number or null (the strict model words it)."""
    names = list(instances)
    lists = list(instances.values())
    if set(map(type, lists)) - {list}:
        return None
    flat_list = list(itertools.chain.from_iterable(lists))
    if not set(map(type, flat_list)) <= _NUMBER_TYPES:
        return None
    lengths = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
    with np.errstate(over="ignore"):
        flat = np.array(flat_list, dtype=np.float64) if flat_list else np.zeros(0)
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
        return {name: i for i, name in enumerate(self.names)}

    @property
    def n_scored(self) -> int:
        return len(self.names)


@dataclass
class LoadedReference:
    path: Path
    model: ReferenceHeader
    values: dict[str, TaskValues]
    sha256: str = ""
    _tasks: dict[str, TaskReference] = field(default_factory=dict)

    @property
    def reference_id(self) -> str:
        return self.model.reference_id

    @property
    def suite(self) -> str:
        return self.model.suite

    def has_task(self, task: str) -> bool:
        return task in self.model.tasks

    def task(self, task: str) -> TaskReference:
        """Statistics of one task (computed on first use; the raw values are then let go)."""
        if task not in self._tasks:
            self._tasks[task] = reference_statistics(self, task)
            del self.values[task]
        return self._tasks[task]


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


def reference_statistics(ref: LoadedReference, task: str) -> TaskReference:
    spec = ref.model.tasks[task]
    values = ref.values[task]
    mu, s = sample_mean_and_sd(values)
    floor = ref.model.scale_floor
    scale = scale_with_floors(mu, s, float(floor.relative), float(floor.absolute))
    unscored = frozenset(u.instance for u in ref.model.unscored_reference_instances if u.task == task)
    return TaskReference(task, spec.kind, spec.direction, values.names, mu, s, scale, unscored)


def _name_rows(problems: Problems, file: str, where: str, names: list[str], rows: np.ndarray, message: str) -> None:
    for i in rows[:MAX_LISTED].tolist():
        problems.add(file, where, names[i], message)
    if rows.size > MAX_LISTED:
        problems.add(file, where, "", f"… and {rows.size - MAX_LISTED} more instances: {message}")


def check_reference_rules(ref: ReferenceHeader, values: dict[str, TaskValues], file: str) -> list[Problem]:
    """R4 (two usable values per scored instance), magnitude limit, solve values in {0,1}, no overlap."""
    problems = Problems()
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
    for i, u in enumerate(ref.unscored_reference_instances):
        where = f"unscored_reference_instances[{i}]"
        if u.task in values and u.instance in values[u.task].position:
            problems.add(file, where, "instance", f"'{u.instance}' of task '{u.task}' is also a scored instance")
        if (u.task, u.instance) in seen:
            problems.add(file, where, "instance", f"'{u.instance}' of task '{u.task}' is listed twice")
        seen.add((u.task, u.instance))
    return problems.items


def reference_from_dict(raw, file: str, path: Path | None = None, sha256: str = "") -> LoadedReference:
    """Validate a parsed reference; raises InputError listing every problem."""
    if not isinstance(raw, dict):
        raise InputError([Problem(file, "", "", f"expected a JSON object, found {type(raw).__name__}")])
    # pydantic validates the envelope; the instance values (10^6 lists in a large file) are set
    # aside and checked in bulk, so that they are neither copied nor walked one by one
    tasks = raw.get("tasks")
    instances: dict = {}
    slim = raw
    if isinstance(tasks, dict) and all(
        isinstance(t, dict) and isinstance(t.get("instances"), dict) for t in tasks.values()
    ):
        instances = {name: t["instances"] for name, t in tasks.items()}
        slim = {**raw, "tasks": {name: {**t, "instances": {}} for name, t in tasks.items()}}
    try:
        header = ReferenceHeader.model_validate(slim)
    except ValidationError:
        header = None
    values = {} if header is None else {t: task_values(instances.get(t, {})) for t in header.tasks}
    if header is None or any(v is None for v in values.values()):
        try:  # the strict model words every problem of the file
            Reference.model_validate(raw)
        except ValidationError as exc:
            raise InputError(problems_from_validation(exc, file)) from None
        raise InputError([Problem(file, "", "", "reference values could not be read")])  # pragma: no cover
    problems = check_reference_rules(header, values, file)
    if problems:
        raise InputError(problems)
    loaded = LoadedReference(path or Path(file), header, values, sha256)
    for task in header.tasks:  # statistics now, so that the raw values are let go before anything else loads
        loaded.task(task)
    return loaded


def load_reference(path: Path) -> LoadedReference:
    """Load and validate a reference file; raises InputError listing every problem."""
    file = str(path)
    data = read_bytes(path, "reference file")
    return reference_from_dict(parse_json_bytes(data, file), file, path, hashlib.sha256(data).hexdigest())


def reference_path(benchmark: Path, reference_id: str, suite: str) -> Path:
    return benchmark / "references" / reference_id / f"{suite}.json"


def resolve_reference(spec: str, benchmark: Path, reference_id: str | None) -> LoadedReference:
    """SPEC 6: ``lite``/``full`` resolve to BENCHMARK/references/<id>/<suite>.json; anything else is a path."""
    if spec in ("lite", "full") and not (os.sep in spec or Path(spec).suffix):
        rid = reference_id or DEFAULT_REFERENCE_ID
        path = reference_path(benchmark, rid, spec)
        if not path.is_file():
            root = benchmark / "references"
            known = sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
            hint = f" (available: {', '.join(known)})" if known else ""
            raise InputError(
                [
                    Problem(
                        str(path),
                        "",
                        "",
                        f"reference '{rid}' for suite '{spec}' not found{hint}; pass --reference-id or --benchmark",
                    )
                ]
            )
        loaded = load_reference(path)
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
