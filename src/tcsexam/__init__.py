"""tcsexam: the scoring engine (``tcsexam.scoring``, no UI) and the terminal dashboard (``tcsexam.tui``)
of the TCSExam benchmark, under one import name (docs/development.md#one-import-name)."""

from tcsexam.scoring import __version__

__all__ = ["__version__"]
