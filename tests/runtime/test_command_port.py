"""The command agent port (RUNTIME §4) through the real `Engine`, against a real subprocess: a
tiny Python script playing the external CLI agent."""

from __future__ import annotations

import json
import sys
import time

import anyio
import pytest

from dwf.runtime.ports.command import CommandAgentPort, CommandPortError
from dwf.runtime.engine import Engine, StartRequest


@pytest.fixture
def anyio_backend():
    return "asyncio"


HEADER = 'meta = {"name": "command-port-test", "description": "Command port tests."}\nphase("Work")\n'

AGENT = r'''
import json, os, sys, time
request = json.load(sys.stdin)
log = os.path.join(sys.argv[1], "log.jsonl")
with open(log, "a") as f:
    f.write(json.dumps(request) + "\n")
text = request["instructions"]
usage = {"input_tokens": 10, "output_tokens": 3}
def reply(**data):
    print(json.dumps({**data, "usage": usage}))
    sys.exit(0)
if text.startswith("echo "):
    reply(text=text[5:] + " from " + str(request["actor"]))
if text == "count":
    n = sum(1 for line in open(log) if json.loads(line)["history_id"] == request["history_id"])
    reply(text=str(n))
if text == "item":
    reply(result={"name": 7})
if text.startswith("Your result was rejected"):
    reply(result={"name": "fixed"})
if text == "json text":
    reply(text='{"name": "from text"}')
if text == "fail":
    reply(error="I cannot do that")
if text == "crash":
    sys.stderr.write("Traceback: something exploded\n")
    sys.exit(4)
if text == "garbage":
    print("this is not json")
    sys.exit(0)
if text == "sleep":
    time.sleep(30)
reply(text="unknown")
'''


@pytest.fixture
def agent(tmp_path):
    path = tmp_path / "agent.py"
    path.write_text(AGENT)
    return CommandAgentPort([sys.executable, str(path), str(tmp_path)], workspace=tmp_path)


def log(tmp_path):
    return [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]


async def run(body, port):
    async with Engine() as engine:
        handle = engine.start(StartRequest(script=HEADER + body, agent_port=port))
        with anyio.fail_after(20):
            return await handle.result


CATCH = 'try:\n    return await agent("a").ask("{}")\nexcept AskFailed as e:\n    return str(e)\n'


def test_command_spec_is_parsed_like_a_shell_line():
    assert CommandAgentPort("my-agent --flag 'two words'").argv == ["my-agent", "--flag", "two words"]
    with pytest.raises(CommandPortError):
        CommandAgentPort("")


@pytest.mark.anyio
async def test_untyped_ask_returns_text_with_request_fields_and_usage(agent, tmp_path):
    body = 'a = agent("alice", system="Be brief.", model="m1")\nx = await a.ask("echo hi")\ny = await a.ask("count")\n' \
           'z = await agent("bob").ask("count")\nreturn [x, y, z]\n'
    result = await run(body, agent)
    assert result.status == "completed", result.error
    assert result.value == ["hi from alice", "2", "1"]
    first = log(tmp_path)[0]
    assert (first["actor"], first["system"], first["model"], first["schema"]) == ("alice", "Be brief.", "m1", None)
    assert first["history_id"].startswith("dwf-")
    assert result.usage["input_tokens"] == 30 and result.usage["output_tokens"] == 9


TYPED = '''
from typing import TypedDict
class Item(TypedDict):
    name: str
return await agent("a").ask("{}", returns=Item)
'''


@pytest.mark.anyio
async def test_typed_result_is_validated_and_repaired(agent, tmp_path):
    result = await run(TYPED.replace("{}", "item"), agent)
    assert result.status == "completed", result.error
    assert result.value == {"name": "fixed"}
    calls = log(tmp_path)
    assert calls[0]["schema"]["properties"]["name"]["type"] == "string"
    assert "$.name" in calls[1]["instructions"] and calls[0]["history_id"] == calls[1]["history_id"]


@pytest.mark.anyio
async def test_typed_text_that_parses_as_json_is_submitted(agent):
    result = await run(TYPED.replace("{}", "json text"), agent)
    assert result.value == {"name": "from text"}


@pytest.mark.anyio
@pytest.mark.parametrize("instruction, expected", [
    ("fail", "I cannot do that"),
    ("crash", "exited with status 4: Traceback: something exploded"),
    ("garbage", "did not print a JSON reply"),
])
async def test_failures_fail_the_ask(agent, instruction, expected):
    result = await run(CATCH.replace("{}", instruction), agent)
    assert result.status == "completed"
    assert expected in result.value


@pytest.mark.anyio
async def test_missing_command_fails_the_ask(tmp_path):
    result = await run(CATCH.replace("{}", "x"), CommandAgentPort(["/no/such/agent"], workspace=tmp_path))
    assert "cannot start" in result.value


@pytest.mark.anyio
async def test_timeout_and_cancellation_kill_the_command(agent, tmp_path):
    agent.timeout_s = 0.5
    result = await run(CATCH.replace("{}", "sleep"), agent)
    assert "timed out" in result.value
    agent.timeout_s = 60
    async with Engine() as engine:
        handle = engine.start(StartRequest(script=HEADER + 'return await agent("a").ask("sleep")\n', agent_port=agent))
        await anyio.sleep(0.5)
        started = time.monotonic()
        handle.cancel("user")
        with anyio.fail_after(5):
            result = await handle.result
    assert result.status == "stopped" and time.monotonic() - started < 3


def test_load_agent_port_for_the_cli(tmp_path, monkeypatch):
    from dwf.runtime.ports.anthropic import AnthropicAgentPort
    from dwf.runtime.ports.factory import load_agent_port

    problems = []
    port = load_agent_port("command", "my-agent --x", tmp_path, problems)
    assert isinstance(port, CommandAgentPort) and port.argv == ["my-agent", "--x"] and not problems
    assert load_agent_port("command", None, tmp_path, problems) is None and "needs a command" in problems[-1]
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert load_agent_port("anthropic", None, tmp_path, problems) is None and "ANTHROPIC_API_KEY" in problems[-1]
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    monkeypatch.setenv("DWF_ACTOR_TOOLS", "exec")
    port = load_agent_port("anthropic", "claude-x", tmp_path, problems)
    assert isinstance(port, AnthropicAgentPort) and port.model == "claude-x" and port.tools.tool_set == "exec"
    assert load_agent_port("anthropic", None, tmp_path / "missing", problems) is None and "not a directory" in problems[-1]


def test_load_agent_port_model_and_actor_tools(tmp_path, monkeypatch):
    from dwf.runtime.ports.factory import load_agent_port

    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.delenv("DWF_ACTOR_TOOLS", raising=False)
    problems: list[str] = []
    port = load_agent_port("anthropic", None, tmp_path, problems, actor_tools="exec", model="claude-from-flag")
    assert problems == [] and port.model == "claude-from-flag" and port.tools.tool_set == "exec"
    port = load_agent_port("anthropic", "claude-x", tmp_path, problems, model="claude-x")
    assert problems == [] and port.model == "claude-x" and port.tools.tool_set == "write"
    assert load_agent_port("anthropic", "claude-x", tmp_path, problems, model="claude-y") is None
    assert "contradicts" in problems[-1]


def test_dwfc_run_flags_reach_the_anthropic_port(tmp_path, monkeypatch):
    from dwf.runtime.cli import main as cli

    seen = {}

    def fake_loader(kind, argument, workspace, problems, actor_tools=None, model=None):
        seen.update(kind=kind, argument=argument, actor_tools=actor_tools, model=model)
        problems.append("stop here")
        return None

    monkeypatch.setattr("dwf.runtime.ports.factory.load_agent_port", fake_loader)
    (tmp_path / "s.dwf.py").write_text('meta = {"name": "s", "description": "d"}\nreturn await agent().ask("x")\n')
    code = cli.main(["run", str(tmp_path / "s.dwf.py"), "--yes", "--agent", "anthropic", "--model", "claude-m",
                     "--actor-tools", "read", "--progress", "json", "--workspace", str(tmp_path)])
    assert code == 2 and seen == {"kind": "anthropic", "argument": None, "actor_tools": "read", "model": "claude-m"}
    help_text = cli.build_parser()._subparsers._group_actions[0].choices["run"].format_help()
    assert "--actor-tools {read,write,exec}" in help_text and "--model MODEL" in help_text
