"""Words in summaries and messages, as a reader expects them."""

from __future__ import annotations


def plural(count: int, word: str) -> str:
    """`1 token`, `2 tokens`: a count and its noun, singular or plural."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"
