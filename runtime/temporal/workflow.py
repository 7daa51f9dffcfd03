"""This module defines `DwfRunWorkflow`, the Temporal workflow that runs one DWF run: the
engine's own `Run` and `RunHost` (so caps, the budget, actor turns, joins, failures and
cancellation are the local engine's), over an in-memory journal, with a host whose effects are
Temporal activities (`TemporalRunHost`): ask, world read, command, artifact, report and
dashboard, each with the effect's occurrence key as its activity id. Saved workflows called
inline run in the same workflow; their effects are activities keyed under the call.

Determinism. The interpreter runs the analyzed IR (`contract.run_input`), never script text,
and the compiler proved the script deterministic; the engine has no clock and no randomness.
The workflow runs in Temporal's sandbox with the dwf modules (and the libraries they use) passed
through: they hold no state between runs and do no I/O here (the journal is a `MemoryJournal`).

Signals: `cancel(reason)` stops the run as `stopped(reason)`; `escalate` (from an ask activity
whose actor asked the owner) raises the escalation through the engine; `answer` (from
`dwfc answer`) answers it. Queries: `events(after)`, `nodes()`, `inputs(keys)`, `program()`,
`answer(key)`, `state()`.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    import anyio
    import anyio._backends._asyncio  # noqa: F401 (loaded on first use otherwise, inside the sandbox)

    from dwf.compiler import ir
    from dwf.runtime.engine.caps import Ceilings
    from dwf.runtime.engine.engine import Run
    from dwf.runtime.engine.prepare import PreparedRun
    from dwf.runtime.engine.request import StartRequest
    from dwf.runtime.engine.run_host import RunHost
    from dwf.runtime.journal.memory import MemoryJournal
    from dwf.runtime.ports.protocols import ActorSpec, AskRequest, Usage
    from dwf.runtime.temporal import contract
    from dwf.runtime.values.errors import FatalError, ScriptError
    from dwf.runtime.values.records import Record, to_journal

# Script-level failures come back as data; an activity that raises hit a port or worker bug.
# Retried without limit: an attempt ends without a result only when its worker died or hung (a
# port error is a result); the next attempt runs on whichever worker is alive.
WORKER_RETRY = RetryPolicy(maximum_attempts=0, initial_interval=timedelta(seconds=1), backoff_coefficient=1.0)


def _outcome(result: dict) -> Any:
    """The value an activity returned, or its script error raised again."""
    if "error" in result:
        error = result["error"]
        if error.get("fatal"):
            raise FatalError(error["type"], error["message"])
        raise ScriptError(error["type"], error["message"], details=error.get("details"))
    return Record.from_journal(result.get("value"))


async def _settled(handle) -> str:
    """The result of an activity, awaited so that the engine can cancel it. A cancelled activity
    handle ends only once the server confirmed, in a later activation; anyio's cancel scope would
    re-deliver the cancellation in a busy loop meanwhile, which never yields (Temporal's deadlock
    detector). So the run awaits a shield, which is cancelled at once, and asks the server to cancel
    the activity; the worker learns it at the ask's next heartbeat and stops the agent call."""
    try:
        return await asyncio.shield(handle)
    except asyncio.CancelledError:
        handle.cancel()
        raise


async def _activity(name: str, key: str, payload: dict, *, timeout, heartbeat=None) -> Any:
    try:
        result = await _settled(workflow.start_activity(name, contract.encode(payload), activity_id=key,
                                                        start_to_close_timeout=timeout, heartbeat_timeout=heartbeat,
                                                        retry_policy=WORKER_RETRY, result_type=str))
    except ActivityError as error:
        cause = error.cause
        message = cause.message if isinstance(cause, ApplicationError) else str(cause or error)
        raise FatalError("InternalError", f"{key}: {message}") from None
    return _outcome(contract.decode(result))


class ActivityAgentPort:
    """The workflow's agent port: one ask (all its turns, repairs and escalations) is one `dwf.ask`
    activity; its accepted value, usage and transcript are handed to the engine's ask session as
    if the port had produced them here."""

    async def run_turn(self, request: AskRequest, message: str, channel) -> str:
        payload = {"run_id": request.run_id, "actor": _actor_json(request.actor), "site": request.site, "key": request.key,
                   "instructions": request.instructions, "schema": request.schema, "label": request.label,
                   "commands": list(request.commands)}
        try:
            result = contract.decode(await _settled(workflow.start_activity(
                contract.ASK, contract.encode(payload), activity_id=request.key,
                start_to_close_timeout=contract.ASK_TIMEOUT, heartbeat_timeout=contract.HEARTBEAT_TIMEOUT,
                retry_policy=WORKER_RETRY, result_type=str)))
        except ActivityError as error:
            cause = error.cause
            message = cause.message if isinstance(cause, ApplicationError) else str(cause or error)
            raise FatalError("InternalError", f"{request.key}: {message}") from None
        for text in result.get("progress", ()):
            channel.progress(text)
        for item in result.get("messages", ()):
            channel.transcript(item)
        if result.get("session"):
            channel.session(*result["session"])
        if result.get("touched"):
            channel.touched_world()
        channel.usage(Usage.from_json(result.get("usage")))
        if "error" in result:
            _outcome(result)
        value = result.get("value")
        if request.schema is not None:
            await channel.submit(value)
            return ""
        return value

    async def close(self) -> None:
        pass


def _actor_json(actor: ActorSpec) -> dict:
    return {"actor_id": actor.actor_id, "name": actor.name, "system": actor.system, "model": actor.model,
            "agent_type": actor.agent_type}


class ActivityArtifacts:
    """The workflow's artifact port for what the engine calls without an occurrence key: reports
    and dashboards start their activity at once and the run waits for them before it ends."""

    def __init__(self) -> None:
        self.pending: list = []

    def append_report(self, run_id: str, site: str, key: str, item: Any, artifact: str | None) -> None:
        self.pending.append(workflow.start_activity(
            contract.REPORT, contract.encode({"run_id": run_id, "site": site, "key": key, "item": item,
                                              "artifact": artifact}),
            activity_id=key, start_to_close_timeout=contract.WORLD_TIMEOUT, retry_policy=WORKER_RETRY))

    def declare(self, run_id: str, key: str, artifact_id: Any, kind: str, spec: Any) -> None:
        self.pending.append(workflow.start_activity(
            contract.DASHBOARD, contract.encode({"run_id": run_id, "id": artifact_id, "kind": kind, "spec": spec}),
            activity_id=key, start_to_close_timeout=contract.WORLD_TIMEOUT, retry_policy=WORKER_RETRY))


class SignalQuestions:
    """The workflow's question port: a question waits for the `answer` signal naming its id."""

    def __init__(self) -> None:
        self.open: dict[str, dict] = {}  # question id -> what `dwfc show` lists
        self.given: dict[str, str] = {}

    async def ask_owner(self, question_id: str, actor: ActorSpec, question: str, context: str | None, *,
                        posted=None) -> str:
        self.open[question_id] = {"id": question_id, "actor": actor.name, "question": question, "context": context}
        if posted is not None:
            posted()
        await workflow.wait_condition(lambda: question_id in self.given)
        self.open.pop(question_id, None)
        return self.given[question_id]


class TemporalRunHost(RunHost):
    """RunHost whose world reads, commands, artifacts, reports and dashboards are activities keyed
    by the effect's occurrence key (asks go through `ActivityAgentPort`). World reads, which the
    run's concurrency cap does not cover, are held to `READS_IN_FLIGHT` pending activities: Temporal
    refuses more than 2,000 pending activities per workflow, and a fan-out may have 4,096 items."""

    READS_IN_FLIGHT = 1000

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.read_slots = anyio.CapacityLimiter(self.READS_IN_FLIGHT)

    async def world_read(self, site: str, key: str, op: str, arguments: list) -> Any:
        async def execute(started):
            async with self.read_slots:
                await started()
                return await _activity(contract.READ, key, {"run_id": self.id, "op": op,
                                                            "args": to_journal(arguments)},
                                       timeout=contract.WORLD_TIMEOUT)

        return await self._effect(site, key, "read", None, {"op": op, "args": arguments}, execute)

    async def world_run(self, site: str, key: str, cmd: str, arguments: list[str], timeout_s: float) -> Any:
        if cmd not in self.commands:
            raise FatalError("CommandNotApproved", f"`{cmd}` is not in the approved command set")

        async def execute(started):
            await started()
            return await _activity(contract.COMMAND, key, {"run_id": self.id, "cmd": cmd, "args": list(arguments),
                                                           "timeout_s": timeout_s},
                                   timeout=contract.WORLD_TIMEOUT)

        return await self._effect(site, key, "run", None, {"op": "world.run", "cmd": cmd, "args": arguments},
                                  execute, {"command": cmd})

    async def publish_artifact(self, site: str, key: str, kind: str, values: dict) -> Any:
        async def execute(started):
            await started()
            ref = await _activity(contract.ARTIFACT, key, {"run_id": self.id, "kind": kind, "values": values},
                                  timeout=contract.WORLD_TIMEOUT)
            self.events.emit("artifact-published", site=site, key=key, id=values["id"], kind=kind, ref=ref.to_json())
            return ref

        return await self._effect(site, key, "artifact", None, {"op": kind, **values}, execute)

    def declare_artifact(self, site: str, key: str, kind: str, artifact_id: Any, spec: Any) -> None:
        self.artifacts.declare(self.id, key, artifact_id, kind, spec)
        self.events.emit("artifact-published", site=site, key=key, id=artifact_id, kind=kind, ref=None)


class TemporalRun(Run):
    host_type = TemporalRunHost


def prepared_from_input(data: dict) -> PreparedRun:
    """The `PreparedRun` a workflow input describes (the IR read back, nothing compiled)."""
    program = ir.from_json({**data["program"], "path": data.get("path", "<script>")})
    called = {name: ir.from_json(item) for name, item in data.get("called", {}).items()}
    return PreparedRun("\n".join(data.get("source_lines", ())), data.get("path", "<script>"), None, program, called,
                       args=dict(data.get("args") or {}), given=tuple(data.get("given", ())),
                       commands=frozenset(data.get("commands", ())))


@workflow.defn(name=contract.WORKFLOW)
class DwfRunWorkflow:
    """DwfRunWorkflow: one DWF run (module docstring)."""

    def __init__(self) -> None:
        self.run: TemporalRun | None = None
        self.journal = MemoryJournal()
        self.questions = SignalQuestions()
        self.answers: dict[str, str] = {}  # escalation key -> the owner's answer, for the asking activity
        self.cancel_reason: str | None = None
        self.input: dict = {}

    @workflow.run
    async def run(self, text: str) -> str:
        data = self.input = contract.decode(text)
        prepared = prepared_from_input(data)
        artifacts = ActivityArtifacts()
        request = StartRequest(agent_port=ActivityAgentPort(), prepared=prepared, artifacts=artifacts,
                               questions=self.questions, journal=self.journal,
                               run_id=data["run_id"], max_concurrency=data.get("max_concurrency"),
                               budget=data.get("budget"), agent_pin=data.get("agent_pin") or None,
                               ceilings=Ceilings(**data["ceilings"]) if data.get("ceilings") else Ceilings())
        async with anyio.create_task_group() as group:
            self.run = TemporalRun(request, prepared, None, spawn=group.start_soon)
            if self.cancel_reason is not None:
                self.run.cancel(self.cancel_reason)
            group.start_soon(self.run.main)
            outcome = await self.run.result
        for handle in artifacts.pending:  # reports and dashboards reach the store before the run ends
            try:
                await handle
            except ActivityError:
                pass
        return contract.encode({**outcome.to_json(), "traceback": outcome.traceback, "usage": outcome.usage})

    @workflow.signal(name=contract.SIGNAL_CANCEL)
    def cancel(self, reason: str) -> None:
        self.cancel_reason = reason or "user"
        if self.run is not None:
            self.run.cancel(self.cancel_reason)

    @workflow.signal(name=contract.SIGNAL_ANSWER)
    def answer(self, data: dict) -> None:
        self.questions.given.setdefault(data["id"], data["text"])

    @workflow.signal(name=contract.SIGNAL_ESCALATE)
    async def escalate(self, data: dict) -> None:
        key = contract.escalation_key(data["site"], data["key"], data["number"])
        if key in self.answers or self.run is None:
            return
        self.answers[key] = None  # asked: a retried activity asking again waits for the same answer
        host = self.run.host
        spec = host.actors.get(data["actor_id"]) or ActorSpec(data["actor_id"], data.get("actor"), None, None, None)
        request = AskRequest(host.id, spec, data["site"], data["key"], "", None, None)
        self.answers[key] = await host.escalate(request, data["question"], data.get("context"), data["number"])

    @workflow.query(name=contract.QUERY_ANSWER)
    def answer_for(self, key: str) -> str | None:
        return self.answers.get(key)

    @workflow.query(name=contract.QUERY_EVENTS)
    def events(self, after: int) -> str:
        return contract.encode(self.journal.events(self.run.id, after=after) if self.run is not None else [])

    @workflow.query(name=contract.QUERY_NODES)
    def nodes(self) -> list:
        if self.run is None:
            return []
        return [{"site": n.site, "key": n.key, "kind": n.kind, "input_hash": n.input_hash, "status": n.status}
                for n in self.journal.list_nodes(self.run.id, with_input=False)]

    @workflow.query(name=contract.QUERY_INPUTS)
    def inputs(self, keys: list) -> str:
        wanted = set(keys)
        return contract.encode({n.key: n.input for n in self.journal.list_nodes(self.run.id, with_input=True)
                                if n.key in wanted} if self.run is not None else {})

    @workflow.query(name=contract.QUERY_PROGRAM)
    def program(self) -> str:
        return contract.encode({name: self.input.get(name) for name in ("run_id", "path", "program", "called",
                                                                         "commands")})

    @workflow.query(name=contract.QUERY_STATE)
    def state(self) -> dict:
        run = self.run
        row = self.journal.get_run(run.id) if run is not None else None
        return {"run_id": self.input.get("run_id"), "status": row.status if row else "starting",
                "stop_reason": row.stop_reason if row else None, "meta": row.meta if row else None,
                "usage": run.host.usage.to_json() if run else {}, "questions": list(self.questions.open.values()),
                "agents_started": len(run.host.actors_started) if run else 0}
