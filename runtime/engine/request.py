"""This module defines what a caller hands the engine and gets back (RUNTIME §1): the
`StartRequest`, the `StartError` that refuses one before any effect, and the `RunResult` a
settled run delivers; plus the defaults those use."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dwf.runtime.engine.events import Listener
from dwf.runtime.journal.store import JournalStore
from dwf.runtime.interpreter.limits import Limits
from dwf.runtime.ports.protocols import AgentPort, QuestionPort
from dwf.runtime.statedir import StateDir

DEFAULT_GRACE_PERIOD_S = 5.0


def default_max_concurrency() -> int:
    return max(1, min(16, (os.cpu_count() or 1) - 2))


class StartError(Exception):
    """The request was refused before anything ran; `problems` lists every reason."""

    def __init__(self, problems: list[str], diagnostics: list | None = None):
        super().__init__("; ".join(problems))
        self.problems = problems
        self.diagnostics = diagnostics or []


@dataclass
class StartRequest:
    script: str
    agent_port: AgentPort
    path: str = "<script>"
    args: dict = field(default_factory=dict)
    world: Any = None  # a WorldPort (runtime.ports.world.LocalWorld); None: reads and commands fail
    artifacts: Any = None  # an ArtifactStore; None: artifacts fail with ArtifactError
    questions: QuestionPort | None = None
    journal: JournalStore | None = None
    max_concurrency: int | None = None
    max_agents: int | None = None
    budget: int | None = None
    limits: Limits = field(default_factory=Limits)
    listeners: list[Listener] = field(default_factory=list)
    approved_commands: frozenset[str] | None = None  # None: the script's own command set is approved
    # The saved workflows the script calls inline (`workflow()`): name -> script text, resolved
    # by the caller (runtime/host/saved.py) and pinned in the journal; a resume uses the pinned ones.
    workflows: dict[str, str] | None = None
    grace_period_s: float = DEFAULT_GRACE_PERIOD_S
    run_id: str | None = None
    # Resume (RUNTIME §5.1): continue the stopped run `run_id` of `journal`. The stored script,
    # args and caps are used (`script`/`args` are ignored; explicit caps override stored ones).
    resume: bool = False
    # Where the owner record and cancel requests of runs live (`<workspace>/.dwf/runs`). None:
    # derived from a file-backed journal (`<journal folder>/runs`); a MemoryJournal has none.
    control_dir: Path | None = None
    # Amend (RUNTIME §5.2, runtime/host/amend.py): the predecessor this run was amended from, and the
    # `ImportedCache` built from it (consulted after the run's own journal, before going live).
    resumed_from: str | None = None
    imported_cache: Any = None


@dataclass
class RunResult:
    run_id: str
    status: str  # completed | errored | stopped
    value: Any = None
    error: str | None = None
    stop_reason: str | None = None
    agents_started: int = 0
    usage: dict = field(default_factory=dict)
    reports: list = field(default_factory=list)
    traceback: str | None = None

    def to_json(self) -> dict:
        return {"run_id": self.run_id, "status": self.status, "value": self.value, "error": self.error,
                "stop_reason": self.stop_reason, "agents_started": self.agents_started,
                "usage": {"output_tokens": self.usage.get("output_tokens", 0)}, "reports": self.reports}


def control_dir_of(request: StartRequest) -> Path | None:
    if request.control_dir is not None:
        return Path(request.control_dir)
    path = request.journal.path if request.journal is not None else None
    return StateDir.of_journal(path).runs if path is not None else None
