"""This module defines the `JournalStore` interface (RUNTIME §5), the rows it stores, its error
and `input_hash`. The engine writes every effect through it: a node row `running` before
dispatch, then `completed` or `failed`; reports once. A stored row with the same key is what
replay reuses. `MemoryJournal` (`memory.py`) and `SqliteJournal` (`sqlite.py`) implement it and
pass the same contract tests."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol

from dwf.runtime.journal.codec import canonical


class JournalError(Exception):
    """The journal cannot be read or written (a corrupted, locked, full or read-only store, or a
    row holding invalid data). The message names the store and says what to do."""


# The text `input_hash` hashes. It formats like `dwf.compiler.ir.canonical_json` (sorted keys, no
# spaces, no ASCII escapes), so the two agree on plain JSON, but it is deliberately lenient where
# that one is strict: it must hash whatever inputs an effect has without failing (NaN, an object
# without a JSON form as its `str`), and it must keep hashing exactly as the journals already
# written expect, while an IR hash must never depend on such a value.
_lenient_canonical = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str).encode


def input_hash(value: Any) -> str:
    """The hash of an effect's inputs that replay compares: 32 hex digits of the SHA-256 of
    their canonical JSON text (encoded by orjson where it writes the same text: `codec.canonical`)."""
    return hash_and_size(value)[0]


def hash_and_size(value: Any) -> tuple[str, int]:
    """`input_hash(value)` and the length of the text it hashed (how big the inputs are)."""
    text = canonical(value, _lenient_canonical)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32], len(text)


@dataclass
class NodeRow:
    """NodeRow: one effect occurrence of a run (an ask, read, command, report or artifact)."""

    run_id: str
    site: str
    key: str
    kind: str  # ask | read | run | report | artifact
    actor: str | None
    input_hash: str
    input: Any
    status: str  # running | completed | failed
    result: Any = None
    error: Any = None
    usage: dict = field(default_factory=dict)
    imported: bool = False


@dataclass
class RunRow:
    """RunRow: one run, with what it was started from (script, args, caps) and how it ended."""

    id: str
    script: str
    script_sha256: str
    ir_hash: str
    compiler_version: str
    args: dict
    meta: Any
    caps: dict
    status: str = "running"
    stop_reason: str | None = None
    result: Any = None
    error: Any = None
    usage: dict = field(default_factory=dict)
    resumed_from: str | None = None
    superseded_by: str | None = None
    workflows: dict = field(default_factory=dict)  # saved workflows it calls inline: name -> script
    agent: dict = field(default_factory=dict)  # the pinned agent port: {spec, model, actor_tools}; {} before v4
    resumes: int = 0  # how many times it was resumed (v5; a resume journals no event of its own)
    resumed_at: str | None = None  # when the latest resume began (ISO-8601 UTC)


class JournalStore(Protocol):
    """JournalStore: what the engine, run control, amend and the read models call on a journal;
    `MemoryJournal` and `SqliteJournal` implement all of it. Rows are copies: changing a returned
    row never changes the stored one."""

    path: Path | None  # the file behind the store; None for one in memory
    open_group: int | None  # names the open group transaction; None when nothing is pending

    # -- runs
    def create_run(self, run: RunRow) -> None:
        """Store a new run (ValueError when its id exists)."""

    def update_run(self, run_id: str, **fields: Any) -> None:
        """Change fields of a stored run (KeyError when there is no such run)."""

    def get_run(self, run_id: str) -> RunRow | None:
        """The run `run_id`, or None."""

    def list_runs(self, limit: int | None = None) -> list[RunRow]:
        """Every run, newest first (at most `limit`)."""

    def find_runs(self, prefix: str) -> list[RunRow]:
        """Runs whose id starts with `prefix` (with or without the `dwfrun-` part), newest first."""

    def run_times(self, run_id: str) -> tuple[str, str] | None:
        """(created_at, updated_at) of a run as ISO-8601 UTC text, or None when unknown."""

    # -- actors
    def put_actor(self, run_id: str, site: str, key: str, name: str | None, persona: str | None,
                  model: str | None) -> None:
        """Record the actor created at occurrence `key` of `site` (its session id is kept)."""

    def set_actor_session(self, run_id: str, site: str, key: str, session_id: str | None,
                          effective_model: str | None = None) -> None:
        """Record the agent port's session id of a recorded actor and the model its asks go to."""

    def list_actors(self, run_id: str) -> list[dict]:
        """The run's actors in creation order: {site, key, name, persona, model, session_id, effective_model}."""

    # -- actor conversations (the messages an agent port sent and received, per ask)
    def append_message(self, run_id: str, actor: str, site: str, key: str, message: dict) -> None:
        """Append one message of actor `actor`'s conversation, sent or received for ask (`site`, `key`)."""

    def actor_messages(self, run_id: str, actor: str) -> list[dict]:
        """The actor's messages that belong to settled asks, in order: what a rehydrated actor remembers."""

    def ask_messages(self, run_id: str, site: str, key: str) -> list[dict]:
        """The messages of one ask, in order (an amend imports them with the ask)."""

    def drop_unsettled_messages(self, run_id: str) -> None:
        """Forget the messages of asks that never settled (a resume dispatches them again)."""

    # -- nodes
    def get_node(self, run_id: str, site: str, key: str) -> NodeRow | None:
        """The node row of one effect occurrence, or None."""

    def put_node(self, row: NodeRow) -> None:
        """Write a node row, replacing one with the same key (a re-dispatch after a crash)."""

    def settle_node(self, run_id: str, site: str, key: str, status: str, result: Any = None, error: Any = None,
                    usage: dict | None = None) -> None:
        """Set the outcome of a node written before (KeyError when there is none)."""

    def set_node_usage(self, run_id: str, site: str, key: str, usage: dict) -> None:
        """Record the usage reported so far by a node still `running` (a settled one keeps its own)."""

    def list_nodes(self, run_id: str, *, settled_only: bool = False, with_input: bool = True) -> list[NodeRow]:
        """The run's node rows in the order they were first written; `settled_only` leaves out
        `running` rows, and without `with_input` their inputs are None."""

    # -- events
    def append_event(self, run_id: str, event_type: str, payload: dict, encoded: str | None = None,
                     flat: bool = False) -> int:
        """Append an event to the run's log; returns its sequence number (increasing per run, never
        reused). A run keeps one `run-settled`, its last event: appending another moves the earlier
        one after every other event with the new payload (a resume settling again). `encoded`,
        when given, is the JSON text of `payload` (`codec.dumps`), not encoded again; `flat` says
        the payload holds only str, int, bool and None values and dicts of them, which the
        engine never changes afterwards (`codec.dumps_flat` encodes it, perhaps later)."""

    def events(self, run_id: str, after: int = 0, types: tuple[str, ...] | None = None) -> list[dict]:
        """The run's events after sequence `after` (only those of `types`, when given): {seq, type, payload}."""

    def event_times(self, run_id: str, after: int = 0) -> dict[int, str]:
        """When each event after `after` was written, as ISO-8601 UTC text by sequence number
        (empty for a store that records no times); the run viewer's timeline reads them."""

    # -- group commit: a holder's node rows and events may wait for `commit()` (see SqliteJournal)
    def hold_commits(self, wake: Callable[[], None]) -> None:
        """Group writes from now on; `wake()` is called whenever a group opens."""

    def release_commits(self, wake: Callable[[], None]) -> None:
        """Stop grouping for `wake`'s holder; the last one to release commits."""

    def commit(self) -> None:
        """Commit the open group, if any."""

    def close(self) -> None:
        """Commit what is pending and release the store."""


__all__ = ["JournalError", "JournalStore", "NodeRow", "RunRow", "input_hash"]
