"""This module defines `Rule`, the shape of one entry of the diagnostic catalogue.

A rule is a small class: a stable code (`DWF` + 3 digits, grouped by stage), a kebab-case name
after the pattern it flags, a severity, a message template and an optional help template (both
`str.format` templates over named fields, sentence case, code in backticks, no final period),
and a docstring with the sections *What it does*, *Why is this bad?*, *Example* and *Use
instead*. Detection lives in the compiler passes; the catalogue only says what a finding means.
"""

from __future__ import annotations

import inspect
from typing import ClassVar

from ..diagnostics import Diagnostic
from ..source import Span

REGISTRY: dict[str, type[Rule]] = {}
# Codes that were once used and must never be handed out again.
RETIRED: frozenset[str] = frozenset()


class Rule:
    """Rule: one entry of the catalogue; each subclass registers itself under its code."""

    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[str] = "error"
    message: ClassVar[str]
    help: ClassVar[str | None] = None

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if cls.code in REGISTRY:
            raise ValueError(f"rule code {cls.code} is used twice")
        REGISTRY[cls.code] = cls

    @classmethod
    def diagnostic(cls, span: Span, help: str | None = None, **fields: object) -> Diagnostic:
        message = cls.message.format(**fields)
        if help is None and cls.help is not None:
            help = cls.help.format(**fields)
        return Diagnostic(span, cls.code, cls.severity, message, help)

    @classmethod
    def docs(cls) -> str:
        return inspect.cleandoc(cls.__doc__ or "")

    @classmethod
    def summary(cls) -> str:
        """The first sentence of *What it does*: the rule in one line (`dwfc rules`, the rule
        index of `docs/rules/`, SARIF's `shortDescription`)."""
        body = cls.docs().split("## What it does", 1)[-1].split("##", 1)[0]
        text = " ".join(body.split())
        return text.split(". ")[0].rstrip(".") + "."

    @classmethod
    def group(cls) -> str:
        return GROUPS[cls.code[3]]


GROUPS = {
    "0": "parse",
    "1": "syntax subset",
    "2": "names, determinism and sandbox",
    "3": "facade and effects",
    "4": "schemas",
    "5": "meta block and arguments",
    "9": "internal",
}
