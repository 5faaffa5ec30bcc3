"""Reports on index.json files: ``tcsexam table``, ``diff`` and ``verify`` (SPEC section 11).

``table`` groups models by (suite, solver_protocol) — R3 never mixes Full with
Lite nor online with offline — and renders markdown, LaTeX (booktabs), CSV
(unrounded) or one self-contained HTML file. ``diff`` says what moved between
two documents. ``verify`` checks that a stored document hashes to its own
``content_sha256``, that every input still has the sha256 its provenance
names, and that recomputing from the inputs gives the same document.
"""

from __future__ import annotations

import csv
import hashlib
import html
import io
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import InputError, Problem, Problems
from .jsonio import dumps, load_json, read_bytes
from .safety import check_output, escape_for_terminal, write_output
from .vocab import NOT_RANKED_REASON, TRACK_LETTERS, TRACKS

EXIT_OK, EXIT_REJECTED = 0, 1
GROUP_ORDER = [("full", "offline"), ("full", "online"), ("lite", "offline"), ("lite", "online")]
NULL, NULL_LATEX = "—", "--"
PROVISIONAL_MARK = "†"


# --- reading index.json ---------------------------------------------------------------------------


def load_index(path: Path) -> dict:
    """An index.json, checked for the keys the reports read; problems name file, key and field."""
    file = str(path)
    doc = load_json(path, "index.json")
    problems = Problems()
    if not isinstance(doc, dict):
        raise InputError([Problem(file, "", "", "expected an index.json object")])
    for key in ("suite", "solver_protocol", "status"):
        if not isinstance(doc.get(key), str):
            problems.add(file, "", key, "missing or not a string")
    models = doc.get("models")
    if not isinstance(models, dict):
        problems.add(file, "", "models", "missing or not an object")
        models = {}
    for name, m in models.items():
        where = f"models.{name}"
        if not isinstance(m, dict):
            problems.add(file, where, "", "expected an object")
            continue
        if not isinstance(m.get("status"), str):
            problems.add(file, where, "status", "missing or not a string")
        if not (m.get("index") is None or _is_number(m.get("index"))):
            problems.add(file, where, "index", "expected a number or null")
        means = m.get("track_means")
        if not isinstance(means, dict) or any(not (means.get(t) is None or _is_number(means.get(t))) for t in TRACKS):
            problems.add(file, where, "track_means", "expected an object of numbers or nulls per track")
        if not isinstance(m.get("tasks", {}), dict):
            problems.add(file, where, "tasks", "expected an object")
        if m.get("ci") is not None and not isinstance(m.get("ci"), dict):
            problems.add(file, where, "ci", "expected an object or null")
    problems.raise_if_any()
    return doc


def _is_number(x) -> bool:
    return type(x) in (int, float) and math.isfinite(x)


def _interval(block) -> tuple[float | None, float | None]:
    if isinstance(block, dict) and _is_number(block.get("lo")) and _is_number(block.get("hi")):
        return float(block["lo"]), float(block["hi"])
    return None, None


# --- table ----------------------------------------------------------------------------------------


@dataclass
class Cell:
    """A value with its 95% interval (either may be missing)."""

    value: float | None
    lo: float | None
    hi: float | None

    @property
    def half_width(self) -> float | None:
        return None if self.lo is None or self.hi is None else (self.hi - self.lo) / 2


@dataclass
class Row:
    model: str
    status: str
    rank: tuple[int, int] | None
    index: Cell
    tracks: dict[str, Cell]
    complete: int
    total: int
    source: str

    @property
    def provisional(self) -> bool:
        return self.status == "provisional"


@dataclass
class Group:
    suite: str
    protocol: str
    rows: list[Row]
    ranked: bool  # every document of the group carries a ranks block
    not_ranked: str | None = None  # why a document of the group has no ranks (its ``ranks.reason``)

    @property
    def title(self) -> str:
        return f"{self.suite} / {self.protocol}"


def rows_of(doc: dict, source: str) -> list[Row]:
    ranks = doc.get("ranks") if isinstance(doc.get("ranks"), dict) else None
    rank_models = ranks.get("models", {}) if ranks and isinstance(ranks.get("models"), dict) else {}
    rows = []
    for name, m in doc["models"].items():
        ci = m.get("ci") or {}
        lo, hi = _interval(ci.get("index"))
        tracks = {}
        for t in TRACKS:
            tlo, thi = _interval((ci.get("tracks") or {}).get(t))
            tracks[t] = Cell(m["track_means"].get(t), tlo, thi)
        tasks = m.get("tasks") or {}
        complete = sum(
            1 for t in tasks.values() if isinstance(t, dict) and t.get("status") in ("complete", "provisional")
        )
        r = rank_models.get(name)
        rank = (
            (int(r["best"]), int(r["worst"]))
            if isinstance(r, dict) and _is_number(r.get("best")) and _is_number(r.get("worst"))
            else None
        )
        rows.append(Row(name, m["status"], rank, Cell(m.get("index"), lo, hi), tracks, complete, len(tasks), source))
    return rows


def group_key(key: tuple[str, str]) -> tuple:
    return (GROUP_ORDER.index(key), "", "") if key in GROUP_ORDER else (len(GROUP_ORDER), *key)


def build_groups(docs: list[tuple[str, dict]]) -> list[Group]:
    """SPEC 11: one group per (suite, solver_protocol), in the SPEC's order; a model in two files
    of one group is rejected; rows by index, highest first, null last (ties keep file order)."""
    problems = Problems()
    grouped: dict[tuple[str, str], list[Row]] = {}
    seen: dict[tuple[str, str, str], str] = {}
    ranked: dict[tuple[str, str], bool] = {}
    not_ranked: dict[tuple[str, str], str] = {}
    for source, doc in docs:
        key = (doc["suite"], doc["solver_protocol"])
        ranked[key] = ranked.get(key, True) and isinstance(doc.get("ranks"), dict)
        if ranked[key] and doc["ranks"].get("models") is None and doc["ranks"].get("reason") == NOT_RANKED_REASON:
            not_ranked.setdefault(key, NOT_RANKED_REASON)
        for row in rows_of(doc, source):
            first = seen.get((*key, row.model))
            if first is not None:
                problems.add(
                    source,
                    f"models.{row.model}",
                    "",
                    f"model '{row.model}' of group {key[0]}/{key[1]} is also in {first}: a group takes each model once",
                )
                continue
            seen[(*key, row.model)] = source
            grouped.setdefault(key, []).append(row)
    problems.raise_if_any()
    groups = []
    for key in sorted(grouped, key=group_key):
        rows = sorted(grouped[key], key=lambda r: (r.index.value is None, -(r.index.value or 0.0)))
        groups.append(Group(key[0], key[1], rows, ranked[key], not_ranked.get(key)))
    return groups


def rank_text(rank: tuple[int, int] | None, dash: str = "–") -> str:
    if rank is None:
        return ""
    best, worst = rank
    return str(best) if best == worst else f"{best}{dash}{worst}"


def number(x: float | None, digits: int, null: str = NULL) -> str:
    if x is None:
        return null
    text = f"{x:.{digits}f}"
    return "0" + text[2:] if text.startswith("-0") and float(text) == 0 else text  # never "-0.00"


def with_hw(cell: Cell, digits: int, pm: str, null: str = NULL) -> str:
    if cell.value is None:
        return null
    hw = cell.half_width
    return number(cell.value, digits, null) + ("" if hw is None else f"{pm}{number(hw, digits, null)}")


HEADER = ["rank", "model", "status", "index", *(TRACK_LETTERS[t] for t in TRACKS), "tasks"]


def text_cells(
    row: Row, di: int, dt: int, pm: str, null: str, dash: str, mark: str, name: Callable[[str], str] = str
) -> list[str]:
    """The cells of a row; ``name`` escapes the model name for the format (numbers, statuses and
    ranks need no escaping), ``pm`` and ``mark`` are the format's own ± and provisional mark."""
    return [
        rank_text(row.rank, dash),
        name(row.model) + (mark if row.provisional else ""),
        row.status,
        with_hw(row.index, di, pm, null),
        *(with_hw(row.tracks[t], dt, pm, null) for t in TRACKS),
        f"{row.complete}/{row.total}",
    ]


def markdown_escape(text: str) -> str:
    return escape_for_terminal(text.replace("\\", "\\\\").replace("|", "\\|"))


def render_markdown(groups: list[Group], di: int, dt: int) -> str:
    out = []
    for g in groups:
        out.append(f"### {markdown_escape(g.title)}\n")
        out.append("| " + " | ".join(HEADER) + " |")
        out.append("|" + "|".join(["---:", ":---", ":---", *["---:"] * 5, "---:"]) + "|")
        for row in g.rows:
            cells = text_cells(row, di, dt, " ± ", NULL, "–", " " + PROVISIONAL_MARK, markdown_escape)
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
        out.extend(footnotes(g))
    return "\n".join(out).rstrip("\n") + "\n"


def footnotes(g: Group) -> list[str]:
    notes = []
    if any(r.provisional for r in g.rows):
        notes.append(f"{PROVISIONAL_MARK} provisional: some adopted attempt is selected_provisional.")
    if not g.ranked:
        notes.append("rank: not in the index.json (no ranks block).")
    elif g.not_ranked is not None:
        notes.append(f"rank: not computed ({g.not_ranked}).")
    return notes + ([""] if notes else [])


LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    "\n": " ",
}


def latex_escape(text: str) -> str:
    """Names as LaTeX text: every special character escaped; non-ASCII is left to inputenc (UTF-8)."""
    return "".join(LATEX_SPECIAL.get(c, c) for c in escape_for_terminal(text))


def render_latex(groups: list[Group], di: int, dt: int) -> str:
    out = ["% requires \\usepackage{booktabs}"]
    for g in groups:
        out.append(f"% {latex_escape(g.title)}")
        out.append(r"\begin{tabular}{rlllrrrrr}")
        out.append(r"\toprule")
        out.append(r"\multicolumn{9}{l}{" + latex_escape(g.title) + r"} \\")
        out.append(r"\midrule")
        out.append(" & ".join(HEADER) + r" \\")
        out.append(r"\midrule")
        for row in g.rows:
            cells = text_cells(row, di, dt, r"${}\pm{}$", NULL_LATEX, "-", r"$^\dagger$", latex_escape)
            out.append(" & ".join(cells) + r" \\")
        out.append(r"\bottomrule")
        out.append(r"\end{tabular}")
        for note in footnotes(g):
            if note:
                out.append("% " + latex_escape(note))
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def render_csv(groups: list[Group]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    cols = [
        "suite",
        "solver_protocol",
        "rank_best",
        "rank_worst",
        "model",
        "status",
        "provisional",
        "index",
        "index_lo",
        "index_hi",
    ]
    for t in TRACKS:
        cols += [TRACK_LETTERS[t], f"{TRACK_LETTERS[t]}_lo", f"{TRACK_LETTERS[t]}_hi"]
    w.writerow(cols + ["tasks_complete", "tasks_total", "source"])

    def r(x) -> str:  # unrounded: the shortest decimal that reads back as the same double
        return "" if x is None else repr(float(x))

    for g in groups:
        for row in g.rows:
            line = [
                g.suite,
                g.protocol,
                row.rank[0] if row.rank else "",
                row.rank[1] if row.rank else "",
                row.model,
                row.status,
                "true" if row.provisional else "false",
                r(row.index.value),
                r(row.index.lo),
                r(row.index.hi),
            ]
            for t in TRACKS:
                c = row.tracks[t]
                line += [r(c.value), r(c.lo), r(c.hi)]
            w.writerow(line + [row.complete, row.total, row.source])
    return buf.getvalue()


def chart_svg(g: Group, di: int) -> str:
    """Per group: each model's index as a dot with its 95% interval as a bar (inline SVG)."""
    rows = [r for r in g.rows if r.index.value is not None]
    left_out = [r.model for r in g.rows if r.index.value is None]
    caption = (
        '<p class="caption">Index (points) of each model, with its 95% interval where it has one.'
        + (f" No index (not charted): {html.escape(escape_for_terminal(', '.join(left_out)))}." if left_out else "")
        + "</p>"
    )
    if not rows:
        return caption
    values = [v for r in rows for v in (r.index.value, r.index.lo, r.index.hi) if v is not None]
    lo, hi = min(0.0, *values), max(100.0, *values)
    left, width, step = 200, 560, 28
    height = 30 + step * len(rows)

    def x(v: float) -> float:
        return left + (v - lo) / (hi - lo) * width

    parts = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 90}" height="{height + 20}" '
            f'role="img" aria-label="index of each model with its 95% interval, {html.escape(g.title)}">'
        )
    ]
    for tick in range(math.ceil(lo / 20) * 20, int(hi) + 1, 20):
        parts.append(
            f'<line x1="{x(tick):.1f}" y1="10" x2="{x(tick):.1f}" y2="{height}" class="grid"/>'
            f'<text x="{x(tick):.1f}" y="{height + 15}" class="tick">{number(float(tick), 0)}</text>'
        )
    for k, r in enumerate(rows):
        assert r.index.value is not None  # rows are the charted ones
        y = 25 + step * k
        label = html.escape(escape_for_terminal(r.model) + (" " + PROVISIONAL_MARK if r.provisional else ""))
        parts.append(f'<text x="{left - 8}" y="{y + 4}" class="label">{label}</text>')
        if r.index.lo is not None and r.index.hi is not None:
            parts.append(f'<line x1="{x(r.index.lo):.1f}" y1="{y}" x2="{x(r.index.hi):.1f}" y2="{y}" class="ci"/>')
        parts.append(
            f'<circle cx="{x(r.index.value):.1f}" cy="{y}" r="5" class="dot"/>'
            f'<text x="{left + width + 8}" y="{y + 4}" class="value">{with_hw(r.index, di, " ± ")}</text>'
        )
    parts.append("</svg>")
    return caption + "".join(parts)


HTML_STYLE = """
body { font-family: sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { padding: 0.3em 0.8em; border-bottom: 1px solid #ccc; text-align: right; }
td.l, th.l { text-align: left; }
thead th { border-bottom: 2px solid #222; }
svg .grid { stroke: #ddd; } svg .tick { font-size: 11px; text-anchor: middle; fill: #555; }
svg .label { font-size: 13px; text-anchor: end; } svg .value { font-size: 12px; }
svg .ci { stroke: #36c; stroke-width: 3; } svg .dot { fill: #c33; }
"""


def render_html(groups: list[Group], di: int, dt: int) -> str:
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>TCSExam leaderboard</title>",
        f"<style>{HTML_STYLE}</style></head><body>",
        "<h1>TCSExam leaderboard</h1>",
    ]
    for g in groups:
        out.append(f"<h2>{html.escape(g.title)}</h2>")
        out.append(
            "<table><thead><tr>"
            + "".join(f'<th class="{"l" if h in ("model", "status") else ""}">{html.escape(h)}</th>' for h in HEADER)
            + "</tr></thead><tbody>"
        )
        for row in g.rows:
            cells = text_cells(row, di, dt, " ± ", NULL, "–", " " + PROVISIONAL_MARK, escape_for_terminal)
            out.append(
                "<tr>"
                + "".join(
                    f'<td class="{"l" if k in (1, 2) else ""}">{html.escape(c)}</td>' for k, c in enumerate(cells)
                )
                + "</tr>"
            )
        out.append("</tbody></table>")
        out.extend(f"<p>{html.escape(n)}</p>" for n in footnotes(g) if n)
        out.append(chart_svg(g, di))
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def render_table(docs: list[tuple[str, dict]], fmt: str = "markdown", digits: int | None = None) -> str:
    """SPEC 11 table of the given (source name, index.json) documents in one format."""
    groups = build_groups(docs)
    di, dt = (2, 3) if digits is None else (digits, digits)
    if fmt == "latex":
        return render_latex(groups, di, dt)
    if fmt == "csv":
        return render_csv(groups)
    if fmt == "html":
        return render_html(groups, di, dt)
    return render_markdown(groups, di, dt)


# --- diff -----------------------------------------------------------------------------------------


def diff_index(old: dict, new: dict) -> dict:
    """SPEC 11 diff: per model the index and track means before and after, the change, and
    whether it exceeds the new document's 95% half-width; statuses; added/removed; inputs."""
    models = {}
    old_m, new_m = old["models"], new["models"]
    for name in [*old_m, *(n for n in new_m if n not in old_m)]:
        absent: dict[str, Any] = {"status": None, "index": None, "track_means": {}}  # a model added or removed
        a, b = old_m.get(name, absent), new_m.get(name, absent)
        ci = b.get("ci") or {}
        entry = {
            "status": {"old": a["status"], "new": b["status"], "changed": a["status"] != b["status"]},
            "index": change(a.get("index"), b.get("index"), _interval(ci.get("index"))),
        }
        entry["tracks"] = {
            t: change(a["track_means"].get(t), b["track_means"].get(t), _interval((ci.get("tracks") or {}).get(t)))
            for t in TRACKS
        }
        models[name] = entry
    old_in = (old.get("provenance") or {}).get("inputs") or {}
    new_in = (new.get("provenance") or {}).get("inputs") or {}
    inputs = [
        {"input": k, "old": (old_in.get(k) or {}).get("sha256"), "new": (new_in.get(k) or {}).get("sha256")}
        for k in sorted(set(old_in) | set(new_in))
        if (old_in.get(k) or {}).get("sha256") != (new_in.get(k) or {}).get("sha256")
    ]
    return {
        "models": models,
        "added": [n for n in new_m if n not in old_m],
        "removed": [n for n in old_m if n not in new_m],
        "inputs_changed": inputs,
        "status": {"old": old["status"], "new": new["status"]},
    }


def change(a, b, interval) -> dict:
    lo, hi = interval
    hw = None if lo is None or hi is None else (hi - lo) / 2
    delta = None if a is None or b is None else b - a
    exceeds = None if delta is None or hw is None else abs(delta) > hw
    return {"old": a, "new": b, "change": delta, "half_width": hw, "exceeds_half_width": exceeds}


def signed(x: float | None, digits: int) -> str:
    return "NA" if x is None else f"{x:+.{digits}f}"


def format_diff(d: dict) -> str:
    return "\n".join(escape_for_terminal(line) for line in diff_lines(d))


def diff_lines(d: dict) -> list[str]:
    def plain(x, digits):  # ASCII for scripts: NA when missing (scoring.cli)
        return "NA" if x is None else f"{x:.{digits}f}"

    lines = [f"status: {d['status']['old']} -> {d['status']['new']}"]
    for name, e in d["models"].items():
        i = e["index"]
        flag = {True: " (exceeds the 95% half-width)", False: " (within the 95% half-width)", None: ""}[
            i["exceeds_half_width"]
        ]
        status = (
            f"; status {e['status']['old'] or 'NA'} -> {e['status']['new'] or 'NA'}" if e["status"]["changed"] else ""
        )
        lines.append(
            f"{name}: index {plain(i['old'], 2)} -> {plain(i['new'], 2)} ({signed(i['change'], 2)}){flag}{status}"
        )
        for t, c in e["tracks"].items():
            if c["old"] != c["new"]:
                mark = " *" if c["exceeds_half_width"] else ""
                lines.append(
                    f"  {TRACK_LETTERS[t]}: {plain(c['old'], 3)} -> {plain(c['new'], 3)} "
                    f"({signed(c['change'], 3)}){mark}"
                )
    for name in d["added"]:
        lines.append(f"added: {name}")
    for name in d["removed"]:
        lines.append(f"removed: {name}")
    for inp in d["inputs_changed"]:
        lines.append(f"input changed: {inp['input']}: {inp['old'] or 'NA'} -> {inp['new'] or 'NA'}")
    return lines


# --- verify ---------------------------------------------------------------------------------------


def stored_hash_findings(doc: dict) -> list[str]:
    """The stored document must hash to its own content_sha256 (SPEC 11)."""
    from .output import content_sha256

    stored = (doc.get("provenance") or {}).get("content_sha256")
    if not isinstance(stored, str):
        return ["provenance.content_sha256 is missing"]
    actual = content_sha256(doc)
    if actual != stored:
        return [
            (
                f"the stored document does not hash to its content_sha256 (stored {stored}, its content hashes to "
                f"{actual}): it was edited after it was written"
            )
        ]
    return []


def input_locations(doc: dict, run_dir: Path | None, benchmark: Path | None, file: str = "index.json"):
    """Where verify reads each input: the provenance paths, or with RUN_DIR the same file names
    inside RUN_DIR (suite and reference stay in the benchmark folder). Returns the RunPaths."""
    from .inputs import resolve_run_paths
    from .reference import SAMPLE_BENCHMARK

    found_sample = (doc.get("provenance") or {}).get("benchmark") == SAMPLE_BENCHMARK
    inputs = (doc.get("provenance") or {}).get("inputs") or {}
    path = {k: (v or {}).get("path") for k, v in inputs.items() if isinstance(v, dict)}
    if run_dir is not None:
        attempts = run_dir / Path(path.get("attempts") or "attempts.csv").name
        cohort = run_dir / Path(path.get("cohort") or "cohort.json").name
        records = run_dir / "records" if "records" in inputs else None
        bench = benchmark  # None: found as score finds it
        suite = None
    else:
        if not path.get("attempts") or not path.get("cohort"):
            raise InputError(
                [
                    Problem(
                        file, "provenance.inputs", "path", "the provenance names no attempts/cohort path: give RUN_DIR"
                    )
                ]
            )
        attempts, cohort = Path(str(path["attempts"])), Path(str(path["cohort"]))
        records = Path(str(path["records"])) if path.get("records") else None
        suite = path.get("suite")
        bench = benchmark or (Path(suite).parent.parent if suite and not found_sample else None)
        if benchmark is not None:
            suite = None
    paths = resolve_run_paths(
        None,
        attempts=str(attempts),
        cohort=str(cohort),
        records=str(records) if records is not None and records.is_dir() else None,
        benchmark=str(bench) if bench is not None else None,
        suite=suite,
    )
    return paths


def file_sha256(path: Path) -> str | None:
    """The sha256 of a regular file, None when it cannot be read (SPEC 13: a FIFO is never waited on)."""
    try:
        return hashlib.sha256(read_bytes(path, "input file")).hexdigest()
    except InputError:
        return None


def differences(a, b, where: str = "$", out: list | None = None, limit: int = 50) -> list[str]:
    """Every leaf that differs between two JSON values (at most ``limit``), by JSON path."""
    out = [] if out is None else out
    if len(out) >= limit:
        return out
    if isinstance(a, dict) and isinstance(b, dict):
        for k in [*a, *(k for k in b if k not in a)]:
            if k not in b:
                out.append(f"{where}.{k}: only in the stored document")
            elif k not in a:
                out.append(f"{where}.{k}: only in the recomputed document")
            else:
                differences(a[k], b[k], f"{where}.{k}", out, limit)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for k, (x, y) in enumerate(zip(a, b, strict=True)):
            differences(x, y, f"{where}[{k}]", out, limit)
    elif a != b or (type(a) is not type(b) and not (_is_number(a) and _is_number(b))):
        out.append(f"{where}: stored {a!r}, recomputed {b!r}")
    return out


def thresholds_of(doc: dict) -> dict[str, float]:
    """The pass^k thresholds the stored document was computed with (they are part of its content)."""
    found: dict[str, float] = {}
    for m in (doc.get("models") or {}).values():
        for track, block in ((m or {}).get("pass_hat_k") or {}).items():
            if isinstance(block, dict) and _is_number(block.get("threshold")):
                found.setdefault(track, float(block["threshold"]))
    return found


def verify_index(
    doc: dict,
    run_dir: Path | None,
    benchmark: Path | None,
    recompute: Callable[[object, dict], dict],
    file: str = "index.json",
) -> list[str]:
    """SPEC 11 verify: every difference found (empty: the document follows from its inputs).

    ``recompute(paths, thresholds)`` builds the document from the inputs at ``paths``."""
    from .output import content_sha256

    findings = stored_hash_findings(doc)
    paths = input_locations(doc, run_dir, benchmark, file)
    stored_inputs = (doc.get("provenance") or {}).get("inputs") or {}
    located = {"attempts": paths.attempts, "cohort": paths.cohort}
    for name, block in stored_inputs.items():
        if name in located and isinstance(block, dict):
            actual = file_sha256(located[name])
            if actual is None:
                findings.append(f"input {name}: {located[name]} cannot be read")
            elif actual != block.get("sha256"):
                findings.append(
                    f"input {name}: {located[name]} has sha256 {actual}, the provenance says {block.get('sha256')}"
                )
    try:
        fresh = recompute(paths, thresholds_of(doc))
    except InputError as exc:
        return findings + [f"recomputing failed: {p}" for p in exc.problems]
    fresh_inputs = fresh["provenance"]["inputs"]
    for name in sorted(set(stored_inputs) | set(fresh_inputs)):
        if name in located:
            continue  # read directly above
        old, new = (stored_inputs.get(name) or {}).get("sha256"), (fresh_inputs.get(name) or {}).get("sha256")
        if old != new:
            where = (fresh_inputs.get(name) or {}).get("path", "")
            findings.append(f"input {name}: {where} has sha256 {new}, the provenance says {old}")
    stored, again = (doc.get("provenance") or {}).get("content_sha256"), content_sha256(fresh)
    if stored != again:
        findings.append(f"recomputed content_sha256 {again} differs from the stored {stored}")
    skip = ("generated_at", "content_sha256", "inputs")  # compared above
    a = {**doc, "provenance": {k: v for k, v in (doc.get("provenance") or {}).items() if k not in skip}}
    b = {**fresh, "provenance": {k: v for k, v in fresh["provenance"].items() if k not in skip}}
    findings.extend(differences(a, b))  # what changed, value by value (an edited number, a moved score)
    return findings


def recompute_with_pipeline(paths, thresholds: dict) -> dict:
    """The one call into the scoring pipeline that verify makes."""
    from .inputs import load_run
    from .output import build_index

    return build_index(load_run(paths), thresholds)


# --- command line ---------------------------------------------------------------------------------


def emit_bytes(path: Path | None, data: bytes | bytearray) -> None:
    """Write an output to the file ``path`` atomically, or to standard output when None
    (``--output -``, SPEC 6), after the text already printed there."""
    if path is None:
        sys.stdout.flush()
    write_output(path, data)


def emit(text: str, output: str | None, inputs: list[str]) -> None:
    """Text to standard output, or to ``--output`` (``-`` is standard output; SPEC 13: never an
    input, a folder or a device)."""
    emit_bytes(None if output is None else check_output(output, inputs), text.encode("utf-8"))


def run_table(args) -> int:
    """``tcsexam table`` (SPEC 11)."""
    docs = []
    problems = Problems()
    for name in args.index:
        try:
            docs.append((name, load_index(Path(name))))
        except InputError as exc:
            problems.extend(exc.problems)
    problems.raise_if_any()
    emit(render_table(docs, args.format, args.digits), args.output, args.index)
    return EXIT_OK


def run_diff(args) -> int:
    """``tcsexam diff`` (SPEC 11): text on stdout; JSON with --output; exit 0 (1 unreadable input)."""
    problems = Problems()
    docs = []
    for name in (args.old, args.new):
        try:
            docs.append(load_index(Path(name)))
        except InputError as exc:
            problems.extend(exc.problems)
    problems.raise_if_any()
    d = diff_index(*docs)
    if args.output:
        import msgspec

        from .results import DiffOutput

        msgspec.convert(d, DiffOutput)  # the shape its schema describes (SPEC 11); a mismatch is a bug
        emit(dumps(d).decode("utf-8"), args.output, [args.old, args.new])
    if args.output != "-":
        print(format_diff(d))
    return EXIT_OK


def run_verify(args) -> int:
    """``tcsexam verify`` (SPEC 11): exit 0 when everything holds, else 1 listing each difference."""
    doc = load_index(Path(args.index))
    findings = verify_index(
        doc,
        Path(args.run_dir) if args.run_dir else None,
        Path(args.benchmark) if args.benchmark else None,
        recompute_with_pipeline,
        args.index,
    )
    if findings:
        print(f"{args.index}: NOT verified, {len(findings)} difference{'s' if len(findings) != 1 else ''}:")
        for f in findings:
            print(f"  {escape_for_terminal(f)}")
        return EXIT_REJECTED
    print(
        f"{args.index}: verified: every input matches its sha256, the recomputed document equals the stored "
        f"one (content_sha256 {doc['provenance']['content_sha256']})"
    )
    return EXIT_OK


def digits_arg(text: str) -> int:
    """--digits: a whole number 0..15 (else a usage error, exit 2)."""
    import argparse

    try:
        n = int(text)
    except ValueError:
        n = -1
    if not 0 <= n <= 15:
        raise argparse.ArgumentTypeError(f"expected a whole number from 0 to 15, got {text!r}")
    return n


def add_table_parser(sub) -> None:
    from .cli import add_output_argument, epilog

    p = sub.add_parser(
        "table",
        help="leaderboard tables of index.json files",
        description="One table per (suite, solver_protocol) group, never mixed (R3).",
        epilog=epilog(
            "  tcsexam table build/index.json\n"
            "  tcsexam table full.json lite.json --format latex --output table.tex\n"
            "  tcsexam table *.json --format csv --output -",
            "exit codes:\n  0  written\n  1  rejected input (an unreadable index.json, a model twice in a group)\n"
            "  2  usage error",
        ),
    )
    p.add_argument("index", nargs="+", metavar="INDEX_JSON", help="index.json files written by score")
    p.add_argument(
        "--format",
        choices=("markdown", "latex", "csv", "html"),
        default="markdown",
        help="output format (default markdown)",
    )
    p.add_argument(
        "--digits", type=digits_arg, metavar="N", help="decimals (default: 2 for the index, 3 for the tracks)"
    )
    add_output_argument(p, "write the table here instead of standard output")


def add_diff_parser(sub) -> None:
    from .cli import add_output_argument, epilog

    p = sub.add_parser(
        "diff",
        help="what moved between two index.json files",
        description="Per model the index and track means before and after, the change, and whether it "
        "exceeds the new document's 95% half-width; statuses; models added and removed; changed inputs.",
        epilog=epilog(
            "  tcsexam diff old/index.json build/index.json\n  tcsexam diff a.json b.json --output diff.json",
            "exit codes:\n  0  compared (whatever moved)\n  1  an unreadable or malformed index.json\n  2  usage error",
        ),
    )
    p.add_argument("old", metavar="OLD_INDEX", help="the earlier index.json")
    p.add_argument("new", metavar="NEW_INDEX", help="the later index.json (its intervals judge the changes)")
    add_output_argument(p, "also write the differences as JSON here")


def add_verify_parser(sub) -> None:
    from .cli import epilog

    p = sub.add_parser(
        "verify",
        help="recompute an index.json from its inputs and check it",
        description="Each input's sha256 must match the provenance, the recomputed document must equal "
        "the stored one, and the stored document must hash to its own content_sha256.",
        epilog=epilog(
            "  tcsexam verify build/index.json\n  tcsexam verify paper/index.json copied-run/",
            "exit codes:\n  0  verified\n  1  not verified (every difference listed) or an unreadable "
            "index.json\n  2  usage error",
        ),
    )
    p.add_argument("index", metavar="INDEX_JSON", help="the index.json to check")
    p.add_argument(
        "run_dir",
        nargs="?",
        metavar="RUN_DIR",
        help="find attempts.csv, cohort.json, records/ here instead of at the provenance paths",
    )
    p.add_argument(
        "--benchmark", metavar="DIR", help="benchmark folder for suite and reference (default: as at scoring)"
    )


def add_parsers(sub) -> dict:
    """Register table, diff and verify on the ``tcsexam`` sub-parsers; returns command -> handler."""
    add_table_parser(sub)
    add_diff_parser(sub)
    add_verify_parser(sub)
    return {"table": run_table, "diff": run_diff, "verify": run_verify}
