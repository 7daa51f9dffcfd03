"""This module defines the engine: the run contract of RUNTIME §1 and the lifecycle of a run.

Run contract. `Engine.start(request)` validates everything first (compile errors, meta,
arguments, caps, the approved command set: `engine/prepare.py`) and raises `StartError` before
any effect and before the run row exists. It returns a `Run` whose `result` never raises;
`cancel(reason)` stops the run (pending effects are cancelled, the script dies at its next
await, and if it has not settled within the grace period the run is force-settled as
`stopped`); `dispose()` is idempotent and bounded. The first settlement wins and `run-settled`
is the last event.

The engine has no clock and no randomness: journaled outcomes are keyed by site and
occurrence, never by completion order. The effects themselves are `engine/run_host.py`; group
commit is `engine/commits.py`; requests and outcomes are `engine/request.py`.
"""

from __future__ import annotations

import contextlib
import gc
import threading
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Awaitable, Callable

import anyio

from dwf.runtime.engine.caps import Caps, resolve_caps
from dwf.runtime.engine.commits import GroupCommitter
from dwf.runtime.engine.events import EventBus
from dwf.runtime.engine.import_cache import ImportedCache
from dwf.runtime.engine.prepare import PreparedRun, agent_changes, pinned_agent, prepare, prepare_resume
from dwf.runtime.engine.request import RunOutcome, StartError, StartRequest, control_dir_of
from dwf.runtime.engine.run_host import RunHost, RunPorts
from dwf.runtime.journal import control
from dwf.runtime.journal.memory import MemoryJournal
from dwf.runtime.journal.store import JournalError, JournalStore, RunRow
from dwf.runtime.ports.protocols import Usage
from dwf.runtime.ports.worktrees import GitWorktrees, check_isolation, isolated_actors
from dwf.runtime.interpreter.limits import MAX_MEMORY_BYTES, MEMORY_POLL_S
from dwf.runtime.interpreter.sandbox import memory_limit_error, resident_bytes
from dwf.runtime.values.errors import FatalError, ScriptError


# While an engine is open, the cyclic garbage collector runs a young collection every 10,000
# allocations instead of every 700 (#18). A run keeps thousands of coroutines, frames and rows
# alive, and with the default each young collection also walks the ones promoted before: a
# quarter to a third of the CPU of 10,000 instant asks went to collections. Reference counting
# still frees everything acyclic at once; only cycles wait longer (at most 10,000 objects).
# The middle generation is collected every 50 young collections, not 10: a wide fan-out queues
# its items at once (4,096 tasks, coroutines and node rows alive, none garbage), and each
# middle-generation collection walked them all, then the full one that followed: 60-190 ms of
# pauses in the first 0.4 s of a 4,096-ask fan-out, during which no ask was settled or
# dispatched (#18, fan-out). A cycle that outlives a young collection waits for one every
# 500,000 allocations.
# What exists when the first engine opens (modules, the compiled script, the CLI's objects) is
# frozen (`gc.freeze`) until the last one closes: no collection walks it again during the runs
# (its one full collection was 4% of the CPU of 10,000 asks). A cycle among those objects that
# becomes garbage meanwhile is freed after the unfreeze.
GC_THRESHOLD = (10_000, 50, 10)
_open_engines: list[tuple[int, int, int]] = []  # the thresholds the first open engine found


def _relax_gc() -> None:
    if not _open_engines:
        _open_engines.append(gc.get_threshold())
        gc.set_threshold(*(max(ours, theirs) for ours, theirs in zip(GC_THRESHOLD, gc.get_threshold())))
        gc.freeze()
    else:
        _open_engines.append(_open_engines[0])


def _restore_gc() -> None:
    if _open_engines:
        previous = _open_engines.pop()
        if not _open_engines:
            gc.set_threshold(*previous)
            gc.unfreeze()


class Engine:
    """Engine: owns the task group runs execute in: `async with Engine() as engine: run = engine.start(...)`."""

    def __init__(self) -> None:
        self._group = None
        self.runs: dict[str, Run] = {}

    async def __aenter__(self) -> Engine:
        self._group = anyio.create_task_group()
        await self._group.__aenter__()
        _relax_gc()
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
        finally:
            _restore_gc()

    def start(self, request: StartRequest) -> Run:
        """Start the run of `request`, or raise `StartError` before any effect (module docstring)."""
        if self._group is None:
            raise RuntimeError("use `async with Engine() as engine` before starting runs")
        control_dir = control_dir_of(request)
        if control_dir is not None and request.journal is not None:
            try:
                control.reconcile(request.journal, control_dir)
            except JournalError as failure:
                raise StartError([str(failure)]) from None
        prepared = request.prepared or _prepare(request)
        if prepared.problems:
            raise StartError(prepared.problems, prepared.compiled.diagnostics if prepared.compiled else None)
        run = Run(request, prepared, control_dir, spawn=self._group.start_soon)
        self.runs[run.id] = run
        self._group.start_soon(run.main)
        return run


def _prepare(request: StartRequest) -> PreparedRun:
    """A request that names its script by text, or the run to resume, prepared once."""
    if not request.resume:
        return prepare(request.script, request.path, request.args, request.workflows,
                       approved=request.approved_commands)
    if request.journal is None or not request.run_id:
        raise StartError(["resume needs the run id and the journal that holds the run"])
    try:
        stored = request.journal.get_run(request.run_id)
    except JournalError as failure:
        raise StartError([str(failure)]) from None
    if stored is None:
        raise StartError([f"there is no run {request.run_id} in this journal"])
    return prepare_resume(stored, request.path)


def _caps(request: StartRequest, prepared: PreparedRun) -> Caps:
    """The caps the run executes under (`engine/caps.py`); StartError when one is out of range."""
    caps, problems = resolve_caps(max_concurrency=request.max_concurrency, max_agents=request.max_agents,
                                  budget=request.budget,
                                  stored=prepared.stored.caps if prepared.stored is not None else None,
                                  meta=prepared.program.meta, ceilings=request.ceilings,
                                  default_agents=request.limits.agents)
    if problems:
        raise StartError(problems)
    return caps


def run_caps(request: StartRequest, stored: RunRow | None, resolved: Caps) -> dict:
    """The caps a run records: the resolved ones, the model its agent port uses, `given`, the
    caps its caller chose (not meta's or the defaults), which an amend inherits, and the
    identity of the workspace it last started in."""
    previous = (stored.caps or {}) if stored is not None else {}
    given = {*previous.get("given", ()), *(name for name in ("max_concurrency", "budget")
                                            if getattr(request, name) is not None)}
    caps = {**resolved.to_json(), "given": sorted(given)}
    model = request.model or previous.get("model")
    if model:
        caps["model"] = model
    workspace = request.workspace or previous.get("workspace")
    if workspace:
        caps["workspace"] = workspace
    return caps


class Run:
    """Run: one started run (module docstring): `result`, `cancel`, `dispose`, `set_max_concurrency`,
    `set_model`, `change_caps`."""

    host_type = RunHost  # the run's effect host; runtime/temporal gives its runs one whose effects are activities

    def __init__(self, request: StartRequest, prepared: PreparedRun, control_dir: Path | None, *,
                 spawn: Callable[..., Any]):
        resolved = _caps(request, prepared)
        stored = prepared.stored
        self.request = request
        self.prepared = prepared
        self.id = stored.id if stored is not None else request.run_id or f"dwfrun-{uuid.uuid4().hex}"
        self.resumed = stored is not None
        self.control_dir = control_dir
        self.meta = prepared.program.meta
        self.args = prepared.args
        self.journal: JournalStore = request.journal or MemoryJournal()
        self.events = EventBus(self.id, self.journal, request.listeners)
        self.settled = anyio.Event()
        self.committer = GroupCommitter(self.journal, on_failure=self._cancel_scope)
        self._spawn = spawn  # the engine's start_soon, for the watchdogs and the committer
        self._result: RunOutcome | None = None
        self._scope: anyio.CancelScope | None = None
        self._stop_reason: str | None = None
        usage = Usage()  # a resume continues from what its nodes spent (RunHost.resume_from)
        cache = request.imported_cache
        if cache is None and stored is not None and stored.resumed_from:
            cache = _rebuild_cache(self.journal, stored.resumed_from)
        replay: dict = {}  # filled by the claim of a resume
        ports = RunPorts(request.agent_port, request.world, request.artifacts, request.questions,
                         _worktrees(prepared, request.world, request.worktrees))
        self.host = self.host_type(self.id, prepared, ports, journal=self.journal, events=self.events,
                            committer=self.committer, limits=request.limits,
                            max_concurrency=resolved.max_concurrency, max_agents=resolved.max_agents,
                            budget=resolved.budget, usage=usage, replay=replay, cache=cache)
        caps = run_caps(request, stored, resolved)
        self.agent_pin = self._agent_pin(stored)
        self.resumed_rows: list = []  # a resume's node rows, loaded once by its claim
        try:
            if control_dir is None:
                replay.update(self._claim(stored, caps))
            else:
                with control.claim_lock(control_dir):
                    replay.update(self._claim(stored, caps))
                    control.write_owner(control_dir, self.id)
                    control.clear_cancel(control_dir, self.id)
            if stored is not None:
                old, new = pinned_agent(stored).get("model"), self.agent_pin.get("model")
                self.host.resume_from(self.journal, self.resumed_rows, keep_models=not (old and new and old != new))
        except (JournalError, OSError) as failure:
            raise StartError([str(failure)]) from None

    def _agent_pin(self, stored: RunRow | None) -> dict:
        """The agent pin this attempt records: the request's (a resume: refused when it changes
        the pinned one without approval, kept when the request pins nothing)."""
        wanted = dict(self.request.agent_pin or {})
        if stored is None:
            return wanted
        pinned = pinned_agent(stored)
        changes = agent_changes(pinned, wanted)
        if changes and not self.request.approve_agent_change:
            raise StartError([f"run {stored.id} was approved with another agent; resuming it now would change "
                              f"{'; '.join(changes)}. Resume it with the pinned agent, or approve the change "
                              "(`dwfc resume RUN --yes` with the new --agent/--model/--actor-tools)"])
        return wanted or pinned

    def _claim(self, stored: RunRow | None, caps: dict) -> dict:
        """Record the run as `running`: a new row, or the resumed one if it is still stopped (a
        concurrent resume of the same run may have claimed it first). Returns the settled rows
        a resume replays."""
        prepared = self.prepared
        if stored is None:
            self.journal.create_run(RunRow(
                id=self.id, script=prepared.script, script_sha256=prepared.program.source_sha256,
                ir_hash=prepared.program.ir_hash, compiler_version=prepared.program.compiler_version, args=self.args,
                meta=prepared.program.meta, caps=caps, resumed_from=self.request.resumed_from,
                workflows=prepared.workflows, agent=self.agent_pin))
            return {}
        current = self.journal.get_run(self.id)
        if current is None or current.status != "stopped":
            raise StartError([f"run {self.id} cannot be resumed: it is {current.status if current else 'gone'} now "
                              "(another process resumed it first); see `dwfc show` for its progress"])
        self.resumed_rows = self.journal.list_nodes(self.id, with_input=False)
        replay = {(n.site, n.key): n for n in self.resumed_rows if n.status != "running"}
        # The resume is recorded on the row, not as an event: a replay adds nothing to the log.
        self.journal.update_run(self.id, status="running", stop_reason=None, result=None, error=None, caps=caps,
                                agent=self.agent_pin, resumes=current.resumes + 1,
                                resumed_at=datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")[:-4] + "Z")
        return replay

    # ------------------------------------------------------------ contract

    @property
    def result(self) -> Awaitable[RunOutcome]:
        """The run's outcome, once it settled; never raises."""
        return self._wait_result()

    async def _wait_result(self) -> RunOutcome:
        await self.settled.wait()
        assert self._result is not None
        return self._result

    def cancel(self, reason: str = "user") -> None:
        """Stop the run as `stopped(reason)`; it settles within the grace period."""
        if self.settled.is_set() or self._stop_reason is not None:
            return
        self._stop_reason = reason
        if self._scope is not None:
            self._scope.cancel()
        self._spawn(self._watch_grace)

    def interrupt(self, reason: str = "interrupted") -> None:
        """Stop the script at its next step even while synchronous code holds the event loop
        (a long loop, a long builtin between its charged units), where `cancel` would wait for
        the next `await`. Safe from a signal handler or another thread; the caller also calls
        `cancel` on the event loop (or it is called when the loop runs again)."""
        if not self.settled.is_set():
            self.host.interpreter.interrupt(reason)

    def _watchdog(self) -> None:
        """A thread, while the run lives: what must stop the script even while it keeps the
        event loop busy. A cancel request file stops it at its next step (`_watch_cancel_requests`
        then settles the run); resident memory past `Limits.memory_bytes` while this run is
        computing ends it with the memory limit's error."""
        interpreter = self.host.interpreter
        bound = self.request.limits.memory_bytes if self.request.limits is not None else MAX_MEMORY_BYTES
        last_steps = -1
        while not self.settled.is_set():
            time.sleep(MEMORY_POLL_S)
            if self.settled.is_set():
                return
            interpreter.renew_interrupt()  # a stop asked for may have been written over
            steps, last_steps = last_steps, interpreter.steps
            # Only a run that computed since the last look is blamed: in a process holding
            # several runs (an MCP server), one waiting for its agents did not allocate.
            if steps != last_steps and resident_bytes() > bound:
                interpreter.interrupt(None, memory_limit_error(interpreter.limits))
            try:
                if self.control_dir is not None and control.cancel_requested(self.control_dir, self.id):
                    self.interrupt(control.cancel_reason(self.control_dir, self.id))
            except OSError:
                pass

    async def dispose(self) -> None:
        """Cancel the run and wait (bounded) until it settled; idempotent."""
        self.cancel("interrupted")
        with anyio.move_on_after(self.request.grace_period_s + 1):
            await self.settled.wait()
        if not self.settled.is_set():
            self._force_settle()

    def set_max_concurrency(self, value: int) -> bool:
        """Change the concurrency cap of the live run (at most the host's ceiling); False when
        nothing changed."""
        host = self.host
        value = min(max(1, int(value)), self.request.ceilings.max_concurrency)
        previous = int(host.limiter.total_tokens)
        if self.settled.is_set() or value == previous:
            return False
        host.limiter.total_tokens = value
        row = self.journal.get_run(self.id)
        stored = (row.caps or {}) if row is not None else {}
        given = sorted({*stored.get("given", ()), "max_concurrency"})
        self.journal.update_run(self.id, caps={**stored, "max_concurrency": value, "max_agents": host.max_agents,
                                               "budget": host.budget_limit, "given": given})
        self.events.emit("run-caps-changed", caps={"max_concurrency": value}, previous={"max_concurrency": previous})
        return True

    def set_model(self, model: str | None) -> bool:
        """Record `model` as the run's agent model (an amend or resume keeps it); an agent port
        with a `model` attribute (the Anthropic port) uses it for the asks started from now on.
        False when nothing changed."""
        row = self.journal.get_run(self.id)
        caps = dict(row.caps or {}) if row is not None else {}
        if self.settled.is_set() or not model or caps.get("model") == model:
            return False
        previous = caps.get("model")
        if hasattr(self.request.agent_port, "model"):
            self.request.agent_port.model = model
        self.journal.update_run(self.id, caps={**caps, "model": model})
        self.events.emit("run-caps-changed", caps={"model": model}, previous={"model": previous})
        return True

    def change_caps(self, changes: dict) -> None:
        """Apply a caps request ({max_concurrency?, model?}) to the live run; bad values are ignored
        (the requesting side validated them)."""
        value = changes.get("max_concurrency")
        if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
            self.set_max_concurrency(value)
        if isinstance(changes.get("model"), str):
            self.set_model(changes["model"])

    # ------------------------------------------------------------ lifecycle

    async def main(self) -> None:
        """The run's task: the script, from `run-started` to `run-settled`."""
        host = self.host
        extra = {"resumed": True} if self.resumed else {}
        if self.request.resumed_from:
            extra["amended_from"] = self.request.resumed_from
        # A resume announces itself to its listeners but journals no `run-started`: the log keeps
        # the original one, and the run row counts the resumes (docs/design.md, #14).
        self.events.emit("run-started", caps={"max_concurrency": int(host.limiter.total_tokens),
                                               "max_agents": host.max_agents, "budget": host.budget_limit},
                         meta=self.meta, args=self.args, journaled=not self.resumed, **extra)
        if self.control_dir is not None:
            self._spawn(self._watch_cancel_requests)
        threading.Thread(target=self._watchdog, name=f"watchdog-{self.id}", daemon=True).start()
        self._spawn(self.committer.hold())
        status, value, error, trace = "completed", None, None, None
        try:
            with anyio.CancelScope() as scope:
                self._scope = scope
                if self._stop_reason is not None:
                    scope.cancel()
                value = await host.interpreter.run()
                await host.finish_worktrees()
            if self.committer.failure is not None:
                status, value, error = "errored", None, f"JournalError: {self.committer.failure}"
            elif self._stop_reason is not None:
                status, value, error = "stopped", None, f"the run was stopped ({self._stop_reason})"
        except (ScriptError, FatalError) as failure:
            stopped = host.interpreter.stop_reason  # `interrupt`: stopped inside synchronous code
            if stopped is not None:
                self._stop_reason = self._stop_reason or stopped
                status, value, error = "stopped", None, f"the run was stopped ({self._stop_reason})"
            else:
                status, value = "errored", None
                error = failure.summary()
                trace = failure.traceback(host.interpreter.source_lines)
        except JournalError as failure:  # the journal failed under the script: say so, not InternalError
            status, value, error = "errored", None, f"JournalError: {failure}"
        except anyio.get_cancelled_exc_class():
            self._settle("stopped", None, f"the run was stopped ({self._stop_reason or 'interrupted'})", None)
            raise
        except BaseException as failure:  # an engine bug: report it as the run's error, never hang
            status, value, error = "errored", None, f"InternalError: {type(failure).__name__}: {failure}"
        finally:
            await self._close_ports()
        self._settle(status, value, error, trace)

    def _cancel_scope(self) -> None:
        if self._scope is not None:
            self._scope.cancel()

    async def _watch_cancel_requests(self) -> None:
        """`dwfc cancel` (or CancelWorkflowRun) from another process writes a request file: stop
        the run with its reason; `dwfc set` writes a caps request: apply it."""
        while not self.settled.is_set():
            with anyio.move_on_after(control.CANCEL_POLL_S):
                await self.settled.wait()
            if self.settled.is_set():
                return
            changes = control.take_caps_request(self.control_dir, self.id)
            if changes:
                self.change_caps(changes)
            if control.cancel_requested(self.control_dir, self.id):
                self.cancel(control.cancel_reason(self.control_dir, self.id))
                return

    async def _watch_grace(self) -> None:
        """After a cancel, force-settle the run if the script has not ended within the grace period."""
        with anyio.move_on_after(self.request.grace_period_s):
            await self.settled.wait()
        if not self.settled.is_set():
            self._force_settle()

    def _force_settle(self) -> None:
        live = self.host.live_nodes
        for (site, key), kind in list(live.items()):
            self.events.emit("node-settled", site=site, key=key, kind=kind, outcome="cancelled")
        live.clear()
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
        host = self.host
        stop_reason = self._stop_reason if status == "stopped" else None
        if status == "stopped" and stop_reason is None:
            stop_reason = "interrupted"
        self._result = RunOutcome(self.id, status, value, error, stop_reason, len(host.actors_started),
                                  host.usage.to_json(), list(host.reports), trace)
        try:
            self.journal.update_run(self.id, status=status, stop_reason=stop_reason, result=value,
                                    error={"message": error, "traceback": trace} if error else None,
                                    usage=host.usage.to_json())
            self.events.emit("run-settled", status=status, stop_reason=stop_reason, error=error, value=value)
            self.committer.release()  # commits the run's last rows
        except JournalError as failure:  # the result is still delivered; the journal says why it lacks it
            self._result.error = (error + "; " if error else "") + f"the journal could not record the end of the run: {failure}"
            with contextlib.suppress(JournalError):
                self.committer.release()
        finally:
            self.settled.set()
            self.committer.stop()  # lets the committer task end
            if self.control_dir is not None:
                control.release(self.control_dir, self.id)


def _worktrees(prepared: PreparedRun, world, given=None) -> GitWorktrees | None:
    """The worktrees of a run whose script isolates actors: `given` (the request's), else made in
    the world's workspace; a workspace that cannot hold them refuses the start, naming the actors
    (`check_isolation`)."""
    programs = [prepared.program, *prepared.called.values()]  # saved workflows called inline too
    if not any(isolated_actors(program) for program in programs):
        return None
    if given is not None:
        return given
    workspace = getattr(world, "root", None)
    problems = [problem for program in programs for problem in check_isolation(program, workspace)]
    if problems:
        raise StartError(problems)
    return GitWorktrees(workspace)


def _rebuild_cache(journal: JournalStore, predecessor: str) -> ImportedCache | None:
    """The imported cache of an amended run being resumed; None when it cannot be rebuilt
    (unconsumed imports then just run live)."""
    try:
        return ImportedCache.build(journal, predecessor)
    except Exception:
        return None
