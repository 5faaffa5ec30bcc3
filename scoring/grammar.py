"""How the tool writes a count and an article in its messages (one rule for every command, error and
screen)."""

from __future__ import annotations

from collections.abc import Sequence


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """A count and its noun, singular for exactly one: ``1 model``, ``2 models``, ``0 models``
    (``plural`` for a noun that does not take an s: ``1 match``, ``2 matches``). Every count the
    tool prints goes through it."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def with_article(noun: str) -> str:
    """``noun`` after its indefinite article: ``an index.json``, ``a records file`` (``an`` before a
    written vowel)."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def meant(typed: str, names: Sequence[str], cutoff: float = 0.6, prefix: str = "") -> str:
    """'; did you mean 'maxcut-mqlib'?' when ``typed`` is a slip of one of ``names``: the one name it
    begins, else the closest as difflib finds it (``cutoff``: how close); '' otherwise. ``prefix``: what
    every name begins with ('--'), left out of the comparison, where it would make any two alike ('--quiet'
    and '--suite'). Every "did you mean" of a command, an option, a value that must be one of a list and a
    task goes through it."""
    import difflib

    bare = {n.removeprefix(prefix): n for n in names}
    typed = typed.removeprefix(prefix)
    prefixed = [n for n in bare if n.startswith(typed)] if typed else []
    close = prefixed if len(prefixed) == 1 else difflib.get_close_matches(typed, list(bare), n=1, cutoff=cutoff)
    return f"; did you mean '{bare[close[0]]}'?" if close else ""
