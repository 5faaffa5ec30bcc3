"""Pure functions two or more panes share: plain text, cells and numbers as every table shows them.
Each pane's own pure functions are in its folder (tui/panes/<name>/views.py).

No textual here: each function is testable without a terminal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tcsexam.scoring.reports.numbers import TRACK_DIGITS, number
from tcsexam.scoring.safety.terminal import escape_for_terminal
from tcsexam.scoring.vocab import TRACK_LETTERS as LETTERS
from tcsexam.scoring.vocab import TRACKS

if TYPE_CHECKING:
    from rich.text import Text


DASH = "—"


def plain(value) -> str:
    """A name or typed text as it may be shown on a terminal, escaped exactly as the command line
    escapes it (``scoring.safety.terminal.escape_for_terminal``): ESC becomes the four characters ``\\x1b``,
    bidi controls and line separators ``\\u202e`` and the like; everything else is kept as written.
    The result is still data: show it as rich ``Text`` or ``Content`` (``cells``, ``text``), never as
    markup.
    """
    return escape_for_terminal(str(value))


def text(*parts, style: str = ""):
    """Plain rich Text from strings (never markup) or (string, style) pairs; strings are ``plain``-ed."""
    from rich.text import Text

    out = Text(style=style)
    for part in parts:
        if isinstance(part, Text):
            out.append_text(part)
        elif isinstance(part, tuple):
            out.append(plain(part[0]), style=part[1])
        else:
            out.append(plain(part))
    return out


def cells(*values) -> list[Text]:
    """Table cells as plain rich Text: user data such as '[mobile]task' is never read as markup."""
    from rich.text import Text

    return [v if isinstance(v, Text) else Text(plain(v)) for v in values]


# --- number conventions: one format per quantity, in every tab (docs/dashboard.md#numbers) ---------------------
# Digits, ± and rounding are scoring.reports.numbers' (what ``tcsexam table`` writes): the index, its half-widths
# and differences INDEX_DIGITS decimals; track means, pass^k, Phi, z and tau2 rewards TRACK_DIGITS.
SIGNIFICANT = 4  # objective values (A, mu, s, scale), whose size depends on the task


def fmt(x: float | None, digits: int = TRACK_DIGITS, signed: bool = False) -> str:
    """A number with ``digits`` decimals (scoring.reports.numbers.number: no minus on a zero); — for null."""
    return number(x, digits, null=DASH, signed=signed)


Z_WIDTH = 7  # the cells of a z: -12.345; a z beyond ±100 with 2 significant digits (-120000, -3.4e+12)


def fmt_z(x: float | None) -> str:
    """A z as every table writes it: with ``TRACK_DIGITS`` decimals while it fits ``Z_WIDTH`` cells, else
    with 2 significant digits (``fmt_sig``: a solver far from its reference); — for null or NaN."""
    import math

    if x is None or math.isnan(x):
        return DASH
    return fmt(x) if abs(x) < 10 ** (Z_WIDTH - TRACK_DIGITS - 2) else fmt_sig(x, 2)


def fmt_sig(x: float | None, digits: int = SIGNIFICANT) -> str:
    """An objective value with ``digits`` significant digits, written out (47560, 479.1, 0.07830) from 10^-3 to
    below 10^9, in e-notation outside (1.235e+13); — for null or NaN."""
    import math

    if x is None or math.isnan(x):
        return DASH
    if x == 0 or math.isinf(x):
        return f"{x:g}"
    magnitude = math.floor(math.log10(abs(x)))
    if -3 <= magnitude < 9:
        rounded = float(f"{x:.{digits - 1}e}")  # rounding may carry to the next power (9999.7 -> 1.000e4)
        magnitude = math.floor(math.log10(abs(rounded)))
        if magnitude < 9:
            return f"{rounded:.{max(digits - 1 - magnitude, 0)}f}"
    return f"{x:.{digits - 1}e}"


def half_width(ci: dict | None) -> float | None:
    if not ci or ci.get("hi") is None:
        return None
    return ci["hi"] - ci.get("mean", ci.get("value"))


# --- names: capped so that they never hide the numbers (docs/dashboard.md#names) ---------------------------------
NAME_WIDTH = 24  # the Model column's width at most: the full name is on the line under the table


def middle_ellipsis(name: str, width: int = NAME_WIDTH, lead: int | None = None) -> str:
    """A name shown in at most ``width`` terminal cells, escaped (``plain``): a longer one keeps its start and
    its end with … between (``anthropic/clau…-20250929``), where model ids differ most; the start takes
    ``lead`` of the cells left beside the … (default: half, the extra one to the start)."""
    from rich.cells import cell_len

    shown = plain(name)
    if cell_len(shown) <= width:
        return shown
    width = max(width, 3)
    if lead is not None and shown.isascii():  # one cell a character
        lead = min(lead, width - 1)
        return shown[:lead] + "…" + shown[len(shown) - (width - 1 - lead) :]
    head: list[str] = []
    tail: list[str] = []
    room = width - 1
    chars = list(shown)
    i, j = 0, len(chars) - 1
    while i <= j:  # alternately from the start (which gets the extra cell) and from the end, cells counted
        take_head = cell_len("".join(head)) <= cell_len("".join(tail))
        c = chars[i] if take_head else chars[j]
        if cell_len("".join(head)) + cell_len("".join(tail)) + cell_len(c) > room:
            break
        if take_head:
            head.append(c)
            i += 1
        else:
            tail.insert(0, c)
            j -= 1
    return "".join(head) + "…" + "".join(tail)


SPLIT_SAMPLE = 2000  # the names a split is chosen on (``cut_apart``)


def cut_apart(names: list[str], width: int) -> list[str]:
    """``names`` each in at most ``width`` cells as ``middle_ellipsis`` cuts them, all with the one split of
    the cells between start and end that tells the most of them apart (the even split on a tie):
    tau2-bench's task ids share their start and their end and differ in the middle, where the even split
    cut every one of them to the same text. The split is chosen on the first ``SPLIT_SAMPLE`` names;
    names that are not all ASCII (where a character may take two cells) get the even split."""
    sample = names[:SPLIT_SAMPLE]
    if len({middle_ellipsis(n, width) for n in sample}) == len(set(sample)) or not all(
        plain(n).isascii() for n in sample
    ):
        return [middle_ellipsis(n, width) for n in names]
    room = max(width, 3) - 1
    best = max(
        range(room + 1),
        key=lambda h: (len({middle_ellipsis(n, width, h) for n in sample}), -abs(h - (room + 1) // 2)),
    )
    told = len({middle_ellipsis(n, width, best) for n in sample})
    if told < len(set(sample)):  # no start and end tell them apart: a stretch of the middle may
        shown = [plain(n) for n in sample]
        at = max(range(max(map(len, shown))), key=lambda s: (len({window(n, width, s) for n in shown}), -s))
        if len({window(n, width, at) for n in shown}) > told:
            return [window(plain(n), width, at) for n in names]
    return [middle_ellipsis(n, width, best) for n in names]


def window(shown: str, width: int, start: int) -> str:
    """An ASCII name as shown (``plain``) in at most ``width`` cells: whole when it fits, else the stretch
    from ``start`` with … for what is cut before and after (``cut_apart``: '…airplane_mode_on|d…')."""
    if len(shown) <= width:
        return shown
    start = min(start, len(shown) - (width - 1))
    lead = "…" if start > 0 else ""
    room = width - len(lead)
    return lead + (shown[start:] if len(shown) - start <= room else shown[start : start + room - 1] + "…")


def problem_rows(problems: list, base=None) -> list[list[str]]:
    """Rows (file, where, field, message) of rejected inputs; a file under ``base`` is named relative to it."""
    import os

    rows = []
    for p in problems:
        name = p.file
        if base is not None:
            try:
                rel = os.path.relpath(p.file, base)
                name = rel if not rel.startswith("..") else p.file
            except ValueError:
                pass
        rows.append([name, p.where or DASH, p.field or DASH, p.message])
    return rows


def shares_text(shares: dict | None) -> str:
    """docs/rules.md#variance-budget's variance budget of an index interval as whole percents in track order (P S C O);
    — when the document leaves ``shares`` out (var = 0 or a track without se)."""
    if not shares:
        return DASH
    return " ".join(f"{LETTERS[t]}{round(100 * shares[t])}" for t in TRACKS if t in shares) + " %"
