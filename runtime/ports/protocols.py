"""This module defines the ports: the interfaces through which the engine reaches agents, the
world, artifacts and the run's owner (RUNTIME §4), and the data that crosses them. Each
protocol lists exactly what the engine calls, so a `StartRequest` can be typed with it and a
test can hand the engine any object that has those methods. It imports only the standard
library (the package imports it, and the grep worker starts through the package), so the
records a port returns are typed `Any` and named in the docstrings.

- `AgentPort` (`scripted.py`, `anthropic.py`, `command.py`) runs one *turn* of an actor's
  conversation at a time, journals the conversation's messages through the channel and may
  `restore` them (actor continuity across a resume or amend). The engine drives the typed-ask protocol around it: during a turn the
  port hands submitted values to `AskChannel.submit` and gets a `Verdict` back (accept, or reject
  with violations); when the turn ends without an accepted value the engine nudges once (a second
  turn), then fails the ask. A port reports usage and progress through the channel, and may ask
  the run's owner a question through `AskChannel.escalate`.
- `WorldPort` (`world.LocalWorld`) serves the script's reads (`files.*`, `git.*`) and approved
  commands (`world.run`); it raises `ScriptError` for what the script can catch.
- `ArtifactPort` (`artifacts.ArtifactStore`) stores what a run publishes, declares and reports.
- `QuestionPort` (`questions.FileQuestions`, the CLI's terminal prompt) asks the run's owner.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

NUDGE_MESSAGE = ("Your turn ended without submitting a result. Call the submit_result tool now with a value "
                 "that matches the required schema.")


@dataclass(frozen=True)
class ActorSpec:
    """ActorSpec: who answers an ask, as the script's `agent(...)` call created it."""

    actor_id: str  # "actor#2/for#1[3]": the creating site's occurrence key
    name: str | None
    system: str | None
    model: str | None
    agent_type: str | None
    isolation: str | None = None  # "worktree": the actor works in its own git worktree
    tools: tuple[str, ...] | None = None  # the actor tools `agent(tools=[...])` narrows to; None: the run's set
    workdir: str | None = None  # the actor's own workspace (its worktree), set for each ask; None: the run's


@dataclass(frozen=True)
class AskRequest:
    """AskRequest: one ask an agent port serves, over one or more turns."""

    run_id: str
    actor: ActorSpec
    site: str
    key: str  # occurrence key
    instructions: str
    schema: dict | None  # JSON Schema for typed asks, None for text
    label: str | None
    commands: tuple[str, ...] = ()  # the run's approved programs, sorted: all an actor's run_command may start


@dataclass
class Verdict:
    """Verdict: the engine's answer to a submitted value (accepted, or the schema violations)."""

    accepted: bool
    violations: list[str] = field(default_factory=list)
    final: bool = False  # no more attempts: the port should end the turn


@dataclass
class Usage:
    """Usage: the tokens a turn consumed, as a port reports them."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    @classmethod
    def from_json(cls, data: Any) -> Usage:
        """The counts of a journaled usage JSON object (other keys, such as `pure`, are ignored)."""
        data = data if isinstance(data, dict) else {}
        return cls(**{name: int(data[name]) for name in cls.__dataclass_fields__
                      if isinstance(data.get(name), (int, float)) and not isinstance(data.get(name), bool)})

    def add(self, other: Usage) -> None:
        """Add `other`'s counts to these."""
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cache_read_tokens += other.cache_read_tokens
        self.cache_write_tokens += other.cache_write_tokens

    def to_json(self) -> dict:
        """The counts as a JSON object (the journal's and the events' `usage`)."""
        return {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "cache_read_tokens": self.cache_read_tokens, "cache_write_tokens": self.cache_write_tokens}


class AskChannel(Protocol):
    """AskChannel: what a port may call during a turn (implemented by the engine)."""

    async def submit(self, value: Any) -> Verdict:
        """Offer a result; the verdict says whether it is accepted or what to fix."""

    async def escalate(self, question: str, context: str | None = None) -> str:
        """Ask the run's owner `question` and wait for the answer."""

    def progress(self, message: str, **info: Any) -> None:
        """Report what the actor is doing (a `node-progress` event)."""

    def usage(self, usage: Usage) -> None:
        """Add the tokens a model call consumed to the ask's and the run's usage."""

    def touched_world(self) -> None:
        """Say that the actor changed the workspace or ran something (an amend's cache closes)."""

    def transcript(self, message: dict) -> None:
        """Journal one message of the actor's conversation (`{role, content}`, plain JSON) as the
        port appends it, in order: what `AgentPort.restore` gets back after a resume or amend."""

    def session(self, session_id: str | None, model: str | None) -> None:
        """Say which session and model the actor's asks use (journaled with the actor; a resume
        sends the actor to the same model)."""


class AskError(Exception):
    """A port's report that the ask failed (the script sees `AskFailed`)."""

    def __init__(self, message: str, code: str = "AgentError"):
        super().__init__(message)
        self.code = code


class AgentPort(Protocol):
    """AgentPort: runs the turns of actors' conversations (see the module docstring)."""

    async def run_turn(self, request: AskRequest, message: str, channel: AskChannel) -> str:
        """Run one turn of the actor's conversation; return the actor's final text."""

    async def close(self) -> None:
        """Release sessions and connections; called once when the run settles."""

    # Optional, for ports that keep each actor's conversation (the Anthropic port):
    # `restore(request, messages)` rebuilds the conversation of `request.actor` from the messages
    # it journaled through `AskChannel.transcript` (those of the actor's settled asks), before
    # its first new ask in a resumed or amended run. The engine calls it only when a port has it.


class WorldPort(Protocol):
    """WorldPort: the workspace a run reads and runs approved commands in."""

    async def read(self, op: str, args: list, kwargs: dict) -> Any:
        """Run the read op `op` (`"files.glob"`, `"git.log"`, ...) with the script's arguments."""

    async def run(self, cmd: str, args: Sequence[str], timeout_s: float) -> Any:
        """Run the approved command `cmd`; returns its `RunResult` record (a nonzero exit is a
        result, not an error)."""


class ArtifactPort(Protocol):
    """ArtifactPort: where a run's published artifacts, dashboards and reports go."""

    async def publish_file(self, run_id: str, id: str, path: str, *, title: str | None = None,
                           description: str | None = None, primary: bool = False) -> Any:
        """Store the workspace file `path` as the next version of `id`; returns its `ArtifactRef` record."""

    async def publish_markdown(self, run_id: str, id: str, content: str, *, title: str | None = None,
                               description: str | None = None, primary: bool = False) -> Any:
        """Store `content` as the next version of the Markdown artifact `id`; returns its
        `ArtifactRef` record."""

    def declare_dashboard(self, run_id: str, id: str, kind: str, spec: Any) -> None:
        """Record a dashboard declaration; the same declaration again is a no-op (a replay)."""

    def append_report(self, run_id: str, site: str, key: str, item: Any, artifact: str | None) -> None:
        """Keep one reported item durably, in delivery order; `artifact` names the dashboard it feeds."""


class QuestionPort(Protocol):
    """QuestionPort: asks the run's owner a question an actor escalated, and waits for the answer."""

    async def ask_owner(self, question_id: str, actor: ActorSpec, question: str, context: str | None, *,
                        posted: Callable[[], None] | None = None) -> str:
        """The owner's answer to `question` (`question_id` is stable across a resume). `posted()`
        is called once the question can be answered (the engine journals `escalation-raised`
        then, so a host told of it can answer at once)."""


__all__ = ["NUDGE_MESSAGE", "ActorSpec", "AgentPort", "ArtifactPort", "AskChannel", "AskError", "AskRequest",
           "QuestionPort", "Usage", "Verdict", "WorldPort"]
