"""This module defines saved workflows called inline (LANGUAGE §6.3, `await workflow(name, args)`):
the checks a run makes when it is prepared (`compile_called`), the run's approved command set
(`run_commands`) and the host a called workflow's interpreter runs against (`CalledWorkflowHost`).

- The caller (the CLI, the tool layer) resolves the saved workflows a script names
  (`host/saved.resolve_called`) and `engine.prepare` compiles and checks them, once; the run pins
  their text in its journal row, so a resume runs what was approved, not what the files hold
  today. Every problem refuses the run before any effect: a name without a script, a script
  with compile errors, a called workflow that calls another (one level deep), commands nobody
  approved.
- A call runs the saved workflow's body in an interpreter of its own, on the calling run: the
  same journal, caps, budget, actors limit, concurrency limiter and reports. Its effects are
  keyed under the call (`workflow#1/ask#2`, site and occurrence alike), so two calls, or the
  caller's own `ask#2`, never share a journal row, and a resume replays them like any other.
- Its named actors are `<workflow>/<name>` (a caller and a callee may both have a "lead"), with
  the call's occurrence and site added when there are several calls (`<workflow>@2/<name>`,
  `<workflow>(workflow#2)/<name>`); its phases are `<workflow>: <title>` and its schemas
  `<workflow>/<key>`.
- It runs with the steps the caller has left when it starts; its steps are then added to the
  caller's. Its own uncaught exception reaches the caller as a catchable `WorkflowError`;
  a fatal error stays fatal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from dwf.compiler import ir

from dwf.runtime.engine.compile_cache import CompileCache, compile_script
from dwf.runtime.values.errors import FatalError


@dataclass(frozen=True)
class CalledSource:
    """CalledSource: a saved workflow a script calls, as its caller found it: its text and file,
    or (`text` None) the sentence saying why it was not found (`host/saved.resolve_called`)."""

    text: str | None
    path: str | None = None
    missing: str | None = None
    scope: str | None = None  # where it was found ("project" | "global"), for the approval screen


def called_lines(program: ir.Program) -> dict[str, int]:
    """The saved workflow names `program` calls, in call order, each once, with the line of its
    first call."""
    lines: dict[str, int] = {}
    for site in program.sites:
        if site.kind == "workflow" and site.detail:
            lines.setdefault(site.detail, site.span.line)
    return lines


def compile_called(program: ir.Program, sources: Mapping[str, str | CalledSource] | None,
                   cache: CompileCache | None = None) -> tuple[dict[str, ir.Program], list[str]]:
    """The compiled saved workflows `program` calls, from `sources` (name -> text, or the
    caller's `CalledSource`), each compiled once (through `cache` when given), and every reason
    the run cannot start with them, in call order: a name without a script, a script with
    compile errors, a called workflow that calls another (one level deep)."""
    called: dict[str, ir.Program] = {}
    problems: list[str] = []
    for name, line in called_lines(program).items():
        source = (sources or {}).get(name)
        if isinstance(source, str):
            source = CalledSource(source)
        if source is None or source.text is None:
            problems.append(f"line {line} calls workflow(\"{name}\"), but {source.missing}" if source and source.missing
                            else f"the script calls the saved workflow `{name}`, whose script was not given; "
                                 "`dwfc run` finds saved workflows by name (`dwfc saved` lists them)")
            continue
        compiled = compile_script(source.text, source.path or f"<saved workflow {name}>", cache)
        if compiled.program is None:
            count = sum(d.is_error for d in compiled.diagnostics)
            errors = f"{count} error{'s' if count != 1 else ''}"
            problems.append(f"the saved workflow `{name}` ({source.path}) has {errors}; `dwfc check {source.path}` shows them"
                            if source.path else
                            f"the saved workflow `{name}` has {errors}; `dwfc check` on its file shows them")
            continue
        nested = called_lines(compiled.program)
        if nested:
            listed = " and ".join(f"`{inner}`" for inner in nested)
            problems.append(f"saved workflows run one level deep: `{name}` calls {listed}; "
                            f"call {'them' if len(nested) > 1 else 'it'} from this script instead")
            continue
        called[name] = compiled.program
    return called, problems


def run_commands(program: ir.Program, called: Mapping[str, ir.Program]) -> frozenset[str]:
    """The approved command set of a run: the literal commands of its script and of the saved
    workflows it calls (TOOLS §2: the only commands the run may execute). Nothing else derives it."""
    return frozenset(program.commands).union(*(child.commands for child in called.values()))


class CalledWorkflowHost:
    """CalledWorkflowHost: what a called workflow's interpreter sees as its host: the calling
    run's host, with its sites, actor names, phases and schemas put under the call (see the
    module docstring)."""

    def __init__(self, host, name: str, call_site: str, call_key: str):
        self.host = host  # the calling run's `RunHost`
        self.name = name
        self.prefix = call_key + "/"
        # Actor names of this call: `summarize/lead` for the only call, else the call's
        # occurrence (`summarize@2/lead`, `summarize/comp#1[3]/lead`) and, when several sites
        # call the workflow, the site (`summarize(workflow#2)/lead`): calls never share a name,
        # whatever order they run in.
        sites = [site.id for site in host.program.sites if site.kind == "workflow" and site.detail == name]
        label = name if len(sites) == 1 else f"{name}({call_site})"
        self.actor_prefix = label + call_key.removeprefix(call_site) + "/"

    def _schema(self, key: str | None) -> str | None:
        return None if key is None else f"{self.name}/{key}"

    def create_actor(self, site: str, key: str, name: str | None, system: str | None, model: str | None,
                     agent_type: str | None, isolation: str | None = None, tools: tuple[str, ...] | None = None):
        return self.host.create_actor(self.prefix + site, self.prefix + key, self.actor_prefix + name if name else None,
                                     system, model, agent_type, isolation, tools)

    def git_worktree(self, site: str, key: str, actor):
        return self.host.git_worktree(self.prefix + site, self.prefix + key, actor)

    def ask(self, site: str, key: str, actor, instructions: str, schema_key: str | None, label: str | None):
        return self.host.ask(self.prefix + site, self.prefix + key, actor, instructions, self._schema(schema_key), label)

    def ask_inputs(self, actor, instructions: str, schema_key: str | None) -> dict:
        return self.host.ask_inputs(actor, instructions, self._schema(schema_key))

    def replay_now(self, site: str, key: str, kind: str, inputs) -> tuple[bool, Any]:
        return self.host.replay_now(self.prefix + site, self.prefix + key, kind, inputs)

    def world_read(self, site: str, key: str, op: str, arguments: list):
        return self.host.world_read(self.prefix + site, self.prefix + key, op, arguments)

    def world_run(self, site: str, key: str, cmd: str, arguments: list[str], timeout_s: float):
        return self.host.world_run(self.prefix + site, self.prefix + key, cmd, arguments, timeout_s)

    def report(self, site: str, key: str, item: Any, artifact: str | None) -> None:
        self.host.report(self.prefix + site, self.prefix + key, item, artifact)

    def publish_artifact(self, site: str, key: str, kind: str, values: dict):
        return self.host.publish_artifact(self.prefix + site, self.prefix + key, kind, values)

    def declare_artifact(self, site: str, key: str, kind: str, artifact_id: str, spec: Any) -> None:
        self.host.declare_artifact(self.prefix + site, self.prefix + key, kind, artifact_id, spec)

    def enter_phase(self, name: str) -> None:
        self.host.enter_phase(f"{self.name}: {name}")

    def log(self, message: str) -> None:
        self.host.log(message)

    def budget_total(self) -> int | None:
        return self.host.budget_total()

    def budget_spent(self) -> int:
        return self.host.budget_spent()

    async def workflow(self, site: str, key: str, name: str, arguments: dict) -> Any:
        raise FatalError("NestedWorkflow", "saved workflows run one level deep")  # refused at start already


def line_of(error) -> str:
    """` (line N)`: where in the called workflow an error was raised, for the caller's message
    (the caller's traceback shows the caller's lines, not the called script's)."""
    return f" (line {error.frames[0].line})" if error.frames else ""
