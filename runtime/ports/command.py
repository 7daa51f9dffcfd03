"""This module defines the command agent port (RUNTIME §4): an `AgentPort` that runs an external
CLI agent once per turn (`dwfc run FILE --agent command:'CMD ARGS...'`).

Protocol. The command (an argv, no shell) is started in the workspace (an isolated actor's: its
git worktree, `request.actor.workdir`, also passed as `"workdir"`) with one JSON object on
stdin (`tools`: the actor's narrowed tools, or null; a wrapper should pass them on):

    {"actor": NAME|null, "actor_id": ID, "system": TEXT|null, "model": NAME|null,
     "instructions": TEXT, "schema": JSON-SCHEMA|null, "history_id": ID,
     "run_id": ID, "site": "ask#1", "key": OCCURRENCE}

`history_id` is stable for one actor of one run, so a wrapper can keep the actor's conversation
(e.g. map it to a CLI agent's session id). The command prints one JSON object on stdout:

    {"result": VALUE}   a typed ask's value (submitted to the engine for validation)
    {"text": TEXT}      the final text (for a typed ask, text that parses as JSON is submitted)
    {"error": MESSAGE}  the ask fails with MESSAGE
    optionally "usage": {"input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"}

A rejected typed value runs the command again in the same history with the violations as the
instructions, until the engine accepts it or gives up. A nonzero exit, a timeout or a reply that
is not such a JSON object fails the ask with `AskError`, quoting the tail of stderr. The command
inherits the host environment (it needs its own credentials); it is killed with its process
group on every exit path, cancellation included.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
from pathlib import Path
from typing import Any

from dwf.runtime.values.errors import ScriptError
from dwf.runtime.ports.protocols import NUDGE_MESSAGE, AskChannel, AskError, AskRequest, Usage
from dwf.runtime.ports.process import MIB, run_process

DEFAULT_TIMEOUT_S = 3600.0
OUTPUT_LIMIT = 16 * MIB
STDERR_TAIL = 2000
USAGE_KEYS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


class CommandPortError(Exception):
    """The command spec is unusable (a usage error before the run starts)."""


class CommandAgentPort:
    def __init__(self, argv: list[str] | str, *, workspace: str | os.PathLike | None = None,
                 timeout_s: float = DEFAULT_TIMEOUT_S, env: dict[str, str] | None = None):
        if isinstance(argv, str):
            try:
                argv = shlex.split(argv)
            except ValueError as error:
                raise CommandPortError(f"cannot parse the agent command: {error}") from None
        if not argv:
            raise CommandPortError("the command agent port needs a command: --agent command:'CMD ARGS...'")
        self.argv = list(argv)
        self.workspace = Path(workspace) if workspace is not None else Path.cwd()
        self.timeout_s = timeout_s
        self.env = env

    async def close(self) -> None:
        return None

    async def run_turn(self, request: AskRequest, message: str, channel: AskChannel) -> str:
        instructions = message
        while True:
            reply = await self._invoke(request, instructions, channel)
            if "error" in reply:
                raise AskError(str(reply["error"]), code="CommandAgentError")
            text = reply.get("text")
            if request.schema is None:
                if "text" in reply and isinstance(text, str):
                    return text
                if isinstance(reply.get("result"), str):
                    return reply["result"]
                raise AskError("the agent command's reply has no \"text\" for an untyped ask", code="CommandAgentError")
            if "result" in reply:
                value = reply["result"]
            elif isinstance(text, str):
                try:
                    value = json.loads(text)
                except ValueError:
                    return text  # no result: the engine nudges, then fails with ResultNotSubmitted
            else:
                return ""
            verdict = await channel.submit(value)
            if verdict.accepted or verdict.final:
                return text if isinstance(text, str) else "Submitted."
            instructions = ("Your result was rejected. Fix these violations and answer again with the "
                            "corrected result:\n" + "\n".join(f"- {v}" for v in verdict.violations))

    async def _invoke(self, request: AskRequest, instructions: str, channel: AskChannel) -> dict:
        payload = {
            "actor": request.actor.name, "actor_id": request.actor.actor_id, "system": request.actor.system,
            "model": request.actor.model, "instructions": instructions, "schema": request.schema,
            "history_id": history_id(request), "run_id": request.run_id, "site": request.site, "key": request.key,
            "nudge": instructions == NUDGE_MESSAGE, "workdir": request.actor.workdir,
            "tools": list(request.actor.tools) if request.actor.tools is not None else None,
        }
        channel.progress("running agent command", command=self.argv[0])
        env = dict(os.environ if self.env is None else self.env)
        try:
            done = await run_process(self.argv, what=f"agent command `{self.argv[0]}`", cwd=Path(request.actor.workdir or self.workspace), env=env,
                                     timeout_s=self.timeout_s, output_limit=OUTPUT_LIMIT,
                                     stdin_data=json.dumps(payload).encode("utf-8"))
        except ScriptError as error:
            raise AskError(error.message, code="CommandAgentError") from None
        channel.touched_world()  # an external agent may have changed the workspace
        tail = _tail(done.stderr)
        if done.exit_code != 0:
            raise AskError(f"the agent command `{self.argv[0]}` exited with status {done.exit_code}"
                           + (f": {tail}" if tail else ""), code="CommandAgentError")
        try:
            reply = json.loads(done.stdout)
        except ValueError as error:
            raise AskError(f"the agent command `{self.argv[0]}` did not print a JSON reply ({error})"
                           + (f"; stderr: {tail}" if tail else ""), code="CommandAgentError") from None
        if not isinstance(reply, dict) or not any(k in reply for k in ("result", "text", "error")):
            raise AskError(f"the agent command `{self.argv[0]}` printed JSON without \"result\", \"text\" or \"error\"",
                           code="CommandAgentError")
        usage = reply.get("usage")
        if isinstance(usage, dict):
            channel.usage(Usage(**{k: _count(usage.get(k)) for k in USAGE_KEYS}))
        return reply


def history_id(request: AskRequest) -> str:
    """A stable, file-name-safe id for one actor's conversation in one run."""
    digest = hashlib.sha256(f"{request.run_id}\0{request.actor.actor_id}".encode()).hexdigest()[:24]
    return f"dwf-{digest}"


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _tail(data: bytes) -> str:
    text = data.decode("utf-8", "replace").strip()
    return ("..." + text[-STDERR_TAIL:]) if len(text) > STDERR_TAIL else text
