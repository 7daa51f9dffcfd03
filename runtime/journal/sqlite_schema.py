"""This module defines the SQLite journal's schema and its SQL text: the tables of each schema
version as forward migrations (`MIGRATIONS[i]` takes a file from version i to i + 1; append,
never edit), the columns a run row maps to, the statements of the hot paths, and how SQLite's
result codes map onto the kinds of failure `sqlite.py` explains. Only names defined here are
ever written into SQL text; every value is a parameter."""

from __future__ import annotations

import sqlite3
from typing import Callable

NOW = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"  # SQL text, never a value

SCHEMA_V1 = f"""
CREATE TABLE dwf_run (
    id TEXT PRIMARY KEY,
    script TEXT NOT NULL,
    script_sha256 TEXT NOT NULL,
    ir_hash TEXT NOT NULL,
    compiler_version TEXT NOT NULL,
    args TEXT NOT NULL,
    meta TEXT NOT NULL,
    caps TEXT NOT NULL,
    status TEXT NOT NULL,
    stop_reason TEXT,
    result TEXT,
    error TEXT,
    usage TEXT NOT NULL,
    resumed_from TEXT,
    superseded_by TEXT,
    created_at TEXT NOT NULL DEFAULT ({NOW}),
    updated_at TEXT NOT NULL DEFAULT ({NOW})
);
CREATE TABLE dwf_actor (
    run_id TEXT NOT NULL REFERENCES dwf_run(id),
    site_id TEXT NOT NULL,
    occurrence TEXT NOT NULL,
    name TEXT,
    persona TEXT,
    model TEXT,
    session_id TEXT,
    created_at TEXT NOT NULL DEFAULT ({NOW}),
    UNIQUE (run_id, site_id, occurrence)
);
CREATE TABLE dwf_node (
    run_id TEXT NOT NULL REFERENCES dwf_run(id),
    site_id TEXT NOT NULL,
    occurrence_key TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('ask', 'read', 'run', 'report', 'artifact')),
    actor TEXT,
    input_hash TEXT NOT NULL,
    input TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed')),
    result TEXT,
    error TEXT,
    usage TEXT NOT NULL,
    imported INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL DEFAULT ({NOW}),
    updated_at TEXT NOT NULL DEFAULT ({NOW}),
    UNIQUE (run_id, site_id, occurrence_key)
);
CREATE TABLE dwf_event (
    run_id TEXT NOT NULL REFERENCES dwf_run(id),
    sequence INTEGER NOT NULL,
    type TEXT NOT NULL,
    payload TEXT,
    created_at TEXT NOT NULL DEFAULT ({NOW}),
    UNIQUE (run_id, sequence)
);
"""

# Version 2: content-addressed storage of large values. A `*_blob` column holds the sha256 of a
# `dwf_blob` row and the inline JSON column is NULL; small values stay inline.
SCHEMA_V2 = """
CREATE TABLE dwf_blob (
    sha256 TEXT PRIMARY KEY,
    data BLOB NOT NULL
);
ALTER TABLE dwf_run ADD COLUMN result_blob TEXT REFERENCES dwf_blob(sha256);
ALTER TABLE dwf_node ADD COLUMN result_blob TEXT REFERENCES dwf_blob(sha256);
ALTER TABLE dwf_event ADD COLUMN payload_blob TEXT REFERENCES dwf_blob(sha256);
CREATE INDEX dwf_run_created ON dwf_run(created_at);
"""

# Version 3: the saved workflows a run calls inline (`workflow()`), name -> script text as JSON,
# pinned when the run starts so a resume runs what was approved, not today's files.
SCHEMA_V3 = """
ALTER TABLE dwf_run ADD COLUMN workflows TEXT;
"""

# Version 4 (issue #14): actor continuity. `dwf_message` is each actor's conversation as its agent
# port sent and received it, one row per message in order, with the ask (site, occurrence) it
# belongs to; a large message is content-addressed like a large result. `dwf_run.agent` pins the
# agent port spec (no secrets), its model and actor tool set; `dwf_actor.effective_model` is the
# model each actor's asks were sent to.
SCHEMA_V4 = f"""
CREATE TABLE dwf_message (
    run_id TEXT NOT NULL REFERENCES dwf_run(id),
    actor TEXT NOT NULL,
    sequence INTEGER NOT NULL,
    site_id TEXT NOT NULL,
    occurrence_key TEXT NOT NULL,
    message TEXT,
    message_blob TEXT REFERENCES dwf_blob(sha256),
    created_at TEXT NOT NULL DEFAULT ({NOW}),
    UNIQUE (run_id, actor, sequence)
);
CREATE INDEX dwf_message_ask ON dwf_message(run_id, site_id, occurrence_key);
ALTER TABLE dwf_run ADD COLUMN agent TEXT;
ALTER TABLE dwf_actor ADD COLUMN effective_model TEXT;
"""

# Version 5 (issue #14, point 4): a resume is recorded on the run row (how many, when the latest
# began), not as events: replaying a run adds no event.
SCHEMA_V5 = """
ALTER TABLE dwf_run ADD COLUMN resumes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE dwf_run ADD COLUMN resumed_at TEXT;
"""


# Version 6 (issue #18, point 2): one row holds several events. The events an effect emits as it
# runs (PACKED_TYPES), written in one group transaction one after another, are stored in one
# row: `sequence` is the first one's, `last_sequence` the last one's, `type` is PACKED and
# `payload` the JSON array of their `[type, payload]` pairs. A row of one event has
# `last_sequence` NULL (every row written before version 6). Readers expand packed rows, so the
# log reads exactly as before; a 10,000-ask run writes about a thirtieth of the event rows.
SCHEMA_V6 = """
ALTER TABLE dwf_event ADD COLUMN last_sequence INTEGER;
"""
PACKED = "events"  # the `type` of a packed row (not an event type)
PACKED_TYPES = frozenset(("node-queued", "node-started", "node-progress", "node-settled", "usage-updated"))


def _script(sql: str) -> Callable[[sqlite3.Connection], None]:
    """A migration that runs the statements of `sql` in order."""
    def apply(conn: sqlite3.Connection) -> None:
        for statement in sql.split(";"):
            if statement.strip():
                conn.execute(statement)
    return apply


# Forward migrations: MIGRATIONS[i] takes a database from version i to version i + 1. Each is
# applied inside the same transaction as the version row that records it. Append, never edit.
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [_script(SCHEMA_V1), _script(SCHEMA_V2),
                                                           _script(SCHEMA_V3), _script(SCHEMA_V4),
                                                           _script(SCHEMA_V5), _script(SCHEMA_V6)]
SCHEMA_VERSION = len(MIGRATIONS)
# The table that records them, created in the transaction of the first migration.
VERSION_TABLE = f"CREATE TABLE dwf_schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL DEFAULT ({NOW}))"

ERROR_KINDS = (  # (SQLite primary result code, kind, words in the message when no code is known)
    ("SQLITE_BUSY", "locked", "locked"), ("SQLITE_LOCKED", "locked", "locked"), ("SQLITE_FULL", "full", "is full"),
    ("SQLITE_READONLY", "readonly", "readonly"), ("SQLITE_CORRUPT", "corrupt", "malformed"),
    ("SQLITE_NOTADB", "corrupt", "not a database"), ("SQLITE_CANTOPEN", "cantopen", "unable to open"),
    ("SQLITE_IOERR", "io", "disk i/o"), ("SQLITE_PERM", "readonly", "permission"),
)


# RunRow field -> dwf_run column: the only names ever written into SQL text.
RUN_JSON = ("args", "meta", "caps", "result", "error", "usage", "workflows", "agent")
RUN_TEXT = ("script", "script_sha256", "ir_hash", "compiler_version", "status", "stop_reason",
            "resumed_from", "superseded_by", "resumes", "resumed_at")  # stored as given
RUN_COLUMNS = ("id",) + RUN_TEXT + RUN_JSON + ("result_blob",)


INSERT_NODE = (
    "INSERT INTO dwf_node (run_id, site_id, occurrence_key, kind, actor, input_hash, input, status, result, "
    "result_blob, error, usage, imported) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
# The same with the rowid given: the rows of a group transaction are inserted together, each
# with the next rowid (no other connection writes while the group holds the write lock), so a
# row's settlement finds it by rowid without reading its rowid back.
# Its times are given too, one per group (SQLite's `strftime` default cost a microsecond a call).
INSERT_NODE_AT = (INSERT_NODE.replace("(run_id, ", "(rowid, run_id, ", 1).replace("VALUES (", "VALUES (?, ", 1)
                  .replace("imported) VALUES", "imported, created_at, updated_at) VALUES").replace("?)", "?, ?, ?)"))
# An upsert costs twice a plain insert even without a conflict, so it is only the fallback.
PUT_NODE = (
    INSERT_NODE + " ON CONFLICT (run_id, site_id, occurrence_key) DO UPDATE SET kind = excluded.kind, actor = excluded.actor, "
    "input_hash = excluded.input_hash, input = excluded.input, status = excluded.status, "
    "result = excluded.result, result_blob = excluded.result_blob, error = excluded.error, "
    f"usage = excluded.usage, imported = excluded.imported, updated_at = {NOW}")
# The usage reported so far by an effect still running (an ask between model calls).
NODE_USAGE = "UPDATE dwf_node SET usage = ? WHERE run_id = ? AND site_id = ? AND occurrence_key = ? AND status = 'running'"
SETTLE_NODE = (f"UPDATE dwf_node SET status = ?, result = ?, result_blob = ?, error = ?, usage = ?, updated_at = {NOW} "
               "WHERE run_id = ? AND site_id = ? AND occurrence_key = ?")
# The same, for a row this connection inserted: found by its rowid (the table's own b-tree, no
# index probe over three text columns), the key still checked; the time is given (the tenth value).
SETTLE_NODE_AT = ("UPDATE dwf_node SET status = ?1, result = ?2, result_blob = ?3, error = ?4, usage = ?5, "
                  "updated_at = ?10 WHERE run_id = ?6 AND site_id = ?7 AND occurrence_key = ?8 AND rowid = ?9")
# The sequence is allocated by the INSERT itself, under the write lock: increasing per run even
# with several processes appending (gap-free but for the number a moved run-settled left, below).
# (A VALUES subquery, not INSERT ... SELECT, which would stage the row in a temporary table because
# it reads the table it writes; and no RETURNING, which costs more than reading the row back by its
# rowid.)
# The run's last sequence: that of the row with the greatest first sequence (rows never overlap).
_LAST = ("(SELECT COALESCE(last_sequence, sequence) FROM dwf_event WHERE run_id = ? "
         "ORDER BY sequence DESC LIMIT 1)")
APPEND_EVENT = ("INSERT INTO dwf_event (run_id, sequence, type, payload, payload_blob) VALUES "
                f"(?, COALESCE({_LAST}, 0) + 1, ?, ?, ?)")
# The events of a group transaction: their sequences were handed out while it held the write
# lock (the next after the run's last), and are checked against the table after the insert.
APPEND_EVENT_AT = ("INSERT INTO dwf_event (run_id, sequence, last_sequence, type, payload, payload_blob) "
                   "VALUES (?, ?, ?, ?, ?, ?)")

# A run keeps one `run-settled`, its last event: settling again (a resume, a reconcile) moves the
# earlier one to a fresh sequence after every other event with the new payload. Numbers are never
# reused (the moved row keeps holding the maximum), so a follower reading `after=N` misses nothing;
# the number it left is a hole.
MOVE_SETTLED = (f"UPDATE dwf_event SET sequence = {_LAST} + 1, "
                f"payload = ?, payload_blob = ?, created_at = {NOW} WHERE run_id = ? AND type = 'run-settled'")
LAST_SEQUENCE = f"SELECT COALESCE({_LAST}, 0)"
# The events after a sequence: the rows that begin after it, and the packed row it falls inside.
EVENTS_AFTER = ("SELECT sequence, last_sequence, type, payload, payload_blob{extra} FROM dwf_event "
                "WHERE run_id = ? AND sequence > ?{only} ORDER BY sequence")
EVENTS_STRADDLING = ("SELECT sequence, last_sequence, type, payload, payload_blob{extra} FROM dwf_event "
                     "WHERE run_id = ? AND sequence <= ? ORDER BY sequence DESC LIMIT 1")

# An actor's messages: the sequence is allocated by the INSERT itself, like an event's.
APPEND_MESSAGE = ("INSERT INTO dwf_message (run_id, actor, sequence, site_id, occurrence_key, message, message_blob) "
                  "VALUES (?, ?, (SELECT COALESCE(MAX(sequence), 0) + 1 FROM dwf_message WHERE run_id = ? AND actor = ?), "
                  "?, ?, ?, ?)")
_SETTLED_ASK = ("SELECT 1 FROM dwf_node n WHERE n.run_id = m.run_id AND n.site_id = m.site_id "
                "AND n.occurrence_key = m.occurrence_key AND n.status IN ('completed', 'failed')")
# What a rehydrated actor remembers: the messages of its settled asks, in order.
ACTOR_MESSAGES = (f"SELECT m.message, m.message_blob FROM dwf_message m WHERE m.run_id = ? AND m.actor = ? "
                  f"AND EXISTS ({_SETTLED_ASK}) ORDER BY m.sequence")
ASK_MESSAGES = ("SELECT message, message_blob FROM dwf_message WHERE run_id = ? AND site_id = ? AND occurrence_key = ? "
                "ORDER BY sequence")
# A resume drops what asks that never settled had sent: their re-dispatch sends it again.
DROP_UNSETTLED_MESSAGES = f"DELETE FROM dwf_message AS m WHERE m.run_id = ? AND NOT EXISTS ({_SETTLED_ASK})"

# The columns a node row is read from, in `NodeRow` order (with the blob reference after `result`).
NODE_COLUMNS = "site_id, occurrence_key, kind, actor, input_hash, input, status, result, result_blob, error, usage, imported"

__all__ = ["ACTOR_MESSAGES", "APPEND_EVENT", "APPEND_EVENT_AT", "APPEND_MESSAGE", "ASK_MESSAGES", "DROP_UNSETTLED_MESSAGES", "ERROR_KINDS", "EVENTS_AFTER", "EVENTS_STRADDLING",
           "INSERT_NODE", "INSERT_NODE_AT", "LAST_SEQUENCE", "MIGRATIONS", "MOVE_SETTLED", "NODE_COLUMNS", "NODE_USAGE", "NOW", "PACKED", "PACKED_TYPES", "PUT_NODE", "RUN_COLUMNS", "RUN_JSON", "RUN_TEXT", "SCHEMA_V1", "SCHEMA_V2", "SCHEMA_V3", "SCHEMA_V4", "SCHEMA_V5", "SCHEMA_V6", "SCHEMA_VERSION", "SETTLE_NODE", "SETTLE_NODE_AT",
           "VERSION_TABLE"]
