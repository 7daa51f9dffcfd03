"""This module defines source files and spans: the one place where libcst's 0-based columns
become the 1-based columns that every DWF output format uses.

A `Span` is 1-based on both axes; `end_column` is exclusive (one past the last character), so a
one-character token at column 5 has `column=5, end_column=6`. Columns count characters (code
points), not bytes and not tab stops: the same convention as CPython's `SyntaxError.offset`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cached_property


@dataclass(frozen=True, slots=True, order=True)
class Span:
    line: int
    column: int
    end_line: int
    end_column: int

    @classmethod
    def from_code_range(cls, code_range) -> Span:
        """Convert a libcst `CodeRange` (1-based lines, 0-based columns) to a `Span`."""
        start, end = code_range.start, code_range.end
        return cls(start.line, start.column + 1, end.line, end.column + 1)

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
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    def line_text(self, line: int) -> str:
        return self.lines[line - 1] if 0 < line <= len(self.lines) else ""
