"""The Python API of tcsexam (docs/api.md): load a run (from a folder or from objects), score it,
compare two models, read an index.json, and turn results into data frames. These names are stable;
``tcsexam.api`` and the top of ``tcsexam`` give the same ones."""

from tcsexam.scoring.api.frames import FramesUnavailable
from tcsexam.scoring.api.results import Index, compare, read_index, score
from tcsexam.scoring.api.runs import Run, demo_run, load_run, run_from_objects
from tcsexam.scoring.errors import InputError, Problem, UsageError
from tcsexam.scoring.formats.results import CompareDocument, IndexDocument, ValidateFinding

__all__ = [
    "CompareDocument",
    "FramesUnavailable",
    "Index",
    "IndexDocument",
    "InputError",
    "Problem",
    "Run",
    "UsageError",
    "ValidateFinding",
    "compare",
    "demo_run",
    "load_run",
    "read_index",
    "run_from_objects",
    "score",
]
