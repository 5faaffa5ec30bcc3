"""The code speaks of the project: it cites the docs/ section that states a rule, never the contract
the docs are written from, and every section it cites exists."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


# the code that ships (src/tcsexam holds the package's own modules; pyproject.toml maps the folders)
FOLDERS = ("scoring", "tui", "sample_runs", "src")
SOURCES = sorted(p for folder in FOLDERS for p in (ROOT / folder).rglob("*") if p.suffix in {".py", ".toml"})
CITATION = re.compile(r"docs/([a-z0-9-]+\.md)(?:#([a-z0-9-]+))?")


def anchors(doc: Path) -> set[str]:
    """GitHub's anchors of a markdown file's headings: lower case, punctuation dropped, spaces as '-'."""
    out = set()
    for line in doc.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^a-z0-9 _-]", "", title).replace(" ", "-"))
    return out


def test_no_module_cites_the_contract():
    cited = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in SOURCES
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if re.search(r"\bSPEC\b", line)
    ]
    assert not cited, cited


def test_every_cited_docs_section_exists():
    known = {doc.name: anchors(doc) for doc in (ROOT / "docs").glob("*.md")}
    broken = [
        f"{p.relative_to(ROOT)}: docs/{name}#{anchor or ''}"
        for p in SOURCES
        for name, anchor in CITATION.findall(p.read_text())
        if name not in known or (anchor and anchor not in known[name])
    ]
    assert not broken, broken
