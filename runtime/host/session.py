"""This module defines `WorkspaceSession`, the one assembly of a run over a workspace, which
`dwfc run`/`resume`/`amend`, the tool layer and the MCP server share.

A session opens the workspace's journal (`.dwf/state.db`, reconciled: runs left `running` by a
dead process are marked `stopped(interrupted)`), prepares runs (`prepare`: the script and the
saved workflows it calls compile once, through the workspace's compile cache, `.dwf/cache/`;
`host/saved.resolve_called` finds those), opens agent
ports (`ports/factory.py`), and starts, resumes and amends prepared runs on an `Engine` with a
`LocalWorld` held to the run's approved command set, an `ArtifactStore` and a question port of
the caller's choice (by default the files `dwfc answer` and ResolveWorkflowQuestion write).
"""

from __future__ import annotations

import copy
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from dwf.runtime.engine import (Ceilings, Engine, PreparedRun, Run, StartRequest, pinned_agent, prepare,
                                prepare_resume)
from dwf.runtime.engine.compile_cache import CompileCache
from dwf.runtime.engine.events import Listener
from dwf.compiler.plan.commands import approved_arguments
from dwf.runtime.host.amend import amend, inherited_caps
from dwf.runtime.host.approval import run_sandbox, workspace_identity
from dwf.runtime.host.saved import resolve_called
from dwf.runtime.journal import control
from dwf.runtime.journal.sqlite import SqliteJournal
from dwf.runtime.journal.store import JournalError, RunRow
from dwf.runtime.ports.artifacts import ArtifactStore
from dwf.runtime.ports.factory import agent_pin, open_agent_port
from dwf.runtime.ports.protocols import AgentPort, QuestionPort
from dwf.runtime.ports.questions import FileQuestions
from dwf.runtime.ports.world import LocalWorld
from dwf.runtime.statedir import StateDir

QuestionsFor = Callable[[str], QuestionPort]  # run id -> the question port of that run


def new_run_id() -> str:
    """A fresh run id (`dwfrun-` and 32 hex digits)."""
    return f"dwfrun-{uuid.uuid4().hex}"


class WorkspaceSession:
    """WorkspaceSession: runs over one workspace with one agent spec (module docstring), each
    held to the host's `ceilings`. `open()` (or `with session.opened()`) opens the journal;
    `close()` closes it."""

    def __init__(self, workspace: str | Path, *, agent: str | None = None, model: str | None = None,
                 actor_tools: str | None = None, ceilings: Ceilings | None = None):
        self.workspace = Path(workspace)
        self.root = self.workspace.resolve()
        self.agent, self.model, self.actor_tools = agent, model, actor_tools
        self.ceilings = ceilings or Ceilings()
        self.state = StateDir(self.root)
        self.cache = CompileCache.of_workspace(self.root)  # scripts and the workflows they call
        self.control = self.state.runs
        self.journal: SqliteJournal | None = None

    # ------------------------------------------------------------ the journal

    def has_journal(self) -> bool:
        """Whether the workspace has run anything yet (its journal file exists)."""
        return self.state.journal.exists()

    def open(self) -> SqliteJournal:
        """Open and reconcile the workspace's journal; `JournalError` says why it cannot."""
        journal = SqliteJournal.for_workspace(self.root)
        try:
            control.reconcile(journal, self.control)
        except JournalError:
            journal.close()
            raise
        self.journal = journal
        return journal

    def close(self) -> None:
        """Close the journal (idempotent)."""
        if self.journal is not None:
            self.journal.close()
            self.journal = None

    @contextmanager
    def opened(self) -> Iterator[SqliteJournal]:
        """The journal, open for the `with` block."""
        journal = self.open()
        try:
            yield journal
        finally:
            self.close()

    def reconcile(self) -> None:
        """Mark runs left `running` by a dead process `stopped(interrupted)`."""
        control.reconcile(self.journal, self.control)

    # ------------------------------------------------------------ preparing

    def prepare(self, script: str | bytes, path: str, args: dict | None, *, given: tuple[str, ...] | None = None,
                approved: frozenset[str] | None = None) -> PreparedRun:
        """Prepare a new run of `script` (see `engine.prepare`); the saved workflows it calls are
        looked up in this workspace (not at all when the workspace is not a folder: that is a
        problem of its own)."""
        def find_called(program):
            return resolve_called(program, self.root) if self.root.is_dir() else None

        return prepare(script, path, args, find_called, given=given, approved=approved, cache=self.cache)

    def prepare_resume(self, row: RunRow) -> PreparedRun:
        """Prepare the resume of the stopped run `row` (see `engine.prepare_resume`)."""
        return prepare_resume(row, f"<run {row.id}>", self.cache)

    def open_port(self, problems: list[str], *, model: str | None = None) -> AgentPort | None:
        """A fresh agent port of the session's agent spec (with `model`, else the session's), or
        None with the reasons in `problems`."""
        return open_agent_port(self.agent, self.root, model=model or self.model, actor_tools=self.actor_tools,
                               problems=problems)

    def resume_model(self, row: RunRow) -> str | None:
        """The model a resume of `row` runs with: the one it ran with (or `dwfc set` recorded), else
        the session's."""
        return pinned_agent(row).get("model") or (row.caps or {}).get("model") or self.model

    def use_pinned_agent(self, row: RunRow) -> None:
        """A resume of `row` runs with its pinned agent port spec and actor tool set where the
        session gives none (a run journaled before pins keeps the session's)."""
        pinned = pinned_agent(row)
        self.agent = self.agent or pinned.get("spec")
        self.actor_tools = self.actor_tools or pinned.get("actor_tools")

    def resuming(self, row: RunRow) -> WorkspaceSession:
        """A session like this one, over the same journal, that resumes `row` with its pinned agent
        where this one gives none (this session is left as it is, for the other runs it serves)."""
        session = copy.copy(self)
        session.use_pinned_agent(row)
        return session

    def pin_of(self, port: AgentPort) -> dict:
        """What a run started with `port` from this session pins (`ports.factory.agent_pin`)."""
        return agent_pin(self.agent, port)

    def amend_caps(self, row: RunRow, given: dict) -> dict:
        """The caps and model an amend of `row` runs with (`host/amend.inherited_caps`); without
        one, the model is the session's."""
        caps = inherited_caps(row, given)
        caps["model"] = caps.get("model") or self.model
        return caps

    # ------------------------------------------------------------ starting

    def request(self, prepared: PreparedRun, port: AgentPort, run_id: str, *, questions: QuestionsFor | None = None,
                listeners: list[Listener] | None = None, max_concurrency: int | None = None,
                budget: int | None = None, model: str | None = None,
                approve_agent_change: bool = False) -> StartRequest:
        """The start request of a prepared run (`model`: the one its port was opened with, else
        the session's): the world may run exactly its approved commands; the run pins its agent
        port (a resume with another one needs `approve_agent_change`)."""
        return StartRequest(agent_port=port, prepared=prepared, journal=self.journal, run_id=run_id,
                            control_dir=self.control, listeners=list(listeners or []), max_concurrency=max_concurrency,
                            budget=budget, ceilings=self.ceilings, model=model or self.model,
                            agent_pin=self.pin_of(port), approve_agent_change=approve_agent_change,
                            **self._ports(prepared, run_id, questions))

    def start(self, engine: Engine, prepared: PreparedRun, port: AgentPort, *, run_id: str | None = None,
              **options) -> Run:
        """Start (or, for a `prepare_resume`, resume) a prepared run on `engine`; `options` are
        those of `request`. Raises `StartError` when the engine refuses it."""
        run_id = prepared.stored.id if prepared.stored is not None else run_id or new_run_id()
        return engine.start(self.request(prepared, port, run_id, **options))

    async def amend(self, engine: Engine, row: RunRow, prepared: PreparedRun, port: AgentPort, *,
                    questions: QuestionsFor | None = None, listeners: list[Listener] | None = None,
                    caps: dict | None = None) -> Run:
        """Amend run `row` with a prepared script (see `host/amend.py`); `caps` are those of
        `amend_caps` (the port was opened with its model). Raises `StartError`."""
        new_id = new_run_id()
        caps = self.amend_caps(row, {}) if caps is None else caps
        return await amend(engine, row.id, prepared, journal=self.journal, agent_port=port, control_dir=self.control,
                           listeners=list(listeners or []), new_id=new_id, ceilings=self.ceilings,
                           agent_pin=self.pin_of(port), **caps,
                           **self._ports(prepared, new_id, questions))

    def _ports(self, prepared: PreparedRun, run_id: str, questions: QuestionsFor | None) -> dict:
        """The world, artifact store and question port of one run, and the workspace identity it records."""
        return {"workspace": workspace_identity(self.root),
                "world": LocalWorld(self.root, allowed_commands=prepared.commands, sandbox=run_sandbox(prepared),
                                    approved_arguments=approved_arguments([prepared.program, *prepared.called.values()])),
                "artifacts": ArtifactStore(self.root),
                "questions": questions(run_id) if questions else FileQuestions(self.root, run_id)}
