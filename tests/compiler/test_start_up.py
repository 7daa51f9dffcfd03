"""What importing the compiler loads (run in a fresh interpreter each).

jsonschema is imported only when a script needs it (`# deferred: start-up`): a meta block that
`compiler.meta.plainly_valid` cannot vouch for, or a literal `returns={...}` schema (issue #18;
a valid meta block loaded it before), so `dwfc` starts and compiles most scripts without it; the
readers of compiled programs (the plan, the renderers, `CompileResult`) load neither the parser nor
the lowering.
"""

from __future__ import annotations

import ast
import subprocess
import sys


def loaded(imports: str, names: tuple[str, ...]) -> list[str]:
    code = f"import sys; {imports}; print(sorted(n for n in {names!r} if n in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return ast.literal_eval(done.stdout.strip())


def test_the_compiler_entry_points_load_no_jsonschema():
    assert loaded("import dwf.compiler.compile, dwf.runtime.cli.main", ("jsonschema",)) == []


def compiled(script: str) -> str:
    return f"from dwf.compiler.compile import compile_source; assert compile_source({script!r}).diagnostics is not None"


def test_compiling_a_script_with_a_valid_meta_block_loads_no_jsonschema():
    script = 'from typing import TypedDict\nmeta = {"name": "a", "description": "b", "args": {"n": {"type": "integer"}}}\n' \
             'class T(TypedDict):\n    x: int\nphase("P")\nt = await agent("a").ask("go", returns=T)\n'
    assert loaded(compiled(script), ("jsonschema",)) == []


def test_compiling_a_script_loads_jsonschema_when_it_needs_it():
    invalid_meta = 'meta = {"name": "Not Kebab", "description": "b"}\n'
    literal_schema = ('meta = {"name": "a", "description": "b"}\nphase("P")\n'
                      'x = await agent("a").ask("go", returns={"type": "object"})\n')
    assert loaded(compiled(invalid_meta), ("jsonschema",)) == ["jsonschema"]
    assert loaded(compiled(literal_schema), ("jsonschema",)) == ["jsonschema"]


def test_the_readers_of_compiled_programs_load_no_front_end():
    imports = ("import dwf.compiler.plan.document, dwf.compiler.plan.text, dwf.compiler.plan.html, "
               "dwf.compiler.render, dwf.compiler.result")
    assert loaded(imports, ("dwf.compiler.parse", "dwf.compiler.positions", "dwf.compiler.lower",
                            "dwf.compiler.lower.lowerer")) == []
