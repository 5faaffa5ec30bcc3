"""Names shown on a terminal: control, bidi and line-separator characters escaped. The command
line and the dashboard both print through ``escape_for_terminal``."""

from __future__ import annotations

import re
import sys

# C0 controls, DEL, C1 controls (C1 CSI 0x9b acts like ESC [ on some terminals), the bidi
# embeddings, overrides and isolates and the Arabic letter mark (they reorder what follows: a
# name could show as another), the line and paragraph separators, and lone surrogates (bytes
# that were not UTF-8; no terminal encoding can print them).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]")


def _escape_char(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_for_terminal(text: str, encoding: str | None = None) -> str:
    """``text`` with every character a terminal could act on shown escaped (SPEC 13): ESC as
    ``\\x1b``, other C0/C1 controls and DEL as ``\\xNN``, bidi controls, line separators and lone
    surrogates as ``\\uNNNN``. With ``encoding`` (the stream's, e.g. ``sys.stdout.encoding``), a
    character that encoding cannot hold is shown as ``\\uNNNN`` / ``\\UNNNNNNNN`` too, so printing
    never fails. A backslash is left as it is (names cannot hold one). JSON outputs do not use
    this: they keep names as they are."""
    if _UNSAFE.search(text) is not None:
        text = _UNSAFE.sub(_escape_char, text)
    if encoding is not None:
        try:
            text.encode(encoding)
        except UnicodeEncodeError:
            text = text.encode(encoding, errors="backslashreplace").decode(encoding)
        except LookupError:
            pass
    return text


def say(text: str, file=None) -> None:
    """Print ``text`` (default to standard output) with every line escaped for the terminal
    (SPEC 13): the one way the command line prints summaries, messages and problems. The tool's
    own line breaks stay; the stream's encoding is passed on, so printing never fails."""
    stream = sys.stdout if file is None else file
    encoding = getattr(stream, "encoding", None)
    print("\n".join(escape_for_terminal(line, encoding) for line in text.split("\n")), file=stream)
