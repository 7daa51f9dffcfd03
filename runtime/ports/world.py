"""This module defines `LocalWorld`, the local WorldPort: file and git reads and approved
commands in one workspace directory, with the caps of LANGUAGE §6.4–6.5.

Confinement. Every path a script names is workspace-relative POSIX text: absolute paths, `..`
components, NUL bytes and anything under `.git/` or `.dwf/` are refused before the filesystem
is touched, and every file that is read or listed is opened beneath the root component by
component (`beneath.py`: `O_NOFOLLOW` relative to the parent's descriptor, symlinks resolved by
DWF itself), so a concurrent directory/symlink swap can never redirect a read outside; symlink
loops and broken links are `WorldError`s like any other unreadable path. A listing (`files.glob`, the file set of `files.grep`) never descends into a
symlinked directory (no cycles, no escapes) and never lists a file whose symlink resolves outside
the workspace; naming such a path explicitly (`files.read`) raises `WorldError`. So every path a
listing returns passes `files.read`'s confinement check. Only regular files count: a FIFO or a
device is neither listed nor read (opening a FIFO would block).

Caps are never met by truncation: one item over a cap raises `WorldError`. Listings stop walking
at the first item over the cap; command output is read in chunks and the process is killed at the
first byte over the cap.

Processes. Commands, `git` and the grep worker all go through `process.run_process` (no shell,
a process group killed on every exit path, a deadline and a byte cap per stream) with the
sanitized environment of `process.sanitized_environment`. `git` also loses every `GIT_*`
variable and runs with `LC_ALL=C`, optional locks off and fsmonitor off. Commands and `git` start
inside the bubblewrap sandbox (`sandbox.py`; the `git.*` reads with nothing writable), programs
found on the fixed system `PATH`; an approved command's arguments pass its program's argument
rules first (`argument_rules.py`: computed options that run code or leave the workspace are
refused). The grep worker is DWF's own code and opens only what the walk confined.

Grep. Python's `re` backtracks, so a pattern such as `(a+)+$` can run for hours inside one C call
that no thread deadline can interrupt. `files.grep` therefore runs the matching in a short-lived
worker process (`python -I -m dwf.runtime.ports.grep_worker`): the parent walks and confines the
file set, sends the pattern and the file list on stdin, and kills the worker's process group when
`grep_timeout_s` passes ("pattern took too long"). The worker also caps its own CPU time
(`RLIMIT_CPU`, one second past the deadline), so it cannot outlive a host that dies without
killing it. It compiles the pattern, so an invalid pattern is reported from there, and it
enforces the match caps itself so its output stays small.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio

from dwf.grammar.facade import BY_QUALIFIED
from dwf.runtime.values.errors import FatalError, ScriptError, world_error
from dwf.runtime.values.records import Record, git_commit, git_status, grep_match, run_result
from dwf.runtime.ports.argument_rules import check_arguments, program_environment
from dwf.runtime.ports.beneath import INTERNAL_DIRS, Beneath, WorkspacePathError
from dwf.runtime.ports.process import KIB, MIB, Completed, format_size, run_process, sanitized_environment
from dwf.runtime.ports.sandbox import Sandbox, command_path, resolve_program

GLOB_LIMIT = 2_000  # paths per files.glob
READ_LIMIT = 1 * MIB  # bytes per files.read
GREP_MATCH_LIMIT = 2_000  # matches per files.grep
GREP_BYTES_LIMIT = 256 * KIB  # UTF-8 bytes of path + text over all matches of one files.grep
GREP_TIMEOUT_S = 10.0  # wall clock of one files.grep (walk excluded)
GREP_SNIFF_BYTES = 8 * KIB  # a NUL byte in the first 8 KiB marks a file as binary
GREP_WORKER_OUTPUT_LIMIT = 8 * MIB  # the worker's JSON answer (its matches are capped above)
DIFF_LIMIT = 512 * KIB  # bytes per git.diff
LOG_DEFAULT = 20
LOG_LIMIT = 100  # commits per git.log
GIT_TIMEOUT_S = 60.0  # wall clock of one git invocation
GIT_OUTPUT_LIMIT = 16 * MIB  # any other git output (status, name lists, log)
RUN_TIMEOUT_DEFAULT_S = 300.0
RUN_OUTPUT_LIMIT = 256 * KIB  # bytes per stream (stdout, stderr) of world.run

GREP_WORKER = "dwf.runtime.ports.grep_worker"  # run as `python -I -m GREP_WORKER CPU_SECONDS`

# Script-visible read ops -> method names.
READ_OPS = {
    "files.glob": "glob",
    "files.read": "read_file",
    "files.grep": "grep",
    "git.changed_files": "changed_files",
    "git.diff": "diff",
    "git.status": "status",
    "git.log": "log",
}


# ---------------------------------------------------------------------------------------------
# Paths


def _type_error(message: str) -> ScriptError:
    return ScriptError("TypeError", message)


def relative_parts(path: str, what: str = "path") -> tuple[str, ...]:
    """The components of a workspace-relative path, or `WorkspacePathError` when it is absolute,
    contains `..` or a NUL byte, or names `.git/` or `.dwf/`."""
    if "\0" in path:
        raise WorkspacePathError(f"{what} contains a NUL byte")
    if path.startswith("/"):
        raise WorkspacePathError(f"{what} `{path}` is absolute; paths are workspace-relative")
    parts = tuple(p for p in path.split("/") if p not in ("", "."))
    if ".." in parts:
        raise WorkspacePathError(f"{what} `{path}` leaves the workspace (`..`)")
    if any(p in INTERNAL_DIRS for p in parts):
        raise WorkspacePathError(f"{what} `{path}` is inside `.git/` or `.dwf/`")
    return parts


def inside_workspace(root: Path, resolved: Path) -> bool:
    """Whether the resolved path `resolved` is `root` or below it, and not under `.git/` or `.dwf/`."""
    if resolved != root and root not in resolved.parents:
        return False
    return not any(p in INTERNAL_DIRS for p in resolved.relative_to(root).parts)


def read_workspace_file(root: Path, path: str, limit: int) -> bytes:
    """The bytes of the regular workspace file `path` (root already resolved), opened beneath
    the root component by component (`beneath.open_beneath`). Raises `WorkspacePathError` when
    it escapes the workspace, is not a regular file, or is over `limit` bytes."""
    parts = relative_parts(path)
    if not parts:
        raise WorkspacePathError("path is empty")
    with Beneath(root) as beneath:
        fd = beneath.open_file(parts, path)
    with os.fdopen(fd, "rb") as handle:
        size = os.fstat(fd).st_size
        if size > limit:
            raise WorkspacePathError(f"`{path}` is {size} bytes, over the {format_size(limit)} cap")
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise WorkspacePathError(f"`{path}` is over the {format_size(limit)} cap")
    return data


class GlobPattern:
    """A workspace glob: `/`-separated segments; `**` as a whole segment matches zero or more
    directories (or, last, any file below); `*`, `?` and `[...]` match within one segment,
    dotfiles included; matching is case-sensitive."""

    def __init__(self, pattern: str):
        self.segments = relative_parts(pattern, "glob pattern")
        if not self.segments:
            raise WorkspacePathError("glob pattern is empty")
        self._segment_res = [re.compile(_translate(s)) for s in self.segments]
        regex, last = "", len(self.segments) - 1
        for i, segment in enumerate(self.segments):
            if segment == "**":
                regex += "(?:[^/]+/)*[^/]+" if i == last else "(?:[^/]+/)*"
            else:
                regex += _translate(segment) + ("" if i == last else "/")
        self._regex = re.compile(regex)

    def matches(self, relpath: str) -> bool:
        return self._regex.fullmatch(relpath) is not None

    def may_contain(self, dir_parts: Sequence[str]) -> bool:
        """Whether a file below the directory `dir_parts` can match (prunes the walk)."""
        for i, part in enumerate(dir_parts):
            if i >= len(self.segments) - 1:
                return self.segments[min(i, len(self.segments) - 1)] == "**"
            if self.segments[i] == "**":
                return True
            if not self._segment_res[i].fullmatch(part):
                return False
        return True


def _translate(segment: str) -> str:
    out, i, n = [], 0, len(segment)
    while i < n:
        c = segment[i]
        i += 1
        if c == "*":
            while i < n and segment[i] == "*":
                i += 1
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = i + 1 if i < n and segment[i] in "!^" else i
            j = j + 1 if j < n and segment[j] == "]" else j
            while j < n and segment[j] != "]":
                j += 1
            if j >= n:
                out.append(re.escape(c))
                continue
            body = segment[i:j].replace("\\", "\\\\")
            i = j + 1
            if body[:1] in ("!", "^"):
                body = "^" + body[1:]
            out.append(f"(?!/)[{body}]")
        else:
            out.append(re.escape(c))
    return "".join(out)


def walk_files(root: Path, pattern: GlobPattern, limit: int | None = None) -> list[str]:
    """The sorted relative paths of the regular files matching `pattern`, confined to `root`
    (resolved). Directories are walked by descriptor (`os.fwalk`, which never descends into a
    symlink, even one swapped in mid-walk); each matching name is opened beneath the root
    (`Beneath`), so a file symlink counts only when it resolves to a regular file inside the
    workspace. Stops after `limit + 1` matches so the caller can report the cap."""
    found: list[str] = []
    with Beneath(root) as beneath:
        for dirpath, dirnames, filenames, _ in os.fwalk(".", dir_fd=beneath.fd, follow_symlinks=False):
            base = tuple(p for p in dirpath.split("/") if p != ".")
            dirnames[:] = sorted(d for d in dirnames if d not in INTERNAL_DIRS and pattern.may_contain((*base, d)))
            for name in sorted(filenames):
                if name in INTERNAL_DIRS:
                    continue
                relpath = "/".join((*base, name))
                if not pattern.matches(relpath) or not beneath.is_regular_file((*base, name)):
                    continue
                found.append(relpath)
                if limit is not None and len(found) > limit:
                    return found
    found.sort()
    return found


# ---------------------------------------------------------------------------------------------
# The port


class LocalWorld:
    """The WorldPort over one workspace directory (see the module docstring)."""

    def __init__(self, root: Path, *, allowed_commands: frozenset[str] = frozenset(),
                 env: Mapping[str, str] | None = None, grep_timeout_s: float = GREP_TIMEOUT_S,
                 sandbox: Sandbox = Sandbox(), approved_arguments: Mapping[str, Sequence[tuple[str, ...]]] | None = None):
        self.root = Path(root).resolve()
        self.allowed_commands = frozenset(allowed_commands)
        self.approved_arguments = dict(approved_arguments or {})
        self.env = dict(env or {})
        self.grep_timeout_s = grep_timeout_s
        self.sandbox = sandbox

    # -- dispatch -------------------------------------------------------------------------------

    async def read(self, op: str, args: list, kwargs: dict) -> Any:
        """Run the read op `op` ("files.glob", "git.log", ...) with the script's arguments."""
        method = READ_OPS.get(op)
        if method is None:
            raise FatalError("UnknownWorldOp", f"`{op}` is not a world read")
        signature = BY_QUALIFIED[op].signature
        if len(args) > len(signature.positional):
            raise _type_error(f"{op}() takes at most {len(signature.positional)} positional "
                              f"arguments ({len(args)} given)")
        bound = dict(zip(signature.positional, args))
        for name, value in kwargs.items():
            if name not in signature.positional + signature.keyword_only:
                raise _type_error(f"{op}() got an unexpected keyword argument `{name}`")
            if name in bound:
                raise _type_error(f"{op}() got multiple values for argument `{name}`")
            bound[name] = value
        missing = [p for p in signature.positional[:signature.required] if p not in bound]
        if missing:
            raise _type_error(f"{op}() missing required argument `{missing[0]}`")
        return await getattr(self, method)(**bound)

    # -- files ----------------------------------------------------------------------------------

    async def glob(self, pattern: str) -> list[str]:
        compiled = self._pattern(pattern, "files.glob", "pattern")
        found = await anyio.to_thread.run_sync(walk_files, self.root, compiled, GLOB_LIMIT)
        if len(found) > GLOB_LIMIT:
            raise world_error(f"files.glob(`{pattern}`) matches more than {GLOB_LIMIT} files")
        return found

    async def read_file(self, path: str) -> str:
        _require_str("files.read", "path", path)

        try:
            data = await anyio.to_thread.run_sync(read_workspace_file, self.root, path, READ_LIMIT)
        except WorkspacePathError as exc:
            raise world_error(f"files.read: {exc}") from None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise world_error(f"files.read: `{path}` is not UTF-8 text (byte {exc.start})") from None

    async def grep(self, pattern: str, glob: str | None = None) -> list[Record]:
        _require_str("files.grep", "pattern", pattern)
        compiled = self._pattern("**" if glob is None else glob, "files.grep", "glob", optional=True)
        files = await anyio.to_thread.run_sync(walk_files, self.root, compiled)
        job = {"pattern": pattern, "root": str(self.root), "files": files,
               "sniff": GREP_SNIFF_BYTES, "max_matches": GREP_MATCH_LIMIT, "max_bytes": GREP_BYTES_LIMIT}
        done = await run_process(
            [sys.executable, "-I", "-m", GREP_WORKER, str(math.ceil(self.grep_timeout_s) + 1)],
            what="files.grep", cwd=self.root,
            env={"PATH": os.defpath}, timeout_s=self.grep_timeout_s,
            output_limit=GREP_WORKER_OUTPUT_LIMIT, stdin_data=json.dumps(job).encode(),
            timeout_message=f"files.grep: pattern took too long (over {self.grep_timeout_s:g} s): `{pattern}`")
        try:
            answer = json.loads(done.stdout)
        except ValueError:
            tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:]
            raise world_error(f"files.grep: the search failed ({' '.join(tail) or done.exit_code})") from None
        error = answer.get("error")
        if error == "pattern":
            raise ScriptError("ValueError", f"files.grep: invalid regular expression `{pattern}`: "
                                            f"{answer['message']}")
        if error == "matches":
            raise world_error(f"files.grep(`{pattern}`) has more than {GREP_MATCH_LIMIT} matches")
        if error == "bytes":
            raise world_error(f"files.grep(`{pattern}`) matches more than {format_size(GREP_BYTES_LIMIT)} of text")
        return [grep_match(path, line, text) for path, line, text in answer["matches"]]

    def _pattern(self, pattern: Any, op: str, name: str, optional: bool = False) -> GlobPattern:
        if not isinstance(pattern, str):
            raise _type_error(f"{op}() argument `{name}` must be str{' or None' if optional else ''}, "
                              f"not {type(pattern).__name__}")
        try:
            return GlobPattern(pattern)
        except WorkspacePathError as exc:
            raise world_error(f"{op}: {exc}") from None

    # -- git ------------------------------------------------------------------------------------

    async def changed_files(self, base: str | None = None) -> list[str]:
        _require_optional_str("git.changed_files", "base", base)
        prefix = await self._git_prefix("git.changed_files")
        _, entries = await self._status(prefix)
        if base is None:
            paths = {path for _, path in entries}
        else:
            _check_revision("git.changed_files", base)
            out = await self._git("git.changed_files", "diff", "--name-only", "-z", "--no-renames",
                                  "--relative", "--end-of-options", base, "--", ".")
            paths = {p for p in out.split("\0") if p and not _internal(p)}
            paths |= {path for kind, path in entries if kind == "untracked"}
        return sorted(paths)

    async def diff(self, base: str | None = None, path: str | None = None) -> str:
        _require_optional_str("git.diff", "base", base)
        _require_optional_str("git.diff", "path", path)
        await self._git_prefix("git.diff")
        if base is None:
            base = "HEAD" if await self._has_head() else await self._empty_tree()
        else:
            _check_revision("git.diff", base)
        pathspec = "."
        if path is not None:
            try:
                parts = relative_parts(path)
            except WorkspacePathError as exc:
                raise world_error(f"git.diff: {exc}") from None
            if parts:
                try:
                    resolved = self.root.joinpath(*parts).resolve()
                except (OSError, RuntimeError):  # a symlink loop
                    raise world_error(f"git.diff: `{path}`: too many levels of symbolic links") from None
                if not inside_workspace(self.root, resolved):
                    raise world_error(f"git.diff: `{path}` resolves outside the workspace")
                pathspec = ":(literal)" + "/".join(parts)
        return await self._git("git.diff", "diff", "--no-color", "--no-ext-diff", "--no-textconv",
                               "--relative", "--end-of-options", base, "--", pathspec, limit=DIFF_LIMIT)

    async def status(self) -> Record:
        branch, entries = await self._status(await self._git_prefix("git.status"))
        groups: dict[str, set[str]] = {"staged": set(), "unstaged": set(), "untracked": set()}
        for kind, path in entries:
            groups[kind].add(path)
        staged, unstaged, untracked = (sorted(groups[k]) for k in ("staged", "unstaged", "untracked"))
        return git_status(branch, not (staged or unstaged or untracked), staged, unstaged, untracked)

    async def log(self, count: int = LOG_DEFAULT) -> list[Record]:
        if not isinstance(count, int) or isinstance(count, bool):
            raise _type_error(f"git.log() argument `count` must be int, not {type(count).__name__}")
        if not 1 <= count <= LOG_LIMIT:
            raise world_error(f"git.log: count must be between 1 and {LOG_LIMIT}, not {count}")
        prefix = await self._git_prefix("git.log")
        if not await self._has_head():
            return []
        only_workspace = ["--", "."] if prefix else []
        out = await self._git("git.log", "log", f"--max-count={count}", "--no-color", "-z",
                              "--format=%H%x00%an%x00%aI%x00%s", *only_workspace)
        fields = out.split("\0")
        if fields and fields[-1] == "":
            fields.pop()
        return [git_commit(hash=fields[i], author=fields[i + 1], date=fields[i + 2], subject=fields[i + 3])
                for i in range(0, len(fields) - 3, 4)]

    async def _status(self, prefix: str) -> tuple[str | None, list[tuple[str, str]]]:
        """The branch (None when detached) and (staged|unstaged|untracked, path) entries of `git
        status`, restricted to the workspace, workspace-relative, without `.git`/`.dwf` paths.
        Unmerged paths count as unstaged."""
        out = await self._git("git.status", "status", "--porcelain=v2", "--branch", "-z",
                              "--untracked-files=all", "--no-renames", "--", ".")
        branch: str | None = None
        entries: list[tuple[str, str]] = []
        for record in out.split("\0"):
            if record.startswith("# branch.head "):
                head = record.removeprefix("# branch.head ")
                branch = None if head == "(detached)" else head
            elif record.startswith("? "):
                entries.append(("untracked", record[2:]))
            elif record.startswith("1 "):
                fields = record.split(" ", 8)  # 1 XY sub mH mI mW hH hI path
                if fields[1][0] != ".":
                    entries.append(("staged", fields[8]))
                if fields[1][1] != ".":
                    entries.append(("unstaged", fields[8]))
            elif record.startswith("u "):
                entries.append(("unstaged", record.split(" ", 10)[10]))  # u XY sub m1 m2 m3 mW h1 h2 h3 path
        relative = [(kind, path[len(prefix):]) for kind, path in entries if path.startswith(prefix)]
        return branch, [(kind, path) for kind, path in relative if path and not _internal(path)]

    async def _git_prefix(self, op: str) -> str:
        """The workspace's path inside its repository ("" at the top); `WorldError` outside one."""
        out = await self._git(op, "rev-parse", "--is-inside-work-tree", "--show-prefix")
        lines = out.split("\n")
        if lines[0] != "true":
            raise world_error(f"{op}: the workspace is not inside a git work tree: {self.root}")
        return lines[1] if len(lines) > 1 else ""

    async def _has_head(self) -> bool:
        done = await self._git_raw("git", "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
        return done.exit_code == 0

    async def _empty_tree(self) -> str:
        return (await self._git("git", "hash-object", "-t", "tree", os.devnull)).strip()

    async def _git(self, what: str, *argv: str, limit: int = GIT_OUTPUT_LIMIT) -> str:
        done = await self._git_raw(what, *argv, limit=limit)
        if done.exit_code != 0:
            message = done.stderr.decode("utf-8", "replace").strip()
            if "not a git repository" in message:
                raise world_error(f"{what}: the workspace is not a git repository: {self.root}")
            raise world_error(f"{what}: git {argv[0]} failed: {message.splitlines()[0] if message else done.exit_code}")
        return done.stdout.decode("utf-8", "replace")

    async def _git_raw(self, what: str, *argv: str, limit: int = GIT_OUTPUT_LIMIT) -> Completed:
        env = {k: v for k, v in sanitized_environment(self.env).items() if not k.startswith("GIT_")}
        env.update(PATH=command_path(), LC_ALL="C", GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0")
        git = resolve_program("git", self.root, what)
        command = [git, "--no-pager", "-c", "core.fsmonitor=false", "-c", "core.quotepath=false",
                   "-c", "color.ui=false", *argv]
        command = self.sandbox.wrap(command, writable=None, cwd=self.root, what=what)  # reads write nothing
        return await run_process(command, what=what, cwd=self.root, env=env, timeout_s=GIT_TIMEOUT_S,
                                 output_limit=limit, overflow_message=f"{what}: output is larger than {format_size(limit)}")

    # -- commands -------------------------------------------------------------------------------

    async def run(self, cmd: str, args: Sequence[str] = (), timeout_s: float = RUN_TIMEOUT_DEFAULT_S) -> Record:
        """Run the approved command `cmd` (see the module docstring); a nonzero exit is a result."""
        _require_str("world.run", "cmd", cmd)
        if cmd not in self.allowed_commands:
            raise FatalError("CommandNotApproved", f"command `{cmd}` is not in the approved command set")
        if not isinstance(args, (list, tuple)) or not all(isinstance(a, str) for a in args):
            raise _type_error("world.run() argument `args` must be a list of str")
        if any("\0" in a for a in args):
            raise ScriptError("ValueError", "world.run() arguments must not contain NUL bytes")
        if not isinstance(timeout_s, (int, float)) or isinstance(timeout_s, bool):
            raise _type_error(f"world.run() argument `timeout_s` must be a number, not {type(timeout_s).__name__}")
        if not (timeout_s > 0 and math.isfinite(timeout_s)):
            raise ScriptError("ValueError", f"world.run() argument `timeout_s` must be positive, not {timeout_s}")
        what = f"command `{cmd}`"
        checked = check_arguments(cmd, args, approved=self.approved_arguments.get(cmd, ()), root=self.root,
                                  programs=self.allowed_commands, what=what)
        program = resolve_program(cmd, self.root, what)
        argv = self.sandbox.wrap([program, *checked], writable=self.root, cwd=self.root, what=what)
        done = await run_process(argv, what=what, cwd=self.root, env=command_environment(cmd, self.env),
                                 timeout_s=float(timeout_s), output_limit=RUN_OUTPUT_LIMIT)
        return run_result(done.exit_code, done.stdout.decode("utf-8", "replace"),
                          done.stderr.decode("utf-8", "replace"))


def command_environment(cmd: str, overrides: Mapping[str, str]) -> dict[str, str]:
    """The environment of the approved command `cmd`: the sanitized one with the fixed `PATH`
    (`sandbox.command_path`), plus what its argument rules add (`program_environment`: git's safe configuration)."""
    return {**sanitized_environment(overrides), "PATH": command_path(), **program_environment(cmd)}


def _require_str(op: str, name: str, value: Any) -> None:
    if not isinstance(value, str):
        raise _type_error(f"{op}() argument `{name}` must be str, not {type(value).__name__}")


def _require_optional_str(op: str, name: str, value: Any) -> None:
    if value is not None and not isinstance(value, str):
        raise _type_error(f"{op}() argument `{name}` must be str or None, not {type(value).__name__}")


def _internal(path: str) -> bool:
    return any(part in INTERNAL_DIRS for part in path.split("/"))


def _check_revision(op: str, base: str) -> None:
    if not base or base.startswith("-") or "\0" in base or base.strip() != base:
        raise world_error(f"{op}: `{base}` is not a revision")
