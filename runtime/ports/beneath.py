"""This module defines how DWF opens a path inside the workspace so that it can never end up
outside it, even while another process swaps directories and symbolic links under it:
`open_beneath` and `Beneath`, the workspace root held open as a descriptor.

The algorithm. A path is resolved one component at a time, each component opened relative to the
descriptor of the directory before it (`dir_fd`) with `O_NOFOLLOW`, so the kernel never follows
a link on DWF's behalf: a directory that is swapped for a symlink between two calls is refused
(`ENOTDIR`/`ELOOP`) instead of followed. A symbolic link inside the workspace is still honoured,
but DWF reads its text (`readlink` relative to the same descriptor) and resolves that text with
the same walk: `..` pops the stack of open directories and is refused at the root; an absolute
target counts only when it names the workspace root or a path below it (the root's own resolved
path is the one absolute prefix accepted). After `MAX_SYMLINKS` links the path is a loop. So
every descriptor returned was reached through directories that were, at the moment each was
opened, real directories below the root: there is no window in which a swap can redirect the walk.

Every failure is a `WorkspacePathError` with a message a script author can act on (no such
file, a broken or looping link, a path outside the workspace, `.git/` or `.dwf/`). The module
imports only the standard library: the grep worker (`grep_worker.py`) opens its files with it.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Sequence

INTERNAL_DIRS = frozenset({".git", ".dwf"})
MAX_SYMLINKS = 40  # Linux's own limit for one path lookup
DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # NONBLOCK: a FIFO never blocks


class WorkspacePathError(Exception):
    """A path names something outside the workspace, or nothing readable inside it."""


def open_beneath(root_fd: int, root_path: str, parts: Sequence[str], name: str) -> tuple[int, tuple[str, ...]]:
    """A read-only descriptor of the workspace path `parts` (already split and free of `..`),
    and the components it resolved to, walked from the directory descriptor `root_fd` whose
    resolved path is `root_path` (see the module docstring). `name` is the path as the script
    wrote it, for messages. The caller closes the descriptor."""
    stack = [os.dup(root_fd)]
    resolved: list[str] = []
    pending = list(reversed(parts))
    links = 0
    try:
        while pending:
            component = pending.pop()
            if component in ("", "."):
                continue
            if component == "..":
                if not resolved:
                    raise WorkspacePathError(f"`{name}` resolves outside the workspace")
                os.close(stack.pop())
                resolved.pop()
                continue
            if component in INTERNAL_DIRS:
                raise WorkspacePathError(f"`{name}` resolves inside `.git/` or `.dwf/`")
            last = not pending
            try:
                fd = os.open(component, FILE_FLAGS if last else DIRECTORY_FLAGS, dir_fd=stack[-1])
            except OSError as exc:
                target = _link_text(component, stack[-1]) if exc.errno in (errno.ELOOP, errno.ENOTDIR) else None
                if target is None:
                    raise _open_error(exc, name, links) from None
                links += 1
                if links > MAX_SYMLINKS:
                    raise WorkspacePathError(f"`{name}`: too many levels of symbolic links (a symlink loop)") from None
                if target.startswith("/"):
                    inner = _below_root(target, root_path)
                    if inner is None:
                        raise WorkspacePathError(f"`{name}` resolves outside the workspace") from None
                    while len(stack) > 1:
                        os.close(stack.pop())
                    resolved.clear()
                    target = inner
                pending.extend(reversed(target.split("/")))
                continue
            if last:
                return fd, (*resolved, component)
            stack.append(fd)
            resolved.append(component)
        # The path named a directory (the root itself, or one reached through `..`).
        return os.dup(stack[-1]), tuple(resolved)
    finally:
        for fd in stack:
            os.close(fd)


def _link_text(component: str, dir_fd: int) -> str | None:
    try:
        return os.readlink(component, dir_fd=dir_fd)
    except OSError:
        return None  # not a symbolic link (or it changed again): the open's error stands


def _below_root(target: str, root_path: str) -> str | None:
    if target == root_path:
        return ""
    prefix = root_path.rstrip("/") + "/"
    return target[len(prefix):] if target.startswith(prefix) else None


def _open_error(exc: OSError, name: str, links: int) -> WorkspacePathError:
    if exc.errno == errno.ENOENT:
        return WorkspacePathError(f"`{name}` is a broken symbolic link" if links else f"no such file: `{name}`")
    if exc.errno == errno.ENOTDIR:
        return WorkspacePathError(f"`{name}`: a component of the path is not a directory")
    return WorkspacePathError(f"cannot open `{name}`: {exc.strerror}")


class Beneath:
    """The workspace root held open: `Beneath(root)` opens the resolved directory `root` once,
    and `open_file`/`open_directory`/`is_regular_file` resolve paths below it with `open_beneath`. Use it as a
    context manager, or call `close`."""

    def __init__(self, root: str | os.PathLike) -> None:
        self.path = os.fspath(root)
        self.fd = os.open(self.path, DIRECTORY_FLAGS)

    def __enter__(self) -> Beneath:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def close(self) -> None:
        os.close(self.fd)

    def open_file(self, parts: Sequence[str], name: str) -> int:
        """A descriptor of the regular file `parts`; `WorkspacePathError` for anything else."""
        fd, _ = open_beneath(self.fd, self.path, parts, name)
        mode = os.fstat(fd).st_mode
        if stat.S_ISREG(mode):
            return fd
        os.close(fd)
        raise WorkspacePathError(f"`{name}` is a directory" if stat.S_ISDIR(mode) else f"`{name}` is not a regular file")

    def open_directory(self, parts: Sequence[str], name: str) -> int:
        """A descriptor of the directory `parts` (the root for none), to create a file in with
        `dir_fd`; `WorkspacePathError` for anything else."""
        fd, _ = open_beneath(self.fd, self.path, parts, name) if parts else (os.dup(self.fd), ())
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            return fd
        os.close(fd)
        raise WorkspacePathError(f"`{name}`: a component of the path is not a directory")

    def is_regular_file(self, parts: Sequence[str]) -> bool:
        """Whether `parts` resolves, inside the workspace, to a regular file."""
        try:
            os.close(self.open_file(parts, "/".join(parts)))
        except (WorkspacePathError, OSError):
            return False
        return True


__all__ = ["Beneath", "DIRECTORY_FLAGS", "FILE_FLAGS", "INTERNAL_DIRS", "MAX_SYMLINKS", "WorkspacePathError",
           "open_beneath"]
