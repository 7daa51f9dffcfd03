"""What importing the compiler loads (run in a fresh interpreter each).

`compiler.compile.schema_builder` and `Lowerer._find_meta` import jsonschema when a script needs
it (`# deferred: start-up`), so `dwfc` starts without it; the readers of compiled programs (the
plan, the renderers, `CompileResult`) load neither libcst nor the lowering.
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


def test_compiling_a_script_loads_jsonschema_when_it_needs_it():
    imports = "from dwf.compiler.compile import compile_source; compile_source('meta = {\"name\": \"a\", \"description\": \"b\"}\\n')"
    assert loaded(imports, ("jsonschema",)) == ["jsonschema"]


def test_the_readers_of_compiled_programs_load_no_front_end():
    imports = ("import dwf.compiler.plan.document, dwf.compiler.plan.text, dwf.compiler.plan.html, "
               "dwf.compiler.render, dwf.compiler.result")
    assert loaded(imports, ("libcst", "dwf.compiler.lower", "dwf.compiler.lower.lowerer")) == []
