"""This module defines how a run is prepared (RUNTIME §1): `prepare` for a new run and
`prepare_resume` for a stopped one each compile the script once, compile and check the saved
workflows it calls once each, validate the arguments and derive the approved command set, and
return a `PreparedRun` with every problem found. The approval screen renders a `PreparedRun`
and `Engine.start` runs it; nothing compiles the script again.

`resume_problems` says why a stored run cannot be resumed; `dwfc show` and GetWorkflowRun use
it for their `resumable` flag.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Union

from dwf.compiler import ir
from dwf.compiler.result import CompileResult
from dwf.compiler.version import COMPILER_VERSION

from dwf.runtime.engine.arguments import ArgumentError, validate_args
from dwf.runtime.engine.called import CalledSource, compile_called, run_commands
from dwf.runtime.engine.compile_cache import CompileCache, compile_script
from dwf.runtime.journal.store import RunRow

# The saved workflows a script calls: name -> text or `CalledSource`, or a function that finds
# them for the compiled program (`host/saved.resolve_called`: the names are known only then);
# that function returns None when it cannot look (the caller reports why), and nothing is checked.
Workflows = Union[Mapping[str, Union[str, CalledSource]], Callable[[ir.Program], Mapping[str, Union[str, CalledSource]]]]


@dataclass
class PreparedRun:
    """PreparedRun: a script ready to run, compiled and checked once.

    `program` is None when the script does not compile (`compiled` has its diagnostics) or a
    resume was refused first.
    `called` holds the compiled saved workflows it calls and `sources` how each was found
    (`workflows` gives their texts, pinned with the run); `args` are the validated arguments
    (defaults filled in) and `given` the names the caller gave; `commands` is the approved command set (`called.run_commands`).
    `stored` is the row of the run a resume continues. Any `problems` refuse the run.
    """

    script: str
    path: str
    compiled: CompileResult | None  # None: a resume refused before its script was compiled
    program: ir.Program | None
    called: dict[str, ir.Program] = field(default_factory=dict)
    sources: dict[str, CalledSource] = field(default_factory=dict)  # how each called workflow was found
    args: dict = field(default_factory=dict)
    given: tuple[str, ...] = ()
    commands: frozenset[str] = frozenset()
    problems: list[str] = field(default_factory=list)
    stored: RunRow | None = None
    argument_problems: list[str] = field(default_factory=list)  # the part of `problems` about `args`

    @property
    def workflows(self) -> dict[str, str]:
        """The texts of the saved workflows it calls (what the journal pins with the run)."""
        return {name: source.text for name, source in self.sources.items()}

    @property
    def name(self) -> str:
        """meta's `name`, or "workflow"."""
        meta = self.program.meta if self.program is not None else {}
        return meta.get("name") or "workflow"


def prepare(script: str | bytes, path: str = "<script>", args: dict | None = None,
            workflows: Workflows | None = None, *, given: tuple[str, ...] | None = None,
            approved: frozenset[str] | None = None, cache: CompileCache | None = None) -> PreparedRun:
    """Prepare a new run of `script` (text, or a file's bytes). `args` None skips the argument
    check (the caller could not read them and reports why); `workflows` are the saved workflows
    it calls (see `Workflows`); `given` names the arguments the person gave (the plan shows the
    others as defaults; all of `args` unless said); `approved`, when given, is the command set a person approved:
    any other command the run may execute is a problem. `cache` keeps the compile results of the
    script and of the workflows it calls (`compile_cache`)."""
    compiled = compile_script(script, path, cache)
    if isinstance(script, bytes):
        script = compiled.source.text
    if compiled.program is None:
        return PreparedRun(script, path, compiled, None, problems=compile_problems(path, compiled))
    program = compiled.program
    problems: list[str] = []
    values: dict = {}
    if args is not None:
        try:
            values = validate_args(program.meta, args)
        except ArgumentError as error:
            problems.extend(error.problems)
    argument_problems = list(problems)
    found = workflows(program) if callable(workflows) else (workflows or {})
    sources = {name: source if isinstance(source, CalledSource) else CalledSource(source)
               for name, source in (found or {}).items()}
    called, called_problems = compile_called(program, sources, cache) if found is not None else ({}, [])
    problems.extend(called_problems)
    commands = run_commands(program, called)
    if approved is not None:
        unapproved = sorted(commands - set(approved))
        if unapproved:
            problems.append(f"the script may run commands that were not approved: {', '.join(unapproved)}")
    return PreparedRun(script, path, compiled, program, called, {name: sources[name] for name in called}, values,
                       tuple(args or ()) if given is None else given, commands, problems,
                       argument_problems=argument_problems)


def prepare_resume(row: RunRow, path: str = "<script>", cache: CompileCache | None = None) -> PreparedRun:
    """Prepare the resume of the stored run `row`: its script, args and pinned saved workflows,
    as they were approved when it started (compiled through `cache` when given)."""
    problems = resume_problems(row)
    if problems:
        return PreparedRun(row.script, path, None, None, problems=problems, stored=row)
    prepared = prepare(row.script, path, dict(row.args or {}), dict(row.workflows or {}), cache=cache)
    prepared.stored = row
    if prepared.program is None:
        errors = [d for d in prepared.compiled.diagnostics if d.is_error]
        prepared.problems = [f"run {row.id} cannot be resumed: its script no longer compiles with this dwf "
                             f"({len(errors)} error(s)); amend the run instead"] + prepared.problems
    elif prepared.program.source_sha256 != row.script_sha256:
        prepared.problems = [f"run {row.id} cannot be resumed: its stored script does not match the recorded "
                             "sha256 (the journal was edited); amend the run with the script you want instead"]
    return prepared


def pinned_agent(row: RunRow) -> dict:
    """The agent a stored run is pinned to: its journaled `{spec, model, actor_tools}` with the
    model a `dwfc set` recorded since; {} for a run journaled before pins (schema version 4)."""
    pin = dict(row.agent or {})
    if pin and (row.caps or {}).get("model"):
        pin["model"] = row.caps["model"]
    return pin


def agent_changes(pinned: dict, wanted: dict) -> list[str]:
    """What resuming a run pinned to `pinned` with the agent `wanted` changes that needs approval:
    another kind of agent port (or another command), another model, a wider actor tool set (each
    `what: old -> new`). A narrower tool set, another fixture of the scripted test port, or a run
    with nothing pinned, needs none."""
    from dwf.runtime.ports.actor_tools import TOOL_SETS  # deferred: start-up (the workspace tools)

    if not pinned or not wanted:
        return []
    changes = []
    other_command = wanted.get("kind") == "command" and pinned.get("spec") != wanted.get("spec")
    if pinned.get("kind") != wanted.get("kind") or other_command:
        changes.append(f"agent: {pinned.get('spec')} -> {wanted.get('spec')}")
    if pinned.get("model") and wanted.get("model") and pinned["model"] != wanted["model"]:
        changes.append(f"model: {pinned['model']} -> {wanted['model']}")
    old, new = pinned.get("actor_tools"), wanted.get("actor_tools")
    rank = {name: index for index, name in enumerate(TOOL_SETS)}
    if new and rank.get(new, len(TOOL_SETS)) > rank.get(old, -1):
        changes.append(f"actor tools: {old or 'none'} -> {new} (wider)")
    return changes


def compile_problems(path: str, compiled: CompileResult) -> list[str]:
    """A script's compile errors as `path:line:column: CODE message` lines."""
    return [f"{path}:{d.span.line}:{d.span.column}: {d.code} {d.message}" for d in compiled.diagnostics if d.is_error]


def resume_problems(row: RunRow) -> list[str]:
    """Why a stored run cannot be resumed (empty when it can)."""
    if _version_tuple(row.compiler_version) > _version_tuple(COMPILER_VERSION):
        return [f"run {row.id} was written by a newer dwf ({row.compiler_version}; this is {COMPILER_VERSION}); "
                "upgrade dwf to resume it"]
    if row.status == "running":
        return [f"run {row.id} is still running; cancel it first (`dwfc cancel {row.id}`) or wait for it"]
    if row.status != "stopped":
        hint = "it finished" if row.status == "completed" else "an errored run is not resumable; amend it instead"
        return [f"run {row.id} cannot be resumed: it is {row.status} ({hint})"]
    if row.stop_reason == "superseded" or row.superseded_by:
        return [f"run {row.id} cannot be resumed: it was superseded"
                + (f" by {row.superseded_by}" if row.superseded_by else "")]
    return []


def _version_tuple(text: str) -> tuple:
    parts = []
    for piece in str(text).split("."):
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)
