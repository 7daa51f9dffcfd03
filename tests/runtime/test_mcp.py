"""`dwfc mcp` (TOOLS §3) driven by the real `mcp` client over stdio: a subprocess
`python -m dwf.runtime.cli mcp --workspace TMP --agent scripted:FIXTURE`, tool listing,
approval by elicitation (accepted, declined, impossible, `--approve auto`, and the 2026-07-28
multi-round-trip form), background runs followed with GetWorkflowRun, compile errors, and the
language guide served as a resource and as a prompt."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client, ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from dwf.grammar import language_guide
from dwf.runtime.tools.mcp import GUIDE_URI, NO_ELICITATION, WRITE_PROMPT
from dwf.runtime.tools.definitions import DEFINITIONS

SCRIPT = '''meta = {"name": "pair", "description": "Two asks."}
phase("Work")
a = await agent("first").ask("one")
b = await agent("second").ask("two")
return [a, b]
'''
BROKEN = SCRIPT.replace('ask("two")', "ask(missing)")


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def workspace(tmp_path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "fixture.json").write_text(json.dumps({"rules": [{"actor": "first", "result": "A"},
                                                             {"actor": "second", "result": "B"}]}))
    return root


def server(workspace: Path, *options: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, cwd=str(workspace), env={"DWF_HOME": str(workspace.parent / "home")},
        args=["-m", "dwf.runtime.cli", "mcp", "--workspace", str(workspace),
              "--agent", f"scripted:{workspace / 'fixture.json'}", *options])


@asynccontextmanager
async def session(workspace: Path, *options: str, elicitation=None):
    with open(workspace.parent / "server.err", "a") as errors:  # the server's stderr, kept out of the test output
        async with stdio_client(server(workspace, *options), errlog=errors) as (read, write):
            async with ClientSession(read, write, elicitation_callback=elicitation) as client:
                await client.initialize()
                yield client


class Elicitations:
    """An elicitation callback that records the messages and answers with `action`/`approve`."""

    def __init__(self, action: str = "accept", approve: bool = True):
        self.action, self.approve = action, approve
        self.messages: list[str] = []
        self.schemas: list[dict] = []

    async def __call__(self, context, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.messages.append(params.message)
        self.schemas.append(params.requested_schema)
        content = {"approve": self.approve} if self.action == "accept" else None
        return types.ElicitResult(action=self.action, content=content)


async def completed(client, run_id: str, timeout: float = 15) -> dict:
    with anyio.fail_after(timeout):
        while True:
            result = await client.call_tool("GetWorkflowRun", {"run": run_id})
            assert not result.is_error, result.content
            if result.structured_content["status"] != "running":
                return result.structured_content
            await anyio.sleep(0.05)


@pytest.mark.anyio
async def test_tools_are_listed_with_schemas_and_an_approved_run_completes(workspace):
    elicitations = Elicitations()
    async with session(workspace, elicitation=elicitations) as client:
        listed = await client.list_tools()
        started = await client.call_tool("CreateWorkflow", {"script": SCRIPT})
        snapshot = await completed(client, started.structured_content["run_id"])
    assert [(t.name, t.input_schema, t.description) for t in listed.tools] == \
        [(d.name, d.input_schema, d.description) for d in DEFINITIONS]
    assert not started.is_error and started.structured_content["status"] == "backgrounded"
    assert json.loads(started.content[0].text)["run_id"] == started.structured_content["run_id"]
    assert snapshot["status"] == "completed" and snapshot["result"] == ["A", "B"] and snapshot["own"] is True
    [message] = elicitations.messages
    assert message.startswith("Run the workflow `pair`; it runs no commands\n\nPlan: pair")
    assert elicitations.schemas[0]["required"] == ["approve"]


@pytest.mark.anyio
async def test_a_declined_approval_runs_nothing(workspace):
    elicitations = Elicitations(action="decline")
    async with session(workspace, elicitation=elicitations) as client:
        declined = await client.call_tool("CreateWorkflow", {"script": SCRIPT})
        elicitations.action, elicitations.approve = "accept", False  # "no" in the form: refused as well
        answered_no = await client.call_tool("CreateWorkflow", {"script": SCRIPT})
        runs = await client.call_tool("ListWorkflowRuns", {})
    for result in (declined, answered_no):
        assert result.is_error and result.structured_content["status"] == "not_approved"
        assert "did not approve" in result.content[0].text and "nothing ran" in result.content[0].text
    assert len(elicitations.messages) == 2
    assert runs.structured_content["runs"] == []


@pytest.mark.anyio
async def test_a_client_without_elicitation_is_refused_unless_the_host_approves(workspace):
    async with session(workspace) as client:  # --approve elicit is the default
        refused = await client.call_tool("CreateWorkflow", {"script": SCRIPT})
        runs = await client.call_tool("ListWorkflowRuns", {})
    assert refused.is_error and refused.content[0].text == NO_ELICITATION + ". Nothing ran."
    assert runs.structured_content["total"] == 0
    async with session(workspace, "--approve", "auto") as client:
        started = await client.call_tool("CreateWorkflow", {"script": SCRIPT})
        snapshot = await completed(client, started.structured_content["run_id"])
    assert snapshot["result"] == ["A", "B"]


@pytest.mark.anyio
async def test_a_compile_error_returns_the_draft_lines(workspace):
    elicitations = Elicitations()
    async with session(workspace, elicitation=elicitations) as client:
        rejected = await client.call_tool("CreateWorkflow", {"script": BROKEN})
    draft = workspace / ".dwf" / "drafts" / "pair.dwf.py"
    lines = rejected.content[0].text.splitlines()
    assert rejected.is_error and draft.read_text() == BROKEN
    assert lines[0].startswith(f"{draft}:L4:C31 DWF206 Undefined name `missing`")
    assert lines[-1].startswith("not executed: edit the draft and resubmit with `path`")
    assert rejected.structured_content["draft"] == str(draft) and elicitations.messages == []


@pytest.mark.anyio
async def test_the_2026_protocol_asks_for_approval_by_input_required_results(workspace):
    elicitations = Elicitations()
    async with Client(server(workspace), elicitation_callback=elicitations) as client:
        assert client.protocol_version == "2026-07-28"  # `auto` negotiated the per-request era
        started = await client.call_tool("CreateWorkflow", {"script": SCRIPT})
        snapshot = await completed(client, started.structured_content["run_id"])
        elicitations.action = "decline"
        declined = await client.call_tool("CreateWorkflow", {"script": SCRIPT})
    assert snapshot["result"] == ["A", "B"]
    assert len(elicitations.messages) == 2 and "Plan: pair" in elicitations.messages[0]
    assert declined.is_error and declined.structured_content["status"] == "not_approved"


@pytest.mark.anyio
async def test_the_language_guide_is_a_resource_and_a_prompt(workspace):
    guide = language_guide()
    async with session(workspace) as client:
        resources = await client.list_resources()
        read = await client.read_resource(GUIDE_URI)
        prompts = await client.list_prompts()
        with_task = await client.get_prompt(WRITE_PROMPT, {"task": "Review every changed file."})
        without_task = await client.get_prompt(WRITE_PROMPT)
        with pytest.raises(MCPError, match="unknown resource"):
            await client.read_resource("dwf://guide/other")
        with pytest.raises(MCPError, match="unknown prompt"):
            await client.get_prompt("write-poem")
    resource, runs = resources.resources  # the guide, and the runs (tests/runtime/test_mcp_notices.py)
    assert (str(resource.uri), resource.mime_type) == (GUIDE_URI, "text/markdown")
    assert str(runs.uri) == "dwf://runs"
    [contents] = read.contents
    assert contents.text == guide and contents.mime_type == "text/markdown"
    [prompt] = prompts.prompts
    assert prompt.name == WRITE_PROMPT and [(a.name, a.required) for a in prompt.arguments] == [("task", False)]
    [message] = with_task.messages
    text = message.content.text
    assert message.role == "user" and guide in text and "CreateWorkflow" in text
    assert text.rstrip().endswith("Write a DWF workflow for this task:\n\nReview every changed file.")
    assert guide in without_task.messages[0].content.text
    assert "describe the task next" in without_task.messages[0].content.text


@pytest.mark.anyio
async def test_the_2026_protocol_serves_the_guide_too(workspace):
    async with Client(server(workspace)) as client:
        assert client.protocol_version == "2026-07-28"
        read = await client.read_resource(GUIDE_URI)
        prompt = await client.get_prompt(WRITE_PROMPT, {"task": "Draft release notes."})
    assert read.contents[0].text == language_guide()
    assert prompt.messages[0].content.text.endswith("Draft release notes.")


TRIAGE = '''meta = {"name": "triage", "description": "Triage a team's backlog.", "when_to_use": "Weekly.",
        "args": {"team": {"type": "string", "description": "Team name.", "required": True},
                 "limit": {"type": "integer", "default": 30}, "dry": {"type": "boolean"}}}
phase("Triage")
return await agent("first").ask(f"Triage {args['team']}, at most {args['limit']}")
'''


def saved_workflows(workspace: Path) -> None:
    """Project `triage`, `write-workflow` (the guide prompt's name) and `broken`; global `pair` and a
    global `triage` that the project one shadows."""
    project, home = workspace / ".dwf" / "workflows", workspace.parent / "home" / "workflows"
    for folder in (project, home):
        folder.mkdir(parents=True)
    (project / "triage.dwf.py").write_text(TRIAGE)
    (project / "write-workflow.dwf.py").write_text(SCRIPT.replace('"pair"', '"write-workflow"'))
    (project / "broken.dwf.py").write_text(BROKEN)
    (home / "pair.dwf.py").write_text(SCRIPT)
    (home / "triage.dwf.py").write_text(TRIAGE.replace("Triage a team's backlog.", "The global one."))


@pytest.mark.anyio
async def test_saved_workflows_are_prompts_whose_text_runs_them(workspace):
    saved_workflows(workspace)
    async with session(workspace, "--approve", "auto") as client:
        listed = await client.list_prompts()
        full = await client.get_prompt("triage", {"team": "api", "limit": "5", "dry": "TRUE"})
        defaults = await client.get_prompt("triage", {"team": "api", "limit": ""})  # an empty field: not given
        plain = await client.get_prompt("pair")
        call = json.loads(full.messages[0].content.text.split("\n\n")[2])
        started = await client.call_tool("CreateWorkflow", call)
        snapshot = await completed(client, started.structured_content["run_id"])
    prompts = {prompt.name: prompt for prompt in listed.prompts}
    assert list(prompts) == [WRITE_PROMPT, "triage", "pair"]  # not the broken, shadowed or colliding ones
    triage = prompts["triage"]
    assert triage.description == "Triage a team's backlog. When to use: Weekly. (project workflow)"
    assert [(a.name, a.required, a.description) for a in triage.arguments] == [
        ("team", True, "Team name. (string)"), ("limit", False, "(integer, default 30)"), ("dry", False, "(boolean)")]
    assert prompts["pair"].arguments == [] and prompts["pair"].description == "Two asks. (global workflow)"
    [message] = full.messages
    assert message.role == "user" and message.content.text.startswith("Run the saved DWF workflow `triage`")
    assert call == {"saved": "triage", "args": {"team": "api", "limit": 5, "dry": True}}
    assert '{"saved": "triage", "args": {"team": "api"}}' in defaults.messages[0].content.text
    assert '{"saved": "pair"}' in plain.messages[0].content.text
    assert snapshot["status"] == "completed" and snapshot["result"] == "A"


@pytest.mark.anyio
async def test_a_bad_prompt_argument_or_name_is_a_clear_error(workspace):
    saved_workflows(workspace)
    async with session(workspace) as client:
        for name, arguments, message in [
                ("triage", {}, "cannot run with these arguments: \\$.arguments.team: missing required argument `team` "
                                "\\(string\\)"),
                ("triage", {"team": "api", "limit": "many"},
                 "\\$.arguments.limit: argument `limit` must be of type integer, got 'many'"),
                ("triage", {"team": "api", "dry": "maybe"}, "\\$.arguments.dry: argument `dry` must be of type boolean"),
                ("triage", {"team": "api", "lmit": "3"},
                 "\\$.arguments.lmit: unknown argument `lmit` \\(did you mean `limit`\\?\\)"),
                ("broken", {}, "the saved workflow `broken` does not compile"),
                ("triag", {}, "unknown prompt 'triag': there is no saved workflow named `triag` \\(did you mean"),
                ("../x", {}, "unknown prompt '../x'")]:
            with pytest.raises(MCPError, match=message):
                await client.get_prompt(name, arguments)


@pytest.mark.anyio
async def test_a_workflow_saved_while_the_server_runs_becomes_a_prompt(workspace):
    changed = anyio.Event()

    async def on_message(message):
        if isinstance(message, types.PromptListChangedNotification):
            changed.set()

    with open(workspace.parent / "server.err", "a") as errors:
        async with stdio_client(server(workspace, "--approve", "auto"), errlog=errors) as (read, write):
            async with ClientSession(read, write, message_handler=on_message) as client:
                initialized = await client.initialize()
                before = await client.list_prompts()
                saved = await client.call_tool("SaveWorkflow", {"script": SCRIPT})
                with anyio.fail_after(10):
                    await changed.wait()  # told, so a host refreshes its slash commands
                after = await client.list_prompts()
    assert initialized.capabilities.prompts.list_changed is True
    assert [prompt.name for prompt in before.prompts] == [WRITE_PROMPT]
    assert not saved.is_error
    assert [prompt.name for prompt in after.prompts] == [WRITE_PROMPT, "pair"]


def test_a_signal_stops_the_server_and_interrupts_its_live_runs(workspace):
    (workspace / "slow.json").write_text(json.dumps({"rules": [{"actor": "first", "result": "A"},
                                                               {"actor": "second", "result": "B", "delay_s": 60}]}))
    command = [sys.executable, "-m", "dwf.runtime.cli", "mcp", "--workspace", str(workspace),
               "--agent", f"scripted:{workspace / 'slow.json'}", "--approve", "auto"]
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True) as process:
        def call(request_id: int, method: str, params: dict) -> dict:
            process.stdin.write(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}) + "\n")
            process.stdin.flush()
            return json.loads(process.stdout.readline())["result"]

        call(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                               "clientInfo": {"name": "test", "version": "1"}})
        process.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        started = call(2, "tools/call", {"name": "CreateWorkflow", "arguments": {"script": SCRIPT}})
        run_id = started["structuredContent"]["run_id"]
        deadline = time.monotonic() + 15
        while call(3, "tools/call", {"name": "GetWorkflowRun", "arguments": {"run": run_id}})["structuredContent"]["asks"] < 2:
            assert time.monotonic() < deadline, "the second (60 s) ask never started"
            time.sleep(0.05)
        process.send_signal(signal.SIGTERM)  # stdin stays open: the server must not wait for it
        assert process.wait(timeout=15) == 0
        assert "signal 15" in process.stderr.read()
    shown = subprocess.run([str(Path(sys.executable).parent / "dwfc"), "show", run_id, "--json", "--workspace",
                            str(workspace)], capture_output=True, text=True, timeout=30)
    assert (json.loads(shown.stdout)["status"], json.loads(shown.stdout)["stop_reason"]) == ("stopped", "interrupted")


@pytest.mark.anyio
async def test_cancel_workflow_run_stops_a_live_run_as_stopped_by_the_model(workspace):
    (workspace / "fixture.json").write_text(json.dumps({"rules": [{"actor": "first", "result": "A"},
                                                                  {"actor": "second", "result": "B", "delay_s": 60}]}))
    async with session(workspace, "--approve", "auto") as client:
        run_id = (await client.call_tool("CreateWorkflow", {"script": SCRIPT})).structured_content["run_id"]
        with anyio.fail_after(15):
            while (await client.call_tool("GetWorkflowRun", {"run": run_id})).structured_content["asks"] < 1:
                await anyio.sleep(0.05)
        cancelled = await client.call_tool("CancelWorkflowRun", {"run": run_id})
        invalid = await client.call_tool("CancelWorkflowRun", {"run": run_id, "wait_s": "soon"})
        snapshot = (await client.call_tool("GetWorkflowRun", {"run": run_id})).structured_content
    assert not cancelled.is_error and cancelled.structured_content["stop_reason"] == "model"
    assert (snapshot["status"], snapshot["stop_reason"]) == ("stopped", "model")
    assert invalid.is_error and "$.wait_s: " in invalid.content[0].text


# ---------------------------------------------------------------- issue #19: no call stalls the server


def _raw_server(workspace: Path) -> subprocess.Popen:
    command = [sys.executable, "-m", "dwf.runtime.cli", "mcp", "--workspace", str(workspace),
               "--agent", f"scripted:{workspace / 'fixture.json'}", "--approve", "auto"]
    return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)


def _send(process: subprocess.Popen, message: dict | bytes) -> None:
    process.stdin.write(message if isinstance(message, bytes) else json.dumps(message).encode() + b"\n")
    process.stdin.flush()


def test_an_oversize_line_is_answered_with_a_json_rpc_error_and_the_server_goes_on(workspace):
    """A 40 MB line is dropped as it arrives (never collected or parsed) and answered with an
    Invalid Request error to the id its first bytes name; the next request is answered as usual."""
    with _raw_server(workspace) as process:
        try:
            _send(process, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}})
            assert json.loads(process.stdout.readline())["id"] == 1
            _send(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
            head = b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "EvalWorkflowSnippet", ' \
                   b'"arguments": {"snippet": "'
            line = head + b"x" * (40 * 1024 * 1024) + b'"}}}'
            _send(process, line + b"\n")
            _send(process, {"jsonrpc": "2.0", "id": 8, "method": "tools/list", "params": {}})
            refused = json.loads(process.stdout.readline())
            listed = json.loads(process.stdout.readline())
        finally:
            process.kill()
    assert refused["id"] == 7 and refused["error"]["code"] == types.INVALID_REQUEST
    assert "over this server's limit of 8,388,608 bytes" in refused["error"]["message"]
    assert f"the message is {len(line):,} bytes" in refused["error"]["message"]  # every byte counted, none kept
    assert listed["id"] == 8 and len(listed["result"]["tools"]) == len(DEFINITIONS)


@pytest.mark.anyio
async def test_an_oversize_call_from_the_real_client_fails_and_the_session_goes_on(workspace):
    async with session(workspace, "--approve", "auto") as client:
        with pytest.raises(MCPError) as refused:
            await client.call_tool("EvalWorkflowSnippet", {"snippet": "return 1\n" + "#" * (9 * 1024 * 1024)})
        done = await client.call_tool("EvalWorkflowSnippet", {"snippet": "return 6 * 7\n"})
    assert "over this server's limit" in str(refused.value)
    assert not done.is_error and done.structured_content["value"] == 42


@pytest.mark.anyio
async def test_snippet_timeout_holds_for_a_loop_that_never_awaits(workspace):
    """`timeout_s` stops a snippet busy in synchronous code (issue #19: it was ignored, and the
    server answered nothing until the step limit)."""
    async with session(workspace, "--approve", "auto") as client:
        stopped = await client.call_tool("EvalWorkflowSnippet", {"snippet": "n = 0\nwhile True:\n    n += 1\n",
                                                                 "timeout_s": 0.1})
        listed = await client.list_tools()
    assert stopped.is_error
    assert stopped.structured_content["error"] == \
        "the snippet errored: the snippet did not finish within 0.1 seconds and was stopped"
    assert len(listed.tools) == len(DEFINITIONS)


async def _answered_in_order(client, busy, quick_calls, *, head_start_s: float) -> list[str]:
    """Start `busy` (a coroutine function of the client), then after `head_start_s` the quick
    calls; the names of the calls in the order their replies arrived."""
    order: list[str] = []

    async def note(name, call):
        await call()
        order.append(name)

    async with anyio.create_task_group() as group:
        group.start_soon(note, "busy", lambda: busy(client))
        await anyio.sleep(head_start_s)  # the busy call is being evaluated by now
        for name, call in quick_calls:
            await note(name, lambda: call(client))
    return order


@pytest.mark.anyio
async def test_a_busy_snippet_does_not_stall_the_other_calls(workspace):
    """Issue #19: a snippet evaluated on the server's event loop held it until its timeout (or
    its step limit), so the server answered nothing else; it runs in a worker thread now."""
    async with session(workspace, "--approve", "auto") as client:
        async def busy(client):
            stopped = await client.call_tool("EvalWorkflowSnippet", {"snippet": "n = 0\nwhile True:\n    n += 1\n",
                                                                     "timeout_s": 3})
            error = stopped.structured_content["error"]  # seconds either way
            assert error.endswith("within 3 seconds and was stopped") or "the step limit" in error, error

        order = await _answered_in_order(client, busy, [
            ("ping", lambda c: c.send_ping()), ("tools/list", lambda c: c.list_tools()),
            ("ListWorkflowRuns", lambda c: c.call_tool("ListWorkflowRuns", {})),
            ("snippet", lambda c: c.call_tool("EvalWorkflowSnippet", {"snippet": "return 6 * 7\n"}))],
            head_start_s=0.5)
    assert order == ["ping", "tools/list", "ListWorkflowRuns", "snippet", "busy"]


BIG_SCRIPT = 'meta = {"name": "big", "description": "Long."}\nphase("Work")\n' + \
    "".join(f"x{i % 50} = {i} + 1\n" for i in range(20_000)) + "return x1\n"  # 300 KB: seconds to compile


@pytest.mark.anyio
async def test_compiling_a_big_script_does_not_stall_the_other_calls(workspace):
    """CreateWorkflow compiles before it asks for approval; a big script compiles for seconds,
    in a worker thread, while a listing is answered."""
    async with session(workspace, "--approve", "auto") as client:
        async def busy(client):
            started = await client.call_tool("CreateWorkflow", {"script": BIG_SCRIPT})
            assert not started.is_error, started.content

        order = await _answered_in_order(client, busy, [
            ("ListWorkflowRuns", lambda c: c.call_tool("ListWorkflowRuns", {})),
            ("tools/list", lambda c: c.list_tools())], head_start_s=0.3)
    assert order == ["ListWorkflowRuns", "tools/list", "busy"]


SPIN = 'meta = {"name": "spin", "description": "Computes without an await."}\nphase("Work")\nlog("spinning")\n' \
    "n = 0\nwhile True:\n    n += 1\n"  # no await until its step limit: about 2 s of one synchronous stretch


@pytest.mark.anyio
async def test_a_run_computing_between_its_awaits_does_not_stall_the_server(workspace):
    """Issue #19: background runs ran on the server's event loop, so a script computing for
    seconds between two awaits held every answer until it ended; their engine has a loop (and a
    thread) of its own now. While the run spins, ping, ListWorkflowRuns and CancelWorkflowRun
    are answered, and the cancel stops it inside the loop, before its step limit would."""
    async with session(workspace, "--approve", "auto") as client:
        started = await client.call_tool("CreateWorkflow", {"script": SPIN})
        run_id = started.structured_content["run_id"]
        with anyio.fail_after(15):
            while True:  # the log line is written just before the loop starts
                seen = (await client.call_tool("GetWorkflowRun", {"run": run_id})).structured_content
                if seen["log"] or seen["status"] != "running":
                    break
                await anyio.sleep(0.02)
        await client.send_ping()
        listed = await client.call_tool("ListWorkflowRuns", {})
        cancelled = await client.call_tool("CancelWorkflowRun", {"run": run_id})
        settled = await completed(client, run_id)
    assert (seen["status"], seen["log"]) == ("running", ["spinning"]), seen.get("error")
    assert [run["status"] for run in listed.structured_content["runs"] if run["id"] == run_id] == ["running"]
    assert not cancelled.is_error, cancelled.content  # on the old code: "is not running (it is errored)"
    assert (cancelled.structured_content["status"], cancelled.structured_content["stop_reason"]) == ("stopped", "model")
    assert (settled["status"], settled["stop_reason"]) == ("stopped", "model"), settled


CRASHERS = {  # each killed `dwfc check` and the MCP server with a signal before the pre-checks (issue #19)
    "and-chain": "a = 1\nx = " + " and ".join(["a"] * 10_000) + "\nreturn x\n",
    "nested-parentheses": "x = " + "(" * 5_000 + "1" + ")" * 5_000 + "\nreturn x\n",
    "nested-lists": "x = " + "[" * 3_000 + "]" * 3_000 + "\nreturn x\n",
}


@pytest.mark.anyio
async def test_scripts_that_crashed_the_parser_get_a_diagnostic_and_the_server_goes_on(workspace):
    async with session(workspace, "--approve", "auto") as client:
        refused = {name: await client.call_tool("CreateWorkflow", {"script": 'meta = {"name": "c", "description": "d"}\n'
                                                                            + text})
                   for name, text in CRASHERS.items()}
        done = await client.call_tool("EvalWorkflowSnippet", {"snippet": "return 6 * 7\n"})
    for name, result in refused.items():
        assert result.is_error and result.structured_content["status"] == "rejected", (name, result.content)
        assert result.structured_content["errors"][0].split(" ")[1] in ("DWF001", "DWF003"), (name, result.content)
    assert done.structured_content["value"] == 42
