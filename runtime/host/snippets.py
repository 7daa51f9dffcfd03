"""This module defines snippet evaluation (TOOLS §1 `dwfc eval`, §3 `EvalWorkflowSnippet`):
`check_snippet` says what a snippet may do before it runs (`SnippetCheck`: diagnostics and the
commands to approve), `eval_snippet` runs it at once and returns a `SnippetResult`;
`compile_snippet` is the compile step both share (cached, so check-then-run compiles once).

A snippet is DWF code run for its value: world reads (`files.*`, `git.*`), `world.run` of
literal commands and pure logic, with top-level `await` and `return` as in scripts. It needs no
`meta` block: when it has none, a synthetic one is appended *after* its last line, so every
diagnostic and traceback points at the snippet's own lines; the findings about a missing meta
block or missing phases do not apply to snippets and are dropped. Effects that need a run — `agent()`, `.ask()`,
`report()`, `artifact.*`, `phase()`, `workflow()`, `hole()` — are refused at compile time, each
with a diagnostic naming its line, so nothing runs. Nothing is persisted: the run uses an
in-memory journal, no artifact store and no control directory, so no `.dwf/` folder is created.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

import anyio

from dwf.compiler import ir
from dwf.compiler.compile import CompileResult, compile_source
from dwf.compiler.diagnostics import Diagnostic
from dwf.compiler.rules.effects import EffectInSnippet, MissingPhases
from dwf.compiler.rules.meta import MissingMeta
from dwf.compiler.source import SourceFile
from dwf.compiler.plan.statics import iter_nodes

from dwf.runtime.engine import Engine, StartError, StartRequest, run_commands
from dwf.runtime.journal.store import MemoryJournal
from dwf.runtime.interpreter.limits import Limits
from dwf.runtime.ports.world import RUN_TIMEOUT_DEFAULT_S, LocalWorld
from dwf.runtime.values.plain_json import to_plain

# The meta block a snippet without one runs under. It is appended after the snippet's last line,
# so it shifts no line of the snippet.
SYNTHETIC_META = 'meta = {"name": "snippet", "description": "A snippet evaluated at once (dwfc eval)."}\n'

# Findings that do not apply to snippets: they need no meta block and have no phases.
_NOT_FOR_SNIPPETS = frozenset({MissingMeta.code, MissingPhases.code})

_RUN_ONLY = "run it as a workflow with `dwfc run`"
# Site kind -> (why a snippet cannot have it, what to do instead)
_REFUSED_SITES = {
    "actor": ("a snippet has no agents", f"read and compute in the snippet, or {_RUN_ONLY}"),
    "ask": ("a snippet has no agents to ask", f"read and compute in the snippet, or {_RUN_ONLY}"),
    "report": ("a snippet has no run to report to", "return the item as the snippet's value"),
    "artifact": ("a snippet has no run to publish artifacts in", "return the content as the snippet's value"),
    "workflow": ("a snippet cannot start a saved workflow", _RUN_ONLY),
    "hole": ("a snippet has no host to fill a hole", "compute the value in the snippet"),
}
_PHASE = ("a snippet has no stages", "remove it; `log()` prints progress lines")


@dataclass
class SnippetCheck:
    diagnostics: list[dict]  # Diagnostic.to_json() of each finding, sorted by position
    commands: list[str]  # the literal world.run commands the snippet may run, sorted
    ok: bool  # no errors: the snippet may run (after its commands are approved)


@dataclass
class SnippetResult:
    status: str  # completed | errored | rejected
    value: Any = None  # the snippet's JSON return value when completed
    error: str | None = None  # one sentence when not completed
    diagnostics: list[dict] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)  # the log() lines, in order
    commands_run: list[str] = field(default_factory=list)  # shell-quoted command lines, in dispatch order
    traceback: str | None = None  # the DWF traceback of an errored snippet (snippet line numbers)

    def to_json(self) -> dict:
        return {"status": self.status, "value": self.value, "error": self.error, "diagnostics": self.diagnostics,
                "logs": self.logs, "commands_run": self.commands_run, "traceback": self.traceback}


@dataclass(frozen=True)
class CompiledSnippet:
    source: SourceFile  # the snippet as written: diagnostics point at its lines
    script: str  # the text that runs: the snippet, plus the synthetic meta when it has none
    diagnostics: tuple[Diagnostic, ...]  # sorted by position, refusals included
    program: ir.Program | None  # None when there is an error

    def compile_result(self) -> CompileResult:
        """The shape `compiler.render` renders (`dwfc check`'s output)."""
        return CompileResult(self.source, list(self.diagnostics), self.program)


def check_snippet(source: str, name: str = "<snippet>") -> SnippetCheck:
    """Compile `source` as a snippet: its diagnostics and the commands it may run."""
    compiled = compile_snippet(source, name)
    return SnippetCheck([d.to_json() for d in compiled.diagnostics],
                        list(compiled.program.commands) if compiled.program else [], compiled.program is not None)


@lru_cache(maxsize=8)  # a caller checks, approves, then evaluates the same text: one compile
def compile_snippet(source: str, name: str = "<snippet>") -> CompiledSnippet:
    """Compile `source` as a snippet: with the synthetic meta when it has none, then refuse the
    effects that need a run."""
    result = compile_source(source, name)
    findings = [d for d in result.diagnostics if d.code not in _NOT_FOR_SNIPPETS]
    script = source
    if result.program is None and not any(d.is_error for d in findings):  # only the meta block is missing
        script = source + ("\n" if source and not source.endswith("\n") else "") + SYNTHETIC_META
        result = compile_source(script, name)
        findings = [d for d in result.diagnostics if d.code not in _NOT_FOR_SNIPPETS]
    refusals = _refusals(result.program) if result.program is not None else []
    diagnostics = tuple(sorted([*findings, *refusals], key=Diagnostic.sort_key))
    program = None if refusals else result.program
    return CompiledSnippet(SourceFile(name, source.lstrip("\ufeff")), script, diagnostics, program)


def _refusals(program: ir.Program) -> list[Diagnostic]:
    """One error per site (and phase marker) that needs a run, naming the call as written."""
    found = [(site.span, ".ask()" if site.kind == "ask" else f"{site.op}()", _REFUSED_SITES[site.kind])
             for site in program.sites if site.kind in _REFUSED_SITES]
    found += [(node.span, "phase()", _PHASE) for node in iter_nodes(program.body) if isinstance(node, ir.Phase)]
    return [EffectInSnippet.diagnostic(span, help=instead, call=call, why=why) for span, call, (why, instead) in found]


# ---------------------------------------------------------------- evaluation


async def eval_snippet(source: str, workspace: Path, *, name: str = "<snippet>", limits: Limits | None = None,
                       timeout_s: float | None = None, on_log: Callable[[str], None] | None = None) -> SnippetResult:
    """Run `source` in `workspace` and return its value. The caller has approved the commands
    `check_snippet(source).commands` beforehand; nothing is asked here. `on_log` sees each
    `log()` line as it happens (they are collected in the result either way)."""
    compiled = compile_snippet(source, name)
    diagnostics = [d.to_json() for d in compiled.diagnostics]
    if compiled.program is None:
        errors = sum(d.is_error for d in compiled.diagnostics)
        error = f"the snippet has {errors} error{'s' if errors != 1 else ''} and was not run"
        return SnippetResult("rejected", error=error, diagnostics=diagnostics)
    workspace = Path(workspace)
    if not workspace.is_dir():
        return SnippetResult("rejected", error=f"the workspace {workspace} is not a directory", diagnostics=diagnostics)

    logs: list[str] = []

    def listen(event: dict) -> None:
        if event.get("type") == "log":
            logs.append(str(event.get("message", "")))
            if on_log is not None:
                on_log(logs[-1])

    commands = run_commands(compiled.program, {})  # a snippet calls no saved workflow
    world = _NotingWorld(workspace, allowed_commands=commands)
    request = StartRequest(script=compiled.script, agent_port=_NoAgents(), path=name, journal=MemoryJournal(),
                           world=world, limits=limits or Limits(), listeners=[listen], approved_commands=commands)
    timed_out = False
    async with Engine() as engine:
        try:
            run = engine.start(request)
        except StartError as error:  # e.g. the snippet's own meta declares a required argument
            return SnippetResult("rejected", error="; ".join(error.problems), diagnostics=diagnostics)
        with anyio.move_on_after(timeout_s):  # None: no deadline
            await run.settled.wait()
        if not run.settled.is_set():
            timed_out = True
            run.cancel("user")  # settles within the grace period; commands in flight are killed
        outcome = await run.result
    common = {"diagnostics": diagnostics, "logs": logs, "commands_run": world.ran}
    if outcome.status == "completed":
        return SnippetResult("completed", value=to_plain(outcome.value), **common)
    if timed_out:
        error = f"the snippet did not finish within {timeout_s:g} seconds and was stopped"
        return SnippetResult("errored", error=error, **common)
    return SnippetResult("errored", error=outcome.error, traceback=outcome.traceback, **common)


class _NotingWorld(LocalWorld):
    """The local world port, noting every command line it is asked to run (`commands_run`)."""

    def __init__(self, root: Path, **options: Any):
        super().__init__(root, **options)
        self.ran: list[str] = []

    async def run(self, cmd: str, args=(), timeout_s: float = RUN_TIMEOUT_DEFAULT_S):
        if isinstance(args, (list, tuple)) and all(isinstance(a, str) for a in args):
            self.ran.append(shlex.join([cmd, *args]))  # other arguments are refused: nothing runs
        return await super().run(cmd, args, timeout_s)


class _NoAgents:
    """The agent port of a snippet. Asks are refused at compile time, so it is never called."""

    async def run_turn(self, request, message: str, channel) -> str:
        raise RuntimeError("a snippet has no agents")

    async def close(self) -> None:
        pass
