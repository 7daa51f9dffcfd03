"""This module defines `MemoryJournal`, the `JournalStore` in memory: what a run given no journal
uses (snippets, tests). It keeps JSON text, as a database would, so a caller can never change
a stored row through a reference it kept (and serializing is far cheaper than a deep copy). It
writes every row at once, so there is nothing to group and `open_group` is always None; it
records no times (`run_times` is None)."""

from __future__ import annotations

import copy
import json
from typing import Any, Callable

from dwf.runtime.journal.codec import dumps_flat
from dwf.runtime.journal.store import NodeRow, RunRow


class MemoryJournal:
    """MemoryJournal(): a `JournalStore` keeping everything in dicts (see the module docstring)."""

    path = None  # no file behind it: a run over it has no control folder
    # Every write is immediately visible here, so there is nothing to group.
    open_group = None

    def __init__(self) -> None:
        self.runs: dict[str, RunRow] = {}
        self.actors: dict[tuple[str, str, str], dict] = {}
        self.nodes: dict[tuple[str, str, str], tuple] = {}
        self._events: dict[str, list[tuple[int, str, str]]] = {}
        self.messages: list[tuple[str, str, str, str, str]] = []  # (run, actor, site, key, message JSON)

    def create_run(self, run: RunRow) -> None:
        if run.id in self.runs:
            raise ValueError(f"run {run.id} exists")
        self.runs[run.id] = copy.deepcopy(run)

    def update_run(self, run_id: str, **fields: Any) -> None:
        row = self.runs[run_id]
        for name, value in fields.items():
            setattr(row, name, copy.deepcopy(value))

    def get_run(self, run_id: str) -> RunRow | None:
        row = self.runs.get(run_id)
        return copy.deepcopy(row) if row else None

    def list_runs(self, limit: int | None = None) -> list[RunRow]:
        """Every run, newest first."""
        rows = [copy.deepcopy(row) for row in reversed(self.runs.values())]
        return rows if limit is None else rows[:limit]

    def find_runs(self, prefix: str) -> list[RunRow]:
        """Runs whose id starts with `prefix` (with or without the `dwfrun-` part), newest first."""
        full = prefix if prefix.startswith("dwfrun-") else f"dwfrun-{prefix}"
        return [row for row in self.list_runs() if row.id.startswith(prefix) or row.id.startswith(full)]

    def run_times(self, run_id: str) -> tuple[str, str] | None:
        """None: this store records no times."""
        return None

    def put_actor(self, run_id, site, key, name, persona, model) -> None:
        known = self.actors.get((run_id, site, key), {})
        self.actors[(run_id, site, key)] = {"name": name, "persona": persona, "model": model,
                                            "session_id": known.get("session_id"),
                                            "effective_model": known.get("effective_model")}

    def set_actor_session(self, run_id: str, site: str, key: str, session_id: str | None,
                          effective_model: str | None = None) -> None:
        if (run_id, site, key) in self.actors:
            self.actors[(run_id, site, key)].update(session_id=session_id, effective_model=effective_model)

    def append_message(self, run_id: str, actor: str, site: str, key: str, message: dict) -> None:
        self.messages.append((run_id, actor, site, key, json.dumps(message)))

    def actor_messages(self, run_id: str, actor: str) -> list[dict]:
        return [json.loads(text) for run, who, site, key, text in self.messages
                if (run, who) == (run_id, actor) and self._settled(run, site, key)]

    def ask_messages(self, run_id: str, site: str, key: str) -> list[dict]:
        return [json.loads(text) for run, _, at, occurrence, text in self.messages if (run, at, occurrence) == (run_id, site, key)]

    def drop_unsettled_messages(self, run_id: str) -> None:
        self.messages = [m for m in self.messages if m[0] != run_id or self._settled(m[0], m[2], m[3])]

    def _settled(self, run_id: str, site: str, key: str) -> bool:
        stored = self.nodes.get((run_id, site, key))
        return stored is not None and stored[4] in ("completed", "failed")

    def list_actors(self, run_id: str) -> list[dict]:
        return [{"site": site, "key": key, **fields} for (run, site, key), fields in self.actors.items() if run == run_id]

    def list_nodes(self, run_id: str, *, settled_only: bool = False, with_input: bool = True) -> list[NodeRow]:
        """The run's node rows in the order they were first written (see SqliteJournal)."""
        rows = [self.get_node(*key) for key in self.nodes if key[0] == run_id]
        if not with_input:
            for row in rows:
                row.input = None
        return [row for row in rows if row.status in ("completed", "failed")] if settled_only else rows

    def get_node(self, run_id: str, site: str, key: str) -> NodeRow | None:
        stored = self.nodes.get((run_id, site, key))
        if stored is None:
            return None
        kind, actor, digest, data, status, outcome, imported = stored
        result, error, usage = json.loads(outcome)
        return NodeRow(run_id, site, key, kind, actor, digest, json.loads(data), status, result, error, usage, imported)

    def put_node(self, row: NodeRow) -> None:
        self.nodes[(row.run_id, row.site, row.key)] = (
            row.kind, row.actor, row.input_hash, json.dumps(row.input), row.status,
            json.dumps([row.result, row.error, row.usage]), row.imported)

    def settle_node(self, run_id: str, site: str, key: str, status: str, result: Any = None, error: Any = None,
                    usage: dict | None = None) -> None:
        stored = self.nodes.get((run_id, site, key))
        if stored is None:
            raise KeyError((run_id, site, key))
        kind, actor, digest, data, _, _, imported = stored
        self.nodes[(run_id, site, key)] = (kind, actor, digest, data, status, json.dumps([result, error, usage or {}]), imported)

    def set_node_usage(self, run_id: str, site: str, key: str, usage: dict) -> None:
        stored = self.nodes.get((run_id, site, key))
        if stored is not None and stored[4] == "running":
            result, error, _ = json.loads(stored[5])
            self.nodes[(run_id, site, key)] = stored[:5] + (json.dumps([result, error, usage]),) + stored[6:]

    def append_event(self, run_id: str, event_type: str, payload: dict, encoded: str | None = None,
                     flat: bool = False) -> int:
        events = self._events.setdefault(run_id, [])
        sequence = events[-1][0] + 1 if events else 1
        if event_type == "run-settled":  # the run keeps one, its last event (see JournalStore)
            events[:] = [event for event in events if event[1] != "run-settled"]
        if encoded is None:
            encoded = dumps_flat(payload) if flat else json.dumps(payload)
        events.append((sequence, event_type, encoded))
        return sequence

    def events(self, run_id: str, after: int = 0, types: tuple[str, ...] | None = None) -> list[dict]:
        return [{"seq": seq, "type": kind, "payload": json.loads(payload)}
                for seq, kind, payload in self._events.get(run_id, []) if seq > after and (types is None or kind in types)]

    def event_times(self, run_id: str, after: int = 0) -> dict[int, str]:
        """Empty: this store records no times."""
        return {}

    def hold_commits(self, wake: Callable[[], None]) -> None:
        pass

    def release_commits(self, wake: Callable[[], None]) -> None:
        pass

    def commit(self) -> None:
        pass

    def close(self) -> None:
        pass
