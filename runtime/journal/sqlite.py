"""This module is the SQLite journal store (RUNTIME §5), the embedded default: one file
(`.dwf/state.db` under the workspace), WAL mode, `synchronous=NORMAL`, parameterized SQL only,
a `dwf_schema_version` table with forward migrations (the schema and every SQL statement are in
`sqlite_schema.py`), and content-addressed storage of large values in `dwf_blob`. It implements
the same `JournalStore` interface as `MemoryJournal`.

Every write commits before the call returns (one statement in autocommit, or a short
`BEGIN IMMEDIATE` transaction), so a process that is killed never loses a committed row, except
while a run holds commits (`hold_commits`): then node rows and events join one open transaction
that the engine commits at the end of the event-loop tick and always before it dispatches an
effect (group commit: a commit per tick instead of one per row). Every SQLite failure (a corrupted or truncated file, a locked database, a full disk, a read-only file,
a row holding invalid JSON) surfaces as a `JournalError` that names the file and says what to do.

Corruption that SQLite itself cannot see is caught by a marker beside the file (`state.db.marker`,
JSON: how many runs the journal held): a journal whose file was truncated to nothing, replaced,
or lost its WAL (the rows were only there) opens with fewer runs than the marker records, and
that is refused (`JournalError`) instead of looking like a journal with no runs. Opening also
checks that every table of the schema exists (a dropped table is refused the same way).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sqlite3
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

import orjson

from dwf.runtime.journal.sqlite_schema import (ACTOR_MESSAGES, APPEND_EVENT, APPEND_EVENT_AT, APPEND_MESSAGE, ASK_MESSAGES,
                                               DROP_UNSETTLED_MESSAGES, ERROR_KINDS, EVENTS_AFTER, EVENTS_STRADDLING, INSERT_NODE, INSERT_NODE_AT, LAST_SEQUENCE, MIGRATIONS,
                                               MOVE_SETTLED, NODE_COLUMNS, NODE_USAGE, NOW, PACKED, PACKED_TYPES,
                                               PUT_NODE, RUN_COLUMNS, RUN_JSON, RUN_TEXT, SCHEMA_VERSION, SETTLE_NODE, SETTLE_NODE_AT,
                                               VERSION_TABLE)
from dwf.runtime.journal.codec import dumps, dumps_flat
from dwf.runtime.journal.store import JournalError, NodeRow, RunRow
from dwf.runtime.statedir import StateDir

BLOB_THRESHOLD = 4096  # JSON texts longer than this many bytes are stored once, by sha256
INLINE_CHARS = BLOB_THRESHOLD // 4  # at most 4 bytes per character: a text this long is inline without encoding it
DEFAULT_BUSY_TIMEOUT_S = 5.0
# A group transaction holds the file's write lock. The engine commits it at the end of each
# event-loop tick; a script computing for seconds between awaits would keep it longer and make
# other processes writing to the same file wait, so a watchdog thread commits older ones.
GROUP_MAX_AGE_S = 0.2
# While a run holds commits, SQLite's own checkpoints (copying the WAL back into the file, in the
# COMMIT that crosses 1,000 pages) would stall the event loop about 10 ms each, 8% of a
# 10,000-ask run; the watchdog thread checkpoints instead, on a connection of its own, while the
# loop goes on (#18). The WAL stays near this size.
CHECKPOINT_BYTES = 8 * 1024 * 1024
DEFAULT_AUTOCHECKPOINT_PAGES = 1000  # SQLite's, restored when nobody holds commits

_to_json = dumps  # orjson where it writes what json would (codec.py)
TABLES = ("dwf_run", "dwf_actor", "dwf_node", "dwf_event", "dwf_blob", "dwf_message", "dwf_schema_version")


def marker_path(path: str | Path) -> Path:
    """The integrity marker of the journal file `path` (module docstring)."""
    path = Path(path)
    return path.with_name(path.name + ".marker")


def marked_runs(path: str | Path) -> int:
    """How many runs the marker of the journal `path` says it held (0 without a readable marker)."""
    try:
        data = json.loads(marker_path(path).read_text(encoding="utf-8"))
        runs = data.get("runs") if isinstance(data, dict) else None
        return runs if isinstance(runs, int) and not isinstance(runs, bool) and runs > 0 else 0
    except (OSError, ValueError):
        return 0


def lost_runs_error(path: str | Path, marked: int, found: int) -> JournalError:
    """The refusal for a journal holding fewer runs than its marker records."""
    path = Path(path)
    what = "is missing" if not path.exists() else f"holds {found}"
    return JournalError(f"{path}: the journal held {marked} run{'s' * (marked != 1)} but now {what} "
                        f"({'the file is gone' if not path.exists() else 'the file was truncated or replaced, or its -wal file was lost'}); "
                        f"restore {path.name} (with its -wal file) from a backup, or move {path.name} and "
                        f"{marker_path(path).name} aside to start a fresh journal; nothing was written")


def _rollback(conn: sqlite3.Connection) -> None:
    try:
        conn.execute("ROLLBACK")
    except sqlite3.Error:
        pass  # nothing was open, or SQLite already rolled back


def _classify(error: sqlite3.Error) -> str | None:
    name = getattr(error, "sqlite_errorname", None)
    if name:
        for code, kind, _ in ERROR_KINDS:
            if name == code or name.startswith(code + "_"):
                return kind
        return None
    text = str(error).lower()
    return next((kind for _, kind, words in ERROR_KINDS if words in text), None)


def _now() -> str:
    """The time as SQLite's `NOW` writes it (UTC, milliseconds)."""
    milliseconds = int(time.time() * 1000)
    return f"{_second_text(milliseconds // 1000)}.{milliseconds % 1000:03d}Z"


@functools.lru_cache(maxsize=1)
def _second_text(second: int) -> str:
    """A whole second's UTC text, formatted once per second rather than once per group."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))


def _packed(events: list[tuple]) -> list[tuple]:
    """The rows of pending `(run, sequence, type, text, blob, payload)` events (`text` None: a
    flat `payload` still to encode): consecutive events of PACKED_TYPES of one run held inline
    share one row (schema version 6), the others get their own."""
    rows: list[tuple] = []
    pack: list[tuple] = []

    def close() -> None:
        if len(pack) == 1:
            run_id, sequence, kind, text, _, payload = pack[0]
            rows.append((run_id, sequence, None, kind, text if text is not None else dumps_flat(payload), None))
        elif pack:
            rows.append((pack[0][0], pack[0][1], pack[-1][1], PACKED, _pack_text(pack), None))
        pack.clear()

    for event in events:
        run_id, sequence, kind, text, blob, _ = event
        if kind in PACKED_TYPES and blob is None:
            if pack and (pack[-1][0] != run_id or pack[-1][1] + 1 != sequence):
                close()
            pack.append(event)
        else:
            close()
            rows.append((run_id, sequence, None, kind, text, blob))
    close()
    return rows


def _pack_text(pack: list[tuple]) -> str:
    """A packed row's JSON array of `[type, payload]` pairs: one orjson call for the whole
    group, each text already encoded put in as it is (#18)."""
    try:
        return orjson.dumps([[kind, payload if text is None else orjson.Fragment(text)]
                             for _, _, kind, text, _, payload in pack]).decode("utf-8")
    except TypeError:  # orjson.JSONEncodeError (a lone surrogate): each payload as `dumps` writes it
        return "[" + ",".join(f'["{kind}",{text if text is not None else dumps(payload)}]'
                              for _, _, kind, text, _, payload in pack) + "]"


class SqliteJournal:
    """`SqliteJournal(path)`: the journal in one SQLite file (created with its parent folders).
    Use as a context manager or call `close()`. Thread-safe (one connection behind a lock)."""

    def __init__(self, path: str | Path, *, busy_timeout_s: float = DEFAULT_BUSY_TIMEOUT_S) -> None:
        self.path = Path(path)
        self.busy_timeout_s = busy_timeout_s
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._holders: list[Callable[[], None]] = []  # see hold_commits
        self._group_serial = 0
        self._group_opened = 0.0  # time.monotonic() when the open group began
        self._watchdog: threading.Thread | None = None
        self._watchdog_failure: JournalError | None = None  # raised by the next write or commit
        # Node rows, settlements and events written in the open group wait here and are written
        # together (`executemany`, one statement each) just before it commits or before anything
        # reads or writes otherwise (`_flush_pending`). No other connection can write while the
        # group is open, so the sequence each event will get is known at once (run id -> the
        # last one handed out in this group), and so is the rowid of each node row.
        self._running_rows: dict[tuple[str, str, str], int] = {}  # (run, site, key) -> rowid of a row put running
        self._pending_nodes: dict[tuple[str, str, str], tuple] = {}  # (run, site, key) -> INSERT_NODE values
        self._pending_settles: dict[tuple[str, str, str], tuple] = {}  # SETTLE_NODE_AT values (known rowid)
        self._pending_events: list[tuple] = []  # APPEND_EVENT_AT values
        self._group_sequences: dict[str, int] = {}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise JournalError(f"{self.path}: cannot create the folder for the journal ({error}); "
                               "check the path and its permissions") from None
        marked = marked_runs(self.path)
        if marked and not self.path.exists():  # gone, with runs in it: never start a fresh one in its place
            raise lost_runs_error(self.path, marked, 0)
        with self._guard("open the journal"):
            self._conn = sqlite3.connect(str(self.path), timeout=busy_timeout_s, isolation_level=None,
                                         check_same_thread=False)
            try:
                self._conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_s * 1000)}")
                # Takes effect only when the file is new: 8 KiB pages hold three 2 KiB results
                # where 4 KiB pages hold one (a third less disk for typical agent answers).
                self._conn.execute("PRAGMA page_size = 8192")
                self._conn.execute("PRAGMA foreign_keys = ON")
                if marked and self._version(self._conn) == 0:  # an empty file where runs were: never re-create it
                    raise lost_runs_error(self.path, marked, 0)
                self._migrate()
                self._check_tables()
                self._check_marker(marked)
                mode = self._conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if str(mode).lower() != "wal":
                    raise JournalError(f"{self.path}: could not switch the journal to WAL mode (got {mode!r}); "
                                       "is it on a file system without shared memory support?")
                self._conn.execute("PRAGMA synchronous = NORMAL")
                # 16 MiB of page cache (default 2 MiB): a wide fan-out writes thousands of rows in
                # one group transaction, and a resume reads every row of the run back.
                self._conn.execute("PRAGMA cache_size = -16384")
            except BaseException:
                self._conn.close()
                self._conn = None
                raise

    @classmethod
    def for_workspace(cls, workspace: str | Path, **options: Any) -> SqliteJournal:
        """The default journal of a workspace: `<workspace>/.dwf/state.db`."""
        return cls(StateDir(workspace).journal, **options)

    def close(self) -> None:
        """Commits a pending group (see `hold_commits`) and closes the file."""
        with self._lock:
            if self._conn is not None:
                try:
                    self.commit()
                finally:
                    self._conn.close()
                    self._conn = None

    def __enter__(self) -> SqliteJournal:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    # ------------------------------------------------------------ errors and transactions

    @contextmanager
    def _guard(self, action: str) -> Iterator[None]:
        """Turns every sqlite3 failure into a JournalError naming the file and the remedy."""
        try:
            yield
        except sqlite3.Error as error:
            raise self._explain(error, action) from None

    def _explain(self, error: sqlite3.Error, action: str) -> JournalError:
        text = str(error)
        where = f"{self.path}: cannot {action}"
        kind = _classify(error)
        if kind == "locked":
            return JournalError(f"{where}: the database is locked by another process (waited "
                                f"{self.busy_timeout_s:g} s); let the other dwf process finish or stop it, then retry")
        if kind == "full":
            return JournalError(f"{where}: the disk (or the database size limit) is full; free some space and "
                                "resume the run; rows committed before this error are kept")
        if kind == "readonly":
            return JournalError(f"{where}: the journal file is read-only; make the file and its folder writable "
                                "(or point dwf at another state dir); rows committed before this error are kept")
        if kind == "corrupt":
            return JournalError(f"{where}: the file is corrupted or truncated ({text}); restore it from a backup, "
                                f"or move it and {marker_path(self.path).name} aside (dwf will start a fresh journal)")
        if kind == "cantopen":
            return JournalError(f"{where}: the file cannot be opened ({text}); check that the path exists and "
                                "is writable")
        if kind == "io":
            return JournalError(f"{where}: an I/O error occurred ({text}); check the disk and the file's "
                                "permissions; rows committed before this error are kept")
        return JournalError(f"{where}: {type(error).__name__}: {text}")

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise JournalError(f"{self.path}: the journal is closed")
        return self._conn

    @contextmanager
    def _write(self, action: str) -> Iterator[sqlite3.Connection]:
        """A short `BEGIN IMMEDIATE` transaction, committed on exit, rolled back on any error.
        Made while a group is open (see `hold_commits`), it joins and commits the group."""
        with self._lock, self._guard(action):
            conn = self._connection()
            opened = not conn.in_transaction
            if opened:
                conn.execute("BEGIN IMMEDIATE")
            else:
                self._flush_pending(conn)
            try:
                yield conn
            except BaseException:
                if opened:
                    _rollback(conn)
                raise
            try:
                conn.execute("COMMIT")
            except sqlite3.Error:
                self._forget_pending(rolled_back=True)
                _rollback(conn)
                raise

    def _hot_write(self, write: Callable[[sqlite3.Connection, bool], Any], action: Callable[[], str]) -> Any:
        """The hot paths (node rows and events): `write(conn, grouped)` under the lock, without
        context managers. While commits are held it joins the open group transaction (opening it
        if there is none; `grouped` is then True and the write may wait in `_pending_*`);
        otherwise its single statement commits on its own (autocommit). A
        content-addressed blob written first needs no atomicity with the row: an orphan blob is
        harmless and is reused by the next identical value."""
        with self._lock:
            self._raise_watchdog_failure()
            try:
                conn = self._connection()
                grouped = bool(self._holders)
                if grouped and not conn.in_transaction:
                    self._open_group(conn)
                return write(conn, grouped)
            except sqlite3.Error as error:
                raise self._explain(error, action()) from None

    def _in_group(self) -> bool:
        """Whether a write may join the open group now, without SQL (under the lock)."""
        conn = self._conn
        return bool(self._holders) and conn is not None and conn.in_transaction and self._watchdog_failure is None

    def _open_group(self, conn: sqlite3.Connection) -> None:
        conn.execute("BEGIN IMMEDIATE")
        self._group_serial += 1
        self._group_opened = time.monotonic()
        self._forget_pending()
        if self._watchdog is None:
            self._watchdog = threading.Thread(target=self._tend_groups, name="dwf-journal-commits", daemon=True)
            self._watchdog.start()
        for wake in list(self._holders):
            wake()

    def _tend_groups(self) -> None:
        """The watchdog thread: commits a group open longer than GROUP_MAX_AGE_S and checkpoints
        a WAL grown past CHECKPOINT_BYTES (see both); ends when nobody holds commits any more.
        A commit's failure is kept for the next write; a checkpoint's only leaves the WAL to
        SQLite's own checkpoints, back once the holders are gone."""
        checkpointer: sqlite3.Connection | None = None
        try:
            while True:
                time.sleep(GROUP_MAX_AGE_S / 2)
                with self._lock:
                    if self._conn is None or not self._holders:
                        self._watchdog = None
                        return
                    if self._conn.in_transaction and time.monotonic() - self._group_opened > GROUP_MAX_AGE_S:
                        try:
                            self.commit()
                        except JournalError as failure:
                            self._watchdog_failure = failure
                try:
                    if os.stat(f"{self.path}-wal").st_size > CHECKPOINT_BYTES:
                        checkpointer = checkpointer or sqlite3.connect(str(self.path), isolation_level=None)
                        checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)")
                except (OSError, sqlite3.Error):
                    pass
        finally:
            if checkpointer is not None:
                checkpointer.close()

    def _raise_watchdog_failure(self) -> None:
        failure, self._watchdog_failure = self._watchdog_failure, None
        if failure is not None:
            raise failure

    def _forget_pending(self, rolled_back: bool = False) -> None:
        """Drop what the group held; after a rollback also the rowids it handed out."""
        if rolled_back:
            self._running_rows.clear()  # some were rolled back: settlements find their rows by key
        self._pending_nodes.clear()
        self._pending_settles.clear()
        self._pending_events.clear()
        self._group_sequences.clear()

    def _flush_pending(self, conn: sqlite3.Connection) -> None:
        """Writes the group's pending node rows (each with the next rowid), then their
        settlements, then its events, and checks that each run's last event sequence is the one
        handed out (it always is while the group holds the write lock). A failure names the
        first row it was writing."""
        if self._pending_nodes:
            key = next(iter(self._pending_nodes))
            with self._named(f"record node {key[2]} of run {key[0]}", len(self._pending_nodes)):
                self._insert_nodes(conn)
        if self._pending_settles:
            stamp = (_now(),)
            rows, self._pending_settles = [values + stamp for values in self._pending_settles.values()], {}
            with self._named(f"settle node {rows[0][-3]} of run {rows[0][-5]}", len(rows)):
                if conn.executemany(SETTLE_NODE_AT, rows).rowcount != len(rows):
                    for values in rows:  # a row replaced meanwhile (another rowid): settle it by its key
                        if not (conn.execute(SETTLE_NODE_AT, values).rowcount
                                or conn.execute(SETTLE_NODE, values[:-2]).rowcount):
                            raise JournalError(f"{self.path}: node {values[-3]} of run {values[-5]} to settle is gone; "
                                               "another writer bypassed the journal's lock; restore the file from a backup")
        if not self._pending_events:
            return
        events, self._pending_events = self._pending_events, []
        with self._named(f"append a {events[0][2]} event to run {events[0][0]}", len(events)):
            conn.executemany(APPEND_EVENT_AT, _packed(events))
            for run_id, expected in self._group_sequences.items():
                stored = conn.execute(LAST_SEQUENCE, (run_id,)).fetchone()[0]
                if stored != expected:
                    raise JournalError(f"{self.path}: run {run_id}'s event sequence is {stored}, expected {expected}; "
                                       "another writer bypassed the journal's lock; restore the file from a backup")

    @contextmanager
    def _named(self, action: str, rows: int) -> Iterator[None]:
        """`_guard` for a batch of `rows` pending writes, named by the first."""
        with self._guard(action + (f" (and {rows - 1} more)" if rows > 1 else "")):
            yield

    def _insert_nodes(self, conn: sqlite3.Connection) -> None:
        pending, self._pending_nodes = self._pending_nodes, {}
        last = conn.execute("SELECT COALESCE(MAX(rowid), 0) FROM dwf_node").fetchone()[0]
        stamp = (_now(),) * 2
        rows = [(last + index,) + values + stamp for index, values in enumerate(pending.values(), 1)]
        inserted = rows
        conn.execute("SAVEPOINT dwf_nodes")
        try:
            conn.executemany(INSERT_NODE_AT, rows)
        except sqlite3.IntegrityError:  # a row exists (a re-dispatch after a crash): replace those
            conn.execute("ROLLBACK TO dwf_nodes")
            inserted = []
            for row in rows:
                try:
                    conn.execute(INSERT_NODE_AT, row)
                    inserted.append(row)
                except sqlite3.IntegrityError:
                    conn.execute(PUT_NODE, row[1:-2])  # kept at its old rowid: settled by its key
        finally:
            conn.execute("RELEASE dwf_nodes")
        for row in inserted:
            if row[8] == "running":
                self._running_rows[row[1:4]] = row[0]

    # ------------------------------------------------------------ group commit

    def hold_commits(self, wake: Callable[[], None]) -> None:
        """From now on node rows and events are grouped into one open transaction until
        `commit()`. `wake()` is called whenever such a transaction opens, so the holder can
        schedule its commit. Several holders (runs sharing this journal) may hold at once."""
        with self._lock:
            if not self._holders:
                self._autocheckpoint(0)  # the watchdog checkpoints meanwhile (CHECKPOINT_BYTES)
            self._holders.append(wake)

    def release_commits(self, wake: Callable[[], None]) -> None:
        """Stops holding for `wake`'s holder; the last one to release commits what is pending."""
        with self._lock:
            if wake in self._holders:
                self._holders.remove(wake)
            if not self._holders:
                try:
                    self.commit()
                finally:
                    self._autocheckpoint(DEFAULT_AUTOCHECKPOINT_PAGES)

    def _autocheckpoint(self, pages: int) -> None:
        if self._conn is not None:
            with self._guard("set the journal's checkpoints"):
                self._conn.execute(f"PRAGMA wal_autocheckpoint = {int(pages)}")

    @property
    def open_group(self) -> int | None:
        """A number naming the open group transaction (None when nothing waits for a commit):
        a row written while it was open is durable once `open_group` differs."""
        conn = self._conn
        return self._group_serial if conn is not None and conn.in_transaction and self._holders else None

    def commit(self) -> None:
        """Commits the open group transaction, if any. On failure the group is rolled back (its
        rows were never committed) and a JournalError says why."""
        with self._lock, self._guard("commit the journal"):
            self._raise_watchdog_failure()
            conn = self._conn
            if conn is None or not conn.in_transaction:
                return
            try:
                self._flush_pending(conn)
                conn.execute("COMMIT")
            except BaseException:
                self._forget_pending(rolled_back=True)
                _rollback(conn)
                raise

    @contextmanager
    def _read(self, action: str) -> Iterator[sqlite3.Connection]:
        """A read; this connection sees the open group's pending rows too (they are written first)."""
        with self._lock, self._guard(action):
            conn = self._connection()
            if conn.in_transaction:
                self._flush_pending(conn)
            yield conn

    # ------------------------------------------------------------ schema version

    def _migrate(self) -> None:
        conn = self._connection()
        version = self._version(conn)
        if version > SCHEMA_VERSION:
            raise self._too_new(version)
        if version == SCHEMA_VERSION:
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = self._version(conn)  # another process may have migrated meanwhile
            if version > SCHEMA_VERSION:
                raise self._too_new(version)
            if version == 0:
                others = conn.execute("SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").fetchone()[0]
                if others:
                    raise JournalError(f"{self.path}: this is a SQLite database but not a dwf journal; "
                                       "point dwf at another state file or move this one aside")
                conn.execute(VERSION_TABLE)
            for target in range(version + 1, SCHEMA_VERSION + 1):
                MIGRATIONS[target - 1](conn)
                conn.execute("INSERT INTO dwf_schema_version (version) VALUES (?)", (target,))
            conn.execute("COMMIT")
        except BaseException:
            _rollback(conn)
            raise

    def _check_tables(self) -> None:
        names = {row[0] for row in self._connection().execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        missing = [name for name in TABLES if name not in names]
        if missing:
            raise JournalError(f"{self.path}: the journal is damaged: its table{'s' * (len(missing) > 1)} "
                               f"{', '.join(missing)} {'are' if len(missing) > 1 else 'is'} missing; restore the file "
                               f"from a backup, or move it and {marker_path(self.path).name} aside to start a fresh "
                               "journal; nothing was written")

    def _check_marker(self, marked: int) -> None:
        """Refuse a journal holding fewer runs than its marker records; mark one that has none."""
        found = self._connection().execute("SELECT count(*) FROM dwf_run").fetchone()[0]
        if found < marked:
            raise lost_runs_error(self.path, marked, found)
        if found > marked:  # a journal written before markers, or a marker write that was lost
            self._write_marker(found)

    def _write_marker(self, runs: int) -> None:
        """Record how many runs the journal holds (after their commit), atomically."""
        target = marker_path(self.path)
        temporary = target.with_name(f"{target.name}.{os.getpid()}.tmp")
        try:
            temporary.write_text(json.dumps({"journal": "dwf", "runs": runs}) + "\n", encoding="utf-8")
            os.replace(temporary, target)
        except OSError as error:
            raise JournalError(f"{target}: cannot write the journal's marker ({error}); check the folder's "
                               "permissions") from None

    @staticmethod
    def _version(conn: sqlite3.Connection) -> int:
        exists = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'dwf_schema_version'").fetchone()
        if not exists:
            return 0
        return int(conn.execute("SELECT COALESCE(MAX(version), 0) FROM dwf_schema_version").fetchone()[0])

    def _too_new(self, version: int) -> JournalError:
        return JournalError(f"{self.path}: this journal was written by a newer dwf (schema version {version}; this "
                            f"dwf understands up to {SCHEMA_VERSION}); upgrade dwf to open it")

    def schema_version(self) -> int:
        with self._read("read the schema version") as conn:
            return self._version(conn)

    def check(self) -> None:
        """Runs SQLite's `quick_check` over the whole file; raises JournalError if it finds damage."""
        with self._read("check the journal") as conn:
            problems = [row[0] for row in conn.execute("PRAGMA quick_check")]
        if problems != ["ok"]:
            raise JournalError(f"{self.path}: the file is damaged ({'; '.join(problems[:3])}); move it aside or "
                               "restore it from a backup")

    # ------------------------------------------------------------ JSON and blobs

    def _dump(self, conn: sqlite3.Connection, value: Any) -> tuple[str | None, str | None]:
        """(inline JSON, None) for small values; (None, sha256) for large ones, stored once."""
        return self._stored(conn, _to_json(value))

    def _stored(self, conn: sqlite3.Connection, text: str) -> tuple[str | None, str | None]:
        """`_dump` of a value already encoded as `text`."""
        if len(text) <= INLINE_CHARS:
            return text, None
        data = text.encode("utf-8")
        if len(data) <= BLOB_THRESHOLD:
            return text, None
        digest = hashlib.sha256(data).hexdigest()
        conn.execute("INSERT OR IGNORE INTO dwf_blob (sha256, data) VALUES (?, ?)", (digest, data))
        return None, digest

    def _load(self, conn: sqlite3.Connection, text: str | None, blob: str | None, what: str) -> Any:
        if blob is not None:
            found = conn.execute("SELECT data FROM dwf_blob WHERE sha256 = ?", (blob,)).fetchone()
            if found is None:
                raise JournalError(f"{self.path}: {what} refers to a stored value ({blob[:12]}...) that is missing; "
                                   "the journal was edited or damaged; restore it from a backup")
            text = bytes(found[0]).decode("utf-8", errors="replace")
        if text is None or text == "null":
            return None
        try:
            return json.loads(text)
        except (ValueError, TypeError) as error:
            raise JournalError(f"{self.path}: {what} holds invalid JSON ({error}); the journal was edited or "
                               "damaged; restore it from a backup or discard that run") from None

    # ------------------------------------------------------------ runs

    def create_run(self, run: RunRow) -> None:
        with self._write(f"record run {run.id}") as conn:
            if conn.execute("SELECT 1 FROM dwf_run WHERE id = ?", (run.id,)).fetchone():
                raise ValueError(f"run {run.id} exists")
            result, result_blob = self._dump(conn, run.result)
            values = [run.id] + [getattr(run, name) for name in RUN_TEXT]
            values += [_to_json(getattr(run, name)) for name in RUN_JSON if name != "result"]
            values += [result, result_blob]
            columns = ("id",) + RUN_TEXT + tuple(name for name in RUN_JSON if name != "result") + ("result", "result_blob")
            conn.execute(f"INSERT INTO dwf_run ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})", values)
        with self._read(f"count the runs after {run.id}") as conn:
            runs = conn.execute("SELECT count(*) FROM dwf_run").fetchone()[0]
        self._write_marker(max(runs, marked_runs(self.path)))

    def update_run(self, run_id: str, **fields: Any) -> None:
        unknown = sorted(set(fields) - set(RUN_TEXT) - set(RUN_JSON))
        if unknown:
            raise ValueError(f"update_run: unknown run fields {unknown}")
        with self._write(f"update run {run_id}") as conn:
            assignments, values = [], []
            for name, value in fields.items():
                if name == "result":
                    text, blob = self._dump(conn, value)
                    assignments += ["result = ?", "result_blob = ?"]
                    values += [text, blob]
                elif name in RUN_JSON:
                    assignments.append(f"{name} = ?")
                    values.append(_to_json(value))
                else:
                    assignments.append(f"{name} = ?")
                    values.append(value)
            assignments.append(f"updated_at = {NOW}")
            cursor = conn.execute(f"UPDATE dwf_run SET {', '.join(assignments)} WHERE id = ?", values + [run_id])
            if cursor.rowcount == 0:
                raise KeyError(run_id)

    def _run_from(self, conn: sqlite3.Connection, row: tuple) -> RunRow:
        data = dict(zip(RUN_COLUMNS, row))
        what = f"run {data['id']}"
        for name in RUN_JSON:
            if name == "result":
                data[name] = self._load(conn, data[name], data["result_blob"], f"{what} (result)")
            else:
                data[name] = self._load(conn, data[name], None, f"{what} ({name})")
        del data["result_blob"]
        data["workflows"] = data["workflows"] or {}  # NULL in rows written before version 3
        data["agent"] = data["agent"] or {}  # NULL in rows written before version 4
        return RunRow(**data)

    def get_run(self, run_id: str) -> RunRow | None:
        with self._read(f"read run {run_id}") as conn:
            row = conn.execute(f"SELECT {', '.join(RUN_COLUMNS)} FROM dwf_run WHERE id = ?", (run_id,)).fetchone()
            return self._run_from(conn, row) if row else None

    def list_runs(self, limit: int | None = None) -> list[RunRow]:
        """Every run, newest first."""
        with self._read("list runs") as conn:
            rows = conn.execute(f"SELECT {', '.join(RUN_COLUMNS)} FROM dwf_run ORDER BY created_at DESC, rowid DESC "
                                "LIMIT ?", (-1 if limit is None else int(limit),)).fetchall()
            return [self._run_from(conn, row) for row in rows]

    def find_runs(self, prefix: str) -> list[RunRow]:
        """Runs whose id starts with `prefix` (with or without the `dwfrun-` part), newest first."""
        prefixes = {prefix, prefix if prefix.startswith("dwfrun-") else f"dwfrun-{prefix}"}
        matches: dict[str, tuple[str, int, RunRow]] = {}
        with self._read(f"find runs {prefix!r}") as conn:
            for item in prefixes:  # substr, not LIKE: `_` and `%` in a prefix are literal
                rows = conn.execute(f"SELECT {', '.join(RUN_COLUMNS)}, created_at, rowid FROM dwf_run "
                                    "WHERE substr(id, 1, length(?)) = ?", (item, item)).fetchall()
                for row in rows:
                    matches[row[0]] = (row[-2], row[-1], self._run_from(conn, row[:-2]))
        return [entry[2] for entry in sorted(matches.values(), key=lambda entry: (entry[0], entry[1]), reverse=True)]

    def run_times(self, run_id: str) -> tuple[str, str] | None:
        """(created_at, updated_at) of a run as ISO-8601 UTC text, or None."""
        with self._read(f"read run {run_id}") as conn:
            row = conn.execute("SELECT created_at, updated_at FROM dwf_run WHERE id = ?", (run_id,)).fetchone()
        return (row[0], row[1]) if row else None

    # ------------------------------------------------------------ actors

    def put_actor(self, run_id, site, key, name, persona, model) -> None:
        with self._write(f"record actor {key} of run {run_id}") as conn:
            conn.execute("INSERT INTO dwf_actor (run_id, site_id, occurrence, name, persona, model) VALUES (?, ?, ?, ?, ?, ?) "
                         "ON CONFLICT (run_id, site_id, occurrence) DO UPDATE SET name = excluded.name, "
                         "persona = excluded.persona, model = excluded.model",
                         (run_id, site, key, name, persona, model))

    def set_actor_session(self, run_id: str, site: str, key: str, session_id: str | None,
                          effective_model: str | None = None) -> None:
        with self._write(f"record the session of actor {key}") as conn:
            conn.execute("UPDATE dwf_actor SET session_id = ?, effective_model = ? WHERE run_id = ? AND site_id = ? "
                         "AND occurrence = ?", (session_id, effective_model, run_id, site, key))

    def list_actors(self, run_id: str) -> list[dict]:
        with self._read(f"list the actors of run {run_id}") as conn:
            rows = conn.execute("SELECT site_id, occurrence, name, persona, model, session_id, effective_model "
                                "FROM dwf_actor WHERE run_id = ? ORDER BY rowid", (run_id,)).fetchall()
        return [{"site": r[0], "key": r[1], "name": r[2], "persona": r[3], "model": r[4], "session_id": r[5],
                 "effective_model": r[6]} for r in rows]

    # ------------------------------------------------------------ actor conversations

    def append_message(self, run_id: str, actor: str, site: str, key: str, message: dict) -> None:
        def write(conn: sqlite3.Connection, grouped: bool) -> None:
            text, blob = self._dump(conn, message)
            conn.execute(APPEND_MESSAGE, (run_id, actor, run_id, actor, site, key, text, blob))

        self._hot_write(write, lambda: f"record a message of actor {actor} of run {run_id}")

    def actor_messages(self, run_id: str, actor: str) -> list[dict]:
        with self._read(f"read the conversation of actor {actor} of run {run_id}") as conn:
            rows = conn.execute(ACTOR_MESSAGES, (run_id, actor)).fetchall()
            return [self._load(conn, text, blob, f"a message of actor {actor} of run {run_id}") for text, blob in rows]

    def ask_messages(self, run_id: str, site: str, key: str) -> list[dict]:
        with self._read(f"read the conversation of ask {key} of run {run_id}") as conn:
            rows = conn.execute(ASK_MESSAGES, (run_id, site, key)).fetchall()
            return [self._load(conn, text, blob, f"a message of ask {key} of run {run_id}") for text, blob in rows]

    def drop_unsettled_messages(self, run_id: str) -> None:
        with self._write(f"drop the messages of the unsettled asks of run {run_id}") as conn:
            conn.execute(DROP_UNSETTLED_MESSAGES, (run_id,))

    # ------------------------------------------------------------ nodes

    def get_node(self, run_id: str, site: str, key: str) -> NodeRow | None:
        with self._read(f"read node {key} of run {run_id}") as conn:
            row = conn.execute(f"SELECT {NODE_COLUMNS} FROM dwf_node WHERE run_id = ? AND site_id = ? "
                               "AND occurrence_key = ?", (run_id, site, key)).fetchone()
            return self._node_from(conn, run_id, row) if row else None

    def list_nodes(self, run_id: str, *, settled_only: bool = False, with_input: bool = True) -> list[NodeRow]:
        """The run's node rows in the order they were first written; a resume asks for the
        settled ones only and without their inputs (it compares input hashes)."""
        where = " AND status IN ('completed', 'failed')" if settled_only else ""
        with self._read(f"list the nodes of run {run_id}") as conn:
            rows = conn.execute(f"SELECT {NODE_COLUMNS} FROM dwf_node WHERE run_id = ?{where} ORDER BY rowid",
                                (run_id,)).fetchall()
            return [self._node_from(conn, run_id, row, with_input) for row in rows]

    def _node_from(self, conn: sqlite3.Connection, run_id: str, row: tuple, with_input: bool = True) -> NodeRow:
        site, key, kind, actor, digest, data, status, result, result_blob, error, usage, imported = row
        what = f"node {key} of run {run_id}"
        data = self._load(conn, data, None, f"{what} (input)") if with_input else None
        return NodeRow(run_id, site, key, kind, actor, digest, data, status,
                       self._load(conn, result, result_blob, f"{what} (result)"),
                       self._load(conn, error, None, f"{what} (error)"),
                       self._load(conn, usage, None, f"{what} (usage)"), bool(imported))

    def put_node(self, row: NodeRow) -> None:
        key = (row.run_id, row.site, row.key)
        head = key + (row.kind, row.actor, row.input_hash, _to_json(row.input), row.status)
        result, outcome = _to_json(row.result), (_to_json(row.error), _to_json(row.usage), int(bool(row.imported)))
        if len(result) <= INLINE_CHARS:
            with self._lock:
                if self._in_group() and key not in self._pending_settles:  # the common case, without a call more
                    self._pending_nodes[key] = head + (result, None) + outcome
                    return

        def write(conn: sqlite3.Connection, grouped: bool) -> None:
            values = head + self._stored(conn, result) + outcome
            if grouped:  # inserted with the group's other rows (`_flush_pending`)
                if key in self._pending_settles:
                    self._flush_pending(conn)  # written again after it settled: in that order
                self._pending_nodes[key] = values
                return
            try:
                rowid = conn.execute(INSERT_NODE, values).lastrowid
            except sqlite3.IntegrityError:  # the row exists (a re-dispatch after a crash): replace it
                conn.execute(PUT_NODE, values)
                rowid = None
            if row.status == "running" and rowid is not None:
                self._running_rows[key] = rowid

        self._hot_write(write, lambda: f"record node {row.key} of run {row.run_id}")

    def settle_node(self, run_id: str, site: str, key: str, status: str, result: Any = None, error: Any = None,
                    usage: dict | None = None) -> None:
        """Settles a node written `running` before: only the outcome columns change (the
        input, often the largest column, is not written again)."""
        text, error_text, usage_text = _to_json(result), _to_json(error), _to_json(usage or {})
        node = (run_id, site, key)
        if len(text) <= INLINE_CHARS:
            with self._lock:
                if self._in_group() and node not in self._pending_nodes:
                    rowid = self._running_rows.pop(node, None)
                    if rowid is not None:  # the common case, without a call more
                        self._pending_settles[node] = (status, text, None, error_text, usage_text) + node + (rowid,)
                        return

        def write(conn: sqlite3.Connection, grouped: bool) -> int:
            values = (status, *self._stored(conn, text), error_text, usage_text) + node
            if grouped and node in self._pending_nodes:
                self._flush_pending(conn)  # settled in the group that wrote it: it needs its rowid
            rowid = self._running_rows.pop(node, None)
            if rowid is not None:
                if grouped:
                    self._pending_settles[node] = values + (rowid,)
                    return 1
                if conn.execute(SETTLE_NODE_AT, values + (rowid, _now())).rowcount:
                    return 1
            if grouped:
                self._flush_pending(conn)
            return conn.execute(SETTLE_NODE, values).rowcount

        if self._hot_write(write, lambda: f"settle node {key} of run {run_id}") == 0:
            raise KeyError((run_id, site, key))

    def set_node_usage(self, run_id: str, site: str, key: str, usage: dict) -> None:
        text = _to_json(usage)

        def write(conn: sqlite3.Connection, grouped: bool) -> None:
            if grouped:
                self._flush_pending(conn)  # the row and a settlement of it go first
            conn.execute(NODE_USAGE, (text, run_id, site, key))

        self._hot_write(write, lambda: f"record the usage of node {key} of run {run_id}")

    # ------------------------------------------------------------ events

    def append_event(self, run_id: str, event_type: str, payload: dict, encoded: str | None = None,
                     flat: bool = False) -> int:
        """See `JournalStore.append_event`; `encoded`, when given, is `payload`'s JSON text
        (the event bus encodes each payload once, for the journal and its listeners). A `flat`
        node event joining the open group is encoded at its flush, with the group's other node
        events in one call (`_packed`)."""
        deferred = flat and event_type in PACKED_TYPES  # encoded at the flush, with its packed row
        if not deferred:
            encoded = encoded if encoded is not None else _to_json(payload)
        if (deferred or len(encoded) <= INLINE_CHARS) and event_type != "run-settled":
            with self._lock:
                last = self._group_sequences.get(run_id)
                if last is not None and self._in_group():  # the common case, without a call more
                    self._pending_events.append((run_id, last + 1, event_type, None if deferred else encoded, None,
                                                 payload if deferred else None))
                    self._group_sequences[run_id] = last + 1
                    return last + 1
        if deferred:
            encoded = dumps_flat(payload)

        def write(conn: sqlite3.Connection, grouped: bool) -> int:
            text, blob = self._stored(conn, encoded)
            if event_type == "run-settled":
                return self._settle_event(conn, run_id, text, blob, grouped)
            if not grouped:  # autocommit: insert, then read the sequence back
                rowid = conn.execute(APPEND_EVENT, (run_id, run_id, event_type, text, blob)).lastrowid
                return conn.execute("SELECT sequence FROM dwf_event WHERE rowid = ?", (rowid,)).fetchone()[0]
            last = self._group_sequences.get(run_id)
            if last is None:
                last = conn.execute(LAST_SEQUENCE, (run_id,)).fetchone()[0]
            self._pending_events.append((run_id, last + 1, event_type, text, blob, None))
            self._group_sequences[run_id] = last + 1
            return last + 1

        return self._hot_write(write, lambda: f"append a {event_type} event to run {run_id}")

    def _settle_event(self, conn: sqlite3.Connection, run_id: str, text: str | None, blob: str | None,
                      grouped: bool) -> int:
        """The run's one `run-settled`: the earlier one moved to the end (MOVE_SETTLED), or a new one."""
        if grouped:
            self._flush_pending(conn)  # the pending events take their numbers first
        if not conn.execute(MOVE_SETTLED, (run_id, text, blob, run_id)).rowcount:
            conn.execute(APPEND_EVENT, (run_id, run_id, "run-settled", text, blob))
        sequence = conn.execute(LAST_SEQUENCE, (run_id,)).fetchone()[0]
        if grouped:
            self._group_sequences[run_id] = sequence
        return sequence

    def events(self, run_id: str, after: int = 0, types: tuple[str, ...] | None = None) -> list[dict]:
        packed = types is None or not PACKED_TYPES.isdisjoint(types)  # whether packed rows may hold some
        only, names = "", ()
        if types is not None:
            names = (*types, PACKED) if packed else tuple(types)
            only = f" AND type IN ({', '.join('?' * len(names))})"
        with self._read(f"read the events of run {run_id}") as conn:  # pending ones too
            rows = self._event_rows(conn, run_id, after, "", only, names, packed)
            events = []
            for seq, last, kind, payload, blob in rows:
                if last is None:
                    events.append({"seq": seq, "type": kind,
                                   "payload": self._load(conn, payload, blob, f"event {seq} of run {run_id}")})
                    continue
                for number, (kind, payload) in self._unpacked(conn, run_id, seq, last, payload, blob):
                    if number > after and (types is None or kind in types):
                        events.append({"seq": number, "type": kind, "payload": payload})
            return events

    def _event_rows(self, conn: sqlite3.Connection, run_id: str, after: int, extra: str, only: str = "",
                    names: tuple = (), packed: bool = True) -> list[tuple]:
        """The rows holding the run's events after `after`: those that begin after it and a
        packed row that begins before it and ends after."""
        rows = conn.execute(EVENTS_AFTER.format(extra=extra, only=only), (run_id, after, *names)).fetchall()
        if packed and after > 0:
            before = conn.execute(EVENTS_STRADDLING.format(extra=extra), (run_id, after)).fetchone()
            if before is not None and before[1] is not None and before[1] > after:
                rows.insert(0, before)
        return rows

    def _unpacked(self, conn: sqlite3.Connection, run_id: str, first: int, last: int, payload: str | None,
                  blob: str | None) -> list[tuple[int, tuple[str, Any]]]:
        """The (sequence, (type, payload)) events of a packed row."""
        items = self._load(conn, payload, blob, f"events {first}-{last} of run {run_id}")
        if not (isinstance(items, list) and len(items) == last - first + 1
                and all(isinstance(item, list) and len(item) == 2 and isinstance(item[0], str) for item in items)):
            raise JournalError(f"{self.path}: events {first}-{last} of run {run_id} are not a list of "
                               f"{last - first + 1} [type, payload] pairs; the journal was edited or damaged; "
                               "restore it from a backup or discard that run")
        return list(enumerate(map(tuple, items), first))

    def event_times(self, run_id: str, after: int = 0) -> dict[int, str]:
        with self._read(f"read the event times of run {run_id}") as conn:
            rows = self._event_rows(conn, run_id, after, ", created_at")
        times = {}
        for seq, last, _, _, _, created in rows:
            for number in range(seq, (last if last is not None else seq) + 1):
                if number > after:
                    times[number] = created
        return times
