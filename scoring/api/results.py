"""Scoring, comparing and reading results for the Python API (docs/api.md): ``score`` a loaded run,
``read_index`` a stored index.json, ``compare`` two models; each an ``Index`` or a typed output
document (docs/formats.md), the same numbers the commands write."""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import Any

import msgspec

from tcsexam.scoring.api import frames
from tcsexam.scoring.api.memory import problems_named
from tcsexam.scoring.api.runs import PathLike, Run, in_memory_inputs
from tcsexam.scoring.errors import InputError, Problem
from tcsexam.scoring.formats.results import CompareDocument, IndexDocument, ValidateFinding
from tcsexam.scoring.pipeline.index import score_run, write_index
from tcsexam.scoring.pipeline.rules import Checked
from tcsexam.scoring.reports import compare as comparing
from tcsexam.scoring.reports import index_file
from tcsexam.scoring.safety.outputs import check_output


class Index:
    """An index.json document (docs/formats.md#indexjson): ``document`` typed (``IndexDocument``, a
    msgspec Struct whose fields are the file's keys), ``data`` in its JSON shape, and its data frames.
    From ``score`` it also holds the re-scored solver attempts (``instances_frame``, ``compare``)."""

    def __init__(
        self,
        data: dict[str, Any],
        *,
        file: str | None = None,
        edited: str | None = None,
        checked: Checked | None = None,
        inputs: tuple[list[Path], list[Path], list[Path]] | None = None,
    ) -> None:
        self.data = data
        # check_output's inputs, folders and reserved names of the run scored here: never written over
        self._inputs = inputs or ([], [], [])
        self.file = file  # the index.json it was read from, None for a run scored here
        self.edited = edited  # what to say when a stored document does not hash to its content_sha256
        self.checked = checked

    def __repr__(self) -> str:
        """What a notebook shows of it: where it comes from, its status and its size."""
        where = f" from {self.file}" if self.file else ""
        return f"<Index{where}: {self.status}, {len(self.data['models'])} models, suite {self.data.get('suite')}>"

    @cached_property
    def document(self) -> IndexDocument:
        return msgspec.convert(self.data, IndexDocument)

    @property
    def status(self) -> str:
        """complete, provisional or incomplete (docs/rules.md#aggregation)."""
        return str(self.data["status"])

    @property
    def models(self) -> list[str]:
        return list(self.data["models"])

    @property
    def findings(self) -> list[ValidateFinding]:
        """What ``tcsexam validate`` lists of this document (docs/commands.md#validate): warnings,
        incomplete tasks and attempts, provisional and excluded attempts, ignored rows and unused
        records files, each with its model, task, attempt and line where it has them."""
        from tcsexam.scoring.reports.findings import run_findings

        return run_findings(self.data)

    def write(self, path: PathLike) -> None:
        """Write the document as index.json at ``path`` (atomically, as ``tcsexam score`` does). As there
        (docs/safety.md), ``path`` is never an input of the run scored here nor inside its records folder,
        never a folder, FIFO or device: InputError, nothing written."""
        target = check_output(os.fspath(path) if os.fspath(path) != "-" else "./-", *self._inputs)
        assert target is not None  # "./-" is a file named "-", not standard output
        write_index(target, self.data)

    def to_frame(self, library: frames.Library | None = None) -> Any:
        """Models × tracks (docs/api.md#data-frames): per model one row per track and one for the
        index, with the interval and the rank interval."""
        return frames.make_frame(frames.index_rows(self.data), frames.INDEX_COLUMNS, library)

    def tasks_frame(self, library: frames.Library | None = None) -> Any:
        """Models × tasks: each task's mean, partial mean, attempt counts and status."""
        return frames.make_frame(frames.task_rows(self.data), frames.TASK_COLUMNS, library)

    def instances_frame(self, library: frames.Library | None = None) -> Any:
        """Every instance of every solver attempt re-scored from its records (a scored run only)."""
        return frames.make_frame(
            frames.instance_rows(self._checked("instances_frame").scores), frames.INSTANCE_COLUMNS, library
        )

    def _checked(self, what: str) -> Checked:
        if self.checked is None:
            raise ValueError(
                f"{what} needs the re-scored attempts, which an index.json does not hold: "
                "score(load_run(RUN_DIR)) gives an Index that has them"
            )
        return self.checked


def score(run: Run, *, thresholds: Mapping[str, float] | None = None) -> Index:
    """Score a loaded run as ``tcsexam score`` does (docs/rules.md): an incomplete run gives an
    Index whose status is 'incomplete' with every missing piece named; rejected input raises
    InputError. ``thresholds``: the pass^k threshold per track (``--threshold``)."""
    with problems_named(run.names, run.folder):
        data, checked = score_run(run.loaded, dict(thresholds) if thresholds else None)
    in_memory_inputs(run, data)
    return Index(data, checked=checked, inputs=run.loaded.inputs())


def read_index(path: PathLike) -> Index:
    """The index.json at ``path``, checked against its type as ``tcsexam table`` reads it; ``edited``
    says when it does not hash to its content_sha256. Raises InputError naming the field."""
    loaded = index_file.load_index(Path(path))
    return Index(loaded.document, file=loaded.file, edited=loaded.edited)


def compare(scored: Index | Run, a: str, b: str) -> CompareDocument:
    """The paired difference A − B (docs/rules.md#per-task-differences), as ``tcsexam compare`` writes
    it; ``scored`` is an Index from ``score`` (or a Run, scored here). A model not in the cohort, or
    the same model twice, raises InputError."""
    index = score(scored) if isinstance(scored, Run) else scored
    checked = index._checked("compare")
    try:
        result = comparing.compare_run(index.data, checked, a, b)
    except InputError as exc:
        raise InputError([Problem("compare", p.where, p.field, p.message) for p in exc.problems]) from None
    return msgspec.convert(result, CompareDocument)
