"""Words in summaries and messages, as a reader expects them."""

from __future__ import annotations

import unicodedata
from typing import Final


def plural(count: int, word: str) -> str:
    """`1 token`, `2 tokens`: a count and its noun, singular or plural."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


#: Unicode's Default_Ignorable_Code_Point characters (DerivedCoreProperties.txt, Unicode 16):
#: invisible wherever they are shown (zero-width spaces and joiners, bidi marks and controls,
#: variation selectors, tags, the Hangul fillers).
DEFAULT_IGNORABLE: Final = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
_IGNORED: Final = {
    point: None for first, last in DEFAULT_IGNORABLE for point in range(first, last + 1)
}


def name_key(name: str) -> str:
    """What two names are compared by (docs/rules.md#names): the name without its default
    ignorable characters, in NFC. `Ly\\u200bdia` and `Lydia`, or `é` written as one character
    and as `e` with its accent, are one name; look-alike letters of other scripts (`Lydia`
    with a Cyrillic a, Unicode's confusables) are not compared so and stay apart."""
    return unicodedata.normalize("NFC", name.translate(_IGNORED))
