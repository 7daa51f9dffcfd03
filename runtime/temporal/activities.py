"""This module defines `DwfActivities`, the activities a worker runs for DWF runs: every effect of
a run, performed here with the same ports a local run uses over the worker's workspace.

- `dwf.ask`: one whole ask (`engine.ask.run_ask`: its turns, nudge and schema repairs) on the
  worker's agent port for the run, heartbeating while the agent works; a cancelled activity
  cancels the agent call in flight. An actor's question to the owner is signalled to the run
  (`escalate`) and its answer awaited through the `answer` query, heartbeating meanwhile.
- `dwf.read`, `dwf.command`: the run's `LocalWorld` (its approved commands and sandbox, built
  from the run's IR, which the worker queries once per run).
- `dwf.artifact`, `dwf.report`, `dwf.dashboard`: the workspace's `ArtifactStore`.
- `dwf.worktree`: an isolated actor's worktree in the workspace (`GitWorktrees`): `attach` (its
  result names this worker's own task queue, where the actor's later activities are routed),
  `snapshot` (`git.worktree(actor)`) and `finish`.

Script-level failures (`ScriptError`, `FatalError`, `WorktreeError`) are results
(`{"error": ...}`), never retried; an activity raises only when its worker cannot serve it. A
run that targets another repository than this worker's workspace (`repository_identity`) fails
with a non-retryable `WorkspaceMismatch`.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from pathlib import Path
from typing import Any

import jsonschema
from temporalio import activity
from temporalio.client import Client
from temporalio.exceptions import ApplicationError

from dwf.compiler import ir
from dwf.compiler.plan.commands import approved_arguments
from dwf.runtime.engine.ask import AskSession, run_ask
from dwf.runtime.ports.artifacts import ArtifactStore
from dwf.runtime.ports.factory import open_agent_port
from dwf.runtime.ports.protocols import ActorSpec, AgentPort, AskRequest, Usage
from dwf.runtime.ports.sandbox import Sandbox
from dwf.runtime.ports.world import LocalWorld
from dwf.runtime.ports.worktrees import GitWorktrees, Worktree, WorktreeError, repository_identity
from dwf.runtime.temporal import contract
from dwf.runtime.values.errors import FatalError, ScriptError
from dwf.runtime.values.records import Record, to_journal

MAX_RUNS_KEPT = 256  # per-run ports and worlds a worker keeps (the least recently used are dropped)


def _error(error: Exception) -> dict:
    if isinstance(error, FatalError):
        return {"error": {"type": error.code, "message": error.message, "fatal": True}}
    data = error.to_json()
    return {"error": {"type": data["type"], "message": data["message"], "details": data.get("details") or {}}}


class DwfActivities:
    """DwfActivities(client, workspace, agent, own_queue): the activities of one worker (module
    docstring). `agent` is the agent port spec (`--agent`); each run gets its own port, as a local
    run does. `own_queue` is the task queue only this worker polls."""

    def __init__(self, client: Client, workspace: Path, agent: str | None, own_queue: str, *,
                 model: str | None = None):
        self.client = client
        self.workspace = Path(workspace).resolve()
        self.identity = repository_identity(self.workspace)
        self.own_queue = own_queue
        self.agent, self.model = agent, model
        self.ports: dict[str, AgentPort] = {}
        self.worlds: dict[str, LocalWorld] = {}
        self.store = ArtifactStore(self.workspace)
        self.worktrees = GitWorktrees(self.workspace)

    def definitions(self) -> list:
        """The activity callables to register with a Worker."""
        return [self.ask, self.read, self.command, self.artifact, self.report, self.dashboard, self.worktree]

    def _payload(self, text: str) -> dict:
        """An activity's input, once the run is known to target this worker's repository."""
        data = contract.decode(text)
        wanted = data.get("workspace")
        if wanted is not None and wanted != self.identity:
            raise ApplicationError(f"run {data.get('run_id')} targets the repository `{wanted}`, but this worker's "
                                   f"workspace {self.workspace} is `{self.identity}`; start its workers with "
                                   "--workspace in a checkout of that repository, or submit it to another task queue",
                                   type=contract.WORKSPACE_MISMATCH, non_retryable=True)
        return data

    def _port(self, run_id: str, actor_tools: str | None) -> AgentPort:
        """The run's agent port, with the actor tool set the run was approved with."""
        port = self.ports.get(run_id)
        if port is None:
            problems: list[str] = []
            port = open_agent_port(self.agent, self.workspace, model=self.model, actor_tools=actor_tools,
                                   problems=problems)
            if port is None:
                raise RuntimeError("; ".join(problems))
            self.ports[run_id] = port
            while len(self.ports) > MAX_RUNS_KEPT:
                self.ports.pop(next(iter(self.ports)))
        return port

    async def _world(self, run_id: str) -> LocalWorld:
        world = self.worlds.get(run_id)
        if world is None:
            data = contract.decode(await self.client.get_workflow_handle(run_id).query(contract.QUERY_PROGRAM,
                                                                                       result_type=str))
            programs = [ir.from_json(data["program"]), *(ir.from_json(p) for p in data["called"].values())]
            world = LocalWorld(self.workspace, allowed_commands=frozenset(data["commands"]),
                               sandbox=Sandbox.from_environment(network=bool(programs[0].meta.get("network", False))),
                               approved_arguments=approved_arguments(programs))
            self.worlds[run_id] = world
            while len(self.worlds) > MAX_RUNS_KEPT:
                self.worlds.pop(next(iter(self.worlds)))
        return world

    @activity.defn(name=contract.ASK)
    async def ask(self, text: str) -> str:
        return contract.encode(await self._ask(self._payload(text)))

    async def _ask(self, data: dict) -> dict:
        actor = data["actor"]
        actor = ActorSpec(**{**actor, "tools": tuple(actor["tools"]) if actor.get("tools") is not None else None,
                             "workdir": str(self.workspace / actor["workdir"]) if actor.get("workdir") else None})
        request = AskRequest(data["run_id"], actor, data["site"], data["key"], data["instructions"], data["schema"],
                             data["label"], tuple(data["commands"]))
        validator = jsonschema.Draft202012Validator(data["schema"]) if data["schema"] is not None else None
        progress: list[str] = []
        messages: list[dict] = []
        session_box: list = []
        touched: list[bool] = []
        workflow_id = activity.info().workflow_id

        async def escalate(request: AskRequest, question: str, context: str | None, number: int) -> str:
            handle = self.client.get_workflow_handle(workflow_id)
            key = contract.escalation_key(request.site, request.key, number)
            await handle.signal(contract.SIGNAL_ESCALATE, {"site": request.site, "key": request.key, "number": number,
                                                            "actor_id": actor.actor_id, "actor": actor.name,
                                                            "question": question, "context": context})
            while True:
                answer = await handle.query(contract.QUERY_ANSWER, key)
                if answer is not None:
                    return answer
                await asyncio.sleep(contract.ESCALATION_POLL_S)

        def emit(event_type: str, **payload: Any) -> None:
            if event_type == "node-progress" and payload.get("message"):
                progress.append(payload["message"])

        usage = Usage()
        session = AskSession(request, validator, emit=emit, usage_sink=usage, escalate=escalate,
                             on_touched=lambda: touched.append(True), transcript=messages.append,
                             session=lambda session_id, model: session_box.append([session_id, model]))
        beat = asyncio.create_task(_heartbeat())
        try:
            value = await run_ask(self._port(data["run_id"], data.get("actor_tools")), request, session)
            result: dict = {"value": value}
        except (ScriptError, FatalError) as error:
            result = _error(error)
        except asyncio.CancelledError:  # the run was stopped: the agent call in flight ends here
            print(f"dwfc: worker: ask {request.key} of run {request.run_id} cancelled", file=sys.stderr, flush=True)
            raise
        finally:
            beat.cancel()
        return {**result, "usage": usage.to_json(), "progress": progress, "messages": messages,
                "session": session_box[-1] if session_box else None, "touched": bool(touched)}

    @activity.defn(name=contract.READ)
    async def read(self, text: str) -> str:
        return contract.encode(await self._read(self._payload(text)))

    async def _read(self, data: dict) -> dict:
        world = await self._world(data["run_id"])
        try:
            return {"value": to_journal(await world.read(data["op"], Record.from_journal(data["args"]), {}))}
        except (ScriptError, FatalError) as error:
            return _error(error)

    @activity.defn(name=contract.COMMAND)
    async def command(self, text: str) -> str:
        return contract.encode(await self._command(self._payload(text)))

    async def _command(self, data: dict) -> dict:
        world = await self._world(data["run_id"])
        try:
            return {"value": to_journal(await world.run(data["cmd"], data["args"], data["timeout_s"]))}
        except (ScriptError, FatalError) as error:
            return _error(error)

    @activity.defn(name=contract.ARTIFACT)
    async def artifact(self, text: str) -> str:
        return contract.encode(await self._artifact(self._payload(text)))

    async def _artifact(self, data: dict) -> dict:
        values = data["values"]
        options = {k: values.get(k) for k in ("title", "description")}
        try:
            if data["kind"] == "file":
                ref = await self.store.publish_file(data["run_id"], values["id"], values["path"],
                                                    primary=bool(values.get("primary")), **options)
            else:
                ref = await self.store.publish_markdown(data["run_id"], values["id"], values["content"],
                                                        primary=bool(values.get("primary")), **options)
        except (ScriptError, FatalError) as error:
            return _error(error)
        return {"value": to_journal(ref)}

    @activity.defn(name=contract.REPORT)
    async def report(self, text: str) -> str:
        return contract.encode(await self._report(self._payload(text)))

    async def _report(self, data: dict) -> dict:
        self.store.append_report(data["run_id"], data["site"], data["key"], data["item"], data["artifact"])
        return {}

    @activity.defn(name=contract.DASHBOARD)
    async def dashboard(self, text: str) -> str:
        return contract.encode(await self._dashboard(self._payload(text)))

    async def _dashboard(self, data: dict) -> dict:
        self.store.declare_dashboard(data["run_id"], data["id"], data["kind"], data["spec"])
        return {}

    @activity.defn(name=contract.WORKTREE)
    async def worktree(self, text: str) -> str:
        return contract.encode(await self._worktree(self._payload(text)))

    async def _worktree(self, data: dict) -> dict:
        known = data.get("known")
        try:
            if data["op"] == "attach":
                made = await self.worktrees.attach(data["run_id"], data["label"], data["key"], known)
                print(f"dwfc: worker: worktree of actor {made.actor} of run {data['run_id']} at {made.path}",
                      file=sys.stderr, flush=True)
                return {"value": made.to_json(self.workspace), "queue": self.own_queue}
            worktree = Worktree(known["actor"], known["key"], known["branch"], self.workspace / known["path"],
                                self.workspace / known["root"], known["base"])
            if data["op"] == "snapshot":
                return {"value": await self.worktrees.snapshot(worktree, data["run_id"])}
            return {"value": await self.worktrees.finish(worktree, data["run_id"])}
        except WorktreeError as error:
            return {"error": {"type": "WorktreeError", "message": str(error)}}
        except (ScriptError, FatalError) as error:
            return _error(error)


async def _heartbeat() -> None:
    """Heartbeat until cancelled: the server learns the worker is alive, and a cancel request of
    the run reaches this activity (the SDK then cancels the task running the agent call)."""
    with contextlib.suppress(asyncio.CancelledError):
        while True:
            activity.heartbeat()
            await asyncio.sleep(contract.HEARTBEAT_S)
