"""This module defines source files and spans: the one place where libcst's 0-based columns
become the 1-based columns that every DWF output format uses.

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
    def line_offsets(self) -> list[int]:
        """Where each line starts in `text`, with lines broken as libcst (and CPython) break
        them: at `\\r\\n`, `\\r` or `\\n` only."""
        return [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", self.text)]

    def text_between(self, start, end) -> str:
        """The source text from one libcst `CodePosition` to another, newlines as `\\n`."""
        offsets = self.line_offsets
        text = self.text[offsets[start.line - 1] + start.column:offsets[end.line - 1] + end.column]
        return text.replace("\r\n", "\n").replace("\r", "\n")

    @cached_property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    def line_text(self, line: int) -> str:
        return self.lines[line - 1] if 0 < line <= len(self.lines) else ""
