"""An approval binds content (issue #19, point 2): what a person approves is the sha256 of the
script and of each saved workflow it calls, the args, the commands and the actor tools. A file
edited between the prompt and the start refuses the run ("the script changed since it was
approved") over the tool layer, MCP's retry and `dwfc run`; a run a person stopped, or a journal
recorded in another workspace, needs a fresh approval to resume; `path=` stays in the workspace."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import anyio
import mcp_types as types
import pytest
from mcp import Client, StdioServerParameters

from dwf.runtime.host.approval import SCRIPT_CHANGED, approval_binding
from dwf.runtime.host.session import WorkspaceSession
from dwf.runtime.tools.definitions import ApprovalRequest, ApprovalUnavailable
from dwf.runtime.tools.layer import ToolLayer

DWFC = Path(sys.executable).parent / "dwfc"
SCRIPT = '''meta = {"name": "pair", "description": "Two asks."}
phase("Work")
a = await agent("first").ask("one")
b = await agent("second").ask("two")
return [a, b]
'''
WITH_SH = SCRIPT.replace("return [a, b]", 'done = await world.run("sh", ["-c", "touch pwned"])\nreturn [a, b]')
CALLER = '''meta = {"name": "caller", "description": "Calls a saved workflow."}
result = await workflow("helper")
return result
'''
HELPER = '''meta = {"name": "helper", "description": "Asks once."}
a = await agent("first").ask("one")
return a
'''


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def workspace(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("DWF_HOME", str(tmp_path / "home"))
    root = tmp_path / "ws"
    root.mkdir()
    (root / "fixture.json").write_text(json.dumps({"rules": [{"actor": "first", "result": "A"},
                                                             {"actor": "second", "result": "B"}]}))
    (root / "pair.dwf.py").write_text(SCRIPT)
    return root


def layer(root: Path, approver) -> ToolLayer:
    return ToolLayer(root, agent=f"scripted:{root / 'fixture.json'}", approver=approver)


def editing(path: Path, text: str, seen: list[ApprovalRequest]):
    """An approver that says yes, after the file was edited while the person looked."""
    async def approve(request: ApprovalRequest) -> bool:
        seen.append(request)
        path.write_text(text)
        return True
    return approve


async def runs(tools: ToolLayer) -> int:
    return (await tools.call("ListWorkflowRuns", {}))["total"]


# ---------------------------------------------------------------------------- the binding


def test_the_binding_covers_script_workflows_args_commands_and_actor_tools(workspace):
    session = WorkspaceSession(workspace)
    base = session.prepare(SCRIPT, "pair.dwf.py", {})
    bindings = {approval_binding(base), approval_binding(session.prepare(SCRIPT + "# edited\n", "pair.dwf.py", {})),
                approval_binding(session.prepare(WITH_SH, "pair.dwf.py", {})), approval_binding(base, "exec")}
    assert len(bindings) == 4
    assert approval_binding(base) == approval_binding(session.prepare(SCRIPT, "elsewhere.dwf.py", {}))


# ---------------------------------------------------------------------------- tool layer


@pytest.mark.anyio
async def test_a_path_edited_while_the_person_looks_refuses_the_run(workspace):
    seen: list[ApprovalRequest] = []
    async with layer(workspace, editing(workspace / "pair.dwf.py", WITH_SH, seen)) as tools:
        result = await tools.call("CreateWorkflow", {"path": "pair.dwf.py"})
        assert await runs(tools) == 0
    assert not result["ok"] and result["status"] == "not_approved"
    assert result["error"].startswith("The script changed since it was approved")
    assert "sh" not in seen[0].details["commands"] and seen[0].binding
    assert not (workspace / "pwned").exists()


@pytest.mark.anyio
async def test_a_called_workflow_edited_while_the_person_looks_refuses_the_run(workspace):
    saved = workspace / ".dwf" / "workflows"
    saved.mkdir(parents=True)
    (saved / "helper.dwf.py").write_text(HELPER)
    seen: list[ApprovalRequest] = []
    edited = HELPER.replace("return a", 'await world.run("sh", ["-c", "true"])\nreturn a')
    async with layer(workspace, editing(saved / "helper.dwf.py", edited, seen)) as tools:
        result = await tools.call("CreateWorkflow", {"script": CALLER})
        assert await runs(tools) == 0
    assert not result["ok"] and SCRIPT_CHANGED in result["error"].lower() and "helper.dwf.py" in result["error"]


@pytest.mark.anyio
async def test_an_unchanged_path_runs(workspace):
    async with layer(workspace, editing(workspace / "pair.dwf.py", SCRIPT, [])) as tools:
        result = await tools.call("CreateWorkflow", {"path": "pair.dwf.py"})
    assert result["ok"], result


@pytest.mark.anyio
@pytest.mark.parametrize("given", ["/etc/passwd", "~/.bashrc", "../outside.dwf.py", "link.dwf.py", "sub/../../outside.dwf.py"])
async def test_a_path_outside_the_workspace_is_refused_before_it_is_read(workspace, given):
    outside = workspace.parent / "outside.dwf.py"
    outside.write_text("secret_identifier_xyz = undefined_name_abc\n")
    (workspace / "link.dwf.py").symlink_to(outside)
    asked: list[ApprovalRequest] = []
    async with layer(workspace, editing(workspace / "unused", "", asked)) as tools:
        result = await tools.call("CreateWorkflow", {"path": given})
    assert not result["ok"] and result["error"].startswith("invalid input: $.path:")
    assert "outside the workspace" in result["error"] and "Nothing was read" in result["error"]
    text = json.dumps(result)
    assert "secret_identifier_xyz" not in text and "undefined_name_abc" not in text and "root:" not in text
    assert asked == []


def stop_by_a_person(workspace: Path, run_id: str) -> None:
    with sqlite3.connect(workspace / ".dwf" / "state.db") as conn:
        conn.execute("UPDATE dwf_run SET status = 'stopped', stop_reason = 'user' WHERE id = ?", (run_id,))


@pytest.mark.anyio
async def test_resuming_a_run_a_person_stopped_needs_an_approval(workspace):
    async def cannot_ask(request):
        raise ApprovalUnavailable("this client cannot show the plan for approval.")

    shown: list[ApprovalRequest] = []

    async def yes(request):
        shown.append(request)
        return True

    async with layer(workspace, yes) as tools:
        started = await tools.call("CreateWorkflow", {"path": "pair.dwf.py"})
        with anyio.fail_after(10):
            while (await tools.call("GetWorkflowRun", {"run": started["run_id"]}))["status"] == "running":
                await anyio.sleep(0.05)
        stop_by_a_person(workspace, started["run_id"])
        refused = await tools.call("ResumeWorkflowRun", {"run": started["run_id"]}, approver=cannot_ask)
        resumed = await tools.call("ResumeWorkflowRun", {"run": started["run_id"]})
    assert not refused["ok"] and refused["status"] == "not_approved" and "Nothing ran" in refused["error"]
    assert resumed["ok"], resumed
    assert shown[-1].tool == "ResumeWorkflowRun" and "was stopped by a person" in shown[-1].text


# ---------------------------------------------------------------------------- MCP retry (2026-07-28)


@pytest.mark.anyio
async def test_an_mcp_retry_after_the_file_changed_is_refused(workspace):
    script = workspace / "pair.dwf.py"
    messages: list[str] = []

    async def elicit(context, params: types.ElicitRequestParams) -> types.ElicitResult:
        messages.append(params.message)
        script.write_text(WITH_SH)  # edited between the prompt and the retry
        return types.ElicitResult(action="accept", content={"approve": True})

    parameters = StdioServerParameters(
        command=sys.executable, cwd=str(workspace), env={"DWF_HOME": str(workspace.parent / "home")},
        args=["-m", "dwf.runtime.cli", "mcp", "--workspace", str(workspace),
              "--agent", f"scripted:{workspace / 'fixture.json'}"])
    async with Client(parameters, elicitation_callback=elicit) as client:
        assert client.protocol_version == "2026-07-28"
        result = await client.call_tool("CreateWorkflow", {"path": "pair.dwf.py"})
        listed = await client.call_tool("ListWorkflowRuns", {})
    assert result.is_error and SCRIPT_CHANGED in result.structured_content["error"]
    assert listed.structured_content["total"] == 0 and len(messages) == 1
    assert "sh" not in messages[0].split("Commands (")[1].split("\n\n")[0]


# ---------------------------------------------------------------------------- dwfc resume: another workspace


def dwfc(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(DWFC), *argv], cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=60)


def test_a_journal_copied_into_another_workspace_needs_a_fresh_approval(workspace, tmp_path):
    process = subprocess.Popen([str(DWFC), "run", "pair.dwf.py", "--yes", "--agent", "scripted:fixture.json",
                                "--progress", "json"], cwd=workspace, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = process.communicate(timeout=60)
    run_id = json.loads(out)["run_id"]
    with sqlite3.connect(workspace / ".dwf" / "state.db") as conn:  # resumable, not stopped by a person
        conn.execute("UPDATE dwf_run SET status = 'stopped', stop_reason = 'interrupted' WHERE id = ?", (run_id,))
    other = tmp_path / "other"
    shutil.copytree(workspace, other)
    here = dwfc("resume", run_id, "--agent", "scripted:fixture.json", "--progress", "json", cwd=workspace)
    assert here.returncode == 0, here.stderr  # its own workspace: no prompt
    with sqlite3.connect(workspace / ".dwf" / "state.db") as conn:
        conn.execute("UPDATE dwf_run SET status = 'stopped', stop_reason = 'interrupted' WHERE id = ?", (run_id,))
    copied = dwfc("resume", run_id, "--agent", "scripted:fixture.json", "--progress", "json", cwd=other)
    assert copied.returncode == 2
    assert "was recorded in another workspace" in copied.stderr and "cannot ask for approval" in copied.stderr
    approved = dwfc("resume", run_id, "--agent", "scripted:fixture.json", "--progress", "json", "--yes", cwd=other)
    assert approved.returncode == 0, approved.stderr
