"""Saved workflows from the command line (TOOLS §1, §4): `dwfc save`, `dwfc saved [--json]` and
`dwfc run --saved NAME`, with snapshotted transcripts (argv, exit code, stdout, stderr; the temp
dir shown as `<tmp>`). `DWF_HOME` always points into the temp dir, never the real home."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli_transcripts import in_process_dwfc, isolated_home, transcript

DWFC = Path(sys.executable).parent / "dwfc"

DESCRIPTION = "Greets someone a number of times, then says how it went in a very long description."
GREETER = '''meta = {
    "name": "greeter",
    "description": "%s",
    "when_to_use": "When a greeting is due.",
    "args": {"who": {"type": "string", "required": True}, "times": {"type": "integer", "default": 1},
             "loud": {"type": "boolean"}},
}
phase("Greet")
text = await agent("greeter").ask(f"Greet {args['who']} {args['times']} times")
return {"text": text, "who": args["who"], "times": args["times"], "scope": "global"}
''' % DESCRIPTION
FIXTURE = {"rules": [{"actor": "greeter", "instructions": "^Greet Ada 2 times$", "result": "Hello, Ada!"}]}
PLAIN = '''meta = {"name": "plain", "description": "Takes no arguments."}
return "project"
'''
BROKEN = '''meta = {"name": "broken", "description": "Does not compile."}
x = y
'''


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    return isolated_home(tmp_path, monkeypatch)


@pytest.fixture
def workspace(tmp_path, home) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "greeter.dwf.py").write_text(GREETER)
    (root / "plain.dwf.py").write_text(PLAIN)
    (root / "broken.dwf.py").write_text(BROKEN)
    (root / "greeter.fixture.json").write_text(json.dumps(FIXTURE))
    return root


@pytest.fixture
def dwfc(monkeypatch, capsys, workspace, tmp_path):
    return in_process_dwfc(monkeypatch, capsys, workspace, tmp_path)


# ---------------------------------------------------------------- save


def test_save_project_and_global(dwfc, workspace, home, snapshot):
    project = transcript(dwfc, "save", "plain.dwf.py", "--scope", "project")
    assert project["exit"] == 0 and project["stdout"] == ""
    assert (workspace / ".dwf" / "workflows" / "plain.dwf.py").read_text() == PLAIN
    global_ = transcript(dwfc, "save", "greeter.dwf.py", "--scope", "global", "--name", "hello")
    assert global_["exit"] == 0
    assert (home / "workflows" / "hello.dwf.py").read_text() == GREETER
    assert [project, global_] == snapshot


def test_save_notes_shadowing_either_way(dwfc):
    assert dwfc("save", "plain.dwf.py", "--scope", "global")[0] == 0
    code, _, err = dwfc("save", "plain.dwf.py", "--scope", "project")
    assert code == 0 and "(it shadows the global workflow of the same name)" in err
    code, _, err = dwfc("save", "plain.dwf.py", "--scope", "global")
    assert code == 0 and "(this workspace's project workflow of the same name shadows it)" in err


def test_save_with_compile_errors_prints_diagnostics_and_exits_1(dwfc, workspace, home, snapshot):
    result = transcript(dwfc, "save", "broken.dwf.py", "--scope", "project")
    assert result["exit"] == 1
    assert "broken.dwf.py:2:5: DWF206 Undefined name `y`" in result["stderr"]
    assert not (workspace / ".dwf").exists() and not home.exists()
    assert result == snapshot


@pytest.mark.parametrize("argv", [
    ["save", "greeter.dwf.py", "--scope", "project", "--name", "../x"],
    ["save", "greeter.dwf.py", "--scope", "global", "--name", ".."],
    ["save", "greeter.dwf.py", "--scope", "project", "--name", "x" * 65],
    ["save", "missing.dwf.py", "--scope", "project"],
    ["save", "greeter.dwf.py", "--scope", "local"],
    ["save", "greeter.dwf.py"],
    ["save", "greeter.dwf.py", "--scope", "project", "--workspace", "nowhere"],
], ids=["traversal", "dots", "too-long", "missing-file", "bad-scope", "no-scope", "bad-workspace"])
def test_save_usage_errors_exit_2_and_write_nothing(dwfc, workspace, tmp_path, argv, snapshot):
    result = transcript(dwfc, *argv)
    assert result["exit"] == 2 and result["stdout"] == "" and "Traceback" not in result["stderr"]
    assert not (workspace / ".dwf").exists() and not (tmp_path / "home").exists() and not (tmp_path / "x.dwf.py").exists()
    assert result == snapshot


def test_save_refuses_a_different_file_unless_replace(dwfc, workspace, snapshot):
    (workspace / "other.dwf.py").write_text(PLAIN.replace('"project"', '"changed"'))
    assert dwfc("save", "plain.dwf.py", "--scope", "project")[0] == 0
    assert dwfc("save", "plain.dwf.py", "--scope", "project")[0] == 0  # the same content again is fine
    refused = transcript(dwfc, "save", "other.dwf.py", "--scope", "project")
    saved_file = workspace / ".dwf" / "workflows" / "plain.dwf.py"
    assert refused["exit"] == 2 and saved_file.read_text() == PLAIN
    assert refused == snapshot
    assert dwfc("save", "other.dwf.py", "--scope", "project", "--replace")[0] == 0
    assert '"changed"' in saved_file.read_text()


# ---------------------------------------------------------------- saved


def fill(dwfc, workspace: Path) -> None:
    assert dwfc("save", "greeter.dwf.py", "--scope", "global")[0] == 0
    assert dwfc("save", "plain.dwf.py", "--scope", "global")[0] == 0
    assert dwfc("save", "plain.dwf.py", "--scope", "project")[0] == 0
    (workspace / ".dwf" / "workflows" / "broken.dwf.py").write_text(BROKEN)  # edited by hand since


def test_saved_table(dwfc, workspace, snapshot):
    fill(dwfc, workspace)
    result = transcript(dwfc, "saved")
    assert result["exit"] == 0
    assert result["stderr"] == ("dwfc: the project workflow `broken` cannot be read or does not compile; "
                                "`dwfc check <tmp>/ws/.dwf/workflows/broken.dwf.py` says why\n")
    rows = result["stdout"].splitlines()
    assert rows[0].split() == ["NAME", "SCOPE", "DESCRIPTION", "ARGS"]
    assert [row.split()[:2] for row in rows[1:]] == [["broken", "project"], ["plain", "project"],
                                                      ["greeter", "global"], ["plain", "global"]]
    assert "global (shadowed)" in rows[4] and "shadowed" not in rows[3]
    assert rows[1].split()[2:] == ["(broken)", "-"]
    assert rows[3].endswith('who: string (required), times: integer = 1, loud: boolean')
    assert "Greets someone a number of times, then says how it went in …" in rows[3]
    assert result == snapshot


def test_saved_json(dwfc, workspace, tmp_path):
    fill(dwfc, workspace)
    code, out, err = dwfc("saved", "--json", "--workspace", str(workspace))
    assert code == 0 and err == ""
    data = json.loads(out)
    assert [(w["name"], w["scope"], w["shadowed"], w["description"]) for w in data] == [
        ("broken", "project", False, None), ("plain", "project", False, "Takes no arguments."),
        ("greeter", "global", False, DESCRIPTION),
        ("plain", "global", True, "Takes no arguments.")]
    assert data[2] == {"name": "greeter", "scope": "global", "path": "<tmp>/home/workflows/greeter.dwf.py",
                       "description": DESCRIPTION, "when_to_use": "When a greeting is due.",
                       "args": {"who": {"type": "string", "required": True},
                                "times": {"type": "integer", "default": 1}, "loud": {"type": "boolean"}},
                       "shadowed": False}


def test_saved_with_nothing_saved(dwfc):
    assert dwfc("saved") == (0, "", "no saved workflows; save one with `dwfc save FILE --scope project|global`\n")
    assert dwfc("saved", "--json") == (0, "[]\n", "")


# ---------------------------------------------------------------- run --saved


def test_run_saved_bad_args_are_all_reported_before_the_plan(dwfc, workspace, snapshot):
    assert dwfc("save", "greeter.dwf.py", "--scope", "global")[0] == 0
    result = transcript(dwfc, "run", "--saved", "greeter", "--agent", "scripted:greeter.fixture.json",
                        "--args", '{"whom": "Ada", "times": "two"}')
    assert result["exit"] == 2 and result["stdout"] == ""
    for problem in ("unknown argument `whom` (did you mean `who`?)", "argument `times` must be of type integer",
                    "missing required argument `who` (string)"):
        assert problem in result["stderr"]
    assert "Plan:" not in result["stderr"] and not (workspace / ".dwf").exists()  # nothing was shown or ran
    assert result == snapshot


def test_run_saved_project_shadows_global(dwfc, workspace):
    (workspace / "global-plain.dwf.py").write_text(PLAIN.replace('"project"', '"global"'))
    assert dwfc("save", "global-plain.dwf.py", "--scope", "global")[0] == 0
    argv = ("run", "--saved", "plain", "--yes", "--agent", "scripted:greeter.fixture.json", "--progress", "json")
    code, out, _ = dwfc(*argv)
    assert code == 0 and json.loads(out)["value"] == "global"
    assert dwfc("save", "plain.dwf.py", "--scope", "project")[0] == 0
    code, out, _ = dwfc(*argv)
    assert code == 0 and json.loads(out)["value"] == "project"
    code, _, err = dwfc(*argv[:-2], "--args", '{"x": 1}')  # a workflow without args takes none
    assert code == 2 and "unknown argument `x`: this workflow declares no arguments" in err


def test_run_saved_with_compile_errors_prints_them_and_exits_1(dwfc, workspace):
    assert dwfc("save", "plain.dwf.py", "--scope", "project", "--name", "broken")[0] == 0
    (workspace / ".dwf" / "workflows" / "broken.dwf.py").write_text(BROKEN)  # edited by hand since
    code, out, err = dwfc("run", "--saved", "broken", "--yes", "--agent", "scripted:greeter.fixture.json")
    assert code == 1 and out == ""
    assert "--> <tmp>/ws/.dwf/workflows/broken.dwf.py:2:5" in err and "was not run" in err


@pytest.mark.parametrize("argv", [
    ["run", "--agent", "scripted:greeter.fixture.json"],
    ["run", "plain.dwf.py", "--saved", "plain", "--agent", "scripted:greeter.fixture.json"],
    ["run", "--saved", "greter", "--agent", "scripted:greeter.fixture.json"],
    ["run", "--saved", "../greeter", "--agent", "scripted:greeter.fixture.json"],
], ids=["neither", "both", "unknown", "traversal"])
def test_run_needs_exactly_one_known_script(dwfc, argv, snapshot):
    assert dwfc("save", "greeter.dwf.py", "--scope", "project")[0] == 0
    result = transcript(dwfc, *argv)
    assert result["exit"] == 2 and result["stdout"] == "" and "Traceback" not in result["stderr"]
    assert result == snapshot


def test_run_saved_end_to_end_leaves_the_definition_unchanged(workspace, tmp_path):
    """Real processes: save globally, then run it by name from another workspace."""
    env = {k: v for k, v in os.environ.items() if k != "DWF_SCRIPTED_CALL_LOG"}
    env["DWF_HOME"] = str(tmp_path / "home")

    def dwfc(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
        return subprocess.run([str(DWFC), *argv], cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=60)

    done = dwfc("save", "greeter.dwf.py", "--scope", "global", cwd=workspace)
    assert done.returncode == 0, done.stderr
    definition = tmp_path / "home" / "workflows" / "greeter.dwf.py"
    before = (definition.read_bytes(), definition.stat().st_mtime_ns)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = dwfc("run", "--saved", "greeter", "--yes", "--agent", f"scripted:{workspace / 'greeter.fixture.json'}",
                "--progress", "json", "--args", '{"who": "Ada", "times": 2}', cwd=elsewhere)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "completed"
    assert result["value"] == {"text": "Hello, Ada!", "who": "Ada", "times": 2, "scope": "global"}
    assert (definition.read_bytes(), definition.stat().st_mtime_ns) == before
    assert sorted(p.name for p in definition.parent.iterdir()) == ["greeter.dwf.py"]
    assert (elsewhere / ".dwf" / "state.db").is_file()  # the run is journaled in the workspace it ran in
