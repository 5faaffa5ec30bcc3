"""The installed tcsexam compiled as an install compiles it, before a bench times its processes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

_COMPILE = "import compileall, os, tcsexam; compileall.compile_dir(os.path.dirname(tcsexam.__file__), quiet=1)"


def compile_installed(python: str = sys.executable) -> None:
    """Compile every module of the tcsexam that ``python`` imports, in the folder it imports them
    from. pip compiles a wheel's modules as it installs them; an editable install reaches the
    checkout through a tree of links (build/__editable__.*), and the bytecode of a module goes
    beside the link it was imported through, not beside the checkout's file. Where
    PYTHONDONTWRITEBYTECODE is set, as in the bench machine's shell, a process that finds no
    bytecode compiles the project again on every run: 30-40 ms of ``tau2`` (tests/bench/README.md)."""
    subprocess.run([python, "-c", _COMPILE], check=True, capture_output=True)


def python_of(tcsexam: str) -> str:
    """The interpreter beside an install's ``tcsexam`` console script (``--before``)."""
    return str(Path(tcsexam).parent / "python")
