"""Command-palette commands: jump to a model or task, compare the selected model with another, filter
the instances by status, open a tau2 file, switch run, export, reload, copy the table."""

from __future__ import annotations

import heapq
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, cast

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.fuzzy import Matcher

from tcsexam.scoring.reports.table import FORMATS

from .messages import DrillDown
from .panes import key_hint
from .panes.overview.pane import OverviewPane, OverviewTable
from .state import STATUS_CODES, has_run
from .views import plain

if TYPE_CHECKING:
    from pathlib import Path

    from textual.message import Message

    from .state import DashboardConfig

MODEL_HITS = 100  # the most per-model commands (jump, compare) the palette is given at once

Command = tuple[str, Callable[[], object], str]  # (text shown, what it runs, help)
CLIPBOARD_FORMATS = [f for f in FORMATS.values() if f.clipboard]  # the table formats the palette copies


class Dashboard(Protocol):
    """What the palette's commands use of the app that offers them (tui/app.py's ``TcsexamApp``, whose
    ``COMMANDS`` names this provider): the app is handed down as this interface, so this module does not
    import the app's (mypy checks that the app has every member, where the app names the provider)."""

    BINDINGS: ClassVar[list]
    config: DashboardConfig
    current: int
    selected_model: str | None

    @property
    def main(self) -> Any: ...  # the dashboard's own screen

    @property
    def export_path(self) -> Path: ...

    def action_export(self, path: str | None = None) -> None: ...
    def action_export_to(self) -> None: ...
    def action_reload(self) -> None: ...
    def action_copy_table(self, fmt: str, scope: str = "run") -> None: ...
    def action_open_tau2(self) -> None: ...
    def action_save_figure(self) -> None: ...
    def switch_run(self, number: int) -> None: ...
    def filter_instances(self, status: str | None) -> None: ...
    def jump_to_task(self, item: str) -> None: ...
    def select_model(self, model: str, tab: str | None = None) -> None: ...
    def compare_with(self, model: str) -> None: ...
    def post_message(self, message: Message) -> bool: ...
    def get_key_display(self, binding: Binding) -> str: ...
    async def run_action(self, action: str, default_namespace: Any = None) -> bool: ...

    COMMAND_PALETTE_BINDING: ClassVar[str]


class DashboardCommands(Provider):
    @property
    def app(self) -> Dashboard:  # type: ignore[override]
        """The dashboard's app: the one App whose palette offers these commands (its ``COMMANDS``)."""
        return cast("Dashboard", super().app)

    def _commands(self, models: list[Command] | None = None) -> list[Command]:
        """The palette's commands; ``models``: the per-model ones (``_model_commands``) to list among them
        (None: all of them when there are at most MODEL_HITS, else none)."""
        if models is None:
            found = self._model_commands()
            models = found if len(found) <= MODEL_HITS else []
        app = self.app

        named = {"worst", "passk"}  # the actions a command below runs: their keys are not listed again

        def keyed(action: str, help_text: str) -> str:
            named.add(action)
            hint = key_hint(type(app).BINDINGS, action)
            return f"{hint} · {help_text}" if hint else help_text

        exports: list[Command] = [
            ("Export index.json", app.action_export, keyed("export", f"write {plain(app.export_path)}")),
            ("Export index.json to…", app.action_export_to, keyed("export_to", "a path you type")),
        ]
        out: list[Command] = [
            *(exports if has_run(app.config) else []),  # with --tau2 alone there is no index to write
            ("Reload inputs", app.action_reload, keyed("reload", "re-read attempts, cohort, records")),
            *(
                (
                    f"Copy table as {f.label}",
                    partial(app.action_copy_table, f.name),
                    keyed(f"copy_table('{f.name}')", f"tcsexam table --format {f.name}, to the clipboard"),
                )
                for f in CLIPBOARD_FORMATS
            ),
            ("Open tau2 results…", app.action_open_tau2, "a tau2-bench results.json or folder, as --tau2 PATH"),
        ]
        out += self._key_commands(named)
        runs = getattr(app, "runs", [])
        if len(runs) > 1:
            out += [
                (
                    f"Copy leaderboard (all runs) as {f.label}",
                    partial(app.action_copy_table, f.name, "all"),
                    keyed(
                        f"copy_table('{f.name}', 'all')",
                        f"tcsexam table --format {f.name} over every run, to the clipboard",
                    ),
                )
                for f in CLIPBOARD_FORMATS
            ]
            for number, slot in enumerate(runs):
                if number != app.current:
                    out.append(
                        (f"Switch to run {plain(slot.name)}", partial(app.switch_run, number), plain(slot.source))
                    )
        state = getattr(app, "state", None)
        if state is not None:
            out.append(
                (
                    "Save figure of this tab",
                    app.action_save_figure,
                    "tcsexam plot as PDF beside index.json: pass^k, Compare's pair, else the forest",
                )
            )
            out += models
            selected = app.selected_model
            if selected is not None:
                out += [
                    (
                        f"Worst instances of {plain(selected)}",
                        partial(app.main.query_one(OverviewPane).worst, selected),
                        f"{overview_key('worst')} · its lowest-Phi instances across every solver task",
                    ),
                    (
                        f"pass^k of {plain(selected)}",
                        partial(app.post_message, DrillDown("passk", selected)),
                        f"{overview_key('passk')} · the pass^k tab on it",
                    ),
                ]
            out.append(("Filter instances: all statuses", partial(app.filter_instances, None), "the Instances tab"))
            for status in STATUS_CODES:
                out.append((f"Filter instances: {status}", partial(app.filter_instances, status), "the Instances tab"))
            for task in state.run.suite.tasks:
                out.append(
                    (f"Jump to task {plain(task.item)}", partial(app.jump_to_task, task.item), f"{task.track} task")
                )
        return out

    def _key_commands(self, named: set[str]) -> list[Command]:
        """A command for every key of the screen the palette was opened over that no other command runs:
        the tab keys and each key its footer shows (help, quit, sort, filter, a tab's own keys), named by its
        key and run as the key runs it (the key's description, as the footer and help give it)."""
        app = self.app
        out: list[Command] = []
        for key, (node, binding, enabled, _) in self.screen.active_bindings.items():
            action = binding.action.removeprefix("app.")
            tab = action.startswith("tab(")
            if not enabled or action in named or key == app.COMMAND_PALETTE_BINDING or not (binding.show or tab):
                continue
            named.add(action)
            text = f"Go to {binding.description}" if tab else binding.description
            out.append((text, partial(app.run_action, binding.action, node), f"key {app.get_key_display(binding)}"))
        return out

    def _model_commands(self) -> list[Command]:
        """One jump per model and one comparison per other model, A being the Overview's selection
        (all ordered pairs are too many)."""
        app = self.app
        state = getattr(app, "state", None)
        if state is None:
            return []
        models = state.document["models"]
        out: list[Command] = [
            (f"Jump to model {plain(model)}", partial(app.select_model, model, "overview"), "overview row")
            for model in models
        ]
        selected = app.selected_model
        if selected in models:
            out += [
                (
                    f"Compare {plain(selected)} vs {plain(model)}",
                    partial(app.compare_with, model),
                    "paired difference A − B, in the Compare tab",
                )
                for model in models
                if model != selected
            ]
        return out

    # The palette reads a hit's display and help as markup when they are strings: names in them (models,
    # tasks, runs, paths) are data, so both are given as Content, which it shows as it stands (textual's
    # markup escape misses an unclosed tag such as "z[/y"). The names are already escaped (``plain``);
    # matching is on the text as shown.
    # With many models the palette lists their commands only once something is typed, and then the
    # MODEL_HITS best of them: it builds a line for every hit it is given (4,000 hits at 2,000 models took
    # over a second to open).
    async def discover(self) -> Hits:
        for text, command, help_text in self._commands():
            yield DiscoveryHit(Content(text), command, text=text, help=as_help(help_text))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, command, help_text in self._commands([]):
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, highlighted(matcher, text), command, text=text, help=as_help(help_text))
        scored = [
            (matcher.match(text), text, command, help_text) for text, command, help_text in self._model_commands()
        ]
        best = heapq.nlargest(MODEL_HITS, (hit for hit in scored if hit[0] > 0), key=lambda hit: hit[0])
        for score, text, command, help_text in best:
            yield Hit(score, highlighted(matcher, text), command, text=text, help=as_help(help_text))


def overview_key(action: str) -> str:
    """How the palette names the key of an action of the Overview's table: ``key w in Overview``."""
    key = next(b.key for b in Binding.make_bindings(OverviewTable.BINDINGS) if b.action == action)
    return f"key {key} in Overview"


def as_help(help_text: str) -> str:
    """A hit's help as plain Content: textual types it ``str`` but passes Content through unparsed
    (``Content.from_markup``)."""
    return cast(str, Content(help_text))


def highlighted(matcher: Matcher, text: str) -> Content:
    """``text`` as plain Content with the characters the query matched highlighted, as
    ``Matcher.highlight`` does, without reading ``text`` as markup."""
    content = Content(text)
    score, offsets = matcher.fuzzy_search.match(matcher.query, text)
    if score:
        for offset in offsets:
            if not text[offset].isspace():
                content = content.stylize(matcher.match_style, offset, offset + 1)
    return content
