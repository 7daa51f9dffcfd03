"""This module defines diagnostics (one finding at one span) and the sink that collects them.

Rules never print: they report into a `DiagnosticSink`, which renders each rule's message
template with the fields given and keeps everything; `sorted()` orders by position, then code.
Rendering into text, JSON or SARIF lives in `compiler.render`. The sink knows a rule only as a
`Reportable` (a code and a way to make a diagnostic), so this module does not import the
catalogue (`compiler.rules`), which imports it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from dwf.compiler.source import Span


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """Diagnostic: one finding of one rule at one span, its message and help rendered."""

    span: Span
    code: str
    severity: str  # "error" | "warning"
    message: str
    help: str | None = None

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def sort_key(self) -> tuple:
        return (self.span.line, self.span.column, self.code, self.message)

    def to_json(self) -> dict:
        return {
            "line": self.span.line,
            "column": self.span.column,
            "end_line": self.span.end_line,
            "end_column": self.span.end_column,
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "help": self.help,
        }

    @classmethod
    def from_json(cls, data: dict) -> Diagnostic:
        """The diagnostic `to_json` gave `data` for."""
        span = Span(data["line"], data["column"], data["end_line"], data["end_column"])
        return cls(span, data["code"], data["severity"], data["message"], data["help"])


class Reportable(Protocol):
    """Reportable: what the sink needs of a rule (`compiler.rules.Rule`, the class itself)."""

    code: str

    def diagnostic(self, span: Span, help: str | None = None, **fields: object) -> Diagnostic: ...


class DiagnosticSink:
    """DiagnosticSink: collects diagnostics; duplicates (same span, code and message) are kept once."""

    def __init__(self) -> None:
        self._items: dict[tuple, Diagnostic] = {}

    def report(self, rule: Reportable, span: Span, **fields: object) -> Diagnostic:
        diagnostic = rule.diagnostic(span, **fields)
        self._items.setdefault((span, diagnostic.code, diagnostic.message), diagnostic)
        return diagnostic

    def add(self, diagnostic: Diagnostic) -> None:
        self._items.setdefault((diagnostic.span, diagnostic.code, diagnostic.message), diagnostic)

    @property
    def has_errors(self) -> bool:
        return any(d.is_error for d in self._items.values())

    def sorted(self) -> list[Diagnostic]:
        return sorted(self._items.values(), key=Diagnostic.sort_key)
