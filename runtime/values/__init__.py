"""The bottom layer of the runtime: what scripts hold and what crosses ports. It imports nothing else
from the runtime.

- `objects.py`: the values a script holds besides plain data (`ScriptFunction`, `LazyAwaitable`,
  `ActorHandle`, `BuiltinFunction`, `ExceptionType`, ...) and `type_name`.
- `sets.py`: `OrderedSet` and `FrozenSet`, the script's insertion-ordered sets.
- `views.py`: the live `dict.keys()` / `values()` / `items()` views.
- `records.py`: the read-only records facade calls return (`RunResult`, `GrepMatch`, ...).
- `errors.py`: the runtime's error tree (`DwfError`, `ScriptError`, `FatalError`) and `TraceFrame`.
"""

from dwf.runtime.values.errors import DwfError, FatalError, ScriptError, TraceFrame
from dwf.runtime.values.objects import ActorHandle, LazyAwaitable, ScriptFunction, type_name
from dwf.runtime.values.records import Record
from dwf.runtime.values.sets import FrozenSet, OrderedSet

__all__ = ["ActorHandle", "DwfError", "FatalError", "FrozenSet", "LazyAwaitable", "OrderedSet", "Record",
           "ScriptError", "ScriptFunction", "TraceFrame", "type_name"]
