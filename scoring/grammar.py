"""How the tool writes a count and an article in its messages (one rule for every command, error and
screen)."""

from __future__ import annotations


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """A count and its noun, singular for exactly one: ``1 model``, ``2 models``, ``0 models``
    (``plural`` for a noun that does not take an s: ``1 match``, ``2 matches``). Every count the
    tool prints goes through it."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def with_article(noun: str) -> str:
    """``noun`` after its indefinite article: ``an index.json``, ``a records file`` (``an`` before a
    written vowel)."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"
