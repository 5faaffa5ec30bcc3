"""The fixed, versioned solver reference (SPEC section 2.2, rules R4 and R5).

Loading validates the file as a whole and lists every problem; the per-task
statistics mu, s and scale (SPEC section 3) are computed once per task as
numpy arrays.
"""

from __future__ import annotations

import hashlib
import math
import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
from pydantic import ValidationError

from .errors import InputError, Problem, Problems
from .jsonio import parse_json_bytes, read_bytes
from .models import Reference, problems_from_validation

DEFAULT_REFERENCE_ID = "paper-k3-fixed-260925"
MAX_REFERENCE_MAGNITUDE = 1e150


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
    model: Reference
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
        """Statistics of one task (computed on first use)."""
        if task not in self._tasks:
            self._tasks[task] = reference_statistics(self.model, task)
        return self._tasks[task]


def usable(values: list) -> list[float]:
    """R4: the usable values of a reference instance are its finite numbers (null = unusable run)."""
    return [float(v) for v in values if v is not None and math.isfinite(v)]


def sample_mean_and_sd(rows: list[list[float]]) -> tuple[np.ndarray, np.ndarray]:
    """SPEC 3: mu = mean of the usable values (math.fsum), s = sample sd (n-1).

    s uses the corrected two-pass formula, var = (sum d^2 - (sum d)^2 / n) / (n - 1)
    with d = x - mu, clipped at 0 before the square root.
    """
    n_inst = len(rows)
    counts = np.fromiter((len(r) for r in rows), dtype=np.int64, count=n_inst)
    mu = np.fromiter((math.fsum(r) for r in rows), dtype=np.float64, count=n_inst) / np.maximum(counts, 1)
    width = int(counts.max()) if n_inst else 0
    matrix = np.zeros((n_inst, width), dtype=np.float64)
    mask = np.arange(width)[None, :] < counts[:, None]
    if width:
        matrix[mask] = np.fromiter((v for r in rows for v in r), dtype=np.float64, count=int(counts.sum()))
    d = np.where(mask, matrix - mu[:, None], 0.0)
    sum_d = d.sum(axis=1)
    var = (np.einsum("ij,ij->i", d, d) - sum_d * sum_d / counts) / (counts - 1)
    s = np.sqrt(np.maximum(var, 0.0))
    return mu, s


def scale_with_floors(mu: np.ndarray, s: np.ndarray, relative: float, absolute: float) -> np.ndarray:
    """SPEC 3: scale = max(s, relative*|mu|, absolute) with both floors from the reference file."""
    return np.maximum(np.maximum(s, relative * np.abs(mu)), absolute)


def reference_statistics(ref: Reference, task: str) -> TaskReference:
    spec = ref.tasks[task]
    names = list(spec.instances)
    rows = [usable(spec.instances[name]) for name in names]
    mu, s = sample_mean_and_sd(rows)
    scale = scale_with_floors(mu, s, float(ref.scale_floor.relative), float(ref.scale_floor.absolute))
    unscored = frozenset(u.instance for u in ref.unscored_reference_instances if u.task == task)
    return TaskReference(task, spec.kind, spec.direction, names, mu, s, scale, unscored)


def check_reference_rules(ref: Reference, file: str) -> list[Problem]:
    """R4 (two usable values per scored instance), magnitude limit, solve values in {0,1}, no overlap."""
    problems = Problems()
    for task, spec in ref.tasks.items():
        if not spec.instances:
            problems.add(file, f"tasks.{task}", "instances", "a task needs at least one scored instance")
        for name, values in spec.instances.items():
            where = f"tasks.{task}.instances"
            good = usable(values)
            if len(good) < 2:
                problems.add(file, where, name, f"R4: a scored instance needs at least two usable values, "
                             f"found {len(good)}; move it to unscored_reference_instances")
            big = [v for v in good if abs(v) > MAX_REFERENCE_MAGNITUDE]
            if big:
                problems.add(file, where, name, f"reference value {big[0]!r} exceeds 1e150 in magnitude")
            if spec.kind == "solve" and any(v not in (0.0, 1.0) for v in good):
                problems.add(file, where, name, "a 'solve' task takes values 1 (solved) or 0 (not solved)")
    seen: set[tuple[str, str]] = set()
    for i, u in enumerate(ref.unscored_reference_instances):
        where = f"unscored_reference_instances[{i}]"
        if u.task in ref.tasks and u.instance in ref.tasks[u.task].instances:
            problems.add(file, where, "instance", f"'{u.instance}' of task '{u.task}' is also a scored instance")
        if (u.task, u.instance) in seen:
            problems.add(file, where, "instance", f"'{u.instance}' of task '{u.task}' is listed twice")
        seen.add((u.task, u.instance))
    return problems.items


def load_reference(path: Path) -> LoadedReference:
    """Load and validate a reference file; raises InputError listing every problem."""
    file = str(path)
    data = read_bytes(path, "reference file")
    raw = parse_json_bytes(data, file)
    if not isinstance(raw, dict):
        raise InputError([Problem(file, "", "", f"expected a JSON object, found {type(raw).__name__}")])
    try:
        model = Reference.model_validate(raw)
    except ValidationError as exc:
        raise InputError(problems_from_validation(exc, file)) from None
    problems = check_reference_rules(model, file)
    if problems:
        raise InputError(problems)
    return LoadedReference(path, model, hashlib.sha256(data).hexdigest())


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
            raise InputError([Problem(str(path), "", "", f"reference '{rid}' for suite '{spec}' not found{hint}; "
                                      "pass --reference-id or --benchmark")])
        loaded = load_reference(path)
        check_reference_identity(loaded, rid, spec)
        return loaded
    loaded = load_reference(Path(spec))
    if reference_id and loaded.reference_id != reference_id:
        raise InputError([Problem(spec, "", "reference_id",
                                  f"file declares '{loaded.reference_id}' but --reference-id asks for '{reference_id}'")])
    return loaded


def check_reference_identity(loaded: LoadedReference, reference_id: str, suite: str) -> None:
    """A file found under references/<id>/<suite>.json must declare that id and suite (R5: versioned)."""
    problems = Problems()
    if loaded.reference_id != reference_id:
        problems.add(loaded.path, "", "reference_id",
                     f"file declares '{loaded.reference_id}' but was looked up as '{reference_id}'")
    if loaded.suite != suite:
        problems.add(loaded.path, "", "suite", f"file declares suite '{loaded.suite}', expected '{suite}'")
    problems.raise_if_any()
