"""This module defines the actor's contract (issue #14, seed 003): what an agent port tells a
model about the work it does for a DWF workflow, as exact text (snapshot-tested).

- `CONTRACT` ends every actor's system prompt: the reader of its answers is a script, not a
  person; the evidence rule; faithful reporting; `escalate` when blocked; no report files unless
  the ask names an output path; workspace tools take workspace-relative paths.
- `ask_epilogue(schema, schema_in_tool)` follows each ask's instructions in the first message of
  the ask: the quality bar, and for a typed ask the submit instruction. The engine hashes the
  instructions alone, so the epilogue never changes an ask's cache identity. The schema goes in
  the `submit_result` tool declaration where the provider supports tools (`schema_in_tool`);
  otherwise the epilogue spells it out and asks for the JSON value as the final answer.
"""

from __future__ import annotations

import json
from typing import Any

SUBMIT_TOOL = "submit_result"
ESCALATE_TOOL = "escalate"

CONTRACT = f"""\
You are an actor in a DWF workflow: a script sends you tasks ("asks") as user messages, and this \
conversation persists across the asks sent to you.
- Your reader is that script, not a person. It uses your answer as data: answer exactly what the \
ask requests, in the form it requests, without greetings, preamble or a closing summary.
- Evidence: state only what you have checked. Base each claim on something you read or ran in \
this conversation (name the file, line or command it comes from); when you could not check \
something, say so instead of guessing.
- Report faithfully: say what you actually did and found, including what failed, what you skipped \
and what you are unsure of. Never present unfinished or unverified work as done.
- If you are blocked on a decision only the workflow's owner can make, call `{ESCALATE_TOOL}` with \
your question (and optional context); its result is the owner's answer. Do not stop with a \
question in your answer instead.
- Do not write report, summary or notes files unless the ask names an output path; your answer \
is the report.
- When an ask requires a structured result, a `{SUBMIT_TOOL}` tool is available: call it with the \
result. It answers "accepted" or lists the violations to fix; fix them and call it again. After \
"accepted", end your turn with a short note.
- When an ask requires no structured result, your final text is the result.
- Workspace tools (when offered) work on workspace-relative paths only."""

QUALITY_BAR = """\
Before you end your turn, check your work against this ask: it is complete (every part of the \
ask is answered), specific (names, paths, numbers rather than generalities), supported by \
evidence you gathered, and honest about anything left undone or uncertain."""

SUBMIT_IN_TOOL = f"""\
This ask requires a structured result: call `{SUBMIT_TOOL}` with it (the tool's input schema is \
the required schema). Your final text is not the result."""

SUBMIT_IN_TEXT = """\
This ask requires a structured result: end your turn with only a JSON value (no code fence, no \
other text) that matches this JSON Schema:"""


def ask_epilogue(schema: Any | None, schema_in_tool: bool = True) -> str:
    """The text that follows an ask's instructions (module docstring): the quality bar, then for
    a typed ask (`schema` set) the submit instruction, with the schema itself when the provider
    cannot take it in a tool declaration."""
    parts = [QUALITY_BAR]
    if schema is not None:
        if schema_in_tool:
            parts.append(SUBMIT_IN_TOOL)
        else:
            parts.append(SUBMIT_IN_TEXT + "\n" + json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False))
    return "\n\n".join(parts)


def first_message(instructions: str, schema: Any | None, schema_in_tool: bool = True) -> str:
    """The first user message of an ask: its instructions, a rule, then `ask_epilogue`."""
    return f"{instructions}\n\n---\n{ask_epilogue(schema, schema_in_tool)}"


__all__ = ["CONTRACT", "ESCALATE_TOOL", "QUALITY_BAR", "SUBMIT_IN_TEXT", "SUBMIT_IN_TOOL", "SUBMIT_TOOL",
           "ask_epilogue", "first_message"]
