"""Find and order: the filter every table takes (``/``), the sort picker's choices and the list of a
model's worst instances. Pure functions of plain data (docs/dashboard.md#find-and-order); no textual.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

STATUS_PREFIX = "status:"


@dataclass(frozen=True)
class Query:
    """A typed filter (docs/dashboard.md#find-and-order): every word must occur in the row's name (any
    case); each ``status:a,b`` term asks for a status that starts with ``a`` or with ``b``."""

    words: tuple[str, ...] = ()
    statuses: tuple[tuple[str, ...], ...] = ()

    @property
    def empty(self) -> bool:
        return not self.words and not self.statuses

    def matches(self, name: str, statuses: Iterable[str] | str = ()) -> bool:
        """Whether a row (its name, and its status or statuses) passes the filter."""
        folded = name.casefold()
        if not all(word in folded for word in self.words):
            return False
        if not self.statuses:
            return True
        held = [statuses.casefold()] if isinstance(statuses, str) else [s.casefold() for s in statuses]
        return all(any(s.startswith(want) for s in held for want in term) for term in self.statuses)


def parse_query(typed: str) -> Query:
    """The filter typed after ``/``: words separated by spaces; ``status:WORD`` (several as
    ``status:a,b``) filters by status instead of name. A bare ``status:`` asks nothing yet."""
    words: list[str] = []
    statuses: list[tuple[str, ...]] = []
    for term in typed.casefold().split():
        if term.startswith(STATUS_PREFIX):
            wanted = tuple(w for w in term[len(STATUS_PREFIX) :].split(",") if w)
            if wanted:
                statuses.append(wanted)
        else:
            words.append(term)
    return Query(tuple(words), tuple(statuses))


def unknown_statuses(query: Query, known: Iterable[str]) -> list[str]:
    """The status words of ``query`` that start no status of ``known`` (a typo the count line names)."""
    held = [k.casefold() for k in known]
    return [want for term in query.statuses for want in term if not any(k.startswith(want) for k in held)]


HINT = " · "  # between the count and a hint (the filter bar shows the hint on a line of its own)


def count_note(shown: int, total: int, noun: str, query: Query | None = None, known: Sequence[str] = ()) -> str:
    """What the filter bar says: ``12 of 2,000 models``; with a status word that matches no status, the
    statuses there are, after ``HINT``."""
    note = f"{shown:,} of {total:,} {noun}"
    unknown = unknown_statuses(query, known) if query is not None and known else []
    if unknown:
        note += f"{HINT}no status starts with {', '.join(unknown)} (statuses: {', '.join(known)})"
    return note


def filtered(rows: Sequence, query: Query, name_of, status_of) -> list:
    """The rows that pass ``query``, in their order; ``name_of(row)``, ``status_of(row)`` read a row."""
    if query.empty:
        return list(rows)
    return [row for row in rows if query.matches(name_of(row), status_of(row))]


# --- sorting ----------------------------------------------------------------------------------------


def natural_key(name: object) -> tuple:
    """A name's place when names are sorted as a person reads them: its runs of digits as numbers, the
    rest as text in any case ('model-2' before 'model-10'; task id 2 before 10), the name itself last
    so that the order is the same on every run."""
    text = str(name)
    parts = re.split(r"(\d+)", text)  # text, digits, text, ...: each place holds the same kind in every key
    return (tuple(int(p) if i % 2 else p.casefold() for i, p in enumerate(parts)), text)


def sort_choice(column: int, current: int, descending: bool, default_descending: bool) -> tuple[int, bool]:
    """(column, descending) after the sort picker's choice: the column in its natural direction
    (``default_descending``), or the current column reversed."""
    if column == current:
        return column, not descending
    return column, default_descending


def sort_labels(columns: Sequence[str], current: int, descending: bool) -> list[str]:
    """The sort picker's lines: one per column, the current one marked with its direction."""
    mark = "▼ descending" if descending else "▲ ascending"
    return [f"{label}   ({mark}; Enter reverses)" if i == current else label for i, label in enumerate(columns)]


def neighbour(order: Sequence[str], model: str) -> str | None:
    """The model next to ``model`` in ``order`` (the one below it, or above it for the last one); None
    when ``order`` holds no other model (docs/dashboard.md#tabs, Compare)."""
    others = [m for m in order if m != model]
    if not others:
        return None
    if model not in order:
        return others[0]
    at = list(order).index(model)
    below = [m for m in order[at + 1 :] if m != model]
    return below[0] if below else others[-1]


# --- a model's worst instances ---------------------------------------------------------------------

WORST_COLUMNS = ("task", "attempt", "instance", "Phi", "z", "status")
WORST_LIMIT = 500  # rows listed: the worst of them (a model of the Full suite has a few thousand)


@dataclass(frozen=True)
class WorstInstance:
    item: str
    attempt: str
    instance: str
    phi: float
    z: float
    status: str

    def cells(self) -> list[str]:
        """Phi and z as every tab writes them (views.fmt, views.fmt_z: a z far from 0 with 2 significant
        digits, as in Instances, docs/dashboard.md#numbers); — for no z."""
        from .views import fmt, fmt_z

        return [self.item, self.attempt, self.instance, fmt(self.phi), fmt_z(self.z), self.status]


def worst_name(row: WorstInstance) -> str:
    """What ``/`` matches in the worst-instances list: the task, the attempt and the instance."""
    return f"{row.item} {row.attempt} {row.instance}"


def sort_worst(rows: Sequence[WorstInstance], column: int, descending: bool) -> list[WorstInstance]:
    """The worst-instances list sorted by one of WORST_COLUMNS (``s``); Phi and z as numbers, a missing
    z last in either direction; ties keep the list's order (lowest Phi first)."""
    name = WORST_COLUMNS[column]
    if name in ("Phi", "z"):
        field = "phi" if name == "Phi" else "z"
        present = [r for r in rows if not np.isnan(getattr(r, field))]
        missing = [r for r in rows if np.isnan(getattr(r, field))]
        return sorted(present, key=lambda r: getattr(r, field), reverse=descending) + missing
    field = {"task": "item"}.get(name, name)
    return sorted(rows, key=lambda r: getattr(r, field), reverse=descending)


def worst_instances(
    columns: Mapping[tuple[str, str, str], object],
    model: str,
    status_codes: Sequence[str],
    limit: int = WORST_LIMIT,
) -> tuple[list[WorstInstance], int, int]:
    """The model's instances across its re-scored solver attempts (``columns``: (model, item, attempt) ->
    tui.state.InstanceColumns of its adopted attempts, what scoring computed; nothing is scored here),
    lowest Phi first, ties in task, attempt and reference order; the first ``limit`` of them, the number
    of instances in all and of the attempts they come from."""
    keys = sorted(key for key in columns if key[0] == model)
    if not keys:
        return [], 0, 0
    phi = np.concatenate([columns[k].phi for k in keys])  # type: ignore[attr-defined]
    which = np.concatenate([np.full(len(columns[k].phi), i) for i, k in enumerate(keys)])  # type: ignore[attr-defined]
    at = np.concatenate([np.arange(len(columns[k].phi)) for k in keys])  # type: ignore[attr-defined]
    names = [columns[k].names for k in keys]  # type: ignore[attr-defined]
    # lexsort: the last key is the primary one
    order = np.lexsort((at, which, np.where(np.isnan(phi), np.inf, phi)))[:limit]
    out = []
    for j in order:
        cols = columns[keys[int(which[j])]]
        i = int(at[j])
        out.append(
            WorstInstance(
                keys[int(which[j])][1],
                keys[int(which[j])][2],
                names[int(which[j])][i].decode("utf-8"),
                float(cols.phi[i]),  # type: ignore[attr-defined]
                float(cols.z[i]),  # type: ignore[attr-defined]
                status_codes[int(cols.status[i])],  # type: ignore[attr-defined]
            )
        )
    return out, len(phi), len(keys)
