"""This module implements amend (RUNTIME §5.2): start a new run of an edited script that imports
the finished work of its predecessor.

`amend(engine, run_id, new_script, journal=..., agent_port=..., ...)` validates the new script,
stops the predecessor as `stopped(superseded)` when it is live (in this engine: cancelled and
awaited; in another process: a cancel request with reason `superseded`, then the journal is
polled; an owner that is gone or does not answer in time: the row is marked), sets its
`superseded_by`, builds an `ImportedCache` from its journal rows and starts the new run with
`resumed_from` = the predecessor.

The imported cache (consulted by the engine after its own journal, before dispatching live):

- Actors: a *named* actor that is unique in the predecessor and whose persona (system prompt)
  equals the new actor's attaches to the predecessor's asks of that name, in the order they were
  admitted (the ask rows of that actor in journal order), up to the first one that did not
  complete. The n-th ask admitted for the actor in the new run imports iff the actor has not
  diverged and entry n has the same input hash; any miss diverges the actor for good (that ask
  and every later ask of the actor run live). Anonymous actors never import.
- Reads are matched by content (input hash of op + args, n-th occurrence gets the n-th
  predecessor result), regardless of site, while the cache is open.
- The cache closes for all actors at the first side effect of the new run: a live `world.run`
  (closed before dispatch) or an ask whose port reports `touched_world()`. After that reads never
  import and asks only import entries recorded as pure (`"pure": true` in the node's usage JSON,
  written by the engine for every live ask that touched nothing).
- Resuming an amended run rebuilds the cache; replayed rows of the run's own journal advance the
  cursors (`note_replayed`) so imports continue where they stopped.
"""

from __future__ import annotations

import contextlib
import uuid
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import anyio

from dwf.runtime.journal.store import NodeRow, RunRow

SUPERSEDE_WAIT_S = 10.0


@dataclass
class CachedAsk:
    input_hash: str
    result: Any
    pure: bool
    usage: dict = field(default_factory=dict)


@dataclass
class _ActorCache:
    persona: str | None
    entries: list[CachedAsk]
    attached: bool = False
    admitted: int = 0  # asks of this actor admitted so far in the new run (the next seq)
    diverged: bool = False


class ImportedCache:
    """Matching state of one amend run over the pure data taken from its predecessor."""

    def __init__(self, predecessor: str, actors: dict[str, _ActorCache], reads: dict[str, deque]):
        self.predecessor = predecessor
        self.actors = actors
        self.reads = reads
        self.closed = False
        self.closed_by: str | None = None
        self.hits = 0

    # ------------------------------------------------------------ construction

    @classmethod
    def build(cls, journal, predecessor: str) -> ImportedCache:
        actors_rows = journal.list_actors(predecessor)
        counts: dict[str, int] = {}
        for actor in actors_rows:
            if actor.get("name"):
                counts[actor["name"]] = counts.get(actor["name"], 0) + 1
        nodes = journal.list_nodes(predecessor)
        actors: dict[str, _ActorCache] = {}
        for actor in actors_rows:
            name = actor.get("name")
            if not name or counts[name] != 1:
                continue  # anonymous or duplicated: never imported
            entries: list[CachedAsk] = []
            for node in nodes:
                if node.kind != "ask" or node.actor != name:
                    continue
                if node.status != "completed":
                    break  # failures and unfinished asks are never imported, nor anything after them
                usage = node.usage if isinstance(node.usage, dict) else {}
                entries.append(CachedAsk(node.input_hash, node.result, usage.get("pure") is True, usage))
            actors[name] = _ActorCache(actor.get("persona"), entries)
        reads: dict[str, deque] = {}
        for node in nodes:
            if node.kind == "read" and node.status == "completed":
                reads.setdefault(node.input_hash, deque()).append(node.result)
        return cls(predecessor, actors, reads)

    # ------------------------------------------------------------ matching

    def attach(self, name: str | None, persona: str | None) -> bool:
        """A new actor was created; attach it to the predecessor's actor of the same name and persona."""
        if not name:
            return False
        candidate = self.actors.get(name)
        if candidate is None or candidate.attached:
            return False
        if (candidate.persona or None) != (persona or None):
            del self.actors[name]  # persona changed: the actor reruns from scratch
            return False
        candidate.attached = True
        return True

    def take_ask(self, name: str | None, digest: str) -> CachedAsk | None:
        """Admission of a fresh ask of actor `name` with input hash `digest`: the entry to import, or None."""
        candidate = self.actors.get(name) if name else None
        if candidate is None or not candidate.attached:
            return None
        seq = candidate.admitted
        candidate.admitted += 1
        if candidate.diverged:
            return None
        entry = candidate.entries[seq] if seq < len(candidate.entries) else None
        if entry is None or entry.input_hash != digest or (self.closed and not entry.pure):
            candidate.diverged = True
            return None
        self.hits += 1
        return entry

    def take_read(self, digest: str) -> tuple[bool, Any]:
        if self.closed:
            return False, None
        queue = self.reads.get(digest)
        if not queue:
            return False, None
        self.hits += 1
        return True, queue.popleft()

    def note_replayed(self, row: NodeRow) -> None:
        """A row of the run's own journal replayed (resume of an amended run): advance the state."""
        if row.kind == "ask":
            candidate = self.actors.get(row.actor) if row.actor else None
            if candidate is not None and candidate.attached:
                candidate.admitted += 1
                if not row.imported:
                    candidate.diverged = True
            usage = row.usage if isinstance(row.usage, dict) else {}
            if not row.imported and row.status == "completed" and usage.get("pure") is False:
                self.close("ask")
        elif row.kind == "read" and row.imported:
            queue = self.reads.get(row.input_hash)
            if queue:
                queue.popleft()
        elif row.kind == "run" and not row.imported:
            self.close("world.run")

    def close(self, cause: str) -> bool:
        """Close the cache (first side effect); True when this call closed it."""
        if self.closed:
            return False
        self.closed, self.closed_by = True, cause
        return True


# ---------------------------------------------------------------------------- amend


def _find(journal, reference: str) -> RunRow | None:
    from dwf.runtime.journal import control as run_service

    try:
        return run_service.resolve_run(journal, reference)
    except run_service.RunLookupError:
        return None


async def supersede(journal, predecessor: RunRow, new_id: str, *, engine=None, control_dir=None,
                    wait_s: float = SUPERSEDE_WAIT_S) -> RunRow:
    """Stop `predecessor` as `stopped(superseded)` if it is live and set its `superseded_by`."""
    from dwf.runtime.journal import control as run_service

    live = engine.runs.get(predecessor.id) if engine is not None else None
    if live is not None and not live.settled.is_set():
        live.cancel("superseded")
        with anyio.move_on_after(live.request.grace_period_s + 2):
            await live.settled.wait()
    current = journal.get_run(predecessor.id) or predecessor
    if current.status == "running" and control_dir is not None \
            and run_service.owner_alive(run_service.read_owner(control_dir, current.id)):
        run_service.request_cancel(control_dir, current.id, reason="superseded")
        with anyio.move_on_after(wait_s):
            while True:
                current = journal.get_run(predecessor.id) or current
                if current.status != "running":
                    break
                await anyio.sleep(0.05)
    with run_service.claim_lock(control_dir) if control_dir is not None else contextlib.nullcontext():
        # under the lock, so a concurrent resume cannot claim the run between our read and write
        return _mark_superseded(journal, journal.get_run(predecessor.id) or current, new_id, control_dir)


def _mark_superseded(journal, current: RunRow, new_id: str, control_dir) -> RunRow:
    from dwf.runtime.journal import control as run_service

    fields: dict[str, Any] = {"superseded_by": new_id}
    if current.status == "running":  # owner gone, or it did not answer in time: mark it ourselves
        message = "the run was stopped (superseded): it was amended"
        fields.update(status="stopped", stop_reason="superseded", error={"message": message, "traceback": None})
        for node in journal.list_nodes(current.id):
            if node.status == "running":
                journal.append_event(current.id, "node-settled", {"site": node.site, "key": node.key, "kind": node.kind,
                                                                  "outcome": "cancelled", "superseded": True})
        journal.append_event(current.id, "run-settled", {"status": "stopped", "stop_reason": "superseded",
                                                         "error": message, "value": None, "superseded_by": new_id})
        if control_dir is not None:
            run_service.release(control_dir, current.id)
    elif current.status == "stopped":
        fields["stop_reason"] = "superseded"
    journal.update_run(current.id, **fields)
    return journal.get_run(current.id)


async def amend(engine, run_id: str, new_script: str, *, journal, agent_port, args: dict | None = None,
                control_dir=None, path: str = "<script>", wait_s: float = SUPERSEDE_WAIT_S, new_id: str | None = None,
                **fields: Any):
    """Amend run `run_id` (RUNTIME §5.2): returns the new `Run` started on `engine` (its id is
    `new_id` when given, e.g. to name the run's question files before it starts).

    Raises `StartError` (predecessor untouched) when the run is unknown or the new script does
    not compile or does not accept the arguments (the predecessor's, unless `args` is given). If
    the engine refuses the new run after the predecessor was stopped, the predecessor is left
    `stopped(interrupted)` without a successor, so it can be resumed."""
    from dwf.compiler.compile import compile_source

    from dwf.runtime.engine.arguments import ArgumentError, validate_args
    from dwf.runtime.engine.engine import StartError, StartRequest, control_dir_of

    predecessor = _find(journal, run_id)
    if predecessor is None:
        raise StartError([f"there is no run {run_id} in this journal"])
    compiled = compile_source(new_script, path)
    if compiled.program is None:
        raise StartError([f"{path}:{d.span.line}:{d.span.column}: {d.code} {d.message}"
                          for d in compiled.diagnostics if d.is_error], compiled.diagnostics)
    run_args = dict(predecessor.args or {}) if args is None else dict(args)
    try:
        validate_args(compiled.program.meta, run_args)
    except ArgumentError as error:
        raise StartError(list(error.problems)) from None
    new_id = new_id or f"dwfrun-{uuid.uuid4().hex}"
    request = StartRequest(script=new_script, agent_port=agent_port, path=path, args=run_args, journal=journal,
                           run_id=new_id, control_dir=control_dir, **fields)
    request.resumed_from = predecessor.id
    stopped = await supersede(journal, predecessor, new_id, engine=engine, control_dir=control_dir_of(request),
                              wait_s=wait_s)
    request.imported_cache = ImportedCache.build(journal, predecessor.id)  # after it stopped: its rows are final
    try:
        return engine.start(request)
    except StartError as error:  # no successor after all: the stopped predecessor stays resumable
        if stopped.status == "stopped":
            reason = predecessor.stop_reason if predecessor.status == "stopped" else "interrupted"
            journal.update_run(predecessor.id, superseded_by=None, stop_reason=reason)
            error.problems.append(f"run {predecessor.id} was stopped for the amend and can be resumed "
                                  "(`dwfc resume`) or amended again")
        else:
            journal.update_run(predecessor.id, superseded_by=None)
        raise
