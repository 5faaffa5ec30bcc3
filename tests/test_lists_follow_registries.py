"""Where the docs list what a registry declares (table formats, dashboard tabs, attempts.csv columns),
the list says what the registry holds, so that a new entry cannot be left out of the user's docs."""

from __future__ import annotations

import re
from pathlib import Path

from tcsexam.scoring.formats.inputs import ATTEMPTS_COLUMNS
from tcsexam.scoring.reports.table import FORMATS
from tcsexam.tui.panes import PANES

ROOT = Path(__file__).resolve().parent.parent


def line_of(path: str, start: str) -> str:
    lines = [line for line in (ROOT / path).read_text(encoding="utf-8").splitlines() if line.startswith(start)]
    assert len(lines) == 1, f"{path}: {len(lines)} lines start with {start!r}"
    return lines[0]


def test_the_readme_and_the_synopsis_name_every_table_format():
    readme = line_of("README.md", "tcsexam table INDEX_JSON")
    assert re.findall(r"[a-z]+", readme.split("tables:")[1]) == list(FORMATS)
    synopsis = line_of("docs/commands.md", "tcsexam table    INDEX_JSON")
    assert re.search(r"--format ([a-z|]+)", synopsis).group(1).split("|") == list(FORMATS)  # type: ignore[union-attr]


def test_the_dashboards_key_table_names_every_tab_in_its_order():
    row = line_of("docs/dashboard.md", "| `1`–")
    keys, _, action = row.strip("|").split("|")
    assert keys.strip() == f"`1`–`{PANES[-1].key}`"
    assert action.split("switch tab:")[1].strip().split(", ") == [tab.title for tab in PANES]


def test_every_tab_has_a_key_of_its_own():
    """A tab's key is its place in PANES: a tenth tab would get "10", which no key press gives."""
    assert [tab.key for tab in PANES] == [str(n) for n in range(1, len(PANES) + 1)]
    assert all(len(tab.key) == 1 for tab in PANES), "at most 9 tabs: their keys are 1–9"


def test_the_formats_page_lists_every_attempts_column_in_its_order():
    text = (ROOT / "docs/formats.md").read_text(encoding="utf-8")
    named = [name for name in re.findall(r"^\| `([a-z_]+)` \|", text, flags=re.M) if name in ATTEMPTS_COLUMNS]
    assert named[: len(ATTEMPTS_COLUMNS)] == list(ATTEMPTS_COLUMNS)
