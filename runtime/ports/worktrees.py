"""This module defines the git worktrees of isolated actors (`agent(name, isolation="worktree")`):
`GitWorktrees`, which the engine uses to give such an actor its own checkout of the workspace's
`HEAD`, to tell the script what the actor changed (`git.worktree(actor)`) and to clean up when
the run completes; and `check_isolation`, the start-time check that the workspace is a git
repository with a commit.

Layout. The worktree of actor A in run R is `<workspace>/.dwf/worktrees/<R>/<A>` on the branch
`dwf/<R-short>/<A>` (R-short: the first 12 hex digits of the run id; A: the actor's name, or its
occurrence key, made safe for a path and a ref name). When the workspace is a folder inside its
repository, the actor's root is that folder inside the worktree. The actor's file tools and
commands are rooted there (`runtime.ports.actor_tools`), so the sandbox's only writable path for
its commands is the worktree, not the workspace.

Journal. Creation is journaled (a `worktree-created` event with the actor, branch, path and base
commit; the worktrees' folder goes into the repository's `info/exclude`, so the main tree's
`git status` and `git add -A` never see it); a resume re-attaches to the same worktree (the folder is reused when it is still
registered on its branch, else re-added from the branch). `snapshot` commits whatever the
actor left uncommitted onto its branch (hooks off, a fixed DWF author) and returns the branch,
base, head, the changed files and the diff against the base. When a run completes, `finish`
snapshots each worktree, removes it, and deletes its branch unless it holds changes (those
branches are kept and listed by `dwfc show`); a run that fails or stops keeps its worktrees
for its resume.

The git commands here are DWF's own bookkeeping, not commands of the script: they run without
the command sandbox (they must write the repository's `.git`), with the sanitized environment,
no `GIT_*` variables from the host, hooks and fsmonitor off, under a deadline.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import anyio

from dwf.compiler import ir

from dwf.runtime.values.errors import world_error
from dwf.runtime.ports.process import MIB, Completed, run_process, sanitized_environment
from dwf.runtime.ports.sandbox import command_path

WORKTREES_DIR = ".dwf/worktrees"
BRANCH_PREFIX = "dwf"
GIT_TIMEOUT_S = 120.0
GIT_OUTPUT_LIMIT = 16 * MIB
DIFF_LIMIT = 512 * 1024  # bytes of `git.worktree(actor).diff`, as `git.diff` (over it: WorldError)
AUTHOR = ("-c", "user.name=DWF", "-c", "user.email=dwf@localhost")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class WorktreeError(Exception):
    """A worktree cannot be made or read (one sentence that names the actor)."""


@dataclass(frozen=True)
class Worktree:
    """One isolated actor's worktree: where it is, its branch and the commit it started from."""

    actor: str  # the actor's name, or its occurrence key
    key: str  # the actor's occurrence key
    branch: str
    path: Path  # the worktree's top
    root: Path  # the actor's workspace inside it (the top, or the workspace's folder in the repo)
    base: str  # the commit of the workspace's HEAD it was made from

    def to_json(self, workspace: Path) -> dict:
        return {"actor": self.actor, "key": self.key, "branch": self.branch, "base": self.base,
                "path": os.path.relpath(self.path, workspace), "root": os.path.relpath(self.root, workspace)}


def slug(text: str) -> str:
    """`text` made safe as one path component and one ref-name component; a text that had to
    change gets a short hash of itself, so two actors never share a folder or a branch."""
    cleaned = (_UNSAFE.sub("-", text).strip("-.") or "actor")[:80]
    if cleaned != text:
        cleaned += "-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
    return cleaned


def isolated_actors(program: ir.Program) -> list[str]:
    """The names (or sites) of the program's `agent(..., isolation="worktree")` calls."""
    found: list[str] = []
    for node in _walk(program.body):
        if node.op == "agent":
            isolation = next((k.value for k in node.keywords if k.name == "isolation"), None)
            if isinstance(isolation, ir.Const) and isolation.value == "worktree":
                name = node.args[0] if node.args else next((k.value for k in node.keywords if k.name == "name"), None)
                found.append(f"\"{name.value}\"" if isinstance(name, ir.Const) and isinstance(name.value, str)
                             else f"at {node.site}")
    return found


def _walk(node):
    """Every facade call under `node`, in source order."""
    if isinstance(node, ir.FacadeCall):
        yield node
    if isinstance(node, ir.Node):
        for name in node.__dataclass_fields__:
            if name != "span":
                yield from _walk(getattr(node, name))
    elif isinstance(node, (tuple, list)):
        for item in node:
            yield from _walk(item)


def check_isolation(program: ir.Program, workspace: str | os.PathLike | None) -> list[str]:
    """The problems that stop a run with isolated actors from starting: no workspace, a workspace
    that is not inside a git work tree, or a repository without a commit (one line each)."""
    actors = isolated_actors(program)
    if not actors:
        return []
    who = f"actor{'s' if len(actors) > 1 else ''} {', '.join(actors)}"
    if workspace is None:
        return [f"{who} asks for isolation=\"worktree\", but this run has no workspace"]
    problem = repository_problem(Path(workspace))
    if problem:
        return [f"{who} asks for isolation=\"worktree\", but {problem}; run `git init` and commit, or drop "
                "`isolation=`"]
    return []


def repository_problem(workspace: Path) -> str | None:
    """Why `workspace` cannot hold worktrees, or None (a quick synchronous check at start)."""
    git = shutil.which("git", path=command_path())
    if git is None:
        return "git is not installed"
    env = _environment()
    inside = subprocess.run([git, "rev-parse", "--is-inside-work-tree"], cwd=workspace, env=env,
                            capture_output=True, text=True, timeout=GIT_TIMEOUT_S)
    if inside.returncode != 0 or inside.stdout.strip() != "true":
        return f"the workspace {workspace} is not a git repository"
    head = subprocess.run([git, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"], cwd=workspace, env=env,
                          capture_output=True, text=True, timeout=GIT_TIMEOUT_S)
    if head.returncode != 0:
        return f"the git repository of {workspace} has no commit yet"
    return None


def repository_identity(workspace: str | os.PathLike) -> str:
    """What names the repository a workspace is, the same in every checkout of it: `git ROOTS
    [PREFIX]` (its root commits, and the workspace's folder inside it), or `dir PATH` (the
    absolute path) for a folder outside git or in a repository without a commit. A run on a
    cluster names its workspace so; workers of another repository refuse it (runtime/temporal)."""
    workspace = Path(workspace).resolve()
    git = shutil.which("git", path=command_path())
    if git is not None:
        env = _environment()
        roots = subprocess.run([git, "rev-list", "--max-parents=0", "HEAD"], cwd=workspace, env=env,
                               capture_output=True, text=True, timeout=GIT_TIMEOUT_S)
        prefix = subprocess.run([git, "rev-parse", "--show-prefix"], cwd=workspace, env=env,
                                capture_output=True, text=True, timeout=GIT_TIMEOUT_S)
        if roots.returncode == 0 and roots.stdout.split() and prefix.returncode == 0:
            folder = prefix.stdout.strip().rstrip("/")
            return f"git {','.join(sorted(roots.stdout.split()))}" + (f" {folder}" if folder else "")
    return f"dir {workspace}"


def _environment() -> dict[str, str]:
    env = {k: v for k, v in sanitized_environment({}).items() if not k.startswith("GIT_")}
    env.update(PATH=command_path(), LC_ALL="C", GIT_TERMINAL_PROMPT="0")
    return env


class GitWorktrees:
    """The worktrees of one workspace's runs (module docstring)."""

    def __init__(self, workspace: str | os.PathLike):
        self.workspace = Path(workspace).resolve()
        # `git worktree add/prune/remove` of one repository one at a time: a prune running
        # beside an add could drop the half-made worktree's registration
        self._registry = anyio.Lock()

    def place(self, run_id: str, actor_label: str) -> tuple[Path, str]:
        """The folder and branch of an actor's worktree in a run."""
        run = run_id.removeprefix("dwfrun-")
        name = slug(actor_label)
        return self.workspace / WORKTREES_DIR / slug(run) / name, f"{BRANCH_PREFIX}/{slug(run)[:12]}/{name}"

    async def attach(self, run_id: str, actor_label: str, key: str, known: dict | None = None) -> Worktree:
        """The actor's worktree: `known` (its journaled `worktree-created` payload, on a resume)
        is re-attached; otherwise a new one is made from the workspace's HEAD."""
        async with self._registry:
            return await self._attach(run_id, actor_label, key, known)

    async def _attach(self, run_id: str, actor_label: str, key: str, known: dict | None) -> Worktree:
        if known is not None:
            path = self.workspace / known["path"]
            worktree = Worktree(known["actor"], key, known["branch"], path, self.workspace / known["root"], known["base"])
            if not await self._on_branch(path, worktree.branch):
                await self._git(actor_label, "worktree", "prune")
                if path.exists():
                    shutil.rmtree(path)
                await self._git(actor_label, "worktree", "add", "--quiet", str(path), worktree.branch)
            return worktree
        path, branch = self.place(run_id, actor_label)
        prefix = (await self._git(actor_label, "rev-parse", "--show-prefix")).strip()
        base = (await self._git(actor_label, "rev-parse", "--verify", "HEAD^{commit}")).strip()
        path.parent.mkdir(parents=True, exist_ok=True)
        await self._exclude(actor_label, prefix)
        await self._git(actor_label, "worktree", "prune")
        if path.exists():  # a crash between `worktree add` and its journal event: start it again
            shutil.rmtree(path)
        exists = (await self._run(actor_label, self.workspace, "rev-parse", "--verify", "--quiet",
                                  f"refs/heads/{branch}")).exit_code == 0
        if exists:
            await self._git(actor_label, "branch", "--quiet", "--force", branch, base)
            await self._git(actor_label, "worktree", "add", "--quiet", str(path), branch)
        else:
            await self._git(actor_label, "worktree", "add", "--quiet", "-b", branch, str(path), base)
        root = path / prefix if prefix else path
        root.mkdir(parents=True, exist_ok=True)
        return Worktree(actor_label, key, branch, path, root, base)

    async def snapshot(self, worktree: Worktree, run_id: str) -> dict:
        """Commit what the actor left uncommitted onto its branch; then its branch, base, head,
        changed files (workspace-relative) and diff against the base."""
        label = worktree.actor
        status = await self._git(label, "status", "--porcelain", "--untracked-files=all", cwd=worktree.path)
        if status.strip():
            await self._git(label, "add", "--all", cwd=worktree.path)
            await self._git(label, *AUTHOR, "commit", "--quiet", "--no-verify", "--no-gpg-sign", "-m",
                            f"dwf: changes of actor {label} in run {run_id}", cwd=worktree.path)
        head = (await self._git(label, "rev-parse", "HEAD", cwd=worktree.path)).strip()
        scope = os.path.relpath(worktree.root, worktree.path)
        names = await self._git(label, "diff", "--name-only", "-z", "--no-renames", worktree.base, head, "--", scope,
                                cwd=worktree.path)
        prefix = "" if scope == "." else scope.rstrip("/") + "/"
        changed = sorted(name[len(prefix):] for name in names.split("\0") if name and name.startswith(prefix))
        diff = await self._git(label, "diff", "--no-color", "--no-ext-diff", "--relative" if prefix else "--no-relative",
                               worktree.base, head, "--", scope, cwd=worktree.path)
        if len(diff.encode("utf-8")) > DIFF_LIMIT:
            raise world_error(f"git.worktree: the diff of actor {label} is over {DIFF_LIMIT // 1024} KiB; read "
                              f"the branch {worktree.branch} with an approved `git` command instead")
        return {"actor": label, "branch": worktree.branch, "base": worktree.base, "head": head,
                "changed_files": changed, "diff": diff}

    async def finish(self, worktree: Worktree, run_id: str) -> dict:
        """A completed run's end for one worktree: snapshot it, remove the folder, and delete the
        branch unless it holds changes. Returns what happened (the `worktree-removed` payload)."""
        if worktree.path.exists():
            changes = await self.snapshot(worktree, run_id)
            async with self._registry:
                await self._git(worktree.actor, "worktree", "remove", "--force", str(worktree.path))
        else:
            changes = {"changed_files": [], "head": worktree.base}
            async with self._registry:
                await self._git(worktree.actor, "worktree", "prune")
        kept = bool(changes["changed_files"]) or changes["head"] != worktree.base
        if not kept:
            await self._run(worktree.actor, self.workspace, "branch", "--quiet", "-D", worktree.branch)
        for folder in (worktree.path.parent, worktree.path.parent.parent):  # the run's, then `.dwf/worktrees`
            if folder.is_dir() and not any(folder.iterdir()):
                folder.rmdir()
        return {"actor": worktree.actor, "key": worktree.key, "branch": worktree.branch, "kept": kept,
                "head": changes["head"], "changed_files": changes["changed_files"]}

    async def _exclude(self, label: str, prefix: str) -> None:
        """Keep the worktrees out of the main tree's `git status` and `git add -A`: their folder
        goes into the repository's `info/exclude` (once), whatever its `.gitignore` says."""
        common = Path((await self._git(label, "rev-parse", "--git-common-dir")).strip())
        exclude = (common if common.is_absolute() else self.workspace / common) / "info" / "exclude"
        pattern = f"/{prefix}{WORKTREES_DIR}/"
        text = exclude.read_text(encoding="utf-8") if exclude.exists() else ""
        if pattern not in text.splitlines():
            exclude.parent.mkdir(parents=True, exist_ok=True)
            with open(exclude, "a", encoding="utf-8") as handle:
                handle.write(("" if not text or text.endswith("\n") else "\n")
                             + "# the worktrees of DWF's isolated actors\n" + pattern + "\n")

    # -- git

    async def _on_branch(self, path: Path, branch: str) -> bool:
        if not (path / ".git").exists():
            return False
        done = await self._run(branch, path, "symbolic-ref", "--quiet", "HEAD")
        return done.exit_code == 0 and done.stdout.decode().strip() == f"refs/heads/{branch}"

    async def _git(self, label: str, *argv: str, cwd: Path | None = None) -> str:
        done = await self._run(label, cwd or self.workspace, *argv)
        if done.exit_code != 0:
            message = done.stderr.decode("utf-8", "replace").strip()
            first = message.splitlines()[0] if message else f"exit code {done.exit_code}"
            raise WorktreeError(f"the worktree of actor {label}: git {argv[0] if argv[0] != '-c' else 'commit'} "
                                f"failed: {first}")
        return done.stdout.decode("utf-8", "replace")

    async def _run(self, label: str, cwd: Path, *argv: str) -> Completed:
        git = shutil.which("git", path=command_path())
        if git is None:
            raise WorktreeError(f"the worktree of actor {label}: git is not installed")
        command = [git, "--no-pager", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null",
                   "-c", "core.quotepath=false", "-c", "color.ui=false", *argv]
        return await run_process(command, what=f"git ({label}'s worktree)", cwd=cwd, env=_environment(),
                                 timeout_s=GIT_TIMEOUT_S, output_limit=GIT_OUTPUT_LIMIT)


__all__ = ["GitWorktrees", "Worktree", "WorktreeError", "check_isolation", "isolated_actors", "repository_problem",
           "slug", "repository_identity", "WORKTREES_DIR"]
