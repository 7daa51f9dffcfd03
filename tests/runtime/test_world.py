"""LocalWorld against real directories, real git repositories and real processes: every read op,
every cap (data one item over it), confinement, the sanitized environment, timeouts, output caps,
approval, cancellation, and the time-bounded grep."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

from dwf.runtime.ports import world as world_module
from dwf.runtime.values.errors import FatalError, ScriptError
from dwf.runtime.values.records import Record
from dwf.runtime.ports.sandbox import Sandbox
from dwf.runtime.ports.world import (DIFF_LIMIT, GLOB_LIMIT, GREP_BYTES_LIMIT, GREP_MATCH_LIMIT, LOG_LIMIT,
                               READ_LIMIT, RUN_OUTPUT_LIMIT, LocalWorld, sanitized_environment)

PY = sys.executable
# Where bubblewrap cannot start and the person approved running unsandboxed: the process-group
# guarantees still hold, and the tests can see the host's pids.
UNSANDBOXED = Sandbox(bubblewrap="/nonexistent/bwrap", allow_unsandboxed=True)


@pytest.fixture
def anyio_backend():
    return "asyncio"


def world_of(root: Path, *commands: str, **options) -> LocalWorld:
    """A world whose approval shows `PY -c …` (these tests run their probes as Python code)."""
    return LocalWorld(root, allowed_commands=frozenset(commands), approved_arguments={PY: [("-c",)]}, **options)


async def raises(type_name: str, awaitable, match: str = "") -> ScriptError:
    with pytest.raises(ScriptError) as caught:
        await awaitable
    assert caught.value.type_name == type_name, caught.value.summary()
    assert match in caught.value.message, caught.value.message
    return caught.value


def write(root: Path, relpath: str, content: str | bytes = "") -> Path:
    path = root / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


GIT_ENV = {"PATH": os.environ.get("PATH", os.defpath), "HOME": "/nonexistent", "LC_ALL": "C",
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_DATE": "2024-01-02T03:04:05+00:00",
           "GIT_COMMITTER_DATE": "2024-01-02T03:04:05+00:00"}


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, env=GIT_ENV, check=True, capture_output=True,
                          text=True).stdout


def init_repo(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Test User")
    git(root, "config", "user.email", "test@example.com")
    git(root, "config", "commit.gpgsign", "false")
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with two commits, then: a modified file, a staged new file, a staged
    modification and an untracked file; plus a `.dwf/` state dir."""
    root = init_repo(tmp_path / "repo")
    write(root, "README.md", "# demo\n")
    write(root, "src/app.py", "print('app')\n")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "Initial commit")
    write(root, "src/util.py", "def util():\n    return 1\n")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "Add util")
    write(root, "README.md", "# demo\nmore\n")  # unstaged
    write(root, "src/new.py", "x = 1\n")
    git(root, "add", "src/new.py")  # staged (added)
    write(root, "src/util.py", "def util():\n    return 2\n")
    git(root, "add", "src/util.py")  # staged (modified)
    write(root, "notes.txt", "todo\n")  # untracked
    write(root, ".dwf/state.db", "state")
    return root


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def wait_gone(pids: list[int], within: float = 5.0) -> None:
    deadline = time.monotonic() + within
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not any(alive(pid) for pid in pids), [pid for pid in pids if alive(pid)]


# A child that starts a grandchild in its process group, records both pids, then sleeps.
SPAWNER = ("import os, subprocess, sys, time\n"
           "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
           "open('pids.tmp', 'w').write(f'{os.getpid()} {child.pid}')\n"
           "os.replace('pids.tmp', 'pids')\n"
           "time.sleep(60)\n")


async def read_pids(root: Path) -> list[int]:
    with anyio.fail_after(10):
        while not (root / "pids").exists():
            await anyio.sleep(0.02)
    return [int(p) for p in (root / "pids").read_text().split()]


# ---------------------------------------------------------------------------------------------
# files.glob


@pytest.mark.anyio
async def test_glob_returns_sorted_workspace_relative_files(tmp_path):
    for path in ("b.py", "a.txt", "src/z.py", "src/pkg/a.py", "src/pkg/deep/b.py", ".hidden.py", "docs/x.md"):
        write(tmp_path, path)
    (tmp_path / "emptydir").mkdir()
    world = world_of(tmp_path)
    assert await world.glob("*.py") == [".hidden.py", "b.py"]
    assert await world.glob("**/*.py") == [".hidden.py", "b.py", "src/pkg/a.py", "src/pkg/deep/b.py", "src/z.py"]
    assert await world.glob("src/**/*.py") == ["src/pkg/a.py", "src/pkg/deep/b.py", "src/z.py"]
    assert await world.glob("src/**") == ["src/pkg/a.py", "src/pkg/deep/b.py", "src/z.py"]
    assert await world.glob("src/*") == ["src/z.py"]
    assert await world.glob("./src//pkg/?.py") == ["src/pkg/a.py"]
    assert await world.glob("[ab].*") == ["a.txt", "b.py"]
    assert await world.glob("[!a].*") == ["b.py"]
    assert await world.glob("**") == sorted(await world.glob("**"))
    assert "emptydir" not in await world.glob("*")
    assert await world.glob("nothing/*") == []


@pytest.mark.anyio
async def test_glob_never_lists_git_or_dwf_contents(repo):
    listed = await world_of(repo).glob("**")
    assert listed == ["README.md", "notes.txt", "src/app.py", "src/new.py", "src/util.py"]
    await raises("WorldError", world_of(repo).glob(".git/**"), ".git/")
    await raises("WorldError", world_of(repo).glob(".dwf/*"), ".dwf/")


@pytest.mark.anyio
async def test_glob_cap_is_an_error_never_a_truncation(tmp_path):
    for i in range(GLOB_LIMIT):
        (tmp_path / f"f{i:05}.txt").touch()
    world = world_of(tmp_path)
    assert len(await world.glob("*.txt")) == GLOB_LIMIT
    (tmp_path / "one-more.txt").touch()
    await raises("WorldError", world.glob("*.txt"), "more than 2000")
    assert await world.glob("f00001.*") == ["f00001.txt"]


@pytest.mark.anyio
async def test_glob_refuses_patterns_outside_the_workspace(tmp_path):
    world = world_of(tmp_path)
    await raises("WorldError", world.glob("../*"), "..")
    await raises("WorldError", world.glob("a/../../*"), "..")
    await raises("WorldError", world.glob("/etc/*"), "absolute")
    await raises("WorldError", world.glob(""), "empty")
    await raises("TypeError", world.glob(3), "must be str")


@pytest.mark.anyio
async def test_glob_skips_symlinks_leading_outside(tmp_path):
    outside = tmp_path / "outside"
    write(outside, "secret.txt", "secret\n")
    root = tmp_path / "ws"
    write(root, "real.txt", "real\n")
    (root / "inner-link.txt").symlink_to(root / "real.txt")
    (root / "escape.txt").symlink_to(outside / "secret.txt")
    (root / "escape-dir").symlink_to(outside, target_is_directory=True)
    (root / "dangling.txt").symlink_to(root / "missing.txt")
    assert await world_of(root).glob("**") == ["inner-link.txt", "real.txt"]
    assert await world_of(root).glob("escape-dir/*") == []


# ---------------------------------------------------------------------------------------------
# files.read


@pytest.mark.anyio
async def test_read_returns_utf8_text_up_to_the_cap(tmp_path):
    write(tmp_path, "notes/é.txt", "héllo\r\nwörld\n")
    write(tmp_path, "full.txt", b"x" * READ_LIMIT)
    world = world_of(tmp_path)
    assert await world.read_file("notes/é.txt") == "héllo\r\nwörld\n"
    assert await world.read_file("./notes//é.txt") == "héllo\r\nwörld\n"
    assert len(await world.read_file("full.txt")) == READ_LIMIT
    write(tmp_path, "big.txt", b"x" * (READ_LIMIT + 1))
    await raises("WorldError", world.read_file("big.txt"), "1 MiB")


@pytest.mark.anyio
async def test_read_errors(tmp_path):
    write(tmp_path, "bin.dat", b"\xff\xfe\x00abc")
    (tmp_path / "dir").mkdir()
    os.mkfifo(tmp_path / "pipe")
    world = world_of(tmp_path)
    await raises("WorldError", world.read_file("bin.dat"), "not UTF-8")
    await raises("WorldError", world.read_file("missing.txt"), "no such file")
    await raises("WorldError", world.read_file("dir"), "is a directory")
    await raises("WorldError", world.read_file("pipe"), "not a regular file")
    await raises("WorldError", world.read_file(""), "empty")
    await raises("TypeError", world.read_file(None), "must be str")


@pytest.mark.anyio
async def test_read_is_confined_to_the_workspace(tmp_path):
    write(tmp_path, "outside.txt", "secret\n")
    root = tmp_path / "ws"
    write(root, "sub/ok.txt", "ok\n")
    (root / "link.txt").symlink_to(tmp_path / "outside.txt")
    (root / "linkdir").symlink_to(tmp_path, target_is_directory=True)
    (root / "inner.txt").symlink_to(root / "sub" / "ok.txt")
    write(root, ".git/config", "[core]\n")
    world = world_of(root)
    assert await world.read_file("inner.txt") == "ok\n"
    await raises("WorldError", world.read_file("../outside.txt"), "..")
    await raises("WorldError", world.read_file("sub/../../outside.txt"), "..")
    await raises("WorldError", world.read_file(str(tmp_path / "outside.txt")), "absolute")
    await raises("WorldError", world.read_file("link.txt"), "outside the workspace")
    await raises("WorldError", world.read_file("linkdir/outside.txt"), "outside the workspace")
    await raises("WorldError", world.read_file(".git/config"), ".git/")
    await raises("WorldError", world.read_file("a\0b"), "NUL")


# ---------------------------------------------------------------------------------------------
# files.grep


@pytest.mark.anyio
async def test_grep_matches_lines_of_text_files_sorted_by_path_and_line(tmp_path):
    write(tmp_path, "b.py", "import os\nx = 1\nimport sys\n")
    write(tmp_path, "a.py", "# TODO one\r\nok\r\n# TODO two\r\n")
    write(tmp_path, "docs/readme.md", "TODO in docs\n")
    write(tmp_path, "image.png", b"\x89PNG\x00\x00TODO binary")
    write(tmp_path, "latin1.txt", "TODO caf\xe9\n".encode("latin-1"))
    write(tmp_path, ".dwf/state.txt", "TODO internal\n")
    world = world_of(tmp_path)
    matches = await world.grep("TODO")
    assert [(m.get("path"), m.get("line"), m.get("text")) for m in matches] == [
        ("a.py", 1, "# TODO one"), ("a.py", 3, "# TODO two"), ("docs/readme.md", 1, "TODO in docs")]
    assert all(isinstance(m, Record) and m.type_name == "GrepMatch" for m in matches)
    assert [(m.get("path"), m.get("line")) for m in await world.grep(r"^import \w+$", "*.py")] == [
        ("b.py", 1), ("b.py", 3)]
    assert await world.grep("TODO", "**/*.md") == [Record("GrepMatch", path="docs/readme.md", line=1,
                                                          text="TODO in docs")]
    assert await world.grep("two$") == [Record("GrepMatch", path="a.py", line=3, text="# TODO two")]
    assert await world.grep("absent") == []


@pytest.mark.anyio
async def test_grep_errors(tmp_path):
    world = world_of(tmp_path)
    await raises("ValueError", world.grep("(unclosed"), "invalid regular expression")
    await raises("TypeError", world.grep(1), "must be str")
    await raises("TypeError", world.grep("x", 2), "str or None")
    await raises("WorldError", world.grep("x", "../*"), "..")


@pytest.mark.anyio
async def test_grep_match_cap(tmp_path):
    write(tmp_path, "many.txt", "hit\n" * GREP_MATCH_LIMIT)
    world = world_of(tmp_path)
    assert len(await world.grep("hit")) == GREP_MATCH_LIMIT
    write(tmp_path, "one-more.txt", "hit\n")
    await raises("WorldError", world.grep("hit"), "more than 2000 matches")


@pytest.mark.anyio
async def test_grep_size_cap(tmp_path):
    # Each match counts len(path) + len(text) bytes: 4 + 1020 = 1 KiB per line.
    write(tmp_path, "a.md", ("x" * 1020 + "\n") * (GREP_BYTES_LIMIT // 1024))
    world = world_of(tmp_path)
    assert len(await world.grep("x")) == 256
    write(tmp_path, "b.md", "x\n")
    await raises("WorldError", world.grep("x"), "256 KiB")


@pytest.mark.anyio
async def test_grep_binary_file_over_the_cap_is_skipped_not_an_error(tmp_path):
    # Lines of valid text first, then an invalid byte: the whole file is binary and skipped.
    write(tmp_path, "data.bin", b"hit\n" * (GREP_MATCH_LIMIT + 5) + b"\xff\n")
    write(tmp_path, "text.txt", "hit\n")
    assert await world_of(tmp_path).grep("hit") == [Record("GrepMatch", path="text.txt", line=1, text="hit")]


@pytest.mark.anyio
async def test_grep_does_not_follow_symlinks_outside(tmp_path):
    write(tmp_path, "outside/secret.txt", "password = hunter2\n")
    root = tmp_path / "ws"
    write(root, "config.txt", "password = ok\n")
    (root / "leak.txt").symlink_to(tmp_path / "outside" / "secret.txt")
    (root / "leakdir").symlink_to(tmp_path / "outside", target_is_directory=True)
    assert [m.get("path") for m in await world_of(root).grep("password")] == ["config.txt"]


@pytest.mark.anyio
async def test_grep_catastrophic_pattern_is_stopped(tmp_path):
    write(tmp_path, "evil.txt", "a" * 64 + "b\n")
    world = world_of(tmp_path, grep_timeout_s=1.0)
    started = time.monotonic()
    await raises("WorldError", world.grep("(a+)+$"), "pattern took too long")
    assert time.monotonic() - started < 5


def test_grep_worker_bounds_its_own_cpu_time(tmp_path):
    # Even without a parent to kill it (a host that died), the worker stops after its CPU limit.
    write(tmp_path, "evil.txt", "a" * 64 + "b\n")
    job = {"pattern": "(a+)+$", "root": str(tmp_path), "files": ["evil.txt"], "sniff": 8192,
           "max_matches": GREP_MATCH_LIMIT, "max_bytes": GREP_BYTES_LIMIT}
    started = time.monotonic()
    done = subprocess.run([PY, "-I", "-m", world_module.GREP_WORKER, "1"], input=json.dumps(job).encode(),
                          capture_output=True, timeout=30)
    assert done.returncode < 0 and done.stdout == b""  # killed by SIGXCPU / SIGKILL
    assert time.monotonic() - started < 10


# ---------------------------------------------------------------------------------------------
# git


@pytest.mark.anyio
async def test_git_changed_files(repo):
    world = world_of(repo)
    assert await world.changed_files() == ["README.md", "notes.txt", "src/new.py", "src/util.py"]
    first = git(repo, "rev-list", "--max-parents=0", "HEAD").strip()
    assert await world.changed_files(first) == ["README.md", "notes.txt", "src/new.py", "src/util.py"]
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "Everything")
    assert await world.changed_files() == []
    assert await world.changed_files("HEAD~1") == ["README.md", "notes.txt", "src/new.py", "src/util.py"]
    assert await world.changed_files(first) == ["README.md", "notes.txt", "src/new.py", "src/util.py"]


@pytest.mark.anyio
async def test_git_status(repo):
    world = world_of(repo)
    status = await world.status()
    assert status.type_name == "GitStatus"
    assert status.to_json() == {"branch": "main", "clean": False, "staged": ["src/new.py", "src/util.py"],
                                "unstaged": ["README.md"], "untracked": ["notes.txt"]}
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "Everything")
    assert (await world.status()).to_json() == {"branch": "main", "clean": True, "staged": [],
                                                "unstaged": [], "untracked": []}
    git(repo, "checkout", "-q", "--detach", "HEAD")
    assert (await world.status()).get("branch") is None


@pytest.mark.anyio
async def test_git_log(repo):
    world = world_of(repo)
    log = await world.log()
    assert [c.get("subject") for c in log] == ["Add util", "Initial commit"]
    assert {c.get("author") for c in log} == {"Test User"}
    assert {c.get("date") for c in log} == {"2024-01-02T03:04:05+00:00"}
    assert log[0].get("hash") == git(repo, "rev-parse", "HEAD").strip()
    assert [c.get("subject") for c in await world.log(1)] == ["Add util"]
    assert len(await world.log(LOG_LIMIT)) == 2
    await raises("WorldError", world.log(LOG_LIMIT + 1), "between 1 and 100")
    await raises("WorldError", world.log(0), "between 1 and 100")
    await raises("TypeError", world.log("5"), "must be int")
    await raises("TypeError", world.log(True), "must be int")


@pytest.mark.anyio
async def test_git_diff(repo):
    world = world_of(repo)
    whole = await world.diff()
    assert "+more" in whole and "+x = 1" in whole and "+    return 2" in whole
    assert "notes.txt" not in whole
    readme = await world.diff(path="README.md")
    assert "README.md" in readme and "src/" not in readme
    first = git(repo, "rev-list", "--max-parents=0", "HEAD").strip()
    assert "+def util():" in await world.diff(first, "src/util.py")
    assert await world.diff(path="notes.txt") == ""
    await raises("WorldError", world.diff(path="../x"), "..")
    await raises("WorldError", world.diff(path="/etc/passwd"), "absolute")
    await raises("WorldError", world.diff("no-such-ref"), "failed")
    await raises("WorldError", world.diff("--output=/tmp/x"), "not a revision")
    await raises("TypeError", world.diff(1), "str or None")


@pytest.mark.anyio
async def test_git_diff_cap(repo):
    write(repo, "big.txt", "")
    git(repo, "add", "big.txt")
    git(repo, "commit", "-q", "-m", "big")
    world = world_of(repo)
    write(repo, "big.txt", "y" * 99 + "\n")
    assert len(await world.diff(path="big.txt")) < DIFF_LIMIT
    write(repo, "big.txt", ("y" * 99 + "\n") * (DIFF_LIMIT // 100 + 1))
    await raises("WorldError", world.diff(path="big.txt"), "larger than 512 KiB")


@pytest.mark.anyio
async def test_git_ops_outside_a_repository(tmp_path):
    world = world_of(tmp_path)
    for call in (world.changed_files(), world.diff(), world.status(), world.log()):
        await raises("WorldError", call, "not a git repository")


@pytest.mark.anyio
async def test_git_in_a_repository_without_commits(tmp_path):
    root = init_repo(tmp_path / "fresh")
    write(root, "a.txt", "a\n")
    git(root, "add", "a.txt")
    write(root, "b.txt", "b\n")
    world = world_of(root)
    assert await world.log() == []
    assert await world.changed_files() == ["a.txt", "b.txt"]
    assert (await world.status()).to_json() == {"branch": "main", "clean": False, "staged": ["a.txt"],
                                                "unstaged": [], "untracked": ["b.txt"]}
    assert "+a" in await world.diff()


@pytest.mark.anyio
async def test_git_in_a_workspace_below_the_repository_top(repo):
    world = world_of(repo / "src")
    assert await world.changed_files() == ["new.py", "util.py"]
    status = await world.status()
    assert status.get("staged") == ["new.py", "util.py"] and status.get("unstaged") == []
    assert "README" not in await world.diff()
    assert [c.get("subject") for c in await world.log()] == ["Add util", "Initial commit"]


@pytest.mark.anyio
async def test_git_ignores_the_hosts_git_environment(repo, monkeypatch, tmp_path):
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "elsewhere"))
    monkeypatch.setenv("GIT_WORK_TREE", str(tmp_path))
    assert (await world_of(repo).status()).get("branch") == "main"


# ---------------------------------------------------------------------------------------------
# world.run


@pytest.mark.anyio
async def test_run_returns_exit_code_and_output(tmp_path):
    world = world_of(tmp_path, PY, "env")
    done = await world.run(PY, ["-c", "import os, sys; print(os.getcwd()); print('oops', file=sys.stderr); "
                                      "print(repr(sys.stdin.read())); sys.exit(3)"])
    assert done.type_name == "RunResult"
    assert done.get("exit_code") == 3
    assert done.get("stdout") == f"{tmp_path.resolve()}\n''\n"
    assert done.get("stderr") == "oops\n"
    bad = await world.run(PY, ["-c", "import sys; sys.stdout.buffer.write(b'caf\\xe9 ok')"])
    assert bad.get("stdout") == "caf\ufffd ok"
    assert (await world.run(PY, ["-c", "print('$HOME | cat')"])).get("stdout") == "$HOME | cat\n"


@pytest.mark.anyio
async def test_run_environment_has_no_credentials(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-fake")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_fake")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAFAKE")
    monkeypatch.setenv("DATABASE_PASSWORD", "fake")
    monkeypatch.setenv("UNLISTED_VARIABLE", "x")
    monkeypatch.setenv("LANG", "C.UTF-8")
    world = world_of(tmp_path, PY, "env", env={"FOO": "bar", "MY_SERVICE_TOKEN": "fake", "OPENAI_ORG": "x"})
    done = await world.run(PY, ["-c", "import os, json; print(json.dumps(dict(os.environ)))"])
    env = json.loads(done.get("stdout"))
    for name in ("ANTHROPIC_API_KEY", "GITHUB_TOKEN", "AWS_ACCESS_KEY_ID", "DATABASE_PASSWORD",
                 "UNLISTED_VARIABLE", "MY_SERVICE_TOKEN", "OPENAI_ORG"):
        assert name not in env
    assert env["FOO"] == "bar" and env["LANG"] == "C.UTF-8" and "PATH" in env
    listed = (await world.run("env", [])).get("stdout")  # resolved on the sanitized PATH
    assert "sk-ant-fake" not in listed and "FOO=bar" in listed
    assert sanitized_environment({}, base={"SSH_AUTH_SOCK": "x", "GH_HOST": "y", "HOME": "/h"}) == {
        "HOME": "/h", "PATH": os.defpath}


@pytest.mark.anyio
async def test_run_refuses_unapproved_commands(tmp_path):
    world = world_of(tmp_path, "echo")
    with pytest.raises(FatalError) as caught:
        await world.run("rm", ["-rf", "."])
    assert caught.value.code == "CommandNotApproved"
    with pytest.raises(FatalError):
        await world.run("/bin/echo", ["hi"])  # approval is by the literal command


@pytest.mark.anyio
async def test_run_argument_and_spawn_errors(tmp_path):
    write(tmp_path, "not-exec.sh", "#!/bin/sh\necho hi\n")
    world = world_of(tmp_path, "echo", "no-such-command-dwf", "./not-exec.sh")
    await raises("TypeError", world.run("echo", "hello"), "list of str")
    await raises("TypeError", world.run("echo", ["a", 1]), "list of str")
    await raises("TypeError", world.run("echo", [], "5"), "must be a number")
    await raises("ValueError", world.run("echo", [], 0), "positive")
    await raises("ValueError", world.run("echo", ["a\0b"]), "NUL")
    await raises("WorldError", world.run("no-such-command-dwf", []), "cannot start")
    await raises("WorldError", world.run("./not-exec.sh", []), "is a relative path")
    os.chmod(tmp_path / "not-exec.sh", 0o755)  # programs come from the system PATH, never the workspace
    await raises("WorldError", world.run("./not-exec.sh", []), "is a relative path")


@pytest.mark.anyio
async def test_run_timeout_kills_the_process_group(tmp_path):
    world = world_of(tmp_path, PY, sandbox=UNSANDBOXED)  # host pids; the sandboxed case: test_command_sandbox.py
    started = time.monotonic()
    await raises("WorldError", world.run(PY, ["-c", SPAWNER], timeout_s=0.5), "timed out after 0.5 s")
    assert time.monotonic() - started < 5
    wait_gone([int(p) for p in (tmp_path / "pids").read_text().split()])


@pytest.mark.anyio
async def test_run_output_caps(tmp_path):
    world = world_of(tmp_path, PY)
    exact = await world.run(PY, ["-c", f"import sys; sys.stdout.write('x' * {RUN_OUTPUT_LIMIT})"])
    assert len(exact.get("stdout")) == RUN_OUTPUT_LIMIT
    await raises("WorldError", world.run(PY, ["-c", f"import sys; sys.stdout.write('x' * {RUN_OUTPUT_LIMIT + 1})"]),
                 "stdout is over the 256 KiB cap")
    await raises("WorldError", world.run(PY, ["-c", f"import sys; sys.stderr.write('x' * {RUN_OUTPUT_LIMIT + 1})"]),
                 "stderr is over the 256 KiB cap")
    started = time.monotonic()  # an endless writer is killed at the cap, not at the timeout
    await raises("WorldError", world.run(PY, ["-c", "import sys\nwhile True: sys.stdout.write('y' * 4096)"]), "cap")
    assert time.monotonic() - started < 5


@pytest.mark.anyio
async def test_cancelling_the_caller_kills_the_process_group(tmp_path):
    world = world_of(tmp_path, PY, sandbox=UNSANDBOXED)
    async with anyio.create_task_group() as group:
        group.start_soon(world.run, PY, ["-c", SPAWNER], 60)
        pids = await read_pids(tmp_path)
        assert all(alive(pid) for pid in pids)
        group.cancel_scope.cancel()
        cancelled_at = time.monotonic()
    assert time.monotonic() - cancelled_at < 5  # the call settles promptly, not when the child ends
    wait_gone(pids)


# ---------------------------------------------------------------------------------------------
# dispatch


@pytest.mark.anyio
async def test_read_dispatches_ops_and_checks_arity(repo):
    world = world_of(repo)
    assert await world.read("files.read", ["README.md"], {}) == "# demo\nmore\n"
    assert await world.read("files.glob", [], {"pattern": "*.md"}) == ["README.md"]
    assert len(await world.read("files.grep", ["demo"], {"glob": "*.md"})) == 1
    assert len(await world.read("git.log", [], {"count": 1})) == 1
    assert (await world.read("git.status", [], {})).get("branch") == "main"
    assert await world.read("git.changed_files", [None], {}) == await world.changed_files()
    assert "+more" in await world.read("git.diff", [], {"path": "README.md"})
    await raises("TypeError", world.read("files.read", [], {}), "missing required argument `path`")
    await raises("TypeError", world.read("files.read", ["a", "b"], {}), "at most 1 positional")
    await raises("TypeError", world.read("files.read", ["a"], {"path": "b"}), "multiple values")
    await raises("TypeError", world.read("files.glob", [], {"recursive": True}), "unexpected keyword")
    await raises("TypeError", world.read("git.status", [1], {}), "at most 0 positional")
    await raises("TypeError", world.read("files.read", [["a"]], {}), "must be str")
    with pytest.raises(FatalError):
        await world.read("world.run", ["echo"], {})


def test_caps_are_named_constants():
    assert (world_module.GLOB_LIMIT, world_module.READ_LIMIT, world_module.GREP_MATCH_LIMIT,
            world_module.GREP_BYTES_LIMIT, world_module.DIFF_LIMIT, world_module.LOG_LIMIT,
            world_module.RUN_OUTPUT_LIMIT) == (2000, 1 << 20, 2000, 256 << 10, 512 << 10, 100, 256 << 10)
