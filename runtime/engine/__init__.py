"""The engine: the run contract (RUNTIME §1), below the host services and above the interpreter,
the journal and the ports. It imports no host, tool or command-line module.

- `prepare.py`: `prepare` and `prepare_resume`, which compile a script once and check
  everything a run needs (`PreparedRun`); `resume_problems`; a run's pinned agent (`pinned_agent`,
  `agent_changes`).
- `engine.py`: `Engine` and the lifecycle of a `Run` (start, cancel, grace, settle).
- `run_host.py`: `RunHost`, the effect host the interpreter calls (asks, world, reports,
  artifacts, saved workflows, escalations).
- `commits.py`: `GroupCommitter`, the engine's half of group commit.
- `request.py`: `StartRequest`, `StartError` and `RunOutcome`.
- `caps.py`: a run's caps and the host's ceilings on them (`Caps`, `Ceilings`, `resolve_caps`).
- `ask.py`: the engine's side of one ask (`AskSession`, `run_ask`, `schema_violations`).
- `import_cache.py`: `ImportedCache`, what an amended run imports from its predecessor.
- `called.py`: saved workflows called inline (`compile_called`, `run_commands`, `CalledWorkflowHost`).
- `events.py`: run events and their delivery (`EventBus`).
- `arguments.py`: run-argument validation against `meta["args"]`.
"""

from dwf.runtime.engine.called import CalledSource, run_commands
from dwf.runtime.engine.caps import DEFAULT_MAX_CONCURRENCY, Caps, Ceilings, resolve_caps
from dwf.runtime.engine.engine import Engine, Run
from dwf.runtime.engine.import_cache import ImportedCache
from dwf.runtime.engine.prepare import (PreparedRun, agent_changes, pinned_agent, prepare, prepare_resume,
                                        resume_problems)
from dwf.runtime.engine.request import RunOutcome, StartError, StartRequest

__all__ = ["DEFAULT_MAX_CONCURRENCY", "CalledSource", "Caps", "Ceilings", "Engine", "ImportedCache", "PreparedRun",
           "Run", "RunOutcome", "StartError", "StartRequest", "agent_changes", "pinned_agent", "prepare",
           "prepare_resume", "resolve_caps",
           "resume_problems", "run_commands"]
