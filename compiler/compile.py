"""This module defines the compiler's entry points: `compile_source` runs the stages (parse,
lower with names, sites and schemas, effect rules) over one script and returns every
diagnostic, sorted, plus the IR when the script has no errors.

A pass that raises is a compiler bug; it becomes one `DWF901` diagnostic instead of a
traceback, so `dwfc check` answers every input with diagnostics."""

from __future__ import annotations

from dataclasses import dataclass

from dwf.grammar.meta import Meta

from dwf.compiler import ir
from dwf.compiler.diagnostics import Diagnostic, DiagnosticSink
from dwf.compiler.effect_rules import check_script
from dwf.compiler.checks.kind_checks import check_kinds
from dwf.compiler.lower.lowerer import Lowerer
from dwf.compiler.parse import parse
from dwf.compiler.checks.repeated_actors import check_repeated_helper_actors
from .rules.internal import InternalError
from .rules.syntax import SourceNotUtf8
from dwf.compiler.lower.constants import ModuleConstants
from dwf.compiler.source import SourceFile, Span
from dwf.compiler.version import COMPILER_VERSION


@dataclass
class CompileResult:
    source: SourceFile
    diagnostics: list[Diagnostic]
    program: ir.Program | None  # None when any diagnostic is an error

    @property
    def errors(self) -> int:
        return sum(d.is_error for d in self.diagnostics)

    @property
    def warnings(self) -> int:
        return len(self.diagnostics) - self.errors

    @property
    def ok(self) -> bool:
        return self.errors == 0


def compile_bytes(data: bytes, path: str) -> CompileResult:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        source = SourceFile(path, data.decode("utf-8", errors="replace"))
        line = data[: error.start].count(b"\n") + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        diagnostic = SourceNotUtf8.diagnostic(Span.point(line, column), detail=f"byte 0x{data[error.start]:02x} at offset {error.start}")
        return CompileResult(source, [diagnostic], None)
    return compile_source(text, path)


def compile_source(text: str, path: str = "<script>") -> CompileResult:
    source = SourceFile(path, text.lstrip("\ufeff"))
    parsed = parse(source)
    if isinstance(parsed, Diagnostic):
        return CompileResult(source, [parsed], None)
    sink = DiagnosticSink()
    lowerer = Lowerer(parsed, sink, schema_builder_factory=_schema_builder)
    body: tuple[ir.Stmt, ...] = ()
    try:
        body = lowerer.lower_module()
        check_script(lowerer)
        check_kinds(body, lowerer.schemas, _arg_types(lowerer.meta_value), source, sink,
                    typeddicts=lowerer.typeddict_bodies())
        check_repeated_helper_actors(body, sink)
    except RecursionError:
        sink.report(InternalError, Span.point(1, 1), stage="lowering", detail="the script is nested too deeply to analyze")
    except Exception as error:  # a compiler bug must not become a traceback for the user
        sink.report(InternalError, Span.point(1, 1), stage="lowering", detail=f"{type(error).__name__}: {error}")
    if lowerer.facts.meta_span is None and not any(d.code == "DWF001" for d in sink.sorted()):
        from .rules.meta import MissingMeta

        sink.report(MissingMeta, Span.point(1, 1))
    diagnostics = sink.sorted()
    program = None
    if not sink.has_errors:
        program = ir.Program(
            Span(1, 1, max(1, len(source.lines)), 1), path, source.sha256, COMPILER_VERSION, body,
            lowerer.meta_value, tuple(sorted(lowerer.schemas.items())), tuple(lowerer.sites),
            tuple(sorted(lowerer.commands)), tuple(lowerer.facts.phase_spans),
            tuple(sorted(lowerer.scope.bindings)),
        )
    return CompileResult(source, diagnostics, program)


def _arg_types(meta: Meta) -> dict[str, str]:
    """The declared type of each run argument (`meta["args"]`)."""
    declared = meta.get("args")
    if not isinstance(declared, dict):  # a meta block with errors still reaches the kind checks
        return {}
    return {name: spec.get("type", "json") for name, spec in declared.items() if isinstance(spec, dict)}


def _schema_builder(lowerer: Lowerer):
    from dwf.compiler.schemas import SchemaBuilder

    return SchemaBuilder(typeddicts=lowerer.typeddicts, typing_names=lowerer.typing_names,
                         constants=ModuleConstants(lowerer.scope.module(), lowerer.parsed.module), span_of=lowerer.span, sink=lowerer.sink)
