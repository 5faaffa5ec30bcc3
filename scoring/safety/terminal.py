"""Names shown on a terminal: control, format (bidi, zero-width) and other invisible characters
escaped. The command line and the dashboard both print through ``escape_for_terminal``."""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Iterable

# Every character that acts on a terminal or does not show as itself
# (docs/safety.md#terminals-get-no-control-characters): the controls (C0, DEL, C1: 0x9b acts like
# ESC [ on some terminals), the format characters (Unicode category Cf: the bidi embeddings,
# overrides, isolates and marks that reorder what follows, the zero-width space, joiners and word
# joiner, the byte-order mark, the soft hyphen, tags), the line and paragraph separators, lone
# surrogates (bytes that were not UTF-8), and the other default-ignorable code points (Hangul
# fillers, variation selectors, the combining grapheme joiner): a name holding one could show as
# another name. Built from the Unicode data of Python 3.11 (Unicode 14) and of 3.12 and 3.13 (Unicode
# 15 and 15.1, which made U+13439-U+1343F format characters); a test checks it against the running
# Python's ``unicodedata``.
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\xad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890-\u0891\u08e2\u115f-\u1160"
    "\u17b4-\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ud800-\udfff\ufe00-\ufe0f"
    "\ufeff\uffa0\ufff0-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)


_UNSAFE_ASCII = re.compile("[\x00-\x1f\x7f]")  # the same, for ASCII text (most names): a smaller class is faster


def _escape_char(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def shown_as(name: str) -> str:
    """What ``name`` shows as on a screen: without the characters ``escape_for_terminal`` escapes, in
    Unicode NFKC form ('é' as one character or as 'e' and an accent; 'ﬁ' and 'fi')."""
    return unicodedata.normalize("NFKC", _UNSAFE.sub("", name))


def width_on_screen(text: str) -> int:
    """The columns ``text`` takes on a terminal: two for a wide character (CJK, full-width forms), none
    for a combining mark, one for every other."""
    return sum(
        0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in ("W", "F") else 1 for c in text
    )


def padded(text: str, width: int) -> str:
    """``text`` followed by spaces up to ``width`` columns on a terminal (``width_on_screen``)."""
    return text + " " * max(0, width - width_on_screen(text))


def written_apart(name: str, other: str) -> str:
    """When two different names look the same (``shown_as``), the words that say how they differ, with
    each written out in escapes ('caf\\xe9' and 'cafe\\u0301'); else ''."""
    if name == other or shown_as(name) != shown_as(other):
        return ""
    return f" ({name!a} and {other!a} look the same but are written with other characters)"


def look_alikes(names: Iterable[str]) -> list[tuple[str, str]]:
    """(name, an earlier name it looks the same as) for each of ``names`` that shows on a screen
    as an earlier one does (``shown_as``). docs/safety.md#look-alike-names: such names are rejected
    where they are read."""
    first: dict[str, str] = {}
    found = []
    for name in names:
        other = first.setdefault(shown_as(name), name)
        if other != name:
            found.append((name, other))
    return found


def escape_for_terminal(text: str, encoding: str | None = None) -> str:
    """``text`` with every character a terminal could act on, or that does not show as itself,
    escaped (docs/safety.md): ESC as ``\\x1b``, other C0/C1 controls and DEL as ``\\xNN``; format
    characters (bidi controls, zero-width ones, U+FEFF), line separators, lone surrogates and the
    other default-ignorable characters as ``\\uNNNN`` (``\\UNNNNNNNN`` beyond U+FFFF). With
    ``encoding`` (the stream's, e.g. ``sys.stdout.encoding``), a character that encoding cannot
    hold is shown as ``\\uNNNN`` / ``\\UNNNNNNNN`` too, so printing never fails. A backslash is left as it is (names cannot hold one). JSON outputs do not use
    this: they keep names as they are."""
    unsafe = _UNSAFE_ASCII if text.isascii() else _UNSAFE
    if unsafe.search(text) is not None:
        text = unsafe.sub(_escape_char, text)
    if encoding is not None:
        try:
            text.encode(encoding)
        except UnicodeEncodeError:
            text = text.encode(encoding, errors="backslashreplace").decode(encoding)
        except LookupError:
            pass
    return text


_STDOUT = object()


def say(text: str, file=_STDOUT) -> None:
    """Print ``text`` (default to standard output) with every line escaped for the terminal
    (docs/safety.md): the one way the command line prints summaries, messages and problems. The tool's
    own line breaks stay; the stream's encoding is passed on, so printing never fails. A stream
    that is None (``sys.stderr`` of a command started with ``2>&-``) is closed: nothing is printed,
    rather than the text landing on another stream (in a document written to standard output)."""
    stream = sys.stdout if file is _STDOUT else file
    if stream is None:
        return
    encoding = getattr(stream, "encoding", None)
    print("\n".join(escape_for_terminal(line, encoding) for line in text.split("\n")), file=stream)
