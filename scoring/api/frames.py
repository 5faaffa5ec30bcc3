"""Data frames of scored results (docs/api.md#data-frames): the rows of each frame as plain records,
built from the index.json document (or the re-scored attempts), and the frame library the user has,
pandas or polars, imported only when a frame is asked for."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any, Literal

from tcsexam.scoring.vocab import TRACKS

Library = Literal["pandas", "polars"]
LIBRARIES: tuple[Library, ...] = ("pandas", "polars")
EXTRA = 'pip install "tcsexam[frames]"'  # the extra that brings pandas (docs/api.md#data-frames)

Row = dict[str, Any]


class FramesUnavailable(ImportError):
    """No frame library to build a data frame with: the message names the extra that installs one."""


def frame_library(library: Library | None) -> Any:
    """The module of ``library`` (pandas or polars); None: pandas if it is installed, else polars.
    FramesUnavailable names the extra to install when the one asked for, or both, are missing."""
    if library is not None and library not in LIBRARIES:
        raise ValueError(f"library must be 'pandas', 'polars' or None, got {library!r}")
    for name in (library,) if library else LIBRARIES:
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    wanted = library or "pandas or polars"
    raise FramesUnavailable(
        f"data frames need {wanted}, which is not installed: {EXTRA} installs pandas"
        + (", pip install polars installs polars" if library != "pandas" else "")
    )


def make_frame(rows: list[Row], columns: tuple[str, ...], library: Library | None) -> Any:
    """A data frame of ``rows`` with ``columns`` in this order (missing values are None: null in polars;
    in pandas <NA> in a column of whole numbers, which is Int64, NaN in a column of other numbers)."""
    module = frame_library(library)
    if module.__name__ == "polars":
        return (
            module.DataFrame(rows, schema=list(columns), orient="row")
            if rows
            else module.DataFrame(schema=list(columns))
        )
    frame = module.DataFrame(rows, columns=list(columns))
    for name in columns:  # a column of numbers with no value at all is still a column of numbers (NaN)
        values = [row.get(name) for row in rows]
        if all(is_number(v) for v in values):
            whole = any(v is not None for v in values) and all(v is None or isinstance(v, int) for v in values)
            # counts and ranks stay whole numbers where some are missing (pandas' Int64, <NA>), not floats
            frame[name] = frame[name].astype("Int64") if whole else module.to_numeric(frame[name])
    return frame


def is_number(value: Any) -> bool:
    return value is None or (isinstance(value, int | float) and not isinstance(value, bool))


INDEX_COLUMNS = ("model", "status", "track", "value", "se", "lo", "hi", "df", "tasks", "rank_best", "rank_worst")


def index_rows(document: Mapping[str, Any]) -> list[Row]:
    """One row per model and track, then the model's index row (``track`` 'index'): the track mean or
    the index (``value``), its interval (``ci``: se, lo, hi, df, and for a track its task count),
    and the model's rank interval (``ranks.models``; None when it is not ranked)."""
    ranks = document["ranks"]["models"] or {}
    rows: list[Row] = []
    for model, result in document["models"].items():
        rank = ranks.get(model) or {}
        common = {
            "model": model,
            "status": result["status"],
            "rank_best": rank.get("best"),
            "rank_worst": rank.get("worst"),
        }
        for track in TRACKS:
            ci = result["ci"]["tracks"].get(track) or {}
            rows.append(
                {**common, "track": track, "value": result["track_means"][track], **_interval(ci), "tasks": ci.get("m")}
            )
        ci = result["ci"]["index"] or {}
        rows.append({**common, "track": "index", "value": result["index"], **_interval(ci), "tasks": None})
    return rows


def _interval(ci: Mapping[str, Any]) -> Row:
    return {key: ci.get(key) for key in ("se", "lo", "hi", "df")}


TASK_COLUMNS = ("model", "item", "track", "status", "mean", "partial_mean", "adopted", "valid", "planned")


def task_rows(document: Mapping[str, Any]) -> list[Row]:
    """One row per model and task of the suite, as ``models.<model>.tasks`` holds it."""
    return [
        {"model": model, "item": item, **{key: task[key] for key in TASK_COLUMNS[2:]}}
        for model, result in document["models"].items()
        for item, task in result["tasks"].items()
    ]


INSTANCE_COLUMNS = ("model", "item", "attempt", "instance", "status", "A", "z", "phi")


def instance_rows(scores: Mapping[tuple[str, str, str], Any]) -> list[Row]:
    """One row per instance of every solver attempt re-scored from its records file
    (docs/rules.md#solver-score): its status, raw value ``A``, ``z`` and ``phi``; NaN (a failed
    instance's A and z) becomes None."""
    rows: list[Row] = []
    for (model, item, attempt), score in scores.items():
        for k, (instance, status) in enumerate(zip(score.ref.names, score.status, strict=True)):
            values = {key: _number(getattr(score, key)[k]) for key in ("A", "z", "phi")}
            rows.append(
                {"model": model, "item": item, "attempt": attempt, "instance": instance, "status": status, **values}
            )
    return rows


def _number(x: Any) -> float | None:
    value = float(x)
    return None if value != value else value
