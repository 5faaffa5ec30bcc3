"""`tcsexam docs [TOPIC]` (docs/commands.md#docs): the documentation travels with the tool; every help
text, error and schema cites `tcsexam docs PAGE#SECTION`, and every such citation names a page and a
heading that exist."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted(p.stem for p in (ROOT / "docs").glob("*.md") if p.name != "README.md")
CODE = sorted(p for folder in ("scoring", "tui") for p in (ROOT / folder).rglob("*") if p.suffix in {".py", ".toml"})
CITED = re.compile(r"tcsexam docs ([a-z0-9-]+)(?:#([a-z0-9-]+))?")


def github_anchors(text: str) -> set[str]:
    """The anchors GitHub gives a page's headings (outside fenced code): lower case, punctuation other
    than '-' and '_' dropped, spaces as '-'."""
    out, fenced = set(), False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,6} ", line):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^a-z0-9 _-]", "", title).replace(" ", "-"))
    return out


def test_every_listed_topic_resolves_to_a_file_and_every_page_is_listed():
    from tcsexam.scoring.manual import docs_folder, page_file, topics

    listed = [t.name for t in topics()]
    assert sorted(listed) == PAGES  # every page of docs/ once, none made up
    for name in listed:  # the pages found are the repository's, wherever docs_folder() finds them
        assert page_file(name).is_file(), name
        assert page_file(name).read_text(encoding="utf-8") == (ROOT / "docs" / f"{name}.md").read_text(encoding="utf-8")
    assert docs_folder().joinpath("README.md").is_file()


def test_every_cited_docs_section_exists():
    cited = [(p, m) for p in CODE for m in CITED.findall(p.read_text(encoding="utf-8"))]
    assert len(cited) >= 15  # help texts, errors and schemas cite the docs this way
    broken = [
        f"{p.relative_to(ROOT)}: tcsexam docs {page}{'#' + anchor if anchor else ''}"
        for p, (page, anchor) in cited
        if page not in PAGES
        or (anchor and anchor not in github_anchors((ROOT / "docs" / f"{page}.md").read_text(encoding="utf-8")))
    ]
    assert not broken, broken


def user_facing_strings(path: Path) -> list[tuple[int, str]]:
    """The string literals of a module that are not docstrings (what it prints or raises)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def test_no_help_text_error_or_schema_of_scoring_cites_a_docs_file(cli):
    strings = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in sorted((ROOT / "scoring").rglob("*.py"))
        for n, s in user_facing_strings(p)
        if re.search(r"docs/[a-z0-9-]+\.md|the docs/ folder", s)
    ]
    assert not strings, strings
    help_toml = (ROOT / "scoring" / "commands" / "help.toml").read_text(encoding="utf-8")
    assert "docs/" not in "".join(v for c in tomllib.loads(help_toml).values() for v in c.values())
    code, schemas, _ = cli("schema")
    assert code == 0 and "docs/" not in schemas and "tcsexam docs rules#solver-score" in schemas
    code, out, _ = cli("--help")
    assert "docs/" not in out and "tcsexam docs" in out


def test_no_topic_lists_the_topics_with_their_summary(cli):
    code, out, _ = cli("docs")
    assert code == 0
    rows = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert sorted(rows) == PAGES
    assert "every input and output, with examples" in rows["formats"]
    assert "runs of thousands of models" in rows["dashboard-large-runs"]  # the second page of a bullet


def test_a_topic_prints_its_page_and_a_section_only_that_section(cli):
    page = (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")
    code, out, _ = cli("docs", "formats")
    assert code == 0 and out.strip() == page.strip()
    code, out, _ = cli("docs", "formats#the-benchmark-folder")
    start = page.index("## The benchmark folder")
    assert code == 0 and out.strip() == page[start : page.index("## Suite manifest")].strip()
    code, out, _ = cli("docs", "formats#indexjson")  # `## index.json`: GitHub drops the dot
    assert code == 0 and out.startswith("## index.json\n") and "## solver-score output" not in out
    code, out, _ = cli("docs", "commands#demo")  # the sh blocks' '# ...' comments are no headings
    assert code == 0 and out.startswith("## demo\n") and "## init" not in out


def test_an_unknown_topic_or_section_is_a_usage_error_naming_the_known_ones(cli):
    code, out, err = cli("docs", "formatz")
    assert code == 2 and out == "" and "unknown topic 'formatz'" in err
    assert all(name in err for name in PAGES)
    code, out, err = cli("docs", "formats#the-benchmark")
    assert code == 2 and out == "" and "formats#the-benchmark-folder" in err and "formats#cohort" in err


def test_without_the_pages_it_says_where_to_read_them(cli, monkeypatch, tmp_path):
    monkeypatch.setattr("tcsexam.scoring.commands.docs.docs_folder", lambda: tmp_path / "docs")
    code, out, err = cli("docs", "formats")
    assert code == 1 and out == "" and "https://github.com/tcsexam/tcsexam" in err and "Traceback" not in err


class Terminal:
    """A standard output that says it is a terminal."""

    def __init__(self):
        self.text = ""
        self.encoding = "utf-8"

    def isatty(self):
        return True

    def write(self, text):
        self.text += text

    def flush(self):
        pass


def test_on_a_terminal_the_page_goes_through_the_pager(monkeypatch, tmp_path):
    from tcsexam.scoring.commands.docs import show_page

    seen = tmp_path / "paged.txt"
    pager = f"{sys.executable} -c \"import sys; open({str(seen)!r}, 'w').write(sys.stdin.read())\""
    monkeypatch.setenv("PAGER", pager)
    terminal = Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    show_page("# Page\n\ntext\n")
    assert seen.read_text() == "# Page\n\ntext\n" and terminal.text == ""


def test_on_a_terminal_with_no_pager_that_starts_the_page_is_printed(monkeypatch, tmp_path):
    from tcsexam.scoring.commands.docs import show_page

    monkeypatch.setenv("PAGER", "no-such-pager --flag")
    monkeypatch.setenv("PATH", str(tmp_path))  # no less, no more
    terminal = Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    show_page("# Page\n\ntext\n")
    assert terminal.text == "# Page\n\ntext\n"


def test_the_package_metadata_names_the_project_urls():
    urls = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]
    assert set(urls) == {"Homepage", "Documentation", "Issues"}
    assert all(u.startswith("https://github.com/tcsexam/tcsexam") for u in urls.values())


@pytest.mark.parametrize("topic", ["formats", "rules#passk"])
def test_a_page_printed_to_a_pipe_is_plain_text(cli, topic):
    code, out, _ = cli("docs", topic)
    assert code == 0 and "\x1b" not in out and out.count("\n") > 5


def test_validates_help_and_the_docs_list_the_same_kinds_of_finding():
    """`validate --help` and docs/commands.md say which KINDs a finding line starts with: the same list
    (the docs had left out `unused records`)."""
    helped = tomllib.loads((ROOT / "scoring" / "commands" / "help.toml").read_text())
    text = next(v for v in _strings(helped) if "KIND one of:" in v)
    in_help = [k.strip() for k in re.search(r"KIND one of: ([^(]+)", text).group(1).split(",")]
    page = (ROOT / "docs" / "commands.md").read_text()
    listed = re.search(r"KIND one of ((?:`[^`]+`,?\s*)+)", page).group(1)
    assert (
        re.findall(r"`([^`]+)`", listed)
        == in_help
        == [
            "warning",
            "incomplete",
            "provisional",
            "excluded",
            "ignored row",
            "unused records",
        ]
    )


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


@pytest.mark.parametrize(
    ("typed", "hint"),
    [
        (["scor"], "; did you mean 'score'?"),
        (["docs", "format"], "; did you mean 'formats'?"),
        (["table", "x.json", "--format", "markdwn"], "; did you mean 'markdown'?"),
        (["zzzz"], None),  # nothing close: no guess
    ],
)
def test_a_name_typed_close_to_a_known_one_is_asked_about(cli, typed, hint):
    code, out, err = cli(*typed)
    assert code == 2 and out == ""
    if hint is None:
        assert "did you mean" not in err
    else:
        assert err.rstrip().endswith(hint), err
