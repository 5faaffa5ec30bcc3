"""Driving the dashboard in tests: wait for it to settle, use the command palette, read a table's row;
and the command line's oracle for the Compare tab.

The tests' uses of Textual's private names are here and nowhere else in tests/
(tests/test_textual_quarantine.py checks it), so that a Textual upgrade has one place to mend, as
tui/textual_ext is for the dashboard."""

from __future__ import annotations

import contextlib
import html
import json
import re
from pathlib import Path

from textual.widgets import DataTable

from tcsexam.scoring.commands.main import main as cli_main
from tests.support.waiting import tries

IDLE_WINDOW_S = 0.005  # the window of Pilot's idle wait in the suite (Textual's own: 0.02 s)


def shorten_idle_waits(window: float = IDLE_WINDOW_S) -> None:
    """Pilot's ``press`` waits twice after each key, and ``pause()`` once, until the process has used
    less than a twentieth of a CPU over a window of 20 ms (``textual._wait.wait_for_idle``): for a
    suite that presses thousands of keys, most of the dashboard half asleep. No test relies on that
    window (each waits for the state it needs: ``settle``, ``wait_until``), so the suite keeps the rule
    (a twentieth) over a shorter window. Measured in docs/development.md."""
    from textual import _wait

    if not (hasattr(_wait, "SLEEP_GRANULARITY") and hasattr(_wait, "SLEEP_IDLE")):
        raise RuntimeError("textual._wait no longer has SLEEP_GRANULARITY and SLEEP_IDLE: mend shorten_idle_waits")
    _wait.SLEEP_GRANULARITY = window
    _wait.SLEEP_IDLE = window / 20


def notifications(app) -> list[str]:
    """The messages of the notifications the app shows now, a path the message broke after a '/' (to
    fit its box, tui/export.py ``at_folders``) read as one. Textual has no public accessor for them:
    its private name is read here only, so that a Textual upgrade has one place to mend (as
    tui/textual_ext is for the dashboard)."""
    return [str(n.message).replace("/\n", "/") for n in notices(app)]  # a path broken between folders: one


def notices(app) -> list:
    """The notifications the app shows now (each with its message and severity)."""
    return list(app._notifications)


def send_to_driver(app, event) -> None:
    """Hand ``event`` to the app as its terminal driver does, without Pilot's waits (fast typing)."""
    app._driver.send_message(event)


def timers(app) -> list:
    """The timers running on the app's event loop."""
    return list(app._timers)


def rerender(table) -> None:
    """Draw a DataTable again from its data, its caches emptied (what a data change does)."""
    table._clear_caches()
    table.refresh()


def clear_caches(table) -> None:
    """Empty a DataTable's render caches (rows, lines, cells) without drawing it again."""
    table._clear_caches()


def clear_style_cache(widget) -> None:
    """Empty a widget's own cache of styled lines, so that what it renders next comes from its caches below."""
    widget._styles_cache.clear()


def release_style_caches() -> None:
    """Let go of the render caches Textual's ``StylesCache.get_inner_outer`` (an lru_cache) keeps alive
    for the last thousand widgets drawn, those of apps long finished included."""
    from textual._styles_cache import StylesCache

    StylesCache.get_inner_outer.cache_clear()


def rendered_cells(table) -> list:
    """The keys of a DataTable's cache of rendered cells: (row, column, ...), one per cell drawn."""
    return list(table._cell_render_cache.keys())  # an LRUCache: not iterable itself


def loading_cover(widget):
    """What covers ``widget`` while it loads (its loading indicator), or None."""
    return widget._cover_widget


def spy_on_cells(monkeypatch, table_id: str) -> set[int]:
    """From now on, the column index of every cell the DataTable ``#table_id`` renders, added to the set
    returned."""
    from textual.widgets import _data_table

    rendered: set[int] = set()
    real = _data_table.DataTable._render_cell

    def spy(self, row_index, column_index, *args, **kwargs):
        if self.id == table_id:
            rendered.add(column_index)
        return real(self, row_index, column_index, *args, **kwargs)

    monkeypatch.setattr(_data_table.DataTable, "_render_cell", spy)
    return rendered


def pending_callbacks(node) -> bool:
    """Whether a callback of ``node`` (the app or a widget) waits for the next idle."""
    return bool(node._next_callbacks)


def compose_frame(screen) -> None:
    """Compose the screen's frame now, as its update timer does."""
    screen._on_timer_update()


def screen_text(app) -> str:
    """What the terminal shows, as one text (screen_lines, joined)."""
    return "\n".join(screen_lines(app))


def screen_lines(app) -> list[str]:
    """What the terminal shows, one string per line of the screen (from the SVG screenshot: drawn as the
    terminal gets it, every cache on the way included), each run of text at its column, trailing blanks
    cut."""
    cell = 12.2  # Rich's SVG export: a character cell is 0.61 of its 20-pixel font wide
    rows: dict[float, list[str]] = {}
    for x, y, part in re.findall(r'<text[^>]* x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', app.export_screenshot()):
        line = rows.setdefault(float(y), [])
        at = round(float(x) / cell)
        line.extend(" " * (at - len(line)))
        line[at:] = html.unescape(part).replace("\xa0", " ")
    return ["".join(rows[y]).rstrip() for y in sorted(rows)]


def select_options(select) -> list[tuple]:
    """A Select's (label, value) options, the blank one included."""
    return list(select._options)


def row_at(table: DataTable, i: int) -> list[str]:
    return [str(c) for c in table.get_row_at(i)]


def cli_compare(run: Path, a: str, b: str, capsys) -> dict:
    """`tcsexam compare`'s JSON for the pair: the oracle the Compare tab must match."""
    capsys.readouterr()
    assert cli_main(["compare", str(run), "--models", a, b, "--output", "-"]) == 0
    out = capsys.readouterr().out
    return json.loads(out[out.index("{") :])


async def wait_until(pilot, condition, what, timeout: float = 30.0) -> None:
    """Let the dashboard run, a pilot pause at a time, until ``condition()`` holds: a test waits for the
    state it needs rather than for a fixed time. Fails the test after ``timeout`` seconds
    (tests/support/waiting.py), saying ``what`` (a string, or a function giving one then) was awaited."""
    for _ in tries(what, timeout):
        if condition():
            return
        await pilot.pause()


def unfinished(app) -> list[str]:
    """What the dashboard has yet to do, each named; empty when it is still: a thread worker at work
    (--watch's aside, which runs until the app exits), a run loading, a message or callback waiting in
    the queue of the app or of a widget of any screen open, the layout, repaint or callbacks the screen
    shown owes before its next frame."""
    waiting = [f"worker {w.name!r}" for w in app.workers if w.group != "watch" and not w.is_finished]
    if app.loading:
        waiting.append("a load")
    shown = app.screen  # a screen under a modal one draws its frames once it is shown again
    if shown._layout_required or shown._scroll_required or shown._repaint_required or shown._recompose_required:
        waiting.append(f"the layout of {shown!r}")
    if shown._dirty_widgets or shown._callbacks:
        waiting.append(f"a frame of {shown!r}")
    for node in [app, *(node for screen in app.screen_stack for node in screen.walk_children(with_self=True))]:
        if node.message_queue_size or node._next_callbacks:
            waiting.append(f"the messages of {node!r}")
    return waiting


async def open_instances(pilot, task: str):
    """The Instances tab opened (key 3) on the selected model's ``task``, once it shows that attempt: its pane."""
    from textual.widgets import Select

    from tcsexam.tui.panes.instances.pane import InstancesPane

    await pilot.press("3")
    await settle(pilot)
    pane = pilot.app.query_one(InstancesPane)
    pane.query_one("#instances-task", Select).value = task
    await settle(pilot)
    return pane


async def settle(pilot, timeout: float = 30.0) -> None:
    """Let the dashboard finish what it has started (``unfinished``): wait for its thread workers, then
    let it handle its messages and draw a frame (a pilot pause), again until nothing is left. One pause
    when nothing was pending; fails the test, naming what is left, after ``timeout`` seconds."""
    from textual.worker import WorkerCancelled

    app = pilot.app
    for _ in tries(lambda: "the dashboard still, not waiting on " + ", ".join(unfinished(app)), timeout):
        busy = [w for w in app.workers if w.group != "watch"]  # --watch's runs until the app exits
        if busy:
            with contextlib.suppress(WorkerCancelled):  # an exclusive worker replaced by a newer one
                await app.workers.wait_for_complete(busy)
        await pilot.pause()
        if not unfinished(app):
            return


async def open_tab(pilot, key: str) -> None:
    """The dashboard started and its tab ``key`` (1-8) shown, each settled."""
    await settle(pilot)
    await pilot.press(key)
    await settle(pilot)


def palette_prompts(app) -> list[str]:
    """The first line of every hit the command palette shows now."""
    from textual.command import CommandList

    options = app.screen.query_one(CommandList)
    return [str(options.get_option_at_index(i).prompt).split("\n")[0] for i in range(options.option_count)]


async def palette_hits(pilot, query: str) -> list[str]:
    """The hits the command palette on screen shows for ``query`` (what is typed in it), once it has
    searched: it searches afresh in a worker at each keystroke, and on opening for the empty query."""
    from textual.command import CommandInput, CommandPalette

    app = pilot.app

    def searched() -> bool:
        palette = app.screen
        if not isinstance(palette, CommandPalette) or not palette.is_mounted:
            return False
        typed = palette.query_one(CommandInput)
        return (
            typed.value == query
            and not typed.message_queue_size  # a keystroke's Changed, still to reach the palette
            and not palette.message_queue_size
            and not any(w.group == CommandPalette._GATHER_COMMANDS_GROUP for w in app.workers)
        )

    await wait_until(pilot, searched, f"the command palette's hits for {query!r}")
    return palette_prompts(app)


async def run_command(pilot, query: str, *, enter: bool = True) -> list[str]:
    """Enter ``query`` in ctrl+p; the hits shown; Enter runs the first. The query arrives as a terminal's
    paste does: the palette searches once, for the whole query (typed, each of its keys would cost the
    pilot two waits for an idle process, while the palette searches for every prefix)."""
    from textual import events
    from textual.command import CommandPalette

    await pilot.press("ctrl+p")
    await pilot.pause()
    assert isinstance(pilot.app.screen, CommandPalette)
    pilot.app.post_message(events.Paste(query))  # the app hands it to the focused widget: the palette's input
    prompts = await palette_hits(pilot, query)
    if enter:
        await pilot.press("enter")
        await settle(pilot)
    return prompts


def bound_keys(cls) -> set[str]:
    """The keys a widget class is bound to, its bases' included as Textual merges them (inherit_bindings)."""
    return set(cls._merged_bindings.key_to_bindings)


KEY_NAMES = {
    "/": "slash",
    ":": "colon",
    "-": "minus",
    " ": "space",
    ",": "comma",
    "_": "underscore",
    "?": "question_mark",
}


def burst(app, typed: str) -> None:
    """Keys sent as a terminal sends a paste or a fast typist's keys: all at once, no pause between."""
    from textual import events

    for char in typed:
        event = events.Key(KEY_NAMES.get(char, char), char)
        event.set_sender(app)
        send_to_driver(app, event)


async def reload_rejected(pilot, attempts) -> None:
    """Make the run's attempts.csv one the next load rejects (its first valid row's score_status made
    'bogus'), then reload (``r``) and let the dashboard settle: the run is shown STALE."""
    attempts.write_text(attempts.read_text().replace("selected,valid", "selected,bogus", 1))
    await pilot.press("r")
    await settle(pilot)
