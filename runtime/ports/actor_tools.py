"""This module defines the actor tools (RUNTIME §7): the workspace tools an agent port offers a
model — read a file, list files, grep, write a file, edit a file, run a command — confined to one
workspace directory and selectable per run:

- `read`:  read_file, list_files, grep
- `write`: the read tools plus write_file, edit_file
- `exec`:  the write tools plus run_command

Confinement reuses the WorldPort's rules (`runtime.ports.world`): paths are workspace-relative, never
absolute, never `..`, never under `.git/` or `.dwf/`; every path is resolved (symlinks
followed) and must stay inside the resolved workspace root; reads are opened beneath the root
component by component (`beneath.py`), and so is a write's folder, and a write never follows a
final symlink. `run_command` runs an argv list (no shell) like `world.run`: only a program the run
approved (the screen's command list), its arguments checked by the argument rules with nothing
trusted (an actor's argv is computed from end to end: `argument_rules.py`), inside the sandbox
with the actor's workspace the only writable path (`sandbox.py`), with the sanitized environment,
under a deadline and a per-stream output cap; it is killed on every exit path, cancellation included.

Per actor. `agent(name, tools=[...])` narrows an actor's tools (`ActorSpec.tools`) and an agent
definition's `tools` may too: `allowed_for` intersects them with the run's set, so a script can
never widen what the run was approved with. An isolated actor (`ActorSpec.workdir`, its git
worktree) gets tools rooted in its worktree (`for_actor`): every path resolves against the
worktree, and its commands run there with the worktree as the sandbox's only writable path.

Every tool call is reported with `channel.progress("tool", tool=..., summary=...)`; calls that
modify the workspace or run a command also call `channel.touched_world()` (so the amend cache
can close). A tool that fails returns `ToolOutcome(text, is_error=True)`: the model sees the
error as an `is_error` tool result, and the port never crashes on a tool error.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from dwf.runtime.values.errors import ScriptError
from dwf.runtime.ports.protocols import ActorSpec, AskChannel
from dwf.runtime.ports.argument_rules import check_arguments
from dwf.runtime.ports.beneath import Beneath
from dwf.runtime.ports.process import KIB, run_process
from dwf.runtime.ports.sandbox import Sandbox, resolve_program
from dwf.runtime.ports.world import (READ_LIMIT, LocalWorld, WorkspacePathError, command_environment, inside_workspace,
                                     relative_parts)

TOOL_SETS = ("read", "write", "exec")
READ_TOOLS = ("read_file", "list_files", "grep")
WRITE_TOOLS = READ_TOOLS + ("write_file", "edit_file")
EXEC_TOOLS = WRITE_TOOLS + ("run_command",)
TOOLS_BY_SET = {"read": READ_TOOLS, "write": WRITE_TOOLS, "exec": EXEC_TOOLS}
MODIFYING_TOOLS = frozenset({"write_file", "edit_file", "run_command"})

OUTPUT_CAP = 64 * KIB  # characters of one tool result shown to the model
WRITE_LIMIT = 4 * 1024 * KIB  # bytes per write_file / edited file
RUN_TIMEOUT_DEFAULT_S = 120.0
RUN_TIMEOUT_MAX_S = 600.0
RUN_OUTPUT_LIMIT = 1024 * KIB  # bytes per stream of run_command before the process is killed

_PATH = {"type": "string", "description": "Workspace-relative path (POSIX, no `..`)."}

DEFINITIONS: dict[str, dict] = {
    "read_file": {
        "description": "Read a UTF-8 text file of the workspace. Optional 1-based `offset` line and `limit` lines.",
        "input_schema": {"type": "object", "properties": {
            "path": _PATH, "offset": {"type": "integer", "minimum": 1}, "limit": {"type": "integer", "minimum": 1}},
            "required": ["path"]},
    },
    "list_files": {
        "description": "List workspace files matching a glob (`**` spans directories; default `**`).",
        "input_schema": {"type": "object", "properties": {"pattern": {"type": "string"}}},
    },
    "grep": {
        "description": "Search workspace files for a Python regular expression; optional `glob` limits the files. "
                       "Returns `path:line: text` lines.",
        "input_schema": {"type": "object", "properties": {"pattern": {"type": "string"}, "glob": {"type": "string"}},
                         "required": ["pattern"]},
    },
    "write_file": {
        "description": "Create or overwrite a workspace file with `content` (parent directories are created).",
        "input_schema": {"type": "object", "properties": {"path": _PATH, "content": {"type": "string"}},
                         "required": ["path", "content"]},
    },
    "edit_file": {
        "description": "Replace `old_string` with `new_string` in a workspace file; `old_string` must occur exactly once.",
        "input_schema": {"type": "object", "properties": {
            "path": _PATH, "old_string": {"type": "string"}, "new_string": {"type": "string"}},
            "required": ["path", "old_string", "new_string"]},
    },
    "run_command": {
        "description": "Run a program in the workspace: `argv` is the program and its arguments (no shell). "
                       f"Optional `timeout_s` (default {RUN_TIMEOUT_DEFAULT_S:g}, at most {RUN_TIMEOUT_MAX_S:g}). "
                       "Returns the exit code, stdout and stderr.",
        "input_schema": {"type": "object", "properties": {
            "argv": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            "timeout_s": {"type": "number", "exclusiveMinimum": 0}},
            "required": ["argv"]},
    },
}


class ToolError(Exception):
    """A tool call the model got wrong, or one the workspace refused (shown to the model)."""


@dataclass
class ToolOutcome:
    text: str
    is_error: bool = False


def cap_text(text: str, limit: int = OUTPUT_CAP) -> str:
    """`text` cut to `limit` characters, saying how much was cut."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... output truncated: {len(text) - limit:,} more characters]"


class ActorTools:
    """The workspace tools of one run, for one tool set (`read`, `write` or `exec`)."""

    def __init__(self, workspace: str | os.PathLike, tool_set: str = "write", *,
                 run_timeout_s: float = RUN_TIMEOUT_DEFAULT_S, output_cap: int = OUTPUT_CAP,
                 env: dict[str, str] | None = None, sandbox: Sandbox | None = None):
        if tool_set not in TOOLS_BY_SET:
            raise ValueError(f"unknown actor tool set {tool_set!r}; choose one of {', '.join(TOOL_SETS)}")
        self.root = Path(workspace).resolve()
        if not self.root.is_dir():
            raise ValueError(f"the workspace {self.root} is not a directory")
        self.tool_set = tool_set
        self.names = TOOLS_BY_SET[tool_set]
        self.run_timeout_s = run_timeout_s
        self.output_cap = output_cap
        self.env = dict(env or {})
        self.sandbox = sandbox if sandbox is not None else Sandbox.from_environment()
        self._world = LocalWorld(self.root)
        self._rooted: dict[str, ActorTools] = {}  # the same tools rooted in an isolated actor's worktree

    def for_actor(self, actor: ActorSpec) -> ActorTools:
        """These tools for `actor`: rooted in its worktree when it has one, else these."""
        if not actor.workdir:
            return self
        tools = self._rooted.get(actor.workdir)
        if tools is None:
            tools = ActorTools(actor.workdir, self.tool_set, run_timeout_s=self.run_timeout_s,
                               output_cap=self.output_cap, env=self.env, sandbox=self.sandbox)
            self._rooted[actor.workdir] = tools
        return tools

    def allowed_for(self, actor: ActorSpec, definition_tools: frozenset[str] | None = None) -> tuple[str, ...]:
        """The tools `actor` may call: the run's set, narrowed by the actor's `tools=` and by its
        agent definition's `tools` (each only narrows)."""
        names = self.names
        if actor.tools is not None:
            names = tuple(n for n in names if n in actor.tools)
        if definition_tools is not None:
            names = tuple(n for n in names if n in definition_tools)
        return names

    def definitions(self, allowed: tuple[str, ...] | None = None) -> list[dict]:
        """The tools (those in `allowed`, when given) in the Messages API's `tools` format."""
        return [{"name": name, **DEFINITIONS[name]} for name in self.names if allowed is None or name in allowed]

    def offers(self, name: str) -> bool:
        return name in self.names

    async def call(self, name: str, arguments: Any, channel: AskChannel | None = None, *,
                   programs: frozenset[str] = frozenset(), allowed: tuple[str, ...] | None = None) -> ToolOutcome:
        """Run one tool call; errors come back as `is_error` outcomes, never as exceptions
        (cancellation excepted). `programs` are the run's approved programs (`run_command`);
        `allowed` the actor's tools (`allowed_for`), when it is narrowed."""
        names = self.names if allowed is None else tuple(n for n in self.names if n in allowed)
        if name not in names:
            return ToolOutcome(f"unknown tool `{name}` (available: {', '.join(names) or 'none'})", True)
        if not isinstance(arguments, dict):
            return ToolOutcome(f"{name}: the input must be a JSON object", True)
        if channel is not None:
            channel.progress("tool", tool=name, summary=_summary(name, arguments))
        try:
            extra = {"programs": programs} if name == "run_command" else {}
            text = await getattr(self, "_" + name)(**arguments, **extra)
            outcome = ToolOutcome(cap_text(text, self.output_cap))
        except TypeError as error:
            outcome = ToolOutcome(f"{name}: bad arguments: {error}", True)
        except (ToolError, WorkspacePathError) as error:
            outcome = ToolOutcome(f"{name}: {error}", True)
        except ScriptError as error:
            outcome = ToolOutcome(str(error.message if hasattr(error, "message") else error), True)
        except OSError as error:
            outcome = ToolOutcome(f"{name}: {error.strerror or error}", True)
        if channel is not None and name in MODIFYING_TOOLS:
            channel.touched_world()
        return outcome

    # -- read tools

    async def _read_file(self, path: str, offset: int | None = None, limit: int | None = None) -> str:
        _require(isinstance(path, str), "`path` must be a string")
        text = await self._world.read_file(path)
        if offset is None and limit is None:
            return text
        _require(offset is None or (isinstance(offset, int) and offset >= 1), "`offset` must be a line number >= 1")
        _require(limit is None or (isinstance(limit, int) and limit >= 1), "`limit` must be >= 1")
        lines = text.splitlines(keepends=True)
        start = (offset or 1) - 1
        return "".join(lines[start:start + limit if limit else None])

    async def _list_files(self, pattern: str = "**") -> str:
        _require(isinstance(pattern, str), "`pattern` must be a string")
        paths = await self._world.glob(pattern)
        return "\n".join(paths) if paths else "(no files match)"

    async def _grep(self, pattern: str, glob: str | None = None) -> str:
        _require(isinstance(pattern, str), "`pattern` must be a string")
        _require(glob is None or isinstance(glob, str), "`glob` must be a string")
        matches = await self._world.grep(pattern, glob)
        if not matches:
            return "(no matches)"
        return "\n".join(f"{m.get('path')}:{m.get('line')}: {m.get('text')}" for m in matches)

    # -- write tools

    async def _write_file(self, path: str, content: str) -> str:
        _require(isinstance(path, str), "`path` must be a string")
        _require(isinstance(content, str), "`content` must be a string")
        data = content.encode("utf-8")
        _require(len(data) <= WRITE_LIMIT, f"the content is {len(data):,} bytes, over the {WRITE_LIMIT:,} byte cap")
        target = await anyio.to_thread.run_sync(self._writable, path, True)
        existed = target.exists()
        await anyio.to_thread.run_sync(_write_beneath, self.root, path, data)
        return f"{'overwrote' if existed else 'created'} {path} ({len(data):,} bytes)"

    async def _edit_file(self, path: str, old_string: str, new_string: str) -> str:
        _require(isinstance(path, str), "`path` must be a string")
        _require(isinstance(old_string, str) and isinstance(new_string, str), "`old_string` and `new_string` must be strings")
        _require(old_string != "", "`old_string` must not be empty")
        text = await self._world.read_file(path)
        count = text.count(old_string)
        _require(count != 0, f"`old_string` does not occur in {path}")
        _require(count == 1, f"`old_string` occurs {count} times in {path}; include more context so it matches exactly once")
        updated = text.replace(old_string, new_string, 1).encode("utf-8")
        _require(len(updated) <= WRITE_LIMIT, f"the edited file would be over the {WRITE_LIMIT:,} byte cap")
        await anyio.to_thread.run_sync(self._writable, path, False)
        await anyio.to_thread.run_sync(_write_beneath, self.root, path, updated)
        return f"edited {path} (1 replacement)"

    def _writable(self, path: str, create_parents: bool) -> Path:
        """The absolute path to write `path` at, confined to the workspace: every existing
        ancestor resolves inside the root, and an existing target is a regular file that is
        not a symlink. The write itself is made beneath the root (`_write_beneath`)."""
        parts = relative_parts(path)
        if not parts:
            raise ToolError("path is empty")
        try:
            return self._confined_target(path, parts, create_parents)
        except RuntimeError:  # Path.resolve() on a symlink loop
            raise ToolError(f"`{path}`: too many levels of symbolic links (a symlink loop)") from None

    def _confined_target(self, path: str, parts: tuple[str, ...], create_parents: bool) -> Path:
        parent = self.root.joinpath(*parts[:-1])
        existing = parent
        while not existing.exists() and existing != self.root:
            existing = existing.parent
        if not inside_workspace(self.root, existing.resolve()):
            raise ToolError(f"`{path}` resolves outside the workspace")
        if create_parents:
            parent.mkdir(parents=True, exist_ok=True)
        resolved_parent = parent.resolve()
        if not resolved_parent.is_dir() or not inside_workspace(self.root, resolved_parent):
            raise ToolError(f"`{path}` resolves outside the workspace")
        target = resolved_parent / parts[-1]
        try:
            info = os.lstat(target)
        except FileNotFoundError:
            return target
        if stat.S_ISLNK(info.st_mode):
            raise ToolError(f"`{path}` is a symbolic link; write to the file it names instead")
        if not stat.S_ISREG(info.st_mode):
            raise ToolError(f"`{path}` is not a regular file")
        return target

    # -- exec tool

    async def _run_command(self, argv: list, timeout_s: float | None = None, *, programs: frozenset[str]) -> str:
        _require(isinstance(argv, list) and argv and all(isinstance(a, str) for a in argv),
                 "`argv` must be a non-empty list of strings")
        _require(argv[0] in programs, f"`{argv[0]}` is not a program this run approved; run_command may start only "
                                      f"{', '.join(f'`{p}`' for p in sorted(programs)) or 'none (the run approved no commands)'}")
        _require(not any("\0" in a for a in argv), "arguments must not contain NUL bytes")
        _require(timeout_s is None or (isinstance(timeout_s, (int, float)) and not isinstance(timeout_s, bool)
                                       and timeout_s > 0), "`timeout_s` must be a positive number")
        timeout = min(float(timeout_s or self.run_timeout_s), RUN_TIMEOUT_MAX_S)
        what = f"run_command {argv[0]}"
        checked = check_arguments(argv[0], argv[1:], approved=(), root=self.root, programs=programs, what=what)
        wrapped = self.sandbox.wrap([resolve_program(argv[0], self.root, what), *checked], writable=self.root,
                                    cwd=self.root, what=what)
        done = await run_process(wrapped, what=what, cwd=self.root, env=command_environment(argv[0], self.env),
                                 timeout_s=timeout, output_limit=RUN_OUTPUT_LIMIT)
        half = self.output_cap // 2
        stdout = cap_text(done.stdout.decode("utf-8", "replace"), half)
        stderr = cap_text(done.stderr.decode("utf-8", "replace"), half)
        return f"exit code: {done.exit_code}\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}"


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ToolError(message)


def _write_beneath(root: Path, path: str, data: bytes) -> None:
    """Write `data` as the workspace file `path` (checked by `_writable`): its folder is opened
    beneath the root component by component (`beneath.py`) and the file is created relative to
    that descriptor without following a final symlink, so a swap since the check cannot redirect
    the write outside the workspace."""
    parts = relative_parts(path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
    with Beneath(root) as beneath:
        folder = beneath.open_directory(parts[:-1], path)
        try:
            fd = os.open(parts[-1], flags, 0o644, dir_fd=folder)
        except OSError as error:
            raise ToolError(f"cannot write `{path}`: {error.strerror}") from None
        finally:
            os.close(folder)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def _summary(name: str, arguments: dict) -> str:
    if name == "run_command":
        argv = arguments.get("argv")
        return " ".join(map(str, argv))[:200] if isinstance(argv, list) else ""
    for key in ("path", "pattern"):
        if isinstance(arguments.get(key), str):
            return arguments[key][:200]
    return ""


__all__ = ["ActorTools", "ToolOutcome", "ToolError", "TOOL_SETS", "TOOLS_BY_SET", "READ_LIMIT", "cap_text"]
