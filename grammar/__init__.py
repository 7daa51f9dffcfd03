"""The DWF language definition as data: syntax grammar, facade registry, allow-lists, meta schema,
and the language guide written for models (`language.md`, the one copy of `docs/language.md`'s
text, shipped as package data so that `dwfc guide` and `dwfc mcp` serve it from an installed
wheel)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

GUIDE_FILE = "language.md"


@cache
def language_guide() -> str:
    """The language guide as Markdown text."""
    return (Path(__file__).parent / GUIDE_FILE).read_text(encoding="utf-8")
