"""This module defines `RunHost`, the effect host the interpreter of one run calls (RUNTIME §2-§4):
actors, phases and logs, asks, world reads and commands, reports, artifacts, saved workflows
called inline and escalations.

Every effect goes through `_effect`: a resumed run's settled rows (loaded once) are consulted
first (a completed or failed row with the same key replays without calling a port and without
journaling an event; a different input hash fails the run with `InputHashMismatch`), then an
amended run's imported cache, then the row is written `running`, the effect is dispatched once
that row and every outcome settled before it are committed (`commits.GroupCommitter`), and the
row is settled. Each `node-started` gets exactly one `node-settled`, on every path. The ask
protocol itself (turns, nudge, schema repairs) is in `engine/ask.py`.

Actor continuity. Each message an agent port sends or receives is journaled with its ask
(`AskChannel.transcript`), and the session and model it reports with its actor. Before the first
live ask of an actor in a resumed or amended run, a port that keeps conversations (`restore`) gets
the actor's journaled messages of its settled asks (replayed, or imported with their messages
from the predecessor), so it continues the conversation the original run had; a resume also
sends each actor to the model journaled for it, unless the run's model was changed on approval.

Replays write nothing new. A resume re-executes the script, so it creates the same actors and
enters the same phases and logs the same lines again; those the run's log already holds
(`resume_from`) are not journaled a second time, so k resumes never add k copies.

Scheduling (RUNTIME §3). Asks on one actor are admitted FIFO and run one at a time (a fair
per-actor lock, a `Slots` of one); across actors at most `max_concurrency` asks are in flight
(the run's capacity limiter). World reads and commands are outside that cap. An ask holds its
turn and its slot until its outcome is journaled; the ask the slot goes to next runs before the
finished one's result goes back to the script (`_AskTurn`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import json
from collections import Counter
from typing import Any, AsyncContextManager, Awaitable, Callable

import anyio
import jsonschema

from dwf.compiler import ir

from dwf.runtime.engine.arguments import ArgumentError, validate_args
from dwf.runtime.engine.ask import AskSession, run_ask
from dwf.runtime.engine.called import CalledWorkflowHost, line_of
from dwf.runtime.engine.commits import GroupCommitter
from dwf.runtime.engine.events import EventBus
from dwf.runtime.engine.import_cache import ImportedCache
from dwf.runtime.engine.prepare import PreparedRun
from dwf.runtime.engine.slots import Slots
from dwf.runtime.interpreter import sandbox
from dwf.runtime.interpreter.interpreter import Interpreter
from dwf.runtime.interpreter.limits import Limits
from dwf.runtime.journal.control import spent
from dwf.runtime.journal.store import JournalError, JournalStore, NodeRow, hash_and_size, input_hash
from dwf.runtime.ports.protocols import (ActorSpec, AgentPort, ArtifactPort, AskRequest, QuestionPort, Usage,
                                         WorldPort)
from dwf.runtime.ports.worktrees import GitWorktrees, Worktree, WorktreeError
from dwf.runtime.values.errors import FatalError, ScriptError
from dwf.runtime.values.objects import ActorHandle
from dwf.runtime.values.records import Record, to_journal

INSTRUCTIONS_HEAD = 240
STORED_INPUT_CHARS = 4096  # inputs longer than this as JSON are journaled as the head of their text
ECHOED_EVENTS = ("phase-entered", "log")  # what re-executing a resumed script emits again


def _echo(event_type: str, payload: dict) -> tuple[str, str]:
    return event_type, json.dumps(payload, sort_keys=True)


class _AskTurn:
    """`async with _AskTurn(actor_turn, slots):` an ask's turn: its actor's (FIFO), then a slot.
    On the way out the slot goes back first; when it was handed to a waiting ask, this task lets
    that ask run before it goes on (`Slots.give_back`), so a freed slot is busy again before the
    finished ask's result travels back through the interpreter (#18, fan-out)."""

    __slots__ = ("actor", "slots")

    def __init__(self, actor: Slots, slots: Slots):
        self.actor, self.slots = actor, slots

    async def __aenter__(self) -> None:
        if not self.actor.take_free():
            await self.actor.__aenter__()
        if self.slots.take_free():
            return
        try:
            await self.slots.__aenter__()
        except BaseException:
            self.actor.give_back()
            raise

    async def __aexit__(self, *exc_info) -> None:
        handed = self.slots.give_back()
        self.actor.give_back()
        if handed:
            # asyncio's bare yield, as `Slots` uses asyncio's futures: anyio's checkpoints find
            # the backend and open a cancel scope, about a tenth of an ask's CPU
            await asyncio.sleep(0)


@dataclasses.dataclass(frozen=True)
class RunPorts:
    """RunPorts: what a run reaches outside itself (None: that effect fails, or has no owner)."""

    agent: AgentPort
    world: WorldPort | None = None
    artifacts: ArtifactPort | None = None
    questions: QuestionPort | None = None
    worktrees: GitWorktrees | None = None  # None: an isolated actor fails the run (no git workspace)


class RunHost:
    """RunHost: the `EffectHost` of one run (module docstring). `Run` owns it and reads its
    usage, reports and live nodes when the run settles."""

    def __init__(self, run_id: str, prepared: PreparedRun, ports: RunPorts, *, journal: JournalStore,
                 events: EventBus, committer: GroupCommitter, limits: Limits, max_concurrency: int,
                 max_agents: int, budget: int | None, usage: Usage, replay: dict[tuple[str, str], NodeRow],
                 cache: ImportedCache | None):
        self.id = run_id
        self.program = prepared.program
        self.called = prepared.called  # saved workflows called inline, by name
        self.commands = prepared.commands  # the only commands the run may execute
        self.command_list = tuple(sorted(self.commands))  # as each AskRequest carries them
        self.agent_port, self.world, self.artifacts, self.questions = ports.agent, ports.world, ports.artifacts, ports.questions
        self.git_worktrees = ports.worktrees
        # Isolated actors' worktrees: those attached in this process, and those an earlier
        # attempt journaled (`worktree-created`, loaded by `resume_from`), by actor key.
        self.worktrees: dict[str, Worktree] = {}
        self.journaled_worktrees: dict[str, dict] = {}
        self.worktree_locks: dict[str, anyio.Lock] = {}
        self.journal = journal
        self.events = events
        self.committer = committer
        self.limits = limits
        self.limiter = Slots(max_concurrency)
        self.max_agents = max_agents
        self.budget_limit = budget
        self.usage = usage
        # Settled rows of the run being resumed, loaded once: replay is a dict lookup. A new run
        # has no rows, so its effects never read the journal before writing.
        self.replay = replay
        self.cache = cache
        self.reports: list = []
        self.actors: dict[str, ActorSpec] = {}
        self.actor_names: dict[str, str] = {}
        self.actor_locks: dict[str, Slots] = {}  # one ask at a time per actor, FIFO (a slot of one)
        self.actor_sites: dict[str, str] = {}
        self.actors_started: set[str] = set()
        self.live_nodes: dict[tuple[str, str], str] = {}  # (site, key) -> kind, for force-settlement
        # Usage is durable with its node: a running ask's usage so far is written with the next
        # group commit (`_flush_usage`; most asks settle first, and their outcome carries it),
        # and a resume starts each node re-dispatched from what its interrupted attempt spent.
        self.unsaved_usage: dict[tuple[str, str], Callable[[], dict]] = {}
        self.earlier_usage: dict[tuple[str, str], dict] = {}  # (site, key) -> usage JSON (resume_from)
        committer.before_commit = self._flush_usage
        self.phase: str | None = None
        self.known_actors: set[str] = set()  # actors an earlier attempt created (see resume_from)
        self.pinned_models: dict[str, str] = {}  # actor key -> the model journaled for it
        self.sessions: dict[str, tuple] = {}  # actor key -> (session id, model) as journaled
        self.rehydrate = cache is not None  # whether an actor may have journaled messages to restore
        self.rehydrated: set[str] = set()  # actors whose port conversation is restored (or new)
        self.echoes: Counter[tuple[str, str]] = Counter()  # its phase and log events, by canonical payload
        self._validators: dict[str, jsonschema.protocols.Validator] = {}
        self.interpreter = Interpreter(self.program, self, limits=limits, args=prepared.args,
                                       source_lines=prepared.script.splitlines())

    def resume_from(self, journal: JournalStore, rows: list[NodeRow], keep_models: bool = True) -> None:
        """Note what the interrupted attempts of this run journaled that re-execution repeats:
        its actors and its phase and log events, its usage (from its node `rows`); the model each
        actor was sent to (kept unless `keep_models` is False: the run's model was changed on
        approval); and drop the messages of asks that never settled (module docstring)."""
        actors = journal.list_actors(self.id)
        self.known_actors = {actor["key"] for actor in actors}
        self.sessions = {actor["key"]: (actor.get("session_id"), actor.get("effective_model")) for actor in actors}
        if keep_models:
            self.pinned_models = {actor["key"]: actor["effective_model"] for actor in actors
                                  if actor.get("effective_model")}
        journal.drop_unsettled_messages(self.id)
        self.rehydrate = True
        self.usage.add(Usage.from_json(spent(rows)))
        self.earlier_usage = {(row.site, row.key): row.usage for row in rows
                              if row.status == "running" and Usage.from_json(row.usage) != Usage()}
        self.echoes = Counter(_echo(e["type"], e["payload"]) for e in journal.events(self.id, types=ECHOED_EVENTS))
        self.journaled_worktrees = {e["payload"]["key"]: e["payload"]
                                    for e in journal.events(self.id, types=("worktree-created",))}

    def _flush_usage(self) -> None:
        pending, self.unsaved_usage = self.unsaved_usage, {}
        for (site, key), usage_of in pending.items():
            self.journal.set_node_usage(self.id, site, key, usage_of())

    def _emit_anew(self, event_type: str, **payload: Any) -> None:
        """Emit a phase or log event unless an earlier attempt of this run journaled it."""
        echo = _echo(event_type, payload)
        if self.echoes[echo]:
            self.echoes[echo] -= 1
            return
        self.events.emit(event_type, **payload)

    # ------------------------------------------------------------ host: actors, phases, logs

    def create_actor(self, site: str, key: str, name: str | None, system: str | None, model: str | None,
                     agent_type: str | None, isolation: str | None = None,
                     tools: tuple[str, ...] | None = None) -> ActorHandle:
        if len(self.actors) >= self.max_agents:
            raise FatalError("LimitExceeded", f"the actor limit ({self.max_agents:,}) was exceeded")
        if name:
            if name in self.actor_names:
                raise FatalError("DuplicateActorName", f"two actors are named \"{name}\" ({self.actor_names[name]} and {key})")
            self.actor_names[name] = key
        if isolation and self.git_worktrees is None:
            raise FatalError("WorktreeError", f"the actor \"{name or key}\" asks for isolation=\"worktree\", but this "
                                              "run has no git workspace")
        spec = ActorSpec(key, name or None, system, model or self.pinned_models.get(key), agent_type, isolation,
                         tools)
        self.actors[key] = spec
        self.actor_locks[key] = Slots(1)  # free: no trip through the event loop (nor anyio's backend lookups)
        self.actor_sites[key] = site
        if self.cache is not None:
            self.cache.attach(name or None, system)
        if key in self.known_actors:  # created by an earlier attempt: journaled then
            return ActorHandle(key, name or None, site, key)
        self.journal.put_actor(self.id, site, key, name, system, model)
        self.events.emit("actor-created", site=site, key=key, name=name, system=system, model=model,
                         agent_type=agent_type, phase=self.phase)
        return ActorHandle(key, name or None, site, key)

    def enter_phase(self, name: str) -> None:
        self.phase = name
        self._emit_anew("phase-entered", name=name)

    def log(self, message: str) -> None:
        self._emit_anew("log", message=message, phase=self.phase)

    def budget_total(self) -> int | None:
        return self.budget_limit

    def budget_spent(self) -> int:
        return self.usage.output_tokens

    # ------------------------------------------------------------ host: effects

    def _replayed(self, site: str, key: str, kind: str, digest: str) -> Any:
        """The journaled outcome of an effect the resumed run settled before: no port, no tokens."""
        row = self.replay.pop((site, key))
        if row.input_hash != digest:
            raise FatalError("InputHashMismatch", f"{key}: the journal recorded different inputs for this effect")
        if self.cache is not None:
            self.cache.note_replayed(row)
        # No event: the run's log already holds this node's events from when it ran, and a
        # resume journals only what it does anew (k resumes must not add k copies).
        if row.status == "failed":
            raise ScriptError(row.error["type"], row.error["message"])
        return Record.from_journal(row.result)

    def replay_now(self, site: str, key: str, kind: str, inputs: Callable[[], Any]) -> tuple[bool, Any]:
        """`(True, outcome)` when this effect replays from the journal, so a join can settle it
        without a task; `(False, None)` when it must run (or import: an amended run's imports are
        matched in dispatch order, so those runs keep the ordinary path). A replayed failure
        raises. `inputs()` builds the effect's inputs as its host method would."""
        if self.cache is not None or (site, key) not in self.replay or self._budget_spent():
            return False, None
        return True, self._replayed(site, key, kind, input_hash(inputs()))

    def _budget_spent(self) -> bool:
        return self.budget_limit is not None and self.usage.output_tokens >= self.budget_limit

    async def _effect(self, site: str, key: str, kind: str, actor: str | None, inputs: Any,
                      execute: Callable[[Callable[[], Awaitable[None]]], Awaitable[Any]], queued: dict | None = None,
                      lookup: Callable[[str], Any] | None = None, usage_of: Callable[[], dict] | None = None,
                      turn: Callable[[], AsyncContextManager] | None = None) -> Any:
        """Journal and run one effect. `execute(started)` performs it and awaits `started()` at the
        moment it is really dispatched (an ask after its actor's turn and a concurrency slot).
        `lookup(digest)` (amend runs) returns `(True, journal result, usage)` to import the
        predecessor's result instead, or None; `usage_of()` gives the usage JSON of the row.
        `turn()` (an ask: its actor's turn and a slot) is held until the outcome is journaled and
        `node-settled` emitted, so the ask that gets the slot next is dispatched after both, and
        at once (`_AskTurn`)."""
        digest, size = hash_and_size(inputs)
        if (site, key) in self.replay:
            return self._replayed(site, key, kind, digest)
        phase = self.phase
        stored_input = inputs if size <= STORED_INPUT_CHARS else {"truncated": str(inputs)[:STORED_INPUT_CHARS]}
        hit = lookup(digest) if lookup is not None else None
        if hit is not None:
            _, result, usage = hit
            self.journal.put_node(NodeRow(self.id, site, key, kind, actor, digest, stored_input, "completed",
                                          result=result, usage=usage, imported=True))
            self.events.emit_flat("node-settled", {"site": site, "key": key, "kind": kind, "actor": actor,
                                                   "outcome": "ok", "cached": True, "imported": True, "phase": phase})
            return Record.from_journal(result)
        self.events.emit_flat("node-queued", {"site": site, "key": key, "kind": kind, "actor": actor, "phase": phase,
                                              **(queued or {})})
        self.journal.put_node(NodeRow(self.id, site, key, kind, actor, digest, stored_input, "running",
                                      usage=self.earlier_usage.get((site, key), {})))
        group = self.journal.open_group

        async def started() -> None:
            # Before an effect is dispatched, its `running` row and every outcome settled before
            # it got its turn are committed, so no dispatch can have seen a result that a crash
            # would lose. It waits for the tick's group commit (effects dispatched in one tick
            # share one); an outcome settling during that wait is committed at the end of its
            # own tick, like every outcome.
            wait = self.committer.dispatch_wait(group)
            if wait is not None:
                await wait
            self.live_nodes[(site, key)] = kind
            self.events.emit_flat("node-started", {"site": site, "key": key, "kind": kind, "actor": actor,
                                                   "phase": phase})

        async with turn() if turn is not None else contextlib.nullcontext():
            return await self._settle(site, key, kind, phase, execute, started, usage_of)

    async def _settle(self, site, key, kind, phase, execute, started, usage_of) -> Any:
        """Run one effect (`execute(started)`) and journal its outcome (see `_effect`)."""
        outcome = "cancelled"
        try:
            value = await execute(started)
        except ScriptError as error:
            outcome = "failed"
            self.journal.settle_node(self.id, site, key, "failed", error=error.to_json(),
                                     usage=usage_of() if usage_of else {})
            self.committer.note_settled()
            raise
        except FatalError:
            outcome = "failed"
            raise
        except JournalError as error:  # the journal failed under the effect: the run cannot go on
            outcome = "failed"
            raise FatalError("JournalError", str(error)) from None
        except Exception as error:  # a port or engine bug must not look like a script exception
            outcome = "failed"
            raise FatalError("InternalError", f"{key}: {type(error).__name__}: {error}") from error
        else:
            outcome = "ok"
            self.journal.settle_node(self.id, site, key, "completed", result=to_journal(value),
                                     usage=usage_of() if usage_of else {})
            self.committer.note_settled()
            if kind in ("run", "artifact"):  # changed the world: never repeat it after a crash
                self.journal.commit()
            return value
        finally:
            self.unsaved_usage.pop((site, key), None)
            if self.live_nodes.pop((site, key), None) is not None:
                self.events.emit_flat("node-settled", {"site": site, "key": key, "kind": kind, "outcome": outcome,
                                                       "phase": phase})

    def ask_inputs(self, actor: ActorHandle, instructions: str, schema_key: str | None) -> dict:
        """What an ask's input hash covers: instructions, schema, persona and actor name."""
        spec = self.actors.get(actor.actor_id)
        if spec is None:
            raise FatalError("UnknownActor", "this agent does not belong to the run")
        schema = self.schema(schema_key) if schema_key else None
        return {"instructions": instructions, "schema": schema, "persona": spec.system, "actor": spec.name}

    async def ask(self, site: str, key: str, actor: ActorHandle, instructions: str, schema_key: str | None,
                  label: str | None) -> Any:
        inputs = self.ask_inputs(actor, instructions, schema_key)
        spec, schema = self.actors[actor.actor_id], inputs["schema"]
        queued = {"instructions_head": instructions[:INSTRUCTIONS_HEAD], "label": label}
        if self._budget_spent():
            raise ScriptError("BudgetExceeded", f"the token budget ({self.budget_limit:,} output tokens) is spent")

        channel_box: list[AskSession] = []

        async def execute(started):  # inside the actor's turn and a slot (`turn` below)
            await started()
            self.actors_started.add(spec.actor_id)
            actor_spec = spec
            if spec.isolation:
                worktree = await self._worktree(spec)
                actor_spec = dataclasses.replace(spec, workdir=str(worktree.root))
            request = AskRequest(self.id, actor_spec, site, key, instructions, schema, label,
                                 self.command_list)
            channel = AskSession(request, self.validator(schema_key) if schema_key else None,
                                 emit=self.events.emit, emit_flat=self.events.emit_flat, usage_sink=self.usage,
                                 escalate=self.escalate,
                                 on_touched=lambda: self.close_import_cache("ask", site=site, key=key,
                                                                            actor=spec.name),
                                 on_usage=lambda: self.unsaved_usage.__setitem__((site, key), usage_of),
                                 transcript=lambda message: self.journal.append_message(
                                     self.id, spec.actor_id, site, key, message),
                                 session=lambda session_id, model: self._note_session(spec.actor_id,
                                                                                      session_id, model))
            if self.earlier_usage:  # a resume: what the interrupted attempt spent
                channel.ask_usage.add(Usage.from_json(self.earlier_usage.pop((site, key), {})))
            channel_box.append(channel)
            self._restore_conversation(request)
            return await run_ask(self.agent_port, request, channel)

        def usage_of() -> dict:
            # The ask's own usage, and whether it was pure (no tool touched the world): stored in
            # the node's usage JSON so a later amend knows which entries survive a closed cache.
            if not channel_box:
                return {}
            channel = channel_box[-1]
            return {**channel.ask_usage.to_json(), "pure": not channel.touched}

        lookup = None
        # an isolated actor's asks never import: its edits were made in the predecessor's
        # worktree, and this run's worktree is a new one
        if self.cache is not None and spec.name and not spec.isolation:
            def lookup(digest: str):
                entry = self.cache.take_ask(spec.name, digest)
                if entry is None:
                    return None
                for message in self.journal.ask_messages(self.cache.predecessor, entry.site, entry.key):
                    self.journal.append_message(self.id, spec.actor_id, site, key, message)
                return True, entry.result, {**Usage().to_json(), "pure": entry.pure}

        try:
            return await self._effect(site, key, "ask", spec.name or spec.actor_id, inputs, execute, queued,
                                      lookup=lookup, usage_of=usage_of,
                                      turn=lambda: _AskTurn(self.actor_locks[spec.actor_id], self.limiter))
        finally:
            # The channel's callbacks refer back to it through `usage_of`: without this, every
            # ask left a reference cycle of some forty objects for the garbage collector (#18).
            channel_box.clear()

    def _restore_conversation(self, request: AskRequest) -> None:
        """Before an actor's first live ask in this process: hand a port that keeps conversations
        the actor's journaled messages of its settled asks (module docstring)."""
        actor = request.actor.actor_id
        if actor in self.rehydrated:
            return
        self.rehydrated.add(actor)
        restore = getattr(self.agent_port, "restore", None)
        if self.rehydrate and restore is not None:
            messages = self.journal.actor_messages(self.id, actor)
            if messages:
                restore(request, messages)

    def _note_session(self, actor: str, session_id: str | None, model: str | None) -> None:
        """Journal the session and the model an actor's asks use, when they change."""
        if self.sessions.get(actor) != (session_id, model):
            self.sessions[actor] = (session_id, model)
            self.journal.set_actor_session(self.id, self.actor_sites[actor], actor, session_id, model)

    def close_import_cache(self, cause: str, **info: Any) -> None:
        """The first side effect of an amend run closes its imported cache (RUNTIME §5.2)."""
        if self.cache is not None and self.cache.close(cause):
            # RUNTIME §6 has no event type of its own for this: a `log` event that says so
            self.events.emit("log", message=f"the imported cache closed at the first side effect ({cause})",
                             import_cache_closed=True, cause=cause, phase=self.phase, **info)

    def schema(self, schema_key: str) -> Any:
        """A result schema of the script, or (as `NAME/KEY`) of the saved workflow NAME it calls."""
        name, _, key = schema_key.rpartition("/")  # keys are type expressions: they never hold "/"
        return (self.called[name] if name else self.program).schema(key)

    def validator(self, schema_key: str) -> jsonschema.protocols.Validator:
        validator = self._validators.get(schema_key)
        if validator is None:
            validator = jsonschema.Draft202012Validator(self.schema(schema_key))
            self._validators[schema_key] = validator
        return validator

    async def world_read(self, site: str, key: str, op: str, arguments: list) -> Any:
        world = self.world
        if world is None:
            raise ScriptError("WorldError", "this run has no workspace to read")
        async def execute(started):
            await started()
            return await world.read(op, arguments, {})

        lookup = None
        if self.cache is not None:
            def lookup(digest: str):
                found, result = self.cache.take_read(digest)
                return (True, result, {}) if found else None

        return await self._effect(site, key, "read", None, {"op": op, "args": arguments}, execute, lookup=lookup)

    async def world_run(self, site: str, key: str, cmd: str, arguments: list[str], timeout_s: float) -> Any:
        world = self.world
        if cmd not in self.commands:
            raise FatalError("CommandNotApproved", f"`{cmd}` is not in the approved command set")
        if world is None:
            raise ScriptError("WorldError", "this run has no workspace to run commands in")
        async def execute(started):
            self.close_import_cache("world.run", site=site, key=key, command=cmd)  # before dispatch
            await started()
            return await world.run(cmd, arguments, timeout_s)

        return await self._effect(site, key, "run", None, {"op": "world.run", "cmd": cmd, "args": arguments},
                                  execute, {"command": cmd})

    # ------------------------------------------------------------ isolated actors' worktrees

    async def _worktree(self, spec: ActorSpec) -> Worktree:
        """The actor's worktree, made (and journaled) at its first need, or re-attached to the
        one an earlier attempt of this run journaled."""
        key = spec.actor_id
        worktree = self.worktrees.get(key)
        if worktree is not None:
            return worktree
        lock = self.worktree_locks.setdefault(key, anyio.Lock())
        async with lock:
            if key in self.worktrees:
                return self.worktrees[key]
            known = self.journaled_worktrees.get(key)
            try:
                worktree = await self.git_worktrees.attach(self.id, spec.name or key, key, known)
            except WorktreeError as error:
                raise FatalError("WorktreeError", str(error)) from None
            if known is None:
                self.events.emit("worktree-created", **worktree.to_json(self.git_worktrees.workspace))
                self.journal.commit()  # before the actor writes into it: a resume must find it
                self.journaled_worktrees[key] = worktree.to_json(self.git_worktrees.workspace)
            self.worktrees[key] = worktree
            return worktree

    async def git_worktree(self, site: str, key: str, actor: ActorHandle) -> Any:
        """`git.worktree(actor)`: after the actor's running ask (it takes the actor's turn),
        commit what it changed onto its branch and return the branch and the changes."""
        spec = self.actors.get(actor.actor_id)
        if spec is None:
            raise FatalError("UnknownActor", "this agent does not belong to the run")
        if not spec.isolation:
            raise ScriptError("WorldError", f"git.worktree(): the actor \"{spec.name or spec.actor_id}\" has no "
                                            "worktree; create it with agent(..., isolation=\"worktree\")")

        async def execute(started):
            async with self.actor_locks[spec.actor_id]:
                await started()
                worktree = await self._worktree(spec)
                try:
                    changes = await self.git_worktrees.snapshot(worktree, self.id)
                except WorktreeError as error:
                    raise ScriptError("WorldError", str(error)) from None
                return Record("GitWorktree", **changes)

        return await self._effect(site, key, "read", spec.name or spec.actor_id,
                                  {"op": "git.worktree", "actor": spec.actor_id}, execute)

    async def finish_worktrees(self) -> None:
        """A completed run's end (`GitWorktrees.finish`): each worktree of the run is removed; the
        branches that hold changes are kept, the others deleted; each gets a `worktree-removed`."""
        if self.git_worktrees is None or not self.journaled_worktrees:
            return
        removed = {e["payload"]["key"] for e in self.journal.events(self.id, types=("worktree-removed",))}
        for key, known in self.journaled_worktrees.items():
            if key in removed:
                continue
            worktree = self.worktrees.get(key)
            if worktree is None:
                workspace = self.git_worktrees.workspace
                worktree = Worktree(known["actor"], key, known["branch"], workspace / known["path"],
                                    workspace / known["root"], known["base"])
            try:
                outcome = await self.git_worktrees.finish(worktree, self.id)
            except WorktreeError as error:
                self.events.emit("log", message=f"the worktree of actor {worktree.actor} was left in place: {error}",
                                 phase=self.phase)
                continue
            self.events.emit("worktree-removed", **outcome)

    def report(self, site: str, key: str, item: Any, artifact: str | None) -> None:
        row = self.replay.pop((site, key), None)
        if row is not None and row.status == "completed":
            self.reports.append(item)  # replayed: delivered before, not emitted again
            return
        if len(self.reports) >= self.limits.reports:
            raise sandbox.limit_error("reports", self.limits)
        size = len(ir.canonical_json(item).encode("utf-8"))
        if size > self.limits.report_bytes:
            raise FatalError("LimitExceeded", f"a reported item is {size:,} bytes; the report size limit is "
                             f"{self.limits.report_bytes:,}")
        self.journal.put_node(NodeRow(self.id, site, key, "report", None, input_hash(item), item, "completed",
                                      result={"item": item, "artifact": artifact}))
        self.journal.commit()  # before the report reaches reports.jsonl: a resume must not repeat it
        self.reports.append(item)
        if self.artifacts is not None:
            self.artifacts.append_report(self.id, site, key, item, artifact)
        self.events.emit("report", site=site, key=key, item=item, artifact=artifact, phase=self.phase)

    async def publish_artifact(self, site: str, key: str, kind: str, values: dict) -> Any:
        store = self.artifacts
        if store is None:
            raise ScriptError("ArtifactError", "this run has no artifact store")

        async def execute(started):
            await started()
            options = {k: values.get(k) for k in ("title", "description")}
            if kind == "file":
                ref = await store.publish_file(self.id, values["id"], values["path"], primary=bool(values.get("primary")), **options)
            else:
                ref = await store.publish_markdown(self.id, values["id"], values["content"], primary=bool(values.get("primary")), **options)
            self.events.emit("artifact-published", site=site, key=key, id=values["id"], kind=kind, ref=ref.to_json())
            return ref

        return await self._effect(site, key, "artifact", None, {"op": kind, **values}, execute)

    def declare_artifact(self, site: str, key: str, kind: str, artifact_id: Any, spec: Any) -> None:
        store = self.artifacts
        if store is None:
            return  # dashboards without a store are shown nowhere; reports still reach the run result
        store.declare_dashboard(self.id, artifact_id, kind, spec)
        self.events.emit("artifact-published", site=site, key=key, id=artifact_id, kind=kind, ref=None)

    async def workflow(self, site: str, key: str, name: str, arguments: dict) -> Any:
        """Run the saved workflow `name` inline (see runtime/engine/called.py) and return its value."""
        program = self.called[name]  # every name the script calls was compiled at start
        try:
            args = validate_args(program.meta, arguments)
        except ArgumentError as error:
            raise ScriptError("WorkflowError", f"workflow(\"{name}\") was called with bad args: "
                                               + "; ".join(error.problems)) from None
        parent = self.interpreter
        limits = dataclasses.replace(self.limits, steps=max(0, parent.limits.steps - parent.steps))
        child = Interpreter(program, CalledWorkflowHost(self, name, site, key), limits=limits, args=args)
        phase = self.phase
        try:
            return await child.run()
        except ScriptError as error:
            raise ScriptError("WorkflowError", f"the saved workflow `{name}` failed{line_of(error)}: "
                                               f"{error.summary()}") from None
        except FatalError as error:
            # the caller's frame adds " at line N": "... at line 4 in the saved workflow `x`, called at line 2"
            raise FatalError(error.code, f"{error.message} in the saved workflow `{name}`, called") from None
        finally:
            parent.steps += child.steps
            self.phase = phase

    # ------------------------------------------------------------ escalation

    async def escalate(self, request: AskRequest, question: str, context: str | None, number: int = 1) -> str:
        # Named by the whole run id, the ask's occurrence and the question's number within the
        # ask: unique across runs and asks, and stable across a resume, so a re-dispatched ask
        # asking again finds an answer already given (perhaps while the run was down).
        occurrence = hashlib.sha256(f"{request.site}|{request.key}".encode()).hexdigest()[:16]
        question_id = f"dwfq-{self.id.removeprefix('dwfrun-')}-{occurrence}-{number}"
        raised = False

        def posted() -> None:  # the question can be answered now: only then may a host hear of it
            nonlocal raised
            if not raised:
                raised = True
                self.events.emit("escalation-raised", id=question_id, site=request.site, key=request.key,
                                 actor=request.actor.name, question=question, context=context)

        port = self.questions
        if port is None:
            posted()
            answer = "No one is available to answer. Proceed on your best judgement and say what you assumed."
        else:
            answer = await port.ask_owner(question_id, request.actor, question, context, posted=posted)
            posted()  # a port that never called it
        self.events.emit("escalation-resolved", id=question_id, answer=answer)
        return answer
