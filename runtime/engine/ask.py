"""This module defines the engine's side of one ask (RUNTIME §2): `AskSession`, the
`ports.AskChannel` a port uses to submit typed results (validated against the ask's schema, with
up to three repairs), escalate questions, report progress and usage (`on_usage()` follows each
report, so the host can make it durable), journal the actor's conversation (`transcript`) and
its session and model (`session`), and say a tool touched the workspace; `run_ask`, the turn-and-nudge loop that turns a port's turns into the ask's outcome;
and `schema_violations`, the one formatter of jsonschema errors (`$.path: message`)."""

from __future__ import annotations

import json
from typing import Any, Awaitable, Callable

import jsonschema

from dwf.runtime.values.errors import ScriptError
from dwf.runtime.ports.protocols import NUDGE_MESSAGE, AgentPort, AskError, AskRequest, Usage, Verdict

REPAIR_ATTEMPTS = 3
NUDGE_ATTEMPTS = 1
MAX_ESCALATIONS_PER_ASK = 3


class AskSession:
    """AskSession: the engine side of one ask. It validates submissions with `validator` (None
    for an untyped ask), counts repairs, adds usage to the run's `usage_sink`, emits progress
    through `emit`, relays questions to `escalate(request, question, context, number)` and calls
    `on_touched()` when a tool modified the workspace."""

    def __init__(self, request: AskRequest, validator: jsonschema.protocols.Validator | None, *,
                 emit: Callable[..., Any], usage_sink: Usage,
                 escalate: Callable[[AskRequest, str, str | None, int], Awaitable[str]],
                 on_touched: Callable[[], None], on_usage: Callable[[], None] = lambda: None,
                 transcript: Callable[[dict], None] = lambda message: None,
                 session: Callable[[str | None, str | None], None] = lambda session_id, model: None,
                 emit_flat: Callable[..., Any] | None = None):
        self.request, self.validator = request, validator
        self.emit_flat = emit_flat  # `EventBus.emit_flat`, for the usage events, when the host has one
        self.emit, self.usage_sink, self.escalate_to, self.on_touched = emit, usage_sink, escalate, on_touched
        self.on_usage, self.record_message, self.record_session = on_usage, transcript, session
        self.accepted = False
        self.exhausted = False
        self.value: Any = None
        self.rejections = 0
        self.last_violations: list[str] = []
        self.escalations = 0
        self.ask_usage = Usage()
        self.touched = False

    async def submit(self, value: Any) -> Verdict:
        if self.validator is None:
            return Verdict(True)
        if self.accepted:
            return Verdict(True, final=True)
        violations = schema_violations(self.validator, value)
        if violations and isinstance(value, str):
            try:
                parsed = json.loads(value)
            except ValueError:
                parsed = None
            if parsed is not None:
                parsed_violations = schema_violations(self.validator, parsed)
                if not parsed_violations:
                    value, violations = parsed, []
                else:
                    violations = parsed_violations
        if not violations:
            self.accepted, self.value = True, value
            return Verdict(True, final=True)
        self.rejections += 1
        self.last_violations = violations
        if self.rejections > REPAIR_ATTEMPTS:
            self.exhausted = True
            return Verdict(False, violations, final=True)
        self.emit("node-progress", site=self.request.site, key=self.request.key,
                  message=f"repairing ({self.rejections}/{REPAIR_ATTEMPTS})", violations=violations)
        return Verdict(False, violations)

    async def escalate(self, question: str, context: str | None = None) -> str:
        self.escalations += 1
        if self.escalations > MAX_ESCALATIONS_PER_ASK:
            return (f"You have asked {MAX_ESCALATIONS_PER_ASK} questions in this task, the most allowed. "
                    "Proceed on your own best judgement.")
        return await self.escalate_to(self.request, question, context, self.escalations)

    def progress(self, message: str, **info: Any) -> None:
        self.emit("node-progress", site=self.request.site, key=self.request.key, message=message, **info)

    def usage(self, usage: Usage) -> None:
        self.ask_usage.add(usage)
        self.usage_sink.add(usage)
        self.on_usage()
        payload = {"site": self.request.site, "key": self.request.key, "ask": usage.to_json(),
                   "run": self.usage_sink.to_json()}
        if self.emit_flat is not None:
            self.emit_flat("usage-updated", payload, nested=True)
        else:
            self.emit("usage-updated", **payload)

    def transcript(self, message: dict) -> None:
        self.record_message(message)

    def session(self, session_id: str | None, model: str | None) -> None:
        self.record_session(session_id, model)

    def touched_world(self) -> None:
        self.touched = True
        self.on_touched()
        self.emit("node-progress", site=self.request.site, key=self.request.key, message="modified the workspace",
                  touched_world=True)


async def run_ask(port: AgentPort, request: AskRequest, channel: AskSession) -> Any:
    """One ask's turns: the instructions, one nudge for a typed ask that ended without
    submitting, and the outcome: the accepted value (typed), the final text (untyped), or
    `AskFailed` saying why."""
    try:
        text = await port.run_turn(request, request.instructions, channel)
        if request.schema is None:
            if not isinstance(text, str):
                raise AskError("the agent's final answer was not text")
            return text
        for _ in range(NUDGE_ATTEMPTS):
            if channel.accepted or channel.exhausted:
                break
            text = await port.run_turn(request, NUDGE_MESSAGE, channel)
        if channel.accepted:
            return channel.value
        if channel.exhausted:
            raise ScriptError("AskFailed", f"{request.key}: the result did not match its schema after "
                              f"{REPAIR_ATTEMPTS} repairs: {'; '.join(channel.last_violations)}",
                              details={"code": "ValidationFailed", "violations": channel.last_violations})
        raise ScriptError("AskFailed", f"{request.key}: the agent ended its turn without submitting a result",
                          details={"code": "ResultNotSubmitted", "final_text": text if isinstance(text, str) else None})
    except AskError as error:
        raise ScriptError("AskFailed", f"{request.key}: {error}", details={"code": error.code}) from None


def schema_violations(validator: jsonschema.protocols.Validator, value: Any) -> list[str]:
    """The schema errors of `value`, each `$.path: message` (jsonschema's `json_path`), in path order."""
    errors = sorted(validator.iter_errors(value), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    return [f"{error.json_path}: {error.message}" for error in errors]
