"""Rows and records that line up (docs/rules.md#rows-and-records).

A records file that no adopted row uses, and a valid solver row that has no records file while the
run holds records of its model, are findings: the row's score was not checked against records, or
the records of an attempt are not the ones scored. When the two sides differ only in how the
attempts are named (``1.0`` or ``01`` for ``1``, numbering from 0), the finding names both and
says that the names do not line up; the records cross-check then gives that advice instead of
``fill --overwrite``, which would write another attempt's score.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

from tcsexam.scoring.formats.inputs import AttemptRow
from tcsexam.scoring.formats.packed import RecordsSource
from tcsexam.scoring.formats.results import Issue, UnusedRecords
from tcsexam.scoring.pipeline.rules import Checked, CloseNames
from tcsexam.scoring.pipeline.run import Run
from tcsexam.scoring.safety.files import RECORDS_SUFFIX
from tcsexam.scoring.safety.terminal import written_apart
from tcsexam.scoring.vocab import NOT_CHECKED

NOT_LINED_UP = "attempt names and records file names do not line up"


@dataclass(frozen=True)
class RecordsFile:
    """A ``.json`` file found under records/: its path there ('/'-separated) and, when it sits at
    records/<model>/<item>/<attempt>.json (the model's name may hold '/'), the names it stands for."""

    rel: str
    model: str | None
    item: str | None
    attempt: str | None


def shown_name(name: str) -> str:
    """A file name as data in a document: a byte that is not UTF-8 (kept by the file system as a lone
    surrogate) becomes ``\\xNN``, so the document stays valid JSON text."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def discover_records(root: RecordsSource) -> list[RecordsFile]:
    """Every regular ``.json`` file under the records folder, sorted by path (docs/safety.md: names are
    data; a link to a folder is not walked, a FIFO or device is not a records file, nothing is opened):
    the one walk of ``RecordsRoot.listing``; of a packed run, the file each line stands for
    (docs/formats.md#packed-records)."""
    found = [records_file_of(tuple(map(shown_name, parts))) for parts in root.listing().json_files]
    return sorted(found, key=lambda f: f.rel.split("/"))  # folder by folder: m/ before m-v9/


def records_file_of(parts: tuple[str, ...]) -> RecordsFile:
    """The names a path under records/ stands for: model (its parts joined by '/'), item, attempt."""
    rel = "/".join(parts)
    if len(parts) < 3:
        return RecordsFile(rel, None, None, None)
    return RecordsFile(rel, "/".join(parts[:-2]), parts[-2], parts[-1][: -len(RECORDS_SUFFIX)])


def number_of(name: str) -> float | None:
    """An attempt name read as a number ('1', '1.0', '01'), or None."""
    try:
        value = float(name)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def shift_of(rows: list[str], files: list[str]) -> int | None:
    """+1 when the rows are numbered from 0 and the files from 1 (rows 0, 1; files 1.json, 2.json), -1
    the other way round; None when the names are not whole numbers shifted by one."""
    if not rows or not files or not all(n.isdigit() for n in (*rows, *files)):
        return None
    r, f = {int(n) for n in rows}, {int(n) for n in files}
    if r == f:
        return None
    return next((step for step in (1, -1) if {n + step for n in r} == f), None)


def near_names(name: str, others: list[str], shift: int) -> list[str]:
    """The names of ``others`` that stand for the same attempt as ``name`` under another spelling: the
    same number ('1.0', '01' for '1'), or the number ``shift`` away when the numbering is shifted."""
    value = number_of(name)
    if value is None:
        return []
    return [o for o in others if o != name and number_of(o) in (value, value + shift)]


@dataclass
class Lineup:
    """What ``line_up`` finds: the unused records files, per model the rows not checked against records,
    and the (model, item) pairs whose attempt names and records file names do not line up."""

    unused: list[UnusedRecords] = field(default_factory=list)
    not_checked: dict[str, list[Issue]] = field(default_factory=dict)
    misaligned: dict[tuple[str, str], str] = field(default_factory=dict)  # (model, item) -> both sides' names


def quoted(names: list[str]) -> str:
    return ", ".join(f"'{n}'" for n in names)


def line_up(run: Run, checked: Checked) -> Lineup:
    """Rows and records files side by side (docs/rules.md#rows-and-records); needs the run's records/."""
    root = run.records_root
    assert root is not None
    files = discover_records(root)
    known = KnownNames(run)
    adopted, excluded = solver_rows_by_task(checked)
    file_names = attempt_file_names(files)
    out = Lineup(misaligned=misaligned_tasks(adopted, file_names))
    for f in files:
        reason = unused_reason(f, run, known, adopted, excluded, file_names)
        if reason is not None:
            near, why = reason
            out.unused.append(UnusedRecords(f.rel, f.model, f.item, f.attempt, why, near))
    with_records = {f.model for f in files if f.model is not None}
    for (model, item), rows in adopted.items():
        if model in with_records:
            names = file_names.get((model, item), [])
            shift = shift_of([r.attempt for r in rows], names) or 0
            issues = [not_checked_issue(root, r, names, shift) for r in rows]
            out.not_checked.setdefault(model, []).extend(i for i in issues if i is not None)
    return out


def attempt_file_names(files: list[RecordsFile]) -> dict[tuple[str, str], list[str]]:
    """The attempt names of the records files per (model, item)."""
    file_names: dict[tuple[str, str], list[str]] = defaultdict(list)
    for f in files:
        if f.model is not None and f.item is not None and f.attempt is not None:
            file_names[(f.model, f.item)].append(f.attempt)
    return file_names


def misaligned_rows(rows: list[AttemptRow], root: RecordsSource) -> dict[tuple[str, str], str]:
    """``misaligned_tasks`` for the adopted solver ``rows`` (of the cohort and the suite) against the
    records files under ``root``: what ``fill`` checks before it writes a score into any row."""
    adopted: dict[tuple[str, str], list[AttemptRow]] = defaultdict(list)
    for r in rows:
        adopted[(r.model, r.item)].append(r)
    return misaligned_tasks(adopted, attempt_file_names(discover_records(root)))


def solver_rows_by_task(
    checked: Checked,
) -> tuple[dict[tuple[str, str], list[AttemptRow]], set[tuple[str, str, str]]]:
    """The adopted solver rows per (model, item), and the (model, item, attempt) of the excluded ones."""
    adopted: dict[tuple[str, str], list[AttemptRow]] = defaultdict(list)
    excluded: set[tuple[str, str, str]] = set()
    for model, rows in checked.by_model.items():
        for r in rows:
            if r.track == "solver" and r.adopted:
                adopted[(model, r.item)].append(r)
            elif r.track == "solver":
                excluded.add((model, r.item, r.attempt))
    return adopted, excluded


def misaligned_tasks(
    adopted: dict[tuple[str, str], list[AttemptRow]], file_names: dict[tuple[str, str], list[str]]
) -> dict[tuple[str, str], str]:
    """The (model, item) pairs whose attempt names and records file names do not line up (``shift_of``,
    ``near_names``), each with both sides' names as the cross-check words them."""
    out = {}
    for key, names in file_names.items():
        row_names = [r.attempt for r in adopted.get(key, [])]
        if set(names) != set(row_names) and (
            shift_of(row_names, names) is not None
            or any(near_names(n, row_names, 0) for n in names if n not in row_names)
        ):
            files_shown = ", ".join(f"{n}.json" for n in sorted(names, key=lambda n: (number_of(n) or 0.0, n)))
            out[key] = f"rows have attempts {quoted(row_names)}; records files {files_shown}"
    return out


class KnownNames:
    """The models and solver items a records file's folders may name, and the one a folder's name was
    likely meant to be (``CloseNames``: 'gtp-x' for 'gpt-x'), as an attempts-table row's is."""

    def __init__(self, run: Run):
        self.solver_items = {t.item for t in run.suite.tasks if t.track == "solver"}
        self.items = {t.item for t in run.suite.tasks}
        self.close_model = CloseNames(run.cohort.models)
        self.close_item = CloseNames(self.solver_items)

    @staticmethod
    def meant(close: CloseNames, name: str) -> str:
        near = close(name)
        return f"; did you mean '{near}'?{written_apart(name, near)}" if near is not None else ""


def unused_reason(
    f: RecordsFile,
    run: Run,
    known: KnownNames,
    adopted: dict[tuple[str, str], list[AttemptRow]],
    excluded: set[tuple[str, str, str]],
    file_names: dict[tuple[str, str], list[str]],
) -> tuple[list[str], str] | None:
    """Why no adopted row uses the records file ``f`` (with the rows' attempt names of a near spelling),
    or None when one does, or an excluded row accounts for it (kept, not judged)."""
    if f.model is None or f.item is None or f.attempt is None:
        return [], "not at records/<model>/<item>/<attempt>.json"
    if f.model not in run.cohort.models:
        same = [m for m in run.cohort.models if m.casefold() == f.model.casefold()]
        if same:
            return (
                [],
                f"model '{f.model}' is not in the cohort: the cohort's '{same[0]}' differs only in letter case (names are matched exactly)",
            )
        return [], f"model '{f.model}' is not in the cohort{known.meant(known.close_model, f.model)}"
    if f.item not in known.items:
        return [], f"item '{f.item}' is not in the {run.cohort.suite} suite{known.meant(known.close_item, f.item)}"
    if f.item not in known.solver_items:
        return [], f"item '{f.item}' is not a solver task: records are read for solver tasks only"
    row_names = [r.attempt for r in adopted.get((f.model, f.item), [])]
    if f.attempt in row_names or (f.model, f.item, f.attempt) in excluded:
        return None
    planned = run.cohort.planned(f.model, f.item)
    why = (
        f"there is no attempt '{f.attempt}' among the adopted rows {quoted(row_names)} ({planned} planned)"
        if row_names
        else f"the task has no adopted row ({planned} planned)"
    )
    shift = shift_of(row_names, file_names.get((f.model, f.item), [])) or 0
    near = near_names(f.attempt, row_names, -shift)
    if near:
        why += f": {NOT_LINED_UP} (row {quoted(near)} for file '{f.attempt}.json'?)"
    return near, why


def not_checked_issue(root: RecordsSource, row: AttemptRow, names: list[str], shift: int) -> Issue | None:
    """A valid adopted solver row without a records file, in a run that holds records of its model;
    ``names`` are the attempts of its task's records files, ``shift`` their numbering's (``shift_of``)."""
    if row.score_status != "valid" or row.score is None:
        return None
    if root.exists(root.path(row.model, row.item, row.attempt)):
        return None
    rel = "/".join((row.model, row.item, f"{row.attempt}.json"))
    message = f"{NOT_CHECKED}: no records file records/{rel}, while records/ holds records of this model"
    near = near_names(row.attempt, names, shift)
    if near:
        message += f"; records/{row.model}/{row.item}/{near[0]}.json is there: {NOT_LINED_UP}"
    return Issue("warning", row.item, row.attempt, row.line, message)
