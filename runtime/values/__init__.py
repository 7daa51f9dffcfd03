"""The bottom layer of the runtime: what scripts hold and what crosses ports. It imports nothing else
from the runtime.

- `objects.py`: the values a script holds besides plain data (`ScriptFunction`, `LazyAwaitable`,
  `ActorHandle`, `BuiltinFunction`, `ExceptionType`, ...) and `type_name`.
- `sets.py`: `OrderedSet` and `FrozenSet`, the script's insertion-ordered sets.
- `views.py`: the live `dict.keys()` / `values()` / `items()` views.
- `records.py`: the read-only records facade calls return (`RunResult`, `GrepMatch`, ...).
- `errors.py`: the runtime's error tree (`DwfError`, `ScriptError`, `FatalError`) and `TraceFrame`.
- `lazy_exports.py`: `lazy_exports`, the first-use exports of the runtime's packages.
- `plain_json.py`: `to_plain` and `dumps`, what a run hands out (events, results, tool results)
  as plain JSON data.
"""

from dwf.runtime.values.lazy_exports import lazy_exports

# Where each public name lives. They load on first use: `dwfc` imports `values.plain_json` at
# start-up, which must not pull in `objects` (and anyio with it).
_HOMES = {"DwfError": "errors", "FatalError": "errors", "ScriptError": "errors", "TraceFrame": "errors",
          "ActorHandle": "objects", "LazyAwaitable": "objects", "ScriptFunction": "objects", "type_name": "objects",
          "Record": "records", "FrozenSet": "sets", "OrderedSet": "sets"}

__all__, __getattr__ = lazy_exports(__name__, _HOMES)
