"""This module defines what the tool layer (TOOLS §3) offers a host agent, as data: the eleven tool
definitions (name, a description written for a model, a JSON Schema for the input, and whether
a call needs a person's approval), the approval request a host shows a person, and input
validation with `jsonschema`.

The schemas avoid top-level `oneOf`/`anyOf` (the Anthropic API refuses them in a tool's
`input_schema`), so "exactly one of `script` / `saved` / `path`" is checked by the handler and
reported as a normal input error. The handlers are in `tools/layer.py`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Literal

import jsonschema

from dwf.runtime.engine.ask import schema_violations

Approval = Literal["always", "never", "conditional"]
SAVED_NAME_PATTERN = "^[A-Za-z0-9_.-]{1,64}$"
QUESTION_ID_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$"


@dataclass(frozen=True)
class ToolDefinition:
    """ToolDefinition: one tool as a host offers it to a model."""

    name: str
    description: str
    input_schema: dict
    approval: Approval  # "conditional": see the description of the tool
    read_only: bool = False  # it changes nothing (MCP's read-only hint)

    def to_anthropic(self) -> dict:
        """The Anthropic Messages API tool definition."""
        return {"name": self.name, "description": self.description, "input_schema": self.input_schema}


@dataclass
class ApprovalRequest:
    """What a person is asked to approve before a tool call acts."""

    tool: str
    summary: str  # one line
    text: str  # the plan as a person reads it (the approval screen of TOOLS §2)
    details: dict = field(default_factory=dict)  # JSON: commands, args, workspace, ...
    # What the approval covers (`host/approval.approval_binding`): a host that answers on a
    # later call (MCP's retry) holds its answer to this, never to the call's arguments alone.
    binding: str = ""

    def to_json(self) -> dict:
        return {"tool": self.tool, "summary": self.summary, "text": self.text, "details": self.details}


Approver = Callable[[ApprovalRequest], Awaitable[bool]]


class ApprovalUnavailable(Exception):
    """The host cannot ask a person (e.g. an MCP client without elicitation): the call is refused
    with this message and nothing runs."""


class ApprovalPending(Exception):
    """Raised by an approver that cannot answer within this call but will on a retry of it (MCP's
    multi-round-trip elicitation): it leaves `ToolLayer.call` so the host can ask and call again."""


async def approve_all(request: ApprovalRequest) -> bool:
    """An approver for hosts that gate every tool call themselves."""
    return True


# ---------------------------------------------------------------------------- shared schema parts

_RUN = {"type": "string", "minLength": 1,
        "description": "A run id (dwfrun-...) or a unique prefix of one, as ListWorkflowRuns shows."}
_SCRIPT = {"type": "string", "minLength": 1,
           "description": "The complete DWF script (the text of a *.dwf.py file)."}
_PATH = {"type": "string", "minLength": 1,
         "description": "A *.dwf.py file, absolute or relative to the workspace; use it to resubmit a draft "
                        "after fixing it in place."}
_ARGS = {"type": "object", "description": "Run arguments, checked against the script's meta[\"args\"]."}

# The caps an amend may change; left out, the predecessor's are kept, and null clears one.
_AMEND_CAPS = {
    "max_concurrency": {"type": ["integer", "null"], "minimum": 1, "maximum": 256,
                        "description": "Asks in flight at once (default: the predecessor's; null: the script's, "
                                       "else the host's)."},
    "budget": {"type": ["integer", "null"], "minimum": 0,
               "description": "Output-token budget (default: the predecessor's; null: no budget)."},
    "model": {"type": ["string", "null"], "minLength": 1,
              "description": "The agent port's default model (default: the predecessor's; null: the host's); "
                             "ListModels lists them."}}

# One sentence naming the full guide (docs/language.md), which `dwfc mcp` serves as a resource and a prompt.
_GUIDE = ("Before writing a script, read the language guide: the MCP resource dwf://guide/language (or prompt "
          "write-workflow), or `dwfc guide`. ")
_LANGUAGE_PRIMER = (
    "A DWF script is Python 3.11 syntax with top-level `await` and `return`. It starts with "
    "`meta = {\"name\": \"kebab-case\", \"description\": \"One line.\"}` (optional \"args\", \"phases\"), "
    "marks stages with `phase(\"Title\")`, creates sub-agents with `agent(\"name\", system=...)` and gives "
    "them tasks with `await actor.ask(\"...\", returns=T)` (T a type such as `list[str]` or a TypedDict), fans "
    "out with `await parallel(... for x in xs)`, reads the workspace with `await files.read/glob/grep` and "
    "`await git.diff/changed_files`, runs commands with `await world.run(\"literal-cmd\", [args])`, and "
    "publishes with `log(msg)` and `report(item)`. No other I/O, no clocks, no randomness."
)


def _object(properties: dict, required: tuple[str, ...] = ()) -> dict:
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    return schema


# ---------------------------------------------------------------------------- the eleven tools

DEFINITIONS: tuple[ToolDefinition, ...] = (
    ToolDefinition(
        "CreateWorkflow",
        "Compile a DWF workflow script and, once a person approves its plan, start it as a background run "
        "that orchestrates sub-agents. Use a workflow only when the user asks for one or the work is clearly worth "
        "orchestrating (many independent sub-tasks, parallel research, long multi-step jobs); otherwise do the "
        "work directly. Check ListSavedWorkflows first: a saved workflow that fits runs with `saved`. Give "
        "exactly one of `script` "
        "(inline text; it is saved as a draft under .dwf/drafts/), `path` (a script file, e.g. a fixed draft) "
        "or `saved` (a saved workflow's name, see ListSavedWorkflows), plus `args` when the script declares "
        "them. If the script does not compile nothing runs: the result lists `path:L{line}:C{col} message` "
        "lines; edit the draft file in place and call again with `path`. Otherwise the person sees the plan "
        "(phases, actors, the exact commands it may run); if approved the result is {run_id, status: "
        "\"backgrounded\"}; over MCP you are notified when it finishes, stalls or an actor asks a question "
        "(no need to poll), and GetWorkflowRun shows it at any time. " + _GUIDE + _LANGUAGE_PRIMER,
        _object({"script": _SCRIPT, "path": _PATH,
                 "saved": {"type": "string", "pattern": SAVED_NAME_PATTERN,
                           "description": "The name of a saved workflow (ListSavedWorkflows)."},
                 "args": _ARGS,
                 "max_concurrency": {"type": "integer", "minimum": 1, "maximum": 256,
                                     "description": "Asks in flight at once (default: the script's, else the host's)."},
                 "budget": {"type": "integer", "minimum": 0,
                            "description": "Output-token budget of the run; asks raise BudgetExceeded beyond it."}}),
        "always"),
    ToolDefinition(
        "AmendWorkflow",
        "Start an edited script as the successor of an existing run (any state; a live run is stopped as "
        "superseded). Named actors whose persona is unchanged import their finished asks in order at zero "
        "token cost, until the first changed ask or the first side effect, so fixing a late step does not "
        "redo early work. Give `run` and exactly one of `script` or `path`; the predecessor's args, "
        "max_concurrency, budget and model are kept unless you pass them (null clears a cap). Without `script` "
        "and `path` it changes a running run's max_concurrency or model at once (same run id), or re-runs a "
        "finished or stopped run's own script with the changed caps. Compile errors are returned like CreateWorkflow's and nothing changes. A "
        "person approves the new plan, except for runs you started in this session that a user did not stop, "
        "when the new script runs no command the old one was not approved for. Use it to fix or change a run "
        "rather than starting over; do not amend a run the user stopped unless they ask. Returns {run_id (the "
        "new run), amended_from, status: \"backgrounded\"}.",
        _object({"run": _RUN, "script": _SCRIPT, "path": _PATH, "args": _ARGS, **_AMEND_CAPS}, ("run",)),
        "conditional"),
    ToolDefinition(
        "EvalWorkflowSnippet",
        "Run a small DWF snippet synchronously and return its value: workspace reads (files.*, git.*), "
        "`world.run` commands and pure logic only (no agents, nothing persisted). Use it to explore the "
        "workspace or test an expression before writing a workflow, not to do the work itself. A person approves it only when it may run "
        "commands. Snippets use the workflow language (guide: resource dwf://guide/language or `dwfc guide`). "
        "Returns {ok, value or error, logs, ...}.",
        _object({"snippet": {"type": "string", "minLength": 1,
                             "description": "The snippet source: DWF statements, ending with `return VALUE`."},
                 "timeout_s": {"type": "number", "exclusiveMinimum": 0, "maximum": 600,
                               "description": "Give up after this many seconds."}},
                ("snippet",)),
        "conditional"),
    ToolDefinition(
        "SaveWorkflow",
        "Save a workflow script for reuse: scope `project` (.dwf/workflows/<name>.dwf.py in this workspace) or "
        "`global` ($DWF_HOME/workflows/). The script's meta (name, description, when_to_use, args) is its "
        "catalogue entry, and CreateWorkflow(saved=name) runs it. Never save unasked: when a workflow looks worth "
        "reusing, suggest saving it in one sentence and wait for the user to say so. Give exactly one of "
        "`script` or `path`. A person always approves a save. Returns the saved workflow's entry.",
        _object({"script": _SCRIPT, "path": _PATH,
                 "scope": {"type": "string", "enum": ["project", "global"], "default": "project"},
                 "name": {"type": "string", "pattern": SAVED_NAME_PATTERN,
                          "description": "The saved name (default: the script's meta name)."},
                 "replace": {"type": "boolean", "default": False,
                             "description": "Overwrite an existing saved workflow of that name."}}),
        "always"),
    ToolDefinition(
        "ListSavedWorkflows",
        "List the saved workflows this workspace can run, project ones first, then global ones (a project "
        "workflow shadows a global one of the same name). Each entry has name, scope, description, "
        "when_to_use and args. Check it before writing a new workflow.",
        _object({}),
        "never", read_only=True),
    ToolDefinition(
        "ListWorkflowRuns",
        "List the runs of this workspace, newest first: id, name, status (running, completed, errored, "
        "stopped with a reason), start time, duration, asks and output tokens, and whether you started it. Use "
        "it to find a run the user mentions or one started before this conversation.",
        _object({"limit": {"type": "integer", "minimum": 1, "maximum": 500, "default": 20},
                 "status": {"type": "string", "enum": ["running", "completed", "errored", "stopped"],
                            "description": "Only runs in this state."}}),
        "never", read_only=True),
    ToolDefinition(
        "GetWorkflowRun",
        "Get a snapshot of one run: status, phases with progress, actors, usage, the last `log` lines, "
        "pending questions (answer them with ResolveWorkflowQuestion), reports, artifacts, and the result or "
        "error. Over MCP the server notifies you when a run finishes, stalls or asks a question; without "
        "notifications, poll it to follow a backgrounded run (not in a tight loop: do other work or wait between "
        "calls). A `stopped` run with `resumable: true` can be continued with ResumeWorkflowRun, but do not "
        "resume a run the user stopped (`stopped(user)`, stop_reason \"user\") unless they ask.",
        _object({"run": _RUN,
                 "log_lines": {"type": "integer", "minimum": 0, "maximum": 500, "default": 20,
                               "description": "How many of the latest log lines to include."}},
                ("run",)),
        "never", read_only=True),
    ToolDefinition(
        "ResumeWorkflowRun",
        "Continue a stopped run under the same id (not an errored or superseded one): finished asks, reads "
        "and commands replay from the journal at zero cost and the rest runs again, with the script, args, "
        "caps, agent and actor tools it was approved with (each actor continues its conversation). Do not "
        "resume a run the user stopped unless they ask: such a run, or one whose journal was recorded in "
        "another workspace, needs the person to approve its plan again. Returns {run_id, status: "
        "\"backgrounded\"}.",
        _object({"run": _RUN}, ("run",)),
        "conditional"),
    ToolDefinition(
        "CancelWorkflowRun",
        "Stop a running run, as `stopped(model)`: in-flight asks and commands are cancelled, the finished work "
        "stays journaled, and the run can later be resumed (ResumeWorkflowRun) or amended (AmendWorkflow). Use "
        "it when the run is no longer wanted or is going wrong; it works on runs started by any process in this "
        "workspace. Waits up to `wait_s` seconds for the run to settle and returns {run_id, status, "
        "stop_reason}.",
        _object({"run": _RUN,
                 "wait_s": {"type": "number", "minimum": 0, "maximum": 60, "default": 10,
                            "description": "How long to wait for the run to settle (0: do not wait)."}},
                ("run",)),
        "never"),
    ToolDefinition(
        "ResolveWorkflowQuestion",
        "Answer a question a sub-agent of a running workflow escalated (GetWorkflowRun lists them under "
        "pending_questions with their ids); the agent continues with your answer. Ask the user when the "
        "question needs their decision. An answer cannot be changed once given.",
        _object({"question_id": {"type": "string", "pattern": QUESTION_ID_PATTERN,
                                 "description": "The question's id (dwfq-...)."},
                 "answer": {"type": "string", "minLength": 1}},
                ("question_id", "answer")),
        "never"),
    ToolDefinition(
        "ListModels",
        "List the model ids a script's `agent(..., model=...)` or a run may use, the default model of this "
        "host's agent port, and the short aliases agent definitions may use. Check it before naming a model in "
        "a script.",
        _object({}),
        "never", read_only=True),
)

TOOL_NAMES = tuple(definition.name for definition in DEFINITIONS)
_BY_NAME = {definition.name: definition for definition in DEFINITIONS}
_VALIDATORS = {definition.name: jsonschema.Draft202012Validator(definition.input_schema) for definition in DEFINITIONS}


def definition(name: str) -> ToolDefinition | None:
    """The definition of tool `name`, or None."""
    return _BY_NAME.get(name)


def input_problems(name: str, arguments: Any) -> list[str]:
    """Every way `arguments` violates the tool's input schema, as `$.path: message` lines."""
    if not isinstance(arguments, dict):
        return [f"the input must be a JSON object, not {type(arguments).__name__}"]
    return schema_violations(_VALIDATORS[name], arguments)


__all__ = ["Approval", "ApprovalPending", "ApprovalRequest", "ApprovalUnavailable", "Approver", "DEFINITIONS",
           "TOOL_NAMES", "ToolDefinition", "approve_all", "definition", "input_problems"]
