"""This module defines `available_models`, what the ListModels tool (TOOLS §3) answers: the model
ids a script's `agent(model=...)` or a run may use, the short aliases agent definitions may use,
and the default of the configured agent port. It reads no network: the ids are those the
installed `anthropic` SDK release knows."""

from __future__ import annotations

import ast
import importlib.util
import os
from pathlib import Path
from typing import get_args

from dwf.runtime.ports.agent_definitions import MODEL_ALIASES
from dwf.runtime.ports.anthropic import DEFAULT_MODEL
from dwf.runtime.ports.factory import parse_agent_spec


def available_models(agent: str | None, model: str | None) -> dict:
    """The models a run may use. The list is the `Model` literal of the installed `anthropic` SDK
    (the model ids that SDK release knows), plus the targets of the agent-definition aliases; the
    default is the one the configured port would use (`--model`, `anthropic:MODEL`,
    `DWF_ANTHROPIC_MODEL`, else `anthropic.DEFAULT_MODEL`)."""
    kind, argument = parse_agent_spec(agent) if agent else (None, None)
    ids = list(dict.fromkeys(_sdk_model_ids() + [target for target in MODEL_ALIASES.values() if target]))
    default = (model or (argument if kind == "anthropic" else None) or os.environ.get("DWF_ANTHROPIC_MODEL")
               or DEFAULT_MODEL)
    if default not in ids:
        ids.insert(0, default)
    notes = {"anthropic": "agent(model=...) and agent definitions choose per actor; others use the default.",
             "scripted": "The scripted port answers from a fixture and ignores the model.",
             "command": "The command port passes the model to its command, which decides what it accepts."}
    return {"agent_port": kind, "default_model": default,
            "models": [{"id": model_id, "default": model_id == default} for model_id in ids],
            "aliases": {alias: target or default for alias, target in MODEL_ALIASES.items()},
            "note": notes.get(kind, "No agent port is configured, so no run can start."),
            "source": "the model ids of the installed anthropic SDK (anthropic.types.Model) and dwf's "
                      "agent-definition aliases"}


def _sdk_model_ids() -> list[str]:
    """The ids of the `anthropic.types.Model` literal. Read from the SDK's source file when it is
    where this SDK release keeps it: importing `anthropic` costs seconds a listing should not."""
    spec = importlib.util.find_spec("anthropic")  # locates the package without importing it
    try:
        source = Path(spec.submodule_search_locations[0], "types", "model.py").read_text(encoding="utf-8")
        ids = [node.value for node in ast.walk(ast.parse(source))
               if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("claude-")]
    except (AttributeError, IndexError, TypeError, OSError, SyntaxError, ValueError):
        ids = []
    if ids:
        return ids
    from anthropic.types import Model  # deferred: start-up (the SDK costs seconds; only when its source moved)

    return [value for member in get_args(Model) for value in get_args(member)]
