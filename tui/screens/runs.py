"""The run switcher: the runs the dashboard opened; Enter shows one in every tab."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from ..textual_ext.data_table import SteadyDataTable
from ..views import DASH, NAME_WIDTH, cells, middle_ellipsis, plain
from ..widgets.footer import DashboardFooter

RUN_COLUMNS = ("run", "name", "suite / protocol", "status", "RUN_DIR")


def run_row(number: int, current: bool, name: str, source: str, document: dict | None, note: str) -> list[str]:
    """A row of the run switcher: its number (▶ the run shown), name, group, status (or why there is
    none: ``note``) and the RUN_DIR as typed. Names are data: the caller shows them as Text (``cells``)."""
    group = f"{document['suite']} / {document['solver_protocol']}" if document is not None else DASH
    status = document["status"] if document is not None else note
    if document is not None and note:
        status += f" ({note})"
    return [("▶ " if current else "  ") + str(number), name, group, status, source]


def run_header(name: str, document: dict | None, number: int, count: int) -> list[str]:
    """The header's parts naming the run shown (docs/commands.md ``tcsexam tui RUN_DIR...``): its folder name, suite
    and solver protocol, and ``run N/M`` when several are open; control characters escaped (``plain``)."""
    parts = [plain(name)]
    if document is not None:
        parts.append(f"{plain(document['suite'])}/{plain(document['solver_protocol'])}")
    if count > 1:
        parts.append(f"run {number}/{count}")
    return parts


def run_source(slot, tau2_path: str | None) -> str:
    """What the header calls the run ``slot`` (a tui.state.RunSlot) when it is the only one: the folder as
    typed (its name when that is '.' or '..'), the attempts or cohort file, the bundled demo; with no run,
    the tau2-bench file open."""
    from pathlib import Path

    from ..state import uses_demo

    config = slot.config
    if uses_demo(config):
        return "DEMO (bundled synthetic run)"
    if config.run_dir:
        return config.run_dir if Path(config.run_dir).name not in ("", "..") else slot.name
    if config.attempts or config.cohort:
        return config.attempts or config.cohort or ""
    return f"tau2-bench {tau2_path}" if tau2_path else "no run"


def load_clock(slot, now: float | None) -> str:
    """How long a run has been loading, in whole seconds (``now``: time.monotonic(), else unknown: 0 s)."""
    return f"{max(0.0, (now or slot.load_started) - slot.load_started):.0f} s"


def subtitle(
    slot,
    number: int,
    count: int,
    tau2_path: str | None,
    watching: bool,
    now: float | None = None,
    room: int | None = None,
) -> str:
    """The header's sub-title (plain text, never markup: names are data, docs/safety.md) for run ``slot``
    (number ``number`` of ``count`` open): the run, its status or its loader's progress, --watch, and a
    stale marker while its inputs are rejected. ``room``: the cells the header has for it; a run's folder
    too long for them keeps its start and end with … between, so that the status after it shows."""
    document = slot.state.document if slot.state is not None else None
    name = None
    if count > 1:
        parts = run_header(slot.name, document, number, count)
    else:
        source = run_source(slot, tau2_path)
        name = plain(source)
        parts = [name]
        if document is not None:
            parts.append(f"{plain(document['suite'])}/{plain(document['solver_protocol'])}")
    if document is not None:
        parts.insert(1, document["status"])  # after the run's name: a narrow header cuts the suite, not the status
        if slot.loading:  # a reload or a --watch re-score: how long, then the load's progress line, up front
            parts.insert(1, f"reloading {load_clock(slot, now)} · {plain(slot.progress)}")
    elif slot.loading:
        parts.append(f"loading {load_clock(slot, now)} · {plain(slot.progress)}")
    elif slot.problems:
        parts.append("inputs rejected")
    if watching:
        parts.append("watching")
    if slot.stale:
        # first, so that a narrow terminal keeps it; with several runs after the run's (short) name
        kept = cell_len(" · ".join(parts[:2])) if count > 1 or document is None else None
        if kept is None:  # the run's folder, as short as it may be cut, and its status
            kept = min(cell_len(parts[0]), NAME_WIDTH) + 3 + cell_len(parts[1])
        parts.insert(1 if count > 1 else 0, stale_marker(slot.stale, None if room is None else room - kept - 3))
    if name is not None and room is not None:
        # what must show: up to the run's status (or, without a run yet, the part after the folder); what
        # follows (the suite, watching) may be cut by the header's edge
        at = parts.index(name)
        end = parts.index(document["status"], at + 1) if document is not None else at + 1
        over = cell_len(" · ".join(parts[: end + 1])) - room
        if over > 0:
            parts[at] = middle_ellipsis(source, max(cell_len(name) - over, NAME_WIDTH))
    return " · ".join(parts)


def stale_marker(stale: dict, room: int | None) -> str:
    """The header's mark of a run whose inputs are now rejected, the longest of its forms that fits in
    ``room`` cells (the time it was rejected, the count of problems, the time of the state shown);
    "STALE" at least. Diagnostics says all of it."""
    problems = f"{stale['count']} problem{'s' if stale['count'] != 1 else ''}"
    forms = (
        f"STALE: inputs rejected at {stale['at']} ({problems}); showing {stale['loaded_at']}",
        f"STALE: inputs rejected at {stale['at']} ({problems})",
        f"STALE since {stale['at']} ({problems})",
        f"STALE since {stale['at']}",
    )
    return next((form for form in forms if room is None or cell_len(form) <= room), "STALE")


class RunsScreen(ModalScreen[int | None]):
    """Dismissed with the chosen run's position, or None (escape)."""

    BINDINGS = [Binding("escape,q", "dismiss(None)", "Close")]

    def __init__(self, rows: list[list[str]], current: int) -> None:
        super().__init__()
        self.rows, self.current = rows, current

    def compose(self) -> ComposeResult:
        with Vertical(id="runs-body"):
            yield Static("Show which run? Enter switches every tab to it; escape closes.", markup=False)
            table: DataTable[Text] = SteadyDataTable(id="runs-table", cursor_type="row")
            table.add_columns(*RUN_COLUMNS)
            for i, row in enumerate(self.rows):
                table.add_row(*cells(*row), key=str(i))
            yield table
        yield DashboardFooter()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.move_cursor(row=self.current)
        table.focus()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        # a second Enter of the same burst arrives while the screen is being dismissed: only the first counts
        if self.is_current and event.row_key is not None and event.row_key.value is not None:
            self.dismiss(int(event.row_key.value))
