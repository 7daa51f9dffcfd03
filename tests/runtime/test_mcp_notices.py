"""`dwfc mcp` pushes run notices (#13, `tools/notices.py`) to the real `mcp` client over stdio: in the
handshake era as log entries, Claude Code channel events and resource-updated notifications; in the
2026-07-28 era through `subscriptions/listen` and the `dwf://runs` resources. Each of the three kinds
— a question raised, a stall, a finished run — arrives without the client calling a tool; runs that
`dwfc run` starts in another process are reported the same way."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client, ClientSession, StdioServerParameters
from mcp.client.extension import NotificationBinding
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel

from dwf.runtime.host.watch import GUIDANCE
from dwf.runtime.tools.notices import CHANNEL_METHOD, LOGGER_NAME, RUNS_URI, run_uri

DWFC = Path(sys.executable).parent / "dwfc"

SCRIPT = '''meta = {"name": "pair", "description": "Two asks."}
a = await agent("first").ask("one")
b = await agent("second").ask("two")
return [a, b]
'''


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def workspace(tmp_path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    # `first` asks a question; `second` takes 1.5 s, which is a stall with --stall-after 0.5.
    (root / "fixture.json").write_text(json.dumps({"rules": [
        {"actor": "first", "escalate": "Which one?", "then": {"result": "A"}},
        {"actor": "second", "result": "B", "delay_s": 1.5}]}))
    (root / "quick.json").write_text(json.dumps({"rules": [{"actor": "*", "result": "Q"}]}))
    (root / "slow.json").write_text(json.dumps({"rules": [{"actor": "*", "result": "S", "delay_s": 60}]}))
    (root / "pair.dwf.py").write_text(SCRIPT)
    return root


def env_of(workspace: Path) -> dict:
    return {**os.environ, "DWF_HOME": str(workspace.parent / "home")}


def server(workspace: Path, *options: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, cwd=str(workspace), env={"DWF_HOME": str(workspace.parent / "home")},
        args=["-m", "dwf.runtime.cli", "mcp", "--workspace", str(workspace), "--approve", "auto",
              "--agent", f"scripted:{workspace / 'fixture.json'}", *options])


def dwfc(workspace: Path, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(DWFC), *arguments, "--workspace", str(workspace)], env=env_of(workspace),
                          capture_output=True, text=True, timeout=60)


class ChannelEvent(BaseModel):
    content: str
    meta: dict[str, str]


@pytest.mark.anyio
@pytest.mark.filterwarnings("ignore:resources/subscribe is removed")  # still the handshake era's way
async def test_a_handshake_client_is_told_of_a_question_a_stall_and_the_end_without_polling(workspace):
    logs: list[types.LoggingMessageNotificationParams] = []
    updated: list[str] = []
    channel: list[ChannelEvent] = []
    arrived = anyio.Event()

    async def on_log(params):
        logs.append(params)
        if params.data.get("kind") == "escalation-raised":  # answered from a terminal, not through a tool
            answered = await anyio.to_thread.run_sync(lambda: dwfc(workspace, "answer", params.data["question_id"],
                                                                   "the red one"))
            assert answered.returncode == 0, answered.stderr
        if params.data.get("kind") == "run-finished":
            arrived.set()

    async def on_message(message):
        if isinstance(message, types.ResourceUpdatedNotification):
            updated.append(message.params.uri)

    async def on_channel(event: ChannelEvent):
        channel.append(event)

    with open(workspace.parent / "server.err", "a") as errors:
        async with stdio_client(server(workspace, "--stall-after", "0.5"), errlog=errors) as (read, write):
            async with ClientSession(read, write, logging_callback=on_log, message_handler=on_message,
                                     notification_bindings=[NotificationBinding(
                                         method=CHANNEL_METHOD, params_type=ChannelEvent, handler=on_channel)]) as client:
                initialized = await client.initialize()
                await client.subscribe_resource(RUNS_URI)
                started = await client.call_tool("CreateWorkflow", {"script": SCRIPT})  # the only tool call
                run_id = started.structured_content["run_id"]
                await client.subscribe_resource(run_uri(run_id))
                with anyio.fail_after(30):
                    await arrived.wait()
                read_back = await client.read_resource(run_uri(run_id))
                with pytest.raises(MCPError, match="unknown resource 'dwf://runs/nope'"):
                    await client.subscribe_resource("dwf://runs/nope")
    assert initialized.capabilities.experimental == {"claude/channel": {}}
    assert initialized.capabilities.resources.subscribe is True
    kinds = [entry.data["kind"] for entry in logs]
    assert kinds == ["escalation-raised", "run-stalled", "run-finished"]
    raised, stalled, finished = (entry.data for entry in logs)
    assert {entry.logger for entry in logs} == {LOGGER_NAME}
    assert [entry.level for entry in logs] == ["warning", "warning", "notice"]
    assert (raised["run_id"], raised["actor"], raised["question"]) == (run_id, "first", "Which one?")
    assert raised["question_id"].startswith("dwfq-")
    assert stalled["asks_in_flight"] == 1 and stalled["idle_s"] >= 0.5
    assert (finished["status"], finished["result"], finished["guidance"]) == ("completed", ["A", "B"],
                                                                            GUIDANCE["completed"])
    assert [event.meta for event in channel] == [{"run_id": run_id, "kind": kind} for kind in kinds]
    assert channel[0].content.startswith(f"DWF run {run_id} `pair`: actor `first` asks")
    assert channel[2].content.endswith(GUIDANCE["completed"])
    assert updated.count(RUNS_URI) == 3 and run_uri(run_id) in updated  # the run's URI once subscribed
    shown = json.loads(read_back.contents[0].text)
    assert shown["status"] == "completed" and [n["kind"] for n in shown["notices"]] == kinds


@pytest.mark.anyio
async def test_a_2026_client_listens_and_learns_of_runs_started_in_a_terminal(workspace):
    async with Client(server(workspace)) as client:
        assert client.protocol_version == "2026-07-28"
        async with client.listen(resource_subscriptions=[RUNS_URI]) as subscription:
            done = await anyio.to_thread.run_sync(lambda: dwfc(
                workspace, "run", str(workspace / "pair.dwf.py"), "--agent", f"scripted:{workspace / 'quick.json'}",
                "--yes"))
            assert done.returncode == 0, done.stderr
            with anyio.fail_after(20):
                async for event in subscription:
                    assert event.uri == RUNS_URI
                    listed = json.loads((await client.read_resource(RUNS_URI)).contents[0].text)
                    if listed["notices"]:
                        break
            [notice] = listed["notices"]
            assert (notice["seq"], notice["kind"], notice["status"], notice["result"]) == (1, "run-finished",
                                                                                        "completed", ["Q", "Q"])
            # A run a person stops from a terminal is reported with the advice not to resume it.
            slow = subprocess.Popen([str(DWFC), "run", str(workspace / "pair.dwf.py"), "--agent",
                                     f"scripted:{workspace / 'slow.json'}", "--yes", "--workspace", str(workspace)],
                                    env=env_of(workspace), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
            try:
                deadline = time.monotonic() + 20
                while True:
                    runs = json.loads(dwfc(workspace, "runs", "--json").stdout)
                    running = [run["id"] for run in runs if run["status"] == "running"]
                    if running:
                        break
                    assert time.monotonic() < deadline, "the slow run never started"
                    await anyio.sleep(0.1)
                cancelled = await anyio.to_thread.run_sync(lambda: dwfc(workspace, "cancel", running[0]))
                assert cancelled.returncode == 0, cancelled.stderr
                with anyio.fail_after(20):
                    async for event in subscription:
                        listed = json.loads((await client.read_resource(RUNS_URI)).contents[0].text)
                        if len(listed["notices"]) == 2:
                            break
            finally:
                slow.wait(timeout=30)
        run = json.loads((await client.read_resource(run_uri(running[0]))).contents[0].text)
    stopped = listed["notices"][1]
    assert (stopped["run_id"], stopped["outcome"]) == (running[0], "stopped(user)")
    assert stopped["guidance"] == GUIDANCE["stopped(user)"] and "do not resume" in stopped["guidance"]
    assert run["status"] == "stopped" and run["notices"] == [stopped]


def test_the_stall_period_is_validated(workspace):
    refused = subprocess.run([str(DWFC), "mcp", "--workspace", str(workspace), "--stall-after", "0"],
                             env=env_of(workspace), capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert refused.returncode == 2
    assert "--stall-after: must be a positive number of seconds, got '0'" in refused.stderr
