"""The bottom layer of the runtime: what scripts hold and what crosses ports. It imports nothing else
from the runtime.

- `objects.py`: the values a script holds besides plain data (`OrderedSet`, `ScriptFunction`,
  `LazyAwaitable`, `ActorHandle`, ...).
- `views.py`: the live `dict.keys()` / `values()` / `items()` views.
- `records.py`: the read-only records facade calls return (`RunResult`, `GrepMatch`, ...).
- `errors.py`: the runtime's error tree.
"""
