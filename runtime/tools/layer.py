"""This module defines the tool layer for host agents (TOOLS §3): `ToolLayer`, which answers
the ten tools of `tools/definitions.py` over one workspace, and `result_text`, the text a host
shows a model for a result.

    async with ToolLayer(workspace, agent="anthropic", approver=ask_the_user) as tools:
        tools.anthropic_tools()                       # for the Messages API
        result = await tools.call("CreateWorkflow", {"script": "..."})

Runs are background runs of one `Engine` owned by the layer, over the workspace's journal
(`.dwf/state.db`) and the same control files as `dwfc run`, so `dwfc runs`/`show`/`cancel` in
another process see and steer them; leaving the `async with` stops live runs as
`stopped(interrupted)` (resumable). Each run gets its own agent port (a port's state, such as a
scripted fixture's sequences, belongs to one run) and the file-based QuestionPort, so an
escalation is answered by ResolveWorkflowQuestion here or by `dwfc answer` elsewhere.

Every call returns a JSON object with `ok`; a bad input, a refused approval or a failure is a
result with `ok: false` and `error` (one sentence plus a hint), never an exception. The one
exception that leaves `call` is `ApprovalPending`, raised by an approver that answers on a later
call (MCP's multi-round-trip elicitation, see `tools/mcp.py`).

Approval (TOOLS §3 table): CreateWorkflow and SaveWorkflow always ask the approver;
EvalWorkflowSnippet asks when the snippet may run commands; AmendWorkflow asks unless the run
was started by this layer, was not stopped by a user, and the new script runs no command beyond
those approved for it (the last condition is ours: without it an amend could run commands no
person approved).

Saved workflows called inline (`await workflow(name)`) are resolved before approval (an unknown,
broken or nesting one refuses the call, `saved.resolve_called`); the approval text lists them,
and their commands join the approved command set the engine and the world enforce.
"""

from __future__ import annotations

import difflib
import logging
import uuid
from dataclasses import dataclass, replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from dwf.compiler.compile import CompileResult, compile_bytes, compile_source

from dwf.runtime.journal import control as run_service
from dwf.runtime.host.drafts import DraftError, write_draft
from dwf.runtime.journal.store import JournalError
from dwf.runtime.host.saved import CalledWorkflows, pinned_commands, resolve_called
from dwf.runtime.statedir import StateDir
from dwf.runtime.values.plain_json import dumps
from dwf.runtime.tools.definitions import (DEFINITIONS, TOOL_NAMES, ApprovalPending, ApprovalRequest, ApprovalUnavailable,
                               Approver, ToolDefinition, definition, input_problems)

log = logging.getLogger("dwf.tools")

NOT_EXECUTED = "not executed: edit the draft and resubmit with `path`"


class ToolLayerError(Exception):
    """The layer cannot start (bad workspace, agent port or journal): one sentence."""


class _Refusal(Exception):
    """A handler's early exit with an error result."""

    def __init__(self, message: str, **extra: Any):
        super().__init__(message)
        self.result = {"ok": False, "error": message, **extra}


@dataclass
class _Source:
    """A submitted script, compiled: from `script` (written as a draft), `path` or `saved`."""

    text: str
    path: str  # shown in diagnostics and stored with the run
    origin: str  # "script" | "path" | "saved"
    compiled: CompileResult
    draft: Path | None = None


def result_text(result: dict) -> str:
    """What a model reads for a result: the error text when it failed, else the JSON."""
    if not result.get("ok", True) and isinstance(result.get("error"), str):
        return result["error"]
    return dumps(result, indent=2)


class ToolLayer:
    """The ten tools over one workspace, with an engine for background runs (module docstring)."""

    def __init__(self, workspace: str | Path, *, agent: str | None = None, model: str | None = None,
                 actor_tools: str | None = None, approver: Approver | None = None):
        self.workspace = Path(workspace)
        self.agent = agent
        self.model = model
        self.actor_tools = actor_tools
        self.approver = approver
        self.root: Path | None = None
        self.journal = None
        self.control: Path | None = None
        self.own_runs: set[str] = set()  # runs this layer started (CreateWorkflow, AmendWorkflow)
        self._approved_commands: dict[str, frozenset[str]] = {}  # own run -> its approved command set
        self._engine = None
        self._handlers = {
            "CreateWorkflow": self._create_workflow, "AmendWorkflow": self._amend_workflow,
            "EvalWorkflowSnippet": self._eval_workflow_snippet, "SaveWorkflow": self._save_workflow,
            "ListSavedWorkflows": self._list_saved_workflows, "ListWorkflowRuns": self._list_workflow_runs,
            "GetWorkflowRun": self._get_workflow_run, "ResumeWorkflowRun": self._resume_workflow_run,
            "ResolveWorkflowQuestion": self._resolve_workflow_question, "ListModels": self._list_models}
        assert tuple(self._handlers) == TOOL_NAMES

    # ------------------------------------------------------------ lifecycle

    async def __aenter__(self) -> ToolLayer:
        from dwf.runtime.engine.engine import Engine
        from dwf.runtime.journal.sqlite import SqliteJournal

        root = self.workspace.resolve()
        if not root.is_dir():
            raise ToolLayerError(f"the workspace {self.workspace} is not a directory; pass an existing folder")
        self.root = root
        if self.agent:
            port = self._load_port()
            await port.close()  # only checked here; every run gets a fresh one
        try:
            self.journal = SqliteJournal.for_workspace(root)
            self.control = StateDir(root).runs
            run_service.reconcile(self.journal, self.control)
        except JournalError as error:
            if self.journal is not None:
                self.journal.close()
            raise ToolLayerError(str(error)) from None
        self._engine = Engine()
        await self._engine.__aenter__()
        return self

    async def __aexit__(self, exc_type, exc, traceback) -> bool | None:
        try:
            # The engine stops live runs as stopped(interrupted) and waits for them to settle.
            return await self._engine.__aexit__(exc_type, exc, traceback)
        finally:
            self.journal.close()

    # ------------------------------------------------------------ the tools

    def definitions(self) -> tuple[ToolDefinition, ...]:
        return DEFINITIONS

    def anthropic_tools(self) -> list[dict]:
        return [d.to_anthropic() for d in DEFINITIONS]

    async def call(self, name: str, arguments: Any = None, *, approver: Approver | None = None) -> dict:
        """Run tool `name`; `approver` overrides the layer's approver for this call."""
        if self._engine is None:
            raise RuntimeError("use `async with ToolLayer(...) as tools` before calling tools")
        if definition(name) is None:
            close = difflib.get_close_matches(str(name), TOOL_NAMES, n=1)
            hint = f"did you mean {close[0]}?" if close else "the tools are " + ", ".join(TOOL_NAMES)
            return {"ok": False, "error": f"there is no tool {name!r}; {hint}"}
        arguments = {} if arguments is None else arguments
        problems = input_problems(name, arguments)
        if problems:
            return {"ok": False, "error": f"invalid input for {name}: " + "; ".join(problems)
                    + ". The input schema in the tool definition lists the fields.", "problems": problems}
        try:
            return await self._handlers[name](arguments, approver or self.approver)
        except ApprovalPending:
            raise
        except _Refusal as refusal:
            return refusal.result
        except ApprovalUnavailable as error:
            return {"ok": False, "error": f"{error} Nothing ran.", "status": "not_approved"}
        except JournalError as error:
            return {"ok": False, "error": str(error)}
        except Exception as error:  # a bug must reach the model as a result, never kill the host
            log.exception("tool %s failed", name)
            return {"ok": False, "error": f"{name} failed inside dwf ({type(error).__name__}: {error}); "
                                          "this is a bug in dwf, not in your input"}

    # CreateWorkflow -------------------------------------------------------------------------

    async def _create_workflow(self, arguments: dict, approver: Approver | None) -> dict:
        from dwf.runtime.engine.arguments import ArgumentError, validate_args
        from dwf.runtime.ports.agent_definitions import check_agent_types

        source = self._source(arguments, ("script", "path", "saved"))
        program = source.compiled.program
        self._require_agent()
        given = arguments.get("args") or {}
        problems = check_agent_types(program, self.root)
        called = self._called(program)
        problems += called.problems
        try:
            run_args = validate_args(program.meta, given)
        except ArgumentError as error:
            problems = list(error.problems) + problems
            run_args = {}
        if problems:
            raise _Refusal("the workflow cannot start: " + "; ".join(problems) + ". Nothing ran.", problems=problems)
        caps = {"max_concurrency": arguments.get("max_concurrency"), "budget": arguments.get("budget")}
        request = self._run_approval("CreateWorkflow", source, run_args, tuple(given), caps, called=called,
                                     summary=f"Run the workflow `{self._name(program)}`")
        if not await self._approve(approver, request):
            return _not_approved("the workflow was not started")
        run = await self._start(source.text, source.path, run_args, called.approved_commands(program),
                                workflows=called.scripts, **caps)
        return {"ok": True, "run_id": run.id, "status": "backgrounded", "name": self._name(program),
                "path": source.path, **({"draft": str(source.draft)} if source.draft else {}),
                "message": "The run started in the background; follow it with GetWorkflowRun."}

    # AmendWorkflow --------------------------------------------------------------------------

    async def _amend_workflow(self, arguments: dict, approver: Approver | None) -> dict:
        from dwf.runtime.host.amend import amend
        from dwf.runtime.engine.arguments import ArgumentError, validate_args
        from dwf.runtime.engine.engine import StartError
        from dwf.runtime.ports.questions import FileQuestions

        row = self._resolve(arguments["run"])
        source = self._source(arguments, ("script", "path"), rejected="the run was not amended")
        program = source.compiled.program
        self._require_agent()
        given = arguments.get("args")
        try:
            run_args = validate_args(program.meta, dict(row.args or {}) if given is None else given)
        except ArgumentError as error:
            raise _Refusal(f"the new script does not accept the run's arguments: {'; '.join(error.problems)}; "
                           "pass `args`. The run was not amended.") from None
        called = self._called(program)
        if called.problems:
            raise _Refusal("the run was not amended: " + "; ".join(called.problems) + ".", problems=called.problems)
        commands = called.approved_commands(program)
        user_stopped = row.status == "stopped" and row.stop_reason == "user"
        within_approved = commands <= self._approved_commands.get(row.id, frozenset())
        if not (row.id in self.own_runs and not user_stopped and within_approved):
            live = " It is running: it will be stopped as superseded." if row.status == "running" else ""
            request = self._run_approval("AmendWorkflow", source, run_args, tuple(given or ()), {}, called=called,
                                         summary=f"Amend run {row.id} ({run_service.status_text(row)}) with "
                                                 f"`{self._name(program)}`",
                                         preface=f"Amend run {row.id} ({run_service.status_text(row)}).{live}")
            if not await self._approve(approver, request):
                return _not_approved("the run was not amended")
        port = self._port()
        new_id = f"dwfrun-{uuid.uuid4().hex}"
        try:
            run = await amend(self._engine, row.id, source.text, journal=self.journal, agent_port=port, args=given,
                              control_dir=self.control, path=source.path, world=self._world(commands),
                              artifacts=self._artifacts(), questions=FileQuestions(self.root, new_id),
                              approved_commands=commands, workflows=called.scripts, new_id=new_id)
        except StartError as error:
            await port.close()
            raise _Refusal("the run was not amended: " + "; ".join(error.problems)) from None
        self._own(run.id, commands)
        return {"ok": True, "run_id": run.id, "amended_from": row.id, "status": "backgrounded",
                "path": source.path, **({"draft": str(source.draft)} if source.draft else {}),
                "message": "The amended run started in the background; follow it with GetWorkflowRun."}

    # EvalWorkflowSnippet --------------------------------------------------------------------

    async def _eval_workflow_snippet(self, arguments: dict, approver: Approver | None) -> dict:
        from dwf.runtime.host.snippets import check_snippet, eval_snippet

        snippet = arguments["snippet"]
        check = check_snippet(snippet)
        if not check.ok:
            lines = [_diagnostic_line("<snippet>", d) for d in check.diagnostics if d.get("severity") == "error"]
            raise _Refusal("\n".join(lines + ["not executed: fix the snippet and call again"]),
                           status="rejected", errors=lines, diagnostics=check.diagnostics)
        if check.commands:
            request = ApprovalRequest(
                "EvalWorkflowSnippet", f"Evaluate a snippet that may run: {', '.join(check.commands)}",
                f"Evaluate this snippet in {self.root}:\n\n{snippet.rstrip()}\n\n"
                f"Commands it may run: {', '.join(check.commands)}",
                {"snippet": snippet, "commands": check.commands, "workspace": str(self.root)})
            if not await self._approve(approver, request):
                return _not_approved("the snippet was not evaluated")
        result = (await eval_snippet(snippet, self.root, timeout_s=arguments.get("timeout_s"))).to_json()
        if result.get("status") != "completed":
            return {"ok": False, **result, "error": f"the snippet {result.get('status')}: {result.get('error')}"}
        return {"ok": True, **result}

    # SaveWorkflow and ListSavedWorkflows ----------------------------------------------------

    async def _save_workflow(self, arguments: dict, approver: Approver | None) -> dict:
        from dwf.runtime.host.saved import SavedWorkflowError, global_dir, project_dir, save_workflow

        source = self._source(arguments, ("script", "path"), rejected="nothing was saved")
        program = source.compiled.program
        scope = arguments.get("scope", "project")
        name = arguments.get("name") or self._name(program)
        folder = project_dir(self.root) if scope == "project" else global_dir()
        target = folder / f"{name}.dwf.py"
        request = self._run_approval("SaveWorkflow", source, None, (), {},
                                     summary=f"Save the workflow `{name}` as a {scope} workflow ({target})",
                                     preface=f"Save as the {scope} workflow `{name}`: {target}"
                                             + (" (replacing the existing one)" if arguments.get("replace") else ""),
                                     runs=False)
        if not await self._approve(approver, request):
            return _not_approved("nothing was saved")
        try:
            saved = save_workflow(self.root, source.text, scope, arguments.get("name"),
                                  replace=bool(arguments.get("replace")))
        except SavedWorkflowError as error:
            raise _Refusal(str(error)) from None
        return {"ok": True, **saved.to_json(), "message": f"Saved; run it with CreateWorkflow(saved=\"{saved.name}\")."}

    async def _list_saved_workflows(self, arguments: dict, approver: Approver | None) -> dict:
        from dwf.runtime.host.saved import list_saved

        return {"ok": True, "workflows": [workflow.to_json() for workflow in list_saved(self.root)]}

    # Runs -----------------------------------------------------------------------------------

    async def _list_workflow_runs(self, arguments: dict, approver: Approver | None) -> dict:
        self._reconcile()
        rows = self.journal.list_runs()
        if arguments.get("status"):
            rows = [row for row in rows if row.status == arguments["status"]]
        limit = arguments.get("limit", 20)
        summaries = [{**run_service.run_summary(self.journal, row), "own": row.id in self.own_runs}
                     for row in rows[:limit]]
        return {"ok": True, "runs": summaries, "total": len(rows)}

    async def _get_workflow_run(self, arguments: dict, approver: Approver | None) -> dict:
        row = self._resolve(arguments["run"])
        data = run_service.snapshot(self.journal, row)
        count = arguments.get("log_lines", 20)
        lines = [str((event["payload"] or {}).get("message", "")) for event in self.journal.events(row.id)
                 if event["type"] == "log"]
        data["log"] = lines[-count:] if count else []
        data["own"] = row.id in self.own_runs
        data["next"] = _next_step(data)
        return {"ok": True, **data}

    async def _resume_workflow_run(self, arguments: dict, approver: Approver | None) -> dict:
        row = self._resolve(arguments["run"])
        problems = run_service.resume_problems(row)
        if problems:
            raise _Refusal("; ".join(problems))
        path = f"<run {row.id}>"
        compiled = compile_source(row.script, path)
        if compiled.program is None:
            raise _Refusal(f"run {row.id} cannot be resumed: its script no longer compiles with this dwf; "
                           "amend it instead (AmendWorkflow)")
        # The engine runs the saved workflows pinned at the start; their commands were approved then.
        commands = frozenset(compiled.program.commands) | pinned_commands(row.workflows)
        run = await self._start(row.script, path, {}, commands, resume_id=row.id)
        return {"ok": True, "run_id": run.id, "status": "backgrounded", "resumed": True,
                "message": "The run continues in the background; follow it with GetWorkflowRun."}

    async def _resolve_workflow_question(self, arguments: dict, approver: Approver | None) -> dict:
        from dwf.runtime.ports.questions import AnswerError, write_answer

        try:
            record = write_answer(self.root, arguments["question_id"], arguments["answer"])
        except AnswerError as error:
            raise _Refusal(str(error).replace("(pass --workspace DIR if the run uses another workspace)",
                                              "(GetWorkflowRun lists the pending ones)")) from None
        return {"ok": True, "question_id": arguments["question_id"], "run_id": record.get("run_id"),
                "actor": record.get("actor"), "message": "Answered; the actor continues with your answer."}

    async def _list_models(self, arguments: dict, approver: Approver | None) -> dict:
        from dwf.runtime.ports.models import available_models

        return {"ok": True, **available_models(self.agent, self.model)}

    # ------------------------------------------------------------ helpers

    def _source(self, arguments: dict, fields: tuple[str, ...], rejected: str = "") -> _Source:
        given = [name for name in fields if name in arguments]
        if len(given) != 1:
            wanted = ", ".join(f"`{name}`" for name in fields[:-1]) + f" or `{fields[-1]}`"
            got = "none" if not given else " and ".join(f"`{name}`" for name in given)
            raise _Refusal(f"give exactly one of {wanted} (got {got})")
        origin = given[0]
        draft = None
        if origin == "script":
            text = arguments["script"]
            try:
                draft = write_draft(self.root, text)
            except DraftError as error:
                raise _Refusal(str(error)) from None
            source = _Source(text, str(draft), origin, compile_source(text, str(draft)), draft)
        elif origin == "path":
            path = Path(arguments["path"]).expanduser()
            path = path if path.is_absolute() else self.root / path
            try:
                data = path.read_bytes()
            except OSError as error:
                raise _Refusal(f"cannot read {path}: {error.strerror or error}; give an existing *.dwf.py file "
                               "(relative paths are relative to the workspace)") from None
            compiled = compile_bytes(data, str(path))
            source = _Source(compiled.source.text, str(path), origin, compiled)
        else:
            from dwf.runtime.host.saved import SavedWorkflowError, open_saved

            try:
                workflow, text, compiled = open_saved(self.root, arguments["saved"])
            except SavedWorkflowError as error:
                raise _Refusal(str(error) + " (ListSavedWorkflows lists them)") from None
            source = _Source(text, str(workflow.path), origin, compiled)
        if source.compiled.program is None:
            raise _Refusal(**_rejection(source, rejected))
        return source

    def _called(self, program) -> CalledWorkflows:
        """The saved workflows `program` calls inline (`saved.resolve_called`), with hints that
        name this layer's tools."""
        called = resolve_called(program, self.root)
        problems = [problem.replace("`dwfc saved` lists them", "ListSavedWorkflows lists them")
                    for problem in called.problems]
        return replace(called, problems=problems)

    @staticmethod
    def _name(program) -> str:
        return program.meta.get("name") or "workflow"

    def _run_approval(self, tool: str, source: _Source, run_args: dict | None, given: tuple, caps: dict, *,
                      summary: str, preface: str | None = None, runs: bool = True,
                      called: CalledWorkflows | None = None) -> ApprovalRequest:
        """The approval screen: the plan of `dwfc plan` (with the saved workflows it `called`)
        and, when it `runs`, where and how (as `dwfc run` prints it)."""
        from dwf.compiler.plan.document import build_plan
        from dwf.compiler.plan.text import render_text

        from dwf.runtime.cli.main import plan_summary

        called = called or CalledWorkflows()

        if runs:
            options = SimpleNamespace(agent=self.agent or "(none)", max_concurrency=caps.get("max_concurrency"),
                                      budget=caps.get("budget"))
            text = plan_summary(source.compiled, run_args, given, self.root, options, called).rstrip("\n")
        else:
            text = render_text(build_plan(source.compiled, run_args, given)).rstrip("\n")
        if preface:
            text = preface + "\n\n" + text
        commands = sorted(called.approved_commands(source.compiled.program))
        summary += f"; commands: {', '.join(commands)}" if commands else "; it runs no commands"
        if called.workflows:
            summary += "; it calls the saved workflows " + ", ".join(f"`{w.name}`" for w in called.workflows)
        return ApprovalRequest(tool, summary, text, {
            "name": self._name(source.compiled.program), "path": source.path, "args": run_args,
            "commands": commands, "workspace": str(self.root), "agent": self.agent,
            **({"workflows": called.to_json()} if called.workflows else {}),
            **{key: value for key, value in caps.items() if value is not None}})

    async def _approve(self, approver: Approver | None, request: ApprovalRequest) -> bool:
        if approver is None:
            raise ApprovalUnavailable("this tool layer has no approver, so no one can approve the plan; "
                                      "create the ToolLayer with approver=...")
        return bool(await approver(request))

    def _load_port(self):
        from dwf.runtime.cli.main import _load_agent_port

        problems: list[str] = []
        port = _load_agent_port(self.agent, problems, self.root, model=self.model, actor_tools=self.actor_tools)
        if port is None:
            raise ToolLayerError("; ".join(problems) or f"cannot load the agent port {self.agent!r}")
        return port

    def _require_agent(self) -> None:
        if not self.agent:
            raise _Refusal("this host has no agent port, so no workflow can run; start it with an agent "
                           "(e.g. `dwfc mcp --agent anthropic`). Nothing ran.")

    def _port(self):
        self._require_agent()
        try:
            return self._load_port()
        except ToolLayerError as error:
            raise _Refusal(str(error)) from None

    def _world(self, commands: frozenset[str]):
        from dwf.runtime.ports.world import LocalWorld

        return LocalWorld(self.root, allowed_commands=commands)

    def _artifacts(self):
        from dwf.runtime.ports.artifacts import ArtifactStore

        return ArtifactStore(self.root)

    async def _start(self, script: str, path: str, run_args: dict, commands: frozenset[str], *,
                     workflows: dict[str, str] | None = None, max_concurrency: int | None = None,
                     budget: int | None = None, resume_id: str | None = None):
        """Start (or resume) a background run that may execute exactly the approved `commands`;
        `workflows` are the saved workflow scripts it calls inline (a resume uses the pinned ones)."""
        from dwf.runtime.engine.engine import StartError, StartRequest
        from dwf.runtime.ports.questions import FileQuestions

        port = self._port()
        run_id = resume_id or f"dwfrun-{uuid.uuid4().hex}"
        request = StartRequest(
            script=script, agent_port=port, path=path, args=run_args, journal=self.journal, run_id=run_id,
            resume=resume_id is not None, world=self._world(commands), artifacts=self._artifacts(),
            questions=FileQuestions(self.root, run_id), max_concurrency=max_concurrency, budget=budget,
            approved_commands=commands, workflows=workflows, control_dir=self.control)
        self._forget_settled()
        try:
            run = self._engine.start(request)
        except StartError as error:
            await port.close()
            verb = "resumed" if resume_id else "started"
            raise _Refusal(f"the run was not {verb}: " + "; ".join(error.problems)) from None
        if resume_id is None:
            self._own(run.id, commands)
        return run

    def _forget_settled(self) -> None:
        """A long session starts many runs; the journal holds the settled ones, the engine need not."""
        for run_id, run in list(self._engine.runs.items()):
            if run.settled.is_set():
                del self._engine.runs[run_id]

    def _own(self, run_id: str, commands: frozenset[str]) -> None:
        self.own_runs.add(run_id)
        self._approved_commands[run_id] = commands

    def _reconcile(self) -> None:
        run_service.reconcile(self.journal, self.control)

    def _resolve(self, reference: str):
        self._reconcile()
        try:
            return run_service.resolve_run(self.journal, reference)
        except run_service.RunLookupError as error:
            message = str(error).replace("`dwfc runs` lists", "ListWorkflowRuns lists")
            if error.candidates:
                message += ": " + ", ".join(row.id for row in error.candidates[:10])
            raise _Refusal(message) from None


# ---------------------------------------------------------------------------- results


def _diagnostic_line(path: str, diagnostic: dict) -> str:
    line = f"{path}:L{diagnostic['line']}:C{diagnostic['column']} {diagnostic['code']} {diagnostic['message']}"
    return line + (f" (help: {diagnostic['help']})" if diagnostic.get("help") else "")


def _rejection(source: _Source, rejected: str) -> dict:
    """The result for a script that does not compile: `path:L{line}:C{col} message` lines."""
    diagnostics = [d.to_json() for d in source.compiled.diagnostics]
    lines = [_diagnostic_line(source.path, d) for d in diagnostics if d["severity"] == "error"]
    if source.origin == "script":
        advice = f"{NOT_EXECUTED} (the draft: {source.draft})"
    elif source.origin == "path":
        advice = f"not executed: edit {source.path} and resubmit with `path`"
    else:
        advice = f"not executed: the saved workflow does not compile with this dwf; fix {source.path}"
    if rejected:
        advice += f"; {rejected}"
    result = {"message": "\n".join(lines + [advice]), "status": "rejected", "errors": lines,
              "diagnostics": diagnostics}
    if source.draft is not None:
        result["draft"] = str(source.draft)
    return result


def _not_approved(what: str) -> dict:
    return {"ok": False, "status": "not_approved",
            "error": f"The person did not approve; {what} and nothing ran. "
                     "Ask them what to change before trying again."}


def _next_step(snapshot: dict) -> str:
    if snapshot["pending_questions"]:
        return "An actor is waiting for an answer: ResolveWorkflowQuestion (ask the user if it needs their decision)."
    if snapshot["status"] == "running":
        return "The run is still going; call GetWorkflowRun again in a while."
    if snapshot["resumable"]:
        return "The run stopped; ResumeWorkflowRun continues it, AmendWorkflow restarts it with an edited script."
    if snapshot["status"] == "errored":
        return "The run failed (see error); fix the script and use AmendWorkflow to keep the finished work."
    return "The run is finished."


__all__ = ["ToolLayer", "ToolLayerError", "result_text"]
