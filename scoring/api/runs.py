"""Loading a run for the Python API (docs/api.md#load-a-run): from a run folder as the commands read
it, or from Python objects (``memory``), as one ``Run``."""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tcsexam.scoring.api.memory import RecordsKey, problems_named, write_run
from tcsexam.scoring.errors import InputError, Problem
from tcsexam.scoring.formats.inputs import Cohort, SuiteManifest
from tcsexam.scoring.pipeline import benchmark as bundled
from tcsexam.scoring.pipeline import run as pipeline

PathLike = str | Path


@dataclass(eq=False)
class Run:
    """A run whose inputs were read and checked one by one (docs/formats.md), ready for ``score``.
    ``cohort`` and ``suite`` are the checked inputs; ``notices`` the lines the command line would
    print on standard error (the bundled synthetic sample is never used in silence)."""

    loaded: pipeline.Run
    names: dict[str, str] = field(default_factory=dict)  # a file of a run in memory -> the object it holds
    folder: Path | None = None  # the private folder of a run in memory
    keep: tempfile.TemporaryDirectory[str] | None = field(default=None, repr=False)

    @property
    def cohort(self) -> Cohort:
        return self.loaded.cohort

    @property
    def suite(self) -> SuiteManifest:
        return self.loaded.suite

    @property
    def notices(self) -> list[str]:
        return list(self.loaded.notices)


def demo_run() -> Path:
    """The folder of the bundled demo run (a synthetic sample, incomplete by design)."""
    return bundled.demo_run()


def load_run(
    path: PathLike = ".",
    *,
    benchmark: PathLike | None = None,
    attempts: PathLike | None = None,
    cohort: PathLike | None = None,
    records: PathLike | None = None,
) -> Run:
    """The run in the folder ``path`` (attempts.csv, cohort.json, records/), as ``tcsexam score PATH``
    reads it; ``attempts``, ``cohort`` and ``records`` name single inputs elsewhere, ``benchmark`` the
    benchmark folder (default: $TCSEXAM_BENCHMARK, else the bundled sample). Raises InputError with
    every problem found (file, line or record, field)."""
    paths = pipeline.resolve_run_paths(
        str(path),
        attempts=_text(attempts),
        cohort=_text(cohort),
        records=_text(records),
        benchmark=_text(benchmark),
    )
    return Run(pipeline.load_run(paths))


def run_from_objects(
    cohort: Mapping[str, Any] | Cohort,
    rows: Any,
    records: Mapping[RecordsKey, Any] | None = None,
    *,
    benchmark: PathLike | None = None,
) -> Run:
    """A run given as objects (docs/api.md#a-run-in-memory): ``cohort`` as cohort.json holds it (a dict
    or a ``Cohort``), ``rows`` the attempts table's rows (a list of dicts with its column names, or
    a pandas or polars data frame), ``records`` each solver attempt's records (a list of dicts, as a
    records file holds them) under its (model, item, attempt). They meet the same rules as files;
    problems name ``cohort``, ``rows[i]`` (counted from 0) and ``records[(model, item, attempt)]``."""
    keep = tempfile.TemporaryDirectory(prefix="tcsexam-run-")
    folder = Path(keep.name).resolve()
    plain = cohort.model_dump(mode="json") if isinstance(cohort, Cohort) else cohort
    names: dict[str, str] = {}
    with problems_named(names, folder):
        try:
            names.update(write_run(folder, plain, rows, records))
        except ValueError as exc:  # NaN or infinity: no JSON number (docs/formats.md)
            raise InputError([Problem("cohort or records", "", "", f"not JSON: {exc}")]) from None
        paths = pipeline.resolve_run_paths(str(folder), benchmark=_text(benchmark))
        loaded = pipeline.load_run(paths)
    return Run(loaded, names, folder, keep)


def _text(path: PathLike | None) -> str | None:
    return None if path is None else str(path)


def in_memory_inputs(run: Run, document: dict[str, Any]) -> None:
    """A run in memory: the inputs of ``provenance`` named after the objects, not the private folder
    (the paths are no part of ``content_sha256``: docs/formats.md#indexjson)."""
    if run.folder is None:
        return
    for entry in document["provenance"]["inputs"].values():
        entry["path"] = run.names.get(entry["path"], entry["path"])
