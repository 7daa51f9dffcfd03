"""The escape corpus of approved programs (issue #19, point 3): every way an attacker made an
approved program start `sh` or leave the workspace is a test here that now fails to escape,
against real programs (git, python3, find, make, tar, sed, awk, xargs, env, pytest) started
inside the real bubblewrap sandbox. Each escape tries to create `outside/pwned`, next to the
workspace; a refusal must name the option, and the marker must never appear. Then what the
sandbox itself guarantees when code does run: only the workspace writable, no network, a
private /tmp, a read-only `.dwf/`, no process outliving its command.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dwf.compiler.compile import compile_source
from dwf.compiler.plan.document import build_plan
from dwf.runtime.ports.actor_tools import ActorTools
from dwf.runtime.ports.sandbox import Sandbox, probe
from dwf.runtime.ports.world import LocalWorld
from dwf.runtime.values.errors import ScriptError

PY = sys.executable
PYTEST = str(Path(sys.executable).with_name("pytest"))
ALL = ("git", "python3", "env", "find", "make", "tar", "sed", "awk", "xargs", "npm", "ssh", "pytest", PY, PYTEST)
GIT_ENV = {"PATH": os.defpath, "HOME": "/nonexistent", "GIT_CONFIG_NOSYSTEM": "1"}


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def place(tmp_path):
    """(workspace, the marker an escape would create): a git repository with one commit."""
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "ws"
    root.mkdir()
    for args in (["init", "-q", "-b", "main"], ["config", "user.name", "t"], ["config", "user.email", "t@t"]):
        subprocess.run(["git", *args], cwd=root, env=GIT_ENV, check=True)
    (root / "f.txt").write_text("x\n")
    subprocess.run(["git", "add", "f.txt"], cwd=root, env=GIT_ENV, check=True)
    subprocess.run(["git", "commit", "-qm", "one"], cwd=root, env=GIT_ENV, check=True)
    return root, outside / "pwned"


def world(root: Path, **options) -> LocalWorld:
    return LocalWorld(root, allowed_commands=frozenset(ALL), **options)


async def refused(awaitable, *names: str) -> str:
    with pytest.raises(ScriptError) as caught:
        await awaitable
    error = caught.value
    assert error.type_name == "WorldError", error.summary()
    assert "refused" in error.message or "cannot start" in error.message, error.message
    for name in names:
        assert name in error.message, error.message
    return error.message


def test_bubblewrap_starts_here():
    assert probe("bwrap")[0] is not None, probe("bwrap")[1]  # ./dwf test installs Debian's bubblewrap


# ---------------------------------------------------------------- computed arguments


@pytest.mark.anyio
async def test_git_options_that_run_code_or_leave_the_workspace_are_refused(place):
    root, pwned = place
    w = world(root)
    touch = f"!touch {pwned}"
    await refused(w.run("git", ["-c", f"alias.x={touch}", "x"]), "`-c`")
    await refused(w.run("git", ["-calias.x=!sh", "x"]), "`-c`")
    await refused(w.run("git", ["--config-env=alias.x=EVIL", "x"]), "--config-env")
    await refused(w.run("git", ["-c", f"core.fsmonitor=touch {pwned}", "status"]), "`-c`")
    await refused(w.run("git", ["-c", f"diff.external=touch {pwned}", "diff"]), "`-c`")
    await refused(w.run("git", ["ls-remote", f"--upload-pack=touch {pwned}", "."]), "--upload-pack")
    await refused(w.run("git", ["fetch", "--upload-pack", f"touch {pwned}", "."]), "--upload-pack")
    await refused(w.run("git", ["--git-dir=../other/.git", "log"]), "outside the workspace")
    await refused(w.run("git", ["--git-dir=.git", "log"]), "--git-dir")
    await refused(w.run("git", ["--work-tree=sub", "status"]), "--work-tree")
    await refused(w.run("git", ["-C", "/etc", "status"]), "/etc")
    await refused(w.run("git", ["diff", "--no-index", "/etc/passwd", "f.txt"]), "--no-index")
    await refused(w.run("git", ["diff", "HEAD", "--", "/etc/passwd"]), "/etc/passwd")
    await refused(w.run("git", ["diff", "--no-index", "f.txt", "g.txt"]), "--no-index")
    await refused(w.run("git", ["diff", "--ext-diff"]), "--ext-diff")
    await refused(w.run("git", ["rebase", "-x", f"touch {pwned}", "HEAD"]), "`-x`")
    await refused(w.run("git", ["config", "core.fsmonitor", f"touch {pwned}"]), "git config")
    await refused(w.run("git", ["filter-branch", "--tree-filter", "sh"]), "filter-branch")
    assert not pwned.exists()
    assert (await w.run("git", ["config", "--get", "user.name"])).get("stdout") == "t\n"  # a read is fine
    assert (await w.run("git", ["log", "-c", "--oneline"])).get("exit_code") == 0  # `log -c` is a diff format


@pytest.mark.anyio
async def test_a_planted_fsmonitor_or_hook_does_not_run(place):
    root, pwned = place
    # Configuration a command could not have written (`.git/config` is read-only in the sandbox),
    # but that the repository might carry: git still runs no fsmonitor and no hook.
    subprocess.run(["git", "config", "core.fsmonitor", f"touch {pwned}"], cwd=root, env=GIT_ENV, check=True)
    hook = root / ".git" / "hooks" / "pre-commit"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text(f"#!/bin/sh\ntouch {pwned}\n")
    hook.chmod(0o755)
    w = world(root)
    (root / "f.txt").write_text("y\n")
    assert (await w.run("git", ["status", "--short"])).get("stdout") == " M f.txt\n"
    assert (await w.run("git", ["commit", "-qam", "two"])).get("exit_code") == 0
    assert not pwned.exists()
    assert (await w.run("git", ["config", "--get", "core.fsmonitor"])).get("stdout") == "false\n"  # DWF's wins
    await refused(w.run("git", ["config", "--file", ".git/config", "alias.x", "!sh"]), "git config")


@pytest.mark.anyio
async def test_interpreters_and_wrappers_cannot_start_sh(place):
    root, pwned = place
    w = world(root)
    await refused(w.run("python3", ["-c", f"open('{pwned}', 'w')"]), "`-c`")
    await refused(w.run("python3", ["-Ic", "import os"]), "`-c`")
    await refused(w.run("python3", ["-m", "pytest", "-p", "evil"]), "`-p`")
    await refused(w.run("env", ["sh", "-c", f"touch {pwned}"]), "`sh`", "not an approved program")
    await refused(w.run("env", ["A=1", "python3", "-c", "1"]), "`-c`")
    await refused(w.run("env", ["-S", "sh -c true"]), "`-S`")
    await refused(w.run("xargs", ["sh", "-c", f"touch {pwned}"]), "`sh`", "not an approved program")
    await refused(w.run("xargs", ["-a", "f.txt", "python3"]), "`-a`")
    await refused(w.run("npm", ["exec", "--", "sh"]), "npm exec")
    await refused(w.run("npm", ["x", "cowsay"]), "npm x")
    await refused(w.run("npm", ["test", "--script-shell=sh"]), "--script-shell")
    await refused(w.run("ssh", ["-o", f"ProxyCommand=touch {pwned}", "host"]), "`-o`")
    await refused(w.run("ssh", [f"-oProxyCommand=touch {pwned}", "host"]), "`-o`")
    await refused(w.run("pytest", ["-p", "evil_plugin"]), "`-p`")
    await refused(w.run("pytest", ["--rootdir", "/tmp"]), "outside the workspace")
    assert not pwned.exists()


@pytest.mark.anyio
async def test_find_make_tar_sed_awk_cannot_start_sh(place):
    root, pwned = place
    w = world(root)
    await refused(w.run("find", [".", "-exec", "touch", str(pwned), ";"]), "-exec")
    await refused(w.run("find", [".", "-execdir", "sh", "-c", "true", ";"]), "-execdir")
    await refused(w.run("find", ["/", "-name", "x"]), "outside the workspace")
    await refused(w.run("make", [f"--eval=x:;touch {pwned}", "x"]), "--eval")
    await refused(w.run("make", ["SHELL=/bin/sh"]), "make variable")
    await refused(w.run("make", [f"X=$(shell touch {pwned})"]), "make variable")
    await refused(w.run("tar", ["-cf", "a.tar", "--checkpoint=1", f"--checkpoint-action=exec=touch {pwned}", "f.txt"]),
                  "--checkpoint-action")
    await refused(w.run("tar", ["-cf", "a.tar", f"--to-command=touch {pwned}", "f.txt"]), "--to-command")
    await refused(w.run("tar", ["-cIf", "sh", "a.tar", "f.txt"]), "`-I`")
    await refused(w.run("awk", [f'BEGIN {{ system("touch {pwned}") }}']), "system(")
    await refused(w.run("awk", [f'BEGIN {{ print "x" | "touch {pwned}" }}']), "starts commands")
    await refused(w.run("awk", [f'BEGIN {{ "touch {pwned}" | getline x }}']), "starts commands")
    # sed runs in GNU sed's --sandbox mode: the `e` command and the `e` flag are rejected by sed.
    for script in (f"e touch {pwned}", f"s|x|touch {pwned}|e", f"w {pwned}"):
        done = await w.run("sed", [script, "f.txt"])
        assert done.get("exit_code") != 0 and "sandbox mode" in done.get("stderr")
    assert (await w.run("sed", ["s/x/y/", "f.txt"])).get("stdout") == "y\n"
    assert (await w.run("awk", ["{ print NR, $0 }", "f.txt"])).get("stdout") == "1 x\n"
    assert not pwned.exists()


@pytest.mark.anyio
async def test_what_the_approval_showed_is_trusted(place):
    root, _ = place
    w = world(root, approved_arguments={"python3": [("-c", "print('literal')")], "find": [(".", "-name")]})
    assert (await w.run("python3", ["-c", "print('literal')"])).get("stdout") == "literal\n"
    await refused(w.run("python3", ["-c", "print('computed')"]), "`-c`")
    assert (await w.run("find", [".", "-name", "f.txt"])).get("stdout") == "./f.txt\n"
    await refused(w.run("find", [".", "-name", "f.txt", "-exec", "sh", ";"]), "-exec")


@pytest.mark.anyio
async def test_programs_come_from_the_system_path_never_the_workspace(place, monkeypatch):
    root, pwned = place
    fake = root / "git"
    fake.write_text(f"#!/bin/sh\ntouch {pwned}\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", ":" + os.environ.get("PATH", ""))  # an empty entry: the current directory
    monkeypatch.chdir(root)
    w = LocalWorld(root, allowed_commands=frozenset({"git", "./git", str(fake)}), env={"PATH": ":"})
    assert (await w.run("git", ["rev-parse", "--is-inside-work-tree"])).get("stdout") == "true\n"
    await refused(w.run("./git", []), "relative path")
    await refused(w.run(str(fake), []), "inside the workspace")
    assert (await w.status()).get("branch") == "main"  # the git.* reads too
    assert not pwned.exists()


# ---------------------------------------------------------------- the sandbox itself


PROBE = """
import socket, sys, pathlib, os
outside, port = OUTSIDE, int(sys.argv[1])
results = {}
for name, path in (("outside", outside), ("home", HOME + "/dwf-sandbox-probe"), ("dwf", ".dwf/state.db"),
                   ("git", ".git/config"), ("tmp", "/tmp/dwf-sandbox-probe")):
    try:
        pathlib.Path(path).write_text("x")
        results[name] = "written"
    except OSError as error:
        results[name] = type(error).__name__
try:
    socket.create_connection(("127.0.0.1", port), timeout=2).close()
    results["network"] = "connected"
except OSError as error:
    results["network"] = type(error).__name__
pathlib.Path("inside.txt").write_text("ok")
results["pid"] = os.getpid()
print(results)
"""


@pytest.fixture
def listener():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    yield server.getsockname()[1]
    server.close()


@pytest.mark.anyio
async def test_only_the_workspace_is_writable_and_there_is_no_network(place, listener):
    root, pwned = place
    (root / ".dwf").mkdir()
    (root / ".dwf" / "state.db").write_text("journal")
    (root / "probe.py").write_text(PROBE.replace("OUTSIDE", repr(str(pwned))).replace("HOME", repr(str(Path.home()))))
    args = ["probe.py", str(listener)]
    done = await world(root).run(PY, args)
    results = eval(done.get("stdout"))  # the probe prints a dict of names and strings
    assert results["outside"] != "written" and not pwned.exists()  # in the host's /tmp: hidden by the private one
    assert results["home"] == "OSError" and not Path("~/dwf-sandbox-probe").expanduser().exists()  # read-only
    assert results["dwf"] == "OSError" and (root / ".dwf" / "state.db").read_text() == "journal"
    assert results["git"] == "OSError" and "[core]" in (root / ".git" / "config").read_text()
    assert results["tmp"] == "written" and not Path("/tmp/dwf-sandbox-probe").exists()  # a private /tmp
    assert results["network"] != "connected"  # its own network namespace: the host's port is unreachable
    assert results["pid"] < 10  # its own PID namespace
    assert (root / "inside.txt").read_text() == "ok"
    networked = await world(root, sandbox=Sandbox(network=True)).run(PY, args)
    assert eval(networked.get("stdout"))["network"] == "connected"  # the plan allowed it


LATE_WRITER = """
import subprocess, sys
subprocess.Popen([sys.executable, "-c", "import time, pathlib; time.sleep(1); pathlib.Path('late.txt').write_text('x')"],
                 start_new_session=True)
print("started")
"""


@pytest.mark.anyio
async def test_no_process_outlives_its_command_not_even_after_setsid(place):
    root, _ = place
    (root / "late.py").write_text(LATE_WRITER)
    done = await world(root).run(PY, ["late.py"])
    assert done.get("stdout") == "started\n"
    time.sleep(2.5)
    assert not (root / "late.txt").exists()


@pytest.mark.anyio
async def test_conftest_code_runs_but_cannot_leave_the_workspace(place):
    root, pwned = place
    (root / "conftest.py").write_text(f"import pathlib, subprocess\npathlib.Path('ran.txt').write_text('yes')\n"
                                      f"subprocess.run(['sh', '-c', 'touch {pwned}'])\n")
    (root / "test_x.py").write_text("def test_ok():\n    pass\n")
    done = await world(root).run(PYTEST, ["-q"])
    assert done.get("exit_code") == 0, done.get("stdout") + done.get("stderr")
    assert (root / "ran.txt").read_text() == "yes" and not pwned.exists()


@pytest.mark.anyio
async def test_without_the_sandbox_commands_refuse_unless_approved(place):
    root, _ = place
    missing = Sandbox(bubblewrap="/nonexistent/bwrap")
    message = await refused(world(root, sandbox=missing).run("git", ["status"]), "sandbox is unavailable")
    assert "DWF_UNSANDBOXED=1" in message and "apt-get install bubblewrap" in message
    assert "every command will be refused" in missing.status()
    approved = Sandbox(bubblewrap="/nonexistent/bwrap", allow_unsandboxed=True)
    assert (await world(root, sandbox=approved).run("git", ["status", "--short"])).get("exit_code") == 0
    assert "UNSANDBOXED" in approved.status()


@pytest.mark.anyio
async def test_an_actor_starts_only_the_approved_programs(place):
    root, pwned = place
    tools = ActorTools(root, "exec", run_timeout_s=10)
    shell = await tools.call("run_command", {"argv": ["sh", "-c", f"touch {pwned}"]}, None,
                             programs=frozenset({"pytest"}))
    assert shell.is_error and "`sh` is not a program this run approved" in shell.text and "`pytest`" in shell.text
    env = await tools.call("run_command", {"argv": ["pytest", "-p", "evil"]}, None, programs=frozenset({"pytest"}))
    assert env.is_error and "`-p`" in env.text
    assert not pwned.exists()


def test_the_approval_screen_shows_leading_arguments_and_marks_code():
    source = ('meta = {"name": "demo", "description": "Runs things."}\n'
              'base = await agent("a").ask("which base?")\n'
              'd = await world.run("git", ["diff", "--stat", base])\n'
              'p = await world.run("python3", ["-c", "print(1)"])\n'
              'f = await world.run("find", [".", "-exec", "true", ";"])\n'
              'return [d.exit_code, p.exit_code, f.exit_code]\n')
    plan = build_plan(compile_source(source, "demo.dwf.py"))
    assert plan["programs"] == [
        {"name": "find", "uses": ["find . -exec true ;"], "runs": "runs arbitrary code (`-exec`)"},
        {"name": "git", "uses": ["git diff --stat …"], "runs": None},
        {"name": "python3", "uses": ["python3 -c print(1)"], "runs": "runs arbitrary code (`-c`)"}]
    assert plan["network"] is False


@pytest.mark.anyio
async def test_an_installation_under_tmp_stays_visible_inside_the_sandbox(tmp_path, monkeypatch):
    # The sandbox's /tmp is an empty tmpfs; a checkout in /tmp runs its .venv's programs, which
    # import from the installation's lib/, not from bin/ alone.
    assert str(tmp_path).startswith("/tmp/")
    installation = tmp_path / "install"
    (installation / "bin").mkdir(parents=True)
    (installation / "lib").mkdir()
    (installation / "lib" / "data.txt").write_text("from lib\n")
    tool = installation / "bin" / "tool"
    tool.write_text(f"#!/bin/sh\ncat {installation / 'lib' / 'data.txt'}\n")
    tool.chmod(0o755)
    monkeypatch.setenv("DWF_COMMAND_PATH", str(installation / "bin"))
    root = tmp_path / "ws"
    root.mkdir()
    w = LocalWorld(root, allowed_commands=frozenset({"tool", str(tool)}))
    by_name = await w.run("tool", [])
    by_path = await w.run(str(tool), [])
    assert (by_name.get("exit_code"), by_name.get("stdout")) == (0, "from lib\n"), by_name.get("stderr")
    assert (by_path.get("exit_code"), by_path.get("stdout")) == (0, "from lib\n"), by_path.get("stderr")
