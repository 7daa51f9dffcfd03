"""The actor's contract (issue #14, acceptance 6): the exact system prompt and ask messages the
Anthropic port sends, snapshot-tested through the real `anthropic` SDK against the fake Messages
API: the contract (the reader is a script, the evidence rule, faithful reporting, `escalate` when
blocked, no report files unless the ask names an output path), each ask's epilogue with the
quality bar after its instructions (outside the input hash), and the submit instruction of a
typed ask (its schema in the tool declaration; in the epilogue where a provider has no tools)."""

from __future__ import annotations

import anyio

from fake_messages_api import FakeMessagesAPI, text, tool_use
from dwf.runtime.engine import Engine, StartRequest
from dwf.runtime.journal.memory import MemoryJournal
from dwf.runtime.journal.store import input_hash
from dwf.runtime.ports.anthropic import AnthropicAgentPort
from dwf.runtime.ports.contract import CONTRACT, ask_epilogue

SCRIPT = '''meta = {"name": "contract", "description": "An untyped and a typed ask."}
from typing import TypedDict
class Finding(TypedDict):
    path: str
    severity: int
critic = agent("critic", system="You review Python code.")
note = await critic.ask("Review app.py for bugs.")
return [note, await critic.ask("Report the worst finding.", returns=Finding)]
'''


def sent_requests(tmp_path) -> tuple[list[dict], MemoryJournal, str]:
    journal = MemoryJournal()
    with FakeMessagesAPI() as api:
        api.queue(text("No bugs found in app.py: I read all 12 lines."),
                  tool_use("submit_result", {"path": "app.py", "severity": 1}), text("Submitted."))
        port = AnthropicAgentPort(model="claude-test", api_key="test-key", base_url=api.url, workspace=tmp_path,
                                  actor_tools="read")

        async def main():
            async with Engine() as engine:
                return await engine.start(StartRequest(script=SCRIPT, agent_port=port, journal=journal)).result

        result = anyio.run(main)
        assert result.status == "completed", result.error
        return api.requests, journal, result.run_id


def test_the_contract_states_the_actors_obligations():
    for rule in ("Your reader is that script, not a person", "Evidence: state only what you have checked",
                 "Report faithfully", "call `escalate`", "unless the ask names an output path"):
        assert rule in CONTRACT


def test_the_exact_prompts_of_an_untyped_and_a_typed_ask(tmp_path, snapshot):
    requests, journal, run_id = sent_requests(tmp_path)
    untyped, typed = requests[0], requests[1]
    assert untyped["system"] == "You review Python code.\n\n" + CONTRACT
    assert untyped["system"] == snapshot(name="system prompt")
    assert untyped["messages"][0]["content"][0]["text"] == snapshot(name="untyped ask")
    assert typed["messages"][-1]["content"][0]["text"] == snapshot(name="typed ask")
    assert next(t for t in typed["tools"] if t["name"] == "submit_result") == snapshot(name="submit tool")
    assert "submit_result" not in {t["name"] for t in untyped["tools"]}


def test_the_epilogue_is_outside_the_input_hash(tmp_path):
    _, journal, run_id = sent_requests(tmp_path)
    nodes = [n for n in journal.list_nodes(run_id) if n.kind == "ask"]
    assert [n.input["instructions"] for n in nodes] == ["Review app.py for bugs.", "Report the worst finding."]
    assert nodes[0].input_hash == input_hash({"instructions": "Review app.py for bugs.", "schema": None,
                                              "persona": "You review Python code.", "actor": "critic"})


def test_without_tools_the_epilogue_carries_the_schema(snapshot):
    schema = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    assert ask_epilogue(schema, schema_in_tool=False) == snapshot(name="typed ask, no tools")
    assert '"required": [\n    "path"\n  ]' in ask_epilogue(schema, schema_in_tool=False)
    assert ask_epilogue(None) == ask_epilogue(None, schema_in_tool=False)  # untyped: the quality bar only
