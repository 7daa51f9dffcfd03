"""This module defines agent definitions (LANGUAGE §6.1): `agent(agent_type="name")` names a
Markdown file whose frontmatter gives `name`, `description`, optional `model` and optional
`tools`, and whose body is the actor's system prompt.

Lookup order (first match wins): `<workspace>/.dwf/agents/<name>.md`, then
`<workspace>/.claude/agents/<name>.md` (Claude Code agent definitions work unchanged), then
`$DWF_HOME/agents/<name>.md` (`DWF_HOME` defaults to `~/.dwf`).

The frontmatter is a small YAML subset, parsed here without a YAML dependency: `key: value`
lines (values may be quoted), `# comments`, and a list either inline (`tools: Read, Grep` or
`tools: [Read, Grep]`) or as `- item` lines under `key:`. Unknown keys are ignored.

`check_agent_types(program, workspace)` lists the problems of a compiled program's literal
`agent_type` names (unknown or unreadable definitions); `dwfc run` refuses to start with them.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dwf.compiler import ir

from dwf.runtime.statedir import StateDir, dwf_home

# Claude Code tool names -> actor tools (runtime.ports.actor_tools).
TOOL_MAP = {"Read": "read_file", "Grep": "grep", "Glob": "list_files", "Write": "write_file",
            "Edit": "edit_file", "MultiEdit": "edit_file", "Bash": "run_command"}
# Claude Code model aliases -> model ids ("inherit": the port's default).
MODEL_ALIASES = {"sonnet": "claude-sonnet-4-5", "opus": "claude-opus-4-1", "haiku": "claude-haiku-4-5",
                 "inherit": None}
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


class AgentDefinitionError(Exception):
    """An agent definition is missing or malformed (one clear sentence)."""


@dataclass(frozen=True)
class AgentDefinition:
    name: str
    description: str
    prompt: str  # the Markdown body: the system prompt
    model: str | None = None  # a model id (aliases resolved); None: the port's default
    tools: tuple[str, ...] | None = None  # the frontmatter's tool names; None: all tools of the run
    path: str | None = None

    def actor_tools(self) -> frozenset[str] | None:
        """The actor tools these tools map onto (unknown names are ignored); None: no restriction."""
        if self.tools is None:
            return None
        return frozenset(TOOL_MAP[t] for t in self.tools if t in TOOL_MAP)


def search_paths(name: str, workspace: str | os.PathLike) -> list[Path]:
    """Where the definition `name` may be, in lookup order (see the module docstring)."""
    return [StateDir(workspace).agents / f"{name}.md", Path(workspace) / ".claude" / "agents" / f"{name}.md",
            dwf_home() / "agents" / f"{name}.md"]


def find_definition(name: str, workspace: str | os.PathLike) -> Path | None:
    """The file of the definition `name`, the first of `search_paths` that exists, or None."""
    if not isinstance(name, str) or not _NAME.match(name):
        return None
    for path in search_paths(name, workspace):
        if path.is_file():
            return path
    return None


def load_definition(name: str, workspace: str | os.PathLike) -> AgentDefinition:
    """The parsed definition `name`; `AgentDefinitionError` when it is missing or malformed."""
    path = find_definition(name, workspace)
    if path is None:
        raise AgentDefinitionError(
            f"no agent definition named \"{name}\": looked for .dwf/agents/{name}.md and .claude/agents/{name}.md "
            f"in the workspace, and $DWF_HOME/agents/{name}.md")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise AgentDefinitionError(f"cannot read the agent definition {path}: "
                                   f"{getattr(error, 'strerror', None) or error}") from None
    return parse_definition(text, str(path), default_name=name)


def parse_definition(text: str, path: str = "<definition>", *, default_name: str | None = None) -> AgentDefinition:
    """Parse a definition file: optional `---` frontmatter, then the prompt body."""
    text = text.lstrip("\ufeff")
    front: dict[str, Any] = {}
    body = text
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
        if end is None:
            raise AgentDefinitionError(f"{path}: the frontmatter starting with `---` is never closed")
        front = parse_frontmatter(lines[1:end], path)
        body = "\n".join(lines[end + 1:])
    name = front.get("name") or default_name
    if not isinstance(name, str) or not name:
        raise AgentDefinitionError(f"{path}: the frontmatter has no `name`")
    description = front.get("description") or ""
    if not isinstance(description, str):
        raise AgentDefinitionError(f"{path}: `description` must be text")
    model = front.get("model")
    if model is not None:
        if not isinstance(model, str):
            raise AgentDefinitionError(f"{path}: `model` must be a model name")
        model = MODEL_ALIASES.get(model, model) if model else None
    tools = front.get("tools")
    if tools is not None:
        if isinstance(tools, str):
            tools = [t.strip() for t in tools.split(",") if t.strip()]
        if not isinstance(tools, list) or not all(isinstance(t, str) for t in tools):
            raise AgentDefinitionError(f"{path}: `tools` must be a list of tool names")
        tools = tuple(tools)
    return AgentDefinition(name=name, description=description, prompt=body.strip(), model=model, tools=tools,
                           path=path)


def parse_frontmatter(lines: list[str], path: str = "<definition>") -> dict[str, Any]:
    """The YAML subset: `key: value`, `key: [a, b]`, `key:` followed by `- item` lines."""
    out: dict[str, Any] = {}
    current: str | None = None
    for number, raw in enumerate(lines, start=2):
        line = raw.rstrip()
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("- ") or stripped == "-":
            if current is None or not isinstance(out.get(current), list):
                raise AgentDefinitionError(f"{path}:{number}: a `- item` line must follow a `key:` line")
            out[current].append(_scalar(stripped[1:].strip()))
            continue
        if raw[:1].isspace() and current is not None and isinstance(out.get(current), str):
            out[current] = (out[current] + " " + stripped).strip()  # a folded continuation line
            continue
        key, colon, value = line.partition(":")
        key = key.strip()
        if not colon or not key or " " in key:
            raise AgentDefinitionError(f"{path}:{number}: expected `key: value`, got {stripped!r}")
        value = value.strip()
        current = key
        if value == "":
            out[key] = []
        elif value.startswith("[") and value.endswith("]"):
            out[key] = [_scalar(v.strip()) for v in value[1:-1].split(",") if v.strip()]
        elif value in ("|", ">", "|-", ">-"):
            out[key] = ""
        else:
            out[key] = _scalar(value)
    # `key:` with nothing after it and no items is an empty value, not a list
    return {k: (None if v == [] and k != "tools" else v) for k, v in out.items()}


def _scalar(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    if " #" in value:
        value = value.split(" #", 1)[0].rstrip()
    return value


# ---------------------------------------------------------------- programs


def agent_types(program: Any) -> list[str]:
    """The literal `agent_type` names of a compiled program's `agent(...)` calls, in order."""
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, ir.FacadeCall) and node.op == "agent":
            for keyword in node.keywords:
                if keyword.name == "agent_type" and isinstance(keyword.value, ir.Const) \
                        and isinstance(keyword.value.value, str) and keyword.value.value not in found:
                    found.append(keyword.value.value)
        if isinstance(node, ir.Node):
            for field in node.__dataclass_fields__:
                if field != "span":
                    walk(getattr(node, field))
        elif isinstance(node, (tuple, list)):
            for item in node:
                walk(item)

    walk(program.body)
    return found


def check_agent_types(program: Any, workspace: str | os.PathLike) -> list[str]:
    """Problems with the program's agent definitions: unknown or malformed ones."""
    problems: list[str] = []
    for name in agent_types(program):
        try:
            load_definition(name, workspace)
        except AgentDefinitionError as error:
            problems.append(str(error))
    return problems


__all__ = ["AgentDefinition", "AgentDefinitionError", "TOOL_MAP", "agent_types", "check_agent_types",
           "find_definition", "load_definition", "parse_definition", "parse_frontmatter", "search_paths"]
