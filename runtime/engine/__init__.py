"""The engine: the run contract (RUNTIME §1) and the effect host the interpreter calls.

- `engine.py`: `Engine`, `Run` and the effect host.
- `request.py`: `StartRequest`, `StartError` and `RunResult`.
- `ask.py`: the engine's side of one ask (`AskChannel`, `run_ask`).
- `events.py`: run events and their delivery (`EventBus`).
- `arguments.py`: run-argument validation against `meta["args"]`.
- `called.py`: saved workflows called inline (`await workflow(name, args)`).

The package re-exports the engine's public names, so `from dwf.runtime.engine import Engine` keeps working.
"""

from dwf.runtime.engine.engine import Engine, Run
from dwf.runtime.engine.request import RunResult, StartError, StartRequest

__all__ = ["Engine", "Run", "RunResult", "StartError", "StartRequest"]
