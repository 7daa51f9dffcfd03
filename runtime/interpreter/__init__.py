"""The interpreter: analyzed IR to closures, run against an effect host. It imports `values/`,
`dwf.compiler.ir` and `dwf.grammar`.

- `interpreter.py`: `Interpreter` (one run of a program) and `ClosureCompiler`, the dispatch from
  IR node types to compile methods, and blocks.
- `codegen.py`: blocks and lambda bodies without `await` as generated Python functions (the fast
  path), with the closures' checks in the same order.
- `expressions.py`: `ExpressionCompiler`, how expressions compile to closures.
- `statements.py`: `StatementCompiler`, how statements compile to closures.
- `host.py`: `EffectHost`, every method the interpreter calls on the engine.
- `facade_calls.py`: how facade calls (`FacadeCall` in the IR) run through the effect host, and the joins.
- `calls.py`: argument binding for script functions, methods of plain values under the limits,
  and calling exception classes.
- `frames.py`: frames, `Code`, control-flow signals, argument collection and the value helpers the
  interpreter's parts share.
- `sandbox.py`: the sandbox policy, the only place a script reaches attributes and methods; sizes,
  work charges, `repr`/`str` and JSON conversion.
- `operators.py`: the operator tables (`BINARY`, `INPLACE`, `UNARY`, `COMPARE`) under the limits.
- `limits.py`: the resource limits of LANGUAGE §4 and `Limits`.
- `builtins.py`: the implementations of the builtins and modules `grammar/builtins.py` allows.
- `exceptions.py`: how a missing attribute fails, compared with CPython's counterpart.
- `formatting.py`: `%` formatting and the text of values outside f-strings.
- `json_text.py`: `json.dumps` for scripts.
- `collection_values.py`: the values of `collections` (`Counter`, `defaultdict`, `OrderedDict`).
- `collections_module.py`: the `collections` module of scripts.
- `itertools_module.py`: the `itertools` module of scripts.
- `stdlib_modules.py`: `functools.reduce`, `statistics`, `string` and `standard_module`.
- `text_modules.py`: `textwrap` and `difflib`.
- `module_support.py`: what the standard-module implementations share.
- `regex.py`: `re` for scripts.
- `regex_worker.py`: the `re` operations on plain data and the worker process
  (`python -I -m dwf.runtime.interpreter.regex_worker`).
"""

from dwf.runtime.values.lazy_exports import lazy_exports

# The names load on first use: the regex worker process runs as
# `-m dwf.runtime.interpreter.regex_worker`, which loads this package first, and must not pay
# for loading the interpreter.
__all__, __getattr__ = lazy_exports(__name__, {"EffectHost": "host", "Interpreter": "interpreter", "Limits": "limits"})
