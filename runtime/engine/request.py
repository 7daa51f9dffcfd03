"""This module defines what a caller hands the engine and gets back (RUNTIME §1): the
`StartRequest`, the `StartError` that refuses one before any effect, and the `RunOutcome` a
settled run delivers; plus the defaults those use (the caps' are `engine/caps.py`'s)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dwf.runtime.engine.caps import Ceilings
from dwf.runtime.engine.events import Listener
from dwf.runtime.engine.import_cache import ImportedCache
from dwf.runtime.engine.prepare import PreparedRun
from dwf.runtime.interpreter.limits import Limits
from dwf.runtime.journal.store import JournalStore
from dwf.runtime.ports.protocols import AgentPort, ArtifactPort, QuestionPort, WorldPort
from dwf.runtime.statedir import StateDir

DEFAULT_GRACE_PERIOD_S = 5.0


class StartError(Exception):
    """StartError: the request was refused before anything ran; `problems` lists every reason."""

    def __init__(self, problems: list[str], diagnostics: list | None = None):
        super().__init__("; ".join(problems))
        self.problems = problems
        self.diagnostics = diagnostics or []


@dataclass
class StartRequest:
    """StartRequest: what one run starts from, the prepared script and the ports it reaches.

    `prepared` is what `engine.prepare` (a new run) or `engine.prepare_resume` (a stopped run)
    returned: the script compiled once, its arguments validated, its called workflows and its
    approved command set. A request without it names the script by text (`script`, `path`,
    `args`, `workflows`, `approved_commands`) or the run to resume (`resume`, `run_id`), and the
    engine prepares it itself, once: the form tests and library callers use.
    """

    agent_port: AgentPort
    prepared: PreparedRun | None = None
    script: str = ""
    path: str = "<script>"
    args: dict = field(default_factory=dict)
    world: WorldPort | None = None  # None: reads and commands fail with WorldError
    artifacts: ArtifactPort | None = None  # None: artifacts fail with ArtifactError
    questions: QuestionPort | None = None  # None: an escalation is answered "no one is available"
    # Isolated actors' worktrees (`ports.worktrees.GitWorktrees` or a port like it). None: made in
    # the world's workspace when the script isolates actors (runtime/temporal gives its own).
    worktrees: Any = None
    journal: JournalStore | None = None  # None: a MemoryJournal
    max_concurrency: int | None = None  # None: the stored caps (a resume), meta's, or the default
    max_agents: int | None = None
    budget: int | None = None
    ceilings: Ceilings = field(default_factory=Ceilings)  # the host's: every cap is clamped to them
    # The agent port's default model, recorded in the run's caps so an amend or `dwfc set` keeps
    # it (the caller opened `agent_port` with it; the engine does not read it otherwise).
    model: str | None = None
    # The identity of the workspace the run starts in, recorded in its caps (`host/approval.py`:
    # a resume from a journal recorded elsewhere needs a fresh approval). None: not recorded.
    workspace: str | None = None
    limits: Limits = field(default_factory=Limits)
    listeners: list[Listener] = field(default_factory=list)
    approved_commands: frozenset[str] | None = None  # None: the script's own command set is approved
    # The saved workflows the script calls inline (`workflow()`): name -> script text, resolved
    # by the caller (runtime/host/saved.py) and pinned in the journal; a resume uses the pinned ones.
    workflows: dict[str, str] | None = None
    grace_period_s: float = DEFAULT_GRACE_PERIOD_S
    run_id: str | None = None
    # Resume (RUNTIME §5.1) without `prepared`: continue the stopped run `run_id` of `journal`
    # with its stored script, args and caps (explicit caps override stored ones).
    resume: bool = False
    # Where the owner record and cancel requests of runs live (`<workspace>/.dwf/runs`). None:
    # derived from a file-backed journal (`<journal folder>/runs`); a MemoryJournal has none.
    control_dir: Path | None = None
    # Amend (RUNTIME §5.2, runtime/host/amend.py): the predecessor this run was amended from, and the
    # imported cache built from it (consulted after the run's own journal, before going live).
    resumed_from: str | None = None
    imported_cache: ImportedCache | None = None
    # The agent port the caller opened, as the run pins it (`{spec, model, actor_tools}`, no
    # secrets): a new run records it; a resume compares it with the pinned one and is refused
    # on another agent or model or a wider actor tool set (`prepare.agent_changes`) unless
    # `approve_agent_change`, which records the new one. None: nothing pinned or checked.
    agent_pin: dict | None = None
    approve_agent_change: bool = False


@dataclass
class RunOutcome:
    """RunOutcome: how a run settled, as `Run.result` delivers it (not the script-visible
    `RunResult` record of `world.run`)."""

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
        """The outcome as `--progress json` and the tool layer print it."""
        return {"run_id": self.run_id, "status": self.status, "value": self.value, "error": self.error,
                "stop_reason": self.stop_reason, "agents_started": self.agents_started,
                "usage": {"output_tokens": self.usage.get("output_tokens", 0)}, "reports": self.reports}


def control_dir_of(request: StartRequest) -> Path | None:
    """Where the control files of the request's run live (see `StartRequest.control_dir`)."""
    if request.control_dir is not None:
        return Path(request.control_dir)
    path = request.journal.path if request.journal is not None else None
    return StateDir.of_journal(path).runs if path is not None else None
