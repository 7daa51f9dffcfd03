"""The bottom layer of the runtime: what scripts hold and what crosses ports. It imports nothing else
from the runtime.

- `objects.py`: the values a script holds besides plain data (`ScriptFunction`, `LazyAwaitable`,
  `ActorHandle`, `BuiltinFunction`, `ExceptionType`, ...) and `type_name`.
- `sets.py`: `OrderedSet` and `FrozenSet`, the script's insertion-ordered sets.
- `views.py`: the live `dict.keys()` / `values()` / `items()` views.
- `records.py`: the read-only records facade calls return (`RunResult`, `GrepMatch`, ...).
- `errors.py`: the runtime's error tree (`DwfError`, `ScriptError`, `FatalError`) and `TraceFrame`.
- `plain_json.py`: `to_plain` and `dumps`, what a run hands out (events, results, tool results)
  as plain JSON data.
"""

import importlib

# Where each public name lives. They load on first use (PEP 562): `dwfc` imports
# `values.plain_json` at start-up, which must not pull in `objects` (and anyio with it).
_HOMES = {"DwfError": "errors", "FatalError": "errors", "ScriptError": "errors", "TraceFrame": "errors",
          "ActorHandle": "objects", "LazyAwaitable": "objects", "ScriptFunction": "objects", "type_name": "objects",
          "Record": "records", "FrozenSet": "sets", "OrderedSet": "sets"}

__all__ = sorted(_HOMES)


def __getattr__(name: str):
    """The names of `__all__`, imported from their module on first use."""
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
