"""``tcsexam table``'s formats (docs/commands.md#table, docs/safety.md#tables-are-safe-to-paste):
every registered format writes every string of a document as inert text for the program that
reads it, the chart's work is bounded, and the number conventions are the ones the docs state.

The documents here are written by hand: ``table`` reads index.json files it did not make, so any
string may be in any field. Each format's reader below is how a user's program reads it
(markdown-it, a TeX tokenizer or TeX itself, a CSV reader, an HTML parser); a new format without
one fails ``test_every_format_has_a_reader``.
"""

from __future__ import annotations

import csv
import html
import html.parser
import io
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from tcsexam.scoring.reports.numbers import NULL, number, with_half_width
from tcsexam.scoring.reports.table import CHART_TICKS, FORMATS, render_table
from tcsexam.scoring.vocab import NA, NOT_RANKED_REASON, TRACKS

PAYLOAD_WRITE = r"\newwrite\f\immediate\openout\f=main.tex\immediate\write\f{overwritten}\immediate\closeout\f"
HOSTILE = [
    PAYLOAD_WRITE,
    r"\input{/etc/hostname}",
    "<img src=x onerror=alert(1)>",
    '=HYPERLINK("http://evil.example","click")',
    "@SUM(1+9)*cmd|' /C calc'!A0",
    "+1",
    "-2+3",
    "a;=1+1",
    "\tTAB",
    "\rCR",
    "evil\x1b[31m\x07",
    "a|b",
    "**bold** [link](http://evil.example) `code` ~~s~~ <b>x</b> &amp; _u_",
    r"x & y % z # w $ v ^ u ~ t { s } \ r",
    "model-α",
    "Σtat-ω",
    "Qwen-通义",
    '"quoted", comma',
    "\u202eevil",
]
CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def shown(s: str) -> str:
    """A hostile string as every format shows it: control characters as on a terminal, by hand."""
    out = []
    for c in s:
        code = ord(c)
        if code < 0x20 or 0x7F <= code <= 0x9F:
            out.append(f"\\x{code:02x}")
        elif 0x202A <= code <= 0x202E:
            out.append(f"\\u{code:04x}")
        else:
            out.append(c)
    return "".join(out)


def model(k: int, status: str, index: float, track: float) -> dict:
    return {
        "status": status,
        "index": index,
        "track_means": dict.fromkeys(TRACKS, track),
        "tasks": {"t1": {"status": "complete"}, "t2": {"status": "incomplete"}},
        "ci": {
            "index": {"lo": index - 1.0, "hi": index + 1.0},
            "tracks": {t: {"lo": track - 0.5, "hi": track + 0.5} for t in TRACKS},
        },
    }


def hostile_doc(strings: list[str] = HOSTILE, suite: str = "lite", protocol: str = "offline") -> dict:
    """Every string as a model name, as a status (the next one's) and, with ``suite``/``protocol``,
    as the group; a ranks block so ranks ``1–2`` are written; one track mean is -1.5."""
    n = len(strings)
    models = {s: model(k, strings[(k + 1) % n], 90.0 - k, -1.5) for k, s in enumerate(strings)}
    ranks = {s: {"best": 1, "worst": 2} for s in strings}
    return {
        "suite": suite,
        "solver_protocol": protocol,
        "status": "complete",
        "models": models,
        "ranks": {"method": "paired-t-holm", "alpha": 0.05, "models": ranks, "pairs": []},
    }


def statuses(strings: list[str] = HOSTILE) -> dict[str, str]:
    return {s: strings[(k + 1) % len(strings)] for k, s in enumerate(strings)}


# --- the readers: each format as its user's program reads it --------------------------------------


class Tags(html.parser.HTMLParser):
    """The elements, attributes and cell texts of an HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: set[str] = set()
        self.attributes: set[str] = set()
        self.rows: list[list[str]] = []
        self.labels: list[str] = []
        self.headings: list[str] = []
        self.where: str | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.attributes |= {name for name, _ in attrs}
        if tag == "tr":
            self.rows.append([])
        if tag in ("td", "h2", "h3") or (tag == "text" and ("class", "label") in attrs):
            self.where = tag
            if tag == "td":
                self.rows[-1].append("")
            elif tag == "text":
                self.labels.append("")
            else:
                self.headings.append("")

    def handle_endtag(self, tag):
        self.where = None

    def handle_data(self, data):
        if self.where == "td":
            self.rows[-1][-1] += data
        elif self.where == "text":
            self.labels[-1] += data
        elif self.where in ("h2", "h3"):
            self.headings[-1] += data


def read_html(page: str) -> Tags:
    tags = Tags()
    tags.feed(page)
    return tags


def check_cells(rows: list[list[str]], strings: list[str]) -> None:
    """Each table row (9 cells) shows its model and status exactly as the hostile strings, shown."""
    body = [r for r in rows if r]
    assert len(body) == len(strings) and all(len(r) == 9 for r in body), body
    status = statuses(strings)
    expected = {shown(s): shown(status[s]) for s in strings}
    assert {r[1]: r[2] for r in body} == expected
    assert {r[0] for r in body} == {"1–2"}


def read_markdown(out: str, strings: list[str], suite: str, protocol: str) -> None:
    rendered = MarkdownIt("commonmark").enable("table").render(out)
    page = read_html(rendered)
    assert page.tags <= {"h3", "table", "thead", "tbody", "tr", "th", "td", "p"}, page.tags  # no img, a, em, code
    assert page.attributes <= {"style"}
    check_cells(page.rows, strings)
    assert page.headings == [f"{shown(suite)} / {shown(protocol)}"]


LATEX_UNESCAPE = {
    r"\textbackslash{}": "\\",
    r"\textasciitilde{}": "~",
    r"\textasciicircum{}": "^",
    r"\textless{}": "<",
    r"\textgreater{}": ">",
    r"\textbar{}": "|",
    r"\ensuremath{\alpha}": "α",
    r"\ensuremath{\omega}": "ω",
    r"\ensuremath{\Sigma}": "Σ",
    **{"\\" + c: c for c in "&%$#_{}"},
}
LATEX_COMMANDS = {
    r"\toprule",
    r"\midrule",
    r"\bottomrule",
    r"\begin",
    r"\end",
    r"\multicolumn",
    r"\pm",
    r"\dagger",
    r"\\",
    r"\par",  # the legend's note after the tabular
    r"\smallskip",
    r"\footnotesize",
    *(re.match(r"\\[A-Za-z]+|\\.", k).group() for k in LATEX_UNESCAPE),  # type: ignore[union-attr]
    r"\alpha",
    r"\omega",
    r"\Sigma",
}


def read_latex(out: str, strings: list[str], suite: str, protocol: str) -> None:
    """The TeX reading: outside comment lines, only the table's own commands and the commands that
    print a character; % only at a line's start; & only between the 9 cells; each cell read back."""
    body = [line for line in out.splitlines() if not line.startswith("%")]
    for line in body:
        assert set(re.findall(r"\\[A-Za-z]+|\\.", line)) <= LATEX_COMMANDS, line
        assert re.search(r"(?<!\\)%", line) is None, line
    rows = [line.removesuffix(r" \\") for line in body if line.endswith(r" \\") and "&" in line]
    cells = [re.split(r"(?<!\\)&", row) for row in rows][1:]  # the header row first

    def unescape(cell: str) -> str:
        pattern = "|".join(re.escape(k) for k in sorted(LATEX_UNESCAPE, key=len, reverse=True))
        return re.sub(pattern, lambda m: LATEX_UNESCAPE[m.group()], cell.strip())

    assert len(cells) == len(strings) and all(len(c) == 9 for c in cells)
    status = statuses(strings)
    assert {unescape(c[1]): unescape(c[2]) for c in cells} == {shown(s): shown(status[s]) for s in strings}
    assert {c[0].strip() for c in cells} == {"1--2"}  # an en dash
    (title,) = [line for line in body if line.startswith(r"\multicolumn{9}{l}{")]
    assert (
        unescape(title.removeprefix(r"\multicolumn{9}{l}{").removesuffix(r"} \\"))
        == f"{shown(suite)} / {shown(protocol)}"
    )


FORMULA = ("=", "+", "-", "@", "\t", "\r")


def read_csv(out: str, strings: list[str], suite: str, protocol: str) -> None:
    """A spreadsheet's reading: no text cell, nor a part of it after a ';', begins like a formula;
    with the neutralising quote taken off, each is the string shown; numbers stay numbers."""
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == len(strings)
    text_columns = ("suite", "solver_protocol", "model", "status", "source")
    for row in rows:
        for col in text_columns:
            assert not any(part.startswith(FORMULA) for part in row[col].split(";")), (col, row[col])
        assert float(row["P"]) == -1.5 and float(row["index_ci95_hi"]) - float(row["index_ci95_lo"]) == 2.0
        assert row["rank_best"] == "1" and row["rank_worst"] == "2"

    def plain(cell: str) -> str:
        return cell.removeprefix("'").replace(";'", ";")

    status = statuses(strings)
    assert {plain(r["model"]): plain(r["status"]) for r in rows} == {shown(s): shown(status[s]) for s in strings}
    assert {(plain(r["suite"]), plain(r["solver_protocol"])) for r in rows} == {(shown(suite), shown(protocol))}
    assert ",-1.5," in out  # a negative number is written as a bare number
    header_line, body = out.split("\n", 1)
    header = header_line.split(",")  # the column names, plain
    typed = list(csv.reader(io.StringIO(body), quoting=csv.QUOTE_NONNUMERIC))  # bare cells read as floats
    for line in typed:
        cell = dict(zip(header, line, strict=True))
        assert all(isinstance(cell[col], str) for col in text_columns)  # every text cell quoted
        assert all(isinstance(cell[col], float) for col in ("rank_best", "P", "P_ci95_lo", "index", "tasks_total"))


def read_html_page(out: str, strings: list[str], suite: str, protocol: str) -> None:
    page = read_html(out)
    allowed = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "table", "caption", "thead", "tbody"}
    assert page.tags <= allowed | {"tr", "th", "td", "p", "svg", "line", "text", "circle"}, page.tags
    assert not any(a.startswith("on") for a in page.attributes) and "src" not in page.attributes
    check_cells(page.rows, strings)
    assert sorted(page.labels) == sorted(shown(s) for s in strings)  # the chart's labels
    assert page.headings == [f"{shown(suite)} / {shown(protocol)}"]


READERS = {"markdown": read_markdown, "latex": read_latex, "csv": read_csv, "html": read_html_page}
# a format whose separator is a control character (a tab-separated one) names it here, beside its reader:
# the separator is allowed in the output; a name's own tab is still caught, by the reader's cells
SEPARATORS: dict[str, str] = {}


def test_every_format_has_a_reader():
    missing = set(FORMATS) - set(READERS)
    assert not missing, f"table formats with no escaping check in tests/test_table_formats.py: {missing}"


@pytest.mark.parametrize("name", list(FORMATS))
def test_every_format_shows_hostile_strings_in_every_field_as_inert_text(name):
    suite, protocol = "<i>lite</i> | \\input{x} =1", "off\x1bline"
    out = render_table([("=cmd|' /C calc'!A0.json", hostile_doc(suite=suite, protocol=protocol))], name)
    bare = out.replace(SEPARATORS[name], "") if name in SEPARATORS else out
    assert CONTROL.search(bare) is None, repr(CONTROL.search(bare))  # nothing a terminal would act on
    READERS[name](out, HOSTILE, suite, protocol)


@pytest.mark.parametrize("name", list(FORMATS))
def test_every_format_writes_every_document_string_through_its_text(name, monkeypatch):
    """A format that writes a field without its ``text`` fails here whatever its escaping: with
    ``text`` replaced, no trace of the document's strings may remain."""
    form = FORMATS[name]
    monkeypatch.setattr(form, "text", lambda s: "T")
    strings = [f"Zq9-{k}" for k in range(3)]
    out = render_table([("Zq9.json", hostile_doc(strings, suite="Zq9s", protocol="Zq9p"))], name)
    assert "Zq9" not in out


def test_csv_source_column_is_neutralised():
    rows = list(csv.DictReader(io.StringIO(render_table([("=1+1.json", hostile_doc(["m"]))], "csv"))))
    assert rows[0]["source"] == "'=1+1.json"


def test_an_unknown_format_is_an_error(cli, tmp_path):
    with pytest.raises(ValueError, match="typst"):
        render_table([("a.json", hostile_doc(["m"]))], "typst")
    code, _, err = cli("table", str(tmp_path / "x.json"), "--format", "typst")
    assert code == 2 and "invalid choice" in err and "markdown" in err


# --- LaTeX through TeX itself ---------------------------------------------------------------------

DOCUMENT = (
    "\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage{booktabs}\n"
    "\\begin{document}\n\\input{table.tex}\n\\end{document}\n"
)


def compile_latex(engine: str, tmp_path: Path, strings: list[str]) -> tuple[subprocess.CompletedProcess, str]:
    (tmp_path / "table.tex").write_text(render_table([("a.json", hostile_doc(strings))], "latex"), encoding="utf-8")
    (tmp_path / "main.tex").write_text(DOCUMENT)
    proc = subprocess.run(
        [engine, "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", "main.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return proc, (tmp_path / "main.log").read_text(errors="replace")


def test_latex_with_hostile_fields_compiles_with_pdflatex_and_runs_nothing(tmp_path):
    engine = shutil.which("pdflatex")
    if engine is None:
        pytest.skip("no pdflatex on PATH: apt-get install texlive-latex-base texlive-latex-recommended")
    latin = [s for s in HOSTILE if "通" not in s]  # pdflatex has no CJK font (docs/commands.md#table)
    proc, log = compile_latex(engine, tmp_path, latin + ["Ünïcödé-Łódź"])
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert (tmp_path / "main.tex").read_text() == DOCUMENT  # \openout did not run
    assert "/etc/hostname" not in log and "overwritten" not in (tmp_path / "main.tex").read_text()
    assert (tmp_path / "main.pdf").stat().st_size > 1000


def test_latex_with_cjk_names_compiles_with_lualatex(tmp_path):
    engine = shutil.which("lualatex")
    if engine is None:
        pytest.skip("no lualatex on PATH: apt-get install texlive-latex-base texlive-latex-recommended")
    proc, log = compile_latex(engine, tmp_path, HOSTILE)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert (tmp_path / "main.tex").read_text() == DOCUMENT and "/etc/hostname" not in log


# --- the legend: every format says what ± and the rank interval are (docs/commands.md#table) ------------

# typed from docs/commands.md#table
LEGEND = (
    "± is the half-width of the 95% t interval, clustered by task; rank best–worst: "
    "the ranks not ruled out by paired t-tests with Holm's correction at 5%; † provisional (some adopted attempt is selected_provisional)"
)
# hostile_doc's track means are -1.5: its intervals reach below 0, and the legend says so
BEYOND = "; intervals are not clipped: one may reach below 0, or above 1 for P, S and O, the range of their scores"
WARNED = "; ‡ the model has warnings in its index.json (tcsexam validate lists them)"
LEGEND_LATEX = (
    r"\par\smallskip{\footnotesize $\pm$ is the half-width of the 95\% t interval, clustered by task; "
    r"rank best--worst: the ranks not ruled out by paired t-tests with Holm's "
    r"correction at 5\%; $^\dagger$ provisional (some adopted attempt is selected\_provisional)" + BEYOND + r"\par}"
)


def two_groups(name: str) -> str:
    return render_table(
        [("a.json", hostile_doc(["m"], suite="lite")), ("b.json", hostile_doc(["n"], suite="full"))], name
    )


def test_markdown_has_the_legend_under_each_table():
    rendered = MarkdownIt("commonmark").enable("table").render(two_groups("markdown"))
    assert rendered.count("</table>\n<p>" + html.escape(LEGEND + BEYOND, quote=False) + "</p>") == 2


def test_html_has_the_legend_as_each_tables_caption_shown_under_it():
    out = two_groups("html")
    captions = re.findall(r"<table><caption>(.*?)</caption><thead>", out)
    assert [html.unescape(c) for c in captions] == [LEGEND + BEYOND, LEGEND + BEYOND]
    assert "caption { caption-side: bottom;" in out


def test_csv_column_names_say_the_interval():
    header = two_groups("csv").split("\n", 1)[0].split(",")
    assert header == [
        "suite", "solver_protocol", "rank_best", "rank_worst", "model", "status", "provisional", "warnings",
        "index", "index_ci95_lo", "index_ci95_hi",
        "P", "P_ci95_lo", "P_ci95_hi", "S", "S_ci95_lo", "S_ci95_hi",
        "C", "C_ci95_lo", "C_ci95_hi", "O", "O_ci95_lo", "O_ci95_hi",
        "tasks_complete", "tasks_total", "source",
    ]  # fmt: skip


def test_latex_has_the_legend_as_a_note_after_each_tabular():
    lines = two_groups("latex").splitlines()
    after = [lines[k + 1] for k, line in enumerate(lines) if line == r"\end{tabular}"]
    assert after == [LEGEND_LATEX, LEGEND_LATEX]  # text TeX prints, not a % comment


def test_latex_legend_prints_in_the_pdf(tmp_path):
    engine, to_text = shutil.which("pdflatex"), shutil.which("pdftotext")
    if engine is None or to_text is None:
        pytest.skip("no pdflatex or pdftotext on PATH: apt-get install texlive-latex-recommended poppler-utils")
    proc, _ = compile_latex(engine, tmp_path, ["m"])
    assert proc.returncode == 0, proc.stdout[-3000:]
    printed = subprocess.run([to_text, "main.pdf", "-"], cwd=tmp_path, capture_output=True, text=True, check=True)

    def bare(s: str) -> str:  # the words alone: lines may break, with a hyphen, anywhere; the T1 font's
        return re.sub(r"[\s\-‐]", "", s).replace("\x15", "–")  # en dash reads back as its slot, 0x15

    assert bare(LEGEND) in bare(printed.stdout), printed.stdout


# --- the HTML chart: bounded work for any finite values --------------------------------------------


@pytest.mark.parametrize("values", [(1e13,), (1e300,), (1.7e308, -1.7e308), (55.0, 1e-300)])
def test_the_chart_has_at_most_chart_ticks_grid_lines(values):
    strings = [f"m{k}" for k in range(len(values))]
    doc = hostile_doc(strings)
    for s, v in zip(strings, values, strict=True):
        doc["models"][s]["index"] = v
        doc["models"][s]["ci"]["index"] = {"lo": v, "hi": v}
    out = render_table([("a.json", doc)], "html")
    grid = out.count('class="grid"')
    assert 2 <= grid <= CHART_TICKS and len(out) < 20_000
    positions = [float(x) for x in re.findall(r' (?:x1|x2|cx|x)="([^"]*)"', out)]
    assert positions and all(0 <= x <= 850 for x in positions)  # every mark on the chart, none NaN


def test_the_chart_keeps_its_grid_of_twenty_points_on_a_0_to_100_scale():
    doc = hostile_doc(["m"])
    out = render_table([("a.json", doc)], "html")
    ticks = re.findall(r'class="tick">([^<]*)<', out)
    assert ticks == ["0", "20", "40", "60", "80", "100"]


# --- the number conventions -------------------------------------------------------------------------


def test_numbers_round_never_show_minus_zero_and_take_their_null():
    assert number(-0.004, 2) == "0.00" and number(-0.004, 2, signed=True) == "+0.00"
    assert number(-0.006, 2) == "-0.01" and number(0.5, 1, signed=True) == "+0.5"
    assert number(None, 2) == NULL == "—" and number(None, 2, null=NA) == "NA"
    assert number(1234.5678, 3, general=True) == "1.23e+03"
    assert with_half_width(50.254, 1.5, 2) == "50.25 ± 1.50" and with_half_width(3.0, None, 1) == "3.0"
    assert with_half_width(None, 1.0, 2, null="--") == "--"
    assert with_half_width(0.5, 0.25, 3, pm=r"${}\pm{}$") == r"0.500${}\pm{}$0.250"


def test_console_text_uses_the_same_conventions():
    from tcsexam.scoring.commands.text import fmt

    assert fmt(-0.00001, 4) == "0.0000" and fmt(-0.00001, 4, signed=True) == "+0.0000" and fmt(None) == "NA"


def test_every_format_aligns_the_words_left_and_the_numbers_right():
    """rank, index, P, S, C, O and tasks right-aligned, model and status left, alike in Markdown and LaTeX
    (LaTeX had the index left-aligned)."""
    lines = two_groups("latex").splitlines()
    assert [line for line in lines if line.startswith(r"\begin{tabular}")] == [r"\begin{tabular}{rllrrrrrr}"] * 2
    markdown = [line for line in two_groups("markdown").splitlines() if set(line) <= set("|-: ") and "---" in line]
    assert markdown == ["|---:|:---|:---|---:|---:|---:|---:|---:|---:|"] * 2


# --- intervals past the range of the scores: said, never clipped (docs/rules.md#intervals) -------------


@pytest.mark.parametrize(
    "where, lo, hi, beyond",
    [
        ("theorem", 0.0, 1.0, False),  # at the ends of [0, 1]: within
        ("theorem", -0.01, 0.5, True),
        ("solver", 0.2, 1.01, True),
        ("conjecture", 0.2, 1.01, True),
        ("construction", 0.5, 7.0, False),  # construction has no upper bound
        ("construction", -0.1, 0.5, True),
        ("index", 10.0, 250.0, False),  # nor the index
        ("index", -3.0, 40.0, True),
    ],
)
def test_the_legend_says_intervals_are_not_clipped_when_one_reaches_past_its_range(where, lo, hi, beyond):
    doc = hostile_doc(["m"])
    m = doc["models"]["m"]
    m["track_means"] = dict.fromkeys(TRACKS, 0.5)
    m["ci"] = {"index": {"lo": 20.0, "hi": 30.0}, "tracks": {t: {"lo": 0.25, "hi": 0.75} for t in TRACKS}}
    if where == "index":
        m["ci"]["index"] = {"lo": lo, "hi": hi}
    else:
        m["ci"]["tracks"][where] = {"lo": lo, "hi": hi}
    for name in ("markdown", "latex", "html"):
        out = render_table([("a.json", doc)], name)
        assert ("intervals are not clipped: one may reach below 0, or above 1 for P, S and O" in out) is beyond, name
    legend = MarkdownIt("commonmark").enable("table").render(render_table([("a.json", doc)], "markdown"))
    assert ("</table>\n<p>" + html.escape(LEGEND + (BEYOND if beyond else ""), quote=False) + "</p>") in legend


# --- a group joining files: each file ranked its own models only (docs/commands.md#table) -----------------


def test_a_group_joining_two_files_says_its_ranks_are_each_files_own():
    one, two = hostile_doc(["a", "b"]), hostile_doc(["c", "d"])  # both lite / offline, each ranked 1–2
    joined = "ranks within each file's models (the group joins 2 index.json files; score the models as one run"
    alone = render_table([("one.json", one)], "markdown")
    assert "| 1–2 | a |" in alone and joined not in alone
    for name in ("markdown", "latex", "html"):
        out = render_table([("one.json", one), ("two.json", two)], name)
        assert joined in out.replace("\\'", "'").replace("&#x27;", "'"), name
    other = render_table([("one.json", one), ("two.json", hostile_doc(["c", "d"], suite="full"))], "markdown")
    assert joined not in other  # two groups of one file each
    for doc in (one, two):  # ranks not computed (more than 5,000 models): nothing to say of them
        doc["ranks"] = {"method": "paired-t-holm", "alpha": 0.05, "models": None, "reason": NOT_RANKED_REASON}
    unranked = render_table([("one.json", one), ("two.json", two)], "markdown")
    assert joined not in unranked and "rank: not computed" in unranked
