"""How numbers are shown (docs/commands.md#table): the one set of conventions that the
console text, ``tcsexam table`` and the dashboard share.

- decimals: ``INDEX_DIGITS`` for the index, ``TRACK_DIGITS`` for a track mean, unless asked;
- a missing value: ``NULL`` (``—``) in a table or the dashboard, ``vocab.NA`` in console text a
  script parses, the format's own elsewhere (``--`` in LaTeX);
- a value rounded to zero never shows a minus (``0.00``, not ``-0.00``);
- a value and its 95% half-width: ``value ± half-width``, both rounded alike (``PM``).
"""

from __future__ import annotations

INDEX_DIGITS, TRACK_DIGITS = 2, 3
NULL = "—"
PM = " ± "


def number(x: float | None, digits: int, *, null: str = NULL, signed: bool = False, general: bool = False) -> str:
    """``x`` with ``digits`` decimals (significant digits when ``general``), a + on a positive value
    when ``signed``, ASCII minus, ``null`` when missing; a value that rounds to zero has no minus."""
    if x is None:
        return null
    text = format(x, f"{'+' if signed else ''}.{digits}{'g' if general else 'f'}")
    if text.startswith("-") and float(text) == 0:
        text = ("+" if signed else "") + text[1:]
    return text


def half_width(lo: float | None, hi: float | None) -> float | None:
    """The half-width of a 95% interval (intervals are symmetric, docs/rules.md#intervals)."""
    return None if lo is None or hi is None else (hi - lo) / 2


def with_half_width(x: float | None, hw: float | None, digits: int, *, pm: str = PM, null: str = NULL) -> str:
    """``value ± half-width`` (``pm`` the format's own ±), the half-width left out when there is none,
    ``null`` for a missing value."""
    if x is None:
        return null
    return number(x, digits, null=null) + ("" if hw is None else pm + number(hw, digits, null=null))
