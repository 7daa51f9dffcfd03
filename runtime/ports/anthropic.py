"""This module defines the Anthropic agent port (RUNTIME §7): an `AgentPort` over the Messages
API through the official `anthropic` SDK's async client (`dwfc run FILE --agent anthropic`).

Conversations. Each actor (`request.actor.actor_id`, per run) is one persistent conversation:
its system prompt is the actor's `system` text followed by `contract.CONTRACT` (the actor's
contract: a script reads its answers, the evidence rule, faithful reporting, how asks,
`submit_result` and `escalate` work). Each turn appends one user message — the first turn of an
ask its instructions with `contract.ask_epilogue` after them — and runs the tool loop (call the
API, run the requested tools, send their results) until the model ends its turn; the turn
returns the text of the model's last message. The actor's `model` overrides the port's default.
Every message appended is journaled through `AskChannel.transcript` and the actor's session
(`anthropic-` and 16 hex digits of its system prompt's sha256) and model through
`AskChannel.session`; `restore` rebuilds a conversation from journaled messages (a resumed or
amended run), so the next request carries the history the original run's would have.

Agent definitions. An actor with `agent_type` gets its definition (`runtime.ports.agent_definitions`):
the system prompt is the definition's body, then the actor's `system`, then `CONTRACT`; the model
is the actor's `model`, else the definition's, else the port's; a definition's `tools` restrict
the workspace tools (Read→read_file, Grep→grep, Glob→list_files, Write→write_file,
Edit→edit_file, Bash→run_command) within the run's tool set, and so does the actor's own
`tools=`. An isolated actor (`request.actor.workdir`) gets the tools rooted in its worktree.

Tools. Typed asks (`request.schema` set) get a `submit_result` tool whose `input_schema` is the
ask's schema (a schema whose root is not an object is wrapped as `{"value": schema}` and the value
unwrapped on submit); the tool is `strict: true` when the schema fits the strict structured-output
subset (`strict_fit`), else non-strict with the constraints outside the subset (minLength,
pattern, maximum, ...) spelled out in its description. Its result is `accepted` or the violation
list, and a final rejection ends the turn. Every ask gets `escalate(question, context)`, which reaches the run's owner through
`AskChannel.escalate`, and the workspace tools of the run's tool set (`runtime.ports.actor_tools`).

Resilience. The SDK's own retries are off (`max_retries=0`): 429, 529, `overloaded_error` and
connection errors are retried here with exponential backoff and full jitter from `base_delay_s`,
honouring `retry-after` / `retry-after-ms` (each wait capped at `max_delay_s`), for at most
`max_retries` retries; each wait is reported as `channel.progress("waiting", ...)`. Any other API
error fails the ask with `AskError` carrying the API's message. Cancellation of the calling task
propagates into the SDK's HTTP call and aborts it. The usage of every response (input, output and
cache tokens) is reported through `channel.usage`.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from pathlib import Path
from typing import Any

import anyio

from dwf.runtime.ports.actor_tools import ActorTools, cap_text
from dwf.runtime.ports.agent_definitions import AgentDefinition, AgentDefinitionError, load_definition
from dwf.runtime.ports.contract import CONTRACT, ESCALATE_TOOL, SUBMIT_TOOL, first_message
from dwf.runtime.ports.protocols import AskChannel, AskError, AskRequest, Usage

DEFAULT_MODEL = "claude-sonnet-4-5"
DEFAULT_MAX_TOKENS = 8192
DEFAULT_MAX_RETRIES = 6
DEFAULT_BASE_DELAY_S = 1.0
DEFAULT_MAX_DELAY_S = 60.0
DEFAULT_TIMEOUT_S = 600.0
MAX_MODEL_CALLS_PER_TURN = 200

ESCALATE_DEFINITION = {
    "name": ESCALATE_TOOL,
    "description": "Ask the workflow's owner a question when you are blocked; returns the owner's answer.",
    "input_schema": {"type": "object", "properties": {"question": {"type": "string"}, "context": {"type": "string"}},
                     "required": ["question"]},
}

RETRYABLE_STATUS = frozenset({429, 529})


class AnthropicPortError(Exception):
    """The port cannot be constructed (no API key, bad options): a usage error before any effect."""


def submit_schema(schema: dict) -> tuple[dict, bool]:
    """The `input_schema` of `submit_result` for an ask's schema, and whether the value is wrapped."""
    if isinstance(schema, dict) and schema.get("type") == "object":
        return schema, False
    wrapped = {"type": "object", "properties": {"value": schema}, "required": ["value"], "additionalProperties": False}
    if isinstance(schema, dict) and "$defs" in schema:  # keep `#/$defs/...` references resolvable
        inner = {k: v for k, v in schema.items() if k != "$defs"}
        wrapped = {"type": "object", "properties": {"value": inner}, "required": ["value"], "additionalProperties": False,
                   "$defs": schema["$defs"]}
    return wrapped, True


# The strict structured-output subset: keywords a strict tool's input_schema may use.
STRICT_KEYWORDS = frozenset({"type", "properties", "required", "additionalProperties", "items", "enum", "const",
                             "anyOf", "allOf", "$ref", "$defs", "definitions", "description", "title", "default",
                             "format", "minItems", "$schema", "$id", "$comment", "examples"})
STRICT_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "uri", "ipv4", "ipv6",
                            "uuid"})
_SUBSCHEMA_LISTS = ("anyOf", "allOf", "oneOf", "prefixItems")
_SUBSCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")
_SUBSCHEMA_ONE = ("items", "not", "if", "then", "else", "contains", "additionalItems", "propertyNames",
                  "unevaluatedItems", "unevaluatedProperties")


def strict_fit(schema: Any) -> tuple[list[str], list[str]]:
    """Why `schema` is not in the strict subset: (structural reasons, constraints to fold into the
    tool description as text). Both empty: the schema can be used with `strict: true`."""
    reasons: list[str] = []
    constraints: list[str] = []

    def walk(node: Any, path: str) -> None:
        if isinstance(node, bool) or not isinstance(node, dict):
            reasons.append(f"{path}: a boolean schema")
            return
        for key, value in node.items():
            if key in _SUBSCHEMA_LISTS or key in _SUBSCHEMA_MAPS or key in _SUBSCHEMA_ONE or key == "additionalProperties":
                continue
            if key == "format" and value not in STRICT_FORMATS:
                constraints.append(f"{path}: format {value}")
            elif key == "minItems" and value not in (0, 1):
                constraints.append(f"{path}: minItems {json.dumps(value)}")
            elif key not in STRICT_KEYWORDS:
                constraints.append(f"{path}: {key} {json.dumps(value, sort_keys=True)}")
        types = node.get("type")
        is_object = types == "object" or (isinstance(types, list) and "object" in types) or "properties" in node
        if is_object:
            if node.get("additionalProperties") is not False:
                reasons.append(f"{path}: an object without `additionalProperties: false`")
            properties = node.get("properties") or {}
            if isinstance(properties, dict) and set(node.get("required") or ()) != set(properties):
                reasons.append(f"{path}: an object with optional properties")
        if isinstance(node.get("additionalProperties"), dict):
            reasons.append(f"{path}: additionalProperties as a schema")
            walk(node["additionalProperties"], f"{path}.*")
        for key in _SUBSCHEMA_LISTS:
            if key in node:
                if key != "anyOf" and key != "allOf":
                    reasons.append(f"{path}: `{key}`")
                for index, item in enumerate(node[key] if isinstance(node[key], list) else []):
                    walk(item, path if key in ("anyOf", "allOf", "oneOf") else f"{path}[{index}]")
        for key in _SUBSCHEMA_MAPS:
            if key in node and isinstance(node[key], dict):
                if key == "patternProperties":
                    reasons.append(f"{path}: `patternProperties`")
                for name, item in node[key].items():
                    walk(item, f"{path}.{name}" if key == "properties" else f"#/{key}/{name}")
        for key in _SUBSCHEMA_ONE:
            if key in node:
                if key != "items":
                    reasons.append(f"{path}: `{key}`")
                walk(node[key], f"{path}[]" if key == "items" else f"{path}({key})")

    walk(schema, "$")
    return reasons, constraints


def submit_tool(schema: dict) -> tuple[dict, bool]:
    """The `submit_result` tool definition for an ask's schema, and whether the value is wrapped:
    `strict: true` when the schema fits the strict subset; otherwise non-strict, with the
    constraints outside the subset spelled out in the description (the engine validates anyway)."""
    input_schema, wrapped = submit_schema(schema)
    description = "Submit the result of the current ask. " + ("Put the result in `value`." if wrapped
                                                              else "The input is the result.")
    reasons, constraints = strict_fit(input_schema)
    tool: dict[str, Any] = {"name": SUBMIT_TOOL, "description": description, "input_schema": input_schema}
    if not reasons and not constraints:
        tool["strict"] = True
    elif constraints:
        listing = "\n".join("- " + c for c in constraints)
        tool["description"] = description + "\nThe result must also meet these constraints:\n" + listing
    return tool, wrapped


class _Conversation:
    def __init__(self, system: str):
        self.system = system
        self.session_id = "anthropic-" + hashlib.sha256(system.encode("utf-8")).hexdigest()[:16]
        self.messages: list[dict] = []

    def add(self, role: str, content: list[dict], channel: AskChannel | None = None) -> None:
        """Append a message (journaled through `channel`, as appended); user content merges into
        a trailing user message (e.g. tool results left by a turn that ended on a final
        rejection), so roles keep alternating. `restore` replays the journal through here, so
        a rebuilt conversation merges exactly as the original did."""
        if channel is not None:
            channel.transcript({"role": role, "content": content})
        if role == "user" and self.messages and self.messages[-1]["role"] == "user":
            self.messages[-1]["content"].extend(content)
        else:
            self.messages.append({"role": role, "content": list(content)})


class AnthropicAgentPort:
    """An `AgentPort` over the Anthropic Messages API (see the module docstring)."""

    def __init__(self, model: str | None = None, api_key: str | None = None, base_url: str | None = None,
                 actor_tools: str | None = "write", workspace: str | os.PathLike | None = None,
                 max_retries: int = DEFAULT_MAX_RETRIES, *, base_delay_s: float = DEFAULT_BASE_DELAY_S,
                 max_delay_s: float = DEFAULT_MAX_DELAY_S, max_tokens: int = DEFAULT_MAX_TOKENS,
                 timeout_s: float = DEFAULT_TIMEOUT_S, client: Any = None):
        self.model = model or os.environ.get("DWF_ANTHROPIC_MODEL") or DEFAULT_MODEL
        self.max_retries = max(0, int(max_retries))
        self.base_delay_s = base_delay_s
        self.max_delay_s = max_delay_s
        self.max_tokens = max_tokens
        if actor_tools:
            try:
                self.tools: ActorTools | None = ActorTools(Path(workspace) if workspace is not None else Path.cwd(),
                                                           actor_tools)
            except ValueError as error:
                raise AnthropicPortError(str(error)) from None
        else:
            self.tools = None
        if client is None:
            key = api_key or os.environ.get("ANTHROPIC_API_KEY")
            if not key:
                raise AnthropicPortError("the anthropic agent port needs an API key: set ANTHROPIC_API_KEY")
            import anthropic  # deferred: start-up (importing the SDK takes seconds)

            client = anthropic.AsyncAnthropic(api_key=key, base_url=base_url or os.environ.get("ANTHROPIC_BASE_URL") or None,
                                              max_retries=0, timeout=timeout_s)
        self.client = client
        self.workspace = Path(workspace) if workspace is not None else Path.cwd()
        self._definitions: dict[str, AgentDefinition] = {}
        self._conversations: dict[tuple[str, str], _Conversation] = {}
        self._restored: dict[tuple[str, str], list[dict]] = {}  # journaled messages, until the next turn

    async def close(self) -> None:
        close = getattr(self.client, "close", None)
        if close is not None:
            await close()

    def restore(self, request: AskRequest, messages: list[dict]) -> None:
        """Rebuild the conversation of `request.actor` from its journaled messages (a resumed or
        amended run); it takes effect at the actor's next turn."""
        slot = (request.run_id, request.actor.actor_id)
        self._conversations.pop(slot, None)
        self._restored[slot] = [dict(message) for message in messages]

    # -- one turn

    async def run_turn(self, request: AskRequest, message: str, channel: AskChannel) -> str:
        definition = self._definition(request)
        conversation = self._conversation(request, definition)
        if message == request.instructions:  # the ask's first turn (a nudge is another message)
            message = first_message(message, request.schema)
        tools, wrapped = self._tools(request)
        model = request.actor.model or (definition.model if definition is not None else None) or self.model
        channel.session(conversation.session_id, model)
        conversation.add("user", [{"type": "text", "text": message}], channel)
        for _ in range(MAX_MODEL_CALLS_PER_TURN):
            response = await self._create(model, conversation, tools, channel)
            self._report_usage(response, channel)
            content = [_block_dict(block) for block in response.content]
            text = "\n".join(b["text"] for b in content if b.get("type") == "text").strip()
            uses = [b for b in content if b.get("type") == "tool_use"]
            if response.stop_reason == "pause_turn":
                conversation.add("assistant", content, channel)
                continue
            if not uses:
                # an empty turn still needs a placeholder so roles alternate
                conversation.add("assistant", content or [{"type": "text", "text": "(no answer)"}], channel)
                if response.stop_reason == "max_tokens" and not text:
                    raise AskError("the model ran out of output tokens without answering", code="MaxTokens")
                return text
            results: list[dict] = []
            stop = False
            for use in uses:
                if stop:
                    results.append(_tool_result(use["id"], "not run: the turn has ended", True))
                    continue
                result, stop = await self._call_tool(use, request, wrapped, channel)
                results.append(result)
            conversation.add("assistant", content, channel)
            conversation.add("user", results, channel)
            if stop:
                return text
        raise AskError(f"the actor made more than {MAX_MODEL_CALLS_PER_TURN} model calls in one turn", code="TurnTooLong")

    def _conversation(self, request: AskRequest, definition: AgentDefinition | None = None) -> _Conversation:
        slot = (request.run_id, request.actor.actor_id)
        conversation = self._conversations.get(slot)
        if conversation is None:
            parts = [definition.prompt if definition is not None else "", (request.actor.system or "").strip(), CONTRACT]
            system = "\n\n".join(part for part in parts if part)
            conversation = self._conversations[slot] = _Conversation(system)
            for message in self._restored.pop(slot, ()):
                conversation.add(message["role"], list(message["content"]))
        return conversation

    def _tools(self, request: AskRequest) -> tuple[list[dict], bool]:
        tools: list[dict] = []
        wrapped = False
        if request.schema is not None:
            tool, wrapped = submit_tool(request.schema)
            tools.append(tool)
        tools.append(ESCALATE_DEFINITION)
        if self.tools is not None:
            tools.extend(self.tools.definitions(self._allowed_tools(request)))
        return tools, wrapped

    def _definition(self, request: AskRequest) -> AgentDefinition | None:
        name = request.actor.agent_type
        if not name:
            return None
        if name not in self._definitions:
            try:
                self._definitions[name] = load_definition(name, self.workspace)
            except AgentDefinitionError as error:
                raise AskError(str(error), code="UnknownAgentType") from None
        return self._definitions[name]

    def _allowed_tools(self, request: AskRequest) -> tuple[str, ...]:
        """The run's tools, narrowed by the actor's `tools=` and its agent definition's."""
        definition = self._definition(request)
        return self.tools.allowed_for(request.actor, definition.actor_tools() if definition is not None else None)

    async def _call_tool(self, use: dict, request: AskRequest, wrapped: bool,
                         channel: AskChannel) -> tuple[dict, bool]:
        name, arguments, tool_id = use.get("name"), use.get("input"), use["id"]
        if name == SUBMIT_TOOL and request.schema is not None:
            value = arguments
            if wrapped:
                if not isinstance(arguments, dict) or "value" not in arguments:
                    return _tool_result(tool_id, "the input must be an object with the result in `value`", True), False
                value = arguments["value"]
            channel.progress("tool", tool=SUBMIT_TOOL)
            verdict = await channel.submit(value)
            if verdict.accepted:
                return _tool_result(tool_id, "accepted"), False
            listing = "\n".join(f"- {v}" for v in verdict.violations)
            note = "rejected (final: no more attempts)" if verdict.final else "rejected; fix these and submit again"
            return _tool_result(tool_id, f"{note}:\n{listing}", True), verdict.final
        if name == ESCALATE_TOOL:
            question = arguments.get("question") if isinstance(arguments, dict) else None
            if not isinstance(question, str) or not question.strip():
                return _tool_result(tool_id, "escalate needs a non-empty `question`", True), False
            context = arguments.get("context")
            channel.progress("tool", tool=ESCALATE_TOOL)
            answer = await channel.escalate(question, context if isinstance(context, str) else None)
            return _tool_result(tool_id, answer), False
        if self.tools is not None:
            allowed = self._allowed_tools(request)
            if name in allowed:  # an isolated actor's tools are rooted in its worktree
                outcome = await self.tools.for_actor(request.actor).call(
                    name, arguments, channel, programs=frozenset(request.commands), allowed=allowed)
                return _tool_result(tool_id, outcome.text, outcome.is_error), False
        return _tool_result(tool_id, f"unknown tool `{name}`", True), False

    # -- the API call, with retries

    async def _create(self, model: str, conversation: _Conversation, tools: list[dict], channel: AskChannel):
        import anthropic  # deferred: start-up (importing the SDK takes seconds)

        attempt = 0
        while True:
            try:
                return await self.client.messages.create(model=model, max_tokens=self.max_tokens,
                                                         system=conversation.system,
                                                         messages=conversation.messages, tools=tools)
            except anthropic.APIStatusError as error:
                retryable = error.status_code in RETRYABLE_STATUS or _error_type(error) == "overloaded_error"
                reason = f"HTTP {error.status_code}: {_api_message(error)}"
                if not retryable:
                    raise AskError(f"Anthropic API error ({reason})", code="AgentAPIError") from None
                wait = _retry_after(error.response.headers)
            except anthropic.APIConnectionError as error:
                reason = f"connection error: {error}"
                wait = None
            if attempt >= self.max_retries:
                raise AskError(f"Anthropic API unavailable after {attempt + 1} attempts ({reason})",
                               code="AgentAPIUnavailable")
            if wait is None:
                wait = random.uniform(0.5, 1.0) * self.base_delay_s * (2 ** attempt)
            wait = max(0.0, min(wait, self.max_delay_s))
            attempt += 1
            channel.progress("waiting", reason=reason, seconds=round(wait, 3), attempt=attempt,
                             max_attempts=self.max_retries + 1)
            await anyio.sleep(wait)

    @staticmethod
    def _report_usage(response: Any, channel: AskChannel) -> None:
        usage = getattr(response, "usage", None)
        if usage is None:
            return
        channel.usage(Usage(input_tokens=getattr(usage, "input_tokens", 0) or 0,
                            output_tokens=getattr(usage, "output_tokens", 0) or 0,
                            cache_read_tokens=getattr(usage, "cache_read_input_tokens", 0) or 0,
                            cache_write_tokens=getattr(usage, "cache_creation_input_tokens", 0) or 0))


def _tool_result(tool_id: str, text: str, is_error: bool = False) -> dict:
    block = {"type": "tool_result", "tool_use_id": tool_id, "content": cap_text(text)}
    if is_error:
        block["is_error"] = True
    return block


def _block_dict(block: Any) -> dict:
    kind = getattr(block, "type", None)
    if kind == "text":
        return {"type": "text", "text": block.text}
    if kind == "tool_use":
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    if hasattr(block, "model_dump"):
        return block.model_dump(mode="json", exclude_none=True)
    return dict(block)


def _error_type(error: Any) -> str | None:
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        inner = body.get("error")
        if isinstance(inner, dict):
            return inner.get("type")
    return getattr(error, "type", None)


def _api_message(error: Any) -> str:
    message = getattr(error, "api_message", None)
    if not message:
        body = getattr(error, "body", None)
        if isinstance(body, dict) and isinstance(body.get("error"), dict):
            message = body["error"].get("message")
    if not message:
        message = getattr(error, "message", None) or str(error)
    return str(message)


def _retry_after(headers: Any) -> float | None:
    """Seconds from `retry-after-ms` or `retry-after` (seconds; HTTP dates are ignored)."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        raw = headers.get(name) if headers is not None else None
        if raw:
            try:
                return max(0.0, float(raw) * scale)
            except ValueError:
                continue
    return None


__all__ = ["AnthropicAgentPort", "AnthropicPortError", "CONTRACT", "strict_fit", "submit_schema", "submit_tool"]
