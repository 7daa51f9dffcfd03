"""This module defines the command sandbox: `Sandbox`, which wraps the argv of every program a
run starts (`world.run`, the actor tool `run_command`, the `git` of the `git.*` reads) in
bubblewrap (`bwrap`), and `resolve_program`, which finds that program on a fixed system `PATH`.

What the sandbox is. A fresh set of namespaces (`--unshare-all`: user, mount, PID, network, IPC,
UTS, cgroup) with every capability dropped. The whole file system is mounted read-only, then:
`/tmp` is a private, empty tmpfs; the usual places of credentials in the user's home
(`SECRET_PATHS`: `~/.ssh`, `~/.aws`, `~/.gnupg`, `~/.netrc`, ...) are covered by empty ones (the
rest of the file system stays readable: interpreters and libraries live there); the one writable path is the workspace (or an actor's
worktree), bound at its own path; inside it `.dwf/` (the journal, reports, artifacts),
`.git/config` and `.git/hooks` are bound read-only again, so a command can neither forge the
journal nor plant git configuration or hooks that run code. There is no network unless the plan
allows it (`"network": True` in the meta block); `--die-with-parent` and the PID namespace mean
no process outlives its command: when the command ends or is killed, the namespace's first
process dies and the kernel kills every other process in it, a `setsid` grandchild included.

Where the sandbox cannot start (no `bwrap`, or no unprivileged user namespaces), a command
refuses with a `WorldError` that says how to fix it, unless the person approved running
unsandboxed (`DWF_UNSANDBOXED=1` in the environment of `dwfc`/`dwfc mcp`; the approval screen says
so). Whether bubblewrap works is probed once per process (one `bwrap ... true`).

Programs. A command name is resolved against `command_path()` only: `SYSTEM_PATH`, plus the
absolute directories outside any workspace that the person who starts `dwfc` lists in
`DWF_COMMAND_PATH` (a virtualenv's `bin/`, say), never the caller's `PATH` (an empty entry there
meant the workspace), never relative (`./tool`), never inside the workspace; an absolute path
outside the workspace is used as given (the person approved that literal path). The directories
of `DWF_COMMAND_PATH`, and the program's own, are bound read-only into the sandbox, with the
installation a `bin/` belongs to (`installations`): one under `/tmp` would be hidden.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from dwf.runtime.values.errors import world_error

SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
SECRET_PATHS = (".ssh", ".aws", ".azure", ".gnupg", ".kube", ".docker", ".config/gcloud", ".config/gh", ".dwf",
                ".netrc", ".git-credentials", ".npmrc", ".pypirc", ".pgpass")  # under ~, empty inside the sandbox
READ_ONLY_INSIDE = (".dwf", ".git/config", ".git/hooks")  # bound read-only inside the writable path
PROBE_TIMEOUT_S = 10.0
UNSANDBOXED_VARIABLE = "DWF_UNSANDBOXED"
COMMAND_PATH_VARIABLE = "DWF_COMMAND_PATH"
SANDBOX_HOME = "/tmp"  # HOME inside the sandbox: the private tmpfs


@dataclass(frozen=True, slots=True)
class Sandbox:
    """How a run's commands are confined (see the module docstring): `network` lets them reach
    the network; `allow_unsandboxed` is the person's approval to run them without the sandbox
    where it cannot start; `bubblewrap` is the program (a name on `SYSTEM_PATH` or a path)."""

    network: bool = False
    allow_unsandboxed: bool = False
    bubblewrap: str = "bwrap"

    @classmethod
    def from_environment(cls, *, network: bool = False) -> Sandbox:
        """The sandbox of a run on this host: unsandboxed only when `DWF_UNSANDBOXED=1`."""
        return cls(network=network, allow_unsandboxed=os.environ.get(UNSANDBOXED_VARIABLE) == "1")

    def status(self) -> str:
        """One line for the approval screen: how this run's commands will be confined."""
        program, problem = probe(self.bubblewrap)
        network = "with network access" if self.network else "no network"
        if program is not None:
            return f"bubblewrap ({network}; only the workspace is writable; private /tmp)"
        if self.allow_unsandboxed:
            return f"NONE: {problem}; commands run UNSANDBOXED ({UNSANDBOXED_VARIABLE}=1 was set)"
        return f"unavailable ({problem}): every command will be refused"

    def wrap(self, argv: list[str], *, writable: Path | None, cwd: Path, what: str) -> list[str]:
        """`argv` as it must be started: inside bubblewrap with `writable` the only writable
        path (None: nothing is) and `cwd` the working directory, or unchanged where the person
        approved running unsandboxed. Raises `WorldError` when the sandbox cannot start and that
        was not approved."""
        program, problem = probe(self.bubblewrap)
        if program is None:
            if self.allow_unsandboxed:
                return argv
            raise world_error(f"{what}: cannot start: the sandbox is unavailable ({problem}); install bubblewrap "
                              f"(`apt-get install bubblewrap`) on a kernel with unprivileged user namespaces, or "
                              f"approve running commands unsandboxed with {UNSANDBOXED_VARIABLE}=1")
        wrapped = [program, "--unshare-all", "--cap-drop", "ALL", "--die-with-parent", "--new-session",
                   "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        if writable is not None:
            wrapped += ["--tmpfs", "/tmp"]  # a read-only run (git reads) sees /tmp read-only, like all else
        if self.network:
            wrapped.append("--share-net")
        for directory in installations(argv[0]):
            wrapped += ["--ro-bind", directory, directory]
        root = str(writable) if writable is not None else None
        home = os.path.expanduser("~")
        for secret in SECRET_PATHS:
            path = os.path.join(home, secret)
            if os.path.isdir(path) and not (root and _contains(path, root)):
                wrapped += ["--tmpfs", path]
            elif os.path.isfile(path):
                wrapped += ["--ro-bind", os.devnull, path]
        if root is not None:
            wrapped += ["--bind", root, root]
            for inner in READ_ONLY_INSIDE:
                path = os.path.join(root, inner)
                if os.path.lexists(path) and not os.path.islink(path):
                    wrapped += ["--ro-bind", path, path]
            wrapped += ["--setenv", "HOME", SANDBOX_HOME, "--setenv", "TMPDIR", "/tmp"]
        return [*wrapped, "--chdir", str(cwd), "--", *argv]


def extra_directories() -> list[str]:
    """The directories of `DWF_COMMAND_PATH` that count: absolute, existing, not `/` itself."""
    entries = os.environ.get(COMMAND_PATH_VARIABLE, "").split(os.pathsep)
    return [e for e in dict.fromkeys(entries) if e.startswith("/") and e != "/" and os.path.isdir(e)]


def installations(program: str) -> list[str]:
    """What must stay visible, read-only, for the program and the `DWF_COMMAND_PATH` directories to
    run: each such directory, or the installation it is the `bin/` of (a virtualenv's `lib/` holds
    what its `bin/python` imports); this matters when they lie under `/tmp`, which the sandbox
    replaces with an empty tmpfs (a checkout in `/tmp` with its `.venv`)."""
    folders = [*extra_directories(), *([os.path.dirname(program)] if program.startswith("/") else [])]
    roots = [os.path.dirname(folder) if os.path.basename(folder) == "bin" else folder for folder in folders]
    return [root for root in dict.fromkeys(roots) if root not in ("", "/") and os.path.isdir(root)]


def command_path() -> str:
    """The `PATH` programs are found on, and that commands get (see the module docstring)."""
    return os.pathsep.join([SYSTEM_PATH, *extra_directories()])


def _contains(parent: str, child: str) -> bool:
    return child == parent or child.startswith(parent.rstrip("/") + "/")


@functools.cache
def probe(bubblewrap: str) -> tuple[str | None, str]:
    """(the bwrap program, "") when a sandbox starts on this host, else (None, why not).
    Cached: the answer does not change while the process lives."""
    program = bubblewrap if "/" in bubblewrap else shutil.which(bubblewrap, path=SYSTEM_PATH)
    if program is None or not os.access(program, os.X_OK):
        return None, f"`{bubblewrap}` is not installed"
    try:
        done = subprocess.run([program, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "true"],
                              stdin=subprocess.DEVNULL, capture_output=True, timeout=PROBE_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"`{program}` does not start: {exc}"
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        return None, f"`{program}` cannot create namespaces here: {reason[0]}"
    return program, ""


def resolve_program(cmd: str, workspace: Path, what: str) -> str:
    """The absolute path of the program `cmd` (see the module docstring); `WorldError` when it
    is relative, inside the workspace, or not an installed executable. A `DWF_COMMAND_PATH`
    directory inside the workspace does not count."""
    search = command_path()
    if "/" in cmd and not cmd.startswith("/"):
        raise world_error(f"{what}: cannot start: `{cmd}` is a relative path; programs are found on the system "
                          f"PATH ({search}) or named by an absolute path outside the workspace")
    found = cmd if cmd.startswith("/") else shutil.which(cmd, path=search)
    if found is None or not os.path.isfile(found) or not os.access(found, os.X_OK):
        raise world_error(f"{what}: cannot start: `{cmd}` is not an installed program (looked on {search}; "
                          f"{COMMAND_PATH_VARIABLE} adds directories)")
    real = Path(found).resolve()
    if real == workspace or workspace in real.parents or workspace in Path(found).parents:
        raise world_error(f"{what}: cannot start: `{cmd}` lies inside the workspace; only installed programs run")
    return found


__all__ = ["COMMAND_PATH_VARIABLE", "PROBE_TIMEOUT_S", "READ_ONLY_INSIDE", "SANDBOX_HOME", "SECRET_PATHS", "SYSTEM_PATH", "Sandbox",
           "UNSANDBOXED_VARIABLE", "command_path", "extra_directories", "probe", "resolve_program"]
