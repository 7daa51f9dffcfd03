"""This module defines what the compiler's entry points (`compiler.compile`) take and give back:
`CompileOptions`, the dialect a text is compiled in, and `CompileResult`, the diagnostics plus
the IR of a script without errors.

It imports neither the parser nor the lowering, so the readers of compiled programs (the approval
screen in `compiler.plan`, the renderers, the runtime) can name these types without loading
the front end.
"""

from __future__ import annotations

from dataclasses import dataclass

from dwf.compiler import ir
from dwf.compiler.diagnostics import Diagnostic
from dwf.compiler.source import SourceFile


@dataclass(frozen=True)
class CompileOptions:
    """CompileOptions: the dialect a text is compiled in, as options to the front end (the idea
    of starlark's `syntax.FileOptions`) rather than a second front end. The default is a script."""

    # Snippet mode (`compiler.snippet`): no meta block needed, no phases expected, and the
    # effects that need a run (agents, asks, reports, artifacts, phases, workflows) refused.
    snippet: bool = False


SCRIPT = CompileOptions()
SNIPPET = CompileOptions(snippet=True)


@dataclass
class CompileResult:
    """CompileResult: every diagnostic of one compiled text, sorted by position, and its IR when
    none of them is an error."""

    source: SourceFile  # the text as written: diagnostics point at its lines
    diagnostics: list[Diagnostic]
    program: ir.Program | None  # None when any diagnostic is an error
    # What the compiler appended to `source.text` before compiling it: the synthetic meta block
    # of a snippet that has none (`compiler.snippet`), after its last line; "" for a script.
    appended: str = ""

    @property
    def script(self) -> str:
        """The text `program` was compiled from, and that compiles to it as a plain script."""
        return self.source.text + self.appended

    @property
    def errors(self) -> int:
        return sum(d.is_error for d in self.diagnostics)

    @property
    def warnings(self) -> int:
        return len(self.diagnostics) - self.errors

    @property
    def ok(self) -> bool:
        return self.errors == 0
