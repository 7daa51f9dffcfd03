"""One prepared run (issue #12, acceptance 5): `dwfc run`, `dwfc amend`, `dwfc resume` and the
CreateWorkflow and AmendWorkflow tools compile each script once, and each
saved workflow it calls once, through `host/session.py` and `engine.prepare`. The count wraps
the compiler's parse step, which every compile goes through (`compile_source`, `compile_bytes`).
Each step starts without the workspace's compile cache (issue #18), whose hits compile nothing
(tests/runtime/test_compile_cache.py)."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import anyio
import pytest

from dwf.compiler import compile as compile_module
from dwf.runtime.cli import main as cli
from dwf.runtime.host.saved import save_workflow
from dwf.runtime.journal.sqlite import SqliteJournal
from dwf.runtime.tools import ToolLayer
from dwf.runtime.tools.definitions import approve_all

from cli_transcripts import isolated_home

CALLED = '''meta = {"name": "greet", "description": "Greets."}
phase("Greet")
return await agent("greeter").ask("hello")
'''
CALLER = '''meta = {"name": "caller", "description": "Calls a saved workflow."}
phase("Call")
first = await agent("lead").ask("start")
greeting = await workflow("greet")
return [first, greeting]
'''
FIXTURE = {"rules": [{"actor": "*", "result": "ok"}]}


@pytest.fixture
def workspace(tmp_path, monkeypatch) -> Path:
    isolated_home(tmp_path, monkeypatch)
    root = tmp_path / "ws"
    root.mkdir()
    save_workflow(root, CALLED, "project")
    (root / "caller.dwf.py").write_text(CALLER)
    (root / "edited.dwf.py").write_text(CALLER.replace('"start"', '"start again"'))
    (root / "fixture.json").write_text(json.dumps(FIXTURE))
    monkeypatch.chdir(root)
    monkeypatch.delenv("DWF_SCRIPTED_CALL_LOG", raising=False)
    return root


@pytest.fixture
def compiles(monkeypatch) -> Counter:
    """Compilations so far, by the path each script was compiled under."""
    counts: Counter = Counter()
    parse = compile_module.parse

    def counting_parse(source):
        counts[source.path] += 1
        return parse(source)

    monkeypatch.setattr(compile_module, "parse", counting_parse)
    return counts


def without_cache(workspace: Path) -> None:
    shutil.rmtree(workspace / ".dwf" / "cache", ignore_errors=True)


def called_path(workspace: Path) -> str:
    return str(workspace / ".dwf" / "workflows" / "greet.dwf.py")


def dwfc(capsys, *argv: str) -> dict:
    code = cli.main([*argv, "--yes", "--agent", "scripted:fixture.json", "--progress", "json"])
    out = capsys.readouterr().out
    assert code == 0, out
    return json.loads(out)


def test_dwfc_run_amend_and_resume_compile_each_script_once(workspace, compiles, capsys):
    first = dwfc(capsys, "run", "caller.dwf.py")
    assert first["status"] == "completed"
    assert compiles == {"caller.dwf.py": 1, called_path(workspace): 1}

    compiles.clear()
    without_cache(workspace)
    amended = dwfc(capsys, "amend", first["run_id"], "edited.dwf.py")
    assert amended["status"] == "completed"
    assert compiles == {"edited.dwf.py": 1, called_path(workspace): 1}

    journal = SqliteJournal.for_workspace(workspace)  # as if it had been stopped before its end
    journal.update_run(amended["run_id"], status="stopped", stop_reason="user")
    journal.close()
    compiles.clear()
    without_cache(workspace)
    resumed = cli.main(["resume", amended["run_id"], "--agent", "scripted:fixture.json", "--progress", "json", "--yes"])
    assert resumed == 0, capsys.readouterr()
    assert compiles == {f"<run {amended['run_id']}>": 1, "<saved workflow greet>": 1}  # the pinned scripts


def test_the_run_tools_compile_each_script_once(workspace, compiles):
    async def main():
        async with ToolLayer(workspace, agent="scripted:fixture.json", approver=approve_all) as tools:
            created = await tools.call("CreateWorkflow", {"path": "caller.dwf.py"})
            assert created["ok"], created
            counts = {"create": dict(compiles)}
            await settled(tools, created["run_id"])
            compiles.clear()
            without_cache(workspace)
            amended = await tools.call("AmendWorkflow", {"run": created["run_id"], "path": "edited.dwf.py"})
            assert amended["ok"], amended
            counts["amend"] = dict(compiles)
            await settled(tools, amended["run_id"])
            return counts

    counts = anyio.run(main)
    assert counts["create"] == {str(workspace / "caller.dwf.py"): 1, called_path(workspace): 1}
    assert counts["amend"] == {str(workspace / "edited.dwf.py"): 1, called_path(workspace): 1}


async def settled(tools: ToolLayer, run_id: str) -> dict:
    with anyio.fail_after(30):
        while True:
            run = await tools.call("GetWorkflowRun", {"run": run_id})
            if run["status"] != "running":
                return run
            await anyio.sleep(0.05)
