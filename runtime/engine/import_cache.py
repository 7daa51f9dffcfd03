"""This module defines the imported cache of an amend run (RUNTIME §5.2): the pure data taken
from the predecessor's journal, which the engine consults after the run's own journal and before
dispatching live. `host/amend.py` builds it when it amends a run; the engine rebuilds it when it
resumes an amended run.

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

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from dwf.runtime.journal.store import JournalStore, NodeRow


@dataclass
class CachedAsk:
    """CachedAsk is one completed ask of the predecessor that a new ask may import."""

    input_hash: str
    result: Any
    pure: bool
    usage: dict = field(default_factory=dict)
    site: str = ""  # the predecessor's node, whose actor messages an import copies
    key: str = ""


@dataclass
class ActorCache:
    """The predecessor's asks of one named actor, and how far the new run has matched them."""

    persona: str | None
    entries: list[CachedAsk]
    attached: bool = False
    admitted: int = 0  # asks of this actor admitted so far in the new run (the next seq)
    diverged: bool = False


class ImportedCache:
    """Matching state of one amend run over the pure data taken from its predecessor."""

    def __init__(self, predecessor: str, actors: dict[str, ActorCache], reads: dict[str, deque]):
        self.predecessor = predecessor
        self.actors = actors
        self.reads = reads
        self.closed = False
        self.closed_by: str | None = None
        self.hits = 0

    # ------------------------------------------------------------ construction

    @classmethod
    def build(cls, journal: JournalStore, predecessor: str) -> ImportedCache:
        """The cache over the settled rows of run `predecessor` in `journal`."""
        actors_rows = journal.list_actors(predecessor)
        counts: dict[str, int] = {}
        for actor in actors_rows:
            if actor.get("name"):
                counts[actor["name"]] = counts.get(actor["name"], 0) + 1
        nodes = journal.list_nodes(predecessor)
        actors: dict[str, ActorCache] = {}
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
                entries.append(CachedAsk(node.input_hash, node.result, usage.get("pure") is True, usage,
                                         node.site, node.key))
            actors[name] = ActorCache(actor.get("persona"), entries)
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
        """(True, result) when a read with input hash `digest` imports the predecessor's result."""
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
