"""``tcsexam.api``: the Python API (docs/api.md). Its names live in ``tcsexam.scoring.api``; this
module is their short, stable home."""

from tcsexam.scoring.api import *  # noqa: F403  (the names of its __all__)
from tcsexam.scoring.api import __all__ as __all__
