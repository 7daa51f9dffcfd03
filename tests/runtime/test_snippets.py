"""Snippet evaluation (`runtime.host.snippets`, `dwfc eval`; TOOLS §1 and §3 `EvalWorkflowSnippet`):
real temp workspaces, a real git repository and real subprocess commands. A snippet needs no
meta block, refuses effects that need a run before anything runs (with a diagnostic on the
snippet's own line), and never writes `.dwf/`."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from dwf.compiler.rules.effects import EffectInSnippet
from dwf.runtime.cli.main import main
from dwf.runtime.interpreter.limits import Limits
from dwf.runtime.host.snippets import SnippetResult, check_snippet, eval_snippet

EFFECT_IN_SNIPPET = EffectInSnippet.code

DWFC = Path(sys.executable).parent / "dwfc"
ROOT = Path(__file__).resolve().parents[2]
GIT_ENV = {"PATH": os.environ.get("PATH", os.defpath), "HOME": "/nonexistent", "LC_ALL": "C",
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_DATE": "2024-01-02T03:04:05+00:00",
           "GIT_COMMITTER_DATE": "2024-01-02T03:04:05+00:00"}

COUNT_LINES = '''\
paths = await files.glob("src/**/*.py")
log(f"found {len(paths)} files")
sizes = {p: len((await files.read(p)).splitlines()) for p in paths}
return {"files": paths, "lines": sum(sizes.values()), "longest": max(sizes, key=lambda p: sizes[p])}
'''
MAKES_A_FILE = '''\
done = await world.run("touch", ["made-by-snippet.txt"])
return done.exit_code
'''
ASKS_AFTER_A_COMMAND = '''\
await world.run("touch", ["ran.txt"])
helper = agent("helper")
return await helper.ask("Summarize ran.txt")
'''


def write(root: Path, relpath: str, text: str) -> Path:
    path = root / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, env=GIT_ENV, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    write(root, "src/app.py", "import util\n\nprint(util.VALUE)\n")
    write(root, "src/util.py", "VALUE = 1\n")
    write(root, "src/deep/more.py", "a = 1\nb = 2\nc = 3\nd = 4\n")
    write(root, "README.md", "# demo\n")
    return root


@pytest.fixture
def repo(workspace: Path) -> Path:
    """The workspace as a git repository: one commit, then a modified and an untracked file."""
    git(workspace, "init", "-q", "-b", "main")
    git(workspace, "config", "user.name", "Test User")
    git(workspace, "config", "user.email", "test@example.com")
    git(workspace, "config", "commit.gpgsign", "false")
    git(workspace, "add", ".")
    git(workspace, "commit", "-q", "-m", "Initial commit")
    write(workspace, "src/util.py", "VALUE = 2\n")
    write(workspace, "notes.txt", "untracked\n")
    return workspace


def evaluate(source: str, workspace: Path, **options) -> SnippetResult:
    return anyio.run(lambda: eval_snippet(source, workspace, **options))


def codes_and_lines(result) -> list[tuple[int, str]]:
    return [(d["line"], d["code"]) for d in result.diagnostics]


# ---------------------------------------------------------------- values


def test_the_one_line_snippet_needs_no_meta(workspace):
    result = evaluate('return len(await files.glob("**/*.py"))', workspace)
    assert result.to_json() == {"status": "completed", "value": 3, "error": None, "diagnostics": [], "logs": [],
                                "commands_run": [], "traceback": None}


def test_read_and_compute_snippet_returns_its_exact_value_and_logs(workspace):
    seen: list[str] = []
    result = evaluate(COUNT_LINES, workspace, on_log=seen.append)
    assert result.status == "completed", result.error
    assert result.value == {"files": ["src/app.py", "src/deep/more.py", "src/util.py"], "lines": 8,
                            "longest": "src/deep/more.py"}
    assert result.logs == seen == ["found 3 files"]


def test_git_reads_in_a_real_repository(repo):
    source = '''\
status = await git.status()
commits = await git.log()
return {"changed": await git.changed_files(), "branch": status.branch, "clean": status.clean,
        "untracked": status.untracked, "subjects": [c.subject for c in commits],
        "diff_mentions_value": "+VALUE = 2" in await git.diff(path="src/util.py")}
'''
    result = evaluate(source, repo)
    assert result.status == "completed", result.traceback
    assert result.value == {"changed": ["notes.txt", "src/util.py"], "branch": "main", "clean": False,
                            "untracked": ["notes.txt"], "subjects": ["Initial commit"], "diff_mentions_value": True}
    assert not (repo / ".dwf").exists()


def test_the_example_snippets_give_their_values(repo):
    examples = ROOT / "examples" / "snippets"
    longest = evaluate((examples / "longest-python-files.py").read_text(), repo)
    assert longest.status == "completed", longest.traceback
    assert longest.value == [{"path": "src/app.py", "lines": 3}, {"path": "src/util.py", "lines": 1}]
    assert longest.logs == ["2 Python files"]  # src/deep/more.py is below the two levels it lists
    branch_source = (examples / "branch-summary.py").read_text()
    assert check_snippet(branch_source).commands == ["git"]
    branch = evaluate(branch_source, repo)
    assert branch.status == "completed", branch.traceback
    assert branch.value == {"branch": "main", "clean": False, "commits": 1, "latest": ["Initial commit"]}


def test_world_run_of_a_literal_command_returns_its_output(workspace):
    source = 'listing = await world.run("ls", ["-1", "src"])\nreturn listing\n'
    assert check_snippet(source).commands == ["ls"]
    result = evaluate(source, workspace)
    assert result.value == {"exit_code": 0, "stdout": "app.py\ndeep\nutil.py\n", "stderr": ""}
    assert result.commands_run == ["ls -1 src"]


def test_world_run_really_runs_in_the_workspace(workspace):
    result = evaluate(MAKES_A_FILE, workspace)
    assert (result.status, result.value) == ("completed", 0)
    assert (workspace / "made-by-snippet.txt").is_file()
    assert result.commands_run == ["touch made-by-snippet.txt"]


def test_command_lines_are_shell_quoted_in_dispatch_order(workspace):
    source = 'a = await world.run("echo", ["two words"])\nb = await world.run("ls", ["README.md"])\n' \
             'return [a.stdout, b.stdout, b.exit_code]\n'
    result = evaluate(source, workspace)
    assert result.value == ["two words\n", "README.md\n", 0]
    assert result.commands_run == ["echo 'two words'", "ls README.md"]


def test_a_snippet_with_its_own_meta_block_runs_too(workspace):
    source = 'meta = {"name": "mine", "description": "Counts."}\nreturn 6 * 7\n'
    assert evaluate(source, workspace).value == 42


# ---------------------------------------------------------------- refusals (nothing runs)


def test_a_refused_ask_runs_nothing_not_even_the_command_before_it(workspace):
    check = check_snippet(ASKS_AFTER_A_COMMAND)
    assert not check.ok and check.commands == []
    result = evaluate(ASKS_AFTER_A_COMMAND, workspace)
    assert result.status == "rejected"
    assert result.error == "the snippet has 2 errors and was not run"
    assert codes_and_lines(result) == [(2, EFFECT_IN_SNIPPET), (3, EFFECT_IN_SNIPPET)]
    assert [d["message"] for d in result.diagnostics] == [
        "`agent()` cannot be used in a snippet: a snippet has no agents",
        "`.ask()` cannot be used in a snippet: a snippet has no agents to ask"]
    assert not (workspace / "ran.txt").exists()
    assert result.commands_run == [] and result.value is None


@pytest.mark.parametrize("source, line, call", [
    ('x = 1\nreport({"x": x})\n', 2, "`report()`"),
    ('text = "# hi"\nref = await artifact.markdown("notes", text)\n', 2, "`artifact.markdown()`"),
    ('artifact.table("rows", {"columns": ["a"]})\n', 1, "`artifact.table()`"),
    ('phase("Count")\nr = await world.run("ls", [])\n', 1, "`phase()`"),
    ('x = 1\ny = await workflow("other")\n', 2, "`workflow()`"),
    ('paths = ["a", "b"]\nanswers = await parallel(\n    agent().ask(f"Read {p}") for p in paths\n)\n', 3,
     "`.ask()`"),
])
def test_effects_that_need_a_run_are_refused_on_their_line(workspace, source, line, call):
    result = evaluate(source, workspace)
    assert result.status == "rejected"
    refusals = [d for d in result.diagnostics if d["code"] == EFFECT_IN_SNIPPET]
    assert any(d["line"] == line and d["message"].startswith(call) and d["severity"] == "error" for d in refusals), \
        result.diagnostics
    assert not (workspace / ".dwf").exists()


def test_hole_is_refused_by_the_compiler(workspace):
    result = evaluate('x = await hole("gap", returns=str)\nreturn x\n', workspace)
    assert result.status == "rejected" and codes_and_lines(result) == [(1, "DWF325")]


def test_compile_errors_point_at_the_snippets_own_lines_and_never_ask_for_meta(workspace):
    result = evaluate('x = 1\ny = 2\nprint(x + y)\n', workspace)
    assert result.status == "rejected"
    assert [d["line"] for d in result.diagnostics] == [3]
    assert all(d["code"] != "DWF501" for d in result.diagnostics)
    syntax = check_snippet("total = (1 +\n")
    assert not syntax.ok and [(d["line"], d["code"]) for d in syntax.diagnostics] == [(1, "DWF001")]


# ---------------------------------------------------------------- errors and limits


def test_a_runtime_error_is_errored_with_the_message_and_a_traceback_on_the_snippets_line(workspace):
    result = evaluate('counts = {"a": 1}\nreturn counts["b"]\n', workspace)
    assert result.status == "errored"
    assert result.error == "KeyError: 'b'"
    assert "line 2" in result.traceback and 'return counts["b"]' in result.traceback


def test_a_world_error_is_errored_with_the_message(workspace):
    result = evaluate('return await files.read("missing.txt")\n', workspace)
    assert result.status == "errored"
    assert result.error.startswith("WorldError: files.read") and "missing.txt" in result.error


def test_limits_apply(workspace):
    result = evaluate("n = 0\nwhile True:\n    n += 1\n", workspace, limits=Limits(steps=2_000))
    assert result.status == "errored" and "step limit" in result.error


def test_timeout_stops_a_slow_snippet(workspace):
    result = evaluate('r = await world.run("sleep", ["30"])\nreturn r.exit_code\n', workspace, timeout_s=0.3)
    assert result.status == "errored"
    assert result.error == "the snippet did not finish within 0.3 seconds and was stopped"
    assert result.commands_run == ["sleep 30"]


def test_timeout_stops_a_snippet_that_never_awaits(workspace):
    """A loop without `await` keeps the event loop busy, so the deadline there cannot fire; the
    timer thread stops the script at its next step (issue #19). Without it the loop would run to
    the step limit (a LimitExceeded error; the limit is raised here so that the generated loop,
    about 20 million steps a second, cannot reach it first)."""
    result = evaluate("n = 0\nwhile True:\n    n += 1\n", workspace, timeout_s=0.3, limits=Limits(steps=10**12))
    assert result.status == "errored"
    assert result.error == "the snippet did not finish within 0.3 seconds and was stopped"


def test_timeout_stops_a_snippet_inside_a_long_builtin(workspace):
    """Three-argument `pow` on 8,000-bit ints is charged bit by bit: the stop lands between two
    multiplications, long before the call could finish (or reach the step limit)."""
    result = evaluate("b = 2 ** 7999 + 12345\nx = pow(b - 3, b, 2 ** 7999 + 7)\nreturn 1\n", workspace, timeout_s=0.3)
    assert result.status == "errored"
    assert result.error == "the snippet did not finish within 0.3 seconds and was stopped"


def test_a_missing_workspace_is_rejected(tmp_path):
    result = evaluate("return 1\n", tmp_path / "nope")
    assert result.status == "rejected" and "is not a directory" in result.error


# ---------------------------------------------------------------- check_snippet


def test_check_snippet_lists_every_literal_command_sorted():
    source = '''\
def build(target):
    return world.run("make", [target])

if len(await files.glob("*.md")) > 0:
    await world.run("ls", ["-la"])
r = await build("all")
v = await world.run("git", ["--version"])
return [r.exit_code, v.stdout]
'''
    check = check_snippet(source)
    assert check.ok and check.diagnostics == []
    assert check.commands == ["git", "ls", "make"]


def test_check_snippet_of_a_pure_snippet():
    check = check_snippet("return sorted([3, 1, 2])\n")
    assert (check.ok, check.commands, check.diagnostics) == (True, [], [])


# ---------------------------------------------------------------- nothing persisted


def test_nothing_is_written_under_dwf(repo):
    for source in (COUNT_LINES, MAKES_A_FILE, 'return (await git.status()).branch\n', 'return 1 / 0\n',
                   ASKS_AFTER_A_COMMAND):
        evaluate(source, repo)
    assert not (repo / ".dwf").exists()


# ---------------------------------------------------------------- dwfc eval


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def dwfc_eval(monkeypatch, capsys, workspace):
    """`dwfc eval ...` in this process with the workspace as the current directory and a
    standard input that is not a terminal (unless a test puts a FakeTerminal there)."""
    monkeypatch.chdir(workspace)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))

    def call(*argv: str) -> subprocess.CompletedProcess:
        try:
            code = main(["eval", *argv])
        except SystemExit as exit:  # argparse errors
            code = exit.code
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(argv, code, out, err)

    return call


def test_cli_text_prints_the_value_on_stdout_and_logs_on_stderr(dwfc_eval, workspace):
    write(workspace, "count.dwf.py", COUNT_LINES)
    done = dwfc_eval("count.dwf.py")
    assert done.returncode == 0
    assert json.loads(done.stdout) == {"files": ["src/app.py", "src/deep/more.py", "src/util.py"], "lines": 8,
                                       "longest": "src/deep/more.py"}
    assert done.stderr == "log: found 3 files\n"  # no commands: nothing to approve, no prompt


def test_cli_json_is_one_result_object(dwfc_eval, workspace):
    write(workspace, "count.dwf.py", COUNT_LINES)
    done = dwfc_eval("count.dwf.py", "--format", "json")
    assert done.returncode == 0 and done.stderr == ""
    assert json.loads(done.stdout) == {
        "status": "completed", "value": {"files": ["src/app.py", "src/deep/more.py", "src/util.py"], "lines": 8,
                                         "longest": "src/deep/more.py"},
        "error": None, "diagnostics": [], "logs": ["found 3 files"], "commands_run": [], "traceback": None}


def test_cli_rejected_snippet_exits_1_with_diagnostics_and_runs_nothing(dwfc_eval, workspace):
    write(workspace, "asks.dwf.py", ASKS_AFTER_A_COMMAND)
    done = dwfc_eval("asks.dwf.py", "--yes")
    assert done.returncode == 1 and done.stdout == ""
    assert f"error[{EFFECT_IN_SNIPPET}]: `agent()` cannot be used in a snippet" in done.stderr
    assert "--> asks.dwf.py:2:10" in done.stderr and "--> asks.dwf.py:3:14" in done.stderr
    assert "Found 2 errors and 0 warnings in 1 file." in done.stderr
    assert done.stderr.endswith("dwfc: error: the snippet has 2 errors and was not run\n")
    assert not (workspace / "ran.txt").exists()

    as_json = dwfc_eval("asks.dwf.py", "--format", "json")
    assert as_json.returncode == 1
    result = json.loads(as_json.stdout)
    assert result["status"] == "rejected" and [d["line"] for d in result["diagnostics"]] == [2, 3]


def test_cli_errored_snippet_exits_1_with_the_traceback(dwfc_eval, workspace):
    write(workspace, "fails.dwf.py", 'x = 0\nreturn 10 // x\n')
    done = dwfc_eval("fails.dwf.py")
    assert done.returncode == 1 and done.stdout == ""
    assert "line 2" in done.stderr
    assert done.stderr.rstrip().endswith("ZeroDivisionError: integer division or modulo by zero")
    as_json = json.loads(dwfc_eval("fails.dwf.py", "--format", "json").stdout)
    assert as_json["status"] == "errored" and as_json["error"].startswith("ZeroDivisionError")


def test_cli_refuses_commands_without_a_terminal_and_without_yes(dwfc_eval, workspace):
    write(workspace, "touch.dwf.py", MAKES_A_FILE)
    done = dwfc_eval("touch.dwf.py")
    assert done.returncode == 2 and done.stdout == ""
    assert "This snippet may run these commands" in done.stderr and "\n  touch\n" in done.stderr
    assert "standard input is not a terminal" in done.stderr and "--yes" in done.stderr
    assert not (workspace / "made-by-snippet.txt").exists()


def test_cli_yes_runs_the_commands(dwfc_eval, workspace):
    write(workspace, "touch.dwf.py", MAKES_A_FILE)
    done = dwfc_eval("touch.dwf.py", "--yes", "--format", "json")
    assert done.returncode == 0
    result = json.loads(done.stdout)
    assert (result["status"], result["value"]) == ("completed", 0)
    assert result["commands_run"] == ["touch made-by-snippet.txt"]
    assert (workspace / "made-by-snippet.txt").is_file()
    assert not (workspace / ".dwf").exists()


@pytest.mark.parametrize("answer, code", [("y\n", 0), ("yes\n", 0), ("n\n", 2), ("\n", 2)])
def test_cli_asks_on_a_terminal(dwfc_eval, workspace, monkeypatch, answer, code):
    write(workspace, "touch.dwf.py", MAKES_A_FILE)
    monkeypatch.setattr(sys, "stdin", FakeTerminal(answer))
    done = dwfc_eval("touch.dwf.py")
    assert done.returncode == code
    assert "\n  touch\nRun these commands? [y/N] " in done.stderr
    assert (workspace / "made-by-snippet.txt").exists() == (code == 0)
    if code == 0:
        assert done.stdout == "0\n"
    else:
        assert done.stdout == "" and "not approved; nothing ran" in done.stderr


def test_cli_usage_errors_exit_2(dwfc_eval, workspace):
    missing = dwfc_eval("missing.dwf.py")
    assert missing.returncode == 2
    assert missing.stderr == "dwfc: error: cannot read missing.dwf.py: No such file or directory\n"
    write(workspace, "ok.dwf.py", "return 1\n")
    no_dir = dwfc_eval("ok.dwf.py", "--workspace", "nope")
    assert no_dir.returncode == 2 and "the workspace nope is not a directory" in no_dir.stderr
    bad_format = dwfc_eval("ok.dwf.py", "--format", "yaml")
    assert bad_format.returncode == 2 and "invalid choice: 'yaml'" in bad_format.stderr
    (workspace / "latin1.dwf.py").write_bytes(b"return '\xe9'\n")
    latin1 = dwfc_eval("latin1.dwf.py")
    assert latin1.returncode == 2 and "is not UTF-8 text" in latin1.stderr


def test_cli_workspace_option_reads_another_directory(dwfc_eval, workspace, tmp_path):
    other = tmp_path / "other"
    write(other, "one.py", "")
    write(workspace, "count.dwf.py", 'return await files.glob("**/*.py")\n')
    done = dwfc_eval("count.dwf.py", "--workspace", str(other))
    assert done.returncode == 0 and json.loads(done.stdout) == ["one.py"]


def test_dwfc_eval_as_a_real_process(workspace):
    write(workspace, "touch.dwf.py", MAKES_A_FILE)
    refused = subprocess.run([str(DWFC), "eval", "touch.dwf.py"], cwd=workspace, stdin=subprocess.DEVNULL,
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and "pass --yes" in refused.stderr
    assert not (workspace / "made-by-snippet.txt").exists()
    done = subprocess.run([str(DWFC), "eval", "touch.dwf.py", "--yes"], cwd=workspace, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout) == (0, "0\n"), done.stderr
    assert (workspace / "made-by-snippet.txt").is_file() and not (workspace / ".dwf").exists()
