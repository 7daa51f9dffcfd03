"""Run management from the command line (TOOLS §1) as real subprocesses: `dwfc runs`, `show`,
`events`, `resume` and `cancel`; reconciliation of a run left `running` by a SIGKILLed
`dwfc run`; a cancel from another process; prefixes, unknown and ambiguous run ids."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

DWFC = Path(sys.executable).parent / "dwfc"

SCRIPT = '''meta = {"name": "three", "description": "Three asks and a report.", "phases": [{"title": "Work", "detail": "ask"}]}
phase("Work")
a = await agent("first").ask("one")
report({"got": a})
b = await agent("second").ask("two")
c = await agent("third").ask("three")
return [a, b, c]
'''


def fixture(third_delay: float) -> dict:
    return {"rules": [{"actor": "first", "result": "A"}, {"actor": "second", "result": "B"},
                      {"actor": "third", "result": "C", "delay_s": third_delay}]}


@pytest.fixture
def workspace(tmp_path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "three.dwf.py").write_text(SCRIPT)
    (root / "slow.json").write_text(json.dumps(fixture(60)))
    (root / "fast.json").write_text(json.dumps(fixture(0)))
    return root


def env(call_log: Path | None = None) -> dict:
    environment = {k: v for k, v in os.environ.items() if k != "DWF_SCRIPTED_CALL_LOG"}
    if call_log is not None:
        environment["DWF_SCRIPTED_CALL_LOG"] = str(call_log)
    return environment


def dwfc(*argv: str, cwd: Path, call_log: Path | None = None, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run([str(DWFC), *argv], cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=timeout, env=env(call_log))


def start_slow_run(workspace: Path, call_log: Path) -> subprocess.Popen:
    return subprocess.Popen([str(DWFC), "run", "three.dwf.py", "--yes", "--agent", "scripted:slow.json",
                             "--progress", "json"], cwd=workspace, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(call_log))


def calls(call_log: Path) -> list[str]:
    if not call_log.exists():
        return []
    return [json.loads(line)["actor"] for line in call_log.read_text().splitlines() if line.strip()]


def wait_for_third(call_log: Path, process: subprocess.Popen, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while "third" not in calls(call_log):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the run never reached its third ask"
        time.sleep(0.05)


def runs_json(workspace: Path) -> list[dict]:
    done = dwfc("runs", "--json", cwd=workspace)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def killed_at_third(workspace: Path, log: Path) -> dict:
    """A run SIGKILLed while its third ask is in flight, as `dwfc runs --json` lists it."""
    process = start_slow_run(workspace, log)
    try:
        wait_for_third(log, process)
    finally:
        process.kill()
        process.communicate()
    [row] = runs_json(workspace)
    return row


def test_a_sigkilled_run_is_reconciled_and_resume_completes_it(workspace, tmp_path):
    log = tmp_path / "calls.log"
    listed = killed_at_third(workspace, log)  # listing reconciles: the owner is dead
    assert (listed["status"], listed["stop_reason"]) == ("stopped", "interrupted")
    assert calls(log) == ["first", "second", "third"]

    resumed = dwfc("resume", listed["id"][len("dwfrun-"):][:10], "--agent", "scripted:fast.json", "--progress", "json",
                   cwd=workspace, call_log=log)
    assert resumed.returncode == 0, resumed.stderr
    result = json.loads(resumed.stdout)
    assert result["run_id"] == listed["id"] and result["status"] == "completed"
    assert result["value"] == ["A", "B", "C"]
    assert result["reports"] == [{"got": "A"}]
    assert calls(log) == ["first", "second", "third", "third"]  # finished asks were not dispatched again
    [after] = runs_json(workspace)
    assert after["status"] == "completed" and after["asks"] == 3


def test_cancel_from_another_process_stops_a_live_run(workspace, tmp_path):
    log = tmp_path / "calls.log"
    process = start_slow_run(workspace, log)
    try:
        wait_for_third(log, process)
        began = time.monotonic()
        cancelled = dwfc("cancel", "dwfrun", cwd=workspace)
        out, err = process.communicate(timeout=10)
        elapsed = time.monotonic() - began
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert cancelled.returncode == 0, cancelled.stderr
    assert "stopped(user)" in cancelled.stderr
    assert process.returncode == 3, err
    result = json.loads(out)
    assert (result["status"], result["stop_reason"]) == ("stopped", "user")
    assert elapsed < 5
    again = dwfc("cancel", result["run_id"], cwd=workspace)
    assert again.returncode == 2 and "not running" in again.stderr

    resumed = dwfc("resume", result["run_id"], "--agent", "scripted:fast.json", "--progress", "json", "--yes",
                   cwd=workspace, call_log=log)  # stopped by a person: approved again (issue #19)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["value"] == ["A", "B", "C"]
    assert calls(log) == ["first", "second", "third", "third"]


def test_runs_show_and_events_output_shapes(workspace):
    done = dwfc("run", "three.dwf.py", "--yes", "--agent", "scripted:fast.json", "--progress", "json", cwd=workspace)
    assert done.returncode == 0, done.stderr
    run_id = json.loads(done.stdout)["run_id"]

    [row] = runs_json(workspace)
    assert set(row) == {"id", "name", "status", "stop_reason", "started", "updated", "duration_s", "asks", "tokens"}
    assert (row["id"], row["name"], row["status"], row["asks"]) == (run_id, "three", "completed", 3)
    table = dwfc("runs", cwd=workspace)
    assert table.returncode == 0
    header, line = table.stdout.splitlines()
    assert header.split() == ["ID", "NAME", "STATUS", "STARTED", "DURATION", "ASKS", "TOKENS"]
    assert line.startswith(run_id) and "completed" in line

    shown = dwfc("show", run_id[:14], "--json", cwd=workspace)
    assert shown.returncode == 0, shown.stderr
    snapshot = json.loads(shown.stdout)
    assert snapshot["id"] == run_id and snapshot["status"] == "completed"
    assert snapshot["result"] == ["A", "B", "C"] and snapshot["error"] is None
    assert snapshot["reports"] == [{"got": "A"}]
    assert [a["name"] for a in snapshot["actors"]] == ["first", "second", "third"]
    assert snapshot["phases"] == [{"title": "Work", "status": "done", "nodes": 3, "settled": 3, "failed": 0}]
    assert snapshot["pending_questions"] == [] and snapshot["artifacts"] == []
    assert snapshot["usage"]["output_tokens"] == snapshot["tokens"] > 0
    text = dwfc("show", run_id, cwd=workspace)
    assert text.returncode == 0 and "Result: [\"A\", \"B\", \"C\"]" in text.stdout and "Work: 3/3" in text.stdout

    events = dwfc("events", run_id, cwd=workspace)
    assert events.returncode == 0
    parsed = [json.loads(line) for line in events.stdout.splitlines()]
    assert parsed[0]["type"] == "run-started" and parsed[-1]["type"] == "run-settled"
    assert [e["seq"] for e in parsed] == list(range(1, len(parsed) + 1))
    assert all(e["run_id"] == run_id for e in parsed)
    followed = dwfc("events", run_id, "--follow", "--after", str(len(parsed) - 1), cwd=workspace, timeout=10)
    assert [json.loads(line)["type"] for line in followed.stdout.splitlines()] == ["run-settled"]


def test_events_follow_ends_when_a_live_run_settles(workspace, tmp_path):
    log = tmp_path / "calls.log"
    process = start_slow_run(workspace, log)
    try:
        wait_for_third(log, process)
        follower = subprocess.Popen([str(DWFC), "events", "dwfrun-", "--follow"], cwd=workspace, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True, env=env())
        time.sleep(0.5)
        assert follower.poll() is None  # still following the live run
        assert dwfc("cancel", "dwfrun-", cwd=workspace).returncode == 0
        out, err = follower.communicate(timeout=10)
    finally:
        for child in (process,):
            if child.poll() is None:
                child.kill()
            child.communicate()
    assert follower.returncode == 0, err
    types = [json.loads(line)["type"] for line in out.splitlines()]
    assert types[0] == "run-started" and types[-1] == "run-settled"


def test_unknown_ambiguous_and_unresumable_runs_exit_2(workspace):
    empty = dwfc("show", "abc", cwd=workspace)
    assert empty.returncode == 2 and "no run" in empty.stderr
    assert dwfc("runs", "--json", cwd=workspace).stdout.strip() == "[]"
    ids = []
    for _ in range(2):
        done = dwfc("run", "three.dwf.py", "--yes", "--agent", "scripted:fast.json", "--progress", "json", cwd=workspace)
        ids.append(json.loads(done.stdout)["run_id"])
    ambiguous = dwfc("show", "dwfrun-", cwd=workspace)
    assert ambiguous.returncode == 2
    assert "matches 2 runs" in ambiguous.stderr and all(run_id in ambiguous.stderr for run_id in ids)
    unknown = dwfc("resume", "zzzz", "--agent", "scripted:fast.json", cwd=workspace)
    assert unknown.returncode == 2 and "no run matches" in unknown.stderr
    finished = dwfc("resume", ids[0], "--agent", "scripted:fast.json", cwd=workspace)
    assert finished.returncode == 2 and "completed" in finished.stderr and "Traceback" not in finished.stderr


def test_resume_refuses_an_edited_script(workspace, tmp_path):
    log = tmp_path / "calls.log"
    row = killed_at_third(workspace, log)
    import sqlite3

    with sqlite3.connect(workspace / ".dwf" / "state.db") as conn:
        conn.execute("UPDATE dwf_run SET script = replace(script, '\"one\"', '\"uno\"') WHERE id = ?", (row["id"],))
    refused = dwfc("resume", row["id"], "--agent", "scripted:fast.json", cwd=workspace, call_log=log)
    assert refused.returncode == 2 and "sha256" in refused.stderr
    assert calls(log) == ["first", "second", "third"]


def test_two_processes_resuming_the_same_run_cannot_both_win(workspace, tmp_path):
    log = tmp_path / "calls.log"
    row = killed_at_third(workspace, log)
    assert row["status"] == "stopped"
    (workspace / "medium.json").write_text(json.dumps(fixture(1.0)))
    for attempt in range(3):
        if attempt:  # stop the winner's finished run again so both may try once more
            import sqlite3

            with sqlite3.connect(workspace / ".dwf" / "state.db") as conn:
                conn.execute("UPDATE dwf_run SET status = 'stopped', stop_reason = 'user' WHERE id = ?", (row["id"],))
                conn.execute("UPDATE dwf_node SET status = 'running' WHERE run_id = ? AND actor = 'third'", (row["id"],))
        logs = [tmp_path / f"resume{attempt}-{i}.log" for i in range(2)]
        both = [subprocess.Popen([str(DWFC), "resume", row["id"], "--agent", "scripted:medium.json", "--progress", "json",
                                  "--yes"],
                                 cwd=workspace, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, env=env(logs[i])) for i in range(2)]
        outcomes = [(p.wait(timeout=30), *p.communicate()) for p in both]
        codes = sorted(code for code, _, _ in outcomes)
        assert codes == [0, 2], outcomes
        loser = next(err for code, _, err in outcomes if code == 2)
        # refused before any effect: "is still running" when it saw the claim, or "resumed it first"
        # when both read the row as stopped and the claim lock decided
        assert re.search(r"is still running|another process resumed it first", loser) and "Traceback" not in loser
        assert sum(len(calls(path)) for path in logs) == 1  # the ask left running was dispatched once
        winner = json.loads(next(out for code, out, _ in outcomes if code == 0))
        assert winner["value"] == ["A", "B", "C"]


def test_amending_a_run_live_in_another_process_supersedes_it(workspace, tmp_path):
    log = tmp_path / "calls.log"
    process = start_slow_run(workspace, log)
    try:
        wait_for_third(log, process)
        (workspace / "edited.dwf.py").write_text(SCRIPT.replace('ask("three")', 'ask("three, edited")'))
        amended = dwfc("amend", "dwfrun-", "edited.dwf.py", "--agent", "scripted:fast.json", "--yes",
                       "--progress", "json", cwd=workspace, call_log=log)
        out, err = process.communicate(timeout=15)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 3, err
    old = json.loads(out)
    assert (old["status"], old["stop_reason"]) == ("stopped", "superseded")
    assert amended.returncode == 0, amended.stderr
    new = json.loads(amended.stdout)
    assert new["status"] == "completed" and new["value"] == ["A", "B", "C"] and new["run_id"] != old["run_id"]
    # first and second were imported (not dispatched again, zero tokens); the edited third ran live
    assert calls(log) == ["first", "second", "third", "third"]
    listed = {r["id"]: r for r in runs_json(workspace)}
    assert (listed[old["run_id"]]["status"], listed[old["run_id"]]["stop_reason"]) == ("stopped", "superseded")
    shown = json.loads(dwfc("show", old["run_id"], "--json", cwd=workspace).stdout)
    assert (shown["superseded_by"], shown["resumable"]) == (new["run_id"], False)
    assert json.loads(dwfc("show", new["run_id"], "--json", cwd=workspace).stdout)["amended_from"] == old["run_id"]
    assert f"Superseded by: {new['run_id']}" in dwfc("show", old["run_id"], cwd=workspace).stdout


def test_amend_keeps_the_caps_of_the_run_unless_given(workspace):
    started = dwfc("run", "three.dwf.py", "--yes", "--agent", "scripted:fast.json", "--max-concurrency", "3",
                   "--budget", "5000", "--model", "model-a", "--progress", "json", cwd=workspace)
    assert started.returncode == 0, started.stderr
    first = json.loads(started.stdout)["run_id"]
    amended = dwfc("amend", first, "three.dwf.py", "--agent", "scripted:fast.json", "--yes", "--progress", "json",
                   cwd=workspace)
    assert amended.returncode == 0, amended.stderr
    second = json.loads(amended.stdout)["run_id"]
    caps = json.loads(dwfc("show", second, "--json", cwd=workspace).stdout)["caps"]
    assert (caps["max_concurrency"], caps["budget"], caps["model"]) == (3, 5000, "model-a")
    changed = dwfc("amend", second, "three.dwf.py", "--agent", "scripted:fast.json", "--yes", "--progress", "json",
                   "--budget", "none", "--max-concurrency", "2", cwd=workspace)
    assert changed.returncode == 0, changed.stderr
    caps = json.loads(dwfc("show", json.loads(changed.stdout)["run_id"], "--json", cwd=workspace).stdout)["caps"]
    assert (caps["max_concurrency"], caps["budget"], caps["model"]) == (2, None, "model-a")


FANOUT = '''meta = {"name": "fanout", "description": "Four slow asks."}
phase("Work")
return await parallel(agent(f"w{i}").ask("go") for i in range(4))
'''


def test_set_raises_a_live_runs_concurrency_at_once_and_records_caps_for_a_resume(workspace, tmp_path):
    (workspace / "fanout.dwf.py").write_text(FANOUT)
    (workspace / "fanout.json").write_text(json.dumps({"rules": [{"actor": f"w{i}", "result": i, "delay_s": 10}
                                                                 for i in range(4)]}))
    log = tmp_path / "calls.log"
    process = subprocess.Popen([str(DWFC), "run", "fanout.dwf.py", "--yes", "--agent", "scripted:fanout.json",
                                "--max-concurrency", "1", "--progress", "json"], cwd=workspace,
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=env(log))
    try:
        deadline = time.monotonic() + 20
        while not calls(log) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(calls(log)) == 1
        changed = dwfc("set", "dwfrun", "--max-concurrency", "4", cwd=workspace)
        assert changed.returncode == 0, changed.stderr
        assert "runs with max concurrency 4" in changed.stderr
        time.sleep(1.0)
        assert len(calls(log)) == 4  # the waiting asks were admitted before the first one finished
        refused = dwfc("set", "dwfrun", "--max-concurrency", "none", cwd=workspace)
        assert refused.returncode == 2 and "not cleared while it runs" in refused.stderr
        assert dwfc("cancel", "dwfrun", cwd=workspace).returncode == 0
        out, err = process.communicate(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    run_id = json.loads(out)["run_id"]
    recorded = dwfc("set", run_id, "--max-concurrency", "2", "--model", "model-b", cwd=workspace)
    assert recorded.returncode == 0 and "its resume or amend uses max concurrency 2, model model-b" in recorded.stderr
    resumed = dwfc("resume", run_id, "--agent", "scripted:fast.json", "--progress", "stream-json", "--yes",
                   cwd=workspace)
    assert resumed.returncode in (0, 1), resumed.stderr
    events = [json.loads(line).get("event") or {} for line in resumed.stdout.splitlines()]
    started = next(event for event in events if event.get("type") == "run-started")
    assert started["caps"]["max_concurrency"] == 2
    caps = json.loads(dwfc("show", run_id, "--json", cwd=workspace).stdout)["caps"]
    assert (caps["max_concurrency"], caps["model"]) == (2, "model-b")
    assert dwfc("set", run_id, cwd=workspace).returncode == 2
