"""Several runs open at once (`tcsexam tui RUN_DIR RUN_DIR...`): the Leaderboard of them all and the
run switcher (docs/dashboard.md)."""

from __future__ import annotations

from .app_base import AppBase
from .panes import see
from .panes.leaderboard.pane import LeaderboardPane, LeaderboardRowChosen


class SeveralRuns(AppBase):
    # --- several runs: the Leaderboard and the switcher ---------------------------------------
    @property
    def leaderboard_problems(self) -> list:
        """Why ``tcsexam table`` rejects the loaded runs together (a model twice in a group), or []."""
        return self._leaderboard_problems

    def leaderboard_docs(self) -> list[tuple[str, dict]]:
        """(source, index document) of every run with an accepted state, in the command line's order."""
        return [(slot.source, slot.state.document) for slot in self.runs if slot.state is not None]

    def refresh_leaderboard(self, now: bool = False) -> None:
        """Fill the Leaderboard; with one run only once its tab is open (``now``): one run cannot be
        rejected by ``tcsexam table``, and its groups of 2,000 models take a second to make."""
        from .panes.leaderboard.views import leaderboard_groups
        from .views import plain

        self._leaderboard_stale = not now and len(self.runs) == 1 and self._active_tab() != "leaderboard"
        if self._leaderboard_stale:
            self._leaderboard_problems = []
            return
        groups, problems = leaderboard_groups(self.leaderboard_docs())
        self._leaderboard_problems = problems
        missing = [plain(slot.name) for slot in self.runs if slot.state is None and not slot.loading]
        self.main.query_one(LeaderboardPane).show(
            groups, problems, missing, len(self.leaderboard_docs()), self._stale_names()
        )

    def _stale_names(self, scope: str = "all") -> list[str]:
        """The runs (all, or the one shown) whose last accepted state is listed while their files are rejected."""
        from .views import plain

        slots = self.runs if scope == "all" else [self.shown]
        return [plain(slot.name) for slot in slots if slot.stale and slot.state is not None]

    def on_leaderboard_row_chosen(self, message: LeaderboardRowChosen) -> None:
        """Enter on a Leaderboard row: show its run, its model selected, in the Overview."""
        for number, slot in enumerate(self.runs):
            if slot.source == message.source and slot.state is not None:
                self.switch_run(number)
                self.select_model(message.model, "overview")
                self.call_after_refresh(self._open_tab, "overview")
                return

    def switch_run(self, number: int) -> None:
        """Show run ``number`` in every tab; the model (and Instances' task and attempt) stay selected
        where the new run has them."""
        if not 0 <= number < len(self.runs) or number == self.current:
            return
        self.current = number
        for pane in self.run_panes():
            pane.loading = self.state is None and self.shown.loading
        if self.state is None and not self.shown.loading:
            self._empty(
                f"Nothing to show: the inputs of this run were rejected. See {see('diagnostics')}, fix the files "
                "and press r to reload."
            )
        self.refresh_panes()
        self._diagnostics()
        self._header()

    def action_runs(self) -> None:
        """The run switcher (``R``): a list of the runs opened; with one run there is nothing to switch."""
        from .screens.runs import RunsScreen, run_row

        if len(self.runs) == 1:
            self.notify("Only one run is open: start `tcsexam tui RUN_DIR RUN_DIR...` to switch.", markup=False)
            return
        rows = []
        for number, slot in enumerate(self.runs):
            note = "loading" if slot.loading else ("STALE" if slot.stale else ("rejected" if slot.problems else ""))
            document = slot.state.document if slot.state is not None else None
            rows.append(run_row(number + 1, number == self.current, slot.name, slot.source, document, note))
        self.push_screen(RunsScreen(rows, self.current), lambda n: self.switch_run(n) if n is not None else None)
