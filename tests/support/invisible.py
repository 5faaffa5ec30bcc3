"""What docs/safety.md#terminals-get-no-control-characters promises to escape, from the running Python's Unicode data (not from
the escape under test): controls, format characters, surrogates, line and paragraph separators, and
the other default-ignorable code points."""

from __future__ import annotations

import unicodedata

DEFAULT_IGNORABLE = frozenset(  # Default_Ignorable_Code_Point (Unicode's DerivedCoreProperties.txt) beyond category Cf
    chr(c)
    for a, b in [(0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F), (0x3164, 0x3164)]
    + [(0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A)]
    + [(0xE0000, 0xE0FFF)]
    for c in range(a, b + 1)
)


def is_invisible(ch: str) -> bool:
    """True for a character a terminal acts on or that does not show as itself."""
    return unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp") or ch in DEFAULT_IGNORABLE
