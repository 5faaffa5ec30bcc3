"""Diagnostics: every problem of rejected inputs, in the words of `tcsexam validate`, as a table."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Static

from tcsexam.scoring.grammar import counted

from ...textual_ext.data_table import SteadyDataTable
from ...views import cells, plain, problem_rows
from .views import wrap_messages

ACCEPTED = "No problems: the inputs were accepted."


class DiagnosticsPane(VerticalScroll):
    _shown: tuple | None = None  # what show() was last given, to wrap again on a resize
    # The pane's own rules. Not scoped: the size classes (-short) sit on the screen, above the pane.
    SCOPED_CSS = False
    DEFAULT_CSS = """
    DiagnosticsPane #diagnostics-text { height: auto; padding-bottom: 1; }
    #diagnostics-table, #diagnostics-tau2, #diagnostics-leaderboard { height: auto; }
    """

    HELP = """\
Every problem of rejected inputs (file, where, field, message), as `tcsexam validate` words it. Under
an accepted run, the notes and warnings `tcsexam score` prints beside it (a score that reads as a
percentage, a name close to the cohort's, unused records files). While the inputs on disk are
rejected, the header says STALE and the other tabs keep the last good state. With several runs it
lists the problems of the run shown, and why the Leaderboard cannot table the runs together.
"""  # its section of the help (tui/help_text.py)

    def compose(self) -> ComposeResult:
        yield Static(ACCEPTED, id="diagnostics-text", markup=False)
        yield SteadyDataTable(id="diagnostics-table", cursor_type="row", zebra_stripes=True)
        yield Static("", id="diagnostics-tau2-text", classes="section-title", markup=False)
        yield SteadyDataTable(id="diagnostics-tau2", cursor_type="row", zebra_stripes=True)
        yield Static("", id="diagnostics-leaderboard-text", classes="section-title", markup=False)
        yield SteadyDataTable(id="diagnostics-leaderboard", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        self.show([], [], None, kept=False)

    def on_resize(self) -> None:  # the messages are wrapped to the width: wrap them anew
        if self._shown is not None:
            self.show(*self._shown)

    def show(
        self,
        problems: list,
        tau2_problems: list,
        stale: dict | None,
        kept: bool,
        base: str | None = None,
        leaderboard: list | None = None,
        notices: Sequence[str] = (),
        findings: int = 0,
    ) -> None:
        """Problems of the run (files under ``base`` named relative to it), of the tau2 file, and why
        the Leaderboard's runs cannot be tabled together (``tcsexam table``'s rejection, docs/commands.md);
        under an accepted run, what ``score`` says of it on the side (``notices``: the lines it prints on
        standard error, as a reference the benchmark lacks or a score that reads as a percentage), and
        how many findings ``validate`` lists (``findings``), which Coverage shows."""
        self._shown = (problems, tau2_problems, stale, kept, base, leaderboard, notices, findings)
        warned = sum(1 for notice in notices if notice.startswith("warning:"))
        accepted = (
            f"Accepted with {counted(warned, 'warning')} (below): the inputs are legal; check what each says "
            "before the numbers are published."
            if warned
            else ACCEPTED
        )
        if findings:
            accepted += (
                f" tcsexam validate lists {counted(findings, 'finding')} of the run (attempts missing, provisional "
                "or excluded, ignored rows, unused records files): Coverage (2) shows each, in its grid and its "
                "list of issues."
            )
        heading = accepted + "".join("\n" + plain(notice) for notice in notices)
        if problems:
            files = Counter(p.file for p in problems)
            heading = (
                f"Inputs rejected: {counted(len(problems), 'problem')} in {counted(len(files), 'file')}"
                + (f" (file names relative to {plain(base)})" if base else "")
                + ". "
            )
            if stale:
                heading = (
                    f"STALE since {stale['at']}: the other tabs show the last good state, loaded at "
                    f"{stale['loaded_at']}, until the inputs are fixed (r reloads; export asks first). "
                ) + heading
            elif not kept:
                heading += "Nothing could be scored; fix the inputs and press r to reload."
            heading += "\n" + "   ".join(f"{plain(f)}: {n}" for f, n in files.items())
        self.query_one("#diagnostics-text", Static).update(heading)
        self._table("#diagnostics-table", problem_rows(problems, base))
        tau2_heading = self.query_one("#diagnostics-tau2-text", Static)
        tau2_heading.set_class(not tau2_problems, "gone")
        tau2_heading.update(f"tau2-bench results rejected: {counted(len(tau2_problems), 'problem')}")
        self._table("#diagnostics-tau2", problem_rows(tau2_problems))
        leaderboard = leaderboard or []
        board_heading = self.query_one("#diagnostics-leaderboard-text", Static)
        board_heading.set_class(not leaderboard, "gone")
        board_heading.update(
            f"Leaderboard: tcsexam table rejects the runs together: {counted(len(leaderboard), 'problem')}"
        )
        self._table("#diagnostics-leaderboard", problem_rows(leaderboard))

    def _table(self, selector: str, rows: list[list[str]]) -> None:
        table = self.query_one(selector, DataTable)
        table.clear(columns=True)
        table.add_columns("file", "where", "field", "message")
        for *where, lines in wrap_messages(rows, self.size.width or self.app.size.width):
            table.add_row(*cells(*where), Text("\n").join(cells(*lines)), height=None)
        table.set_class(not rows, "gone")
