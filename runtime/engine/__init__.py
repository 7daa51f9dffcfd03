"""The engine: the run contract (RUNTIME §1), below the host services and above the interpreter,
the journal and the ports. It imports no host, tool or command-line module.

- `prepare.py`: `prepare` and `prepare_resume`, which compile a script once and check
  everything a run needs (`PreparedRun`); `resume_problems`; a run's pinned agent (`pinned_agent`,
  `agent_changes`).
- `engine.py`: `Engine` and the lifecycle of a `Run` (start, cancel, grace, settle).
- `run_host.py`: `RunHost`, the effect host the interpreter calls (asks, world, reports,
  artifacts, saved workflows, escalations).
- `commits.py`: `GroupCommitter`, the engine's half of group commit.
- `slots.py`: `Slots`, the cap on asks in flight (a limiter that takes a free slot without a yield).
- `request.py`: `StartRequest`, `StartError` and `RunOutcome`.
- `caps.py`: a run's caps and the host's ceilings on them (`Caps`, `Ceilings`, `resolve_caps`).
- `ask.py`: the engine's side of one ask (`AskSession`, `run_ask`, `schema_violations`).
- `import_cache.py`: `ImportedCache`, what an amended run imports from its predecessor.
- `called.py`: saved workflows called inline (`compile_called`, `run_commands`, `CalledWorkflowHost`).
- `compile_cache.py`: `compile_script` and `CompileCache`, compile results kept under `.dwf/cache/`.
- `events.py`: run events and their delivery (`EventBus`).
- `arguments.py`: run-argument validation against `meta["args"]`.

The names below are imported from their modules on first use, so importing one module of the
package (the compile cache, as `dwfc check` does) does not load the others (the event loop, the
ports). `prepare.py`'s names are bound at once: importing that module binds the package's
`prepare` to the module, in place of the function.
"""

from dwf.runtime.engine.prepare import (PreparedRun, agent_changes, pinned_agent, prepare, prepare_resume,
                                        resume_problems)
from dwf.runtime.values.lazy_exports import lazy_exports

_HOMES = {
    "CalledSource": "called", "run_commands": "called",
    "DEFAULT_MAX_CONCURRENCY": "caps", "Caps": "caps", "Ceilings": "caps", "resolve_caps": "caps",
    "Engine": "engine", "Run": "engine",
    "ImportedCache": "import_cache",
    "RunOutcome": "request", "StartError": "request", "StartRequest": "request",
    "CompileCache": "compile_cache", "compile_script": "compile_cache",
}

__all__, __getattr__ = lazy_exports(__name__, _HOMES)
__all__ = sorted([*__all__, "PreparedRun", "agent_changes", "pinned_agent", "prepare", "prepare_resume",
                  "resume_problems"])
