"""What the dashboard writes: the run shown as index.json (e, E), its table to the clipboard, the tab's
figure and a screenshot; the rules and the writing are tui/export.py's."""

from __future__ import annotations

import time
from pathlib import Path

from . import export
from .app_base import AppBase
from .panes.compare.pane import ComparePane
from .textual_ext.workers import released


class Exporting(AppBase):
    def action_copy_table(self, fmt: str, scope: str = "run") -> None:
        """Copy the table (docs/commands.md, as ``tcsexam table --format FMT``) of the run shown, or with scope
        ``all`` of every loaded run (the Leaderboard), to the clipboard."""
        if scope == "all":
            docs = self.leaderboard_docs()
        else:
            docs = [(self.shown.source, self.state.document)] if self.state is not None else []
        stale = self._stale_names(scope)
        table, said = export.table_for_clipboard(docs, fmt, scope, stale)
        if table is None:
            self.notify(said, severity="error", markup=False)
            return
        self.copy_to_clipboard(table)
        self.notify(said, severity="warning" if stale else "information", markup=False)

    def action_export(self, path: str | None = None) -> None:
        """Write index.json (to --output, or to ``path``) with the same writer as `tcsexam score` (same
        content_sha256). It asks first while the view is stale, before it writes over the export of
        another run, and over a file other than --output (tui/export.py)."""
        if self.state is None:  # with --tau2 alone the key is not offered (app.check_action)
            self._nothing_to_export()
            return
        if path is not None and path.strip() == "-":
            self.notify(export.TO_STDOUT, severity="error", markup=False)
            return
        target = export.absolute(path) if path else self.export_path
        if self._refused(target):
            return
        other = path is not None and target != self.export_path
        overwritten = None
        if not other and self._exported is not None and self._exported[0] != self.current:
            number, at, written = self._exported  # several runs, one --output
            if written == target:
                overwritten = (self.runs[number].name, at, self.shown.name)
        questions = export.export_questions(target, stale=self.stale, other=other, overwritten=overwritten)
        if questions:
            from .screens.confirm import ConfirmScreen

            self.push_screen(
                ConfirmScreen(" ".join(questions)),
                lambda yes: (
                    self._export(target) if yes else self.notify("Export cancelled: nothing written.", markup=False)
                ),
            )
            return
        self._export(target)

    @property
    def export_path(self) -> Path:
        """Where ``e`` writes: --output, else the shown run's RUN_DIR/build/index.json (as `tcsexam score`),
        as an absolute path."""
        if self.config.output is not None:
            return export.absolute(self.config.output)
        return export.default_output(self.shown.config.run_dir)

    def action_export_to(self) -> None:
        """``E``: ask where to export (escape cancels), then export there as ``e`` does."""
        from .screens.open_tau2 import ExportToScreen

        self.push_screen(ExportToScreen(str(self.export_path)), lambda path: self.action_export(path) if path else None)

    def _refused(self, path: Path) -> bool:
        """Whether ``path`` is refused as the export, said in a notification."""
        assert self.state is not None
        why = export.refusal(self.state.run, path)
        if why is not None:
            self.notify(why, severity="error", markup=False)
        return why is not None

    def _nothing_to_export(self) -> None:
        """No state is shown: a large run being decoded by a reload (tui/app_loading.py ``on_let_go``), or
        rejected inputs."""
        said = (
            "Nothing to export yet: the run is being reloaded; export it once it is shown."
            if self.shown.loading
            else "Nothing to export: the inputs were rejected."
        )
        self.notify(said, severity="error", markup=False)

    def toast_width(self) -> int:
        """The width of a notification's text: Textual's Toast is 60 cells wide, at most half the
        screen, less its padding and border (4)."""
        return min(60, self.size.width // 2) - 4

    def _export(self, path: Path) -> None:
        state = self.state
        if state is None:  # a reload let go of the run while the question was asked
            self._nothing_to_export()
            return
        if self._refused(path):  # again: the file may have changed while a question was asked
            return
        written, said = export.write_export(path, state.document, width=self.toast_width())
        if not written:
            self.notify(said, severity="error", markup=False)
            return
        if path == self.export_path:
            self._exported = (self.current, time.strftime("%H:%M:%S"), path)
        self.notify(said, title="Export", markup=False)

    # --- the palette's figure -------------------------------------------------------------------
    def action_save_figure(self) -> None:
        """The figure of the tab shown (``tcsexam plot``: pass^k, Compare's pair, else the forest), as a PDF
        beside the run's index.json (--output); drawn in a thread, the notification says where."""
        state = self.state
        if state is None:
            self.notify("No figure: no run is shown.", severity="error", markup=False)
            return
        kind = export.figure_kind(self._active_tab())
        models = self.main.query_one(ComparePane).pair() if kind == "compare" else None
        if kind == "compare" and models is None:
            self.notify("No figure: pick A and B in Compare first.", severity="error", markup=False)
            return
        target = export.figure_target(self.export_path, kind)
        source, width = self.shown.source, self.toast_width()

        def draw() -> None:
            saved, said = export.save_figure(state.run, source, state.document, kind, target, models, width)
            self.call_from_thread(
                self.notify, said, title="Figure", severity="information" if saved else "error", markup=False
            )

        self.run_worker(released(draw), thread=True, group="figure")

    # --- the palette's Screenshot ---------------------------------------------------------------
    def deliver_screenshot(
        self, filename: str | None = None, path: str | None = None, time_format: str | None = None
    ) -> str | None:
        """An SVG of the screen, in ``path``, else in the Downloads folder when there is one, else in the
        current folder; the notification gives the file's absolute path, or why it was not written."""
        target = export.screenshot_target(filename, path, time_format)
        saved, said = export.save_screenshot(target, self.export_screenshot(), self.toast_width())
        self.notify(said, title="Screenshot", severity="information" if saved else "error", markup=False)
        return str(target) if saved else None
