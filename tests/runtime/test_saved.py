"""Saved workflows (TOOLS §4) through `dwf.runtime.host.saved`: saving (compile first, name from
meta, atomic exclusive write, overwrite refusal and replace), name validation including path
traversal, listing (project first, shadowing, broken files listed), finding and reading, and resolving
the saved workflows a script calls inline (`resolve_called` finds them, `engine.prepare` checks them). Real
files in temp dirs; `DWF_HOME` always points into the temp dir."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dwf.compiler.compile import compile_source
from dwf.runtime.engine import prepare
from dwf.runtime.host import saved
from dwf.runtime.host.approval import called_entries
from dwf.runtime.host.session import WorkspaceSession
from dwf.runtime.host.saved import SavedWorkflow, SavedWorkflowError, find_saved, list_saved, read_saved, save_workflow

from cli_transcripts import isolated_home

GREETER = '''meta = {
    "name": "greeter",
    "description": "Greets someone a number of times.",
    "when_to_use": "When a greeting is due.",
    "args": {"who": {"type": "string", "required": True}, "times": {"type": "integer", "default": 1}},
}
phase("Greet")
text = await agent("greeter").ask(f"Greet {args['who']} {args['times']} times")
return {"text": text, "who": args["who"], "times": args["times"]}
'''
NO_ARGS = '''meta = {"name": "plain", "description": "Takes no arguments."}
return await agent("a").ask("hello")
'''
BROKEN = '''meta = {"name": "broken", "description": "Does not compile."}
x = y
'''


def script(name: str, description: str = "A workflow.") -> str:
    return f'meta = {{"name": "{name}", "description": "{description}"}}\nreturn 1\n'


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    return isolated_home(tmp_path, monkeypatch)


@pytest.fixture
def workspace(tmp_path, home) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


def summary(workflows: list[SavedWorkflow]) -> list[tuple]:
    return [(w.name, w.scope, w.shadowed) for w in workflows]


def temporary_files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


# ---------------------------------------------------------------- folders


def test_folders_follow_the_workspace_and_dwf_home(workspace, home):
    assert saved.project_dir(workspace) == workspace / ".dwf" / "workflows"
    assert saved.dwf_home() == home
    assert saved.global_dir() == home / "workflows"


def test_dwf_home_defaults_to_dot_dwf_in_the_home_directory(tmp_path, monkeypatch):
    monkeypatch.delenv("DWF_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "someone"))
    assert saved.dwf_home() == tmp_path / "someone" / ".dwf"
    assert saved.global_dir() == tmp_path / "someone" / ".dwf" / "workflows"


# ---------------------------------------------------------------- save


def test_save_project_uses_meta_name_and_reads_meta(workspace):
    workflow = save_workflow(workspace, GREETER, "project")
    path = workspace / ".dwf" / "workflows" / "greeter.dwf.py"
    assert workflow == SavedWorkflow(
        name="greeter", scope="project", path=path, description="Greets someone a number of times.",
        when_to_use="When a greeting is due.",
        args={"who": {"type": "string", "required": True}, "times": {"type": "integer", "default": 1}},
        shadowed=False)
    assert path.read_text(encoding="utf-8") == GREETER
    assert temporary_files(path.parent) == []


def test_save_global_goes_to_dwf_home_under_the_given_name(workspace, home):
    workflow = save_workflow(workspace, GREETER, "global", "hello.v2")
    assert workflow.path == home / "workflows" / "hello.v2.dwf.py"
    assert (workflow.name, workflow.scope) == ("hello.v2", "global")
    assert workflow.path.read_text(encoding="utf-8") == GREETER
    assert not (workspace / ".dwf").exists()


def test_a_script_without_args_is_saveable_and_declares_none(workspace):
    workflow = save_workflow(workspace, NO_ARGS, "project")
    assert (workflow.name, workflow.args, workflow.when_to_use) == ("plain", {}, None)


def test_saved_file_mode_follows_the_umask(workspace):
    previous = os.umask(0o022)
    try:
        path = save_workflow(workspace, GREETER, "project").path
    finally:
        os.umask(previous)
    assert path.stat().st_mode & 0o777 == 0o644  # not the 0600 of a mkstemp file


def test_saving_the_same_content_again_is_fine(workspace):
    first = save_workflow(workspace, GREETER, "project")
    mtime = first.path.stat().st_mtime_ns
    again = save_workflow(workspace, GREETER, "project")
    assert again == first and first.path.stat().st_mtime_ns == mtime
    assert temporary_files(first.path.parent) == []


def test_different_content_is_refused_unless_replace(workspace):
    path = save_workflow(workspace, script("tool", "First."), "project").path
    with pytest.raises(SavedWorkflowError) as refused:
        save_workflow(workspace, script("tool", "Second."), "project")
    message = str(refused.value)
    assert "a project workflow named `tool` already exists" in message and str(path) in message
    assert "replace" in message
    assert "First." in path.read_text() and temporary_files(path.parent) == []
    replaced = save_workflow(workspace, script("tool", "Second."), "project", replace=True)
    assert replaced.description == "Second." and "Second." in path.read_text()
    assert temporary_files(path.parent) == []


def test_without_hard_links_an_exclusive_create_still_refuses_an_existing_file(workspace, monkeypatch):
    def no_links(source, target):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(saved.os, "link", no_links)
    path = save_workflow(workspace, script("tool", "First."), "project").path
    assert "First." in path.read_text()
    with pytest.raises(SavedWorkflowError, match="already exists"):
        save_workflow(workspace, script("tool", "Second."), "project")
    assert "First." in path.read_text() and temporary_files(path.parent) == []


def test_compile_errors_refuse_the_save_listing_positions(workspace, home):
    with pytest.raises(SavedWorkflowError) as refused:
        save_workflow(workspace, BROKEN, "project")
    assert str(refused.value) == ("the script has 1 error and was not saved; fix them and save again:\n"
                                  "  L2:C5 Undefined name `y`")
    assert not (workspace / ".dwf").exists() and not home.exists()


def test_many_compile_errors_are_capped(workspace):
    body = "".join(f"v{i} = missing{i}\n" for i in range(12))
    with pytest.raises(SavedWorkflowError) as refused:
        save_workflow(workspace, 'meta = {"name": "many", "description": "x"}\n' + body, "global")
    lines = str(refused.value).splitlines()
    assert lines[0].startswith("the script has 12 errors and was not saved")
    assert lines[1] == "  L2:C6 Undefined name `missing0`" and len(lines) == 1 + 10 + 1
    assert lines[-1] == "  ... and 2 more (`dwfc check` lists them all)"


@pytest.mark.parametrize("name", ["../x", "a/b", "..", ".", "...", "x" * 65, "", "a b", "a\\b", "name\n",
                                  "na\u00efve", "/etc/passwd"])
def test_invalid_names_are_refused_and_nothing_is_written(workspace, home, tmp_path, name):
    with pytest.raises(SavedWorkflowError, match="is not a valid saved workflow name"):
        save_workflow(workspace, GREETER, "project", name)
    with pytest.raises(SavedWorkflowError, match="is not a valid saved workflow name"):
        find_saved(workspace, name)
    written = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert written == []


@pytest.mark.parametrize("name", ["x" * 64, "a", "v1.2", "..a", "_-.", "A-Z_0.9"])
def test_valid_names_round_trip(workspace, name):
    workflow = save_workflow(workspace, GREETER, "project", name)
    assert workflow.path == saved.project_dir(workspace) / f"{name}.dwf.py"
    assert find_saved(workspace, name).path == workflow.path


def test_bad_scope_and_missing_workspace_are_refused(tmp_path, home):
    with pytest.raises(SavedWorkflowError, match='scope must be "project" or "global", not \'local\''):
        save_workflow(tmp_path, GREETER, "local")
    with pytest.raises(SavedWorkflowError, match="is not a directory"):
        save_workflow(tmp_path / "nowhere", GREETER, "project")
    assert not (tmp_path / "nowhere").exists()


@pytest.mark.parametrize("blocker", ["home", "home/workflows"])
def test_an_unwritable_folder_is_a_clear_error(workspace, tmp_path, blocker):
    (tmp_path / blocker).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / blocker).write_text("a file where a folder should be")
    with pytest.raises(SavedWorkflowError, match=r"cannot write .*greeter\.dwf\.py: .*check that the folder is writable"):
        save_workflow(workspace, GREETER, "global")


# ---------------------------------------------------------------- list


def test_list_is_project_then_global_sorted_with_shadowing(workspace):
    for name in ("beta", "alpha"):
        save_workflow(workspace, script(name, f"Project {name}."), "project")
    for name in ("gamma", "alpha"):
        save_workflow(workspace, script(name, f"Global {name}."), "global")
    workflows = list_saved(workspace)
    assert summary(workflows) == [("alpha", "project", False), ("beta", "project", False),
                                  ("alpha", "global", True), ("gamma", "global", False)]
    assert [w.description for w in workflows] == ["Project alpha.", "Project beta.", "Global alpha.", "Global gamma."]


def test_saving_a_global_one_under_a_project_name_reports_it_shadowed(workspace):
    save_workflow(workspace, GREETER, "project")
    assert save_workflow(workspace, GREETER, "global").shadowed is True
    assert save_workflow(workspace, GREETER, "global", "other").shadowed is False


def test_list_without_folders_is_empty(workspace):
    assert list_saved(workspace) == []


def test_broken_and_unreadable_files_are_listed_without_metadata(workspace, monkeypatch):
    folder = saved.project_dir(workspace)
    folder.mkdir(parents=True)
    (folder / "broken.dwf.py").write_text(BROKEN)
    (folder / "latin1.dwf.py").write_bytes(b'meta = {"name": "x", "description": "caf\xe9"}\n')
    (folder / "locked.dwf.py").write_text(GREETER)
    (folder / "fine.dwf.py").write_text(GREETER)
    (folder / "not a name.dwf.py").write_text(GREETER)  # cannot be run by name: not a saved workflow
    (folder / "folder.dwf.py").mkdir()
    (folder / ".fine.dwf.py.0123.tmp").write_text(GREETER)  # a save in progress
    (folder / "notes.txt").write_text("not a workflow")
    real_read_bytes = Path.read_bytes

    def read_bytes(path):
        if path.name == "locked.dwf.py":
            raise PermissionError(13, "Permission denied")
        return real_read_bytes(path)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    workflows = {w.name: w for w in list_saved(workspace)}
    assert sorted(workflows) == ["broken", "fine", "latin1", "locked"]
    for name in ("broken", "latin1", "locked"):
        assert (workflows[name].description, workflows[name].when_to_use, workflows[name].args) == (None, None, {})
    assert workflows["fine"].description == "Greets someone a number of times."
    assert find_saved(workspace, "broken").description is None  # found, so a run shows its diagnostics


# ---------------------------------------------------------------- find and read


def test_find_prefers_the_project_workflow(workspace):
    save_workflow(workspace, script("tool", "Global."), "global")
    assert find_saved(workspace, "tool").scope == "global"
    save_workflow(workspace, script("tool", "Project."), "project")
    found = find_saved(workspace, "tool")
    assert (found.scope, found.description, found.shadowed) == ("project", "Project.", False)


def test_unknown_name_suggests_a_close_one(workspace):
    save_workflow(workspace, GREETER, "global")
    save_workflow(workspace, NO_ARGS, "project")
    with pytest.raises(SavedWorkflowError) as unknown:
        find_saved(workspace, "greter")
    assert str(unknown.value) == ("there is no saved workflow named `greter` (did you mean `greeter`?); "
                                  "`dwfc saved` lists them")
    with pytest.raises(SavedWorkflowError) as unknown:
        find_saved(workspace, "zzz")
    assert str(unknown.value) == "there is no saved workflow named `zzz`; `dwfc saved` lists them"


def test_read_saved_returns_the_script_and_explains_a_missing_file(workspace):
    workflow = save_workflow(workspace, GREETER, "project")
    assert read_saved(workflow) == GREETER
    workflow.path.unlink()
    with pytest.raises(SavedWorkflowError, match=r"cannot read the saved workflow `greeter` at .*: No such file"):
        read_saved(workflow)


def test_to_json_is_plain_data(workspace):
    workflow = save_workflow(workspace, NO_ARGS, "project")
    assert workflow.to_json() == {"name": "plain", "scope": "project", "path": str(workflow.path),
                                  "description": "Takes no arguments.", "when_to_use": None, "args": {},
                                  "shadowed": False}


def test_a_global_folder_that_cannot_be_listed_holds_no_workflows(workspace, home):
    save_workflow(workspace, NO_ARGS, "project")
    home.mkdir(exist_ok=True)
    (home / "workflows").write_text("not a folder")  # listing it fails (as root too, unlike a chmod)
    assert summary(list_saved(workspace)) == [("plain", "project", False)]
    with pytest.raises(SavedWorkflowError, match="there is no saved workflow named `greeter`"):
        find_saved(workspace, "greeter")


# ---------------------------------------------------------------- inline calls (resolve_called)


def caller_text(*names: str, commands: tuple[str, ...] = ()) -> str:
    """A script that calls the saved workflows `names` (in that order) and runs `commands` itself."""
    lines = ['meta = {"name": "caller", "description": "Calls saved workflows."}', 'phase("Call")']
    lines += [f'await world.run("{command}", [])' for command in commands]
    lines += [f'await workflow("{name}")' for name in names]
    lines += ['return await agent("a").ask("done?")']
    return "\n".join(lines) + "\n"


def caller(*names: str, commands: tuple[str, ...] = ()) -> object:
    """The compiled program of `caller_text(*names, commands=...)`."""
    compiled = compile_source(caller_text(*names, commands=commands), "caller.dwf.py")
    assert compiled.program is not None, compiled.diagnostics
    return compiled.program


def runner(name: str, *commands: str, calls: tuple[str, ...] = ()) -> str:
    """A saved workflow script that runs `commands` and calls the saved workflows `calls`."""
    lines = [f'meta = {{"name": "{name}", "description": "Runs {", ".join(commands) or "nothing"}."}}',
             'phase("Work")']
    lines += [f'await world.run("{command}", [])' for command in commands]
    lines += [f'await workflow("{inner}")' for inner in calls]
    lines += ['return await agent("b").ask("ok?")']
    return "\n".join(lines) + "\n"


def write_project(workspace: Path, name: str, text: str) -> Path:
    """Write a project workflow file as is (`save_workflow` would refuse a broken one)."""
    path = saved.project_dir(workspace) / f"{name}.dwf.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def prepared(workspace: Path, *names: str, commands: tuple[str, ...] = ()):
    """The caller of `caller(*names, commands=...)` prepared for a run in `workspace`: its saved
    workflows found by `resolve_called`, compiled and checked by `engine.prepare`."""
    return WorkspaceSession(workspace).prepare(caller_text(*names, commands=commands), "caller.dwf.py", {})


def test_resolve_called_finds_each_name_once_in_call_order_with_its_script(workspace):
    save_workflow(workspace, runner("lint", "ruff"), "project")
    save_workflow(workspace, runner("notes"), "global")
    assert list(saved.resolve_called(caller("notes", "lint", "notes"), workspace)) == ["notes", "lint"]
    called = prepared(workspace, "notes", "lint", "notes")
    assert called.problems == []
    entries = called_entries(called.called, called.sources)
    assert [(entry["name"], entry["scope"]) for entry in entries] == [("notes", "global"), ("lint", "project")]
    assert called.workflows == {"notes": runner("notes"), "lint": runner("lint", "ruff")}
    assert entries[1] == {"name": "lint", "scope": "project", "path": str(saved.project_dir(workspace)
                          / "lint.dwf.py"), "description": "Runs ruff.", "commands": ["ruff"]}


def test_resolve_called_uses_the_project_workflow_that_shadows_a_global_one(workspace):
    save_workflow(workspace, runner("lint", "flake8"), "global")
    save_workflow(workspace, runner("lint", "ruff"), "project")
    called = prepared(workspace, "lint")
    assert called.workflows == {"lint": runner("lint", "ruff")} and called.commands == {"ruff"}


def test_resolve_called_unions_the_commands_and_approves_them_with_the_callers(workspace):
    save_workflow(workspace, runner("lint", "ruff", "git"), "project")
    save_workflow(workspace, runner("test", "pytest", "git"), "project")
    called = prepared(workspace, "lint", "test", commands=("make",))
    assert called.commands == frozenset({"make", "ruff", "git", "pytest"})
    assert [entry["commands"] for entry in called_entries(called.called, called.sources)] == [["git", "ruff"],
                                                                                             ["git", "pytest"]]


def test_resolve_called_reports_an_unknown_name_with_its_line_and_a_close_match(workspace):
    save_workflow(workspace, runner("summarize"), "project")
    called = prepared(workspace, "sumarize", "zzz")
    assert called.problems == [
        'line 3 calls workflow("sumarize"), but there is no saved workflow named `sumarize` '
        "(did you mean `summarize`?); `dwfc saved` lists them",
        'line 4 calls workflow("zzz"), but there is no saved workflow named `zzz`; `dwfc saved` lists them']
    assert called.called == {} and called.workflows == {} and called.commands == frozenset()


def test_resolve_called_reports_a_broken_called_workflow_with_the_check_command(workspace):
    path = write_project(workspace, "broken", BROKEN)
    called = prepared(workspace, "broken")
    assert called.problems == [f"the saved workflow `broken` ({path}) has 1 error; `dwfc check {path}` shows them"]


def test_resolve_called_refuses_nesting_beyond_one_level(workspace):
    save_workflow(workspace, runner("leaf"), "project")
    save_workflow(workspace, runner("middle", "echo", calls=("leaf", "other")), "project")
    called = prepared(workspace, "middle")
    assert called.problems == ["saved workflows run one level deep: `middle` calls `leaf` and `other`; "
                               "call them from this script instead"]
    save_workflow(workspace, runner("loop", calls=("loop",)), "project")  # calls itself
    assert prepared(workspace, "loop").problems == [
        "saved workflows run one level deep: `loop` calls `loop`; call it from this script instead"]


def test_resolve_called_reports_every_problem_at_once(workspace):
    write_project(workspace, "broken", BROKEN)
    save_workflow(workspace, runner("middle", calls=("leaf",)), "project")
    save_workflow(workspace, runner("fine", "echo"), "project")
    called = prepared(workspace, "nope", "broken", "middle", "fine")
    assert [problem.split(" ")[:4] for problem in called.problems] == [
        ["line", "3", "calls", 'workflow("nope"),'], ["the", "saved", "workflow", "`broken`"],
        ["saved", "workflows", "run", "one"]]
    assert called.commands == {"echo"}


def test_resolve_called_without_workflow_calls_touches_no_file(workspace, monkeypatch):
    def no_file_access(*args, **kwargs):
        raise AssertionError("a script that calls no saved workflow must not look any up")

    monkeypatch.setattr(saved, "locate_saved", no_file_access)
    monkeypatch.setattr(saved.os, "scandir", no_file_access)
    assert saved.resolve_called(caller(commands=("git",)), workspace) == {}
    called = prepared(workspace, commands=("git",))
    assert (called.called, called.workflows, called.problems, called.commands) == ({}, {}, [], {"git"})


def test_pinned_commands_are_those_of_the_stored_scripts(workspace):
    pinned = prepare(caller_text("a", "b"), "caller.dwf.py", {}, {"a": runner("a", "ruff"), "b": runner("b", "git")})
    assert pinned.problems == [] and pinned.commands == {"ruff", "git"}
    broken = prepare(caller_text("x"), "caller.dwf.py", {}, {"x": BROKEN})
    assert broken.commands == frozenset() and broken.problems  # a script that no longer compiles adds none
