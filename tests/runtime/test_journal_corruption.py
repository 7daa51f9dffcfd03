"""A damaged journal through the real CLI (issue #19, point 8): a zeroed page, a dropped table, a
file truncated to half or to nothing, a journal deleted, and a WAL lost after a SIGKILL with its
rows still in it. Every `dwfc runs`, `show`, `run` and `resume` then exits 2 with one
`dwfc: error:` sentence naming the file and what to do: no traceback, never "no runs" when the
journal held runs, and nothing written to the damaged file. Real SQLite files, real processes."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest

from dwf.runtime.journal.sqlite import SqliteJournal, marker_path

DWFC = Path(sys.executable).parent / "dwfc"
SCRIPT = '''meta = {"name": "c", "description": "Two asks."}
first = await agent("a").ask("first")
second = await agent("b").ask("second")
return [first, second]
'''
PAGE = 8192  # the journal's page size (sqlite.py)


def dwfc(workspace: Path, *arguments: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([str(DWFC), *arguments, "--workspace", str(workspace)], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=timeout, cwd=workspace)


def fixture(folder: Path, delay_s: float = 0) -> Path:
    path = folder / f"fixture-{delay_s}.json"
    rules = [{"instructions": "second", "result": "late", "delay_s": delay_s}] if delay_s else []
    path.write_text(json.dumps({"rules": rules, "default": {"result": "ok", "output_tokens": 1}}))
    return path


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> tuple[Path, str]:
    """A workspace with one completed run, copied by each case before it damages the copy."""
    workspace = tmp_path_factory.mktemp("finished")
    (workspace / "flow.dwf.py").write_text(SCRIPT)
    done = dwfc(workspace, "run", "flow.dwf.py", "--yes", "--agent", f"scripted:{fixture(workspace)}",
                "--progress", "json")
    assert done.returncode == 0, done.stderr
    journal = workspace / ".dwf" / "state.db"
    assert json.loads(marker_path(journal).read_text())["runs"] == 1
    with SqliteJournal(journal) as opened:  # a fatter file: a few hundred node rows over many pages
        run_id = json.loads(done.stdout)["run_id"]
        for index in range(300):
            opened.append_event(run_id, "log", {"message": "x" * 200, "index": index})
    return workspace, run_id


def damaged(finished, tmp_path: Path, damage) -> tuple[Path, Path, str]:
    source, run_id = finished
    workspace = tmp_path / "ws"
    shutil.copytree(source, workspace)
    journal = workspace / ".dwf" / "state.db"
    damage(journal)
    return workspace, journal, run_id


def assert_refused_everywhere(workspace: Path, journal: Path, run_id: str, *words: str) -> None:
    before = journal.read_bytes() if journal.exists() else None
    agent = f"scripted:{fixture(workspace.parent)}"
    for arguments in (("runs",), ("show", run_id), ("events", run_id), ("resume", run_id, "--yes", "--agent", agent),
                      ("run", "flow.dwf.py", "--yes", "--agent", agent)):
        done = dwfc(workspace, *arguments)
        assert done.returncode == 2, (arguments, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr and "no runs" not in done.stdout + done.stderr, (arguments, done.stderr)
        last = done.stderr.strip().splitlines()[-1]  # `dwfc run` shows its plan first
        assert last.startswith(f"dwfc: error: {journal}: "), (arguments, done.stderr)
        assert "backup" in done.stderr and "aside" in done.stderr, done.stderr  # says what to do
        for word in words:
            assert word in done.stderr, (arguments, word, done.stderr)
    after = journal.read_bytes() if journal.exists() else None
    assert after == before  # nothing was written to the damaged file (nor a fresh one created)


def zero_page(page_of) -> callable:
    def damage(journal: Path) -> None:
        with closing(sqlite3.connect(journal)) as raw:
            page = page_of(raw)
        with open(journal, "r+b") as handle:
            handle.seek((page - 1) * PAGE)
            handle.write(b"\0" * PAGE)
    return damage


def test_a_zeroed_schema_page_is_refused(finished, tmp_path):
    assert_refused_everywhere(*damaged(finished, tmp_path, zero_page(lambda raw: 1)), "corrupted")


def test_a_zeroed_table_page_is_refused_by_every_command_that_reads_it(finished, tmp_path):
    root = lambda raw: raw.execute("SELECT rootpage FROM sqlite_master WHERE name = 'dwf_run'").fetchone()[0]
    assert_refused_everywhere(*damaged(finished, tmp_path, zero_page(root)), "corrupted")


def test_a_dropped_table_is_refused(finished, tmp_path):
    def drop(journal: Path) -> None:
        with closing(sqlite3.connect(journal)) as raw:
            raw.execute("PRAGMA foreign_keys = OFF")
            raw.execute("DROP TABLE dwf_node")
            raw.commit()
    assert_refused_everywhere(*damaged(finished, tmp_path, drop), "dwf_node is missing")


def test_a_file_truncated_to_half_is_refused(finished, tmp_path):
    half = lambda journal: os.truncate(journal, journal.stat().st_size // 2)
    assert_refused_everywhere(*damaged(finished, tmp_path, half), "corrupted or truncated")


def test_a_file_truncated_to_nothing_is_not_a_journal_with_no_runs(finished, tmp_path):
    empty = lambda journal: os.truncate(journal, 0)
    assert_refused_everywhere(*damaged(finished, tmp_path, empty), "held 1 run but now holds 0")


def test_a_deleted_journal_is_not_a_journal_with_no_runs(finished, tmp_path):
    workspace, journal, run_id = damaged(finished, tmp_path, lambda journal: journal.unlink())
    assert_refused_everywhere(workspace, journal, run_id, "held 1 run but now is missing")
    assert not journal.exists()


def test_a_wal_lost_after_sigkill_is_refused_not_no_runs(tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "flow.dwf.py").write_text(SCRIPT)
    journal = workspace / ".dwf" / "state.db"
    process = subprocess.Popen([str(DWFC), "run", "flow.dwf.py", "--yes", "--agent", f"scripted:{fixture(tmp_path, 60)}",
                                "--workspace", str(workspace)], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, cwd=workspace, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # the second ask is in flight: the first one settled
            if marker_path(journal).exists():
                with closing(sqlite3.connect(journal)) as raw:
                    if raw.execute("SELECT count(*) FROM dwf_node WHERE status = 'completed'").fetchone()[0]:
                        break
            time.sleep(0.05)
        else:
            pytest.fail("the run never settled its first ask")
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate(timeout=30)
    wal = journal.with_name(journal.name + "-wal")
    assert wal.exists() and wal.stat().st_size > 0  # the rows are in the WAL, not yet in the file
    wal.unlink()
    journal.with_name(journal.name + "-shm").unlink(missing_ok=True)
    with closing(sqlite3.connect(journal)) as raw:  # what is left is a journal without the run
        assert raw.execute("SELECT count(*) FROM dwf_run").fetchone()[0] == 0
    assert_refused_everywhere(workspace, journal, "dwfrun-0", "held 1 run but now holds 0", "-wal")


def test_a_journal_written_before_markers_gains_one_and_an_intact_one_opens(finished, tmp_path):
    workspace, journal, run_id = damaged(finished, tmp_path, lambda journal: marker_path(journal).unlink())
    listed = dwfc(workspace, "runs")
    assert listed.returncode == 0 and run_id[:14] in listed.stdout, listed.stderr
    assert json.loads(marker_path(journal).read_text())["runs"] == 1
    again = dwfc(workspace, "run", "flow.dwf.py", "--yes", "--agent", f"scripted:{fixture(tmp_path)}")
    assert again.returncode == 0, again.stderr
    assert json.loads(marker_path(journal).read_text())["runs"] == 2


def test_a_table_dropped_under_a_running_journal_errors_the_run_with_a_journal_error(tmp_path):
    import anyio

    from dwf.runtime.engine import Engine, StartRequest
    from dwf.runtime.ports.scripted import ScriptedAgentPort, parse_fixture

    path = tmp_path / "state.db"
    with SqliteJournal(path) as journal:  # opened intact; the table goes while it is open
        with closing(sqlite3.connect(path)) as raw:
            raw.execute("PRAGMA foreign_keys = OFF")
            raw.execute("DROP TABLE dwf_node")
            raw.commit()

        async def main():
            port = ScriptedAgentPort(parse_fixture({"rules": [], "default": {"result": "ok"}}))
            async with Engine() as engine:
                return await engine.start(StartRequest(script=SCRIPT, agent_port=port, journal=journal)).result

        outcome = anyio.run(main)
    assert outcome.status == "errored"
    assert outcome.error.startswith(f"JournalError: {path}: cannot record node ask#1") and "InternalError" not in outcome.error
