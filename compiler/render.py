"""This module defines the renderings of compile results: concise lines, the full form with
source line, carets and help, the JSON document of `dwfc check --format json`, SARIF 2.1.0 for
editors and CI, and the site table of `dwfc check --sites`. Rendering never changes a
diagnostic; positions are already 1-based. Text and JSON are made inert (`compiler.inert`): a
script's control and bidi characters are shown as escapes, never sent to the terminal raw."""

from __future__ import annotations

import json

from dwf.compiler import ir
from dwf.compiler.inert import json_text, screen
from dwf.compiler.result import CompileResult
from dwf.compiler.diagnostics import Diagnostic
from dwf.compiler.rules import all_rules
from dwf.compiler.version import COMPILER_VERSION


def render_concise(result: CompileResult) -> str:
    return screen("".join(f"{result.source.path}:{d.span.line}:{d.span.column}: {d.code} {d.message}\n"
                          for d in result.diagnostics))


def render_full(result: CompileResult) -> str:
    return screen("".join(_full(result, d) for d in result.diagnostics))


def _full(result: CompileResult, d: Diagnostic) -> str:
    span = d.span
    line_text = result.source.line_text(span.line).expandtabs(1)
    gutter = str(span.line)
    pad = " " * len(gutter)
    end = span.end_column if span.end_line == span.line else len(line_text) + 1
    width = max(1, min(end, len(line_text) + 1) - span.column)
    label = f"{d.severity}[{d.code}]"
    out = [
        f"{label}: {d.message}",
        f"{pad}--> {result.source.path}:{span.line}:{span.column}",
        f"{pad} |",
        f"{gutter} | {line_text}",
        f"{pad} | {' ' * (span.column - 1)}{'^' * width}",
    ]
    if d.help:
        out.append(f"{pad} = help: {d.help}")
    return "\n".join(out) + "\n\n"


def summary_line(results: list[CompileResult]) -> str:
    errors = sum(r.errors for r in results)
    warnings = sum(r.warnings for r in results)
    files = len(results)
    if not errors and not warnings:
        return f"All checks passed ({files} file{'s' if files != 1 else ''})."
    return (f"Found {errors} error{'s' if errors != 1 else ''} and {warnings} warning{'s' if warnings != 1 else ''} "
            f"in {files} file{'s' if files != 1 else ''}.")


def to_json(results: list[CompileResult]) -> dict:
    return {
        "files": [{"path": r.source.path, "diagnostics": [d.to_json() for d in r.diagnostics]} for r in results],
        "errors": sum(r.errors for r in results),
        "warnings": sum(r.warnings for r in results),
    }


def to_sarif(results: list[CompileResult]) -> dict:
    rules = all_rules()
    index = {rule.code: i for i, rule in enumerate(rules)}
    sarif_results = []
    for result in results:
        for d in result.diagnostics:
            region = {"startLine": d.span.line, "startColumn": d.span.column,
                      "endLine": d.span.end_line, "endColumn": d.span.end_column}
            message = d.message + (f"\nhelp: {d.help}" if d.help else "")
            sarif_results.append({
                "ruleId": d.code,
                "ruleIndex": index[d.code],
                "level": "error" if d.is_error else "warning",
                "message": {"text": message},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": result.source.path}, "region": region}}],
            })
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "dwfc",
                "version": COMPILER_VERSION,
                "informationUri": "https://github.com/dwf-lang/dwf",
                "rules": [{
                    "id": rule.code,
                    "name": rule.name,
                    "shortDescription": {"text": rule.summary()},
                    "fullDescription": {"text": rule.docs()},
                    "defaultConfiguration": {"level": "error" if rule.severity == "error" else "warning"},
                    "helpUri": f"https://github.com/dwf-lang/dwf/blob/main/docs/rules/{rule.code}.md",
                } for rule in rules],
            }},
            "columnKind": "unicodeCodePoints",
            "results": sarif_results,
        }],
    }


def render_sites(program: ir.Program) -> str:
    rows = [("SITE", "KIND", "LINE:COL", "ACTOR / COMMAND", "PHASE", "DETAIL")]
    for site in program.sites:
        who = site.command if site.command else site.actor or ""
        where = site.phase or (f"(in {site.function}())" if site.function else "(unphased)")
        rows.append((site.id, site.op, f"{site.span.line}:{site.span.column}", who, where, site.detail or ""))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[-1] for row in rows]
    return screen("\n".join(line.rstrip() for line in lines) + "\n")


def dumps(data: dict) -> str:
    return json_text(json.dumps(data, indent=2, ensure_ascii=False)) + "\n"
