"""``init``: one attempts-table row per planned attempt, and the check that a table about to be
replaced holds nothing filled in."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from scoring.errors import InputError, Problem
from scoring.safety.files import read_regular_file
from scoring.vocab import OPTIONAL_COLUMNS, REQUIRED_COLUMNS, TRACK_SCORE_TYPE

INIT_COLUMNS = REQUIRED_COLUMNS + OPTIONAL_COLUMNS  # SPEC 10: the required columns, then note and reference_id


def init_rows(cohort, suite) -> list[list[str]]:
    """SPEC 10: one row per planned attempt; models in cohort order, tasks in suite order."""
    rows = []
    for model in cohort.models:
        for task in suite.tasks:
            protocol = cohort.solver_protocol if task.track == "solver" else ""
            for attempt in range(1, cohort.planned(model, task.item) + 1):
                rows.append(
                    [
                        model,
                        task.track,
                        task.item,
                        str(attempt),
                        "",
                        "selected",
                        "missing",
                        TRACK_SCORE_TYPE[task.track],
                        protocol,
                        "",
                        "",
                    ]
                )
    return rows


def init_text(cohort, suite) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(INIT_COLUMNS)
    writer.writerows(init_rows(cohort, suite))
    return out.getvalue()


SKELETON_CELLS = {"score": ("",), "adoption_status": ("", "selected"), "score_status": ("", "missing")}


FROM_THE_COHORT = ("model", "track", "item", "attempt", "score_type", "solver_protocol")


def filled_rows(text: str) -> tuple[int, int]:
    """How many rows of an attempts table hold something ``init`` would not write (a score, a
    status other than missing, an adoption other than selected, a note, a reference id, any cell
    of another column), and how many of those hold a score. The columns that come from the
    cohort and the suite (model, track, item, attempt, score_type, solver_protocol) do not count."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=False)
    header = [c.strip() for c in next(reader, [])]
    rows = scored = 0
    for cells in reader:
        filled = False
        for name, cell in zip(header, cells, strict=False):
            value = cell.strip()
            if name in FROM_THE_COHORT or value in SKELETON_CELLS.get(name, ("",)):
                continue
            filled = True
            scored += name == "score"
        if len(cells) > len(header) and any(c.strip() for c in cells[len(header) :]):
            filled = True
        rows += filled
    return rows, scored


def check_nothing_filled(target: Path) -> None:
    """docs/safety.md: ``init --force`` replaces a table that holds nothing but the skeleton; a
    table with anything filled in (``filled_rows``), or one that cannot be read, is an InputError
    saying what it holds, and nothing is written: the user moves it away first."""
    from scoring.formats.attempts import decode_csv

    move = f"move it away first (mv {target} {target.with_name('attempts.old.csv')}) to start again"
    try:
        text = decode_csv(read_regular_file(target, "attempts table"), str(target))
        rows, scored = filled_rows(text)
    except (InputError, csv.Error) as exc:
        reason = "; ".join(p.message for p in exc.problems) if isinstance(exc, InputError) else str(exc)
        raise InputError(
            [
                Problem(
                    str(target),
                    "",
                    "",
                    f"cannot tell what the attempts table holds ({reason}): nothing written; {move}",
                )
            ]
        ) from None
    if rows:
        raise InputError(
            [
                Problem(
                    str(target),
                    "",
                    "",
                    f"attempts table holds {rows} filled row(s), {scored} with a score: --force replaces only a "
                    "table with no score, status, note or exclusion in it; nothing written; " + move,
                )
            ]
        )
