"""This module defines the ports: the interfaces through which the engine reaches agents, the
world, artifacts and the run's owner (RUNTIME §4), and the data that crosses them.

An `AgentPort` runs one *turn* of an actor's conversation at a time. The engine drives the
typed-ask protocol around it: during a turn the port hands submitted values to
`AskChannel.submit` and gets a `Verdict` back (accept, or reject with violations); when the turn
ends without an accepted value the engine nudges once (a second turn), then fails the ask. A port
reports usage and progress through the channel, and may ask the run's owner a question through
`AskChannel.escalate`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

NUDGE_MESSAGE = ("Your turn ended without submitting a result. Call the submit_result tool now with a value "
                 "that matches the required schema.")


@dataclass(frozen=True)
class ActorSpec:
    actor_id: str  # "actor#2/for#1[3]": the creating site's occurrence key
    name: str | None
    system: str | None
    model: str | None
    agent_type: str | None


@dataclass(frozen=True)
class AskRequest:
    run_id: str
    actor: ActorSpec
    site: str
    key: str  # occurrence key
    instructions: str
    schema: dict | None  # JSON Schema for typed asks, None for text
    label: str | None


@dataclass
class Verdict:
    accepted: bool
    violations: list[str] = field(default_factory=list)
    final: bool = False  # no more attempts: the port should end the turn


@dataclass
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def add(self, other: Usage) -> None:
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cache_read_tokens += other.cache_read_tokens
        self.cache_write_tokens += other.cache_write_tokens

    def to_json(self) -> dict:
        return {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "cache_read_tokens": self.cache_read_tokens, "cache_write_tokens": self.cache_write_tokens}


class AskChannel(Protocol):
    """What a port may call during a turn (implemented by the engine)."""

    async def submit(self, value: Any) -> Verdict: ...
    async def escalate(self, question: str, context: str | None = None) -> str: ...
    def progress(self, message: str, **info: Any) -> None: ...
    def usage(self, usage: Usage) -> None: ...
    def touched_world(self) -> None: ...


class AskError(Exception):
    """A port's report that the ask failed (the script sees `AskFailed`)."""

    def __init__(self, message: str, code: str = "AgentError"):
        super().__init__(message)
        self.code = code


class AgentPort(Protocol):
    async def run_turn(self, request: AskRequest, message: str, channel: AskChannel) -> str:
        """Run one turn of the actor's conversation; return the actor's final text."""

    async def close(self) -> None:
        """Release sessions and connections; called once when the run settles."""


class QuestionPort(Protocol):
    async def ask_owner(self, question_id: str, actor: ActorSpec, question: str, context: str | None) -> str: ...


class WorldPort(Protocol):
    """What a run reads and runs in its workspace (`ports.world.LocalWorld`)."""

    async def read(self, op: str, args: list, kwargs: dict) -> Any: ...
    async def run(self, cmd: str, args: list[str], timeout_s: float) -> Any: ...


class ArtifactPort(Protocol):
    """Where a run's artifacts and reports are kept (`ports.artifacts.ArtifactStore`)."""

    async def publish_file(self, run_id: str, id: str, path: str, *, title: str | None = None,
                           description: str | None = None, primary: bool = False) -> Any: ...
    async def publish_markdown(self, run_id: str, id: str, content: str, *, title: str | None = None,
                               description: str | None = None, primary: bool = False) -> Any: ...
    def declare_dashboard(self, run_id: str, id: str, kind: str, spec: Any) -> None: ...
    def append_report(self, run_id: str, site: str, key: str, item: Any, artifact: str | None) -> None: ...
