"""This module defines source files and spans, the 1-based positions every DWF output format
uses (`compiler.positions` computes them from CPython's syntax tree).

A `Span` is 1-based on both axes; `end_column` is exclusive (one past the last character), so a
one-character token at column 5 has `column=5, end_column=6`. Columns count characters (code
points), not bytes and not tab stops: the same convention as CPython's `SyntaxError.offset`.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import cached_property


@dataclass(frozen=True, slots=True, order=True)
class Span:
    line: int
    column: int
    end_line: int
    end_column: int

    @classmethod
    def point(cls, line: int, column: int) -> Span:
        return cls(line, column, line, column + 1)

    def to_json(self) -> list[int]:
        return [self.line, self.column, self.end_line, self.end_column]

    @classmethod
    def from_json(cls, data: list[int]) -> Span:
        return cls(*data)


NO_SPAN = Span(1, 1, 1, 1)


@dataclass(frozen=True)
class SourceFile:
    """A script's text with its display path (as the user typed it, never made absolute)."""

    path: str
    text: str

    @cached_property
    def lines(self) -> list[str]:
        return self.text.splitlines()

    @cached_property
    def line_offsets(self) -> list[int]:
        """Where each line starts in `text`, with lines broken as CPython breaks them: at
        `\\r\\n`, `\\r` or `\\n` only."""
        return [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", self.text)]

    @cached_property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    def line_text(self, line: int) -> str:
        return self.lines[line - 1] if 0 < line <= len(self.lines) else ""
