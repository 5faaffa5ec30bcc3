"""tcsexam: the scoring engine (``tcsexam.scoring``, no UI) and the terminal dashboard (``tcsexam.tui``)
of the TCSExam benchmark, under one import name (docs/development.md#one-import-name).

The Python API (docs/api.md) is ``tcsexam.api``; its names are also here (``tcsexam.score``, ...),
imported on first use so that ``import tcsexam`` stays light."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tcsexam.scoring import __version__

if TYPE_CHECKING:
    from tcsexam.api import (
        CompareDocument,
        FramesUnavailable,
        Index,
        IndexDocument,
        InputError,
        Problem,
        Run,
        UsageError,
        ValidateFinding,
        compare,
        demo_run,
        load_run,
        read_index,
        run_from_objects,
        score,
    )

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
    "__version__",
    "compare",
    "demo_run",
    "load_run",
    "read_index",
    "run_from_objects",
    "score",
]
_API = frozenset(__all__) - {"__version__"}


def __getattr__(name: str) -> Any:
    """The API's names, imported on first use (PEP 562)."""
    if name in _API:
        from tcsexam import api

        return getattr(api, name)
    raise AttributeError(f"module 'tcsexam' has no attribute {name!r}")
