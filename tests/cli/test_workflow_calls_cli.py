"""Scripts that call saved workflows inline (`await workflow(name, args)`, LANGUAGE §6.3) from the
command line: the approval screen of `dwfc run` and `dwfc plan` lists each called workflow with
its commands (and the command set is the union), a called workflow that is unknown, broken or
itself calls `workflow()` is a usage error before the screen, `dwfc run --yes` runs one end to
end, `dwfc amend` resolves the new script's calls, and `dwfc resume` runs the scripts pinned at
the start. Transcripts are snapshotted with the temp dir shown as `<tmp>`; `DWF_HOME` always
points into the temp dir."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from dwf.runtime.host.saved import project_dir, save_workflow
from dwf.runtime.tools.layer import ToolLayer

from cli_transcripts import in_process_dwfc, isolated_home, transcript

DWFC = Path(sys.executable).parent / "dwfc"

SUMMARIZE = '''meta = {
    "name": "summarize",
    "description": "Echoes a topic and asks a writer to summarise it.",
    "args": {"topic": {"type": "string", "required": True}},
}
phase("Summarise")
out = await world.run("echo", [args["topic"]])
return await agent("writer").ask(f"Summarise {out.stdout.strip()}")
'''
GREET = '''meta = {"name": "greet", "description": "Asks for a greeting."}
return await agent("greeter").ask("Say hello")
'''
PARENT = '''meta = {"name": "parent", "description": "Has a topic summarised and judged."}
phase("Delegate")
hello = await workflow("greet")
summary = await workflow("summarize", {"topic": "tides"})
verdict = await agent("judge").ask(f"Judge: {summary}")
return {"hello": hello, "summary": summary, "verdict": verdict}
'''
FIXTURE = {"rules": [
    {"actor": "greet/greeter", "result": "Hello!"},
    {"actor": "summarize/writer", "instructions": "^Summarise tides$", "result": "Tides rise and fall."},
    {"actor": "judge", "instructions": r"^Judge: Tides rise and fall\.$", "result": "accurate"},
    {"actor": "plain", "result": "plain answer"},
]}
PLAIN = '''meta = {"name": "plain", "description": "One ask, no saved workflows."}
return await agent("plain").ask("anything")
'''
NESTING = '''meta = {"name": "nesting", "description": "Calls another saved workflow."}
return await workflow("greet")
'''
BROKEN = '''meta = {"name": "broken", "description": "Does not compile."}
x = y
'''


def calling(*names: str) -> str:
    """A script that calls the saved workflows `names`."""
    calls = "".join(f'await workflow("{name}")\n' for name in names)
    return f'meta = {{"name": "calls", "description": "Calls {", ".join(names)}."}}\n{calls}return 1\n'


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    return isolated_home(tmp_path, monkeypatch)


@pytest.fixture
def workspace(tmp_path, home) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    save_workflow(root, SUMMARIZE, "project")
    save_workflow(root, GREET, "global")
    save_workflow(root, NESTING, "project")
    (project_dir(root) / "broken.dwf.py").write_text(BROKEN)  # saving would refuse it
    for name, text in {"parent": PARENT, "plain": PLAIN, "unknown": calling("sumarize", "nowhere"),
                       "calls_broken": calling("broken"), "calls_nesting": calling("nesting")}.items():
        (root / f"{name}.dwf.py").write_text(text)
    (root / "fixture.json").write_text(json.dumps(FIXTURE))
    return root


@pytest.fixture
def dwfc(monkeypatch, capsys, workspace, tmp_path):
    return in_process_dwfc(monkeypatch, capsys, workspace, tmp_path)


def run_ids(workspace: Path) -> list[str]:
    listed = subprocess.run([str(DWFC), "runs", "--json", "--workspace", str(workspace)], capture_output=True,
                            text=True, timeout=60, check=True)
    return [run["id"] for run in json.loads(listed.stdout)]


# ---------------------------------------------------------------- the approval screen


def test_the_approval_screen_lists_each_called_workflow_and_its_commands(dwfc, snapshot):
    shown = transcript(dwfc, "run", "parent.dwf.py", "--agent", "scripted:fixture.json")
    assert shown["exit"] == 2 and "standard input is not a terminal" in shown["stderr"]  # shown, then not approved
    screen = shown["stderr"]
    assert "Commands (1)\n  The only programs this run may start" in screen
    assert "    echo: echo …\n" in screen  # the called workflow's `echo`, its arguments computed
    assert ("  greet (global)\n    Asks for a greeting.\n    file: <tmp>/home/workflows/greet.dwf.py\n"
            "    runs no commands\n") in screen
    assert "    file: <tmp>/ws/.dwf/workflows/summarize.dwf.py\n    commands: echo\n" in screen
    assert screen.index("Saved workflows (2)") < screen.index("This run")
    assert shown == snapshot


@pytest.mark.parametrize("script", ["unknown", "calls_broken", "calls_nesting"])
def test_a_problem_with_a_called_workflow_exits_2_before_the_approval_screen(dwfc, workspace, script, snapshot):
    shown = transcript(dwfc, "run", f"{script}.dwf.py", "--yes", "--agent", "scripted:fixture.json")
    assert shown["exit"] == 2 and "Plan:" not in shown["stderr"] and shown["stdout"] == ""
    assert not (workspace / ".dwf" / "state.db").exists()  # nothing ran, nothing was journaled
    assert shown == snapshot


def test_every_problem_is_reported_at_once(dwfc):
    code, _, err = dwfc("run", "unknown.dwf.py", "--yes", "--agent", "scripted:fixture.json")
    assert code == 2 and err.splitlines() == [
        'dwfc: error: line 2 calls workflow("sumarize"), but there is no saved workflow named `sumarize` '
        "(did you mean `summarize`?); `dwfc saved` lists them",
        'dwfc: error: line 3 calls workflow("nowhere"), but there is no saved workflow named `nowhere`; '
        "`dwfc saved` lists them"]


# ---------------------------------------------------------------- dwfc plan


def test_plan_shows_the_called_workflows_and_the_union_of_commands(dwfc, snapshot):
    shown = transcript(dwfc, "plan", "parent.dwf.py")
    assert shown["exit"] == 0 and "Saved workflows (2)" in shown["stdout"]
    assert shown == snapshot
    code, out, _ = dwfc("plan", "parent.dwf.py", "--format", "json")
    plan = json.loads(out)
    assert code == 0 and plan["commands"] == ["echo"]
    assert plan["workflows"] == [
        {"name": "greet", "scope": "global", "path": "<tmp>/home/workflows/greet.dwf.py",
         "description": "Asks for a greeting.", "commands": []},
        {"name": "summarize", "scope": "project", "path": "<tmp>/ws/.dwf/workflows/summarize.dwf.py",
         "description": "Echoes a topic and asks a writer to summarise it.", "commands": ["echo"]}]


def test_the_html_approval_page_shows_the_calls_as_steps_and_lists_the_called_workflows(dwfc):
    code, page, _ = dwfc("plan", "parent.dwf.py", "--format", "html")
    assert code == 0
    assert page.count('<span class="kind kind-workflow">workflow</span>') == 2  # one step per call
    section = page[page.index('<section id="workflows">'):]
    assert "<h2>Saved workflows (2)</h2>" in section
    assert "<strong>summarize</strong> (project): Echoes a topic and asks a writer to summarise it." in section
    assert "/ws/.dwf/workflows/summarize.dwf.py</code> · commands: echo</li>" in section


def test_plan_of_a_script_calling_no_saved_workflow_has_no_such_section(dwfc):
    code, out, _ = dwfc("plan", "plain.dwf.py", "--format", "json")
    assert code == 0 and "workflows" not in json.loads(out)
    assert "Saved workflows" not in dwfc("plan", "plain.dwf.py")[1]


def test_plan_refuses_an_unknown_called_workflow(dwfc):
    code, out, err = dwfc("plan", "unknown.dwf.py")
    assert code == 2 and out == "" and "there is no saved workflow named `sumarize`" in err


# ---------------------------------------------------------------- running


def test_run_yes_runs_the_called_workflows_inline_end_to_end(workspace, tmp_path):
    """Real process: the children's asks and their approved `echo` run inside the parent's run."""
    definition = project_dir(workspace) / "summarize.dwf.py"
    before = definition.read_bytes()
    env = {**{k: v for k, v in os.environ.items() if k != "DWF_SCRIPTED_CALL_LOG"}, "DWF_HOME": str(tmp_path / "home")}
    done = subprocess.run([str(DWFC), "run", "parent.dwf.py", "--yes", "--agent", "scripted:fixture.json",
                           "--progress", "json"], cwd=workspace, env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "completed", result
    # "Summarise tides" only matches when echo ran and its output reached the child's ask
    assert result["value"] == {"hello": "Hello!", "summary": "Tides rise and fall.", "verdict": "accurate"}
    assert definition.read_bytes() == before
    shown = subprocess.run([str(DWFC), "show", result["run_id"], "--json"], cwd=workspace, env=env,
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert json.loads(shown.stdout)["workflows"] == ["greet", "summarize"]  # pinned with the run


def test_amend_resolves_the_saved_workflows_of_the_new_script(dwfc, workspace):
    code, out, err = dwfc("run", "plain.dwf.py", "--yes", "--agent", "scripted:fixture.json", "--progress", "json")
    assert code == 0, err
    first = json.loads(out)["run_id"]
    code, _, err = dwfc("amend", first, "unknown.dwf.py", "--yes", "--agent", "scripted:fixture.json")
    assert code == 2 and "there is no saved workflow named `sumarize`" in err and "Amend run" not in err
    assert run_ids(workspace) == [first]  # refused before anything started
    code, out, err = dwfc("amend", first, "parent.dwf.py", "--yes", "--agent", "scripted:fixture.json")
    assert code == 0, err
    assert "  Commands: echo\n" in err and "Saved workflows (2)" in err
    assert "  summarize (project)\n" in err and "    file: <tmp>/ws/.dwf/workflows/summarize.dwf.py\n" in err
    assert json.loads(out) == {"hello": "Hello!", "summary": "Tides rise and fall.", "verdict": "accurate"}


# ---------------------------------------------------------------- resume

DRAFT = '''meta = {"name": "draft", "description": "Drafts a line, then echoes it."}
phase("Draft")
line = await agent("writer").ask("Draft a line")
out = await world.run("echo", [line])
return out.stdout.strip()
'''
RESUMABLE = '''meta = {"name": "resumable", "description": "Calls the saved workflow draft."}
return await workflow("draft")
'''


async def interrupted_run(workspace: Path, calls: Path) -> str:
    """A run of RESUMABLE left stopped(interrupted) while its child's ask is in flight."""
    async def approve(request) -> bool:
        return True

    async with ToolLayer(workspace, agent=f"scripted:{workspace / 'slow.json'}", approver=approve) as tools:
        started = await tools.call("CreateWorkflow", {"path": "resumable.dwf.py"})
        assert started["ok"], started
        with anyio.fail_after(10):
            while not (calls.exists() and calls.read_text().strip()):  # the slow ask was dispatched
                await anyio.sleep(0.02)
    return started["run_id"]


def test_resume_runs_the_pinned_saved_workflow_and_its_approved_command(dwfc, workspace, tmp_path, monkeypatch):
    save_workflow(workspace, DRAFT, "project")
    (workspace / "resumable.dwf.py").write_text(RESUMABLE)
    (workspace / "slow.json").write_text(json.dumps({"rules": [{"delay_s": 30, "result": "never"}]}))
    (workspace / "fast.json").write_text(json.dumps({"rules": [{"actor": "draft/writer", "result": "A line."}]}))
    calls = tmp_path / "calls.jsonl"
    monkeypatch.setenv("DWF_SCRIPTED_CALL_LOG", str(calls))
    run_id = anyio.run(interrupted_run, workspace, calls)
    # Today's file differs; the resume runs the script approved and pinned at the start.
    save_workflow(workspace, DRAFT.replace('"echo"', '"printf"'), "project", replace=True)
    code, out, err = dwfc("resume", run_id, "--agent", "scripted:fast.json", "--progress", "json")
    assert code == 0, err
    result = json.loads(out)
    assert (result["status"], result["value"]) == ("completed", "A line."), result
