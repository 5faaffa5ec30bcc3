"""The Coverage pane's pure functions: the grid of tasks by models, its legend, a cell's detail and the issues.

No textual here: each function is testable without a terminal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tcsexam.scoring.vocab import ATTEMPTS_FILE
from tcsexam.scoring.vocab import TRACK_LETTERS as LETTERS

from ...views import (
    DASH,
)

if TYPE_CHECKING:
    pass

KIND_STYLE = {
    "complete": "green",
    "provisional": "yellow",
    "missing": "bold red",
    "awaiting": "dim",
    "not_valid": "bold red",
}


def coverage_cell(task: dict, model_coverage: dict, item: str) -> tuple[str, str]:
    """(glyph, kind) of one model × task cell: an adopted attempt whose score_status is ``missing`` (its
    row written, as `tcsexam init` writes it, its score not yet) is awaiting, not a failure (✗: a judge
    that failed, a run that did not finish)."""
    excluded = any(e["item"] == item for e in model_coverage["excluded"])
    suffix = "+x" if excluded else ""
    bad = [e["score_status"] for e in model_coverage["not_valid"] if e["item"] == item]
    if bad:
        return ("…" + suffix, "awaiting") if all(status == "missing" for status in bad) else ("✗" + suffix, "not_valid")
    if task["adopted"] < task["planned"]:
        return f"{task['adopted']}/{task['planned']}" + suffix, "missing"
    if task["status"] == "provisional":
        return "◐" + suffix, "provisional"
    return "●" + suffix, "complete"


def coverage_grid(document: dict) -> tuple[list[str], dict[str, list[tuple[str, str]]]]:
    """Items (columns) and, per model, the glyph of each task."""
    models = document["models"]
    items = list(next(iter(models.values()))["tasks"]) if models else []
    grid = {
        name: [coverage_cell(m["tasks"][item], m["coverage"], item) for item in items] for name, m in models.items()
    }
    return items, grid


LEGEND = "● complete  ◐ provisional  n/m adopted  … awaiting  ✗ not valid  +x excluded"  # 80 columns; ? says more
COMPACT_GLYPHS = {"complete": "●", "provisional": "◐", "missing": "○", "awaiting": "…", "not_valid": "✗"}
COMPACT_LEGEND = "● complete ◐ provisional ○ missing … awaiting ✗ not valid + also excluded · columns: Overview rows"


def legend_text(compact: bool = False) -> str:
    """The grid's glyphs in one line (? gives the long form); ``compact``: those of the two-character cells."""
    return COMPACT_LEGEND if compact else LEGEND


def compact_cell(glyph: str, kind: str) -> str:
    """A grid cell in two characters (the grid at many models): the kind's glyph, then + when the task also
    has excluded attempts; n/m becomes ○ (the line under the grid gives the counts)."""
    return COMPACT_GLYPHS[kind] + ("+" if glyph.endswith("+x") else " ")


def vertical_number(n: int, digits: int) -> str:
    """A column's number written downward in ``digits`` lines, right-aligned (a two-character header)."""
    return "\n".join(str(n).rjust(digits))


def attempts_file(document: dict) -> str:
    """The attempts file's name as the run's provenance gives it (attempts.csv)."""
    import os

    path = ((document.get("provenance") or {}).get("inputs") or {}).get("attempts", {}).get("path")
    return os.path.basename(path) if path else ATTEMPTS_FILE


def records_file(document: dict, model: str, item: str, attempt: str) -> str | None:
    """Where a solver attempt's records are (records/MODEL/ITEM/ATTEMPT.json under the run's records folder),
    None when the run has none."""
    root = ((document.get("provenance") or {}).get("inputs") or {}).get("records", {}).get("path")
    return None if not root else f"{root}/{model}/{item}/{attempt}.json"


def coverage_detail(document: dict, model: str, item: str) -> tuple:
    """The line under the grid: the cell under the cursor in words, with the model's full name and the
    attempts.csv lines it comes from."""
    m = document["models"][model]
    task, coverage = m["tasks"][item], m["coverage"]
    glyph, kind = coverage_cell(task, coverage, item)
    source = attempts_file(document)
    parts: list = [(model, "bold"), (f" · {LETTERS[task['track']]} {item} · ", "")]
    if kind in ("not_valid", "awaiting"):
        bad = [e for e in coverage["not_valid"] if e["item"] == item]
        said = "awaiting its score" if kind == "awaiting" else "not valid"
        parts.append((f"{said}: adopted attempt {bad[0]['attempt']} is {bad[0]['score_status']}", "bold"))
        parts.append((f" ({source} line {bad[0]['line']})", ""))
    elif kind == "missing":
        parts.append((f"{task['adopted']} of {task['planned']} planned attempts adopted", "bold"))
        parts.append((f" ({task['planned'] - task['adopted']} without a row in {source})", ""))
    else:
        parts.append((f"{kind}: {task['adopted']} of {task['planned']} planned attempts adopted", "bold"))
        provisional = [e for e in coverage["provisional"] if e["item"] == item]
        if provisional:
            lines = ", ".join(str(e["line"]) for e in provisional)
            parts.append((f", provisional ({source} line {lines})", ""))
    excluded = [e for e in coverage["excluded"] if e["item"] == item]
    if excluded:
        lines = ", ".join(str(e["line"]) for e in excluded)
        parts.append((f" · {len(excluded)} excluded ({source} line {lines}): {excluded[0]['note'] or 'no note'}", ""))
    return tuple(parts)


@dataclass(frozen=True)
class IssueRow:
    model: str
    item: str
    attempt: str
    kind: str
    reason: str
    line: int | None = None  # the attempts.csv line it comes from; None: no row (a planned attempt missing)
    source: str = ""  # where it comes from, in words (issue_source)


def issue_rows(document: dict) -> list[IssueRow]:
    """Every issue, provisional and excluded attempt of every model, then every ignored row (a likely typo as a warning), then every records
    file that no adopted row uses, worded as ``tcsexam validate`` words them: what a researcher must fix, each with the file and line it comes from."""
    from tcsexam.scoring.pipeline.aggregate import ignored_row_finding, unused_records_finding
    from tcsexam.scoring.reports.findings import excluded_finding

    out = []
    source = attempts_file(document)
    for name, m in document["models"].items():
        for i in m["issues"]:
            if i.get("line") is not None:
                where = f"{source} line {i['line']}"
            elif i["item"]:  # a task's planned attempts missing
                where = f"no row in {source} for an attempt the cohort plans"
            else:  # a finding of the model as a whole (a cohort typo, its solver scores not checked)
                where = "the model as a whole, not one row"
            track = m["tasks"].get(i["item"], {}).get("track")
            records = records_file(document, name, i["item"], i["attempt"]) if i["attempt"] else None
            if track == "solver" and records is not None:
                where += f"; records {records}"
            out.append(
                IssueRow(name, i["item"] or DASH, i["attempt"] or DASH, i["kind"], i["message"], i.get("line"), where)
            )
        for p in m["coverage"]["provisional"]:
            out.append(
                IssueRow(
                    name,
                    p["item"],
                    p["attempt"],
                    "provisional",
                    "adopted as selected_provisional (counted, and the model marked provisional)",
                    p.get("line"),
                    f"{source} line {p['line']}" if p.get("line") is not None else source,
                )
            )
        for e in m["coverage"]["excluded"]:  # validate lists them too: Diagnostics' count is this list's
            where = f"{source} line {e['line']}" if e.get("line") is not None else source
            out.append(IssueRow(name, e["item"], e["attempt"], "excluded", excluded_finding(e), e.get("line"), where))
    for r in document["ignored_rows"]["rows"]:
        kind, message = ignored_row_finding(r)
        where = f"{source} line {r['line']}"
        out.append(
            IssueRow(r["model"], r["item"], r["attempt"], kind, f"line {r['line']}: {message}", r["line"], where)
        )
    for u in document.get("unused_records", []):
        model, item, attempt = u["model"] or DASH, u["item"] or DASH, u["attempt"] or DASH
        out.append(IssueRow(model, item, attempt, "unused records", unused_records_finding(u), None, source))
    return out


def issue_detail(issue: IssueRow) -> tuple:
    """The line under the issues: the issue in full (the table cuts long reasons) and where it comes from."""
    return (
        (f"{issue.kind}: ", ""),
        (issue.reason, "bold"),
        (f" — {issue.source}" if issue.source else "", ""),
        (f" · {issue.model} · {issue.item} · attempt {issue.attempt}", ""),
    )
