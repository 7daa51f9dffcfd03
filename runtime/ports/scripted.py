"""This module defines the scripted agent port (RUNTIME §4): a deterministic `AgentPort` that
answers asks from a fixture file instead of a model, for tests, demos and dry runs
(`dwfc run FILE --agent scripted:FIXTURE.json`).

Fixture format (validated on load; a bad file is a usage error naming the file and the JSON
path of the problem):

    {"rules": [RULE, ...], "default": OUTCOME}          ("default" is optional)

A RULE has optional match fields, all of which must match:

- `actor`: a glob (`fnmatch`, case-sensitive; `*` also matches `/`) on the actor's name;
  anonymous actors have the name `""`, so `"actor": ""` matches only them and `"*"` matches all;
- `site`: the ask's site id, e.g. `"ask#2"`;
- `instructions`: a regular expression searched (`re.search`) in the ask's instructions;

plus either one OUTCOME (its keys inline in the rule) or `"sequence": [OUTCOME, ...]`, used in
order by successive matching asks dispatched to this port (the last one repeats; a resumed run
replays its finished asks without the port, so its sequences start again from the first
outcome: match such asks by `site` or `instructions` when a fixture must serve resumes). The first matching rule
wins; when none matches, `default` applies; without a default the ask fails naming the ask.

An OUTCOME has exactly one of

- `"result": <json>`: the value submitted for a typed ask, or the final text of an untyped ask
  (which must then be a string);
- `"fail": "<message>"`: the ask fails (the script sees `AskFailed`);
- `"escalate": "<question>"`: the actor asks the run's owner; the answer becomes the result,
  or `"then": OUTCOME` is applied after the answer arrives;

and optionally `"tools"`, `"delay_s"` (a cancellable sleep before the outcome), `"output_tokens"` (the
usage reported for the outcome; by default `max(1, len(json.dumps(payload)) // 4)`), and
`"invalid_first"` (typed asks: submit that many schema-invalid values first, exercising the
engine's repair loop).

Scripted tool calls. `"tools": [CALL, ...]` runs actor tool calls before the outcome (and before
its `delay_s`), in order,
exactly as a model's would run: the port's workspace tools (`runtime.ports.actor_tools`, the
run's `--actor-tools` set, default `write`), narrowed by the actor's `tools=`, rooted in the
actor's worktree when it is isolated, with the run's approved programs for `run_command`. A
CALL is `{"tool": NAME, "input": {...}}` (NAME an actor tool: `read_file`, `list_files`, `grep`,
`write_file`, `edit_file`, `run_command`) with optional `"expect": "ok"` (the default) or
`"error"`: a call that does not end as expected fails the ask (`ScriptedToolCall`) quoting the
tool's answer, so a fixture can assert both an edit and a refusal (a path that escapes the
worktree). The answers are kept in `port.calls[i]["tools"]`.

A typed ask whose scripted result does not match its schema is resubmitted unchanged until the
engine gives up, so the ask fails with `ValidationFailed` naming the violations (a fixture
mistake shows up as a clear error rather than a hang or a nudge).

Call log: when `DWF_SCRIPTED_CALL_LOG` names a file, one JSON line per dispatched ask
(`{"actor", "site", "occurrence", "instructions"}`) is appended to it, flushed line by line so
the log survives the process being killed. Replayed asks never reach the port, so they are not
logged.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import jsonschema

from dwf.runtime.ports.actor_tools import ActorTools
from dwf.runtime.ports.protocols import NUDGE_MESSAGE, AskChannel, AskError, AskRequest, Usage
from dwf.runtime.values.plain_json import dumps

CALL_LOG_ENV = "DWF_SCRIPTED_CALL_LOG"

MATCH_KEYS = ("actor", "site", "instructions")
OUTCOME_KINDS = ("result", "fail", "escalate")
OUTCOME_OPTIONS = ("delay_s", "output_tokens", "invalid_first", "tools")
TOOL_CALL_KEYS = ("tool", "input", "expect")
SCRIPTED_TOOLS = ("read_file", "list_files", "grep", "write_file", "edit_file", "run_command")
OUTCOME_KEYS = OUTCOME_KINDS + OUTCOME_OPTIONS + ("then",)

# Values a typed ask's schema is most unlikely to accept; the first one the schema rejects is
# what `invalid_first` submits.
_INVALID_CANDIDATES: tuple[Any, ...] = ({"__invalid__": True}, 12345, "__invalid__", None, [], True, 0.5)


class FixtureError(Exception):
    """The fixture file is unreadable or malformed (a usage error: the run never starts)."""


@dataclass(frozen=True)
class Outcome:
    kind: str  # result | fail | escalate
    value: Any  # the result, the failure message, or the question
    then: Outcome | None = None
    delay_s: float = 0.0
    output_tokens: int | None = None
    invalid_first: int = 0
    tools: tuple[ToolCall, ...] = ()


@dataclass(frozen=True)
class ToolCall:
    tool: str
    input: dict
    expect: str = "ok"  # "ok" | "error"


@dataclass(frozen=True)
class Rule:
    index: int
    actor: str | None
    site: str | None
    instructions: re.Pattern | None
    outcomes: tuple[Outcome, ...]  # one outcome, or a sequence

    def matches(self, actor: str, site: str, instructions: str) -> bool:
        if self.actor is not None and not fnmatch.fnmatchcase(actor, self.actor):
            return False
        if self.site is not None and site != self.site:
            return False
        if self.instructions is not None and not self.instructions.search(instructions):
            return False
        return True


@dataclass(frozen=True)
class Fixture:
    source: str
    rules: tuple[Rule, ...]
    default: Outcome | None = None


# ---------------------------------------------------------------- loading and validation


def load_fixture(path: str | os.PathLike) -> Fixture:
    """Read and validate a fixture file; `FixtureError` names the file and the problem."""
    name = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FixtureError(f"{name}: no such fixture file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise FixtureError(f"{name}: cannot read the fixture file: {getattr(error, 'strerror', None) or error}") from None
    try:
        data = json.loads(text)
    except ValueError as error:
        raise FixtureError(f"{name}: not valid JSON: {error}") from None
    return parse_fixture(data, name)


def parse_fixture(data: Any, source: str = "<fixture>") -> Fixture:
    """Validate fixture data (already parsed JSON); `FixtureError` names the JSON path."""

    def fail(path: str, message: str) -> FixtureError:
        return FixtureError(f"{source}: {path}: {message}")

    if not isinstance(data, dict):
        raise fail("$", f"the fixture must be a JSON object with \"rules\", not {_json_type(data)}")
    _unknown_keys(data, ("rules", "default"), "$", fail)
    if "rules" not in data:
        raise fail("$", "missing \"rules\" (a list of rules; it may be empty)")
    rules_data = data["rules"]
    if not isinstance(rules_data, list):
        raise fail("$.rules", f"must be a list of rules, not {_json_type(rules_data)}")
    rules = tuple(_parse_rule(item, i, f"$.rules[{i}]", fail) for i, item in enumerate(rules_data))
    default = _parse_outcome(data["default"], "$.default", fail) if "default" in data else None
    return Fixture(source, rules, default)


def _parse_rule(data: Any, index: int, path: str, fail) -> Rule:
    if not isinstance(data, dict):
        raise fail(path, f"a rule must be a JSON object, not {_json_type(data)}")
    _unknown_keys(data, MATCH_KEYS + OUTCOME_KEYS + ("sequence",), path, fail)
    for key in MATCH_KEYS:
        if key in data and not isinstance(data[key], str):
            raise fail(f"{path}.{key}", f"must be a string, not {_json_type(data[key])}")
    pattern = None
    if "instructions" in data:
        try:
            pattern = re.compile(data["instructions"])
        except re.error as error:
            raise fail(f"{path}.instructions", f"not a valid regular expression: {error}") from None
    outcome_data = {k: v for k, v in data.items() if k in OUTCOME_KEYS}
    if "sequence" in data:
        if outcome_data:
            raise fail(path, f"a rule has either \"sequence\" or one outcome, not both "
                             f"(found {', '.join(repr(k) for k in outcome_data)} next to \"sequence\")")
        sequence = data["sequence"]
        if not isinstance(sequence, list) or not sequence:
            raise fail(f"{path}.sequence", "must be a non-empty list of outcomes")
        outcomes = tuple(_parse_outcome(item, f"{path}.sequence[{i}]", fail) for i, item in enumerate(sequence))
    else:
        outcomes = (_parse_outcome(outcome_data, path, fail),)
    return Rule(index, data.get("actor"), data.get("site"), pattern, outcomes)


def _parse_outcome(data: Any, path: str, fail) -> Outcome:
    if not isinstance(data, dict):
        raise fail(path, f"an outcome must be a JSON object, not {_json_type(data)}")
    _unknown_keys(data, OUTCOME_KEYS, path, fail)
    kinds = [k for k in OUTCOME_KINDS if k in data]
    if not kinds:
        raise fail(path, "needs exactly one of \"result\", \"fail\" or \"escalate\" (or a \"sequence\" in a rule)")
    if len(kinds) > 1:
        raise fail(path, f"has two outcomes ({' and '.join(json.dumps(k) for k in kinds)}); give exactly one")
    kind = kinds[0]
    value = data[kind]
    if kind in ("fail", "escalate") and not isinstance(value, str):
        raise fail(f"{path}.{kind}", f"must be a string, not {_json_type(value)}")
    then = None
    if "then" in data:
        if kind != "escalate":
            raise fail(f"{path}.then", "\"then\" only follows an \"escalate\" outcome")
        then = _parse_outcome(data["then"], f"{path}.then", fail)
    delay = data.get("delay_s", 0.0)
    if isinstance(delay, bool) or not isinstance(delay, (int, float)) or not (0 <= delay < float("inf")):
        raise fail(f"{path}.delay_s", f"must be a non-negative number of seconds, not {json.dumps(delay)}")
    tokens = data.get("output_tokens")
    if tokens is not None and (isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0):
        raise fail(f"{path}.output_tokens", f"must be a non-negative integer, not {json.dumps(tokens)}")
    invalid = data.get("invalid_first", 0)
    if isinstance(invalid, bool) or not isinstance(invalid, int) or invalid < 0:
        raise fail(f"{path}.invalid_first", f"must be a non-negative integer, not {json.dumps(invalid)}")
    if invalid and kind != "result":
        raise fail(f"{path}.invalid_first", "only applies to a \"result\" outcome")
    calls = _parse_tool_calls(data.get("tools", []), f"{path}.tools", fail)
    return Outcome(kind, value, then, float(delay), tokens, invalid, calls)


def _parse_tool_calls(data: Any, path: str, fail) -> tuple[ToolCall, ...]:
    if not isinstance(data, list):
        raise fail(path, f"must be a list of tool calls, not {_json_type(data)}")
    calls = []
    for i, item in enumerate(data):
        where = f"{path}[{i}]"
        if not isinstance(item, dict):
            raise fail(where, f"a tool call must be a JSON object, not {_json_type(item)}")
        _unknown_keys(item, TOOL_CALL_KEYS, where, fail)
        tool = item.get("tool")
        if tool not in SCRIPTED_TOOLS:
            raise fail(f"{where}.tool", f"must be one of {', '.join(SCRIPTED_TOOLS)}, not {json.dumps(tool)}")
        arguments = item.get("input", {})
        if not isinstance(arguments, dict):
            raise fail(f"{where}.input", f"must be a JSON object, not {_json_type(arguments)}")
        expect = item.get("expect", "ok")
        if expect not in ("ok", "error"):
            raise fail(f"{where}.expect", f"must be \"ok\" or \"error\", not {json.dumps(expect)}")
        calls.append(ToolCall(tool, arguments, expect))
    return tuple(calls)


def _unknown_keys(data: dict, allowed: tuple[str, ...], path: str, fail) -> None:
    unknown = [k for k in data if k not in allowed]
    if unknown:
        raise fail(path, f"unknown key{'s' if len(unknown) > 1 else ''} {', '.join(json.dumps(k) for k in unknown)} "
                         f"(allowed: {', '.join(allowed)})")


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


# ---------------------------------------------------------------- the port


def default_output_tokens(payload: Any) -> int:
    """The deterministic token count reported when an outcome gives none."""
    return max(1, len(dumps(payload)) // 4)


class ScriptedAgentPort:
    """An `AgentPort` answering from a `Fixture` (see the module docstring)."""

    def __init__(self, fixture: Fixture, *, call_log: str | os.PathLike | None = None,
                 workspace: str | os.PathLike | None = None, actor_tools: str = "write"):
        self.fixture = fixture
        self.workspace = Path(workspace) if workspace is not None else None
        self.actor_tools = actor_tools
        self._tools = None  # the workspace tools, made at the first scripted tool call
        self.call_log = str(call_log) if call_log is not None else os.environ.get(CALL_LOG_ENV) or None
        self._uses: dict[tuple[str, int], int] = {}  # (run id, rule index) -> matching asks so far
        self.calls: list[dict] = []  # every dispatched ask, as logged
        self._default_tokens: dict[int, int] = {}  # id(outcome) -> its output tokens when it gives none

    @classmethod
    def from_file(cls, path: str | os.PathLike, **options: Any) -> ScriptedAgentPort:
        return cls(load_fixture(path), **options)

    async def close(self) -> None:
        return None

    async def run_turn(self, request: AskRequest, message: str, channel: AskChannel) -> str:
        if message == NUDGE_MESSAGE:
            # The scripted turn always ends accepted, exhausted or failed; a nudge cannot change that.
            return "There is nothing more to submit."
        actor = request.actor.name or ""
        self._log_call(request, actor)
        outcome = self._select(request, actor)
        return await self._apply(outcome, request, channel)

    # -- selection

    def _select(self, request: AskRequest, actor: str) -> Outcome:
        for rule in self.fixture.rules:
            if rule.matches(actor, request.site, request.instructions):
                slot = (request.run_id, rule.index)
                used = self._uses.get(slot, 0)
                self._uses[slot] = used + 1
                return rule.outcomes[min(used, len(rule.outcomes) - 1)]
        if self.fixture.default is not None:
            return self.fixture.default
        who = f"actor \"{actor}\"" if actor else "an anonymous actor"
        raise AskError(f"no rule of the scripted fixture {self.fixture.source} matches the ask at "
                       f"{request.site} (occurrence {request.key}, {who}) and the fixture has no default",
                       code="NoScriptedOutcome")

    # -- outcomes

    async def _apply(self, outcome: Outcome, request: AskRequest, channel: AskChannel) -> str:
        for index, call in enumerate(outcome.tools):  # the actor works first, then takes its time
            await self._call_tool(index, call, request, channel)
        if outcome.delay_s:
            await anyio.sleep(outcome.delay_s)
        tokens = outcome.output_tokens
        if tokens is None:
            tokens = self._default_tokens.get(id(outcome))
            if tokens is None:  # the fixture holds its outcomes: one count per outcome
                tokens = self._default_tokens[id(outcome)] = default_output_tokens(outcome.value)
        channel.usage(Usage(output_tokens=tokens))
        if outcome.kind == "fail":
            raise AskError(outcome.value, code="ScriptedFailure")
        if outcome.kind == "escalate":
            answer = await channel.escalate(outcome.value)
            if outcome.then is not None:
                return await self._apply(outcome.then, request, channel)
            return await self._deliver(answer, 0, request, channel)
        return await self._deliver(outcome.value, outcome.invalid_first, request, channel)

    async def _deliver(self, value: Any, invalid_first: int, request: AskRequest, channel: AskChannel) -> str:
        if request.schema is None:
            if not isinstance(value, str):
                raise AskError(f"the scripted result for the untyped ask at {request.site} (occurrence "
                               f"{request.key}) must be a string, not {_json_type(value)}", code="ScriptedFailure")
            return value
        bad = _invalid_value(request.schema)
        for _ in range(invalid_first):
            verdict = await channel.submit(bad)
            if verdict.accepted or verdict.final:
                return "Submitted."
        while True:  # an invalid scripted result is resubmitted until the engine gives up
            verdict = await channel.submit(value)
            if verdict.accepted or verdict.final:
                return "Submitted."

    # -- scripted tool calls

    async def _call_tool(self, index: int, call: ToolCall, request: AskRequest, channel: AskChannel) -> None:
        if self._tools is None:
            if self.workspace is None:
                raise AskError("the scripted fixture calls tools, but the port has no workspace", code="ScriptedToolCall")
            self._tools = ActorTools(self.workspace, self.actor_tools)
        allowed = self._tools.allowed_for(request.actor)
        outcome = await self._tools.for_actor(request.actor).call(call.tool, call.input, channel,
                                                                  programs=frozenset(request.commands), allowed=allowed)
        for entry in reversed(self.calls):
            if entry["site"] == request.site and entry["occurrence"] == request.key:
                entry.setdefault("tools", []).append({"tool": call.tool, "is_error": outcome.is_error,
                                                      "text": outcome.text})
                break
        if outcome.is_error != (call.expect == "error"):
            expected = "to be refused" if call.expect == "error" else "to succeed"
            raise AskError(f"scripted tool call {index} ({call.tool}) of the ask at {request.site} was expected "
                           f"{expected}: {outcome.text}", code="ScriptedToolCall")

    # -- call log

    def _log_call(self, request: AskRequest, actor: str) -> None:
        entry = {"actor": actor, "site": request.site, "occurrence": request.key, "instructions": request.instructions}
        self.calls.append(entry)
        if self.call_log:
            line = json.dumps(entry, ensure_ascii=False) + "\n"
            with open(self.call_log, "a", encoding="utf-8") as log:
                log.write(line)
                log.flush()
                os.fsync(log.fileno())


def _invalid_value(schema: dict) -> Any:
    try:
        validator = jsonschema.Draft202012Validator(schema)
        for candidate in _INVALID_CANDIDATES:
            if not validator.is_valid(candidate):
                return candidate
    except Exception:  # a schema the validator cannot handle: the engine will say so on submit
        pass
    return _INVALID_CANDIDATES[0]
