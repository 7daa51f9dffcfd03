"""This module defines the MCP prompts `dwfc mcp` offers; hosts show prompts as slash commands.

- `write-workflow` (`WRITE_PROMPT`): the language guide, then short instructions in the real tool
  names (ListSavedWorkflows first, EvalWorkflowSnippet to try an expression, CreateWorkflow to
  compile, check and submit, GetWorkflowRun to follow, SaveWorkflow only when asked); its optional
  `task` argument is the job.
- `/<name>` for every saved workflow the workspace can run (project ones, then global ones not
  shadowed by a project one), listed afresh on each `prompts/list`, so a workflow saved while the
  server runs appears. Its arguments are the workflow's declared `meta["args"]`, required when the
  run would be refused without them (declared `required` and no default). Its one user message
  asks the host model to call CreateWorkflow with `saved` and the given arguments, converted
  from the prompt's strings to the declared types and checked as a run checks them.

Not offered: a saved workflow named `write-workflow` (the guide prompt keeps its name; the
workflow still runs with CreateWorkflow(saved=...)) and one that no longer compiles (asking for
its prompt says so). Every refusal is a `PromptError` with one sentence saying what to do.
"""

from __future__ import annotations

import json
from pathlib import Path

import mcp_types as types

from dwf.grammar import language_guide
from dwf.runtime.engine.arguments import ArgumentError, validate_args
from dwf.runtime.host.saved import SavedWorkflow, SavedWorkflowError, find_saved, is_valid_name, list_saved
from dwf.runtime.values.plain_json import dumps

WRITE_PROMPT = "write-workflow"
WRITE_WORKFLOW = types.Prompt(
    name=WRITE_PROMPT, title="Write a DWF workflow",
    description="The DWF language guide plus instructions to write a workflow script and submit it with "
                "CreateWorkflow.",
    arguments=[types.PromptArgument(name="task", required=False,
                                    description="What the workflow should do (omit it to describe the task next).")])


class PromptError(Exception):
    """PromptError: a prompt cannot be given (unknown name, a workflow that does not compile, bad
    arguments); the message is one sentence saying what to do."""


def list_prompts(workspace: Path) -> list[types.Prompt]:
    """list_prompts: `write-workflow`, then one prompt per runnable saved workflow, as of now."""
    return [WRITE_WORKFLOW] + [saved_prompt(workflow) for workflow in list_saved(workspace) if _offered(workflow)]


def get_prompt(workspace: Path, name: str, arguments: dict[str, str] | None) -> types.GetPromptResult:
    """get_prompt: the messages of prompt `name` with `arguments`, or `PromptError`."""
    arguments = arguments or {}
    if name == WRITE_PROMPT:
        task = (arguments.get("task") or "").strip()
        return _one_message(WRITE_WORKFLOW.description, write_workflow_message(task))
    workflow = _find(workspace, name)
    given = run_arguments(workflow, arguments)
    return _one_message(workflow.description, run_saved_message(workflow, given))


def saved_prompt(workflow: SavedWorkflow) -> types.Prompt:
    """saved_prompt: the prompt of one saved workflow: its name, description and declared args."""
    description = workflow.description or ""
    if workflow.when_to_use:
        description += f" When to use: {workflow.when_to_use}"
    return types.Prompt(name=workflow.name, title=f"Run the saved workflow {workflow.name}",
                        description=f"{description} ({workflow.scope} workflow)".strip(),
                        arguments=[_argument(name, spec) for name, spec in workflow.args.items()])


def run_arguments(workflow: SavedWorkflow, arguments: dict[str, str]) -> dict:
    """run_arguments: the prompt's string arguments as the run's values (a `string` arg as given,
    any other type read as JSON), checked against the declared args; an empty value counts as
    not given (hosts send optional fields empty)."""
    values = {}
    for name, text in arguments.items():
        if text is None or not text.strip():
            continue
        spec = workflow.args.get(name)
        values[name] = _typed(text, spec.get("type", "json") if isinstance(spec, dict) else "string")
    try:
        validate_args({"args": workflow.args}, values)
    except ArgumentError as error:
        located = [f"$.arguments.{name}: {problem}" for name, problem in zip(error.names, error.problems)]
        raise PromptError(f"the saved workflow `{workflow.name}` cannot run with these arguments: "
                          f"{'; '.join(located)}") from None
    return values


def run_saved_message(workflow: SavedWorkflow, values: dict) -> str:
    """run_saved_message: the text asking the host model to run `workflow` with `values`."""
    call = {"saved": workflow.name, **({"args": values} if values else {})}
    return (f"Run the saved DWF workflow `{workflow.name}` ({workflow.description}).\n\n"
            f"Call the CreateWorkflow tool with exactly this input:\n\n{dumps(call)}\n\n"
            "A person approves its plan before it starts; it then runs in the background. Follow it with "
            "GetWorkflowRun, answer the questions its agents escalate with ResolveWorkflowQuestion (ask me "
            "when one needs my decision), and tell me the result. If the call reports a problem with the "
            "arguments, ask me for the corrected values rather than guessing.")


def write_workflow_message(task: str = "") -> str:
    """The `write-workflow` prompt's text: the guide first (long context before the request), then
    the instructions, then the task, or a request to wait for one."""
    request = (f"Write a DWF workflow for this task:\n\n{task}" if task
               else "I will describe the task next; then write a DWF workflow for it.")
    return (f"<dwf-language-guide>\n{language_guide()}</dwf-language-guide>\n\n"
            "Using only the language in the guide above, write one complete `*.dwf.py` script: a `meta` block, "
            "`phase()` markers, awaited asks with typed results where the script reads fields, and a JSON return "
            "value. First check ListSavedWorkflows: if a saved workflow already does the job, run it with "
            "CreateWorkflow(saved=name) instead. Try an uncertain expression or workspace read with "
            "EvalWorkflowSnippet. Submit the script with the CreateWorkflow tool, which compiles and checks it "
            "before anything runs; if it does not compile, edit the draft file in place and resubmit it with "
            "`path`. Follow the run with GetWorkflowRun. Do not save the workflow unless I ask: if it looks "
            "reusable, suggest SaveWorkflow in one sentence.\n\n" + request)


def _offered(workflow: SavedWorkflow) -> bool:
    return workflow.name != WRITE_PROMPT and not workflow.shadowed and workflow.description is not None


def _find(workspace: Path, name: str) -> SavedWorkflow:
    if not is_valid_name(name):
        raise PromptError(f"unknown prompt {name!r}; this server has {WRITE_PROMPT} and one prompt per saved workflow")
    try:
        workflow = find_saved(workspace, name)
    except SavedWorkflowError as error:
        raise PromptError(f"unknown prompt {name!r}: {error}") from None
    if workflow.description is None:
        raise PromptError(f"the saved workflow `{name}` does not compile with this dwf; fix {workflow.path} "
                          f"(`dwfc check` lists the errors)")
    return workflow


def _argument(name: str, spec: object) -> types.PromptArgument:
    spec = spec if isinstance(spec, dict) else {}
    arg_type = spec.get("type", "json")
    facts = [arg_type] + ([f"default {dumps(spec['default'])}"] if "default" in spec else [])
    description = " ".join(part for part in (spec.get("description"), f"({', '.join(facts)})") if part)
    return types.PromptArgument(name=name, description=description,
                                required=bool(spec.get("required")) and "default" not in spec)


def _typed(text: str, arg_type: str) -> object:
    """A prompt argument's string as a value of `arg_type`; text that is not JSON stays a string,
    which `validate_args` then reports as the wrong type (or accepts, for `json`)."""
    if arg_type == "string":
        return text
    try:
        return json.loads(text.strip().lower() if arg_type == "boolean" else text)
    except ValueError:
        return text


def _one_message(description: str | None, text: str) -> types.GetPromptResult:
    return types.GetPromptResult(description=description, messages=[
        types.PromptMessage(role="user", content=types.TextContent(text=text))])


__all__ = ["PromptError", "WRITE_PROMPT", "WRITE_WORKFLOW", "get_prompt", "list_prompts", "run_arguments",
           "run_saved_message", "saved_prompt", "write_workflow_message"]
