"""This module defines saved workflows (TOOLS §4): named `*.dwf.py` scripts kept in
`<workspace>/.dwf/workflows/` (scope "project") or `$DWF_HOME/workflows/` (scope "global", with
`DWF_HOME` defaulting to `~/.dwf`), and the functions that save, list, find and read them.

- A saved workflow is a normal script: `<name>.dwf.py`, where the name matches `NAME_PATTERN`
  and is not only dots, so a name can never leave its folder. Its `meta` may declare `args`; a
  workflow without them takes no arguments (any given are reported as unknown when it runs).
- Lookup: a project workflow shadows a global one of the same name. `list_saved` still shows
  the hidden global one, marked `shadowed`.
- Saving compiles the script first and refuses one with errors. The file is written to a
  temporary file in the same folder and then linked into place (an exclusive create: of two
  savers of one name, exactly one wins) or, with `replace`, renamed over the old file, so a
  reader never sees half a file. Saving byte-identical content again is not an error.
- Listing never fails on a bad file: one that cannot be read or no longer compiles is listed
  with `description` None (and no args), so that `dwfc check` can be pointed at it.
- Inline calls (LANGUAGE §6.3): `resolve_called(program, workspace)` looks up every saved
  workflow a script calls with `await workflow(name)` (the name is a literal: each call is a
  `workflow` site), reads and compiles it, and collects every problem at once: an unknown name,
  a called workflow that does not compile, one that itself calls `workflow()` (one level deep).
  Its scripts are what the engine pins for the run; its commands join the approved command set.
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from dwf.compiler.compile import compile_bytes, compile_source

from dwf.runtime.statedir import StateDir, dwf_home, same_content, write_atomic

__all__ = ["NAME_PATTERN", "SCOPES", "CalledWorkflows", "SavedWorkflow", "SavedWorkflowError", "dwf_home",
           "find_saved", "global_dir", "is_valid_name", "list_saved", "locate_saved", "open_saved", "pinned_commands", "project_dir", "read_saved",
           "resolve_called", "save_workflow"]

NAME_PATTERN = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
SCOPES = ("project", "global")
SUFFIX = ".dwf.py"
MAX_LISTED_ERRORS = 10  # compile errors quoted when a save is refused


class SavedWorkflowError(Exception):
    """A saved workflow cannot be saved, found or read (one clear sentence saying what to do)."""


@dataclass(frozen=True)
class SavedWorkflow:
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
    return StateDir(workspace).workflows


def global_dir() -> Path:
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
    compiled = compile_source(script)
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
    found = [_load(name, "project", path) for name, path in project]
    project_names = {name for name, _ in project}
    found += [_load(name, "global", path, shadowed=name in project_names)
              for name, path in _workflow_files(global_dir())]
    return found


def find_saved(workspace: Path, name: str) -> SavedWorkflow:
    """The saved workflow `name`: the project one if there is one, else the global one."""
    scope, path = locate_saved(workspace, name)
    return _load(name, scope, path)


def open_saved(workspace: Path, name: str):
    """(the saved workflow `name`, its text, its `CompileResult`): read and compiled once, for a
    caller that runs it."""
    scope, path = locate_saved(workspace, name)
    text = _read(name, path)
    compiled = compile_source(text, str(path))
    return _from_meta(name, scope, path, compiled.program.meta if compiled.program else None, False), text, compiled


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


def _load(name: str, scope: str, path: Path, shadowed: bool = False) -> SavedWorkflow:
    try:
        compiled = compile_bytes(path.read_bytes(), str(path))
    except OSError:
        compiled = None
    meta = compiled.program.meta if compiled is not None and compiled.program is not None else None
    return _from_meta(name, scope, path, meta, shadowed)


def _from_meta(name: str, scope: str, path: Path, meta: dict | None, shadowed: bool) -> SavedWorkflow:
    meta = meta or {}
    return SavedWorkflow(name=name, scope=scope, path=path, description=meta.get("description"),
                         when_to_use=meta.get("when_to_use"), args=dict(meta.get("args") or {}), shadowed=shadowed)


# ---------------------------------------------------------------- inline calls


@dataclass(frozen=True)
class CalledWorkflows:
    """The saved workflows a script calls inline, resolved for one run."""

    scripts: dict[str, str] = field(default_factory=dict)  # name -> script text, pinned by the engine
    commands: frozenset[str] = frozenset()  # the union of their literal `world.run` commands
    workflows: list[SavedWorkflow] = field(default_factory=list)  # in call order, each name once
    problems: list[str] = field(default_factory=list)  # one sentence each; any problem refuses the run
    commands_of: dict[str, tuple[str, ...]] = field(default_factory=dict)  # name -> its own sorted commands

    def approved_commands(self, program) -> frozenset[str]:
        """What a person approves for a run of `program`: its commands and those of the
        workflows it calls (the only commands the run may execute, TOOLS §2)."""
        return frozenset(program.commands) | self.commands

    def to_json(self) -> list[dict]:
        """One object per called workflow, as the approval screen lists them."""
        return [{"name": w.name, "scope": w.scope, "path": str(w.path), "description": w.description,
                 "commands": list(self.commands_of.get(w.name, ()))} for w in self.workflows]


def called_names(program) -> dict[str, int]:
    """The saved workflow names `program` calls, in call order, each once, with the line of its
    first call."""
    lines: dict[str, int] = {}
    for site in program.sites:
        if site.kind == "workflow" and site.detail:
            lines.setdefault(site.detail, site.span.line)
    return lines


def resolve_called(program, workspace: Path) -> CalledWorkflows:
    """Find, read and compile every saved workflow `program` calls inline (project shadows
    global, as for `find_saved`). A script that calls none costs no file access."""
    names = called_names(program)
    if not names:
        return CalledWorkflows()
    scripts: dict[str, str] = {}
    commands_of: dict[str, tuple[str, ...]] = {}
    workflows: list[SavedWorkflow] = []
    problems: list[str] = []
    for name, line in names.items():
        try:
            workflow, text, compiled = open_saved(workspace, name)
        except SavedWorkflowError as error:
            problems.append(f"line {line} calls workflow(\"{name}\"), but {error}")
            continue
        workflows.append(workflow)
        scripts[name] = text
        commands_of[name], problem = _check_called(workflow, compiled)
        if problem:
            problems.append(problem)
    commands = frozenset(command for own in commands_of.values() for command in own)
    return CalledWorkflows(scripts, commands, workflows, problems, commands_of)


def _check_called(workflow: SavedWorkflow, compiled) -> tuple[tuple[str, ...], str | None]:
    """A compiled called saved workflow: its sorted literal commands, and the problem that keeps
    it from running inline (None when there is none)."""
    if compiled.program is None:
        count = sum(1 for d in compiled.diagnostics if d.is_error)
        return (), (f"the saved workflow `{workflow.name}` ({workflow.path}) has {count} "
                    f"error{'s' if count != 1 else ''}; `dwfc check {workflow.path}` shows them")
    commands = tuple(sorted(compiled.program.commands))
    nested = called_names(compiled.program)
    if not nested:
        return commands, None
    listed = " and ".join(f"`{inner}`" for inner in nested)
    return commands, (f"saved workflows run one level deep: `{workflow.name}` calls {listed}; "
                      f"call {'them' if len(nested) > 1 else 'it'} from this script instead")


def pinned_commands(scripts: dict[str, str]) -> frozenset[str]:
    """The literal commands of the saved workflow scripts a run pinned when it started (a resume
    runs those, not today's files); a script that no longer compiles contributes none."""
    commands: set[str] = set()
    for name, text in (scripts or {}).items():
        compiled = compile_source(text, f"<saved workflow {name}>")
        if compiled.program is not None:
            commands.update(compiled.program.commands)
    return frozenset(commands)
