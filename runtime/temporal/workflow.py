"""This module defines `DwfRunWorkflow`, the Temporal workflow that runs one DWF run: the
engine's own `Run` and `RunHost` (so caps, the budget, actor turns, joins, failures and
cancellation are the local engine's), over an in-memory journal, with a host whose effects are
Temporal activities (`TemporalRunHost`): ask, world read, command, artifact, report and
dashboard, each with the effect's occurrence key as its activity id. Saved workflows called
inline run in the same workflow; their effects are activities keyed under the call. Isolated
actors' worktrees, and all of such an actor's activities, are on the worker that made the
worktree (`ActivityWorktrees`). A run the engine refuses at start fails the workflow with a
non-retryable `StartError` carrying the problems.

Determinism. The interpreter runs the analyzed IR (`contract.run_input`), never script text,
and the compiler proved the script deterministic; the engine has no clock and no randomness.
The workflow runs in Temporal's sandbox with the dwf modules (and the libraries they use) passed
through: they hold no state between runs and do no I/O here (the journal is a `MemoryJournal`).

Signals: `cancel(reason)` stops the run as `stopped(reason)`; `escalate` (from an ask activity
whose actor asked the owner) raises the escalation through the engine; `answer` (from
`dwfc answer`) answers it. Queries: `events(after)`, `nodes()`, `inputs(keys)`, `program()`,
`answer(key)`, `state()`, `show()` (what `dwfc show` prints).
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError, TimeoutType
from temporalio.exceptions import TimeoutError as ActivityTimeout

with workflow.unsafe.imports_passed_through():
    import anyio
    import anyio._backends._asyncio  # noqa: F401 (loaded on first use otherwise, inside the sandbox)

    from dwf.compiler import ir
    from dwf.runtime.engine.caps import Ceilings
    from dwf.runtime.engine.engine import Run
    from dwf.runtime.engine.prepare import PreparedRun
    from dwf.runtime.engine.request import StartError, StartRequest
    from dwf.runtime.engine.run_host import RunHost
    from dwf.runtime.host.run_views import snapshot
    from dwf.runtime.journal.memory import MemoryJournal
    from dwf.runtime.ports.protocols import ActorSpec, AskRequest, Usage
    from dwf.runtime.ports.worktrees import Worktree, WorktreeError
    from dwf.runtime.temporal import contract
    from dwf.runtime.values.errors import FatalError, ScriptError
    from dwf.runtime.values.records import Record, to_journal

# Script-level failures come back as data; an activity that raises hit a port or worker bug.
# Retried without limit: an attempt ends without a result only when its worker died or hung (a
# port error is a result); the next attempt runs on whichever worker is alive.
WORKER_RETRY = RetryPolicy(maximum_attempts=0, initial_interval=timedelta(seconds=1), backoff_coefficient=1.0)
# Inside the workflow a worktree's paths are relative to the workspace, written under this root:
# each worker resolves them against its own workspace (`--workspace`), wherever that is.
WORKSPACE_ROOT = Path("/")


class WorkerGone(Exception):
    """An activity routed to one worker's own task queue was not started within
    `contract.AFFINITY_START_TIMEOUT`: that worker is gone (`ActivityWorktrees` takes over)."""


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


def _start(name: str, key: str, payload: dict, *, timeout, heartbeat=None, queue: str | None = None):
    """Start one activity (id: the effect's occurrence key) with the run's workspace identity in
    its payload, which the worker checks. `queue`: one worker's own task queue (else the run's)."""
    payload = {**payload, "workspace": workflow.instance().input.get("workspace")}
    return workflow.start_activity(name, contract.encode(payload), activity_id=key, task_queue=queue,
                                   start_to_close_timeout=timeout, heartbeat_timeout=heartbeat,
                                   schedule_to_start_timeout=contract.affinity_start_timeout(workflow.instance().input)
                                   if queue else None,
                                   retry_policy=WORKER_RETRY, result_type=str)


async def _call(name: str, key: str, payload: dict, *, timeout, heartbeat=None, queue: str | None = None) -> dict:
    """Run one activity to its result (decoded, errors still in it)."""
    try:
        return contract.decode(await _settled(_start(name, key, payload, timeout=timeout, heartbeat=heartbeat,
                                                     queue=queue)))
    except ActivityError as error:
        cause = error.cause
        if isinstance(cause, ActivityTimeout) and cause.type == TimeoutType.SCHEDULE_TO_START:
            raise WorkerGone(queue) from None
        if isinstance(cause, ApplicationError) and cause.type == contract.WORKSPACE_MISMATCH:
            raise FatalError(contract.WORKSPACE_MISMATCH, cause.message) from None
        message = cause.message if isinstance(cause, ApplicationError) else str(cause or error)
        raise FatalError("InternalError", f"{key}: {message}") from None


async def _activity(name: str, key: str, payload: dict, *, timeout) -> Any:
    return _outcome(await _call(name, key, payload, timeout=timeout))


class ActivityWorktrees:
    """The workflow's worktrees of isolated actors, in place of `ports.worktrees.GitWorktrees`
    (same `attach`, `snapshot`, `finish`). An actor's worktree is made by whichever worker takes
    its `attach` from the run's task queue; the result names that worker's own task queue, so it
    is in the history and a replay routes alike. Every later activity of the actor (its asks,
    `git.worktree` snapshots, the removal at the end) goes to that queue (`call`).

    A worker that is gone (an activity there not started within `contract.AFFINITY_START_TIMEOUT`)
    hands the worktree over: another worker attaches it again from its journaled branch, as a
    local resume does (in a repository the workers share, it finds the folder and the branch as
    they were), the run logs it, and the activity runs there. A worker whose repository lacks the
    branch fails the run with WorktreeError, which names it."""

    workspace = WORKSPACE_ROOT

    def __init__(self, notice) -> None:
        self.notice = notice  # notice(message): a log line of the run
        self.owners: dict[str, str] = {}  # actor key -> the own task queue of the worker holding its worktree
        self.known: dict[str, dict] = {}  # actor key -> the worktree (`Worktree.to_json`), workspace-relative
        # (actor key, operation) -> how many so far: the activity ids `<actor key>|<operation>|<n>`
        self.counts: dict[tuple[str, str], int] = {}

    def _activity_id(self, key: str, operation: str) -> str:
        number = self.counts[key, operation] = self.counts.get((key, operation), 0) + 1
        return f"{key}|{operation}|{number}"

    async def attach(self, run_id: str, actor_label: str, key: str, known: dict | None = None) -> Worktree:
        result = await _call(contract.WORKTREE, self._activity_id(key, "attach"),
                             {"run_id": run_id, "op": "attach", "label": actor_label, "key": key,
                              "known": known or self.known.get(key)}, timeout=contract.WORLD_TIMEOUT)
        self._raise(result)
        self.owners[key], self.known[key] = result["queue"], result["value"]
        return self.worktree(result["value"])

    def worktree(self, data: dict) -> Worktree:
        return Worktree(data["actor"], data["key"], data["branch"], WORKSPACE_ROOT / data["path"],
                        WORKSPACE_ROOT / data["root"], data["base"])

    async def call(self, run_id: str, key: str, name: str, activity_id: str, payload: dict, *, timeout,
                   heartbeat=None) -> dict:
        """Run an activity of actor `key` on the worker that holds its worktree (class docstring)."""
        while True:
            try:
                return await _call(name, activity_id, payload, timeout=timeout, heartbeat=heartbeat,
                                   queue=self.owners[key])
            except WorkerGone as gone:
                known = self.known[key]
                self.notice(f"the worker holding the worktree of actor {known['actor']} ({gone}) is gone; "
                            f"another worker takes it over from its branch {known['branch']}")
                try:
                    await self.attach(run_id, known["actor"], key, known)
                except WorktreeError as error:
                    raise WorktreeError(f"{error} (its worker {gone} is gone; isolated actors outlive a worker only "
                                        "when the workers share the repository)") from None

    async def snapshot(self, worktree: Worktree, run_id: str) -> dict:
        return await self._on_owner(worktree, run_id, "snapshot")

    async def finish(self, worktree: Worktree, run_id: str) -> dict:
        return await self._on_owner(worktree, run_id, "finish")

    async def _on_owner(self, worktree: Worktree, run_id: str, operation: str) -> dict:
        result = await self.call(run_id, worktree.key, contract.WORKTREE, self._activity_id(worktree.key, operation),
                                 {"run_id": run_id, "op": operation, "known": self.known[worktree.key]},
                                 timeout=contract.WORLD_TIMEOUT)
        return self._raise(result)["value"]

    @staticmethod
    def _raise(result: dict) -> dict:
        if result.get("error", {}).get("type") == "WorktreeError":
            raise WorktreeError(result["error"]["message"])
        if "error" in result:
            _outcome(result)
        return result


class ActivityAgentPort:
    """The workflow's agent port: one ask (all its turns, repairs and escalations) is one `dwf.ask`
    activity; its accepted value, usage and transcript are handed to the engine's ask session as
    if the port had produced them here. An isolated actor's ask runs on the worker holding its
    worktree (`ActivityWorktrees.call`)."""

    def __init__(self, worktrees: ActivityWorktrees) -> None:
        self.worktrees = worktrees

    async def run_turn(self, request: AskRequest, message: str, channel) -> str:
        payload = {"run_id": request.run_id, "actor": _actor_json(request.actor), "site": request.site, "key": request.key,
                   "instructions": request.instructions, "schema": request.schema, "label": request.label,
                   "commands": list(request.commands), "actor_tools": workflow.instance().input.get("actor_tools")}
        options = {"timeout": contract.ASK_TIMEOUT, "heartbeat": contract.HEARTBEAT_TIMEOUT}
        if request.actor.workdir is not None:
            result = await self.worktrees.call(request.run_id, request.actor.actor_id, contract.ASK, request.key,
                                               payload, **options)
        else:
            result = await _call(contract.ASK, request.key, payload, **options)
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
    """The actor as the worker rebuilds it: its tools, and its worktree's folder relative to the
    workspace (`workdir`, resolved on the worker)."""
    workdir = str(Path(actor.workdir).relative_to(WORKSPACE_ROOT)) if actor.workdir is not None else None
    return {"actor_id": actor.actor_id, "name": actor.name, "system": actor.system, "model": actor.model,
            "agent_type": actor.agent_type, "isolation": actor.isolation,
            "tools": list(actor.tools) if actor.tools is not None else None, "workdir": workdir}


class ActivityArtifacts:
    """The workflow's artifact port for what the engine calls without an occurrence key: reports
    and dashboards start their activity at once and the run waits for them before it ends."""

    def __init__(self) -> None:
        self.pending: list = []

    def append_report(self, run_id: str, site: str, key: str, item: Any, artifact: str | None) -> None:
        self.pending.append(_start(contract.REPORT, key, {"run_id": run_id, "site": site, "key": key, "item": item,
                                                          "artifact": artifact}, timeout=contract.WORLD_TIMEOUT))

    def declare(self, run_id: str, key: str, artifact_id: Any, kind: str, spec: Any) -> None:
        self.pending.append(_start(contract.DASHBOARD, key, {"run_id": run_id, "id": artifact_id, "kind": kind,
                                                             "spec": spec}, timeout=contract.WORLD_TIMEOUT))


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
        artifacts = ActivityArtifacts()
        worktrees = ActivityWorktrees(self._notice)
        group: list = []  # the task group the run spawns into, once it exists
        try:
            prepared = prepared_from_input(data)
            request = StartRequest(agent_port=ActivityAgentPort(worktrees), prepared=prepared,
                                   artifacts=artifacts, questions=self.questions, worktrees=worktrees,
                                   journal=self.journal, run_id=data["run_id"],
                                   max_concurrency=data.get("max_concurrency"), budget=data.get("budget"),
                                   agent_pin=data.get("agent_pin") or None,
                                   ceilings=Ceilings(**data["ceilings"]) if data.get("ceilings") else Ceilings())
            self.run = TemporalRun(request, prepared, None, spawn=lambda *args: group[0].start_soon(*args))
        except StartError as error:
            # refused as a local start is (`dwfc run` prints the same problems); failing the
            # workflow task instead would retry it for ever
            raise ApplicationError("; ".join(error.problems), error.problems, type=contract.START_REFUSED,
                                   non_retryable=True) from None
        except Exception as error:  # an input this worker cannot read: the same, as an internal error
            raise ApplicationError(f"InternalError: the run could not start: {type(error).__name__}: {error}",
                                   type="InternalError", non_retryable=True) from None
        async with anyio.create_task_group() as task_group:
            group.append(task_group)
            if self.cancel_reason is not None:
                self.run.cancel(self.cancel_reason)
            task_group.start_soon(self.run.main)
            outcome = await self.run.result
        for handle in artifacts.pending:  # reports and dashboards reach the store before the run ends
            try:
                await handle
            except ActivityError:
                pass
        return contract.encode({**outcome.to_json(), "traceback": outcome.traceback, "usage": outcome.usage})

    def _notice(self, message: str) -> None:
        if self.run is not None:
            self.run.host.events.emit("log", message=message, phase=self.run.host.phase)

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

    @workflow.query(name=contract.QUERY_SHOW)
    def show(self) -> str:
        """What `dwfc show` prints of a local run (`run_views.snapshot`), from this run's journal."""
        row = self.journal.get_run(self.run.id) if self.run is not None else None
        return contract.encode(snapshot(self.journal, row) if row is not None else None)

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
