"""This module defines where DWF keeps its state on disk, and how it writes a file there.

A workspace's state lives in one folder, `<workspace>/.dwf/` (`StateDir`):

    .dwf/state.db                  the journal (`journal/sqlite.py`)
    .dwf/runs/                     run control: owner records, cancel requests, `.lock` (`journal/control.py`)
    .dwf/questions/                escalations and their answers (`ports/questions.py`)
    .dwf/artifacts/<run id>/       published artifacts and reports (`ports/artifacts.py`)
    .dwf/workflows/                saved workflows of scope "project" (`host/saved.py`)
    .dwf/drafts/                   drafts a host agent submitted inline (`host/drafts.py`)
    .dwf/agents/                   agent definitions (`ports/agent_definitions.py`)
    .dwf/cache/                    compile results of unchanged scripts (`engine/compile_cache.py`)

and the user's in one more, `$DWF_HOME` (`dwf_home()`, `~/.dwf` by default), which holds the
global `workflows/` and `agents/`, and `cache.key`, the key the compile cache authenticates its
entries with. Every other module asks this one for a path instead of spelling a folder name, so
the layout is stated once.

Confinement. A workspace's state stays inside the workspace: each path of the default state
folder is checked when it is asked for, and a `.dwf` that is a symbolic link, or a first-level
folder in it (`.dwf/runs`, `.dwf/artifacts`, ...) that is one, is refused with `StateDirError`,
so a planted link cannot send the journal, reports or artifacts elsewhere; `stage` refuses to
write into a folder that is a symbolic link for the same reason (an artifact run folder). A
state folder named explicitly (`folder=`, a journal kept outside the workspace) is the caller's
choice and is not checked.

`write_atomic` is the one way a file in these folders is written when a reader must never see it
half written: the data goes to a temporary file `.<name>.<random>.tmp` in the target's folder
(never matching a `*.dwf.py` or `*.json` listing), is fsynced, and is then renamed over the
target, or, with `exclusive`, hard-linked as the target, which fails when the target exists, so of
two writers exactly one wins. `stage` is its first half, for a caller that picks the final name
later (an artifact version is numbered under a lock, after the data is staged).
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

STATE_DIR_NAME = ".dwf"
JOURNAL_NAME = "state.db"
HOME_VARIABLE = "DWF_HOME"
DEFAULT_HOME = "~/.dwf"
FILE_MODE = 0o666  # the mode of a new file before the umask: what `open()` would create
PRIVATE_MODE = 0o600  # owner only: the mode questions, answers and artifacts have always had
SCOPES = ("project", "global")  # where saved workflows live: the workspace's `.dwf/`, or `$DWF_HOME`


class StateDirError(PermissionError):
    """A state path is a symbolic link or resolves outside the workspace: DWF refuses to use it.
    A `PermissionError`, so every caller that reports an unwritable state folder reports this."""


class StateDir:
    """`StateDir(root)`: the state folder `<root>/.dwf` of the workspace `root`, and the path of
    everything DWF keeps in it (see the module docstring). `folder` names another state folder
    (a journal kept outside the workspace keeps its control files next to it); nothing is
    created until a writer needs it."""

    def __init__(self, root: str | os.PathLike, *, folder: str | os.PathLike | None = None) -> None:
        self.root = Path(root)
        self.confined = folder is None
        self.folder = Path(folder) if folder is not None else self.root / STATE_DIR_NAME

    @classmethod
    def of_journal(cls, journal_path: str | os.PathLike) -> StateDir:
        """The state folder a journal file lies in (its parent folder, `.dwf/` by default)."""
        folder = Path(journal_path).parent
        return cls(folder.parent, folder=folder)

    def __repr__(self) -> str:
        return f"StateDir({str(self.folder)!r})"

    @property
    def journal(self) -> Path:
        """The SQLite journal, `.dwf/state.db`."""
        return self._inside(JOURNAL_NAME)

    @property
    def runs(self) -> Path:
        """The run-control folder: owner records, cancel requests and the claim lock."""
        return self._inside("runs")

    @property
    def questions(self) -> Path:
        """Escalated questions (`<id>.json`) and their answers (`<id>.answer`)."""
        return self._inside("questions")

    @property
    def artifacts(self) -> Path:
        """Published artifacts, one folder per run."""
        return self._inside("artifacts")

    @property
    def workflows(self) -> Path:
        """The saved workflows of scope "project"."""
        return self._inside("workflows")

    @property
    def drafts(self) -> Path:
        """The drafts a host agent submitted inline."""
        return self._inside("drafts")

    @property
    def cache(self) -> Path:
        """The compile cache: one authenticated entry per compiled script text."""
        return self.folder / "cache"

    @property
    def agents(self) -> Path:
        """The workspace's agent definitions (`<name>.md`)."""
        return self._inside("agents")

    def _inside(self, name: str) -> Path:
        """`folder/name`, refused when the default state folder or that entry is a symbolic link."""
        path = self.folder / name
        if self.confined:
            for candidate in (self.folder, path):
                if candidate.is_symlink():
                    raise StateDirError(f"{candidate} is a symbolic link (to {os.readlink(candidate)}); DWF keeps a "
                                        f"workspace's state only inside it: replace the link with a real folder")
        return path


def dwf_home() -> Path:
    """The user's DWF folder: `$DWF_HOME`, else `~/.dwf` (global saved workflows and agents)."""
    return Path(os.environ.get(HOME_VARIABLE) or DEFAULT_HOME).expanduser()


def stage(directory: Path, data: bytes, *, name: str = "staged", mode: int = FILE_MODE) -> Path:
    """Write `data` to a new fsynced temporary file `.<name>.<random>.tmp` in `directory`
    (created with its parents) and return its path; the caller renames it into place."""
    directory.mkdir(parents=True, exist_ok=True)
    if directory.is_symlink():
        raise StateDirError(f"{directory} is a symbolic link (to {os.readlink(directory)}); DWF writes its state "
                            "only into real folders: replace the link with a folder")
    path = directory / f".{name}.{uuid.uuid4().hex}.tmp"
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    return path


def write_atomic(path: Path, data: bytes | str, *, exclusive: bool = False, mode: int = FILE_MODE) -> bool:
    """Write `data` (text is UTF-8) as `path` so that no reader sees a partial file. Without
    `exclusive` it replaces whatever is there; with it, an existing `path` is kept and the call
    returns False (of two exclusive writers exactly one gets True). On a filesystem without hard
    links an exclusive write checks, then renames: still atomic for readers, but two writers
    racing there may both succeed."""
    staged = stage(path.parent, data.encode("utf-8") if isinstance(data, str) else data, name=path.name, mode=mode)
    try:
        if not exclusive:
            os.replace(staged, path)
            return True
        try:
            os.link(staged, path)  # atomic, and fails if the target exists
        except FileExistsError:
            return False
        except OSError:  # no hard links here
            if path.exists():
                return False
            os.replace(staged, path)
        return True
    finally:
        staged.unlink(missing_ok=True)


def same_content(path: Path, data: bytes) -> bool:
    """Whether the file `path` holds exactly `data` (False when it cannot be read)."""
    try:
        return path.stat().st_size == len(data) and path.read_bytes() == data
    except OSError:
        return False


__all__ = ["DEFAULT_HOME", "FILE_MODE", "HOME_VARIABLE", "JOURNAL_NAME", "PRIVATE_MODE", "STATE_DIR_NAME",
           "StateDir", "StateDirError", "dwf_home", "same_content", "stage", "write_atomic"]
