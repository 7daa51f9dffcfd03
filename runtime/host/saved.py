"""This module defines saved workflows (TOOLS §4): named `*.dwf.py` scripts kept in
`<workspace>/.dwf/workflows/` (scope "project") or `$DWF_HOME/workflows/` (scope "global", with
`DWF_HOME` defaulting to `~/.dwf`), and the functions that save, list, find and read them.

- A saved workflow is a normal script: `<name>.dwf.py`, where the name matches `NAME_PATTERN`
  and is not only dots, so a name can never leave its folder. Its `meta` may declare `args`; a
  workflow without them takes no arguments (any given are reported as unknown when it runs).
- Lookup: a project workflow shadows a global one of the same name. `list_saved` still shows
  the hidden global one, marked `shadowed`.
- Saving compiles the script first and refuses one with errors. Saving and listing compile
  through the workspace's compile cache (`engine/compile_cache.py`), so a run of a saved
  workflow, or a script that calls it, does not parse it again. The file is written to a
  temporary file in the same folder and then linked into place (an exclusive create: of two
  savers of one name, exactly one wins) or, with `replace`, renamed over the old file, so a
  reader never sees half a file. Saving byte-identical content again is not an error.
- Listing never fails on a bad file: one that cannot be read or no longer compiles is listed
  with `description` None (and no args), so that `dwfc check` can be pointed at it.
- Inline calls (LANGUAGE §6.3): `resolve_called(program, workspace)` looks up and reads every
  saved workflow a script calls with `await workflow(name)` (the name is a literal: each call is
  a `workflow` site). `engine.prepare` compiles and checks them and reports every problem at
  once (an unknown name, one that does not compile, one that itself calls `workflow()`); their
  scripts are what the engine pins for the run, and their commands join the approved command set.
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from dwf.runtime.engine.compile_cache import CompileCache, compile_script
from dwf.runtime.statedir import SCOPES, StateDir, dwf_home, same_content, write_atomic

if TYPE_CHECKING:
    from dwf.runtime.engine.called import CalledSource

__all__ = ["NAME_PATTERN", "SCOPES", "SavedWorkflow", "SavedWorkflowError", "dwf_home", "find_saved", "global_dir",
           "is_valid_name", "list_saved", "locate_saved", "project_dir", "read_saved", "read_saved_text",
           "resolve_called", "save_workflow"]

NAME_PATTERN = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
SUFFIX = ".dwf.py"
MAX_LISTED_ERRORS = 10  # compile errors quoted when a save is refused


class SavedWorkflowError(Exception):
    """A saved workflow cannot be saved, found or read (one clear sentence saying what to do)."""


@dataclass(frozen=True)
class SavedWorkflow:
    """SavedWorkflow: one saved workflow as `list_saved` and `find_saved` describe it."""

    name: str
    scope: str  # "project" | "global"
    path: Path
    description: str | None  # None: the file cannot be read or no longer compiles
    when_to_use: str | None
    args: dict  # meta's args declaration; {} when it declares none
    shadowed: bool = False  # a global workflow hidden by a project one of the same name

    def to_json(self) -> dict:
        return {"name": self.name, "scope": self.scope, "path": str(self.path), "description": self.description,
                "when_to_use": self.when_to_use, "args": self.args, "shadowed": self.shadowed}


def project_dir(workspace: Path) -> Path:
    """The folder of the workspace's project workflows."""
    return StateDir(workspace).workflows


def global_dir() -> Path:
    """The folder of the global workflows (`$DWF_HOME/workflows`)."""
    return dwf_home() / "workflows"


def _directory(workspace: Path, scope: str) -> Path:
    if scope not in SCOPES:
        raise SavedWorkflowError(f"the scope must be \"project\" or \"global\", not {scope!r}")
    return project_dir(workspace) if scope == "project" else global_dir()


def is_valid_name(name: object) -> bool:
    """A saved workflow (or draft) name: it can never leave its folder."""
    # fullmatch: `$` alone would let a trailing newline through
    return isinstance(name, str) and bool(NAME_PATTERN.fullmatch(name)) and name.strip(".") != ""


def _check_name(name: object) -> str:
    if not is_valid_name(name):
        raise SavedWorkflowError(
            f"`{name}` is not a valid saved workflow name: use 1 to 64 letters, digits, `_`, `.` or `-` "
            f"(and not only dots)")
    return name


# ---------------------------------------------------------------- save


def save_workflow(workspace: Path, script: str, scope: str, name: str | None = None, *,
                  replace: bool = False) -> SavedWorkflow:
    """Compile `script` and save it as `<name>.dwf.py` in the folder of `scope`; the name
    defaults to meta's `name`. An existing different file is only overwritten with `replace`."""
    directory = _directory(workspace, scope)
    if name is not None:
        _check_name(name)
    compiled = compile_script(script, "<script>", CompileCache.of_workspace(workspace))
    if compiled.program is None:
        errors = [d for d in compiled.diagnostics if d.is_error]
        lines = [f"  L{d.span.line}:C{d.span.column} {d.message}" for d in errors[:MAX_LISTED_ERRORS]]
        if len(errors) > MAX_LISTED_ERRORS:
            lines.append(f"  ... and {len(errors) - MAX_LISTED_ERRORS} more (`dwfc check` lists them all)")
        count = f"{len(errors)} error{'s' if len(errors) != 1 else ''}"
        raise SavedWorkflowError("\n".join([f"the script has {count} and was not saved; fix them and save again:",
                                            *lines]))
    meta = compiled.program.meta
    name = _check_name(name if name is not None else meta.get("name"))
    if scope == "project" and not os.path.isdir(workspace):
        raise SavedWorkflowError(f"the workspace {workspace} is not a directory; pass an existing folder")
    target = directory / f"{name}{SUFFIX}"
    data = script.encode("utf-8")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        written = write_atomic(target, data, exclusive=not replace)
    except OSError as error:
        raise SavedWorkflowError(f"cannot write {target}: {error.strerror or error}; "
                                 f"check that the folder is writable") from None
    if not written and not same_content(target, data):
        raise SavedWorkflowError(
            f"a {scope} workflow named `{name}` already exists at {target} with different content; "
            f"save with replace (`dwfc save --replace`) to overwrite it, or choose another name")
    shadowed = scope == "global" and os.path.isfile(project_dir(workspace) / target.name)
    return _from_meta(name, scope, target, meta, shadowed)


# ---------------------------------------------------------------- list and find


def list_saved(workspace: Path) -> list[SavedWorkflow]:
    """Project workflows, then global ones, each sorted by name; a global one with the name of
    a project one is included with `shadowed=True`."""
    project = _workflow_files(project_dir(workspace))
    cache = CompileCache.of_workspace(workspace)
    found = [_load(name, "project", path, cache) for name, path in project]
    project_names = {name for name, _ in project}
    found += [_load(name, "global", path, cache, shadowed=name in project_names)
              for name, path in _workflow_files(global_dir())]
    return found


def find_saved(workspace: Path, name: str) -> SavedWorkflow:
    """The saved workflow `name`: the project one if there is one, else the global one."""
    scope, path = locate_saved(workspace, name)
    return _load(name, scope, path, CompileCache.of_workspace(workspace))


def read_saved_text(workspace: Path, name: str) -> tuple[str, Path]:
    """(text, path) of the saved workflow `name`, for a caller that runs it (and compiles it once)."""
    _, path = locate_saved(workspace, name)
    return _read(name, path), path


def locate_saved(workspace: Path, name: str) -> tuple[str, Path]:
    """(scope, path) of the saved workflow `name`, project first; nothing is read."""
    _check_name(name)
    for scope, directory in (("project", project_dir(workspace)), ("global", global_dir())):
        path = directory / f"{name}{SUFFIX}"
        if os.path.isfile(path):  # unlike Path.is_file, never raises (e.g. on a folder it may not search)
            return scope, path
    known = sorted({known for directory in (project_dir(workspace), global_dir())
                    for known, _ in _workflow_files(directory)})
    close = difflib.get_close_matches(name, known, n=1)
    hint = f" (did you mean `{close[0]}`?)" if close else ""
    raise SavedWorkflowError(f"there is no saved workflow named `{name}`{hint}; `dwfc saved` lists them")


def read_saved(workflow: SavedWorkflow) -> str:
    """The script text of a saved workflow."""
    return _read(workflow.name, workflow.path)


def _read(name: str, path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise SavedWorkflowError(f"cannot read the saved workflow `{name}` at {path}: "
                                 f"{getattr(error, 'strerror', None) or error}; fix the file or save it again") from None


def _workflow_files(directory: Path) -> list[tuple[str, Path]]:
    """(name, path) of the saved workflow files of one folder, sorted by name."""
    try:
        entries = list(os.scandir(directory))
    except OSError:  # a missing or unreadable folder holds no workflows
        return []
    files = []
    for entry in entries:
        name = entry.name.removesuffix(SUFFIX)
        if entry.name.endswith(SUFFIX) and is_valid_name(name) and os.path.isfile(entry.path):
            files.append((name, Path(entry.path)))
    return sorted(files)


def _load(name: str, scope: str, path: Path, cache: CompileCache, shadowed: bool = False) -> SavedWorkflow:
    try:
        compiled = compile_script(path.read_bytes(), str(path), cache)
    except OSError:
        compiled = None
    meta = compiled.program.meta if compiled is not None and compiled.program is not None else None
    return _from_meta(name, scope, path, meta, shadowed)


def _from_meta(name: str, scope: str, path: Path, meta: dict | None, shadowed: bool) -> SavedWorkflow:
    meta = meta or {}
    return SavedWorkflow(name=name, scope=scope, path=path, description=meta.get("description"),
                         when_to_use=meta.get("when_to_use"), args=dict(meta.get("args") or {}), shadowed=shadowed)


# ---------------------------------------------------------------- inline calls


def resolve_called(program, workspace: Path) -> dict[str, CalledSource]:
    """Find and read every saved workflow `program` calls inline (project shadows global, as for
    `find_saved`): name -> its text, file and scope, or the sentence saying why it was not found.
    Compiling and checking them is `engine.prepare`'s job. A script that calls none costs no
    file access."""
    # `dwfc` loads this module at start-up (`dwfc saved`, `run --saved`); the engine only for runs.
    from dwf.runtime.engine.called import CalledSource, called_lines  # deferred: start-up

    sources: dict[str, CalledSource] = {}
    for name in called_lines(program):
        try:
            scope, path = locate_saved(workspace, name)
            sources[name] = CalledSource(_read(name, path), str(path), scope=scope)
        except SavedWorkflowError as error:
            sources[name] = CalledSource(None, missing=str(error))
    return sources
