"""Same semantics on Temporal beyond the examples: caps, the budget, joins (`parallel`, `gather`,
`pipeline`), fatal against per-item failure give the same outcome (status, value, error, stop
reason, usage, reports) through `dwfc run --temporal` as through `dwfc run`; an escalation is
answered with `dwfc answer --temporal` (a signal); `dwfc cancel --temporal` stops a run as
`stopped(user)` and the cancel reaches the ask in flight (its activity is cancelled); `dwfc runs`
and `dwfc show` list and show the runs on Temporal next to the workspace's."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time

import pytest
from temporal_cluster import DWFC, run_on_temporal, start_worker, stop_worker

FIXTURE = {"rules": [
    {"instructions": "^write", "result": "refused",
     "tools": [{"tool": "write_file", "input": {"path": "x.txt", "content": "x"}, "expect": "error"}]},
    # the strict join's failure comes after its sibling's answer: on a cluster the two activities
    # finish in either order, and a sibling cancelled first never reports the tokens it spent
    {"instructions": "^fail strictly", "fail": "scripted failure", "delay_s": 2},
    {"instructions": "^fail", "fail": "scripted failure"},
    {"instructions": "^question", "escalate": "Which colour?"},
    {"instructions": "^slow", "result": "late", "delay_s": 60},
    {"instructions": "^typed", "result": {"n": 3, "tags": ["b", "a"]}},
], "default": {"result": "ok", "output_tokens": 6}}

HEAD = 'meta = {"name": "case", "description": "A semantics case."%s}\n'
CASES = {
    "caps": (HEAD % ', "max_agents": 3') + 'xs = [agent(f"a{i}") for i in range(5)]\nreturn len(xs)\n',
    "budget": HEAD % "" + '''done = 0
for i in range(10):
    try:
        await agent(f"b{i}").ask(f"spend {i}")
        done += 1
    except BudgetExceeded:
        break
return {"done": done, "spent": budget.spent(), "total": budget.total}
''',
    "joins": HEAD % "" + '''from typing import TypedDict


class Shape(TypedDict):
    n: int
    tags: list[str]


items = await parallel([agent("p1").ask("one"), agent("p2").ask("fail now"), agent("p3").ask("typed", returns=Shape)])
try:
    strict = await gather(agent("g1").ask("two"), agent("g2").ask("fail strictly"))
except AskFailed as error:
    strict = str(error)


async def stage(previous, item, index):
    return await agent(f"s{index}").ask(f"{item} then")


piped = await pipeline(["fail", "ok", "fine"], stage)
report({"items": items})
return {"items": items, "strict": strict, "piped": piped}
''',
    # the actor tools a run was approved with (--actor-tools read) and an actor's own narrowing
    # (tools=[...]) reach the worker: the write is refused there as here
    "tools": HEAD % "" + 'return await agent("broad").ask("write broadly")\n',
    "narrowed": HEAD % "" + 'return await agent("narrow", tools=["read", "grep"]).ask("write narrowly")\n',
    "fatal": (HEAD % ', "args": {"n": {"type": "integer", "default": 5000}}') + '''phase("Fan")
w = agent("w")
xs = await parallel(w.ask(f"x {i}") for i in range(args["n"]))
return len(xs)
''',
}


@pytest.fixture(scope="module")
def cluster(dev_server, tmp_path_factory):
    root = tmp_path_factory.mktemp("semantics")
    fixture = root / "fixture.json"
    fixture.write_text(json.dumps(FIXTURE))
    workspace = root / "remote"
    workspace.mkdir()
    worker = start_worker(dev_server.address, "semantics", workspace, fixture, dict(os.environ))
    yield dev_server.address, workspace, fixture, root, worker
    stop_worker(worker)


def outcome(result: dict) -> dict:
    return {k: result[k] for k in ("status", "value", "error", "stop_reason", "usage", "reports")}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_case_ends_as_it_does_locally(case, cluster, tmp_path):
    address, workspace, fixture, _root, _worker = cluster
    script = tmp_path / f"{case}.dwf.py"
    script.write_text(CASES[case])
    extra = {"budget": ("--budget", "20"), "tools": ("--actor-tools", "read")}.get(case, ())
    local_ws = tmp_path / "local"
    local_ws.mkdir()
    local = subprocess.run([str(DWFC), "run", str(script), "--yes", "--agent", f"scripted:{fixture}", "--progress",
                            "json", "--max-concurrency", "8", "--workspace", str(local_ws), *extra],
                           capture_output=True, text=True, timeout=120)
    remote = run_on_temporal(address, "semantics", script, workspace, dict(os.environ), extra=extra)
    out, err = remote.communicate(timeout=120)
    here, there = json.loads(local.stdout), json.loads(out)
    assert here["status"] != "rejected", here["diagnostics"]
    assert outcome(there) == outcome(here), err
    assert remote.returncode == local.returncode
    if case == "caps":
        assert here["status"] == "errored" and "LimitExceeded" in here["error"]
    if case == "budget":
        assert here["value"]["done"] < 10


def wait_until(condition, what: str, limit_s: float = 50) -> None:
    deadline = time.monotonic() + limit_s
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def _stream(address: str, workspace, script):
    return run_on_temporal(address, "semantics", script, workspace, dict(os.environ),
                           extra=("--progress", "stream-json"))


def _events_until(process, wanted: str) -> dict:
    for line in process.stdout:
        item = json.loads(line)
        if "event" in item and item["event"]["type"] == wanted:
            return item["event"]
    raise AssertionError(f"the run ended before a {wanted} event: {process.stderr.read()}")


def _result(process) -> dict:
    out, err = process.communicate(timeout=120)
    lines = [json.loads(line) for line in out.splitlines() if line.strip()]
    results = [item for item in lines if "event" not in item]
    assert results, err
    return results[-1]


def test_an_escalation_is_answered_with_dwfc_answer(cluster, tmp_path):
    address, workspace, _fixture, _root, _worker = cluster
    script = tmp_path / "ask.dwf.py"
    script.write_text(HEAD % "" + 'return await agent("asker").ask("question: pick a colour")\n')
    run = _stream(address, workspace, script)
    raised = _events_until(run, "escalation-raised")
    answered = subprocess.run([str(DWFC), "answer", raised["id"], "teal", "--temporal", address,
                               "--workspace", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert answered.returncode == 0, answered.stderr
    assert "from asker" in answered.stderr
    result = _result(run)
    assert result["status"] == "completed" and result["value"] == "teal"
    again = subprocess.run([str(DWFC), "answer", raised["id"], "red", "--temporal", address, "--workspace",
                            str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert again.returncode == 2 and "not open" in again.stderr


def test_dwfc_cancel_stops_the_run_and_the_ask_in_flight(cluster, tmp_path):
    from temporalio.api.enums.v1 import EventType
    from temporalio.client import Client

    address, workspace, _fixture, _root, _worker = cluster
    script = tmp_path / "slow.dwf.py"
    script.write_text(HEAD % "" + 'return await agent("sleeper").ask("slow work")\n')
    run = _stream(address, workspace, script)
    started = _events_until(run, "node-started")
    cancelled = subprocess.run([str(DWFC), "cancel", started["run_id"], "--temporal", address, "--workspace",
                                str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert cancelled.returncode == 0, cancelled.stderr
    result = _result(run)
    assert result["status"] == "stopped" and result["stop_reason"] == "user"

    async def history_types():
        client = await Client.connect(address)
        history = await client.get_workflow_handle(started["run_id"]).fetch_history()
        return [event.event_type for event in history.events]

    types = asyncio.run(history_types())
    assert EventType.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED in types
    worker = cluster[4]
    wait_until(lambda: f"ask ask#1 of run {started['run_id']} cancelled" in worker.log.read_text(),
               "the worker to cancel the agent call")  # the ask's sleep is 60 s: only a cancel ends it sooner

    listed = subprocess.run([str(DWFC), "runs", "--json", "--temporal", address, "--workspace", str(tmp_path)],
                            capture_output=True, text=True, timeout=60)
    assert started["run_id"] in {row["id"] for row in json.loads(listed.stdout)}
    shown = subprocess.run([str(DWFC), "show", started["run_id"], "--json", "--temporal", address, "--workspace",
                            str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["status"] == "stopped"


def test_a_run_refused_at_start_fails_its_workflow_once_with_the_local_problems(cluster, tmp_path):
    """A StartError inside the workflow (here: ceilings no host would pass, as a client of another
    version could send) ends the workflow as failed, not retried for ever, and the client gets the
    problems a local start lists, which `dwfc run` prints as it does for a local run."""
    from temporalio.api.enums.v1 import EventType
    from temporalio.client import WorkflowExecutionStatus

    from dwf.runtime.engine import Engine, StartError, StartRequest
    from dwf.runtime.engine.caps import Ceilings
    from dwf.runtime.engine.prepare import prepare
    from dwf.runtime.ports.scripted import ScriptedAgentPort, parse_fixture
    from dwf.runtime.temporal import client as cluster_client, contract, worker

    address = cluster[0]
    prepared = prepare(HEAD % "" + 'return await agent("a").ask("hello")\n', "refused.dwf.py")
    ceilings = Ceilings(max_agents=0, max_concurrency=4)

    async def locally() -> list[str]:
        async with Engine() as engine:
            try:
                engine.start(StartRequest(agent_port=ScriptedAgentPort(parse_fixture(FIXTURE)), prepared=prepared,
                                          ceilings=ceilings))
            except StartError as error:
                return error.problems
        raise AssertionError("the local start was not refused")

    async def on_temporal():
        client = await worker.connect(address)
        data = contract.run_input(prepared, "dwfrun-" + "ab" * 16, max_concurrency=None, budget=None,
                                  ceilings=ceilings)
        handle = await cluster_client.submit(client, data, task_queue="semantics")
        problems = await cluster_client.follow(handle, [])
        description = await handle.describe()
        history = await handle.fetch_history()
        shown = await cluster_client.show_run(client, handle.id)
        return problems, description.status, [event.event_type for event in history.events], shown

    expected = asyncio.run(locally())
    problems, status, types, shown = asyncio.run(on_temporal())
    assert expected and problems == expected
    assert status == WorkflowExecutionStatus.FAILED
    assert EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED not in types  # failed once, never retried
    assert shown["status"] == "errored" and shown["where"] == "temporal"
