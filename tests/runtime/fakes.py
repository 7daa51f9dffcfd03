"""The one fake agent port the runtime tests share: `FakeAgentPort`, an in-process `AgentPort`
whose answers, delays, failures and usage each test sets, and which records every turn."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Collection, Mapping
from typing import Any

import anyio

from dwf.runtime.ports.protocols import AskError, AskRequest, Usage

Rule = Callable[[AskRequest], Any]


class FakeAgentPort:
    """FakeAgentPort: answers asks at once, or as the options say. One turn, in order:

    1. The turn is recorded: `turns` counts it, `calls` gets `record(request)` (default: the
       request itself) and `log` gets `("start", instructions)`.
    2. It sleeps `delay` seconds: a number, a mapping of instruction prefixes to seconds (the first
       that matches), or a function of the request; None (the default, or no matching prefix)
       does not yield to the event loop at all. With `shield` the sleep ignores cancellation.
       `in_flight` and `max_in_flight` count the turns inside it.
    3. `touches(request)` true: it tells the channel it touched the workspace.
    4. It reports `usage` (a `Usage`, or an int of output tokens), if given.
    5. `fail`, a function of the request or a collection of instructions and sites, says to fail:
       it logs `("fail", instructions)` and raises `AskError(failure)` (a text or a function).
    6. It answers and logs `("end", instructions)`. An untyped ask returns `text` (a text or a
       function of the request; default `done: <instructions>`). A typed ask submits `value` (a
       value or a function of the request; default None), once or, with `resubmit`, again after
       every rejection until the engine says stop, and returns it as text.
    """

    def __init__(self, *, text: str | Rule | None = None, value: Any = None,
                 delay: float | Mapping[str, float] | Rule | None = None, shield: bool = False,
                 fail: Rule | Collection[str] | None = None, failure: str | Rule = "the fake agent failed on purpose",
                 touches: Rule | None = None, usage: Usage | int | None = None, resubmit: bool = False,
                 record: Rule | None = None) -> None:
        self.text, self.value, self.delay, self.shield = text, value, delay, shield
        self.fail, self.failure, self.touches, self.resubmit = fail, failure, touches, resubmit
        self.usage = Usage(output_tokens=usage) if isinstance(usage, int) else usage
        self.record = record
        self.calls: list[Any] = []
        self.log: list[tuple[str, str]] = []
        self.turns = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.closed = 0

    async def run_turn(self, request: AskRequest, message: str, channel) -> str:
        self.turns += 1
        self.calls.append(request if self.record is None else self.record(request))
        self.log.append(("start", request.instructions))
        seconds = self._seconds(request)
        if seconds is not None:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            try:
                with anyio.CancelScope(shield=self.shield):
                    await anyio.sleep(seconds)
            finally:
                self.in_flight -= 1
        if self.touches is not None and self.touches(request):
            channel.touched_world()
        if self.usage is not None:
            channel.usage(dataclasses.replace(self.usage))
        if self._fails(request):
            self.log.append(("fail", request.instructions))
            raise AskError(_apply(self.failure, request))
        if request.schema is None:
            answer = _apply(self.text, request) if self.text is not None else f"done: {request.instructions}"
        else:
            answer = _apply(self.value, request)
            while True:
                verdict = await channel.submit(answer)
                if not self.resubmit or verdict.accepted or verdict.final:
                    break
        self.log.append(("end", request.instructions))
        return answer if isinstance(answer, str) else json.dumps(answer)

    async def close(self) -> None:
        self.closed += 1

    def _seconds(self, request: AskRequest) -> float | None:
        if isinstance(self.delay, Mapping):
            return next((s for prefix, s in self.delay.items() if request.instructions.startswith(prefix)), None)
        return _apply(self.delay, request)

    def _fails(self, request: AskRequest) -> bool:
        if self.fail is None:
            return False
        if callable(self.fail):
            return bool(self.fail(request))
        return request.instructions in self.fail or request.site in self.fail


def _apply(option: Any, request: AskRequest) -> Any:
    return option(request) if callable(option) else option


def echo(request: AskRequest) -> str:
    """The ask's instructions: the answer of a port that echoes."""
    return request.instructions
