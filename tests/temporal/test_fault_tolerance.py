"""Fault tolerance on Temporal, with real processes: a dev server and two `dwfc worker`s serve a
fan-out + pipeline + loop run; one worker is SIGKILLed mid-run and the run completes on the
other, and no ask that had completed (the workflow's journal said so before the kill) is
dispatched again (the scripted port's call logs of both workers); the server is restarted
mid-run with the same database file and the run continues. Each value equals the local run's."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections import Counter
from pathlib import Path

from temporal_cluster import DWFC, run_on_temporal, start_worker, stop_worker

SCRIPT = '''meta = {"name": "sturdy", "description": "Fan-out, pipeline and loop.", "phases": [{"title": "Work", "detail": "asks"}]}
phase("Work")
fan = await parallel(agent(f"f{i}").ask(f"fan {i}") for i in range(12))


async def first(item, same, index):
    return await agent(f"p{index}").ask(f"pipe1 {item}")


async def second(previous, item, index):
    return await agent(f"q{index}").ask(f"pipe2 {item} {previous}")


piped = await pipeline(["a", "b", "c", "d"], first, second)
worker = agent("seq")
seq = []
for i in range(4):
    seq.append(await worker.ask(f"seq {i} {len(seq)}"))
return {"fan": fan, "piped": piped, "seq": seq}
'''
FIXTURE = {"rules": [{"instructions": "^fan (\\\\d+)", "result": "fanned", "delay_s": 0.8},
                     {"instructions": "^pipe1", "result": "first", "delay_s": 0.8},
                     {"instructions": "^pipe2", "result": "second", "delay_s": 0.8}],
           "default": {"result": "looped", "delay_s": 0.8}}
DEADLINE_S = 180


def workspace_with_script(root: Path) -> tuple[Path, Path, Path]:
    root.mkdir(parents=True)
    script, fixture = root / "sturdy.dwf.py", root.parent / f"{root.name}-fixture.json"
    script.write_text(SCRIPT)
    fixture.write_text(json.dumps(FIXTURE))
    return root, script, fixture


def local_value(tmp_path: Path) -> dict:
    import subprocess

    workspace, script, fixture = workspace_with_script(tmp_path / "local")
    done = subprocess.run([str(DWFC), "run", str(script), "--yes", "--agent", f"scripted:{fixture}", "--progress",
                           "json", "--workspace", str(workspace)], capture_output=True, text=True, timeout=DEADLINE_S)
    result = json.loads(done.stdout)
    assert result["status"] == "completed", result
    return result["value"]


def run_states(address: str) -> dict[str, str]:
    """Key -> status of every effect of the one running DWF run on the server."""
    from temporalio.client import Client

    async def query():
        client = await Client.connect(address)
        async for execution in client.list_workflows("WorkflowType = 'DwfRun' AND ExecutionStatus = 'Running'"):
            try:
                nodes = await client.get_workflow_handle(execution.id).query("nodes")
            except Exception:
                return {}
            return {n["key"]: n["status"] for n in nodes}
        return {}

    return asyncio.run(query())


def wait_for(condition, what: str):
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def dispatched(log: Path) -> Counter:
    lines = log.read_text().splitlines() if log.exists() else []
    return Counter(json.loads(line)["occurrence"] for line in lines)


def test_a_killed_worker_loses_no_completed_ask(dev_server, tmp_path):
    expected = local_value(tmp_path)
    workspace, script, fixture = workspace_with_script(tmp_path / "remote")
    logs = [tmp_path / "calls-a.jsonl", tmp_path / "calls-b.jsonl"]
    env = dict(os.environ)
    doomed = start_worker(dev_server.address, "sturdy-kill", workspace, fixture, env, concurrency=4, call_log=logs[0])
    survivor = start_worker(dev_server.address, "sturdy-kill", workspace, fixture, env, concurrency=4,
                            call_log=logs[1])
    try:
        run = run_on_temporal(dev_server.address, "sturdy-kill", script, workspace, env)
        states = wait_for(lambda: (lambda s: s if list(s.values()).count("completed") >= 4
                                   and dispatched(logs[0]) else None)(run_states(dev_server.address)),
                          "four completed asks")
        completed_before = {key for key, status in states.items() if status == "completed"}
        doomed.send_signal(signal.SIGKILL)
        doomed.wait()
        out, err = run.communicate(timeout=DEADLINE_S)
    finally:
        stop_worker(doomed)
        stop_worker(survivor)
    result = json.loads(out)
    assert result["status"] == "completed", (result, err)
    assert result["value"] == expected
    calls = dispatched(logs[0]) + dispatched(logs[1])
    assert set(calls) == {key for key in calls}  # every ask was dispatched
    assert len(calls) == 12 + 8 + 4
    again = {key for key, count in calls.items() if count > 1}
    assert not again & completed_before, f"completed asks dispatched again: {sorted(again & completed_before)}"
    assert dispatched(logs[1]), "the surviving worker served nothing"


def test_the_run_continues_across_a_server_restart(dev_server, tmp_path):
    expected = local_value(tmp_path)
    workspace, script, fixture = workspace_with_script(tmp_path / "remote")
    log = tmp_path / "calls.jsonl"
    worker = start_worker(dev_server.address, "sturdy-restart", workspace, fixture, dict(os.environ), concurrency=8,
                          call_log=log)
    try:
        run = run_on_temporal(dev_server.address, "sturdy-restart", script, workspace, dict(os.environ))
        wait_for(lambda: sum(dispatched(log).values()) >= 4, "four dispatched asks")
        dev_server.stop()
        dev_server.start()  # the same database file and port
        out, err = run.communicate(timeout=DEADLINE_S)
    finally:
        stop_worker(worker)
    result = json.loads(out)
    assert result["status"] == "completed", (result, err)
    assert result["value"] == expected
