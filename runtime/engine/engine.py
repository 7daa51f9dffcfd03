"""This module defines the engine: the run contract of RUNTIME §1 and the effect host the
interpreter calls.

Run contract. `Engine.start(request)` validates everything first (compile errors, meta,
arguments, caps, the approved command set) and raises `StartError` before any effect and
before the run row exists. It returns a `Run` whose `result` never raises; `cancel(reason)`
stops the run (pending effects are cancelled, the script dies at its next await, and if it has
not settled within the grace period the run is force-settled as `stopped`); `dispose()` is
idempotent and bounded. The first settlement wins and `run-settled` is the last event.

Scheduling (RUNTIME §3). Asks on one actor are admitted FIFO and run one at a time (a fair
per-actor lock); across actors at most `max_concurrency` asks are in flight (an anyio capacity
limiter whose size can change on a live run: raising it admits waiting asks at once, lowering
it never recalls running ones). World reads and commands are outside that cap. The engine has
no clock and no randomness: journaled outcomes are keyed by site and occurrence, never by
completion order.

Effects. Every effect goes through `_effect`: a resumed run's settled rows (loaded once) are
consulted first (a completed or failed row with the same key replays without calling a port; a
different input hash fails the run with `InputHashMismatch`), then an amended run's imported
cache, then the row is written `running`, the effect is dispatched once that row and every
outcome settled before it are committed (group commit, see `_commit_groups`), and the row is
settled. Each `node-started` gets exactly one `node-settled`, on every path. The ask protocol
itself (turns, nudge, schema repairs) is in `engine/ask.py`; requests and results in
`engine/request.py`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import uuid
from pathlib import Path
from typing import Any, Awaitable, Callable

import anyio
import jsonschema

from dwf.compiler import ir
from dwf.compiler.compile import compile_source

from dwf.runtime.interpreter import sandbox
from dwf.runtime.engine.arguments import ArgumentError, validate_args
from dwf.runtime.engine.ask import AskChannel, run_ask
from dwf.runtime.values.errors import FatalError, ScriptError
from dwf.runtime.engine.events import EventBus
from dwf.runtime.interpreter.interpreter import Interpreter
from dwf.runtime.journal.store import JournalError, MemoryJournal, NodeRow, RunRow, input_hash
from dwf.runtime.ports.protocols import ActorSpec, AskRequest, Usage
from dwf.runtime.values.records import Record, to_journal
# The request and result types live in run_request.py; callers import them from here too.
from dwf.runtime.engine.request import (RunResult, StartError, StartRequest,  # noqa: F401
                          control_dir_of, default_max_concurrency)
from dwf.runtime.values.objects import ActorHandle
from dwf.runtime.engine.called import CalledWorkflowHost, compile_called, line_of, run_commands

INSTRUCTIONS_HEAD = 240


class Engine:
    """Owns the task group runs execute in: `async with Engine() as engine: run = engine.start(...)`."""

    def __init__(self) -> None:
        self._group = None
        self.runs: dict[str, Run] = {}

    async def __aenter__(self) -> Engine:
        self._group = anyio.create_task_group()
        await self._group.__aenter__()
        return self

    async def __aexit__(self, exc_type, exc, traceback) -> bool | None:
        for run in list(self.runs.values()):
            if not run.settled.is_set():
                run.cancel("interrupted")
        try:
            return await self._group.__aexit__(exc_type, exc, traceback)
        except BaseExceptionGroup as group:
            # An error raised in the `async with` body (a StartError, say) reaches the caller as
            # itself, not wrapped in the task group's exception group.
            if exc is not None and len(group.exceptions) == 1 and group.exceptions[0] is exc:
                raise exc from None
            raise

    def start(self, request: StartRequest) -> Run:
        if self._group is None:
            raise RuntimeError("use `async with Engine() as engine` before starting runs")
        run = prepare_run(request)
        run._spawn = self._group.start_soon
        self.runs[run.id] = run
        self._group.start_soon(run._main)
        return run


def prepare_run(request: StartRequest) -> Run:
    """Validate a request completely; raise `StartError` before any effect."""
    from dwf.runtime.journal import control as run_service

    control = control_dir_of(request)
    stored: RunRow | None = None
    if control is not None and request.journal is not None:
        try:
            run_service.reconcile(request.journal, control)
        except JournalError as failure:
            raise StartError([str(failure)]) from None
    if request.resume:
        stored = _resumable_row(request)
        request.script = stored.script
        request.args = dict(stored.args or {})
        request.workflows = dict(stored.workflows or {})
        caps = stored.caps or {}
        request.max_concurrency = request.max_concurrency or caps.get("max_concurrency")
        request.max_agents = request.max_agents or caps.get("max_agents")
        if request.budget is None:
            request.budget = caps.get("budget")
    compiled = compile_source(request.script, request.path)
    if compiled.program is None:
        errors = [d for d in compiled.diagnostics if d.is_error]
        if stored is not None:
            raise StartError([f"run {stored.id} cannot be resumed: its script no longer compiles with this dwf "
                              f"({len(errors)} error(s)); amend the run instead"]
                             + [f"{request.path}:{d.span.line}:{d.span.column}: {d.code} {d.message}" for d in errors],
                             compiled.diagnostics)
        raise StartError([f"{request.path}:{d.span.line}:{d.span.column}: {d.code} {d.message}" for d in errors],
                         compiled.diagnostics)
    program = compiled.program
    if stored is not None and program.source_sha256 != stored.script_sha256:
        raise StartError([f"run {stored.id} cannot be resumed: its stored script does not match the recorded "
                          "sha256 (the journal was edited); amend the run with the script you want instead"])
    problems: list[str] = []
    try:
        args = validate_args(program.meta, request.args)
    except ArgumentError as error:
        problems.extend(error.problems)
        args = {}
    meta = program.meta if isinstance(program.meta, dict) else {}
    max_concurrency = request.max_concurrency or meta.get("max_concurrency") or default_max_concurrency()
    max_agents = request.max_agents or meta.get("max_agents") or request.limits.agents
    if not isinstance(max_concurrency, int) or max_concurrency < 1:
        problems.append(f"max_concurrency must be an integer of at least 1, got {max_concurrency!r}")
    if not isinstance(max_agents, int) or max_agents < 1:
        problems.append(f"max_agents must be an integer of at least 1, got {max_agents!r}")
    if request.budget is not None and (not isinstance(request.budget, int) or request.budget < 0):
        problems.append(f"the budget must be a non-negative number of tokens, got {request.budget!r}")
    called, called_problems = compile_called(program, request.workflows)
    problems.extend(called_problems)
    commands = run_commands(program, called)
    if request.approved_commands is not None:
        unapproved = sorted(commands - set(request.approved_commands))
        if unapproved:
            problems.append(f"the script may run commands that were not approved: {', '.join(unapproved)}")
    if problems:
        raise StartError(problems)
    return Run(request, program, args, max_concurrency, max_agents, stored=stored, control_dir=control, called=called)


def _resumable_row(request: StartRequest) -> RunRow:
    """The stored row of the run to resume, or StartError saying why it cannot be resumed."""
    from dwf.runtime.journal import control as run_service

    if request.journal is None or not request.run_id:
        raise StartError(["resume needs the run id and the journal that holds the run"])
    try:
        stored = request.journal.get_run(request.run_id)
    except JournalError as failure:
        raise StartError([str(failure)]) from None
    if stored is None:
        raise StartError([f"there is no run {request.run_id} in this journal"])
    problems = run_service.resume_problems(stored)
    if problems:
        raise StartError(problems)
    return stored


class Run:
    def __init__(self, request: StartRequest, program: ir.Program, args: dict, max_concurrency: int, max_agents: int,
                 stored: RunRow | None = None, control_dir: Path | None = None, called: dict | None = None):
        self.request = request
        self.program = program
        self.called: dict[str, ir.Program] = called or {}  # saved workflows called inline, by name
        self.commands = run_commands(program, self.called)  # the only commands the run may execute
        self.id = request.run_id or f"dwfrun-{uuid.uuid4().hex}"
        self.resumed = stored is not None
        self.control_dir = control_dir
        self.meta = program.meta
        self.args = args
        self.journal = request.journal or MemoryJournal()
        self.events = EventBus(self.id, self.journal, request.listeners)
        self.limiter = anyio.CapacityLimiter(max_concurrency)
        self.max_agents = max_agents
        self.budget_limit = request.budget
        self.usage = Usage()
        if stored is not None:  # usage accounting continues from the interrupted attempt
            known = {k: int(v) for k, v in (stored.usage or {}).items()
                     if k in Usage.__dataclass_fields__ and isinstance(v, (int, float))}
            self.usage = Usage(**known)
        self.reports: list = []
        self.actors: dict[str, ActorSpec] = {}
        self.actor_names: dict[str, str] = {}
        self.actor_locks: dict[str, anyio.Lock] = {}
        self.actors_started: set[str] = set()
        self.live_nodes: dict[tuple[str, str], str] = {}  # (site, key) -> kind, for force-settlement
        self.phase: str | None = None
        self.settled = anyio.Event()
        self._result: RunResult | None = None
        self._scope: anyio.CancelScope | None = None
        self._spawn: Callable | None = None  # the engine's start_soon, for the grace-period watchdog
        self._stop_reason: str | None = None
        self._validators: dict[str, jsonschema.protocols.Validator] = {}
        self._commit_due = anyio.Event()  # set when the journal opens a group transaction
        self._committed = anyio.Event()  # set (and replaced) after each group commit
        self._committer_done = True  # until _main starts the committer task
        self._journal_failure: JournalError | None = None
        self._settled_group: int | None = None  # the open group that holds the latest settled effect
        # Settled rows of the run being resumed, loaded once: replay is a dict lookup. A new run
        # has no rows, so its effects never read the journal before writing.
        self._replay: dict[tuple[str, str], NodeRow] = {}
        self.cache = request.imported_cache
        if self.cache is None and stored is not None and stored.resumed_from:
            self.cache = _rebuild_cache(self.journal, stored.resumed_from)
        self.interpreter = Interpreter(program, self, limits=request.limits, args=args,
                                       source_lines=request.script.splitlines())
        caps = {"max_concurrency": max_concurrency, "max_agents": max_agents, "budget": request.budget}
        try:
            if control_dir is None:
                self._claim(stored, caps)
            else:
                from dwf.runtime.journal import control as run_service

                with run_service.claim_lock(control_dir):
                    self._claim(stored, caps)
                    run_service.write_owner(control_dir, self.id)
                    run_service.clear_cancel(control_dir, self.id)
        except (JournalError, OSError) as failure:
            raise StartError([str(failure)]) from None

    def _claim(self, stored: RunRow | None, caps: dict) -> None:
        """Record the run as `running`: a new row, or the resumed one if it is still stopped (a
        concurrent resume of the same run may have claimed it first)."""
        if stored is None:
            self.journal.create_run(RunRow(
                id=self.id, script=self.request.script, script_sha256=self.program.source_sha256,
                ir_hash=self.program.ir_hash, compiler_version=self.program.compiler_version, args=self.args,
                meta=self.program.meta, caps=caps, resumed_from=self.request.resumed_from,
                workflows={name: self.request.workflows[name] for name in self.called}))
            return
        current = self.journal.get_run(self.id)
        if current is None or current.status != "stopped":
            raise StartError([f"run {self.id} cannot be resumed: it is {current.status if current else 'gone'} now "
                              "(another process resumed it first); see `dwfc show` for its progress"])
        self._replay = {(n.site, n.key): n for n in self.journal.list_nodes(self.id, settled_only=True, with_input=False)}
        self.journal.update_run(self.id, status="running", stop_reason=None, result=None, error=None, caps=caps)

    # ------------------------------------------------------------ contract

    @property
    def result(self) -> Awaitable[RunResult]:
        return self._wait_result()

    async def _wait_result(self) -> RunResult:
        await self.settled.wait()
        assert self._result is not None
        return self._result

    def cancel(self, reason: str = "user") -> None:
        if self.settled.is_set() or self._stop_reason is not None:
            return
        self._stop_reason = reason
        if self._scope is not None:
            self._scope.cancel()
        if self._spawn is not None:
            self._spawn(self._watch_grace)

    async def dispose(self) -> None:
        self.cancel("interrupted")
        with anyio.move_on_after(self.request.grace_period_s + 1):
            await self.settled.wait()
        if not self.settled.is_set():
            self._force_settle()

    def set_max_concurrency(self, value: int) -> bool:
        value = max(1, int(value))
        previous = int(self.limiter.total_tokens)
        if self.settled.is_set() or value == previous:
            return False
        self.limiter.total_tokens = value
        self.journal.update_run(self.id, caps={"max_concurrency": value, "max_agents": self.max_agents, "budget": self.budget_limit})
        self.events.emit("run-caps-changed", caps={"max_concurrency": value}, previous={"max_concurrency": previous})
        return True

    # ------------------------------------------------------------ lifecycle

    async def _main(self) -> None:
        extra = {"resumed": True} if self.resumed else {}
        if self.request.resumed_from:
            extra["amended_from"] = self.request.resumed_from
        self.events.emit("run-started", caps={"max_concurrency": int(self.limiter.total_tokens), "max_agents": self.max_agents,
                                               "budget": self.budget_limit},
                         meta=self.meta, args=self.args, **extra)
        if self.control_dir is not None and self._spawn is not None:
            self._spawn(self._watch_cancel_requests)
        if self._spawn is not None:
            self.journal.hold_commits(self._wake_committer)
            self._committer_done = False
            self._spawn(self._commit_groups)
        status, value, error, trace = "completed", None, None, None
        try:
            with anyio.CancelScope() as scope:
                self._scope = scope
                if self._stop_reason is not None:
                    scope.cancel()
                value = await self.interpreter.run()
            if self._journal_failure is not None:
                status, value, error = "errored", None, f"JournalError: {self._journal_failure}"
            elif self._stop_reason is not None:
                status, value, error = "stopped", None, f"the run was stopped ({self._stop_reason})"
        except (ScriptError, FatalError) as failure:
            status, value = "errored", None
            error = failure.summary()
            trace = failure.traceback(self.interpreter.source_lines)
        except anyio.get_cancelled_exc_class():
            self._settle("stopped", None, f"the run was stopped ({self._stop_reason or 'interrupted'})", None)
            raise
        except BaseException as failure:  # an engine bug: report it as the run's error, never hang
            status, value, error = "errored", None, f"InternalError: {type(failure).__name__}: {failure}"
        finally:
            await self._close_ports()
        self._settle(status, value, error, trace)

    def _wake_committer(self) -> None:
        self._commit_due.set()

    async def _commit_groups(self) -> None:
        """Group commit: node rows and events written during one event-loop tick share one
        commit, made when this task next runs; dispatches that need it wait (`_durable`)."""
        try:
            while not self.settled.is_set():
                await self._commit_due.wait()
                self._commit_due = anyio.Event()
                if self.settled.is_set():
                    return
                try:
                    self.journal.commit()
                except JournalError as failure:  # the run cannot go on without its journal
                    self._journal_failure = failure
                    if self._scope is not None:
                        self._scope.cancel()
                    return
                finally:
                    self._committed.set()
                    self._committed = anyio.Event()
        finally:
            self._committer_done = True
            self._committed.set()

    async def _durable(self, group: int) -> None:
        """Returns once the group transaction `group` is committed."""
        while self.journal.open_group == group:
            if self._journal_failure is not None:
                raise FatalError("JournalError", str(self._journal_failure))
            if self._committer_done:
                self.journal.commit()
                return
            committed = self._committed
            self._commit_due.set()
            await committed.wait()

    async def _watch_cancel_requests(self) -> None:
        """`dwfc cancel` from another process writes a request file; stop the run as `user`."""
        from dwf.runtime.journal import control as run_service

        while not self.settled.is_set():
            with anyio.move_on_after(run_service.CANCEL_POLL_S):
                await self.settled.wait()
            if self.settled.is_set():
                return
            if run_service.cancel_requested(self.control_dir, self.id):
                self.cancel(run_service.cancel_reason(self.control_dir, self.id))
                return

    async def _watch_grace(self) -> None:
        """After a cancel, force-settle the run if the script has not ended within the grace period."""
        with anyio.move_on_after(self.request.grace_period_s):
            await self.settled.wait()
        if not self.settled.is_set():
            self._force_settle()

    def _force_settle(self) -> None:
        for (site, key), kind in list(self.live_nodes.items()):
            self.events.emit("node-settled", site=site, key=key, kind=kind, outcome="cancelled")
        self.live_nodes.clear()
        self._settle("stopped", None, f"the run was stopped ({self._stop_reason or 'interrupted'}) and force-settled", None)

    async def _close_ports(self) -> None:
        with anyio.move_on_after(self.request.grace_period_s, shield=True):
            try:
                await self.request.agent_port.close()
            except Exception:
                pass

    def _settle(self, status: str, value: Any, error: str | None, trace: str | None) -> None:
        if self.settled.is_set():
            return
        stop_reason = self._stop_reason if status == "stopped" else None
        if status == "stopped" and stop_reason is None:
            stop_reason = "interrupted"
        self._result = RunResult(self.id, status, value, error, stop_reason, len(self.actors_started),
                                 self.usage.to_json(), list(self.reports), trace)
        try:
            self.journal.update_run(self.id, status=status, stop_reason=stop_reason, result=value,
                                    error={"message": error, "traceback": trace} if error else None,
                                    usage=self.usage.to_json())
            self.events.emit("run-settled", status=status, stop_reason=stop_reason, error=error, value=value)
            self.journal.release_commits(self._wake_committer)  # commits the run's last rows
        except JournalError as failure:  # the result is still delivered; the journal says why it lacks it
            self._result.error = (error + "; " if error else "") + f"the journal could not record the end of the run: {failure}"
            with contextlib.suppress(JournalError):
                self.journal.release_commits(self._wake_committer)
        finally:
            self.settled.set()
            self._commit_due.set()  # lets the committer task end
            if self.control_dir is not None:
                from dwf.runtime.journal import control as run_service

                run_service.release(self.control_dir, self.id)

    # ------------------------------------------------------------ host: actors, phases, logs

    def create_actor(self, site: str, key: str, name: str | None, system: str | None, model: str | None,
                     agent_type: str | None) -> ActorHandle:
        if len(self.actors) >= self.max_agents:
            raise FatalError("LimitExceeded", f"the actor limit ({self.max_agents:,}) was exceeded")
        if name:
            if name in self.actor_names:
                raise FatalError("DuplicateActorName", f"two actors are named \"{name}\" ({self.actor_names[name]} and {key})")
            self.actor_names[name] = key
        spec = ActorSpec(key, name or None, system, model, agent_type)
        self.actors[key] = spec
        self.actor_locks[key] = anyio.Lock()
        self.journal.put_actor(self.id, site, key, name, system, model)
        if self.cache is not None:
            self.cache.attach(name or None, system)
        self.events.emit("actor-created", site=site, key=key, name=name, system=system, model=model,
                         agent_type=agent_type, phase=self.phase)
        return ActorHandle(key, name or None, site, key)

    def enter_phase(self, name: str) -> None:
        self.phase = name
        self.events.emit("phase-entered", name=name)

    def log(self, message: str) -> None:
        self.events.emit("log", message=message, phase=self.phase)

    def budget_total(self) -> int | None:
        return self.budget_limit

    def budget_spent(self) -> int:
        return self.usage.output_tokens

    # ------------------------------------------------------------ host: effects

    def _replayed(self, site: str, key: str, kind: str, digest: str) -> Any:
        """The journaled outcome of an effect the resumed run settled before: no port, no tokens."""
        row = self._replay.pop((site, key))
        if row.input_hash != digest:
            raise FatalError("InputHashMismatch", f"{key}: the journal recorded different inputs for this effect")
        if self.cache is not None:
            self.cache.note_replayed(row)
        extra = {"imported": True} if row.imported else {}
        self.events.emit("node-settled", site=site, key=key, kind=kind, outcome="ok" if row.status == "completed" else "failed",
                         cached=True, phase=self.phase, **extra)
        if row.status == "failed":
            raise ScriptError(row.error["type"], row.error["message"])
        return Record.from_journal(row.result)

    def replay_now(self, site: str, key: str, kind: str, inputs: Callable[[], Any]) -> tuple[bool, Any]:
        """`(True, outcome)` when this effect replays from the journal, so a join can settle it
        without a task; `(False, None)` when it must run (or import: an amended run's imports are
        matched in dispatch order, so those runs keep the ordinary path). A replayed failure
        raises. `inputs()` builds the effect's inputs as its host method would."""
        if self.cache is not None or (site, key) not in self._replay or self._budget_spent():
            return False, None
        return True, self._replayed(site, key, kind, input_hash(inputs()))

    def _budget_spent(self) -> bool:
        return self.budget_limit is not None and self.usage.output_tokens >= self.budget_limit

    async def _effect(self, site: str, key: str, kind: str, actor: str | None, inputs: Any,
                      execute: Callable[[Callable[[], Awaitable[None]]], Awaitable[Any]], queued: dict | None = None,
                      lookup: Callable[[str], Any] | None = None, usage_of: Callable[[], dict] | None = None) -> Any:
        """Journal and run one effect. `execute(started)` performs it and awaits `started()` at the
        moment it is really dispatched (an ask after its actor's turn and a concurrency slot).
        `lookup(digest)` (amend runs) returns `(True, journal result, usage)` to import the
        predecessor's result instead, or None; `usage_of()` gives the usage JSON of the row."""
        digest = input_hash(inputs)
        if (site, key) in self._replay:
            return self._replayed(site, key, kind, digest)
        phase = self.phase
        stored_input = inputs if len(str(inputs)) <= 4096 else {"truncated": str(inputs)[:4096]}
        hit = lookup(digest) if lookup is not None else None
        if hit is not None:
            _, result, usage = hit
            self.journal.put_node(NodeRow(self.id, site, key, kind, actor, digest, stored_input, "completed",
                                          result=result, usage=usage, imported=True))
            self.events.emit("node-settled", site=site, key=key, kind=kind, actor=actor, outcome="ok", cached=True,
                             imported=True, phase=phase)
            return Record.from_journal(result)
        self.events.emit("node-queued", site=site, key=key, kind=kind, actor=actor, phase=phase, **(queued or {}))
        self.journal.put_node(NodeRow(self.id, site, key, kind, actor, digest, stored_input, "running"))
        group = self.journal.open_group

        async def started() -> None:
            # Before an effect is dispatched, its `running` row and every outcome settled before
            # it got its turn are committed, so no dispatch can have seen a result that a crash
            # would lose. It waits for the tick's group commit (effects dispatched in one tick
            # share one); an outcome settling during that wait is committed at the end of its
            # own tick, like every outcome.
            pending = self.journal.open_group
            if pending is not None and pending in (group, self._settled_group):
                await self._durable(pending)
            self.live_nodes[(site, key)] = kind
            self.events.emit("node-started", site=site, key=key, kind=kind, actor=actor, phase=phase)

        outcome = "cancelled"
        try:
            value = await execute(started)
        except ScriptError as error:
            outcome = "failed"
            self.journal.settle_node(self.id, site, key, "failed", error=error.to_json(),
                                     usage=usage_of() if usage_of else {})
            self._settled_group = self.journal.open_group
            raise
        except FatalError:
            outcome = "failed"
            raise
        except Exception as error:  # a port or engine bug must not look like a script exception
            outcome = "failed"
            raise FatalError("InternalError", f"{key}: {type(error).__name__}: {error}") from error
        else:
            outcome = "ok"
            self.journal.settle_node(self.id, site, key, "completed", result=to_journal(value),
                                     usage=usage_of() if usage_of else {})
            self._settled_group = self.journal.open_group
            if kind in ("run", "artifact"):  # changed the world: never repeat it after a crash
                self.journal.commit()
            return value
        finally:
            if self.live_nodes.pop((site, key), None) is not None:
                self.events.emit("node-settled", site=site, key=key, kind=kind, outcome=outcome, phase=phase)

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

        channel_box: list[AskChannel] = []

        async def execute(started):
            async with self.actor_locks[spec.actor_id]:
                async with self.limiter:
                    await started()
                    self.actors_started.add(spec.actor_id)
                    request = AskRequest(self.id, spec, site, key, instructions, schema, label)
                    channel = AskChannel(self, request, schema_key)
                    channel_box.append(channel)
                    return await run_ask(self.request.agent_port, request, channel)

        def usage_of() -> dict:
            # The ask's own usage, and whether it was pure (no tool touched the world): stored in
            # the node's usage JSON so a later amend knows which entries survive a closed cache.
            if not channel_box:
                return {}
            channel = channel_box[-1]
            return {**channel.ask_usage.to_json(), "pure": not channel.touched}

        lookup = None
        if self.cache is not None and spec.name:
            def lookup(digest: str):
                entry = self.cache.take_ask(spec.name, digest)
                if entry is None:
                    return None
                return True, entry.result, {**Usage().to_json(), "pure": entry.pure}

        return await self._effect(site, key, "ask", spec.name or spec.actor_id, inputs, execute, queued,
                                  lookup=lookup, usage_of=usage_of)

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
        world = self.request.world
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
        world = self.request.world
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

    def report(self, site: str, key: str, item: Any, artifact: str | None) -> None:
        row = self._replay.pop((site, key), None)
        if row is not None and row.status == "completed":
            self.reports.append(item)  # replayed: delivered before, not emitted again
            return
        if len(self.reports) >= self.request.limits.reports:
            raise sandbox.limit_error("reports", self.request.limits)
        size = len(ir.canonical_json(item).encode("utf-8"))
        if size > self.request.limits.report_bytes:
            raise FatalError("LimitExceeded", f"a reported item is {size:,} bytes; the report size limit is "
                             f"{self.request.limits.report_bytes:,}")
        self.journal.put_node(NodeRow(self.id, site, key, "report", None, input_hash(item), item, "completed",
                                      result={"item": item, "artifact": artifact}))
        self.journal.commit()  # before the report reaches reports.jsonl: a resume must not repeat it
        self.reports.append(item)
        if self.request.artifacts is not None:
            self.request.artifacts.append_report(self.id, site, key, item, artifact)
        self.events.emit("report", site=site, key=key, item=item, artifact=artifact, phase=self.phase)

    async def publish_artifact(self, site: str, key: str, kind: str, values: dict) -> Any:
        store = self.request.artifacts
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
        store = self.request.artifacts
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
        limits = dataclasses.replace(self.request.limits, steps=max(0, parent.limits.steps - parent.steps))
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
        # Named by the run, the ask's occurrence and the question's number within the ask: stable
        # across a resume, so a re-dispatched ask asking again finds an answer already given.
        occurrence = hashlib.sha256(f"{request.site}|{request.key}".encode()).hexdigest()[:6]
        question_id = f"dwfq-{self.id.removeprefix('dwfrun-')[:8]}-{occurrence}-{number}"
        self.events.emit("escalation-raised", id=question_id, site=request.site, key=request.key,
                         actor=request.actor.name, question=question, context=context)
        port = self.request.questions
        if port is None:
            answer = "No one is available to answer. Proceed on your best judgement and say what you assumed."
        else:
            answer = await port.ask_owner(question_id, request.actor, question, context)
        self.events.emit("escalation-resolved", id=question_id, answer=answer)
        return answer


def _rebuild_cache(journal, predecessor: str):
    """The imported cache of an amended run being resumed; None when it cannot be rebuilt
    (unconsumed imports then just run live)."""
    from dwf.runtime.host.amend import ImportedCache

    try:
        return ImportedCache.build(journal, predecessor)
    except Exception:
        return None
