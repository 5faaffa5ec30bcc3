"""The findings of an accepted run as the commands print them (docs/commands.md#validate): ``validate``'s
list, the warnings ``score`` prints on standard error, and the dashboard's Diagnostics shows both."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tcsexam.scoring.grammar import counted
from tcsexam.scoring.safety.terminal import escape_for_terminal
from tcsexam.scoring.vocab import NOT_CHECKED

if TYPE_CHECKING:
    from tcsexam.scoring.formats.results import ValidateFinding


def finding_text(f: ValidateFinding) -> str:
    """A finding as ``validate`` prints it: ``KIND: MODEL: WHERE: MESSAGE``, WHERE as ``ITEM attempt A
    (line N)`` and '-' for what it lacks, names escaped (docs/safety.md)."""
    where = (f.item or "-") + (f" attempt {f.attempt}" if f.attempt is not None else "")
    where += f" (line {f.line})" if f.line else ""
    return escape_for_terminal(f"{f.kind}: {f.model or '-'}: {where}: {f.message}")


def findings(document: dict) -> list[str]:
    """``validate``'s findings of an accepted run, one line each (``finding_text``)."""
    return [finding_text(f) for f in run_findings(document)]


def run_findings(document: dict) -> list[ValidateFinding]:
    """The findings of an accepted run (docs/commands.md#validate), model by model: issues (warning,
    incomplete), provisional and excluded attempts; then ignored rows and unused records files. A typo
    of cohort.json is one finding, first: the incomplete tasks of its model and the rows and records
    files of the name it misspells follow from it and are counted, not listed. So is a model every task
    of which is short of the same attempts (``uniform_shortfall``), in its model's place."""
    typos = document["ignored_rows"].get("cohort_typos", [])
    misspelt = {t["cohort_model"] for t in typos}
    head: list[ValidateFinding] = []
    out: list[ValidateFinding] = []
    for name, m in document["models"].items():
        issues = m["issues"]
        if name in misspelt:  # its first issue is the typo's (pipeline.aggregate.cohort_typo_issue)
            typo = next(t for t in typos if t["cohort_model"] == name)
            incomplete = sum(1 for i in issues if i["kind"] == "incomplete")
            message = f"{issues[0]['message']}; {typo_followers(typo, incomplete)}"
            head.append(finding("warning", name, message))
            issues = [i for i in issues[1:] if i["kind"] != "incomplete"]
        elif shortfall := uniform_shortfall(m):
            out.append(finding("incomplete", name, shortfall))
            issues = [i for i in issues if i["kind"] != "incomplete" or i["attempt"] is not None]
        for i in issues:
            out.append(finding(i["kind"], name, i["message"], i["item"] or None, i["attempt"], i["line"]))
        for a in m["coverage"]["provisional"]:
            out.append(
                finding("provisional", name, "adopted as selected_provisional", a["item"], a["attempt"], a["line"])
            )
        for a in m["coverage"]["excluded"]:
            out.append(finding("excluded", name, excluded_finding(a), a["item"], a["attempt"], a["line"]))
    hidden = {t["rows_model"] for t in typos}
    return head + out + ignored_findings(document, hide=hidden) + records_findings(document, hide=hidden)


def finding(
    kind: str,
    model: str | None,
    message: str,
    item: str | None = None,
    attempt: str | None = None,
    line: int | None = None,
) -> ValidateFinding:
    from tcsexam.scoring.formats.results import ValidateFinding  # here: score --help loads no msgspec

    return ValidateFinding(kind=kind, model=model, item=item, attempt=attempt, line=line, message=message)  # type: ignore[arg-type]


def uniform_shortfall(model: dict) -> str | None:
    """The finding of a model every task of which (two or more) has the same attempts, fewer than the
    same number planned: the cohort plans more attempts than were run, or the table lacks the same rows
    of every task, or none yet. None for any other model: its tasks are listed one by one."""
    tasks, missing = model["tasks"], model["coverage"]["missing"]
    counts = {(m["adopted"], m["planned"]) for m in missing}
    if len(tasks) < 2 or len(missing) != len(tasks) or len(counts) != 1:
        return None
    ((adopted, planned),) = counts
    n = len(tasks)
    if adopted == 0:
        return (
            f"no attempt of any of its {n} tasks is in the attempts table ({planned} planned for each): "
            f"tcsexam init --add-missing adds their rows; its {n} incomplete tasks follow from it and are not listed"
        )
    return (
        f"every one of its {n} tasks has {adopted} of {planned} planned attempts: if {adopted} attempts a task "
        f"were run, write {adopted} as its attempts_per_task in cohort.json (and in its attempts_per_item, "
        f"where it has them); else add the rows it lacks (tcsexam init --add-missing); its {n} incomplete "
        "tasks follow from it and are not listed"
    )


def excluded_finding(attempt: dict) -> str:
    """What ``validate`` and the dashboard's Coverage say of an excluded attempt (an entry of a model's
    ``coverage.excluded``)."""
    return f"not adopted (note: {attempt['note']})" if attempt["note"] else "not adopted (no note)"


SCORE_WARNINGS_LISTED = 10  # warnings score prints; validate lists them all


def model_warnings(model: dict) -> int:
    """How many of the warnings ``score`` prints are a model's of index.json (``tcsexam table`` marks
    it): its issues of kind warning, but for the solver scores no records file checked, which
    ``not_checked_lines`` counts apart."""
    return sum(
        1
        for issue in model.get("issues") or []
        if isinstance(issue, dict)
        and issue.get("kind") == "warning"
        and not str(issue.get("message", "")).startswith(NOT_CHECKED)
    )


def score_warnings(document: dict) -> list[str]:
    """What ``score`` prints on standard error of ``findings``: the warnings (a score that reads as a
    percentage, a typo in cohort.json, a row's name close to the cohort's, records of instances the
    reference does not know) and the unused records files, the first ``SCORE_WARNINGS_LISTED`` and a
    count of the rest; the solver scores no records file checked are ``not_checked_lines``'."""
    found = [
        line
        for line in findings(document)
        if line.startswith(("warning: ", "unused records: ")) and f": {NOT_CHECKED}" not in line
    ]
    if len(found) <= SCORE_WARNINGS_LISTED:
        return found
    rest = len(found) - SCORE_WARNINGS_LISTED
    return [*found[:SCORE_WARNINGS_LISTED], f"... and {counted(rest, 'more warning')} (tcsexam validate lists them)"]


def typo_followers(typo: dict, incomplete: int) -> str:
    """What a typo of cohort.json brings with it, counted in its finding instead of listed one by one."""
    return (
        f"its {counted(incomplete, 'incomplete finding')}, and the {counted(typo['rows'], 'ignored row')} and "
        f"{counted(typo['records_files'], 'unused records file')} of '{typo['rows_model']}', follow from it "
        "and are not listed"
    )


def records_findings(document: dict, hide: set[str] | frozenset[str] = frozenset()) -> list[ValidateFinding]:
    """The records files that no adopted row uses (docs/rules.md#rows-and-records), as ``validate`` and
    ``score`` print them: ``unused records: MODEL: ITEM attempt A: records/FILE: why``."""
    from tcsexam.scoring.pipeline.aggregate import unused_records_finding

    out = []
    for u in document.get("unused_records", []):
        if u["model"] in hide:
            continue
        attempt = u["attempt"] if u["item"] is not None else None
        out.append(finding("unused records", u["model"] or None, unused_records_finding(u), u["item"], attempt))
    return out


NOT_CHECKED_LISTED = 5  # models named one a line by score; more are one line that counts them


def not_checked_lines(document: dict) -> list[str]:
    """``score``'s lines of the valid solver scores no records file checked (``coverage.solver_not_checked``,
    docs/rules.md#rows-and-records; ``validate`` says why, model by model): one a model up to
    ``NOT_CHECKED_LISTED`` models, else one line that counts them."""
    counts = {
        name: n for name, m in document["models"].items() if (n := len(m["coverage"].get("solver_not_checked", [])))
    }
    if len(counts) > NOT_CHECKED_LISTED:
        first = ", ".join(list(counts)[:3])
        return [
            escape_for_terminal(
                f"warning: {counted(len(counts), 'model')} ({first}, ...) have {counted(sum(counts.values()), 'valid solver score')} "
                "not checked against records (tcsexam validate says why)"
            )
        ]
    return [
        escape_for_terminal(
            f"warning: {name}: {counted(n, 'valid solver score')} not checked against records (tcsexam validate says why)"
        )
        for name, n in counts.items()
    ]


def ignored_findings(document: dict, hide: set[str] | frozenset[str] = frozenset()) -> list[ValidateFinding]:
    """The ignored rows' findings (``score`` prints their warnings, the likely typos)."""
    from tcsexam.scoring.pipeline.aggregate import ignored_row_finding

    out = []
    for r in document["ignored_rows"]["rows"]:
        if r["model"] in hide:
            continue
        kind, message = ignored_row_finding(r)
        out.append(finding(kind, r["model"], message, r["item"], r["attempt"], r["line"]))
    return out
