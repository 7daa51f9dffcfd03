"""The interpreter: analyzed IR to closures, run against an effect host. It imports `values/`,
`dwf.compiler.ir` and `dwf.grammar`.

- `interpreter.py`: `Interpreter` and the closure compiler (expressions).
- `statements.py`: `StatementCompiler`, how statements compile to closures.
- `facade_calls.py`: how facade calls (`FacadeCall` in the IR) run through the effect host.
- `calls.py`: argument binding for script functions and methods of plain values under the limits.
- `frames.py`: frames, control-flow signals and the helpers the interpreter's parts share.
- `sandbox.py`: the sandbox policy, the only place a script reaches attributes, methods and operators.
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
