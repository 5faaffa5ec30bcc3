"""Per-instance results of scored attempts as numpy columns: what the Instances pane, Compare and the cache of
scored runs share (tui/cache.py stores them, tui/loader.py makes them from the records cross-check). It imports
nothing of the dashboard, so that both can import it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from tcsexam.scoring.vocab import FIRST_INCOMPLETE_CODE, RECORD_STATUSES

# The statuses a scored attempt can hold: ok and the failures, in scoring's code order.
STATUS_CODES = RECORD_STATUSES[:FIRST_INCOMPLETE_CODE]


@dataclass
class InstanceColumns:
    """Per-instance results of one attempt as numpy columns (what solver-score writes)."""

    task: str
    direction: str
    kind: str
    names: np.ndarray  # UTF-8 bytes, fixed width (dtype S): 10^6 names in a few MB, sorted in C
    status: np.ndarray  # uint8 codes into STATUS_CODES
    A: np.ndarray
    mu: np.ndarray
    s: np.ndarray
    scale: np.ndarray
    z: np.ndarray
    phi: np.ndarray
    relative_score: float
    unscored: list[str]
    orders: dict[str, np.ndarray] = field(default_factory=dict)  # ascending permutation per column

    def __len__(self) -> int:
        return len(self.names)

    def name(self, i: int) -> str:
        return self.names[i].decode("utf-8")

    def ascending(self, column: str) -> np.ndarray:
        """Stable ascending permutation by a column, NaN last (computed once per column)."""
        if column not in self.orders:
            if column == "instance":
                key = self.names
            elif column == "status":
                key = self.status
            else:
                values = getattr(self, column)
                key = np.where(np.isnan(values), np.inf, values)
            self.orders[column] = np.argsort(key, kind="stable").astype(np.int32 if len(key) < 2**31 else np.int64)
        return self.orders[column]

    def descending(self, column: str) -> np.ndarray:
        """The ascending permutation reversed, NaN still last (computed once per column)."""
        key = f"-{column}"
        if key not in self.orders:
            perm = self.ascending(column)
            if column in ("instance", "status"):
                self.orders[key] = perm[::-1].copy()
            else:
                n_nan = int(np.isnan(getattr(self, column)).sum())
                self.orders[key] = np.concatenate([perm[: len(perm) - n_nan][::-1], perm[len(perm) - n_nan :]])
        return self.orders[key]

    def order(self, column: str, descending: bool, status: int | None = None) -> np.ndarray:
        """Row indices sorted by a column (NaN last either way), optionally only one status."""
        perm = self.descending(column) if descending else self.ascending(column)
        if status is not None:
            perm = perm[self.status[perm] == status]
        return perm

    def precompute_orders(self) -> None:
        """Sort every column once (in a worker thread, after the table is shown in its default order,
        ``instance`` ascending) so that sorting in the UI is a lookup."""
        for column in ("instance", "status", "A", "mu", "s", "scale", "z", "phi"):
            self.descending(column)


class DecodedNames(Sequence[str]):
    """An InstanceColumns' names read as str, each decoded when it is read: the drill-down names 20 of them."""

    def __init__(self, names: np.ndarray) -> None:
        self._names = names

    def __len__(self) -> int:
        return len(self._names)

    def __getitem__(self, i):  # an index, or a slice (a list)
        if isinstance(i, slice):
            return [n.decode("utf-8") for n in self._names[i]]
        return self._names[i].decode("utf-8")


def instance_columns(scores: dict) -> dict:
    """The records cross-check's TaskScores by (model, item, attempt) as InstanceColumns. The attempts
    of a task share one array of its names and its order by name (made once, pickled once)."""
    first: dict[str, InstanceColumns] = {}
    out = {}
    for key, score in scores.items():
        cols = out[key] = columns_from_score(score, first.get(score.ref.task))
        first.setdefault(score.ref.task, cols)
    return out


def columns_from_score(score, like: InstanceColumns | None = None) -> InstanceColumns:
    """Wrap a scoring.pipeline.solver.TaskScore without recomputing anything; ``like``, the columns of
    another attempt of the same task, lends its names and their order."""
    ref = score.ref
    if like is not None:
        names = like.names
    elif ref.names:
        names = np.array([n.encode("utf-8") for n in ref.names], dtype="S")
    else:
        names = np.zeros(0, dtype="S1")
    status = score.codes  # codes into STATUS_CODES: a scored attempt has no incomplete status
    cols = InstanceColumns(
        ref.task,
        ref.direction,
        ref.kind,
        names,
        status,
        score.A,
        ref.mu,
        ref.s,
        ref.scale,
        score.z,
        score.phi,
        score.relative_score,
        score.unscored_instances,
    )
    if like is not None:
        cols.orders["instance"] = like.ascending("instance")
    cols.ascending("instance")  # the table's first view; the other orders are sorted once it is shown
    return cols
