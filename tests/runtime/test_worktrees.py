"""Worktree isolation and per-actor tools (#16) with real git repositories in temp dirs: actors
made with `agent(name, isolation="worktree")` edit files through the scripted port's tool calls,
each in its own worktree; `git.worktree(actor)` reads what each changed; the main tree is
untouched until the script merges; escapes out of a worktree are refused; `tools=` narrows an
actor's tools; a non-git workspace refuses the start naming the actor; and a `dwfc run` killed
with SIGKILL mid-run resumes into the same worktrees."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import anyio

from dwf.runtime.engine import Engine, StartError, StartRequest
from dwf.runtime.journal.sqlite import SqliteJournal
from dwf.runtime.ports.scripted import ScriptedAgentPort, parse_fixture
from dwf.runtime.ports.world import LocalWorld

DWFC = Path(sys.executable).parent / "dwfc"
GIT_ENV = {"PATH": os.environ.get("PATH", os.defpath), "HOME": "/nonexistent", "LC_ALL": "C",
           "GIT_CONFIG_NOSYSTEM": "1"}
CALC = "def answer():\n    return 0\n"


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, env=GIT_ENV, check=True, capture_output=True, text=True).stdout


def make_repo(root: Path, files: dict[str, str] | None = None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    for name, text in {"calc.py": CALC, ".gitignore": ".dwf/\n", **(files or {})}.items():
        (root / name).write_text(text)
    git(root, "add", ".")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init")
    return root


def edit(n: int, old: str = "return 0", new: str | None = None) -> dict:
    return {"tool": "edit_file", "input": {"path": "calc.py", "old_string": old, "new_string": new or f"return {n + 1}"}}


def run_engine(workspace: Path, script: str, fixture: dict, *, commands=frozenset(), tool_set="write",
               journal=None, events=None):
    port = ScriptedAgentPort(parse_fixture(fixture), workspace=workspace, actor_tools=tool_set)
    world = LocalWorld(workspace, allowed_commands=frozenset(commands))

    async def main():
        async with Engine() as engine:
            run = engine.start(StartRequest(script=script, agent_port=port, world=world, journal=journal,
                                            listeners=[events.append] if events is not None else []))
            return await run.result

    return anyio.run(main), port


FOUR_FIXERS = '''meta = {"name": "four", "description": "Four isolated fixers edit one file."}
phase("Fix")
fixers = [agent(f"fixer-{n}", isolation="worktree", tools=["read", "edit"]) for n in range(4)]
await parallel(f.ask(f"Make answer() return {n + 1}.") for n, f in enumerate(fixers))
before = await files.read("calc.py")
changes = [await git.worktree(f) for f in fixers]
merged = await world.run("git", ["merge", "--no-edit", changes[2].branch])
after = await files.read("calc.py")
return {"before": before, "after": after, "merged": merged.exit_code,
        "changes": [{"branch": c.branch, "files": c.changed_files, "diff": c.diff, "base": c.base, "head": c.head}
                    for c in changes]}
'''


def four_fixers_fixture() -> dict:
    return {"rules": [{"actor": f"fixer-{n}", "result": "done", "tools": [edit(n)]} for n in range(4)]}


def test_four_isolated_actors_edit_one_file_each_in_its_own_worktree(tmp_path):
    repo = make_repo(tmp_path / "repo")
    head = git(repo, "rev-parse", "HEAD").strip()
    events: list = []
    result, port = run_engine(repo, FOUR_FIXERS, four_fixers_fixture(), commands={"git"}, events=events)
    assert result.status == "completed", result.error
    value = result.value
    assert value["before"] == CALC  # the main tree is untouched until the script merges
    assert value["after"] == CALC.replace("return 0", "return 3") and value["merged"] == 0
    created = [e for e in events if e["type"] == "worktree-created"]
    assert sorted(e["actor"] for e in created) == [f"fixer-{n}" for n in range(4)]
    run_short = result.run_id.removeprefix("dwfrun-")[:12]
    for n, change in enumerate(value["changes"]):
        assert change["branch"] == f"dwf/{run_short}/fixer-{n}" and change["base"] == head
        assert change["files"] == ["calc.py"]
        assert f"+    return {n + 1}" in change["diff"]  # its own change, and only its own
        assert [line for line in change["diff"].splitlines() if line.startswith("+    return")] == [f"+    return {n + 1}"]
        assert git(repo, "show", f"{change['branch']}:calc.py") == CALC.replace("return 0", f"return {n + 1}")
    for event in created:
        assert event["path"] == f".dwf/worktrees/{result.run_id.removeprefix('dwfrun-')}/{event['actor']}"
    # the run completed: worktrees removed, branches with changes kept
    removed = [e for e in events if e["type"] == "worktree-removed"]
    assert len(removed) == 4 and all(e["kept"] for e in removed)
    assert not (repo / ".dwf" / "worktrees").exists()
    assert git(repo, "worktree", "list", "--porcelain").count("worktree ") == 1
    assert len(git(repo, "branch", "--list", f"dwf/{run_short}/*").split()) == 4
    # every edit went through the actor's tool, reported as done
    assert [c["tools"][0]["is_error"] for c in port.calls] == [False] * 4


def test_a_worktree_without_changes_is_removed_with_its_branch(tmp_path):
    repo = make_repo(tmp_path / "repo")
    (repo / ".gitignore").unlink()  # even without a .gitignore for .dwf/, the worktrees stay out of git status
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qam", "no ignore")
    script = '''meta = {"name": "idle", "description": "An isolated reader changes nothing."}
phase("Read")
reader = agent("reader", isolation="worktree", tools=["read"])
await reader.ask("Read calc.py.")
change = await git.worktree(reader)
return change.changed_files
'''
    fixture = {"rules": [{"actor": "reader", "result": "read", "tools": [
        {"tool": "read_file", "input": {"path": "calc.py"}}]}]}
    events: list = []
    result, _ = run_engine(repo, script, fixture, events=events)
    assert result.status == "completed", result.error
    assert result.value == []
    assert "/.dwf/worktrees/" in (repo / ".git" / "info" / "exclude").read_text().splitlines()
    (removed,) = [e for e in events if e["type"] == "worktree-removed"]
    assert removed["kept"] is False
    assert git(repo, "branch", "--list", "dwf/*") == ""


ESCAPES = '''meta = {"name": "escape", "description": "An isolated actor tries to leave its worktree."}
phase("Escape")
intruder = agent("intruder", isolation="worktree")
await intruder.ask("Try to leave.")
change = await git.worktree(intruder)
return change.changed_files
'''


def test_escapes_out_of_a_worktree_are_refused(tmp_path):
    # `into-main` is committed: in the worktree (.dwf/worktrees/<run>/intruder) it points at the
    # main tree's calc.py; `up` points at the main tree's folder
    repo = make_repo(tmp_path / "repo")
    os.symlink("../../../../calc.py", repo / "into-main")
    os.symlink("../../../..", repo / "up")
    git(repo, "add", "into-main", "up")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "links")
    refused = [
        {"tool": "write_file", "input": {"path": "../../../../calc.py", "content": "pwned"}, "expect": "error"},
        {"tool": "read_file", "input": {"path": "../../../../calc.py"}, "expect": "error"},
        {"tool": "write_file", "input": {"path": str(repo / "calc.py"), "content": "pwned"}, "expect": "error"},
        {"tool": "edit_file", "input": {"path": str(repo / "calc.py"), "old_string": "return 0",
                                        "new_string": "pwned"}, "expect": "error"},
        {"tool": "write_file", "input": {"path": "into-main", "content": "pwned"}, "expect": "error"},
        {"tool": "edit_file", "input": {"path": "into-main", "old_string": "return 0", "new_string": "pwned"},
         "expect": "error"},
        {"tool": "read_file", "input": {"path": "into-main"}, "expect": "error"},
        {"tool": "write_file", "input": {"path": "up/calc.py", "content": "pwned"}, "expect": "error"},
        {"tool": "write_file", "input": {"path": ".git", "content": "pwned"}, "expect": "error"},
        {"tool": "edit_file", "input": {"path": "calc.py", "old_string": "return 0", "new_string": "return 9"}},
    ]
    result, port = run_engine(repo, ESCAPES, {"rules": [{"actor": "intruder", "result": "tried", "tools": refused}]})
    assert result.status == "completed", result.error
    assert result.value == ["calc.py"]  # only the edit inside the worktree happened
    assert (repo / "calc.py").read_text() == CALC
    answers = [t["text"] for t in port.calls[0]["tools"]]
    assert "outside the workspace" in answers[0] or ".." in answers[0]
    assert all(not t["is_error"] for t in port.calls[0]["tools"][-1:])
    assert git(repo, "status", "--porcelain") == ""


def test_a_scripted_escape_that_succeeds_fails_the_ask(tmp_path):
    # the fixture's "expect" is checked: a tool call expected to be refused that succeeds fails the ask
    repo = make_repo(tmp_path / "repo")
    fixture = {"rules": [{"actor": "intruder", "result": "tried", "tools": [
        {"tool": "read_file", "input": {"path": "calc.py"}, "expect": "error"}]}]}
    result, _ = run_engine(repo, ESCAPES, fixture)
    assert result.status == "errored" and "expected to be refused" in result.error


NARROWED = '''meta = {"name": "narrow", "description": "Actors with narrowed tools."}
phase("Work")
reader = agent("reader", tools=["Read", "Grep"])
runner = agent("runner", isolation="worktree", tools=["read", "run"])
await reader.ask("Read, then try to edit.")
await runner.ask("Run the approved program, then an unapproved one.")
change = await git.worktree(runner)
return change.changed_files
'''


def test_tools_narrow_an_actor_and_its_commands_run_in_its_worktree(tmp_path):
    repo = make_repo(tmp_path / "repo", {"touch.py": "open('made-by-command.txt', 'w').write('x')\n"})
    fixture = {"rules": [
        {"actor": "reader", "result": "ok", "tools": [
            {"tool": "grep", "input": {"pattern": "answer"}},
            {"tool": "edit_file", "input": {"path": "calc.py", "old_string": "0", "new_string": "1"}, "expect": "error"},
            {"tool": "write_file", "input": {"path": "new.txt", "content": "x"}, "expect": "error"}]},
        {"actor": "runner", "result": "ok", "tools": [
            {"tool": "run_command", "input": {"argv": ["python3", "touch.py"]}},
            {"tool": "run_command", "input": {"argv": ["sh", "-c", "echo hi > x"]}, "expect": "error"},
            {"tool": "edit_file", "input": {"path": "calc.py", "old_string": "0", "new_string": "1"}, "expect": "error"}]},
    ]}
    script = NARROWED.replace('await runner.ask', 'probe = await world.run("python3", ["--version"])\nawait runner.ask')
    result, port = run_engine(repo, script, fixture, commands={"python3"}, tool_set="exec")
    assert result.status == "completed", result.error
    assert result.value == ["made-by-command.txt"]  # the command wrote into the worktree
    assert not (repo / "made-by-command.txt").exists() and not (repo / "new.txt").exists()
    reader, runner = port.calls
    assert "unknown tool `edit_file` (available: read_file, grep)" in reader["tools"][1]["text"]
    assert "is not a program this run approved" in runner["tools"][1]["text"]
    assert (repo / "calc.py").read_text() == CALC


def test_tools_never_widen_the_runs_tool_set(tmp_path):
    repo = make_repo(tmp_path / "repo")
    script = '''meta = {"name": "widen", "description": "An actor asks for more than the run allows."}
phase("Work")
await agent("editor", tools=["read", "edit", "run"]).ask("Edit.")
'''
    fixture = {"rules": [{"actor": "editor", "result": "ok", "tools": [
        {"tool": "edit_file", "input": {"path": "calc.py", "old_string": "0", "new_string": "1"}, "expect": "error"},
        {"tool": "run_command", "input": {"argv": ["python3", "--version"]}, "expect": "error"},
        {"tool": "read_file", "input": {"path": "calc.py"}}]}]}
    result, port = run_engine(repo, script, fixture, commands={"python3"}, tool_set="read")
    assert result.status == "completed", result.error
    assert "available: read_file" in port.calls[0]["tools"][0]["text"]
    assert (repo / "calc.py").read_text() == CALC


def test_a_non_git_workspace_refuses_the_start_naming_the_actor(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "calc.py").write_text(CALC)
    try:
        run_engine(plain, FOUR_FIXERS, four_fixers_fixture(), commands={"git"})
    except StartError as error:
        (problem,) = error.problems
        assert "at actor#1" in problem and "is not a git repository" in problem and "git init" in problem
    else:
        raise AssertionError("the run started in a workspace that is not a git repository")
    script = '''meta = {"name": "one", "description": "One isolated actor."}
phase("Fix")
await agent("fixer", isolation="worktree").ask("Fix it.")
'''
    (plain / "one.dwf.py").write_text(script)
    (plain / "fix.json").write_text(json.dumps({"rules": [], "default": {"result": "ok"}}))
    done = subprocess.run([str(DWFC), "run", "one.dwf.py", "--yes", "--agent", "scripted:fix.json"], cwd=plain,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert 'actor "fixer" asks for isolation="worktree"' in done.stderr and "not a git repository" in done.stderr
    assert not (plain / ".dwf" / "worktrees").exists()


def test_dwfc_show_lists_the_worktrees(tmp_path):
    repo = make_repo(tmp_path / "repo")
    (repo / "four.dwf.py").write_text(FOUR_FIXERS)
    (repo / "fix.json").write_text(json.dumps(four_fixers_fixture()))
    git(repo, "add", "four.dwf.py", "fix.json")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "script")
    done = subprocess.run([str(DWFC), "run", "four.dwf.py", "--yes", "--agent", "scripted:fix.json", "--progress",
                           "json"], cwd=repo, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
    assert done.returncode == 0, done.stderr
    run_id = json.loads(done.stdout)["run_id"]
    shown = subprocess.run([str(DWFC), "show", run_id], cwd=repo, capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0, shown.stderr
    assert "Worktrees (isolated actors):" in shown.stdout
    for n in range(4):
        assert f"fixer-{n}: dwf/{run_id.removeprefix('dwfrun-')[:12]}/fixer-{n} (branch kept: 1 changed file)" in shown.stdout
    as_json = json.loads(subprocess.run([str(DWFC), "show", run_id, "--json"], cwd=repo, capture_output=True,
                                        text=True, timeout=60).stdout)
    assert sorted(t["state"] for t in as_json["worktrees"]) == ["kept"] * 4


KILLED = '''meta = {"name": "killed", "description": "Isolated fixers, one of them slow."}
phase("Fix")
fixers = [agent(f"fixer-{n}", isolation="worktree", tools=["read", "write", "edit"]) for n in range(4)]
await parallel(f.ask(f"Fix part {n}.") for n, f in enumerate(fixers))
changes = [await git.worktree(f) for f in fixers]
return [{"branch": c.branch, "files": c.changed_files, "diff": c.diff} for c in changes]
'''


def killed_fixture(resumed: bool) -> dict:
    rules = [{"actor": f"fixer-{n}", "result": "done", "tools": [
        {"tool": "write_file", "input": {"path": "calc.py", "content": CALC.replace("return 0", f"return {n + 1}")}}]}
        for n in range(3)]
    if resumed:  # succeeds only in the worktree the killed attempt edited: the resume re-attached to it
        rules.append({"actor": "fixer-3", "result": "done", "tools": [edit(3, "return 4", "return 4  # resumed")]})
    else:
        rules.append({"actor": "fixer-3", "result": "done", "delay_s": 600, "tools": [edit(3)]})
    return {"rules": rules}


def test_a_sigkilled_run_resumes_into_the_same_worktrees(tmp_path):
    repo = make_repo(tmp_path / "repo")
    (repo / "killed.dwf.py").write_text(KILLED)
    fixture = tmp_path / "fix.json"
    fixture.write_text(json.dumps(killed_fixture(resumed=False)))
    process = subprocess.Popen([str(DWFC), "run", "killed.dwf.py", "--yes", "--agent", f"scripted:{fixture}",
                                "--progress", "json"], cwd=repo, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    journal_path = repo / ".dwf" / "state.db"
    deadline = time.monotonic() + 120
    try:
        while True:  # until fixer-3 has edited its worktree and the three others have finished
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the run never reached the slow fixer"
            slow = list((repo / ".dwf" / "worktrees").glob("*/fixer-3/calc.py"))
            if slow and "return 4" in slow[0].read_text() and journal_path.exists():
                with SqliteJournal(journal_path) as journal:
                    runs = journal.list_runs()
                    done = [n for n in journal.list_nodes(runs[0].id) if n.kind == "ask" and n.status == "completed"]
                if len(done) == 3:
                    break
            time.sleep(0.02)
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
    with SqliteJournal(journal_path) as journal:
        (row,) = journal.list_runs()
        assert row.status == "running"
        before = [e["payload"] for e in journal.events(row.id, types=("worktree-created",))]
    assert len(before) == 4
    fixture.write_text(json.dumps(killed_fixture(resumed=True)))
    call_log = tmp_path / "resume-calls.jsonl"
    done = subprocess.run([str(DWFC), "resume", row.id, "--agent", f"scripted:{fixture}", "--progress", "json"],
                          cwd=repo, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "DWF_SCRIPTED_CALL_LOG": str(call_log)})
    assert done.returncode == 0, (done.stdout, done.stderr)
    value = json.loads(done.stdout)["value"]
    # only the killed ask ran again, in the worktree it had edited
    assert [json.loads(line)["actor"] for line in call_log.read_text().splitlines()] == ["fixer-3"]
    with SqliteJournal(journal_path) as journal:
        after = [e["payload"] for e in journal.events(row.id, types=("worktree-created",))]
        removed = [e["payload"] for e in journal.events(row.id, types=("worktree-removed",))]
    assert after == before  # re-attached: no worktree was made twice
    assert len(removed) == 4 and all(e["kept"] for e in removed)
    for n, change in enumerate(value):
        assert change["files"] == ["calc.py"]
        expected = f"return {n + 1}" + ("  # resumed" if n == 3 else "")
        assert git(repo, "show", f"{change['branch']}:calc.py") == CALC.replace("return 0", expected)
    assert (repo / "calc.py").read_text() == CALC  # the script merged nothing
    assert not (repo / ".dwf" / "worktrees").exists()


def test_the_command_port_runs_an_isolated_actor_in_its_worktree(tmp_path):
    from dwf.runtime.ports.command import CommandAgentPort

    repo = make_repo(tmp_path / "repo")
    wrapper = tmp_path / "agent.py"
    wrapper.write_text("import json, os, sys\nrequest = json.load(sys.stdin)\n"
                       "open('from-the-agent.txt', 'w').write(request['workdir'] or 'none')\n"
                       "print(json.dumps({'text': os.getcwd() + ' ' + json.dumps(request['tools'])}))\n")
    script = '''meta = {"name": "cmd", "description": "A command-port actor in a worktree."}
phase("Work")
worker = agent("worker", isolation="worktree", tools=["Read", "Edit"])
said = await worker.ask("Work.")
change = await git.worktree(worker)
return {"said": said, "files": change.changed_files}
'''
    port = CommandAgentPort([sys.executable, str(wrapper)], workspace=repo)

    async def main():
        async with Engine() as engine:
            run = engine.start(StartRequest(script=script, agent_port=port, world=LocalWorld(repo)))
            return await run.result

    result = anyio.run(main)
    assert result.status == "completed", result.error
    cwd, tools = result.value["said"].split(" ", 1)
    assert Path(cwd).resolve().parent.parent == (repo / ".dwf" / "worktrees").resolve()
    assert json.loads(tools) == ["read_file", "edit_file"]
    assert result.value["files"] == ["from-the-agent.txt"] and not (repo / "from-the-agent.txt").exists()


def test_an_amend_runs_an_isolated_actors_asks_again_in_a_new_worktree(tmp_path):
    from dwf.runtime.host.amend import amend

    repo = make_repo(tmp_path / "repo")
    journal = SqliteJournal(repo / ".dwf" / "state.db")
    first, _ = run_engine(repo, FOUR_FIXERS, four_fixers_fixture(), commands={"git"}, journal=journal)
    assert first.status == "completed", first.error
    git(repo, "reset", "-q", "--hard", "HEAD@{1}")  # undo the script's merge: the amend starts from the same HEAD
    edited = FOUR_FIXERS.replace('"description": "Four isolated fixers edit one file."',
                                 '"description": "Four isolated fixers edit one file (amended)."')
    port = ScriptedAgentPort(parse_fixture(four_fixers_fixture()), workspace=repo)

    async def main():
        async with Engine() as engine:
            run = await amend(engine, first.run_id, edited, journal=journal, agent_port=port,
                              world=LocalWorld(repo, allowed_commands=frozenset({"git"})))
            return await run.result

    second = anyio.run(main)
    journal.close()
    assert second.status == "completed", second.error
    assert sorted(c["actor"] for c in port.calls) == [f"fixer-{n}" for n in range(4)]  # none imported
    for n, change in enumerate(second.value["changes"]):
        assert change["files"] == ["calc.py"] and f"+    return {n + 1}" in change["diff"]
        assert change["branch"].startswith(f"dwf/{second.run_id.removeprefix('dwfrun-')[:12]}/")


def test_a_called_workflows_isolated_actor_needs_git_too(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    child = '''meta = {"name": "child", "description": "An isolated actor in a saved workflow."}
phase("Child")
await agent("inner", isolation="worktree").ask("Fix.")
'''
    parent = '''meta = {"name": "parent", "description": "Calls a saved workflow."}
phase("Call")
await workflow("child", {})
'''
    port = ScriptedAgentPort(parse_fixture({"rules": [], "default": {"result": "ok"}}), workspace=plain)

    async def main():
        async with Engine() as engine:
            engine.start(StartRequest(script=parent, agent_port=port, world=LocalWorld(plain),
                                      workflows={"child": child}))

    try:
        anyio.run(main)
    except StartError as error:
        assert any('actor "inner"' in problem and "not a git repository" in problem for problem in error.problems)
    else:
        raise AssertionError("the run started although a called workflow isolates an actor outside git")


def test_the_run_approval_screen_resolves_each_actors_tools_against_the_runs_set(tmp_path):
    repo = make_repo(tmp_path / "repo")
    script = '''meta = {"name": "screen", "description": "Actors on the run's approval screen."}
phase("Work")
editor = agent("editor")
fixer = agent("fixer", isolation="worktree", tools=["read", "edit", "run"])
await parallel([editor.ask("Edit."), fixer.ask("Fix.")])
await world.run("pytest", ["-q"])
'''
    (repo / "screen.dwf.py").write_text(script)
    (repo / "fix.json").write_text(json.dumps({"rules": [], "default": {"result": "ok"}}))

    def screen(*options: str) -> str:
        done = subprocess.run([str(DWFC), "run", "screen.dwf.py", "--agent", "scripted:fix.json", *options], cwd=repo,
                              capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)
        assert done.returncode == 2 and "cannot ask for approval" in done.stderr  # not approved: nothing ran
        return " ".join(done.stderr.split())

    read = screen("--actor-tools", "read")
    assert "Actor tools: read: read_file, list_files, grep" in read
    assert "editor · 1 instance · untyped · default model tools: read_file, list_files, grep · cannot write files" in read
    assert "fixer · 1 instance · untyped · default model tools: read_file · cannot write files · isolated" in read
    executing = screen("--actor-tools", "exec")
    assert "tools: read_file, edit_file, run_command · can write files · isolated in its own git worktree " \
           "programs: pytest" in executing
    assert "can write files · no isolation programs: pytest" in executing  # the editor gets the whole exec set
    assert not (repo / ".dwf" / "worktrees").exists()
