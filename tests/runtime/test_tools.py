"""The tool layer for host agents (TOOLS §3) through its Python API, over a real temporary
workspace (SQLite journal, control files, drafts) with the scripted agent port: definitions,
drafts of scripts that do not compile, approval (given, refused, absent, conditional), background
runs followed with GetWorkflowRun, resume, amend, escalations, saved workflows (also called
inline by `workflow()`) and snippets."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import anyio
import jsonschema
import pytest

from dwf.runtime.ports.anthropic import DEFAULT_MODEL
from dwf.runtime.host.drafts import draft_name
from dwf.runtime.tools.definitions import DEFINITIONS, ApprovalRequest
from dwf.runtime.tools.layer import NOT_EXECUTED, ToolLayer, result_text

DWFC = Path(sys.executable).parent / "dwfc"

SCRIPT = '''meta = {"name": "two", "description": "Two asks.", "phases": [{"title": "Work"}]}
phase("Work")
a = await agent("first").ask("one")
log(f"first said {a}")
b = await agent("second").ask("two")
return [a, b]
'''
BROKEN = '''meta = {"name": "two", "description": "Two asks."}
phase("Work")
a = await agent("first").ask(undefined_name)
return a
'''
COMMANDS = '''meta = {"name": "echoes", "description": "Runs a command."}
phase("Work")
out = await world.run("echo", ["hi"])
return out.stdout.strip()
'''
ESCALATING = '''meta = {"name": "escalating", "description": "An actor asks the owner a question."}
phase("Decide")
choice = await agent("planner").ask("Pick a database")
return choice
'''


@pytest.fixture
def anyio_backend():
    return "asyncio"


class Approvals:
    """An approver that records what it was shown and answers `answer`."""

    def __init__(self, answer: bool = True):
        self.answer = answer
        self.requests: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> bool:
        self.requests.append(request)
        return self.answer


@pytest.fixture
def workspace(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("DWF_HOME", str(tmp_path / "home"))  # global saved workflows stay in the test
    root = tmp_path / "ws"
    root.mkdir()
    write_fixture(root, "fast.json", second_delay=0)
    write_fixture(root, "slow.json", second_delay=30)
    (root / "ask.json").write_text(json.dumps({"rules": [{"actor": "planner", "escalate": "Which database?"}]}))
    return root


def write_fixture(root: Path, name: str, second_delay: float) -> None:
    rules = [{"actor": "first", "result": "A"}, {"actor": "second", "result": "B", "delay_s": second_delay},
             {"actor": "third", "result": "C"}]
    (root / name).write_text(json.dumps({"rules": rules}))


def layer(root: Path, fixture: str = "fast.json", approver=None) -> ToolLayer:
    return ToolLayer(root, agent=f"scripted:{root / fixture}", approver=approver)


async def settled(tools: ToolLayer, run_id: str, timeout: float = 10) -> dict:
    with anyio.fail_after(timeout):
        while True:
            snapshot = await tools.call("GetWorkflowRun", {"run": run_id})
            assert snapshot["ok"], snapshot
            if snapshot["status"] != "running":
                return snapshot
            await anyio.sleep(0.05)


async def until(tools: ToolLayer, run_id: str, condition, timeout: float = 10) -> dict:
    with anyio.fail_after(timeout):
        while True:
            snapshot = await tools.call("GetWorkflowRun", {"run": run_id})
            if condition(snapshot):
                return snapshot
            await anyio.sleep(0.05)


# ---------------------------------------------------------------------------- definitions


def test_definitions_are_eleven_valid_json_schemas_with_distinct_names():
    names = [d.name for d in DEFINITIONS]
    assert names == ["CreateWorkflow", "AmendWorkflow", "EvalWorkflowSnippet", "SaveWorkflow", "ListSavedWorkflows",
                     "ListWorkflowRuns", "GetWorkflowRun", "ResumeWorkflowRun", "CancelWorkflowRun",
                     "ResolveWorkflowQuestion", "ListModels"]
    for d in DEFINITIONS:
        jsonschema.Draft202012Validator.check_schema(d.input_schema)  # against the metaschema
        assert d.input_schema["type"] == "object"
        assert not {"oneOf", "anyOf", "allOf"} & set(d.input_schema)  # the Anthropic API refuses them at the top
        assert len(d.description) > 80 and d.approval in ("always", "never", "conditional")
    approvals = {d.name: d.approval for d in DEFINITIONS}
    assert approvals["CreateWorkflow"] == approvals["SaveWorkflow"] == "always"
    assert approvals["AmendWorkflow"] == approvals["EvalWorkflowSnippet"] == "conditional"
    assert ToolLayer(".").anthropic_tools() == [{"name": d.name, "description": d.description,
                                                 "input_schema": d.input_schema} for d in DEFINITIONS]


# ---------------------------------------------------------------------------- CreateWorkflow


@pytest.mark.anyio
async def test_a_script_with_errors_becomes_a_draft_and_never_runs(workspace):
    approvals = Approvals()
    async with layer(workspace, approver=approvals) as tools:
        first = await tools.call("CreateWorkflow", {"script": BROKEN})
        second = await tools.call("CreateWorkflow", {"script": BROKEN.replace("undefined_name", "other_name")})
        runs = await tools.call("ListWorkflowRuns", {})
    drafts = workspace / ".dwf" / "drafts"
    assert (drafts / ".gitignore").read_text() == "*\n"
    assert first["ok"] is False and first["status"] == "rejected"
    assert first["draft"] == str(drafts / "two.dwf.py") and (drafts / "two.dwf.py").read_text() == BROKEN
    assert second["draft"] == str(drafts / "two-2.dwf.py")  # an existing draft is never overwritten
    assert re.fullmatch(re.escape(str(drafts / "two.dwf.py")) + r":L3:C30 DWF206 Undefined name `undefined_name`.*",
                        first["errors"][0])
    assert first["error"].splitlines()[0] == first["errors"][0]
    assert NOT_EXECUTED in first["error"].splitlines()[-1]
    assert result_text(first) == first["error"]
    assert approvals.requests == [] and runs["runs"] == []


@pytest.mark.anyio
async def test_a_script_that_does_not_parse_is_drafted_as_workflow_once(workspace):
    unparsable = 'meta = {"name": "x", "description": "y"}\nif True\n    return 1\n'
    async with layer(workspace, approver=Approvals()) as tools:
        first = await tools.call("CreateWorkflow", {"script": unparsable})
        again = await tools.call("CreateWorkflow", {"script": unparsable})  # a retried call reuses its draft
    draft = workspace / ".dwf" / "drafts" / "workflow.dwf.py"
    assert first["draft"] == again["draft"] == str(draft) and draft.read_text() == unparsable
    assert re.fullmatch(re.escape(str(draft)) + r":L2:C\d+ DWF001 .*", first["errors"][0])
    assert sorted(p.name for p in draft.parent.iterdir()) == [".gitignore", "workflow.dwf.py"]


@pytest.mark.anyio
async def test_an_approved_workflow_runs_in_the_background_to_its_value(workspace):
    approvals = Approvals()
    async with layer(workspace, approver=approvals) as tools:
        started = await tools.call("CreateWorkflow", {"script": SCRIPT, "max_concurrency": 2})
        assert started["ok"] and started["status"] == "backgrounded"
        assert started["run_id"].startswith("dwfrun-")
        snapshot = await settled(tools, started["run_id"][:14])  # a unique prefix
    assert snapshot["status"] == "completed" and snapshot["result"] == ["A", "B"]
    assert snapshot["log"] == ["first said A"] and snapshot["own"] is True and snapshot["asks"] == 2
    assert snapshot["phases"] == [{"title": "Work", "status": "done", "nodes": 2, "settled": 2, "failed": 0}]
    [request] = approvals.requests
    assert request.tool == "CreateWorkflow" and request.summary.startswith("Run the workflow `two`")
    assert "Plan: two" in request.text and "This run" in request.text and "Caps: max concurrency 2" in request.text
    assert request.details["commands"] == [] and request.details["max_concurrency"] == 2
    assert Path(started["draft"]).read_text() == SCRIPT  # inline submissions are kept as drafts too


@pytest.mark.anyio
async def test_a_fixed_draft_resubmitted_by_path_runs(workspace):
    async with layer(workspace, approver=Approvals()) as tools:
        rejected = await tools.call("CreateWorkflow", {"script": BROKEN})
        draft = Path(rejected["draft"])
        draft.write_text(BROKEN.replace("undefined_name", '"one"'))
        started = await tools.call("CreateWorkflow", {"path": str(draft.relative_to(workspace))})
        snapshot = await settled(tools, started["run_id"])
    assert started["path"] == str(draft) and snapshot["result"] == "A"


@pytest.mark.anyio
async def test_a_refused_or_impossible_approval_runs_nothing(workspace):
    refusing = Approvals(answer=False)
    async with layer(workspace, approver=refusing) as tools:
        refused = await tools.call("CreateWorkflow", {"script": COMMANDS})
        unasked = await tools.call("CreateWorkflow", {"script": COMMANDS}, approver=None)
    async with layer(workspace) as tools:  # no approver at all
        unavailable = await tools.call("CreateWorkflow", {"script": SCRIPT})
    async with ToolLayer(workspace, approver=refusing) as tools:  # no agent port: refused before approval
        no_agent = await tools.call("CreateWorkflow", {"script": SCRIPT})
        runs = await tools.call("ListWorkflowRuns", {})
    assert refused == unasked == {"ok": False, "status": "not_approved", "error": refused["error"]}
    assert "did not approve" in refused["error"] and "nothing ran" in refused["error"]
    assert len(refusing.requests) == 2 and refusing.requests[0].details["commands"] == ["echo"]
    assert "echo" in refusing.requests[0].text
    assert unavailable["ok"] is False and "no approver" in unavailable["error"] and "Nothing ran" in unavailable["error"]
    assert "no agent port" in no_agent["error"] and len(refusing.requests) == 2
    assert runs == {"ok": True, "runs": [], "total": 0}


@pytest.mark.anyio
async def test_bad_input_is_an_error_result_naming_the_problem(workspace):
    async with layer(workspace, approver=Approvals()) as tools:
        wrong_type = await tools.call("CreateWorkflow", {"script": SCRIPT, "args": 5})
        unknown = await tools.call("GetWorkflowRun", {"run": "x", "verbose": True})
        missing = await tools.call("ResolveWorkflowQuestion", {"question_id": "dwfq-a-1"})
        not_object = await tools.call("ListModels", [1])
        both = await tools.call("CreateWorkflow", {"script": SCRIPT, "path": "x.dwf.py"})
        neither = await tools.call("CreateWorkflow", {})
        no_file = await tools.call("CreateWorkflow", {"path": "missing.dwf.py"})
        no_run = await tools.call("GetWorkflowRun", {"run": "dwfrun-nope"})
        no_tool = await tools.call("GetWorkflowRuns", {})
    assert wrong_type["error"].startswith("invalid input for CreateWorkflow: $.args: 5 is not of type 'object'")
    assert "$: Additional properties are not allowed ('verbose' was unexpected)" in unknown["error"]
    assert "$: 'answer' is a required property" in missing["error"]
    assert "must be a JSON object" in not_object["error"]
    assert both["error"] == "give exactly one of `script`, `path` or `saved` (got `script` and `path`)"
    assert neither["error"] == "give exactly one of `script`, `path` or `saved` (got none)"
    assert no_file["error"].startswith(f"cannot read {workspace / 'missing.dwf.py'}")
    assert "no run matches 'dwfrun-nope'; ListWorkflowRuns lists" in no_run["error"]
    assert no_tool["error"] == "there is no tool 'GetWorkflowRuns'; did you mean GetWorkflowRun?"
    for result in (wrong_type, unknown, missing, not_object, both, neither, no_file, no_run, no_tool):
        assert result["ok"] is False


@pytest.mark.anyio
async def test_wrong_arguments_are_all_reported_before_approval(workspace):
    script = SCRIPT.replace('"phases"', '"args": {"count": {"type": "integer", "required": True}}, "phases"')
    approvals = Approvals()
    async with layer(workspace, approver=approvals) as tools:
        result = await tools.call("CreateWorkflow", {"script": script, "args": {"cont": 1}})
    assert result["problems"] == ["unknown argument `cont` (did you mean `count`?)",
                                  "missing required argument `count` (integer)"]
    assert approvals.requests == []


# ---------------------------------------------------------------------------- runs


@pytest.mark.anyio
async def test_runs_are_listed_newest_first(workspace):
    async with layer(workspace, approver=Approvals()) as tools:
        ids = []
        for _ in range(3):
            ids.append((await tools.call("CreateWorkflow", {"script": SCRIPT}))["run_id"])
            await settled(tools, ids[-1])
        listed = await tools.call("ListWorkflowRuns", {})
        limited = await tools.call("ListWorkflowRuns", {"limit": 2, "status": "completed"})
    assert [run["id"] for run in listed["runs"]] == ids[::-1]
    assert [run["id"] for run in limited["runs"]] == ids[:0:-1] and limited["total"] == 3
    assert all(run["own"] and run["status"] == "completed" for run in listed["runs"])


@pytest.mark.anyio
async def test_leaving_the_layer_interrupts_a_run_that_resume_continues(workspace, monkeypatch, tmp_path):
    calls = tmp_path / "calls.jsonl"
    monkeypatch.setenv("DWF_SCRIPTED_CALL_LOG", str(calls))
    async with layer(workspace, "slow.json", approver=Approvals()) as tools:
        run_id = (await tools.call("CreateWorkflow", {"script": SCRIPT}))["run_id"]
        await until(tools, run_id, lambda s: s["log"] == ["first said A"])
    async with layer(workspace, "fast.json") as tools:  # another session: resume needs no approval
        stopped = await tools.call("GetWorkflowRun", {"run": run_id})
        resumed = await tools.call("ResumeWorkflowRun", {"run": run_id})
        snapshot = await settled(tools, run_id)
        again = await tools.call("ResumeWorkflowRun", {"run": run_id})
    assert (stopped["status"], stopped["stop_reason"], stopped["resumable"]) == ("stopped", "interrupted", True)
    assert stopped["own"] is False and "ResumeWorkflowRun" in stopped["next"]
    assert resumed == {"ok": True, "run_id": run_id, "status": "backgrounded", "resumed": True,
                       "message": resumed["message"]}
    assert snapshot["status"] == "completed" and snapshot["result"] == ["A", "B"]
    actors = [json.loads(line)["actor"] for line in calls.read_text().splitlines()]
    assert actors == ["first", "second", "second"]  # the finished ask replayed from the journal
    assert again["ok"] is False and "it finished" in again["error"]


@pytest.mark.anyio
async def test_another_process_sees_and_cancels_a_background_run(workspace):
    async with layer(workspace, "slow.json", approver=Approvals()) as tools:
        run_id = (await tools.call("CreateWorkflow", {"script": SCRIPT}))["run_id"]
        await until(tools, run_id, lambda s: s["log"] == ["first said A"])
        shown = await anyio.run_process([str(DWFC), "show", run_id, "--json", "--workspace", str(workspace)])
        cancelled = await anyio.run_process([str(DWFC), "cancel", run_id[:12], "--workspace", str(workspace)],
                                            check=False)
        snapshot = await settled(tools, run_id)
    assert json.loads(shown.stdout)["status"] == "running"
    assert cancelled.returncode == 0, cancelled.stderr
    assert (snapshot["status"], snapshot["stop_reason"]) == ("stopped", "user")


# ---------------------------------------------------------------------------- AmendWorkflow


AMENDED = SCRIPT.replace("return [a, b]", 'c = await agent("third").ask("three")\nreturn [a, b, c]')


@pytest.mark.anyio
async def test_amending_an_own_run_needs_no_approval_and_imports_finished_asks(workspace, monkeypatch, tmp_path):
    calls = tmp_path / "calls.jsonl"
    monkeypatch.setenv("DWF_SCRIPTED_CALL_LOG", str(calls))
    approvals = Approvals()
    async with layer(workspace, approver=approvals) as tools:
        first = (await tools.call("CreateWorkflow", {"script": SCRIPT}))["run_id"]
        await settled(tools, first)
        amended = await tools.call("AmendWorkflow", {"run": first, "script": AMENDED})
        snapshot = await settled(tools, amended["run_id"])
        predecessor = await tools.call("GetWorkflowRun", {"run": first})
    assert len(approvals.requests) == 1  # CreateWorkflow only
    assert amended["ok"] and amended["amended_from"] == first and amended["status"] == "backgrounded"
    assert snapshot["result"] == ["A", "B", "C"] and snapshot["amended_from"] == first and snapshot["own"]
    assert predecessor["superseded_by"] == amended["run_id"]
    actors = [json.loads(line)["actor"] for line in calls.read_text().splitlines()]
    assert actors == ["first", "second", "third"]  # first and second were imported, not asked again


SPIN = 'meta = {"name": "spin", "description": "Computes without an await."}\nphase("Work")\nlog("spinning")\n' \
    "n = 0\nwhile True:\n    n += 1\n"  # no await until its step limit: about 2 s of one synchronous stretch


@pytest.mark.anyio
async def test_a_run_computing_between_its_awaits_leaves_the_layer_free_and_is_amended_inside_its_loop(workspace):
    """The layer's runs compute on the engine's own loop and thread: while one spins, the layer
    answers on its own loop, and an amend stops it inside its loop as superseded (not at its
    step limit)."""
    async with layer(workspace, approver=Approvals()) as tools:
        spinning = (await tools.call("CreateWorkflow", {"script": SPIN}))["run_id"]
        seen = await until(tools, spinning, lambda s: s["log"] or s["status"] != "running")
        amended = await tools.call("AmendWorkflow", {"run": spinning, "script": SCRIPT})
        snapshot = await settled(tools, amended["run_id"])
        predecessor = await tools.call("GetWorkflowRun", {"run": spinning})
    assert (seen["status"], seen["log"]) == ("running", ["spinning"]), seen.get("error")
    assert amended["ok"], amended
    assert (predecessor["status"], predecessor["stop_reason"]) == ("stopped", "superseded"), predecessor.get("error")
    assert predecessor["superseded_by"] == amended["run_id"] and snapshot["result"] == ["A", "B"]


@pytest.mark.anyio
async def test_leaving_the_layer_stops_a_computing_run_inside_its_loop(workspace):
    async with layer(workspace, approver=Approvals()) as tools:
        spinning = (await tools.call("CreateWorkflow", {"script": SPIN}))["run_id"]
        seen = await until(tools, spinning, lambda s: s["log"] or s["status"] != "running")
    async with layer(workspace) as tools:
        stopped = await tools.call("GetWorkflowRun", {"run": spinning})
    assert seen["status"] == "running", seen.get("error")
    assert (stopped["status"], stopped["stop_reason"]) == ("stopped", "interrupted"), stopped.get("error")


@pytest.mark.anyio
async def test_amending_needs_approval_for_user_stopped_foreign_or_new_command_runs(workspace):
    async with layer(workspace, approver=Approvals()) as other:  # another session's run
        foreign = (await other.call("CreateWorkflow", {"script": SCRIPT}))["run_id"]
        await settled(other, foreign)
    refusing = Approvals(answer=False)
    async with layer(workspace, "slow.json", approver=Approvals()) as tools:
        own = (await tools.call("CreateWorkflow", {"script": SCRIPT}))["run_id"]
        await until(tools, own, lambda s: s["log"] == ["first said A"])
        stopped = await anyio.run_process([str(DWFC), "cancel", own, "--workspace", str(workspace)], check=False)
        await settled(tools, own)
        user_stopped = await tools.call("AmendWorkflow", {"run": own, "script": AMENDED}, approver=refusing)
        not_own = await tools.call("AmendWorkflow", {"run": foreign, "script": AMENDED}, approver=refusing)
        new_command = await tools.call("AmendWorkflow", {"run": foreign, "script": COMMANDS}, approver=refusing)
        still = await tools.call("GetWorkflowRun", {"run": own})
    assert stopped.returncode == 0
    for result in (user_stopped, not_own, new_command):
        assert result["status"] == "not_approved" and "the run was not amended" in result["error"]
    assert [r.tool for r in refusing.requests] == ["AmendWorkflow"] * 3
    assert refusing.requests[0].text.startswith(f"Amend run {own} (stopped(user)).")
    assert (still["status"], still["stop_reason"], still["superseded_by"]) == ("stopped", "user", None)


@pytest.mark.anyio
async def test_an_amendment_with_errors_leaves_the_run_alone(workspace):
    async with layer(workspace, approver=Approvals()) as tools:
        run_id = (await tools.call("CreateWorkflow", {"script": SCRIPT}))["run_id"]
        await settled(tools, run_id)
        result = await tools.call("AmendWorkflow", {"run": run_id, "script": BROKEN})
        snapshot = await tools.call("GetWorkflowRun", {"run": run_id})
    assert result["status"] == "rejected" and result["error"].endswith("the run was not amended")
    assert snapshot["superseded_by"] is None and snapshot["status"] == "completed"


# ---------------------------------------------------------------------------- questions and models


@pytest.mark.anyio
async def test_an_escalated_question_is_answered_and_the_actor_continues(workspace):
    async with layer(workspace, "ask.json", approver=Approvals()) as tools:
        run_id = (await tools.call("CreateWorkflow", {"script": ESCALATING}))["run_id"]
        waiting = await until(tools, run_id, lambda s: s["pending_questions"])
        [question] = waiting["pending_questions"]
        answered = await tools.call("ResolveWorkflowQuestion", {"question_id": question["id"], "answer": "Postgres"})
        snapshot = await settled(tools, run_id)
        twice = await tools.call("ResolveWorkflowQuestion", {"question_id": question["id"], "answer": "MySQL"})
        unknown = await tools.call("ResolveWorkflowQuestion", {"question_id": "dwfq-none-1", "answer": "x"})
    assert question["question"] == "Which database?" and question["actor"] == "planner"
    assert "ResolveWorkflowQuestion" in waiting["next"]
    assert answered["ok"] and answered["run_id"] == run_id and answered["actor"] == "planner"
    assert snapshot["status"] == "completed" and snapshot["result"] == "Postgres"
    assert snapshot["pending_questions"] == []
    assert "already answered" in twice["error"] and "no pending question" in unknown["error"]


@pytest.mark.anyio
async def test_models_name_the_port_default(workspace):
    async with layer(workspace) as tools:
        models = await tools.call("ListModels", {})
    ids = [m["id"] for m in models["models"]]
    assert models["default_model"] == DEFAULT_MODEL and {"id": DEFAULT_MODEL, "default": True} in models["models"]
    assert len(ids) == len(set(ids)) and "claude-haiku-4-5" in ids and models["aliases"]["opus"] in ids
    assert models["agent_port"] == "scripted" and "anthropic SDK" in models["source"]


# ---------------------------------------------------------------------------- saved workflows and snippets


@pytest.mark.anyio
async def test_a_saved_workflow_is_listed_and_runs_with_its_arguments(workspace):
    script = SCRIPT.replace('"phases"', '"args": {"tag": {"type": "string", "default": "x"}}, "phases"') \
                   .replace("return [a, b]", 'return [a, b, args["tag"]]')
    approvals = Approvals()
    async with layer(workspace, approver=approvals) as tools:
        saved = await tools.call("SaveWorkflow", {"script": script, "name": "pair"})
        listed = await tools.call("ListSavedWorkflows", {})
        started = await tools.call("CreateWorkflow", {"saved": "pair", "args": {"tag": "y"}})
        snapshot = await settled(tools, started["run_id"])
        unknown = await tools.call("CreateWorkflow", {"saved": "pairs"})
    target = workspace / ".dwf" / "workflows" / "pair.dwf.py"
    assert saved["ok"] and saved["name"] == "pair" and saved["scope"] == "project" and target.read_text() == script
    assert [r.tool for r in approvals.requests] == ["SaveWorkflow", "CreateWorkflow"]
    assert str(target) in approvals.requests[0].summary
    assert [w["name"] for w in listed["workflows"]] == ["pair"] and listed["workflows"][0]["args"]["tag"]["default"] == "x"
    assert snapshot["result"] == ["A", "B", "y"] and snapshot["args"] == {"tag": "y"}
    assert unknown["ok"] is False and "ListSavedWorkflows" in unknown["error"]


@pytest.mark.anyio
async def test_a_refused_save_writes_nothing(workspace):
    async with layer(workspace, approver=Approvals(answer=False)) as tools:
        result = await tools.call("SaveWorkflow", {"script": SCRIPT, "scope": "project"})
        listed = await tools.call("ListSavedWorkflows", {})
    assert result["status"] == "not_approved" and listed["workflows"] == []
    assert not (workspace / ".dwf" / "workflows" / "two.dwf.py").exists()


ECHOER = '''meta = {"name": "echoer", "description": "Echoes, then asks a helper."}
phase("Help")
out = await world.run("echo", ["hi"])
return await agent("helper").ask(f"Use {out.stdout.strip()}")
'''
CALLER = '''meta = {"name": "caller", "description": "Calls the saved workflow echoer."}
phase("Lead")
helped = await workflow("echoer")
lead = await agent("lead").ask(f"Lead with {helped}")
return [helped, lead]
'''
DRAFTER = '''meta = {"name": "drafter", "description": "Asks a writer, then echoes the draft."}
phase("Draft")
line = await agent("writer").ask("Draft a line")
out = await world.run("echo", [line])
return out.stdout.strip()
'''


def write_calls_fixtures(root: Path) -> None:
    """Fixtures for the actors of saved workflows called inline (named `<workflow>/<actor>`)."""
    rules = [{"actor": "echoer/helper", "instructions": "^Use hi$", "result": "H"},
             {"actor": "lead", "instructions": "^Lead with H$", "result": "L"},
             {"actor": "drafter/writer", "result": "A line."}, {"actor": "first", "result": "A"},
             {"actor": "second", "result": "B"}]
    (root / "calls.json").write_text(json.dumps({"rules": rules}))
    (root / "calls_slow.json").write_text(json.dumps({"rules": [{"delay_s": 30, "result": "never"}]}))


@pytest.mark.anyio
async def test_a_workflow_calling_a_saved_one_shows_it_for_approval_and_runs_it_inline(workspace):
    from dwf.runtime.host.saved import save_workflow

    save_workflow(workspace, ECHOER, "project")
    write_calls_fixtures(workspace)
    approvals = Approvals()
    refusing = Approvals(answer=False)
    async with layer(workspace, "calls.json", approver=approvals) as tools:
        started = await tools.call("CreateWorkflow", {"script": CALLER})
        snapshot = await settled(tools, started["run_id"])
        again = await tools.call("AmendWorkflow", {"run": started["run_id"], "script": CALLER + "\n"})
        plain = (await tools.call("CreateWorkflow", {"script": SCRIPT}))["run_id"]
        await settled(tools, plain)
        widened = await tools.call("AmendWorkflow", {"run": plain, "script": CALLER}, approver=refusing)
        await settled(tools, again["run_id"])
    assert snapshot["status"] == "completed" and snapshot["result"] == ["H", "L"]  # echo ran inside `echoer`
    request = approvals.requests[0]
    assert request.details["commands"] == ["echo"]
    assert [w["name"] for w in request.details["workflows"]] == ["echoer"]
    assert request.summary == ("Run the workflow `caller`; commands: echo; it calls the saved workflows `echoer`")
    assert "Saved workflows (1)" in request.text and "  echoer (project)\n" in request.text
    assert "    commands: echo\n" in request.text
    # An own run's amendment within the approved commands (the called workflow's included) needs no
    # approval; one that adds a called workflow's command to a run approved without it does.
    assert again["ok"] and [r.tool for r in approvals.requests] == ["CreateWorkflow", "CreateWorkflow"]
    assert widened["status"] == "not_approved" and refusing.requests[0].details["commands"] == ["echo"]


@pytest.mark.anyio
async def test_a_call_to_an_unknown_saved_workflow_is_refused_before_approval(workspace):
    from dwf.runtime.host.saved import save_workflow

    save_workflow(workspace, ECHOER, "project")
    approvals = Approvals()
    unknown = CALLER.replace('workflow("echoer")', 'workflow("echoes")')
    async with layer(workspace, approver=approvals) as tools:
        created = await tools.call("CreateWorkflow", {"script": unknown})
        run_id = (await tools.call("CreateWorkflow", {"script": SCRIPT}))["run_id"]
        await settled(tools, run_id)
        amended = await tools.call("AmendWorkflow", {"run": run_id, "script": unknown})
        runs = await tools.call("ListWorkflowRuns", {})
    problem = ('line 3 calls workflow("echoes"), but there is no saved workflow named `echoes` '
               "(did you mean `echoer`?); ListSavedWorkflows lists them")
    assert created == {"ok": False, "error": f"the workflow cannot start: {problem}. Nothing ran.", "problems": [problem]}
    assert amended == {"ok": False, "error": f"the run was not amended: {problem}.", "problems": [problem]}
    assert [r.tool for r in approvals.requests] == ["CreateWorkflow"]  # only the script that runs
    assert [run["id"] for run in runs["runs"]] == [run_id]


@pytest.mark.anyio
async def test_a_resumed_run_may_run_the_commands_of_its_pinned_saved_workflows(workspace, monkeypatch, tmp_path):
    from dwf.runtime.host.saved import save_workflow

    save_workflow(workspace, DRAFTER, "project")
    write_calls_fixtures(workspace)
    calls = tmp_path / "calls.jsonl"
    monkeypatch.setenv("DWF_SCRIPTED_CALL_LOG", str(calls))
    script = 'meta = {"name": "drafting", "description": "Calls drafter."}\nreturn await workflow("drafter")\n'
    async with layer(workspace, "calls_slow.json", approver=Approvals()) as tools:
        run_id = (await tools.call("CreateWorkflow", {"script": script}))["run_id"]
        with anyio.fail_after(10):
            while not (calls.exists() and calls.read_text().strip()):  # the writer's slow ask was dispatched
                await anyio.sleep(0.02)
    async with layer(workspace, "calls.json") as tools:
        resumed = await tools.call("ResumeWorkflowRun", {"run": run_id})
        snapshot = await settled(tools, run_id)
    assert resumed["ok"], resumed
    assert (snapshot["status"], snapshot["result"]) == ("completed", "A line.")  # echo, approved at the start


@pytest.mark.anyio
async def test_snippets_ask_approval_only_when_they_run_commands(workspace):
    (workspace / "notes.txt").write_text("hello\n")
    approvals = Approvals()
    async with layer(workspace, approver=approvals) as tools:
        pure = await tools.call("EvalWorkflowSnippet", {"snippet": 'text = await files.read("notes.txt")\nreturn text.upper()'})
        assert approvals.requests == []
        command = await tools.call("EvalWorkflowSnippet", {"snippet": 'r = await world.run("echo", ["hi"])\nreturn r.stdout'})
        approvals.answer = False
        refused = await tools.call("EvalWorkflowSnippet", {"snippet": 'r = await world.run("echo", ["no"])\nreturn r.stdout'})
        rejected = await tools.call("EvalWorkflowSnippet", {"snippet": 'x = await agent("x").ask("hi")\nreturn x'})
    assert pure["ok"] and pure["value"] == "HELLO\n"
    assert command["ok"] and command["value"] == "hi\n" and command["commands_run"] == ["echo hi"]
    assert [r.details["commands"] for r in approvals.requests] == [["echo"], ["echo"]]
    assert refused["status"] == "not_approved" and "snippet was not evaluated" in refused["error"]
    assert rejected["status"] == "rejected" and rejected["error"].endswith("not executed: fix the snippet and call again")
    assert re.match(r"<snippet>:L1:C\d+ DWF\d{3} `\S+` cannot be used in a snippet", rejected["errors"][0])


@pytest.mark.parametrize("name, stem", [("review", "review"), ("v1.2_final-x", "v1.2_final-x"), ("x\n", "workflow"),
                                        ("..", "workflow"), ("../escape", "workflow"), ("-rf", "workflow"),
                                        ("a" * 65, "workflow"), (3, "workflow")])
def test_a_draft_is_named_after_a_safe_meta_name_only(name, stem):
    assert draft_name(f"meta = {{'name': {name!r}}}\nreturn 1\n") == stem



@pytest.mark.anyio
async def test_amend_inherits_caps_and_model_unless_given_and_null_clears_a_cap(workspace):
    agent = f"scripted:{workspace / 'fast.json'}"
    async with ToolLayer(workspace, agent=agent, model="model-a", approver=Approvals()) as tools:
        first = (await tools.call("CreateWorkflow", {"script": SCRIPT, "max_concurrency": 3, "budget": 5000}))["run_id"]
        await settled(tools, first)
    async with ToolLayer(workspace, agent=agent, approver=Approvals()) as tools:  # a host without --model
        amended = await tools.call("AmendWorkflow", {"run": first, "script": AMENDED})
        assert amended["ok"], amended
        kept = await settled(tools, amended["run_id"])
        changed = await tools.call("AmendWorkflow", {"run": amended["run_id"], "script": AMENDED, "budget": None,
                                                     "max_concurrency": 2, "model": "model-b"})
        assert changed["ok"], changed
        changed = await settled(tools, changed["run_id"])
        bad = await tools.call("AmendWorkflow", {"run": first, "script": AMENDED, "max_concurrency": 0})
    caps = kept["caps"]
    assert (caps["max_concurrency"], caps["budget"], caps["model"]) == (3, 5000, "model-a")
    caps = changed["caps"]
    assert (caps["max_concurrency"], caps["budget"], caps["model"]) == (2, None, "model-b")
    assert not bad["ok"] and "$.max_concurrency" in bad["error"]


# ---------------------------------------------------------------------------- CancelWorkflowRun


@pytest.mark.anyio
async def test_cancel_workflow_run_stops_an_own_live_run_as_stopped_by_the_model(workspace):
    async with layer(workspace, "slow.json", approver=Approvals()) as tools:
        run_id = (await tools.call("CreateWorkflow", {"script": SCRIPT}))["run_id"]
        with anyio.fail_after(10):
            while (await tools.call("GetWorkflowRun", {"run": run_id}))["asks"] < 1:
                await anyio.sleep(0.05)
        cancelled = await tools.call("CancelWorkflowRun", {"run": run_id})
        again = await tools.call("CancelWorkflowRun", {"run": run_id})
        invalid = await tools.call("CancelWorkflowRun", {"run": run_id, "wait_s": -1, "extra": 1})
        snapshot = await tools.call("GetWorkflowRun", {"run": run_id})
    assert cancelled == {"ok": True, "run_id": run_id, "status": "stopped", "stop_reason": "model",
                         "message": "The run is stopped(model)."}
    assert (snapshot["status"], snapshot["stop_reason"], snapshot["resumable"]) == ("stopped", "model", True)
    assert not again["ok"] and "is not running (it is stopped(model)); nothing to cancel" in again["error"]
    assert not invalid["ok"] and any(p.startswith("$.wait_s: ") for p in invalid["problems"])
    assert any(p.startswith("$: ") and "extra" in p for p in invalid["problems"])


def test_cancel_workflow_run_stops_a_run_of_another_process(workspace, tmp_path):
    calls = tmp_path / "calls.jsonl"
    (workspace / "two.dwf.py").write_text(SCRIPT)
    process = subprocess.Popen([str(DWFC), "run", "two.dwf.py", "--yes", "--agent", "scripted:slow.json", "--progress",
                                "json"], cwd=workspace, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env={**os.environ, "DWF_SCRIPTED_CALL_LOG": str(calls)})

    async def cancel() -> dict:
        with anyio.fail_after(20):
            while not calls.exists() or len(calls.read_text().splitlines()) < 2:
                await anyio.sleep(0.05)
        async with layer(workspace) as tools:
            [run] = (await tools.call("ListWorkflowRuns", {"status": "running"}))["runs"]
            return await tools.call("CancelWorkflowRun", {"run": run["id"]})

    try:
        cancelled = anyio.run(cancel)
        out = process.stdout.read()
        process.wait(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
    assert cancelled["ok"] and (cancelled["status"], cancelled["stop_reason"]) == ("stopped", "model"), cancelled
    assert process.returncode == 3 and json.loads(out)["stop_reason"] == "model"


@pytest.mark.anyio
async def test_amend_without_a_script_changes_a_live_run_at_once_or_reruns_a_settled_one(workspace):
    async with layer(workspace, "slow.json", approver=Approvals()) as tools:
        live = (await tools.call("CreateWorkflow", {"script": SCRIPT, "max_concurrency": 1}))["run_id"]
        changed = await tools.call("AmendWorkflow", {"run": live, "max_concurrency": 5})
        budget = await tools.call("AmendWorkflow", {"run": live, "budget": 10})
        await tools.call("CancelWorkflowRun", {"run": live})
        snapshot = await tools.call("GetWorkflowRun", {"run": live})
    assert changed["ok"] and changed["run_id"] == live and changed["caps"]["max_concurrency"] == 5, changed
    assert snapshot["caps"]["max_concurrency"] == 5
    assert not budget["ok"] and "budget cannot change while it runs" in budget["error"]
    async with layer(workspace, approver=Approvals()) as tools:
        rerun = await tools.call("AmendWorkflow", {"run": live, "budget": 100})
        assert rerun["ok"], rerun
        done = await settled(tools, rerun["run_id"])
    assert rerun["amended_from"] == live and done["status"] == "completed" and done["result"] == ["A", "B"]
    assert (done["caps"]["max_concurrency"], done["caps"]["budget"]) == (5, 100)
