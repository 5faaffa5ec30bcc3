"""What the dashboard writes (docs/dashboard.md#export-and-screenshots): index.json (``e``, ``E``), a
screenshot and the figure of the tab shown (the palette), a table for the clipboard (``c``, ``C``). Plain functions (no textual): each
decides where a file goes and what it refuses, and says so in the sentence the app shows.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from tcsexam.scoring.errors import InputError
from tcsexam.scoring.grammar import counted
from tcsexam.scoring.safety.terminal import width_on_screen
from tcsexam.scoring.vocab import PLOT_INSTALL

from .views import plain

TO_STDOUT = "Export refused: the dashboard exports to a file, not to standard output (-)."


def absolute(path: str | Path) -> Path:
    """``path`` with ~ expanded, as an absolute path (what every message names)."""
    return Path(os.path.abspath(os.path.expanduser(path)))


def default_output(run_dir: str | None) -> Path:
    """Where ``e`` writes without --output: RUN_DIR/build/index.json, where `tcsexam score RUN_DIR` writes it
    (docs/commands.md#score); the current folder's build/ for a run named without a folder (the demo, or
    --attempts and --cohort alone), as `score` without RUN_DIR."""
    return absolute(Path(run_dir or "") / "build" / "index.json")


def refusal(run, path: Path, what: str = "Export") -> str | None:
    """Why ``path`` cannot be the export (or ``what`` else is written) of ``run`` (docs/safety.md: never
    one of the run's inputs, a folder, a FIFO or a device), or None."""
    from tcsexam.scoring.safety.outputs import check_output

    try:
        check_output(str(path), *run.inputs())
    except InputError as exc:
        return f"{what} refused: {plain(exc.problems[0].message)} ({plain(path)}); nothing written."
    return None


def export_questions(
    target: Path, *, stale: dict | None, other: bool, overwritten: tuple[str, str, str] | None
) -> list[str]:
    """What to ask before writing ``target``: the view is ``stale`` (its input hashes describe files no
    longer there); ``other``: a path typed with ``E`` that exists; ``overwritten``: (run, time, run shown)
    when --output holds another run's export."""
    questions = []
    if stale:
        questions.append(
            f"The inputs on disk were rejected at {stale['at']} ({counted(stale['count'], 'problem')}). "
            f"Export the last good state, loaded at {stale['loaded_at']}, to {plain(target)}? "
            "Its input hashes describe the files as they were then."
        )
    if overwritten is not None:
        run, at, shown = overwritten
        questions.append(
            f"{plain(target)} holds the export of run {plain(run)}, written at {at}: overwrite it with run {plain(shown)}?"
        )
    if other and target.exists() and not target.is_dir():
        questions.append(f"{plain(target)} exists: replace it?")
    return questions


def write_export(path: Path, document: dict, width: int = 0) -> tuple[bool, str]:
    """Write index.json with the writer of `tcsexam score` (same content_sha256): whether it was written,
    and the sentence that says so or why not, the path broken after a '/' to lines of ``width``
    (the message's box; 0: unbroken)."""
    from tcsexam.scoring.pipeline.index import write_index

    try:
        write_index(path, document)
    except OSError as exc:
        return False, f"Export failed: {plain(exc.strerror or exc)} ({plain(path)})"
    sha = document["provenance"]["content_sha256"][:12]
    wrote = "Wrote "
    return (
        True,
        f"{wrote}{at_folders(plain(path), width, len(wrote))} — status {document['status']}, content_sha256 {sha}…",
    )


def at_folders(path: str, width: int, taken: int = 0) -> str:
    """``path`` broken into lines of at most ``width`` cells, each ending after a '/', the first after
    ``taken`` cells of the line it goes on: a message's box breaks a long path where a line ends, inside
    a folder's name (``frontier-model`` / ``s/``). A part longer than a line keeps a line of its own."""
    if width <= 0:
        return path
    lines, line, used = [], "", taken
    for part in re.findall(r"[^/]*/|[^/]+$", path):
        size = width_on_screen(part)
        if (line or used) and used + size > width:
            lines.append(line)
            line, used = "", 0
        line, used = line + part, used + size
    return "\n".join([*lines, line])


def downloads_folder() -> Path:
    """Where a screenshot goes: ~/Downloads when it exists (XDG_DOWNLOAD_DIR where that is set), else the
    current folder."""
    named = os.environ.get("XDG_DOWNLOAD_DIR")
    for folder in ([Path(os.path.expanduser(named))] if named else []) + [Path.home() / "Downloads"]:
        if folder.is_dir():
            return folder
    return Path.cwd()


def screenshot_target(filename: str | None, path: str | None, time_format: str | None) -> Path:
    """The screenshot's file: ``filename`` (else tcsexam_TIME.svg) in ``path``, else in the Downloads
    folder when there is one, else in the current folder."""
    folder = Path(path) if path else downloads_folder()
    return absolute(folder / (filename or time.strftime(f"tcsexam_{time_format or '%Y-%m-%dT%H_%M_%S'}.svg")))


def save_screenshot(target: Path, svg: str, width: int = 0) -> tuple[bool, str]:
    """Write the SVG atomically: whether it was written, and the sentence naming the file (``at_folders``
    ``width``) or the reason."""
    from tcsexam.scoring.safety.outputs import write_atomic

    try:
        write_atomic(target, svg.encode("utf-8"))
    except (OSError, InputError) as exc:
        reason = exc.problems[0].message if isinstance(exc, InputError) else exc.strerror or str(exc)
        return False, f"Screenshot not saved: {plain(reason)} ({plain(target)})"
    saved = "Saved the screenshot to "
    return True, f"{saved}{at_folders(plain(target), width, width_on_screen(saved))}"


def table_for_clipboard(docs: list[tuple[str, dict]], fmt: str, scope: str, stale: list[str]) -> tuple[str | None, str]:
    """The table of ``docs`` in ``fmt`` (as `tcsexam table --format FMT`), and the sentence that says what
    was copied, or None and why nothing was. ``stale``: the runs shown as last accepted."""
    from tcsexam.scoring.reports.table import FORMATS

    from .state import table_text

    if not docs:
        return None, "Nothing to copy: the inputs were rejected."
    try:
        table = table_text(docs, fmt)
    except InputError as exc:
        return None, f"Nothing copied: {plain(exc.problems[0].message)}"
    what = f"the leaderboard of {counted(len(docs), 'run')}" if scope == "all" else "the table"
    said = f"Copied {what} as {FORMATS[fmt].label} ({len(table.splitlines())} lines) to the clipboard."
    if stale:
        said += f" STALE: {', '.join(stale)} as last accepted; its files are now rejected."
    return table, said


FIGURE_OF_TAB = {"passk": "passk", "compare": "compare"}  # every other tab: the forest of the Overview


def figure_kind(tab: str | None) -> str:
    """The figure of ``tcsexam plot`` (docs/commands.md#plot) that the tab ``tab`` shows."""
    return FIGURE_OF_TAB.get(tab or "", "forest")


def figure_target(index_path: Path, kind: str) -> Path:
    """Where the palette's figure goes: beside the run's index.json (``--output``), figure-KIND.pdf."""
    return index_path.parent / f"figure-{kind}.pdf"


def save_figure(
    run, source: str, document: dict, kind: str, target: Path, models: tuple[str, str] | None, width: int = 0
) -> tuple[bool, str]:
    """Draw the figure ``kind`` of ``document`` as ``tcsexam plot`` does (one column wide, PDF) and write
    it to ``target`` atomically: whether it was written, and the sentence naming the file (``at_folders``
    ``width``) or the reason."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False, f"Figure not saved: it needs matplotlib: {PLOT_INSTALL}."
    from tcsexam.scoring.reports.figures import build_figure, figure_bytes
    from tcsexam.scoring.safety.outputs import write_atomic

    from .writes import WRITING

    why = refusal(run, target, "Figure")
    if why is not None:
        return False, why
    try:
        missing: list[str] = []
        drawn = figure_bytes(build_figure([(source, document)], kind, "column", models), ".pdf", missing)
        with WRITING:  # drawn in a thread: q ends the process after this write, not in it (tui/writes.py)
            write_atomic(target, drawn)
    except (OSError, InputError) as exc:
        reason = exc.problems[0].message if isinstance(exc, InputError) else exc.strerror or str(exc)
        return False, f"Figure not saved: {plain(reason)} ({plain(target)})"
    lacking = f" (drawn as boxes, the font lacks: {plain(' '.join(missing))})" if missing else ""
    saved = f"Saved the {kind} figure to "
    return True, f"{saved}{at_folders(plain(target), width, width_on_screen(saved))}{lacking}"
