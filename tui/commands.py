"""Command-palette commands: jump to a model or task, switch run, export, reload, copy the table."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from .views import plain


class DashboardCommands(Provider):
    def _commands(self) -> list[tuple[str, object, str]]:
        app = self.app
        out: list[tuple[str, object, str]] = [
            ("Export index.json", app.action_export, f"write {app.config.output}"),
            ("Reload inputs", app.action_reload, "re-read attempts, cohort, records"),
            ("Copy table as Markdown", partial(app.action_copy_table, "markdown"), "tcsexam table, to the clipboard"),
            (
                "Copy as LaTeX",
                partial(app.action_copy_table, "latex"),
                "tcsexam table --format latex, to the clipboard",
            ),
        ]
        runs = getattr(app, "runs", [])
        if len(runs) > 1:
            out += [
                (
                    "Copy leaderboard (all runs) as Markdown",
                    partial(app.action_copy_table, "markdown", "all"),
                    "tcsexam table over every run, to the clipboard",
                ),
                (
                    "Copy leaderboard (all runs) as LaTeX",
                    partial(app.action_copy_table, "latex", "all"),
                    "tcsexam table --format latex over every run, to the clipboard",
                ),
            ]
            for number, slot in enumerate(runs):
                if number != app.current:
                    out.append(
                        (f"Switch to run {plain(slot.name)}", partial(app.switch_run, number), plain(slot.source))
                    )
        state = getattr(app, "state", None)
        if state is not None:
            for model in state.models:
                out.append((f"Jump to model {model}", partial(app.select_model, model, "overview"), "overview row"))
            for task in state.run.suite.tasks:
                out.append((f"Jump to task {task.item}", partial(app.jump_to_task, task.item), f"{task.track} task"))
        return out

    async def discover(self) -> Hits:
        for text, command, help_text in self._commands():
            yield DiscoveryHit(text, command, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, command, help_text in self._commands():
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), command, help=help_text)
