"""Agent definitions (LANGUAGE §6.1): the frontmatter parser, the lookup order, the start-time
check of `dwfc run`, and the Anthropic port applying a definition (system prompt, model, tools)."""

from __future__ import annotations

import json

import anyio
import pytest

from dwf.compiler.compile import compile_bytes
from dwf.runtime.ports.agent_definitions import (AgentDefinitionError, agent_types, check_agent_types, find_definition,
                                           load_definition, parse_definition, parse_frontmatter)
from dwf.runtime.ports.anthropic import CONTRACT, AnthropicAgentPort
from dwf.runtime.cli.main import main
from dwf.runtime.engine import Engine, StartRequest

from fake_messages_api import FakeMessagesAPI, text, tool_use

REVIEWER = """---
name: code-reviewer
description: "Reviews code: finds bugs"
model: claude-review-model
tools: Read, Grep
---
You are a meticulous code reviewer.

Report real bugs only.
"""


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def home(tmp_path, monkeypatch):
    path = tmp_path / "home"
    path.mkdir()
    monkeypatch.setenv("DWF_HOME", str(path))
    return path


def write(path, content):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    return path


def test_parse_definition_inline_tools_quotes_and_body():
    definition = parse_definition(REVIEWER, "r.md")
    assert definition.name == "code-reviewer" and definition.description == "Reviews code: finds bugs"
    assert definition.model == "claude-review-model" and definition.tools == ("Read", "Grep")
    assert definition.prompt == "You are a meticulous code reviewer.\n\nReport real bugs only."
    assert definition.actor_tools() == frozenset({"read_file", "grep"})


def test_parse_frontmatter_lists_comments_and_aliases():
    front = parse_frontmatter(["# a comment", "name: x", "tools:", "  - Read", "  - Bash", "  - WebFetch",
                               "other: [a, 'b']"])
    assert front == {"name": "x", "tools": ["Read", "Bash", "WebFetch"], "other": ["a", "b"]}
    definition = parse_definition("---\nname: x\nmodel: sonnet\ntools:\n  - Read\n  - Bash\n  - WebFetch\n---\nBody")
    assert definition.model == "claude-sonnet-4-5" and definition.actor_tools() == frozenset({"read_file", "run_command"})
    assert parse_definition("---\nname: y\nmodel: inherit\n---\nB").model is None
    assert parse_definition("---\nname: y\n---\nB").tools is None  # no `tools`: every tool of the run
    assert parse_definition("Just a prompt", default_name="plain").prompt == "Just a prompt"


def test_parse_errors_are_one_sentence():
    with pytest.raises(AgentDefinitionError, match="never closed"):
        parse_definition("---\nname: x\nbody")
    with pytest.raises(AgentDefinitionError, match="expected `key: value`"):
        parse_definition("---\nname x\n---\nbody")
    with pytest.raises(AgentDefinitionError, match="no `name`"):
        parse_definition("---\ndescription: d\n---\nbody")


def test_lookup_order_dwf_then_claude_then_home(tmp_path, home):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    assert find_definition("r", workspace) is None
    write(home / "agents" / "r.md", "---\nname: r\n---\nfrom home")
    assert load_definition("r", workspace).prompt == "from home"
    write(workspace / ".claude" / "agents" / "r.md", "---\nname: r\n---\nfrom claude")
    assert load_definition("r", workspace).prompt == "from claude"
    write(workspace / ".dwf" / "agents" / "r.md", "---\nname: r\n---\nfrom dwf")
    assert load_definition("r", workspace).prompt == "from dwf"
    assert find_definition("../r", workspace) is None
    with pytest.raises(AgentDefinitionError, match="no agent definition named \"missing\""):
        load_definition("missing", workspace)


SCRIPT = '''meta = {"name": "typed-agents", "description": "Uses agent definitions."}
phase("Review")
r = agent("r", agent_type="code-reviewer", system="Focus on src/.")
first = await r.ask("review")
others = [await agent(f"x{i}", agent_type="helper").ask("help") for i in range(2)]
return first
'''


def test_check_agent_types_walks_the_program(tmp_path, home):
    program = compile_bytes(SCRIPT.encode(), "t.dwf.py").program
    assert program is not None
    assert agent_types(program) == ["code-reviewer", "helper"]
    problems = check_agent_types(program, tmp_path)
    assert len(problems) == 2 and "code-reviewer" in problems[0] and "helper" in problems[1]
    write(tmp_path / ".claude" / "agents" / "code-reviewer.md", REVIEWER)
    write(home / "agents" / "helper.md", "---\nname: helper\n---\nHelp.")
    assert check_agent_types(program, tmp_path) == []


def test_dwfc_run_refuses_an_unknown_agent_type(tmp_path, home, capsys):
    (tmp_path / "t.dwf.py").write_text(SCRIPT)
    (tmp_path / "f.json").write_text(json.dumps({"rules": [], "default": {"result": "ok"}}))
    calls = tmp_path / "calls.log"
    code = main(["run", str(tmp_path / "t.dwf.py"), "--yes", "--agent", f"scripted:{tmp_path / 'f.json'}",
                 "--progress", "json", "--workspace", str(tmp_path)])
    assert code == 2
    err = capsys.readouterr().err
    assert "no agent definition named \"code-reviewer\"" in err and "helper" in err
    assert not (tmp_path / ".dwf" / "state.db").exists() and not calls.exists()  # nothing ran
    write(tmp_path / ".dwf" / "agents" / "code-reviewer.md", REVIEWER)
    write(tmp_path / ".dwf" / "agents" / "helper.md", "---\nname: helper\n---\nHelp.")
    code = main(["run", str(tmp_path / "t.dwf.py"), "--yes", "--agent", f"scripted:{tmp_path / 'f.json'}",
                 "--progress", "json", "--workspace", str(tmp_path)])
    assert code == 0, capsys.readouterr().err
    assert json.loads(capsys.readouterr().out)["value"] == "ok"


HEADER = 'meta = {"name": "definition-test", "description": "Agent definitions."}\nphase("Work")\n'


async def run_with_port(body, port):
    async with Engine() as engine:
        handle = engine.start(StartRequest(script=HEADER + body, agent_port=port))
        with anyio.fail_after(20):
            return await handle.result


@pytest.mark.anyio
async def test_anthropic_port_applies_the_definition(tmp_path, home):
    write(tmp_path / ".claude" / "agents" / "code-reviewer.md", REVIEWER)
    (tmp_path / "a.txt").write_text("x")
    with FakeMessagesAPI() as api:
        api.queue(tool_use("write_file", {"path": "a.txt", "content": "changed"}), text("reviewed"),
                  text("second"))
        port = AnthropicAgentPort(model="claude-default", api_key="k", base_url=api.url, workspace=tmp_path,
                                  actor_tools="exec")
        body = ('a = await agent("r", agent_type="code-reviewer", system="Focus on src/.").ask("review")\n'
                'b = await agent("s", agent_type="code-reviewer", model="claude-script").ask("again")\n'
                'return [a, b]\n')
        result = await run_with_port(body, port)
        assert result.status == "completed", result.error
        assert result.value == ["reviewed", "second"]
        first = api.requests[0]
        assert first["system"].startswith("You are a meticulous code reviewer.\n\nReport real bugs only.\n\nFocus on src/.")
        assert first["system"].endswith(CONTRACT)
        assert first["model"] == "claude-review-model"  # the definition's model
        assert {t["name"] for t in first["tools"]} == {"escalate", "read_file", "grep"}
        rejected = api.requests[1]["messages"][-1]["content"][0]
        assert rejected["is_error"] is True and (tmp_path / "a.txt").read_text() == "x"
        assert api.requests[2]["model"] == "claude-script"  # the script's model= overrides


@pytest.mark.anyio
async def test_definition_tools_never_widen_the_run_tool_set(tmp_path, home):
    write(tmp_path / ".dwf" / "agents" / "builder.md", "---\nname: builder\ntools: Read, Write, Bash\n---\nBuild.")
    with FakeMessagesAPI() as api:
        api.queue(text("ok"))
        port = AnthropicAgentPort(model="claude-test", api_key="k", base_url=api.url, workspace=tmp_path,
                                  actor_tools="read")
        result = await run_with_port('return await agent(agent_type="builder").ask("go")\n', port)
        assert result.value == "ok"
        assert {t["name"] for t in api.requests[0]["tools"]} == {"escalate", "read_file"}


@pytest.mark.anyio
async def test_a_missing_definition_at_run_time_fails_the_ask(tmp_path, home):
    with FakeMessagesAPI() as api:
        port = AnthropicAgentPort(model="claude-test", api_key="k", base_url=api.url, workspace=tmp_path)
        result = await run_with_port('return await agent(agent_type="ghost").ask("go")\n', port)
        assert result.status == "errored" and "ghost" in (result.error or "")
        assert api.requests == []
