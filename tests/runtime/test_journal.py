"""The journal stores (RUNTIME §5): one contract suite run against `MemoryJournal` and
`SqliteJournal`, then the SQLite store's own guarantees (WAL, migrations, content-addressed
blobs, concurrent appends, crash safety) and its clear errors on bad input (corrupted,
truncated, locked, full or read-only files, rows holding invalid JSON), and a real workflow
journaled through the engine."""

from __future__ import annotations

import re
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from dwf.runtime.engine import Engine, StartRequest
from dwf.runtime.journal.memory import MemoryJournal
from dwf.runtime.journal.store import JournalError, JournalStore, NodeRow, RunRow
from fakes import FakeAgentPort
from dwf.runtime.journal.sqlite import BLOB_THRESHOLD, SCHEMA_VERSION, SqliteJournal

ROOT = Path(__file__).resolve().parent.parent.parent


def make_run(run_id: str = "dwfrun-aaaa", **fields) -> RunRow:
    values = dict(id=run_id, script="return 1\n", script_sha256="s" * 64, ir_hash="i" * 32, compiler_version="0.1.0",
                  args={"n": 3, "names": ["a", "b"]}, meta={"name": "t", "description": "d"},
                  caps={"max_concurrency": 4, "max_agents": 10, "budget": None})
    values.update(fields)
    return RunRow(**values)


def make_node(run_id="dwfrun-aaaa", site="ask#1", key="ask#1", status="running", **fields) -> NodeRow:
    values = dict(kind="ask", actor="lead", input_hash="h" * 32, input={"instructions": "go"}, status=status)
    values.update(fields)
    return NodeRow(run_id, site, key, **values)


@pytest.fixture(params=["memory", "sqlite"])
def journal(request, tmp_path):
    if request.param == "memory":
        yield MemoryJournal()
    else:
        store = SqliteJournal(tmp_path / "nested" / "state.db")
        yield store
        store.close()


# ---------------------------------------------------------------------------- contract


def test_both_stores_implement_every_member_of_the_interface(journal):
    members = [name for name in vars(JournalStore) if not name.startswith("_")]
    members += list(JournalStore.__annotations__)
    assert {"list_nodes", "list_runs", "find_runs", "list_actors", "set_actor_session", "run_times"} <= set(members)
    assert [name for name in members if not hasattr(journal, name)] == []


def test_runs_round_trip_and_update(journal):
    run = make_run()
    journal.create_run(run)
    assert journal.get_run(run.id) == run
    assert journal.get_run("dwfrun-missing") is None
    journal.update_run(run.id, status="stopped", stop_reason="user", result={"value": [1, 2]},
                       error={"message": "stopped", "traceback": None}, usage={"output_tokens": 7},
                       caps={"max_concurrency": 8, "max_agents": 10, "budget": 5}, superseded_by="dwfrun-bbbb")
    stored = journal.get_run(run.id)
    assert (stored.status, stored.stop_reason, stored.result, stored.usage) == ("stopped", "user", {"value": [1, 2]},
                                                                                  {"output_tokens": 7})
    assert stored.error == {"message": "stopped", "traceback": None}
    assert stored.caps["max_concurrency"] == 8 and stored.superseded_by == "dwfrun-bbbb"
    assert stored.script == run.script and stored.args == run.args and stored.meta == run.meta
    journal.update_run(run.id, result=None)
    assert journal.get_run(run.id).result is None
    called = make_run("dwfrun-cccc", workflows={"lint": "meta = {}\nreturn 1\n"})
    journal.create_run(called)
    assert journal.get_run(called.id).workflows == {"lint": "meta = {}\nreturn 1\n"}
    assert journal.get_run(run.id).workflows == {}


def test_a_run_id_is_unique_and_updates_need_an_existing_run(journal):
    journal.create_run(make_run())
    with pytest.raises(ValueError):
        journal.create_run(make_run(script="other"))
    assert journal.get_run("dwfrun-aaaa").script == "return 1\n"
    with pytest.raises(KeyError):
        journal.update_run("dwfrun-missing", status="completed")


def test_returned_and_passed_rows_are_copies(journal):
    run = make_run()
    journal.create_run(run)
    run.args["n"] = 99  # the caller's object changes after the write
    fetched = journal.get_run(run.id)
    assert fetched.args["n"] == 3
    fetched.args["n"] = 100
    fetched.meta["name"] = "changed"
    assert journal.get_run(run.id).args["n"] == 3 and journal.get_run(run.id).meta["name"] == "t"

    node = make_node(status="completed", result={"items": [1, 2]}, usage={"output_tokens": 3})
    journal.put_node(node)
    node.result["items"].append(3)
    fetched = journal.get_node("dwfrun-aaaa", "ask#1", "ask#1")
    assert fetched.result == {"items": [1, 2]}
    fetched.result["items"].clear()
    fetched.input["instructions"] = "changed"
    again = journal.get_node("dwfrun-aaaa", "ask#1", "ask#1")
    assert again.result == {"items": [1, 2]} and again.input == {"instructions": "go"}

    payload = {"items": [1]}
    journal.append_event("dwfrun-aaaa", "log", payload)
    payload["items"].append(2)
    events = journal.events("dwfrun-aaaa")
    events[0]["payload"]["items"].append(3)
    assert journal.events("dwfrun-aaaa")[0]["payload"] == {"items": [1]}


def test_actors_are_keyed_by_run_site_and_occurrence(journal):
    journal.create_run(make_run())
    journal.put_actor("dwfrun-aaaa", "agent#1", "agent#1[0]", "a", "persona a", None)
    journal.put_actor("dwfrun-aaaa", "agent#1", "agent#1[1]", "b", None, "model-x")
    journal.put_actor("dwfrun-aaaa", "agent#1", "agent#1[0]", "a2", "persona a2", "m")  # same key: replaced
    journal.set_actor_session("dwfrun-aaaa", "agent#1", "agent#1[1]", "session-1", "model-x-2")
    actors = journal.list_actors("dwfrun-aaaa")
    assert actors == [
        {"site": "agent#1", "key": "agent#1[0]", "name": "a2", "persona": "persona a2", "model": "m", "session_id": None,
         "effective_model": None},
        {"site": "agent#1", "key": "agent#1[1]", "name": "b", "persona": None, "model": "model-x", "session_id": "session-1",
         "effective_model": "model-x-2"},
    ]
    assert journal.list_actors("dwfrun-other") == []


def test_nodes_round_trip_and_are_unique_per_run_site_and_key(journal):
    journal.create_run(make_run())
    journal.create_run(make_run("dwfrun-bbbb"))
    assert journal.get_node("dwfrun-aaaa", "ask#1", "ask#1") is None
    journal.put_node(make_node())
    assert journal.get_node("dwfrun-aaaa", "ask#1", "ask#1").status == "running"
    journal.put_node(make_node(status="completed", result="done", usage={"output_tokens": 5}))
    journal.put_node(make_node(key="ask#1[1]", status="failed", error={"type": "AskFailed", "message": "no"}))
    journal.put_node(make_node("dwfrun-bbbb", status="completed", result=None, imported=True, kind="read", actor=None))
    done = journal.get_node("dwfrun-aaaa", "ask#1", "ask#1")
    assert done == make_node(status="completed", result="done", usage={"output_tokens": 5})
    failed = journal.get_node("dwfrun-aaaa", "ask#1", "ask#1[1]")
    assert (failed.status, failed.error, failed.result) == ("failed", {"type": "AskFailed", "message": "no"}, None)
    other = journal.get_node("dwfrun-bbbb", "ask#1", "ask#1")
    assert (other.imported, other.kind, other.actor, other.result) == (True, "read", None, None)
    assert [n.key for n in journal.list_nodes("dwfrun-aaaa")] == ["ask#1", "ask#1[1]"]  # first-write order, one row per key
    journal.put_node(make_node(key="ask#1[2]"))  # still running
    settled = journal.list_nodes("dwfrun-aaaa", settled_only=True, with_input=False)
    assert [(n.key, n.status, n.input, n.result) for n in settled] == [("ask#1", "completed", None, "done"),
                                                                        ("ask#1[1]", "failed", None, None)]
    assert journal.get_node("dwfrun-aaaa", "ask#2", "ask#1") is None


def test_settle_node_changes_only_the_outcome(journal):
    journal.create_run(make_run())
    journal.put_node(make_node(input={"instructions": "go", "schema": {"type": "object"}}))
    journal.settle_node("dwfrun-aaaa", "ask#1", "ask#1", "completed", result={"n": 1}, usage={"output_tokens": 3})
    assert journal.get_node("dwfrun-aaaa", "ask#1", "ask#1") == make_node(
        input={"instructions": "go", "schema": {"type": "object"}}, status="completed", result={"n": 1},
        usage={"output_tokens": 3})
    journal.put_node(make_node(key="ask#1[1]"))
    journal.settle_node("dwfrun-aaaa", "ask#1", "ask#1[1]", "failed", error={"type": "AskFailed", "message": "no"})
    failed = journal.get_node("dwfrun-aaaa", "ask#1", "ask#1[1]")
    assert (failed.status, failed.result, failed.error, failed.usage) == ("failed", None, {"type": "AskFailed", "message": "no"}, {})
    with pytest.raises(KeyError):  # only a node written `running` before can be settled
        journal.settle_node("dwfrun-aaaa", "ask#9", "ask#9", "completed", result=1)


def test_held_commits_group_rows_until_commit(journal):
    journal.create_run(make_run())
    wakes = []
    journal.hold_commits(lambda: wakes.append(journal.open_group))
    journal.put_node(make_node())
    journal.append_event("dwfrun-aaaa", "node-queued", {"key": "ask#1"})
    assert journal.get_node("dwfrun-aaaa", "ask#1", "ask#1").status == "running"  # visible to the writer at once
    journal.commit()
    assert journal.open_group is None
    journal.append_event("dwfrun-aaaa", "log", {"message": "after"})
    journal.release_commits(wakes.append)  # not a holder: nothing changes
    journal.release_commits(journal.commit)  # not a holder either
    assert [e["type"] for e in journal.events("dwfrun-aaaa")] == ["node-queued", "log"]
    if isinstance(journal, SqliteJournal):
        assert len(wakes) == 2 and wakes[0] != wakes[1]  # one wake per group transaction, each a new group


def _committed(path: Path, sql: str, *params) -> list:
    """What another process would see: a second connection reads only committed rows."""
    with sqlite3.connect(path) as other:
        return other.execute(sql, params).fetchall()


def _committed_events(path: Path, run_id: str) -> list[tuple[int, str]]:
    """The (sequence, type) of the run's committed events, read from the file by hand: a packed
    row (schema 6) holds the [type, payload] pairs of the events from `sequence` to `last_sequence`."""
    events = []
    for first, last, kind, payload in _committed(path, "SELECT sequence, last_sequence, type, payload FROM dwf_event "
                                                       "WHERE run_id = ? ORDER BY sequence", run_id):
        if last is None:
            events.append((first, kind))
        else:
            pairs = __import__("json").loads(payload)
            assert kind == "events" and len(pairs) == last - first + 1
            events += [(first + offset, pair[0]) for offset, pair in enumerate(pairs)]
    return events


def holding(path: Path) -> tuple[SqliteJournal, object]:
    """A journal at `path` with one run, holding its commits (as a run's engine does): the
    journal and the holder's `wake`, to release them with."""
    journal = SqliteJournal(path)
    journal.create_run(make_run())
    wake = lambda: None  # noqa: E731
    journal.hold_commits(wake)
    return journal, wake


def test_a_held_group_is_invisible_to_other_connections_until_committed(tmp_path):
    path = tmp_path / "state.db"
    journal, wake = holding(path)
    journal.put_node(make_node())
    journal.append_event("dwfrun-aaaa", "log", {"message": "grouped"})
    group = journal.open_group
    assert group is not None
    assert _committed(path, "SELECT count(*) FROM dwf_node") == [(0,)]
    journal.settle_node("dwfrun-aaaa", "ask#1", "ask#1", "completed", result="r")
    assert journal.open_group == group  # the same group: one commit will cover all three rows
    journal.commit()
    assert _committed(path, "SELECT status, result FROM dwf_node") == [("completed", '"r"')]
    journal.append_event("dwfrun-aaaa", "log", {"message": "pending at release"})
    journal.release_commits(wake)  # the last holder commits what is pending
    assert journal.open_group is None
    assert _committed(path, "SELECT count(*) FROM dwf_event") == [(2,)]
    journal.hold_commits(wake)
    journal.append_event("dwfrun-aaaa", "log", {"message": "pending at close"})
    journal.close()  # commits too
    assert _committed(path, "SELECT count(*) FROM dwf_event") == [(3,)]


def test_large_values_round_trip(journal):
    journal.create_run(make_run())
    big = {"text": "x" * (BLOB_THRESHOLD * 3), "list": list(range(500))}
    journal.put_node(make_node(status="completed", result=big))
    journal.update_run("dwfrun-aaaa", result=big)
    journal.append_event("dwfrun-aaaa", "report", {"item": big})
    assert journal.get_node("dwfrun-aaaa", "ask#1", "ask#1").result == big
    assert journal.get_run("dwfrun-aaaa").result == big
    assert journal.events("dwfrun-aaaa")[0]["payload"] == {"item": big}


def test_event_sequences_are_per_run_monotonic_and_gap_free(journal):
    journal.create_run(make_run())
    journal.create_run(make_run("dwfrun-bbbb"))
    seqs = [journal.append_event("dwfrun-aaaa", "log", {"message": str(i)}) for i in range(5)]
    assert seqs == [1, 2, 3, 4, 5]
    assert journal.append_event("dwfrun-bbbb", "run-started", {}) == 1
    assert journal.append_event("dwfrun-aaaa", "run-settled", {"status": "completed"}) == 6
    events = journal.events("dwfrun-aaaa")
    assert [e["seq"] for e in events] == [1, 2, 3, 4, 5, 6]
    assert events[0] == {"seq": 1, "type": "log", "payload": {"message": "0"}}
    assert [e["seq"] for e in journal.events("dwfrun-aaaa", after=4)] == [5, 6]
    assert journal.events("dwfrun-bbbb") == [{"seq": 1, "type": "run-started", "payload": {}}]
    assert journal.events("dwfrun-none") == []


@pytest.mark.parametrize("grouped", [False, True])
def test_a_run_keeps_one_run_settled_moved_to_the_end_and_never_reuses_a_number(journal, grouped):
    journal.create_run(make_run())
    wake = lambda: None  # noqa: E731
    if grouped:  # the engine's group commit: pending events take their numbers first
        journal.hold_commits(wake)
    for i in range(3):
        journal.append_event("dwfrun-aaaa", "log", {"message": str(i)})
    assert journal.append_event("dwfrun-aaaa", "run-settled", {"status": "stopped"}) == 4
    assert journal.append_event("dwfrun-aaaa", "run-settled", {"status": "completed"}) == 5  # nothing between: moved on
    journal.append_event("dwfrun-aaaa", "node-settled", {"key": "ask#9"})  # a resume's new work
    assert journal.append_event("dwfrun-aaaa", "run-settled", {"status": "completed", "again": True}) == 7
    journal.commit()
    events = journal.events("dwfrun-aaaa")
    assert [(e["seq"], e["type"]) for e in events] == [(1, "log"), (2, "log"), (3, "log"), (6, "node-settled"),
                                                       (7, "run-settled")]
    assert events[-1]["payload"] == {"status": "completed", "again": True}
    assert journal.append_event("dwfrun-aaaa", "log", {"message": "late"}) == 8  # after the maximum: no reuse
    if grouped:
        journal.release_commits(wake)


def test_list_runs_newest_first_and_find_by_prefix(journal):
    for run_id in ("dwfrun-abc1", "dwfrun-abd2", "dwfrun-x_y3"):
        journal.create_run(make_run(run_id))
    assert [r.id for r in journal.list_runs()] == ["dwfrun-x_y3", "dwfrun-abd2", "dwfrun-abc1"]
    assert [r.id for r in journal.list_runs(limit=1)] == ["dwfrun-x_y3"]
    assert [r.id for r in journal.find_runs("ab")] == ["dwfrun-abd2", "dwfrun-abc1"]
    assert [r.id for r in journal.find_runs("dwfrun-abc")] == ["dwfrun-abc1"]
    assert [r.id for r in journal.find_runs("x_")] == ["dwfrun-x_y3"]
    assert journal.find_runs("x%") == [] and journal.find_runs("a_c") == []  # wildcards are literal
    assert journal.find_runs("zz") == []


# ---------------------------------------------------------------------------- SQLite: layout


def test_file_layout_wal_and_schema(tmp_path):
    path = tmp_path / "deep" / "dir" / "state.db"
    with SqliteJournal(path) as journal:
        assert path.exists()
        assert journal.schema_version() == SCHEMA_VERSION
        assert journal._conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
        journal.check()
        journal.create_run(make_run())
        created, updated = journal.run_times("dwfrun-aaaa")
        journal.update_run("dwfrun-aaaa", status="completed")
        assert journal.run_times("dwfrun-aaaa")[0] == created and journal.run_times("dwfrun-aaaa")[1] >= updated
        assert created.endswith("Z") and journal.run_times("dwfrun-none") is None
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"dwf_schema_version", "dwf_run", "dwf_actor", "dwf_node", "dwf_event", "dwf_blob"} <= tables
    conn.close()
    assert SqliteJournal.for_workspace(tmp_path / "ws").path == tmp_path / "ws" / ".dwf" / "state.db"


def test_repeated_large_results_are_stored_once(tmp_path):
    with SqliteJournal(tmp_path / "state.db") as journal:
        journal.create_run(make_run())
        big = "line of a large file\n" * 5000  # ~100 KB
        journal.put_node(make_node(key="read#1[0]", kind="read", status="completed", result=big))
        journal.append_event("dwfrun-aaaa", "report", {"item": big})
        size_after_one = journal._conn.execute("PRAGMA page_count").fetchone()[0]
        for i in range(1, 40):
            journal.put_node(make_node(key=f"read#1[{i}]", kind="read", status="completed", result=big))
            journal.append_event("dwfrun-aaaa", "report", {"item": big})
        pages = journal._conn.execute("PRAGMA page_count").fetchone()[0]
        page_size = journal._conn.execute("PRAGMA page_size").fetchone()[0]
        assert journal._conn.execute("SELECT count(*) FROM dwf_blob").fetchone()[0] == 2
        assert (pages - size_after_one) * page_size < 64 * 1024  # 78 more ~100 KB values: a few pages of refs
        assert journal.get_node("dwfrun-aaaa", "ask#1", "read#1[17]").result == big


def _appender(path, run_id, count, out):
    with SqliteJournal(path, busy_timeout_s=10) as journal:
        out.extend(journal.append_event(run_id, "log", {"n": i}) for i in range(count))


def test_concurrent_appends_from_two_connections_are_gap_free(tmp_path):
    path = tmp_path / "state.db"
    with SqliteJournal(path) as journal:
        journal.create_run(make_run())
    results: list[list[int]] = [[], []]
    threads = [threading.Thread(target=_appender, args=(path, "dwfrun-aaaa", 150, results[i])) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(r == sorted(r) for r in results)  # monotonic as each connection sees them
    assert sorted(results[0] + results[1]) == list(range(1, 301))
    with SqliteJournal(path) as journal:
        assert [e["seq"] for e in journal.events("dwfrun-aaaa")] == list(range(1, 301))


def test_a_killed_process_keeps_every_committed_row(tmp_path):
    path = tmp_path / "state.db"
    code = f"""
import os, signal, sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
from test_journal import make_run, make_node
from dwf.runtime.journal.sqlite import SqliteJournal
journal = SqliteJournal({str(path)!r})
journal.create_run(make_run())
journal.put_node(make_node(status="completed", result="kept"))
journal.append_event("dwfrun-aaaa", "log", {{"message": "before the kill"}})
os.kill(os.getpid(), signal.SIGKILL)
"""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == -9, done.stderr
    with SqliteJournal(path) as journal:
        assert journal.get_run("dwfrun-aaaa").status == "running"
        assert journal.get_node("dwfrun-aaaa", "ask#1", "ask#1").result == "kept"
        assert journal.events("dwfrun-aaaa")[0]["payload"] == {"message": "before the kill"}


# ---------------------------------------------------------------------------- SQLite: migrations

# The version-1 schema exactly as dwf 0.1 shipped it (before content-addressed blobs). Kept here,
# frozen, so the migration path is tested against real old files.
SCHEMA_V1 = """
CREATE TABLE dwf_schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL DEFAULT 'x');
INSERT INTO dwf_schema_version (version) VALUES (1);
CREATE TABLE dwf_run (id TEXT PRIMARY KEY, script TEXT NOT NULL, script_sha256 TEXT NOT NULL, ir_hash TEXT NOT NULL,
    compiler_version TEXT NOT NULL, args TEXT NOT NULL, meta TEXT NOT NULL, caps TEXT NOT NULL, status TEXT NOT NULL,
    stop_reason TEXT, result TEXT, error TEXT, usage TEXT NOT NULL, resumed_from TEXT, superseded_by TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')));
CREATE TABLE dwf_actor (run_id TEXT NOT NULL REFERENCES dwf_run(id), site_id TEXT NOT NULL, occurrence TEXT NOT NULL,
    name TEXT, persona TEXT, model TEXT, session_id TEXT,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')), UNIQUE (run_id, site_id, occurrence));
CREATE TABLE dwf_node (run_id TEXT NOT NULL REFERENCES dwf_run(id), site_id TEXT NOT NULL, occurrence_key TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('ask', 'read', 'run', 'report', 'artifact')), actor TEXT,
    input_hash TEXT NOT NULL, input TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed')), result TEXT, error TEXT,
    usage TEXT NOT NULL, imported INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')), UNIQUE (run_id, site_id, occurrence_key));
CREATE TABLE dwf_event (run_id TEXT NOT NULL REFERENCES dwf_run(id), sequence INTEGER NOT NULL, type TEXT NOT NULL,
    payload TEXT, created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')), UNIQUE (run_id, sequence));
INSERT INTO dwf_run (id, script, script_sha256, ir_hash, compiler_version, args, meta, caps, status, result, error, usage)
    VALUES ('dwfrun-old1', 'return 1', 'sha', 'ir', '0.0.9', '{"n": 1}', '{"name": "old"}', '{}', 'completed', '1',
            'null', '{}');
INSERT INTO dwf_actor (run_id, site_id, occurrence, name) VALUES ('dwfrun-old1', 'agent#1', 'agent#1', 'lead');
INSERT INTO dwf_node (run_id, site_id, occurrence_key, kind, actor, input_hash, input, status, result, error, usage)
    VALUES ('dwfrun-old1', 'ask#1', 'ask#1', 'ask', 'lead', 'hash', '{"instructions": "go"}', 'completed', '"old answer"',
            'null', '{"output_tokens": 4}');
INSERT INTO dwf_event (run_id, sequence, type, payload) VALUES ('dwfrun-old1', 1, 'run-started', '{}');
"""


def test_a_version_1_database_is_migrated_forward(tmp_path):
    path = tmp_path / "state.db"
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA_V1)
    conn.close()
    with SqliteJournal(path) as journal:
        assert journal.schema_version() == SCHEMA_VERSION
        old = journal.get_run("dwfrun-old1")
        assert (old.status, old.result, old.args, old.compiler_version) == ("completed", 1, {"n": 1}, "0.0.9")
        assert old.workflows == {}  # version 3 added the column; older rows call no saved workflow
        node = journal.get_node("dwfrun-old1", "ask#1", "ask#1")
        assert (node.result, node.usage, node.imported) == ("old answer", {"output_tokens": 4}, False)
        assert journal.list_actors("dwfrun-old1")[0]["name"] == "lead"
        assert journal.append_event("dwfrun-old1", "log", {"message": "x" * (BLOB_THRESHOLD + 1)}) == 2
        journal.put_node(make_node("dwfrun-old1", key="ask#1[1]", status="completed", result="y" * (BLOB_THRESHOLD * 2)))
        assert journal.get_node("dwfrun-old1", "ask#1", "ask#1[1]").result == "y" * (BLOB_THRESHOLD * 2)
    conn = sqlite3.connect(path)
    assert [row[0] for row in conn.execute("SELECT version FROM dwf_schema_version ORDER BY version")] == list(
        range(1, SCHEMA_VERSION + 1))
    conn.close()
    with SqliteJournal(path) as journal:  # reopening a current file migrates nothing
        assert journal.schema_version() == SCHEMA_VERSION


def test_a_database_from_a_newer_dwf_is_refused(tmp_path):
    path = tmp_path / "state.db"
    with SqliteJournal(path) as journal:
        journal.create_run(make_run())
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO dwf_schema_version (version) VALUES (?)", (SCHEMA_VERSION + 1,))
    conn.commit()
    conn.close()
    with pytest.raises(JournalError, match="newer dwf.*upgrade dwf") as caught:
        SqliteJournal(path)
    assert str(path) in str(caught.value)


def test_a_foreign_sqlite_database_is_refused(tmp_path):
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE customers (id INTEGER)")
    conn.commit()
    conn.close()
    with pytest.raises(JournalError, match="not a dwf journal"):
        SqliteJournal(path)


# ---------------------------------------------------------------------------- SQLite: bad input


@pytest.fixture
def real_db(tmp_path):
    """A closed journal file (WAL checkpointed into it) with a few runs, nodes and events."""
    path = tmp_path / "real" / "state.db"
    with SqliteJournal(path) as journal:
        for r in range(20):
            run_id = f"dwfrun-{r:04d}"
            journal.create_run(make_run(run_id, script="# filler\n" * 200))
            for n in range(10):
                journal.put_node(make_node(run_id, key=f"ask#1[{n}]", status="completed", result=f"answer {n} " * 50))
                journal.append_event(run_id, "log", {"message": f"event {n}"})
    assert not Path(f"{path}-wal").exists() or Path(f"{path}-wal").stat().st_size == 0
    return path


def _read_everything(path):
    with SqliteJournal(path) as journal:
        journal.check()
        for run in journal.list_runs():
            journal.list_nodes(run.id)
            journal.events(run.id)


def test_a_corrupted_file_gives_a_clear_error(real_db, tmp_path):
    header = tmp_path / "header.db"
    shutil.copy(real_db, header)
    with open(header, "r+b") as handle:
        handle.write(b"\xde\xad\xbe\xef garbage " * 8)
    with pytest.raises(JournalError, match="corrupted or truncated.*restore it from a backup.*aside") as caught:
        SqliteJournal(header)
    assert str(header) in str(caught.value)

    middle = tmp_path / "middle.db"
    shutil.copy(real_db, middle)
    size = middle.stat().st_size
    with open(middle, "r+b") as handle:
        for offset in range(4096, size, 8192):  # scribble over every other page after the first
            handle.seek(offset)
            handle.write(b"\xff\x00garbage!" * 64)
    with pytest.raises(JournalError) as caught:
        _read_everything(middle)
    assert str(middle) in str(caught.value)
    _read_everything(real_db)  # the original is untouched


def test_a_truncated_file_gives_a_clear_error(real_db, tmp_path):
    for name, keep in (("tiny.db", 60), ("half.db", real_db.stat().st_size // 2)):
        copy = tmp_path / name
        shutil.copy(real_db, copy)
        with open(copy, "r+b") as handle:
            handle.truncate(keep)
        with pytest.raises(JournalError, match="corrupted or truncated|damaged") as caught:
            _read_everything(copy)
        assert str(copy) in str(caught.value)


def test_a_locked_database_waits_then_gives_a_clear_error(tmp_path):
    path = tmp_path / "state.db"
    journal = SqliteJournal(path, busy_timeout_s=0.2)
    journal.create_run(make_run())
    journal.append_event("dwfrun-aaaa", "log", {"message": "committed"})
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    other.execute("INSERT INTO dwf_event (run_id, sequence, type, payload) VALUES ('dwfrun-aaaa', 100, 'log', '{}')")
    try:
        with pytest.raises(JournalError, match="locked by another process") as caught:
            journal.append_event("dwfrun-aaaa", "log", {"message": "blocked"})
        assert str(path) in str(caught.value)
        with pytest.raises(JournalError, match="locked"):
            journal.put_node(make_node())
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert journal.append_event("dwfrun-aaaa", "log", {"message": "after"}) == 2
    assert [e["payload"]["message"] for e in journal.events("dwfrun-aaaa")] == ["committed", "after"]
    journal.close()


def test_a_full_disk_gives_a_clear_error_and_keeps_committed_rows(tmp_path):
    path = tmp_path / "state.db"
    journal = SqliteJournal(path)
    journal.create_run(make_run())
    journal.put_node(make_node(status="completed", result="kept"))
    pages = journal._conn.execute("PRAGMA page_count").fetchone()[0]
    journal._conn.execute(f"PRAGMA max_page_count = {int(pages)}")  # the "disk" is now full
    with pytest.raises(JournalError, match="full.*free some space") as caught:
        for i in range(50):
            journal.put_node(make_node(key=f"read#{i}", kind="read", status="completed", result=f"{i}" * 100_000))
    assert str(path) in str(caught.value)
    assert journal.get_node("dwfrun-aaaa", "ask#1", "ask#1").result == "kept"
    journal._conn.execute("PRAGMA max_page_count = 1073741823")
    journal.append_event("dwfrun-aaaa", "log", {"message": "space again"})
    journal.close()
    with SqliteJournal(path) as reopened:
        assert reopened.get_node("dwfrun-aaaa", "ask#1", "ask#1").result == "kept"
        assert reopened.events("dwfrun-aaaa")[-1]["payload"] == {"message": "space again"}


def test_a_read_only_database_gives_a_clear_error(tmp_path):
    path = tmp_path / "state.db"
    journal = SqliteJournal(path)
    journal.create_run(make_run())
    journal._conn.execute("PRAGMA query_only = 1")  # as the OS would refuse writes (tests run as root)
    with pytest.raises(JournalError, match="read-only.*writable") as caught:
        journal.update_run("dwfrun-aaaa", status="completed")
    assert str(path) in str(caught.value)
    assert journal.get_run("dwfrun-aaaa").status == "running"
    journal.close()


def test_rows_with_invalid_json_give_a_clear_error(tmp_path):
    path = tmp_path / "state.db"
    journal = SqliteJournal(path)
    journal.create_run(make_run())
    journal.create_run(make_run("dwfrun-good"))
    journal.put_node(make_node(status="completed", result={"ok": True}))
    journal.put_node(make_node(key="ask#1[1]", status="completed", result={"ok": True}))
    journal.append_event("dwfrun-aaaa", "log", {"message": "fine"})
    conn = sqlite3.connect(path)
    conn.execute("UPDATE dwf_node SET result = ? WHERE occurrence_key = ?", ("{not json", "ask#1"))
    conn.execute("UPDATE dwf_run SET args = ? WHERE id = ?", ("[1, 2", "dwfrun-aaaa"))
    conn.execute("UPDATE dwf_event SET payload = ? WHERE run_id = ?", ("nope", "dwfrun-aaaa"))
    conn.commit()
    conn.close()
    with pytest.raises(JournalError, match=r"node ask#1 of run dwfrun-aaaa \(result\) holds invalid JSON") as caught:
        journal.get_node("dwfrun-aaaa", "ask#1", "ask#1")
    assert str(path) in str(caught.value) and "restore" in str(caught.value)
    with pytest.raises(JournalError, match=r"run dwfrun-aaaa \(args\) holds invalid JSON"):
        journal.get_run("dwfrun-aaaa")
    with pytest.raises(JournalError, match="event 1 of run dwfrun-aaaa"):
        journal.events("dwfrun-aaaa")
    assert journal.get_node("dwfrun-aaaa", "ask#1", "ask#1[1]").result == {"ok": True}  # other rows still read
    assert journal.get_run("dwfrun-good").args == {"n": 3, "names": ["a", "b"]}
    journal.close()


def test_an_unopenable_path_gives_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(JournalError, match="cannot create the folder"):
        SqliteJournal(blocker / "state.db")
    (tmp_path / "dir.db").mkdir()
    with pytest.raises(JournalError, match=str(tmp_path / "dir.db")):
        SqliteJournal(tmp_path / "dir.db")


def test_a_closed_journal_refuses_use(tmp_path):
    journal = SqliteJournal(tmp_path / "state.db")
    journal.close()
    journal.close()  # idempotent
    with pytest.raises(JournalError, match="closed"):
        journal.get_run("dwfrun-aaaa")


# ---------------------------------------------------------------------------- through the engine


def fake_port() -> FakeAgentPort:
    """Answers every ask at once (after one checkpoint), 10 output tokens each."""
    return FakeAgentPort(delay=0, usage=10, resubmit=True)


WORKFLOW = '''meta = {"name": "journal-test", "description": "Journal through the engine."}
phase("Work")
lead = agent("lead", system="You lead.")
answers = await parallel(agent(f"r{i}").ask(f"review {i}") for i in range(3))
final = await lead.ask("summarize " + ", ".join(answers))
report({"summary": final})
return {"answers": answers, "final": final}
'''


@pytest.fixture
def anyio_backend():
    return "asyncio"


class DurabilityProbe:
    """At each dispatch, reads the journal file through its own connection (as a crash would
    leave it) and records whether this ask's `running` row, and the outcome of every ask whose
    result its instructions were built from, were already committed. `port` answers `done
    <key>` after 0-2 ms."""

    def __init__(self, path: Path):
        self.path, self.problems, self.checked = path, [], 0
        self.port = FakeAgentPort(record=self.check, delay=lambda request: 0.001 * (self.port.turns % 3),
                                  text=lambda request: f"done {request.key}")

    def check(self, request) -> None:
        rows = dict(_committed(self.path, "SELECT occurrence_key, status FROM dwf_node WHERE run_id = ?", request.run_id))
        if rows.get(request.key) != "running":
            self.problems.append(f"{request.key} dispatched while its row was {rows.get(request.key)}")
        used = re.findall(r"done (\S+)", request.instructions)
        self.checked += len(used)
        lost = [key for key in used if rows.get(key) != "completed"]
        if lost:
            self.problems.append(f"{request.key} dispatched before the results it was built from were durable: {lost}")


@pytest.mark.anyio
async def test_every_dispatch_sees_its_running_row_and_the_results_it_uses_committed(tmp_path):
    path = tmp_path / "state.db"
    script = ('meta = {"name": "probe", "description": "Dispatch order against the journal file."}\n'
              'workers = [agent(f"w{i}") for i in range(3)]\n'
              'first = await parallel(workers[i % 3].ask(f"a{i}") for i in range(12))\n'
              'second = await parallel(workers[i % 3].ask("b " + x) for i, x in enumerate(first))\n'
              'third = await workers[0].ask("c " + " ".join(second))\n'
              'return len(second)\n')
    with SqliteJournal(path) as journal:
        probe = DurabilityProbe(path)
        async with Engine() as engine:
            run = engine.start(StartRequest(script=script, agent_port=probe.port, journal=journal, max_concurrency=3))
            result = await run.result
        assert (result.status, result.value, probe.port.turns) == ("completed", 12, 25)
        assert probe.problems == [] and probe.checked == 12 + 12
        # the run's last rows (run-settled included) were committed when it settled
        stored = _committed_events(path, run.id)
        assert stored[-1][1] == "run-settled" and stored == [(e["seq"], e["type"]) for e in journal.events(run.id)]


class ProbeWorld:
    """Reads that check, at dispatch, the journal file as another process sees it: a read runs
    in the same task step as its `running` row is written (no lock, no slot), so only the
    engine's wait for the group commit makes that row durable first."""

    def __init__(self, path: Path, run_ids: list):
        self.path, self.run_ids, self.problems, self.reads = path, run_ids, [], 0

    async def read(self, op: str, args: list, kwargs: dict):
        self.reads += 1
        rows = dict(_committed(self.path, "SELECT input, status FROM dwf_node WHERE run_id = ? AND kind = 'read'",
                               self.run_ids[0]))
        mine = [status for data, status in rows.items() if f'"{args[0]}"' in data]
        if mine != ["running"]:
            self.problems.append(f"read of {args[0]} dispatched while its committed rows were {mine}")
        earlier = [status for data, status in rows.items() if f'"{args[0]}"' not in data]
        if any(status != "completed" for status in earlier):
            self.problems.append(f"read of {args[0]} dispatched before earlier reads were durable: {earlier}")
        return f"text of {args[0]}"


@pytest.mark.anyio
async def test_a_dispatch_in_the_same_step_as_its_row_waits_for_the_commit(tmp_path):
    path = tmp_path / "state.db"
    script = ('meta = {"name": "reads", "description": "Reads in a row."}\n'
              'text = await files.read("a.txt")\n'
              'more = await files.read(text + ".next")\n'
              'last = await files.read(more + ".last")\n'
              'return last\n')
    run_ids: list = []
    with SqliteJournal(path) as journal:
        world = ProbeWorld(path, run_ids)
        async with Engine() as engine:
            run = engine.start(StartRequest(script=script, agent_port=fake_port(), journal=journal, world=world))
            run_ids.append(run.id)
            result = await run.result
    assert (result.status, world.reads) == ("completed", 3), result.error
    assert result.value == "text of text of text of a.txt.next.last"
    assert world.problems == []


class FailingCommitJournal(SqliteJournal):
    """A journal whose group commits fail from the `fail_at`-th one on (a disk that fills up)."""

    def __init__(self, path, fail_at: int):
        super().__init__(path)
        self.commits, self.fail_at = 0, fail_at

    def commit(self) -> None:
        if self.open_group is not None:
            self.commits += 1
            if self.commits >= self.fail_at:
                raise JournalError(f"{self.path}: cannot commit the journal: the disk is full; free some space")
        super().commit()


@pytest.mark.anyio
async def test_a_failing_group_commit_ends_the_run_with_the_journal_error(tmp_path):
    journal = FailingCommitJournal(tmp_path / "state.db", fail_at=3)
    async with Engine() as engine:
        run = engine.start(StartRequest(script=WORKFLOW, agent_port=fake_port(), journal=journal))
        result = await run.result
    assert result.status == "errored"
    assert "the disk is full" in result.error and str(tmp_path / "state.db") in result.error
    journal.fail_at = 10**9
    journal.close()


@pytest.mark.anyio
async def test_a_workflow_is_journaled_in_the_sqlite_file(tmp_path):
    path = tmp_path / "ws" / ".dwf" / "state.db"
    journal = SqliteJournal(path)
    events = []
    async with Engine() as engine:
        run = engine.start(StartRequest(script=WORKFLOW, agent_port=fake_port(), journal=journal, listeners=[events.append]))
        result = await run.result
    journal.close()
    assert result.status == "completed", result.error

    conn = sqlite3.connect(path)
    status, stored_result, usage = conn.execute("SELECT status, result, usage FROM dwf_run WHERE id = ?",
                                                (run.id,)).fetchone()
    assert status == "completed"
    assert __import__("json").loads(stored_result) == result.value
    assert __import__("json").loads(usage)["output_tokens"] == 40
    nodes = conn.execute("SELECT kind, actor, status, result FROM dwf_node WHERE run_id = ? ORDER BY rowid",
                         (run.id,)).fetchall()
    assert sorted(row[0] for row in nodes) == ["ask", "ask", "ask", "ask", "report"]
    assert all(row[2] == "completed" for row in nodes)
    asks = {row[1]: row[3] for row in nodes if row[0] == "ask"}
    assert asks["lead"] == '"done: summarize done: review 0, done: review 1, done: review 2"'
    actors = conn.execute("SELECT name, persona FROM dwf_actor WHERE run_id = ? ORDER BY rowid", (run.id,)).fetchall()
    assert ("lead", "You lead.") in actors and len(actors) == 4
    conn.close()
    stored = _committed_events(path, run.id)
    assert [seq for seq, _ in stored] == list(range(1, len(stored) + 1))
    assert stored[0][1] == "run-started" and stored[-1][1] == "run-settled"
    assert [(e["seq"], e["type"]) for e in events] == stored  # listeners saw the journal's sequence numbers
    types = [kind for _, kind in stored]
    assert types.count("node-started") == types.count("node-settled") - 0 == 4

    with SqliteJournal(path) as reopened:  # the same rows through the store's API
        assert reopened.find_runs(run.id[len("dwfrun-"):][:8])[0].id == run.id
        assert [n.kind for n in reopened.list_nodes(run.id)].count("ask") == 4


def test_grouped_events_of_several_runs_get_the_sequences_their_inserts_allocate(tmp_path):
    path = tmp_path / "state.db"
    journal = SqliteJournal(path)
    journal.create_run(make_run())
    journal.create_run(make_run("dwfrun-bbbb"))
    assert journal.append_event("dwfrun-aaaa", "log", {"message": "before"}) == 1  # autocommit
    wake = lambda: None
    journal.hold_commits(wake)
    handed = [journal.append_event(run, "log", {"message": f"{run} {i}"})
              for i in range(3) for run in ("dwfrun-aaaa", "dwfrun-bbbb")]
    assert handed == [2, 1, 3, 2, 4, 3]
    assert _committed(path, "SELECT count(*) FROM dwf_event") == [(1,)]  # pending: not even inserted yet
    # the writer's own reads see them (they are inserted first), still uncommitted for others
    assert [e["seq"] for e in journal.events("dwfrun-aaaa")] == [1, 2, 3, 4]
    assert _committed(path, "SELECT count(*) FROM dwf_event") == [(1,)]
    assert journal.append_event("dwfrun-bbbb", "log", {"message": "after a read"}) == 4
    journal.commit()
    stored = _committed(path, "SELECT run_id, sequence, json_extract(payload, '$.message') FROM dwf_event "
                              "ORDER BY run_id, sequence")
    assert stored == [("dwfrun-aaaa", 1, "before"), ("dwfrun-aaaa", 2, "dwfrun-aaaa 0"),
                      ("dwfrun-aaaa", 3, "dwfrun-aaaa 1"), ("dwfrun-aaaa", 4, "dwfrun-aaaa 2"),
                      ("dwfrun-bbbb", 1, "dwfrun-bbbb 0"), ("dwfrun-bbbb", 2, "dwfrun-bbbb 1"),
                      ("dwfrun-bbbb", 3, "dwfrun-bbbb 2"), ("dwfrun-bbbb", 4, "after a read")]
    journal.release_commits(wake)
    journal.close()


def test_a_failed_group_commit_loses_only_the_uncommitted_group(tmp_path):
    path = tmp_path / "state.db"
    journal, wake = holding(path)
    journal.append_event("dwfrun-aaaa", "log", {"message": "kept"})
    journal.commit()
    journal.append_event("dwfrun-aaaa", "log", {"message": "lost"})
    journal.put_node(make_node())
    pages = journal._conn.execute("PRAGMA page_count").fetchone()[0]
    journal._conn.execute(f"PRAGMA max_page_count = {int(pages)}")  # the "disk" is now full
    with pytest.raises(JournalError, match="full"):
        journal.append_event("dwfrun-aaaa", "log", {"message": "x" * 200_000})  # a blob that does not fit
        journal.commit()
    journal._conn.execute("PRAGMA max_page_count = 1073741823")
    assert journal.open_group is None  # rolled back: nothing half-written stays pending
    assert journal.append_event("dwfrun-aaaa", "log", {"message": "space again"}) == 2
    journal.release_commits(wake)
    journal.close()
    with SqliteJournal(path) as reopened:
        assert [e["payload"]["message"] for e in reopened.events("dwfrun-aaaa")] == ["kept", "space again"]
        assert reopened.get_node("dwfrun-aaaa", "ask#1", "ask#1") is None


def test_a_group_left_open_is_committed_by_the_watchdog(tmp_path):
    # a script computing for seconds between awaits must not keep the file's write lock
    from dwf.runtime.journal.sqlite import GROUP_MAX_AGE_S

    path = tmp_path / "state.db"
    journal, wake = holding(path)
    journal.append_event("dwfrun-aaaa", "log", {"message": "left open"})
    assert journal.open_group is not None
    deadline = time.monotonic() + 20 * GROUP_MAX_AGE_S
    while _committed(path, "SELECT count(*) FROM dwf_event") != [(1,)]:
        assert time.monotonic() < deadline, "the open group was never committed"
        time.sleep(0.02)
    assert journal.open_group is None
    other = SqliteJournal(path, busy_timeout_s=1)  # another process can write again
    other.append_event("dwfrun-aaaa", "log", {"message": "from elsewhere"})
    other.close()
    assert journal.append_event("dwfrun-aaaa", "log", {"message": "next group"}) == 3
    journal.release_commits(wake)
    journal.close()
    with SqliteJournal(path) as reopened:
        assert [e["payload"]["message"] for e in reopened.events("dwfrun-aaaa")] == \
            ["left open", "from elsewhere", "next group"]


def test_while_commits_are_held_the_watchdog_checkpoints_the_wal(tmp_path, monkeypatch):
    # SQLite's own checkpoints stalled the event loop inside a COMMIT; while a run holds commits
    # they are off and the watchdog thread copies the WAL into the file instead
    import dwf.runtime.journal.sqlite as sqlite_journal

    monkeypatch.setattr(sqlite_journal, "CHECKPOINT_BYTES", 0)  # checkpoint whatever the WAL holds
    path = tmp_path / "state.db"
    journal = SqliteJournal(path)
    journal.create_run(make_run())
    autocheckpoint = lambda: journal._conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
    assert autocheckpoint() == 1000
    wake = lambda: None
    journal.hold_commits(wake)
    assert autocheckpoint() == 0
    size = path.stat().st_size
    deadline = time.monotonic() + 20
    number = 0
    while path.stat().st_size == size:  # the file grows only when WAL pages are copied into it
        assert time.monotonic() < deadline, "the WAL was never checkpointed"
        for _ in range(50):
            number += 1
            journal.append_event("dwfrun-aaaa", "log", {"message": f"line {number} " + "x" * 2000})
        journal.commit()
        time.sleep(0.02)
    journal.release_commits(wake)
    assert autocheckpoint() == 1000
    journal.close()
    with SqliteJournal(path) as reopened:
        assert len(reopened.events("dwfrun-aaaa")) == number


def test_the_events_of_a_group_are_packed_into_rows_and_read_back_one_by_one(tmp_path):
    # schema 6: consecutive node events of one run share a row; the log reads as before
    path = tmp_path / "state.db"
    journal, wake = holding(path)
    sent = [("node-queued", {"key": "a"}), ("node-started", {"key": "a"}), ("log", {"message": "between"}),
            ("usage-updated", {"key": "a", "ask": {"output_tokens": 1}}), ("node-settled", {"key": "a"}),
            ("node-progress", {"key": "b", "text": "x" * (BLOB_THRESHOLD + 10)}),  # a blob: its own row
            ("node-queued", {"key": "c", "nan": float("nan")})]
    assert [journal.append_event("dwfrun-aaaa", kind, payload) for kind, payload in sent] == list(range(1, 8))
    journal.commit()
    rows = _committed(path, "SELECT sequence, last_sequence, type FROM dwf_event ORDER BY sequence")
    assert rows == [(1, 2, "events"), (3, None, "log"), (4, 5, "events"), (6, None, "node-progress"),
                    (7, None, "node-queued")]
    expected = [(seq, kind, payload) for seq, (kind, payload) in enumerate(sent, 1)]
    read = [(e["seq"], e["type"], e["payload"]) for e in journal.events("dwfrun-aaaa")]
    assert read[:6] == expected[:6] and read[6][2]["nan"] != read[6][2]["nan"]  # NaN comes back as NaN
    assert _committed_events(path, "dwfrun-aaaa") == [(seq, kind) for seq, kind, _ in expected]
    # after a sequence inside a packed row, by type, and their times
    assert [e["seq"] for e in journal.events("dwfrun-aaaa", after=4)] == [5, 6, 7]
    assert [e["seq"] for e in journal.events("dwfrun-aaaa", after=1, types=("node-started", "log"))] == [2, 3]
    assert [e["seq"] for e in journal.events("dwfrun-aaaa", types=("log",))] == [3]
    assert sorted(journal.event_times("dwfrun-aaaa", after=1)) == [2, 3, 4, 5, 6, 7]
    # the next event, and a run-settled moved to the end, number after the packed rows
    assert journal.append_event("dwfrun-aaaa", "node-started", {"key": "c"}) == 8
    assert journal.append_event("dwfrun-aaaa", "run-settled", {"status": "completed"}) == 9
    journal.release_commits(wake)
    assert journal.append_event("dwfrun-aaaa", "run-settled", {"status": "stopped"}) == 10
    journal.close()
    with SqliteJournal(path) as reopened:
        assert [e["seq"] for e in reopened.events("dwfrun-aaaa")][-3:] == [7, 8, 10]


def test_a_damaged_packed_row_is_refused_with_a_journal_error(tmp_path):
    path = tmp_path / "state.db"
    journal = SqliteJournal(path)
    journal.create_run(make_run())
    journal.hold_commits(lambda: None)
    journal.append_event("dwfrun-aaaa", "node-queued", {"key": "a"})
    journal.append_event("dwfrun-aaaa", "node-started", {"key": "a"})
    journal.commit()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE dwf_event SET last_sequence = 3 WHERE type = 'events'")
    conn.commit()
    conn.close()
    with pytest.raises(JournalError, match="events 1-3 of run dwfrun-aaaa are not a list of 3"):
        journal.events("dwfrun-aaaa")
    journal.close()


def test_writes_held_in_a_group_land_in_the_order_they_were_made(tmp_path):
    # a group's node rows, settlements and re-writes wait for one flush; the file ends as if each
    # had been written at once
    path = tmp_path / "state.db"
    journal, wake = holding(path)
    journal.put_node(make_node(key="a"))
    journal.settle_node("dwfrun-aaaa", "ask#1", "a", "completed", result="settled in its own group")
    journal.put_node(make_node(key="b"))
    journal.commit()
    journal.settle_node("dwfrun-aaaa", "ask#1", "b", "completed", result="first attempt")
    journal.put_node(make_node(key="b", input={"instructions": "again"}))  # written again after it settled
    assert journal.get_node("dwfrun-aaaa", "ask#1", "b").status == "running"  # a read sees the group
    journal.commit()
    rows = _committed(path, "SELECT occurrence_key, status, result, input FROM dwf_node ORDER BY rowid")
    assert rows == [("a", "completed", '"settled in its own group"', '{"instructions":"go"}'),
                    ("b", "running", "null", '{"instructions":"again"}')]
    journal.settle_node("dwfrun-aaaa", "ask#1", "b", "failed", error={"type": "X", "message": "m"})
    with pytest.raises(KeyError):
        journal.settle_node("dwfrun-aaaa", "ask#1", "never-written", "completed")
    journal.release_commits(wake)
    journal.close()
    assert _committed(path, "SELECT status FROM dwf_node WHERE occurrence_key = 'b'") == [("failed",)]
