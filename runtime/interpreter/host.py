"""This module defines `EffectHost`, the interface between the interpreter and whatever runs its
effects: every method the interpreter calls on its host, and nothing else. The engine's run
(`runtime.engine.engine.Run`) implements it, and so does the host of a saved workflow called
inline (`runtime.engine.called.CalledWorkflowHost`), which prefixes sites and keys and forwards
to the run. Protocols are structural, so neither names this class.

`site` is the effect's site ID (`ask#3`), `key` its occurrence key (`ask#3/for#1[2]`); the host
journals effects under the key. The awaitable effects (`ask`, `world_read`, `world_run`,
`publish_artifact`, `workflow`) are started only when the script awaits them
(`values.objects.LazyAwaitable`), so the host sees them in creation order per coroutine.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol

from dwf.runtime.values.objects import ActorHandle


class EffectHost(Protocol):
    """EffectHost: what the interpreter asks of the engine, one method per facade operation."""

    def create_actor(self, site: str, key: str, name: str | None, system: str | None, model: str | None,
                     agent_type: str | None, isolation: str | None = None,
                     tools: tuple[str, ...] | None = None) -> ActorHandle:
        """`agent(...)`: register a new actor and return its handle (`isolation="worktree"`: it
        works in its own git worktree; `tools`: the actor tools it is narrowed to)."""

    async def git_worktree(self, site: str, key: str, actor: ActorHandle) -> Any:
        """`git.worktree(actor)`: what an isolated actor changed in its worktree."""

    async def ask(self, site: str, key: str, actor: ActorHandle, instructions: str, schema_key: str | None,
                  label: str | None) -> Any:
        """`actor.ask(...)`: run one ask (typed when `schema_key` names a schema of the program)."""

    def ask_inputs(self, actor: ActorHandle, instructions: str, schema_key: str | None) -> dict:
        """The inputs an ask is journaled and hashed under (for `replay_now`)."""

    def replay_now(self, site: str, key: str, kind: str, inputs: Callable[[], Any]) -> tuple[bool, Any]:
        """`(True, outcome)` when the effect replays from the journal, so a join settles it without
        a task; `(False, None)` when it must run."""

    async def world_read(self, site: str, key: str, op: str, arguments: list) -> Any:
        """`files.*` and `git.*` reads (`op` is the qualified member, e.g. `files.read`)."""

    async def world_run(self, site: str, key: str, cmd: str, arguments: list[str], timeout_s: float) -> Any:
        """`world.run(cmd, args)`: run an approved command."""

    def report(self, site: str, key: str, item: Any, artifact: str | None) -> None:
        """`report(item)`: deliver one item of the run's report."""

    async def publish_artifact(self, site: str, key: str, kind: str, values: dict) -> Any:
        """`artifact.file` / `artifact.markdown`: publish an artifact's content."""

    def declare_artifact(self, site: str, key: str, kind: str, artifact_id: Any, spec: Any) -> None:
        """`artifact.chart`, `.table`, `.metrics`, `.board`: declare a dashboard artifact."""

    async def workflow(self, site: str, key: str, name: str, arguments: dict) -> Any:
        """`workflow(name, args)`: run a saved workflow inline and return its value."""

    def enter_phase(self, name: str) -> None:
        """`phase(name)`: the run enters a phase."""

    def log(self, message: str) -> None:
        """`log(message)`: a progress line."""

    def budget_total(self) -> int | None:
        """The run's token budget (`budget.total`), None without one."""

    def budget_spent(self) -> int:
        """The output tokens spent so far (`budget.spent()`)."""
