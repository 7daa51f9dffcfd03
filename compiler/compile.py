"""This module defines the compiler's entry points: `compile_source` runs the stages (parse,
lower with names, sites and schemas, effect rules, kind checks) over one text and returns every
diagnostic, sorted, plus the IR when the text has no errors; `compile_bytes` decodes first.
`CompileOptions` picks the dialect: a script, or a snippet (`compiler.snippet`), whose steps
compile_source takes where they apply.

A pass that raises is a compiler bug; it becomes one `DWF901` diagnostic instead of a
traceback, so `dwfc check` answers every input with diagnostics."""

from __future__ import annotations

from dwf.grammar.meta import Meta

from dwf.compiler import ir, snippet
from dwf.compiler.checks.kind_checks import check_kinds, node_text
from dwf.compiler.checks.repeated_actors import check_repeated_helper_actors
from dwf.compiler.checks.shared_state import check_shared_state
from dwf.compiler.diagnostics import Diagnostic, DiagnosticSink
from dwf.compiler.effect_rules import check_script
from dwf.compiler.lower.constants import ModuleConstants
from dwf.compiler.lower.lowerer import Lowerer
from dwf.compiler.parse import parse
from dwf.compiler.result import SCRIPT, CompileOptions, CompileResult
from dwf.compiler.rules.internal import InternalError
from dwf.compiler.rules.meta import MissingMeta
from dwf.compiler.rules.syntax import SourceNotUtf8, SyntaxError_
from dwf.compiler.source import SourceFile, Span
from dwf.compiler.version import COMPILER_VERSION

__all__ = ["CompileOptions", "CompileResult", "compile_bytes", "compile_source", "schema_builder"]


def compile_bytes(data: bytes, path: str, options: CompileOptions = SCRIPT) -> CompileResult:
    """Compile a file's bytes: text that is not UTF-8 is one `DWF002` diagnostic."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        source = SourceFile(path, data.decode("utf-8", errors="replace"))
        line = data[: error.start].count(b"\n") + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        diagnostic = SourceNotUtf8.diagnostic(Span.point(line, column), detail=f"byte 0x{data[error.start]:02x} at offset {error.start}")
        return CompileResult(source, [diagnostic], None)
    return compile_source(text, path, options)


def compile_source(text: str, path: str = "<script>", options: CompileOptions = SCRIPT) -> CompileResult:
    """Compile one text in the dialect `options` names: every diagnostic, plus the IR when none
    is an error."""
    source = SourceFile(path, text.lstrip("\ufeff"))
    parsed = parse(source)
    if isinstance(parsed, Diagnostic):
        return CompileResult(source, [parsed], None)
    appended = snippet.meta_suffix(parsed) if options.snippet else ""
    if appended:  # a line after the snippet's last one: it parses whenever the snippet does
        parsed = parse(SourceFile(path, source.text + appended))
        if isinstance(parsed, Diagnostic):
            return CompileResult(source, [parsed], None)
    compiled = parsed.source  # the text that runs: `source` plus what was appended
    sink = DiagnosticSink()
    lowerer = Lowerer(parsed, sink, schema_builder_factory=schema_builder)
    body: tuple[ir.Stmt, ...] = ()
    try:
        body = lowerer.lower_module()
        check_script(lowerer)
        check_kinds(body, lowerer.schemas, _arg_types(lowerer.meta_value), compiled, sink,
                    typeddicts=lowerer.typeddict_bodies())
        check_repeated_helper_actors(body, sink)
        check_shared_state(body, lambda node: node_text(compiled, node), sink)
    except RecursionError:  # nesting within the limits that still exhausts the stack: as the parse stage said it
        nested = SyntaxError_.diagnostic(Span.point(1, 1), detail="the script is nested too deeply to analyze")
        return CompileResult(source, [nested], None)
    except Exception as error:  # a compiler bug must not become a traceback for the user
        sink.report(InternalError, Span.point(1, 1), stage="lowering", detail=f"{type(error).__name__}: {error}")
    if lowerer.facts.meta_span is None and not any(d.code == "DWF001" for d in sink.sorted()):
        sink.report(MissingMeta, Span.point(1, 1))
    diagnostics = sink.sorted()
    if options.snippet:
        diagnostics = [d for d in diagnostics if d.code not in snippet.NOT_FOR_SNIPPETS]
    if any(d.is_error for d in diagnostics):
        return CompileResult(source, diagnostics, None, appended)
    program = ir.Program(
        Span(1, 1, max(1, len(compiled.lines)), 1), path, compiled.sha256, COMPILER_VERSION, body,
        lowerer.meta_value, tuple(sorted(lowerer.schemas.items())), tuple(lowerer.sites),
        tuple(sorted(lowerer.commands)), tuple(lowerer.facts.phase_spans),
        tuple(sorted(lowerer.scope.bindings)),
    )
    refused = snippet.refusals(program) if options.snippet else []
    if refused:
        return CompileResult(source, sorted([*diagnostics, *refused], key=Diagnostic.sort_key), None, appended)
    return CompileResult(source, diagnostics, program, appended)


def _arg_types(meta: Meta) -> dict[str, str]:
    """The declared type of each run argument (`meta["args"]`)."""
    declared = meta.get("args")
    if not isinstance(declared, dict):  # a meta block with errors still reaches the kind checks
        return {}
    return {name: spec.get("type", "json") for name, spec in declared.items() if isinstance(spec, dict)}


def schema_builder(lowerer: Lowerer):
    """The schema synthesis of one script being lowered (`Lowerer`'s `schema_builder_factory`)."""
    from dwf.compiler.schemas import SchemaBuilder  # deferred: start-up (jsonschema)

    return SchemaBuilder(typeddicts=lowerer.typeddicts, typing_names=lowerer.typing_names,
                         constants=ModuleConstants(lowerer.scope.module(), lowerer.parsed.module),
                         span_of=lowerer.span, sink=lowerer.sink, positions=lowerer.positions)
