"""The DWF compiler: source text to diagnostics, site IDs, schemas and the analyzed IR.

- `compile.py`: the entry points, `compile_source` and `compile_bytes`, which run the stages.
- `result.py`: what they take and give: `CompileOptions` (the dialect) and `CompileResult`.
- `snippet.py`: snippet mode, the dialect of `dwfc eval` (`CompileOptions(snippet=True)`).
- `source.py`: source files and spans.
- `positions.py`: `SourceMap`, CPython's tree positions as spans, node source text and string pieces.
- `parse.py`: stage 1, CPython's parser (`ast`); a syntax error is one `DWF001`.
- `limits.py`: the size and nesting limits, checked over CPython's tree before lowering.
- `diagnostics.py`: `Diagnostic` and the `DiagnosticSink` rules report into.
- `rules/`: the rule catalogue, one class per diagnostic code.
- `meta.py`: the meta block read as data and validated against its schema.
- `lower/`: stage 2, CPython's syntax tree to IR (the tree stops there).
- `schemas/`: schema synthesis for typed asks.
- `effect_rules.py`: the whole-script effect rules over the facts lowering collects.
- `checks/`: checks over the lowered program (kinds, repeated actors, names not offered, `re` calls).
- `ir.py`: the IR, its JSON form, its text dump and its hash.
- `plan/`: the approval screen; it reads IR only.
- `inert.py`: text from scripts, agents and files made inert for screens (control, bidi characters escaped).
- `render.py`: diagnostics as text, JSON and SARIF, and the site table.
- `ruledocs.py`: the generator of `docs/rules/`.
- `version.py`: `COMPILER_VERSION`.

The package imports none of them, so that reading IR (the runtime, the plan) does not load the
front end: `__all__` names the modules, which are the API (`from dwf.compiler.compile import
compile_source`).
"""

__all__ = [
    "checks", "compile", "diagnostics", "effect_rules", "inert", "ir", "limits", "lower", "meta", "parse", "plan", "render",
    "result", "ruledocs", "rules", "schemas", "snippet", "source", "version",
]
