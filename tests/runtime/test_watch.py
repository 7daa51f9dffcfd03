"""Run notices through the Python API (`host/watch.py`, `ToolLayer.watch`): a real workspace (SQLite
journal, control files) with the scripted agent port, and runs started by `dwfc run` in other
processes. Each kind — run-finished (with the guidance of each way a run ends), escalation-raised and
run-stalled — arrives without a tool call."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

from dwf.runtime.host.watch import GUIDANCE, MAX_VALUE_CHARS, RunNotice, RunWatch
from dwf.runtime.journal.sqlite import SqliteJournal
from dwf.runtime.tools.definitions import approve_all
from dwf.runtime.tools.layer import ToolLayer

DWFC = Path(sys.executable).parent / "dwfc"

SCRIPT = '''meta = {"name": "two", "description": "Two asks."}
a = await agent("first").ask("one")
report({"said": a})
b = await agent("second").ask("two")
return [a, b]
'''
FAILING = '''meta = {"name": "failing", "description": "Fails."}
a = await agent("first").ask("one")
raise ValueError(f"bad {a}")
'''
BIG = '''meta = {"name": "big", "description": "A large result."}
a = await agent("first").ask("one")
return a * 20000
'''


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def workspace(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("DWF_HOME", str(tmp_path / "home"))
    root = tmp_path / "ws"
    root.mkdir()
    fixture(root, "fast.json")
    fixture(root, "slow.json", second={"result": "B", "delay_s": 30})
    fixture(root, "asks.json", first={"escalate": "Which one?", "then": {"result": "A"}})
    return root


def fixture(root: Path, name: str, *, first: dict | None = None, second: dict | None = None) -> str:
    rules = [{"actor": "first", **(first or {"result": "A"})}, {"actor": "second", **(second or {"result": "B"})}]
    (root / name).write_text(json.dumps({"rules": rules}))
    return f"scripted:{root / name}"


async def next_notice(watch: RunWatch, timeout: float = 15) -> RunNotice:
    with anyio.fail_after(timeout):
        return await watch.__anext__()


@pytest.mark.anyio
async def test_a_completed_run_is_reported_with_its_result_reports_and_guidance(workspace):
    async with ToolLayer(workspace, agent=f"scripted:{workspace / 'fast.json'}", approver=approve_all) as tools, \
            tools.watch(poll_s=0.02) as watch:
        started = await tools.call("CreateWorkflow", {"script": SCRIPT})
        notice = await next_notice(watch)
    assert notice.kind == "run-finished" and notice.run_id == started["run_id"]
    data = notice.data
    assert (data["name"], data["status"], data["stop_reason"], data["outcome"]) == ("two", "completed", None, "completed")
    assert data["result"] == ["A", "B"] and data["reports"] == [{"said": "A"}] and data["error"] is None
    assert data["guidance"] == GUIDANCE["completed"] and data["usage"]["output_tokens"] > 0
    assert notice.text().splitlines() == [f'DWF run {started["run_id"]} `two` finished: completed. Result: ["A", "B"]',
                                          GUIDANCE["completed"]]


@pytest.mark.anyio
async def test_a_failed_and_a_cancelled_run_say_what_to_do_next(workspace):
    async with ToolLayer(workspace, agent=f"scripted:{workspace / 'slow.json'}", approver=approve_all) as tools, \
            tools.watch(poll_s=0.02) as watch:
        failed = await tools.call("CreateWorkflow", {"script": FAILING})
        first = await next_notice(watch)
        slow = await tools.call("CreateWorkflow", {"script": SCRIPT})
        await tools.call("CancelWorkflowRun", {"run": slow["run_id"]})
        second = await next_notice(watch)
    assert (first.run_id, first.data["status"]) == (failed["run_id"], "errored")
    assert "bad A" in first.data["error"] and first.data["guidance"] == GUIDANCE["errored"]
    assert (second.run_id, second.data["outcome"]) == (slow["run_id"], "stopped(model)")
    assert second.data["guidance"] == GUIDANCE["stopped(model)"]


@pytest.mark.anyio
async def test_a_resumed_run_is_followed_again_from_its_new_start(workspace):
    fixture(workspace, "second.json", second={"result": "B", "delay_s": 1.0})
    async with ToolLayer(workspace, agent=f"scripted:{workspace / 'second.json'}", approver=approve_all) as tools, \
            tools.watch(poll_s=0.02) as watch:
        started = await tools.call("CreateWorkflow", {"script": SCRIPT})
        await tools.call("CancelWorkflowRun", {"run": started["run_id"]})
        stopped = await next_notice(watch)
        resumed = await tools.call("ResumeWorkflowRun", {"run": started["run_id"]})
        finished = await next_notice(watch)
    assert resumed["ok"] and stopped.data["outcome"] == "stopped(model)"
    assert (finished.run_id, finished.data["outcome"], finished.data["result"]) == (started["run_id"], "completed",
                                                                                   ["A", "B"])


@pytest.mark.anyio
async def test_a_question_is_reported_once_with_its_id_and_actor(workspace):
    async with ToolLayer(workspace, agent=f"scripted:{workspace / 'asks.json'}", approver=approve_all) as tools, \
            tools.watch(poll_s=0.02) as watch:
        started = await tools.call("CreateWorkflow", {"script": SCRIPT})
        raised = await next_notice(watch)
        await tools.call("ResolveWorkflowQuestion", {"question_id": raised.data["question_id"], "answer": "the red one"})
        finished = await next_notice(watch)
    assert raised.kind == "escalation-raised" and raised.run_id == started["run_id"]
    assert (raised.data["actor"], raised.data["question"]) == ("first", "Which one?")
    assert started["run_id"].removeprefix("dwfrun-")[:8] in raised.data["question_id"]
    assert f'ResolveWorkflowQuestion(question_id="{raised.data["question_id"]}"' in raised.data["guidance"]
    assert finished.kind == "run-finished" and finished.data["result"] == ["A", "B"]


@pytest.mark.anyio
async def test_a_stall_is_reported_once_per_quiet_spell_while_an_ask_is_in_flight(workspace):
    async with ToolLayer(workspace, agent=f"scripted:{workspace / 'slow.json'}", approver=approve_all) as tools, \
            tools.watch(stall_after_s=0.3, poll_s=0.02) as watch:
        started = await tools.call("CreateWorkflow", {"script": SCRIPT})
        stalled = await next_notice(watch)
        with anyio.move_on_after(1.0):  # quiet for three more stall periods: still only the one notice
            extra = await watch.__anext__()
            pytest.fail(f"a second notice during the same quiet spell: {extra}")
        await tools.call("CancelWorkflowRun", {"run": started["run_id"]})
        finished = await next_notice(watch)
    assert stalled.kind == "run-stalled" and stalled.run_id == started["run_id"]
    assert stalled.data["asks_in_flight"] == 1 and stalled.data["idle_s"] >= 0.3
    assert "CancelWorkflowRun" in stalled.data["guidance"]
    assert finished.kind == "run-finished" and finished.data["outcome"] == "stopped(model)"


@pytest.mark.anyio
async def test_no_stall_is_reported_while_a_question_waits(workspace):
    fixture(workspace, "waits.json", first={"escalate": "Which one?", "then": {"result": "A"}})
    async with ToolLayer(workspace, agent=f"scripted:{workspace / 'waits.json'}", approver=approve_all) as tools, \
            tools.watch(stall_after_s=0.2, poll_s=0.02) as watch:
        await tools.call("CreateWorkflow", {"script": SCRIPT})
        raised = await next_notice(watch)
        with anyio.move_on_after(0.8):
            extra = await watch.__anext__()
            pytest.fail(f"reported while the question waits: {extra}")
    assert raised.kind == "escalation-raised"


def test_settled_runs_are_not_reported_again_but_a_waiting_question_is(workspace):
    env = {**os.environ, "DWF_HOME": str(workspace.parent / "home")}
    script = workspace / "two.dwf.py"
    script.write_text(SCRIPT)
    done = subprocess.run([str(DWFC), "run", str(script), "--agent", f"scripted:{workspace / 'fast.json'}", "--yes",
                           "--workspace", str(workspace)], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    waiting = subprocess.Popen([str(DWFC), "run", str(script), "--agent", f"scripted:{workspace / 'asks.json'}",
                                "--yes", "--workspace", str(workspace)], env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        watch = RunWatch.of_workspace(workspace)
        deadline = time.monotonic() + 20
        notices = []
        while not notices:
            assert time.monotonic() < deadline, "the waiting question was never reported"
            notices = watch.poll()
            time.sleep(0.05)
        [raised] = notices
        assert raised.kind == "escalation-raised" and raised.data["question"] == "Which one?"
        assert watch.poll() == []  # said once
    finally:
        waiting.kill()
        waiting.wait()
        watch.close()


def test_a_run_whose_process_died_is_reported_interrupted_not_stalled(workspace):
    script = workspace / "two.dwf.py"
    script.write_text(SCRIPT)
    env = {**os.environ, "DWF_HOME": str(workspace.parent / "home")}
    with RunWatch.of_workspace(workspace, stall_after_s=0.2) as watch:
        assert watch.poll() == []
        process = subprocess.Popen([str(DWFC), "run", str(script), "--agent", f"scripted:{workspace / 'slow.json'}",
                                    "--yes", "--workspace", str(workspace)], env=env, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        journal = SqliteJournal(workspace / ".dwf" / "state.db")
        deadline = time.monotonic() + 20
        while not [node for run in journal.list_runs() for node in journal.list_nodes(run.id)
                   if node.kind == "ask" and node.status == "running" and node.actor]:
            assert time.monotonic() < deadline, "the slow ask never started"
            time.sleep(0.05)
        journal.close()
        seen = watch.poll()  # the run is followed from here on
        process.send_signal(signal.SIGKILL)
        process.wait()
        deadline = time.monotonic() + 10
        while not [notice for notice in seen if notice.kind == "run-finished"]:
            assert time.monotonic() < deadline, f"the dead run was never reported: {seen}"
            time.sleep(0.1)
            seen += watch.poll()
    finished = [notice for notice in seen if notice.kind == "run-finished"]
    assert [n.data["outcome"] for n in finished] == ["stopped(interrupted)"]
    assert finished[0].data["guidance"] == GUIDANCE["stopped(interrupted)"]


@pytest.mark.anyio
async def test_a_large_result_is_left_to_get_workflow_run(workspace):
    async with ToolLayer(workspace, agent=f"scripted:{workspace / 'fast.json'}", approver=approve_all) as tools, \
            tools.watch(poll_s=0.02) as watch:
        await tools.call("CreateWorkflow", {"script": BIG})
        notice = await next_notice(watch)
    assert set(notice.data["result"]) == {"omitted"} and "GetWorkflowRun" in notice.data["result"]["omitted"]
    assert len(json.dumps(notice.to_json())) < 2 * MAX_VALUE_CHARS


def test_a_stall_period_must_be_positive(workspace):
    with pytest.raises(ValueError, match="stall_after_s must be a positive number of seconds"):
        RunWatch.of_workspace(workspace, stall_after_s=0)
