"""This module defines the tool layer for host agents (TOOLS §3): `ToolLayer`, which answers
the eleven tools of `tools/definitions.py` over one workspace, and `result_text`, the text a host
shows a model for a result.

    async with ToolLayer(workspace, agent="anthropic", approver=ask_the_user) as tools:
        tools.anthropic_tools()                       # for the Messages API
        result = await tools.call("CreateWorkflow", {"script": "..."})

Runs are background runs of one `Engine` owned by the layer, on an event loop of its own in a
thread of its own (`host/engine_thread.py`: a run computing for seconds between its awaits holds
that loop, never the caller's), over the workspace's journal
(`.dwf/state.db`) and the same control files as `dwfc run`, so `dwfc runs`/`show`/`cancel` in
another process see and steer them; every run is held to the host's `ceilings` (an operator's
`dwfc mcp --max-agents/--max-concurrency-ceiling`); leaving the `async with` stops live runs as
`stopped(interrupted)` (resumable). Each run gets its own agent port (a port's state, such as a
scripted fixture's sequences, belongs to one run) and the file-based QuestionPort, so an
escalation is answered by ResolveWorkflowQuestion here or by `dwfc answer` elsewhere.
`watch()` is the async subscription to the workspace's run notices (finished, question raised,
stalled) that `dwfc mcp` pushes to its client.

Every call returns a JSON object with `ok`; a bad input, a refused approval or a failure is a
result with `ok: false` and `error` (one sentence plus a hint), never an exception. The one
exception that leaves `call` is `ApprovalPending`, raised by an approver that answers on a later
call (MCP's multi-round-trip elicitation, see `tools/mcp.py`).

Approval (TOOLS §3 table): CreateWorkflow and SaveWorkflow always ask the approver;
EvalWorkflowSnippet asks when the snippet may run commands; AmendWorkflow asks unless the run
was started by this layer, was not stopped by a user, and the new script runs no command beyond
those approved for it (the last condition is ours: without it an amend could run commands no
person approved); ResumeWorkflowRun asks when a person stopped the run or its journal was
recorded in another workspace (`host/approval.resume_needs_approval`), so a client that cannot
show approvals cannot resume such a run. An approval covers `ApprovalRequest.binding` (the
sha256 of the script and the saved workflows it calls, the args, the commands and the actor
tools): the files are read again after the answer, and any change refuses the call with "the
script changed since it was approved". A `path` must lie inside the workspace (else a `$.path`
error, and nothing is read).

Each submitted script is prepared once (`host.session`, `engine.prepare`): it and the saved
workflows it calls inline (`await workflow(name)`) compile once, before approval (an unknown,
broken or nesting one refuses the call); the approval text lists them, and their commands join
the approved command set the engine and the world enforce.
"""

from __future__ import annotations

import difflib
import functools
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio.to_thread

from dwf.compiler.inert import escape, json_text, screen
from dwf.compiler.plan.text import render_text

from dwf.runtime.engine import Ceilings, PreparedRun, StartError, prepare
from dwf.runtime.host.amend import INHERITED_CAPS, cancel_run
from dwf.runtime.host.configure import LIVE_CAPS, ConfigureError, configure_run
from dwf.runtime.host.approval import (called_entries, check_unchanged, plan_summary, prepared_plan, approval_binding,
                                       resume_needs_approval)
from dwf.runtime.host.drafts import DraftError, write_draft
from dwf.runtime.host.engine_thread import EngineThread
from dwf.runtime.host.run_views import RunLookupError, resolve_run, run_summary, snapshot, status_text
from dwf.runtime.host.saved import (SavedWorkflowError, global_dir, list_saved, project_dir, read_saved_text,
                                    save_workflow)
from dwf.runtime.host.session import WorkspaceSession
from dwf.runtime.host.watch import DEFAULT_POLL_S, DEFAULT_STALL_AFTER_S, GUIDANCE, RunWatch
from dwf.runtime.host.snippets import check_snippet, eval_snippet_in_thread
from dwf.runtime.journal.store import JournalError
from dwf.runtime.ports.agent_definitions import check_agent_types
from dwf.runtime.ports.worktrees import check_isolation
from dwf.runtime.ports.models import available_models
from dwf.runtime.ports.questions import AnswerError, write_answer
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
    """A submitted script, not yet compiled: from `script` (written as a draft), `path` or `saved`."""

    data: str | bytes  # a file's bytes are decoded by the compiler
    path: str  # shown in diagnostics and stored with the run
    origin: str  # "script" | "path" | "saved" | "stored" (a run's own script, resumed)
    draft: Path | None = None


def result_text(result: dict) -> str:
    """What a model reads for a result: the error text when it failed, else the JSON; either made
    inert (`compiler.inert`: control and bidi characters escaped), since a host may show it."""
    if not result.get("ok", True) and isinstance(result.get("error"), str):
        return screen(result["error"])
    return json_text(dumps(result, indent=2))


class ToolLayer:
    """The eleven tools over one workspace, with an engine for background runs (module docstring)."""

    def __init__(self, workspace: str | Path, *, agent: str | None = None, model: str | None = None,
                 actor_tools: str | None = None, approver: Approver | None = None,
                 ceilings: Ceilings | None = None):
        self.workspace = Path(workspace)
        self.agent = agent
        self.model = model
        self.actor_tools = actor_tools
        self.approver = approver
        self.session = WorkspaceSession(workspace, agent=agent, model=model, actor_tools=actor_tools,
                                        ceilings=ceilings)
        self.root: Path | None = None
        self.journal = None
        self.own_runs: set[str] = set()  # runs this layer started (CreateWorkflow, AmendWorkflow)
        self._approved_commands: dict[str, frozenset[str]] = {}  # own run -> its approved command set
        self._engine_thread: EngineThread | None = None  # the runs' engine and its loop
        self._handlers = {
            "CreateWorkflow": self._create_workflow, "AmendWorkflow": self._amend_workflow,
            "EvalWorkflowSnippet": self._eval_workflow_snippet, "SaveWorkflow": self._save_workflow,
            "ListSavedWorkflows": self._list_saved_workflows, "ListWorkflowRuns": self._list_workflow_runs,
            "GetWorkflowRun": self._get_workflow_run, "ResumeWorkflowRun": self._resume_workflow_run,
            "CancelWorkflowRun": self._cancel_workflow_run, "ResolveWorkflowQuestion": self._resolve_workflow_question, "ListModels": self._list_models}
        assert tuple(self._handlers) == TOOL_NAMES

    # ------------------------------------------------------------ lifecycle

    async def __aenter__(self) -> ToolLayer:
        root = self.session.root
        if not root.is_dir():
            raise ToolLayerError(f"the workspace {self.workspace} is not a directory; pass an existing folder")
        self.root = root
        if self.agent:
            port = self._load_port()
            await port.close()  # only checked here; every run gets a fresh one
        try:
            self.journal = self.session.open()
        except JournalError as error:
            raise ToolLayerError(str(error)) from None
        self._engine_thread = EngineThread()
        try:
            await self._engine_thread.__aenter__()
        except BaseException:
            self.session.close()
            raise
        return self

    async def __aexit__(self, exc_type, exc, traceback) -> bool | None:
        try:
            # The engine stops live runs as stopped(interrupted) and waits for them to settle.
            await self._engine_thread.__aexit__(exc_type, exc, traceback)
        finally:
            self.session.close()

    # ------------------------------------------------------------ the tools

    def watch(self, *, stall_after_s: float = DEFAULT_STALL_AFTER_S, poll_s: float = DEFAULT_POLL_S) -> RunWatch:
        """The notices of the workspace's runs, this layer's and other processes' (`host/watch.py`):
        `async with tools.watch() as notices: async for notice in notices: ...`."""
        return RunWatch.of_workspace(self.root or self.workspace, stall_after_s=stall_after_s, poll_s=poll_s)

    def definitions(self) -> tuple[ToolDefinition, ...]:
        return DEFINITIONS

    def anthropic_tools(self) -> list[dict]:
        return [d.to_anthropic() for d in DEFINITIONS]

    async def call(self, name: str, arguments: Any = None, *, approver: Approver | None = None) -> dict:
        """Run tool `name`; `approver` overrides the layer's approver for this call."""
        if self._engine_thread is None:
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
        source = self._source(arguments, ("script", "path", "saved"))
        given = arguments.get("args") or {}
        prepared = await self._prepare(source, given)
        program = prepared.program
        self._require_agent()
        problems = list(prepared.argument_problems) + check_agent_types(program, self.root) \
            + [p for called in (program, *prepared.called.values()) for p in check_isolation(called, self.root)] \
            + self._hints(prepared.problems[len(prepared.argument_problems):])
        if problems:
            raise _Refusal("the workflow cannot start: " + "; ".join(problems) + ". Nothing ran.", problems=problems)
        caps = {"max_concurrency": arguments.get("max_concurrency"), "budget": arguments.get("budget")}
        request = self._run_approval("CreateWorkflow", source, prepared, caps,
                                     summary=f"Run the workflow `{prepared.name}`")
        if not await self._approve(approver, request):
            return _not_approved("the workflow was not started")
        self._check_unchanged(source, prepared, request)
        run = await self._start(prepared, **caps)
        return {"ok": True, "run_id": run.id, "status": "backgrounded", "name": prepared.name,
                "path": source.path, **({"draft": str(source.draft)} if source.draft else {}),
                "message": "The run started in the background; follow it with GetWorkflowRun."}

    # AmendWorkflow --------------------------------------------------------------------------

    async def _amend_workflow(self, arguments: dict, approver: Approver | None) -> dict:
        row = self._resolve(arguments["run"])
        if "script" not in arguments and "path" not in arguments:
            return await self._configure_run(row, arguments, approver)
        source = self._source(arguments, ("script", "path"))
        given = arguments.get("args")
        prepared = await self._prepare(source, dict(row.args or {}) if given is None else given,
                                 rejected="the run was not amended", given=tuple(given or ()))
        self._require_agent()
        if prepared.argument_problems:
            raise _Refusal(f"the new script does not accept the run's arguments: {'; '.join(prepared.argument_problems)}; "
                           "pass `args`. The run was not amended.")
        if prepared.problems:
            problems = self._hints(prepared.problems)
            raise _Refusal("the run was not amended: " + "; ".join(problems) + ".", problems=problems)
        caps = self.session.amend_caps(row, {name: arguments[name] for name in INHERITED_CAPS if name in arguments})
        user_stopped = row.status == "stopped" and row.stop_reason == "user"
        within_approved = prepared.commands <= self._approved_commands.get(row.id, frozenset())
        if not (row.id in self.own_runs and not user_stopped and within_approved):
            live = " It is running: it will be stopped as superseded." if row.status == "running" else ""
            request = self._run_approval("AmendWorkflow", source, prepared, caps,
                                         summary=f"Amend run {row.id} ({status_text(row)}) with `{prepared.name}`",
                                         preface=f"Amend run {row.id} ({status_text(row)}).{live}")
            if not await self._approve(approver, request):
                return _not_approved("the run was not amended")
            self._check_unchanged(source, prepared, request)
        if row.status == "running":  # stopped now even inside a synchronous stretch (`cancel_run` waits)
            self._engine_thread.interrupt(row.id, "superseded")
        run = await self._engine_thread.call(self._amend_there, row, prepared, caps)
        self._own(run.id, prepared.commands)
        return {"ok": True, "run_id": run.id, "amended_from": row.id, "status": "backgrounded",
                "path": source.path, **({"draft": str(source.draft)} if source.draft else {}),
                "message": "The amended run started in the background; follow it with GetWorkflowRun."}

    async def _amend_there(self, row, prepared: PreparedRun, caps: dict):
        """On the engine's loop: amend `row` with a fresh port (opened there, where it is used)."""
        port = self._port(model=caps["model"])
        try:
            return await self.session.amend(self._engine_thread.engine, row, prepared, port, caps=caps)
        except StartError as error:
            await port.close()
            raise _Refusal("the run was not amended: " + "; ".join(error.problems)) from None

    async def _configure_run(self, row, arguments: dict, approver: Approver | None) -> dict:
        """AmendWorkflow without a script: a live run's concurrency and model change at once; a run
        that is not running is amended with its own script and the changed caps."""
        if row.status != "running":
            if row.script is None:
                raise _Refusal(f"run {row.id} has no stored script to run again; give `script` or `path`")
            return await self._amend_workflow({**arguments, "script": row.script}, approver)
        changes = {name: arguments[name] for name in INHERITED_CAPS if name in arguments}
        if "budget" in changes:
            raise _Refusal(f"run {row.id} is running: its budget cannot change while it runs; only "
                           "max_concurrency and model can (or give `script` to amend it)")
        if row.id not in self.own_runs:
            summary = f"Change run {row.id} ({status_text(row)}): " + ", ".join(f"{k} {v}" for k, v in changes.items())
            if not await self._approve(approver, ApprovalRequest("AmendWorkflow", summary, summary,
                                                                 {"run": row.id, **changes})):
                return _not_approved("the run was not changed")
        try:
            current = await self._engine_thread.call(configure_run, self.journal, row, changes,
                                                     engine=self._engine_thread.engine, control_dir=self.session.control)
        except ConfigureError as error:
            raise _Refusal(f"{error}. Nothing changed.") from None
        caps = {name: (current.caps or {}).get(name) for name in LIVE_CAPS}
        return {"ok": True, "run_id": row.id, "status": current.status, "caps": caps,
                "message": "The running run uses the new caps from now on (raised concurrency admits waiting asks "
                           "at once)."}

    # EvalWorkflowSnippet --------------------------------------------------------------------

    async def _eval_workflow_snippet(self, arguments: dict, approver: Approver | None) -> dict:
        snippet = arguments["snippet"]
        check = await anyio.to_thread.run_sync(check_snippet, snippet)
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
        result = (await eval_snippet_in_thread(snippet, self.root, timeout_s=arguments.get("timeout_s"))).to_json()
        if result.get("status") != "completed":
            return {"ok": False, **result, "error": f"the snippet {result.get('status')}: {result.get('error')}"}
        return {"ok": True, **result}

    # SaveWorkflow and ListSavedWorkflows ----------------------------------------------------

    async def _save_workflow(self, arguments: dict, approver: Approver | None) -> dict:
        source = self._source(arguments, ("script", "path"))
        prepared = await self._prepare(source, None, rejected="nothing was saved", called=False)
        scope = arguments.get("scope", "project")
        name = arguments.get("name") or prepared.name
        folder = project_dir(self.root) if scope == "project" else global_dir()
        target = folder / f"{name}.dwf.py"
        request = self._run_approval("SaveWorkflow", source, prepared, {},
                                     summary=f"Save the workflow `{name}` as a {scope} workflow ({target})",
                                     preface=f"Save as the {scope} workflow `{name}`: {target}"
                                             + (" (replacing the existing one)" if arguments.get("replace") else ""),
                                     runs=False)
        if not await self._approve(approver, request):
            return _not_approved("nothing was saved")
        self._check_unchanged(source, prepared, request)
        try:
            saved = save_workflow(self.root, prepared.script, scope, arguments.get("name"),
                                  replace=bool(arguments.get("replace")))
        except SavedWorkflowError as error:
            raise _Refusal(str(error)) from None
        return {"ok": True, **saved.to_json(), "message": f"Saved; run it with CreateWorkflow(saved=\"{saved.name}\")."}

    async def _list_saved_workflows(self, arguments: dict, approver: Approver | None) -> dict:
        return {"ok": True, "workflows": [workflow.to_json() for workflow in list_saved(self.root)]}

    # Runs -----------------------------------------------------------------------------------

    async def _list_workflow_runs(self, arguments: dict, approver: Approver | None) -> dict:
        self._reconcile()
        rows = self.journal.list_runs()
        if arguments.get("status"):
            rows = [row for row in rows if row.status == arguments["status"]]
        limit = arguments.get("limit", 20)
        summaries = [{**run_summary(self.journal, row), "own": row.id in self.own_runs}
                     for row in rows[:limit]]
        return {"ok": True, "runs": summaries, "total": len(rows)}

    async def _get_workflow_run(self, arguments: dict, approver: Approver | None) -> dict:
        row = self._resolve(arguments["run"])
        data = snapshot(self.journal, row)
        count = arguments.get("log_lines", 20)
        lines = [str((event["payload"] or {}).get("message", "")) for event in self.journal.events(row.id)
                 if event["type"] == "log"]
        data["log"] = lines[-count:] if count else []
        data["own"] = row.id in self.own_runs
        data["next"] = _next_step(data)
        return {"ok": True, **data}

    async def _resume_workflow_run(self, arguments: dict, approver: Approver | None) -> dict:
        row = self._resolve(arguments["run"])
        # the saved workflows pinned at the start: approved then
        prepared = await anyio.to_thread.run_sync(self.session.prepare_resume, row)
        if prepared.compiled is None:  # not resumable
            raise _Refusal("; ".join(prepared.problems))
        if prepared.program is None:
            raise _Refusal(f"run {row.id} cannot be resumed: its script no longer compiles with this dwf; "
                           "amend it instead (AmendWorkflow)")
        why = resume_needs_approval(row, self.root)
        if why is not None:  # the approval given when it started no longer holds
            source = _Source(prepared.script, prepared.path, "stored")
            request = self._run_approval("ResumeWorkflowRun", source, prepared, {},
                                         summary=f"Resume run {row.id} ({status_text(row)}) of `{prepared.name}`",
                                         preface=f"Resume run {row.id} ({status_text(row)}): {why}, so it needs "
                                                 "your approval again.")
            if not await self._approve(approver, request):
                return _not_approved("the run was not resumed")
        run = await self._start(prepared, model=self.session.resume_model(row))
        return {"ok": True, "run_id": run.id, "status": "backgrounded", "resumed": True,
                "message": "The run continues in the background; follow it with GetWorkflowRun."}

    async def _cancel_workflow_run(self, arguments: dict, approver: Approver | None) -> dict:
        row = self._resolve(arguments["run"])
        if row.status != "running":
            raise _Refusal(f"run {row.id} is not running (it is {status_text(row)}); nothing to cancel")
        self._engine_thread.interrupt(row.id, "model")  # a run of ours stops even inside a synchronous stretch
        current = await self._engine_thread.call(cancel_run, self.journal, row, engine=self._engine_thread.engine,
                                                 control_dir=self.session.control, reason="model",
                                                 wait_s=arguments.get("wait_s", 10))
        if current.status == "running":
            return {"ok": True, "run_id": row.id, "status": "running", "stop_reason": None,
                    "message": "Asked the run to stop; it has not settled yet (GetWorkflowRun tells when it has)."}
        return {"ok": True, "run_id": row.id, "status": current.status, "stop_reason": current.stop_reason,
                "message": f"The run is {status_text(current)}."}

    async def _resolve_workflow_question(self, arguments: dict, approver: Approver | None) -> dict:
        try:
            record = write_answer(self.root, arguments["question_id"], arguments["answer"])
        except AnswerError as error:
            raise _Refusal(str(error).replace("(pass --workspace DIR if the run uses another workspace)",
                                              "(GetWorkflowRun lists the pending ones)")) from None
        return {"ok": True, "question_id": arguments["question_id"], "run_id": record.get("run_id"),
                "actor": record.get("actor"), "message": "Answered; the actor continues with your answer."}

    async def _list_models(self, arguments: dict, approver: Approver | None) -> dict:
        return {"ok": True, **available_models(self.agent, self.model)}

    # ------------------------------------------------------------ helpers

    def _source(self, arguments: dict, fields: tuple[str, ...]) -> _Source:
        given = [name for name in fields if name in arguments]
        if len(given) != 1:
            wanted = ", ".join(f"`{name}`" for name in fields[:-1]) + f" or `{fields[-1]}`"
            got = "none" if not given else " and ".join(f"`{name}`" for name in given)
            raise _Refusal(f"give exactly one of {wanted} (got {got})")
        origin = given[0]
        if origin == "script":
            text = arguments["script"]
            try:
                draft = write_draft(self.root, text)
            except DraftError as error:
                raise _Refusal(str(error)) from None
            return _Source(text, str(draft), origin, draft)
        if origin == "path":
            path = self._inside_workspace(arguments["path"])
            try:
                return _Source(path.read_bytes(), str(path), origin)
            except OSError as error:
                raise _Refusal(f"cannot read {path}: {error.strerror or error}; give an existing *.dwf.py file "
                               "(relative paths are relative to the workspace)") from None
        try:
            text, path = read_saved_text(self.root, arguments["saved"])
        except SavedWorkflowError as error:
            raise _Refusal(str(error) + " (ListSavedWorkflows lists them)") from None
        return _Source(text, str(path), origin)

    def _inside_workspace(self, given: str) -> Path:
        """The file `given` (relative to the workspace, or absolute) names, resolved, when it lies
        inside the workspace; else a `$.path` refusal, before anything is read."""
        path = Path(given)
        resolved = (path if path.is_absolute() else self.root / path).resolve()
        if given.startswith("~") or not resolved.is_relative_to(self.root):
            raise _Refusal(f"invalid input: $.path: {escape(given)!r} is outside the workspace {self.root}; give a "
                           "*.dwf.py file inside it (relative paths are relative to the workspace). Nothing was read.",
                           problems=["$.path: outside the workspace"])
        return resolved

    def _check_unchanged(self, source: _Source, prepared: PreparedRun, request: ApprovalRequest) -> None:
        """Refuse (`SCRIPT_CHANGED`) when what would start is not what was approved: the file
        behind `path`/`saved` or a called workflow's file was edited while the person looked."""
        script_file = Path(source.path) if source.origin in ("path", "saved") else None
        problem = check_unchanged(prepared, script_file, request.binding, self.actor_tools)
        if problem is not None:
            raise _Refusal(problem[0].upper() + problem[1:] + ".", status="not_approved")

    async def _prepare(self, source: _Source, args: dict | None, *, rejected: str = "", called: bool = True,
                       given: tuple[str, ...] | None = None) -> PreparedRun:
        """The submitted script prepared once (`host.session`); a script that does not compile
        is refused with its diagnostics. Without `called`, the saved workflows it calls are not
        looked up (a script being saved does not run). It compiles in a worker thread: a 1 MB
        script takes seconds, while the host's other calls must still be answered."""
        if called:
            work = functools.partial(self.session.prepare, source.data, source.path, args, given=given)
        else:
            work = functools.partial(prepare, source.data, source.path, None, {}, cache=self.session.cache)
        prepared = await anyio.to_thread.run_sync(work)
        if prepared.program is None:
            raise _Refusal(**_rejection(source, prepared, rejected))
        return prepared

    @staticmethod
    def _hints(problems: list[str]) -> list[str]:
        """Problems with the hints that name this layer's tools instead of `dwfc` commands."""
        return [problem.replace("`dwfc saved` lists them", "ListSavedWorkflows lists them") for problem in problems]

    def _run_approval(self, tool: str, source: _Source, prepared: PreparedRun, caps: dict, *,
                      summary: str, preface: str | None = None, runs: bool = True) -> ApprovalRequest:
        """The approval screen: the plan of `dwfc plan` (with the saved workflows it calls) and,
        when it `runs`, where and how (as `dwfc run` prints it)."""
        if runs:
            tool_set = None if str(self.agent or "").startswith("command") else \
                self.actor_tools or os.environ.get("DWF_ACTOR_TOOLS") or "write"  # the command port's agent has its own
            text = plan_summary(prepared, self.root, agent=self.agent or "(none)",
                                max_concurrency=caps.get("max_concurrency"), budget=caps.get("budget"),
                                ceilings=self.session.ceilings, actor_tools=tool_set).rstrip("\n")
        else:
            text = render_text(prepared_plan(prepared)).rstrip("\n")
        if preface:
            text = preface + "\n\n" + text
        commands = sorted(prepared.commands)
        summary += f"; commands: {', '.join(commands)}" if commands else "; it runs no commands"
        if prepared.called:
            summary += "; it calls the saved workflows " + ", ".join(f"`{name}`" for name in prepared.called)
        summary, text = escape(summary), screen(text)  # the name and commands are the script's
        run_args = prepared.args if runs else None
        return ApprovalRequest(tool, summary, text, binding=approval_binding(prepared, self.actor_tools), details={
            "name": prepared.name, "path": source.path, "args": run_args,
            "commands": commands, "workspace": str(self.root), "agent": self.agent,
            **({"workflows": called_entries(prepared.called, prepared.sources)} if prepared.called else {}),
            **{key: value for key, value in caps.items() if value is not None}})

    async def _approve(self, approver: Approver | None, request: ApprovalRequest) -> bool:
        if approver is None:
            raise ApprovalUnavailable("this tool layer has no approver, so no one can approve the plan; "
                                      "create the ToolLayer with approver=...")
        return bool(await approver(request))

    def _load_port(self, model: str | None = None):
        problems: list[str] = []
        port = self.session.open_port(problems, model=model)
        if port is None:
            raise ToolLayerError("; ".join(problems) or f"cannot load the agent port {self.agent!r}")
        return port

    def _require_agent(self) -> None:
        if not self.agent:
            raise _Refusal("this host has no agent port, so no workflow can run; start it with an agent "
                           "(e.g. `dwfc mcp --agent anthropic`). Nothing ran.")

    def _port(self, model: str | None = None):
        self._require_agent()
        try:
            return self._load_port(model)
        except ToolLayerError as error:
            raise _Refusal(str(error)) from None

    async def _start(self, prepared: PreparedRun, *, max_concurrency: int | None = None, budget: int | None = None,
                     model: str | None = None):
        """Start (or resume) a background run of a prepared script: it may execute exactly its
        approved command set, and calls the saved workflows it was prepared with (a resume: the
        pinned ones). The port is opened, and the run started, on the engine's loop."""
        async def start_there():
            port = self._port(model)
            self._forget_settled()
            try:
                return self.session.start(self._engine_thread.engine, prepared, port, max_concurrency=max_concurrency,
                                          budget=budget, model=model)
            except StartError as error:
                await port.close()
                verb = "resumed" if prepared.stored is not None else "started"
                raise _Refusal(f"the run was not {verb}: " + "; ".join(error.problems)) from None

        run = await self._engine_thread.call(start_there)
        if prepared.stored is None:
            self._own(run.id, prepared.commands)
        return run

    def _forget_settled(self) -> None:
        """A long session starts many runs; the journal holds the settled ones, the engine need not."""
        runs = self._engine_thread.engine.runs
        for run_id, run in list(runs.items()):
            if run.settled.is_set():
                del runs[run_id]

    def _own(self, run_id: str, commands: frozenset[str]) -> None:
        self.own_runs.add(run_id)
        self._approved_commands[run_id] = commands

    def _reconcile(self) -> None:
        self.session.reconcile()

    def _resolve(self, reference: str):
        self._reconcile()
        try:
            return resolve_run(self.journal, reference)
        except RunLookupError as error:
            message = str(error).replace("`dwfc runs` lists", "ListWorkflowRuns lists")
            if error.candidates:
                message += ": " + ", ".join(row.id for row in error.candidates[:10])
            raise _Refusal(message) from None


# ---------------------------------------------------------------------------- results


def _diagnostic_line(path: str, diagnostic: dict) -> str:
    line = f"{path}:L{diagnostic['line']}:C{diagnostic['column']} {diagnostic['code']} {diagnostic['message']}"
    return line + (f" (help: {diagnostic['help']})" if diagnostic.get("help") else "")


def _rejection(source: _Source, prepared: PreparedRun, rejected: str) -> dict:
    """The result for a script that does not compile: `path:L{line}:C{col} message` lines."""
    diagnostics = [d.to_json() for d in prepared.compiled.diagnostics]
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
        return ("The run is still going; over MCP you are told when it ends, stalls or asks a question; otherwise "
                "call GetWorkflowRun again in a while.")
    if snapshot["status"] == "stopped" and snapshot["stop_reason"] == "user":
        return GUIDANCE["stopped(user)"]
    if snapshot["resumable"]:
        return "The run stopped; ResumeWorkflowRun continues it, AmendWorkflow restarts it with an edited script."
    if snapshot["status"] == "errored":
        return "The run failed (see error); fix the script and use AmendWorkflow to keep the finished work."
    return "The run is finished."


__all__ = ["ToolLayer", "ToolLayerError", "result_text"]
