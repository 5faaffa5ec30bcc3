"""The dashboard's overrides of Textual's internals: every use of a private name of Textual (one
leading underscore) lives in this package, one module per override, and nowhere else in tui/
(tests/test_textual_quarantine.py). Each override has a test that fails if Textual's behaviour
under it changes; when Textual is upgraded, these modules and their tests are what to look at.

Importing the package checks that the installed Textual is the minor release the overrides were
written for, and raises ImportError (its ``name`` this package's) naming both versions otherwise.
"""

from __future__ import annotations

from importlib.metadata import version

import textual

WRITTEN_FOR = (8, 2)  # the minor release of pyproject.toml's textual>=8.2.8,<8.3
REQUIREMENT = "textual>=8.2.8,<8.3"


def installed_version() -> str:
    """The installed Textual's version string."""
    found = getattr(textual, "__version__", None)
    return found if isinstance(found, str) else version("textual")


def major_minor(text: str) -> tuple[int, ...] | None:
    """(major, minor) of a version string, None if it does not start with two numbers."""
    parts = text.split(".")[:2]
    return tuple(int(p) for p in parts) if len(parts) == 2 and all(p.isdigit() for p in parts) else None


def check_version(found: str) -> None:
    """Raise ImportError unless ``found`` is a release of the minor these overrides were written for."""
    if major_minor(found) != WRITTEN_FOR:
        written = ".".join(map(str, WRITTEN_FOR))
        raise ImportError(
            f"Textual {found} is installed, but the dashboard was written for Textual {written}: "
            f'install the tested version with pip install "{REQUIREMENT}"',
            name=__name__,
        )


check_version(installed_version())
