"""This module defines how a run's agent port is opened from its spec (`--agent`, the tool
layer's `agent`): `scripted:FIXTURE.json`, `anthropic[:MODEL]` or `command:'CMD ARGS...'`.
`open_agent_port` returns the port, or None with the reasons appended to `problems` (a usage
error before anything runs); the command line, the tool layer and the MCP server all use it.
`agent_pin` is what a run journals of the port it runs with, so a resume runs with the same.
"""

from __future__ import annotations

import os
from pathlib import Path

from dwf.runtime.ports.command import CommandAgentPort, CommandPortError
from dwf.runtime.ports.protocols import AgentPort
from dwf.runtime.ports.scripted import FixtureError, ScriptedAgentPort


def parse_agent_spec(spec: str) -> tuple[str, str | None]:
    """Split an `--agent` value into (kind, argument): `scripted:F` -> ("scripted", "F")."""
    kind, sep, rest = spec.partition(":")
    return kind, (rest if sep else None)


def agent_pin(spec: str | None, port: AgentPort) -> dict:
    """What a run pins of its agent port (no secrets: an API key comes from the environment):
    `spec` (`anthropic` without its `:MODEL`, which is `model`; a scripted fixture by its absolute
    path), `kind`, the port's default `model` and the `actor_tools` set it offers actors (None
    when it offers none or is not Anthropic)."""
    kind, argument = parse_agent_spec(spec or "")
    tools = getattr(port, "tools", None) if kind == "anthropic" else None
    if kind == "anthropic":
        spec = "anthropic"
    elif kind == "scripted" and argument:  # a resume from another folder finds the same fixture
        spec = f"scripted:{Path(argument).resolve()}"
    return {"spec": spec, "kind": kind or None,
            "model": getattr(port, "model", None), "actor_tools": getattr(tools, "tool_set", None)}


def open_agent_port(spec: str | None, workspace: str | os.PathLike, *, model: str | None = None,
                    actor_tools: str | None = None, problems: list[str]) -> AgentPort | None:
    """The agent port `spec` names, or None with the reasons appended to `problems`."""
    if not spec:
        problems.append("no agent port given; pass --agent scripted:FIXTURE.json, --agent anthropic[:MODEL] "
                        "or --agent command:'CMD ...'")
        return None
    kind, argument = parse_agent_spec(spec)
    if kind == "scripted":
        if not argument:
            problems.append("--agent scripted needs a fixture file: --agent scripted:FIXTURE.json")
            return None
        try:
            return ScriptedAgentPort.from_file(argument, workspace=workspace,
                                               actor_tools=actor_tools or os.environ.get("DWF_ACTOR_TOOLS") or "write")
        except FixtureError as error:
            problems.append(f"bad scripted fixture: {error}")
            return None
    if kind in ("anthropic", "command"):
        return load_agent_port(kind, argument, Path(workspace), problems, actor_tools=actor_tools, model=model)
    problems.append(f"unknown agent port {spec!r}; use scripted:FIXTURE.json, anthropic[:MODEL] or command:'CMD ...'")
    return None


def load_agent_port(kind: str, argument: str | None, workspace: str | os.PathLike, problems: list[str],
                    actor_tools: str | None = None, model: str | None = None):
    """The `--agent anthropic[:MODEL]` or `--agent command:'CMD ARGS...'` port for the CLI, or
    None with the reasons appended to `problems` (a usage error before anything runs). The
    Anthropic port's tool set is `actor_tools` (`--actor-tools`), else `DWF_ACTOR_TOOLS`, else
    `write`; its default model is `model` (`--model`), else the `:MODEL` of the spec (both given
    and different is a usage error), else `DWF_ANTHROPIC_MODEL`, else the built-in default."""
    if kind == "command":
        if not argument:
            problems.append("--agent command needs a command: --agent command:'CMD ARGS...'")
            return None
        try:
            return CommandAgentPort(argument, workspace=workspace)
        except CommandPortError as error:
            problems.append(str(error))
            return None
    if kind == "anthropic":
        from dwf.runtime.ports.anthropic import AnthropicAgentPort, AnthropicPortError  # deferred: start-up

        if model and argument and model != argument:
            problems.append(f"--model {model} contradicts --agent anthropic:{argument}; give the model once")
            return None
        try:
            return AnthropicAgentPort(model=model or argument or None, workspace=workspace,
                                      actor_tools=actor_tools or os.environ.get("DWF_ACTOR_TOOLS") or "write")
        except AnthropicPortError as error:
            problems.append(str(error))
            return None
    problems.append(f"unknown agent port `{kind}`; use scripted:FIXTURE.json, anthropic[:MODEL] or command:'CMD ...'")
    return None
