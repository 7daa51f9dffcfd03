"""The Anthropic agent port (RUNTIME §7) driven through the real `Engine` and the real
`anthropic` SDK over real HTTP, against the fake Messages API of `fake_messages_api`; and the
actor tools against a temporary workspace."""

from __future__ import annotations

import os
import sys
import time

import anyio
import pytest

from dwf.runtime.ports.actor_tools import ActorTools
from dwf.runtime.ports.anthropic import CONTRACT, AnthropicAgentPort, AnthropicPortError, submit_schema
from dwf.runtime.engine import Engine, StartRequest
from dwf.runtime.ports.protocols import Usage

from fake_messages_api import (FakeMessagesAPI, error, message, overloaded, rate_limited, slow, text,
                                tool_block, tool_use)


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def api():
    with FakeMessagesAPI() as server:
        yield server


HEADER = 'meta = {"name": "anthropic-port-test", "description": "Anthropic port tests."}\nphase("Work")\n'


class Questions:
    def __init__(self, *answers):
        self.answers = list(answers)
        self.asked = []

    async def ask_owner(self, question_id, actor, question, context, *, posted=None):
        if posted is not None:
            posted()
        self.asked.append((actor.name, question, context))
        return self.answers.pop(0)


def make_port(api, workspace, **options):
    options.setdefault("base_delay_s", 0.01)
    return AnthropicAgentPort(model="claude-test", api_key="test-key", base_url=api.url, workspace=workspace, **options)


async def run(body, port, **options):
    events = []
    async with Engine() as engine:
        handle = engine.start(StartRequest(script=HEADER + body, agent_port=port, listeners=[events.append], **options))
        with anyio.fail_after(20):
            result = await handle.result
    return result, events


def tool_results(request_body):
    last = request_body["messages"][-1]
    assert last["role"] == "user"
    return [b for b in last["content"] if b.get("type") == "tool_result"]


# ---------------------------------------------------------------- construction


def test_missing_api_key_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(AnthropicPortError, match="ANTHROPIC_API_KEY"):
        AnthropicAgentPort(workspace=tmp_path)


def test_environment_key_and_base_url_are_honoured(monkeypatch, tmp_path):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "env-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    port = AnthropicAgentPort(workspace=tmp_path)
    assert port.client.api_key == "env-key" and "127.0.0.1:9" in str(port.client.base_url)
    assert port.client.max_retries == 0


def test_non_object_schemas_are_wrapped():
    assert submit_schema({"type": "object", "properties": {}}) == ({"type": "object", "properties": {}}, False)
    wrapped, is_wrapped = submit_schema({"type": "array", "items": {"type": "string"}})
    assert is_wrapped and wrapped["required"] == ["value"] and wrapped["properties"]["value"]["type"] == "array"


# ---------------------------------------------------------------- asks through the engine


@pytest.mark.anyio
async def test_untyped_ask_returns_text_and_keeps_one_conversation_per_actor(api, tmp_path):
    api.queue(text("hello there"), text("second answer"))
    port = make_port(api, tmp_path)
    body = ('a = agent("a", system="You are terse.")\n'
            'x = await a.ask("say hi")\ny = await a.ask("again")\nreturn [x, y]\n')
    result, _ = await run(body, port)
    assert result.status == "completed", result.error
    assert result.value == ["hello there", "second answer"]
    first, second = api.requests
    assert first["model"] == "claude-test"
    assert first["system"].startswith("You are terse.") and CONTRACT in first["system"]
    assert "submit_result" not in [t["name"] for t in first["tools"]]
    assert {"escalate", "read_file", "write_file", "edit_file"} <= {t["name"] for t in first["tools"]}
    assert "run_command" not in {t["name"] for t in first["tools"]}  # default tool set: write
    assert [m["role"] for m in second["messages"]] == ["user", "assistant", "user"]
    assert second["messages"][1]["content"][0]["text"] == "hello there"
    sent = api.headers[0]
    assert sent.get("x-api-key") == "test-key" or sent.get("authorization") == "Bearer test-key"


@pytest.mark.anyio
async def test_actor_model_overrides_the_port_default(api, tmp_path):
    api.queue(text("ok"))
    result, _ = await run('return await agent("a", model="claude-other").ask("hi")\n', make_port(api, tmp_path))
    assert result.value == "ok" and api.requests[0]["model"] == "claude-other"


TYPED = '''
from typing import TypedDict
class Item(TypedDict):
    name: str
    count: int
return await agent("a").ask("give an item", returns=Item)
'''


@pytest.mark.anyio
async def test_typed_ask_repairs_an_invalid_submission(api, tmp_path):
    api.queue(tool_use("submit_result", {"name": "x", "count": "three"}, tool_id="toolu_bad"),
              tool_use("submit_result", {"name": "x", "count": 3}, tool_id="toolu_good"),
              text("Submitted."))
    result, events = await run(TYPED, make_port(api, tmp_path))
    assert result.status == "completed", result.error
    assert result.value == {"name": "x", "count": 3}
    submit = [t for t in api.requests[0]["tools"] if t["name"] == "submit_result"][0]
    assert submit["input_schema"]["properties"]["count"]["type"] == "integer"
    rejected = tool_results(api.requests[1])
    assert rejected[0]["tool_use_id"] == "toolu_bad" and rejected[0]["is_error"] is True
    assert "$.count" in rejected[0]["content"]
    accepted = tool_results(api.requests[2])
    assert accepted[0]["tool_use_id"] == "toolu_good" and accepted[0]["content"] == "accepted"
    assert any(e["type"] == "node-progress" and "repairing" in e.get("message", "") for e in events)


@pytest.mark.anyio
async def test_typed_ask_with_a_non_object_schema_unwraps_value_and_is_nudged(api, tmp_path):
    api.queue(text("I forgot to submit."),  # the engine nudges once
              tool_use("submit_result", {"value": ["a", "b"]}), text("done"))
    body = 'return await agent("a").ask("list", returns=list[str])\n'
    result, _ = await run(body, make_port(api, tmp_path))
    assert result.status == "completed", result.error
    assert result.value == ["a", "b"]
    nudge = api.requests[1]["messages"][-1]["content"][-1]["text"]
    assert "submit_result" in nudge


@pytest.mark.anyio
async def test_final_rejection_stops_the_loop(api, tmp_path):
    api.queue(*[tool_use("submit_result", {"name": 1, "count": 1}) for _ in range(4)])
    body = TYPED.replace('return await agent("a").ask("give an item", returns=Item)',
                         'try:\n    return await agent("a").ask("give", returns=Item)\n'
                         'except AskFailed as e:\n    return str(e)')
    result, _ = await run(body, make_port(api, tmp_path))
    assert "did not match its schema" in result.value
    assert len(api.requests) == 4  # no call after the final rejection


@pytest.mark.anyio
async def test_escalate_round_trip(api, tmp_path):
    api.queue(tool_use("escalate", {"question": "Which colour?", "context": "painting"}), text("Blue it is."))
    questions = Questions("blue")
    result, events = await run('return await agent("painter").ask("paint")\n', make_port(api, tmp_path),
                               questions=questions)
    assert result.value == "Blue it is."
    assert questions.asked == [("painter", "Which colour?", "painting")]
    assert tool_results(api.requests[1])[0]["content"] == "blue"
    assert [e["type"] for e in events if e["type"].startswith("escalation")] == ["escalation-raised", "escalation-resolved"]


@pytest.mark.anyio
async def test_429_is_retried_after_retry_after(api, tmp_path):
    api.queue(rate_limited(retry_after=0.4), text("finally"))
    result, events = await run('return await agent("a").ask("hi")\n', make_port(api, tmp_path))
    assert result.value == "finally"
    gap = api.arrivals[1] - api.arrivals[0]
    assert 0.35 <= gap < 2.0
    waits = [e for e in events if e["type"] == "node-progress" and e["message"] == "waiting"]
    assert len(waits) == 1 and waits[0]["seconds"] == pytest.approx(0.4) and "429" in waits[0]["reason"]


@pytest.mark.anyio
async def test_529_and_overloaded_are_retried_with_backoff(api, tmp_path):
    api.queue(overloaded(), error(500, "overloaded_error", "Overloaded"), text("recovered"))
    result, events = await run('return await agent("a").ask("hi")\n', make_port(api, tmp_path))
    assert result.value == "recovered" and len(api.requests) == 3
    assert len([e for e in events if e.get("message") == "waiting"]) == 2


@pytest.mark.anyio
async def test_retries_are_bounded(api, tmp_path):
    api.queue(*[overloaded() for _ in range(3)])
    body = 'try:\n    return await agent("a").ask("hi")\nexcept AskFailed as e:\n    return str(e)\n'
    result, _ = await run(body, make_port(api, tmp_path, max_retries=2))
    assert "after 3 attempts" in result.value and "Overloaded" in result.value
    assert len(api.requests) == 3


@pytest.mark.anyio
async def test_500_fails_the_ask_with_the_api_message(api, tmp_path):
    api.queue(error(500, "api_error", "Something broke inside"))
    body = 'try:\n    return await agent("a").ask("hi")\nexcept AskFailed as e:\n    return str(e)\n'
    result, _ = await run(body, make_port(api, tmp_path))
    assert result.status == "completed"
    assert "Something broke inside" in result.value and "500" in result.value
    assert len(api.requests) == 1


@pytest.mark.anyio
async def test_connection_errors_are_retried_then_fail(tmp_path):
    with FakeMessagesAPI() as dead:
        url = dead.url  # closed on exit: nothing listens there any more
    port = AnthropicAgentPort(model="m", api_key="k", base_url=url, workspace=tmp_path, max_retries=1, base_delay_s=0.01)
    body = 'try:\n    return await agent("a").ask("hi")\nexcept AskFailed as e:\n    return str(e)\n'
    result, events = await run(body, port)
    assert "connection error" in result.value.lower()
    assert len([e for e in events if e.get("message") == "waiting"]) == 1


@pytest.mark.anyio
async def test_cancellation_aborts_the_request_in_flight(api, tmp_path):
    api.queue(slow(text("too late"), 15))
    port = make_port(api, tmp_path)
    async with Engine() as engine:
        handle = engine.start(StartRequest(script=HEADER + 'return await agent("a").ask("hi")\n', agent_port=port))
        while not api.requests:
            await anyio.sleep(0.02)
        started = time.monotonic()
        handle.cancel("user")
        with anyio.fail_after(5):
            result = await handle.result
        elapsed = time.monotonic() - started
    assert (result.status, result.stop_reason) == ("stopped", "user")
    assert elapsed < 2.0
    assert await anyio.to_thread.run_sync(api.aborted.wait, 3)  # the server saw the connection close


@pytest.mark.anyio
async def test_usage_is_summed_into_the_run_result(api, tmp_path):
    api.queue(tool_use("list_files", {}, input_tokens=100, output_tokens=20, cache_read=7, cache_write=3),
              text("two calls", input_tokens=150, output_tokens=30, cache_read=1),
              text("third", input_tokens=5, output_tokens=1))
    body = 'x = await agent("a").ask("one")\ny = await agent("b").ask("two")\nreturn [x, y]\n'
    result, events = await run(body, make_port(api, tmp_path))
    assert result.value == ["two calls", "third"]
    assert result.usage == {"input_tokens": 255, "output_tokens": 51, "cache_read_tokens": 8, "cache_write_tokens": 3}
    assert len([e for e in events if e["type"] == "usage-updated"]) == 3


@pytest.mark.anyio
async def test_workspace_tools_through_the_model(api, tmp_path):
    (tmp_path / "notes.txt").write_text("alpha\nbeta\n")
    api.queue(message(tool_block("read_file", {"path": "notes.txt"}, "t1"),
                      tool_block("write_file", {"path": "out/new.txt", "content": "hi"}, "t2"),
                      tool_block("read_file", {"path": "../escape"}, "t3")),
              text("done"))
    result, events = await run('return await agent("a").ask("work")\n', make_port(api, tmp_path))
    assert result.value == "done"
    r1, r2, r3 = tool_results(api.requests[1])
    assert r1["content"] == "alpha\nbeta\n" and not r1.get("is_error")
    assert "created out/new.txt" in r2["content"]
    assert r3["is_error"] is True and "leaves the workspace" in r3["content"]
    assert (tmp_path / "out" / "new.txt").read_text() == "hi"
    assert any(e.get("touched_world") for e in events)
    assert [e["tool"] for e in events if e.get("message") == "tool"] == ["read_file", "write_file", "read_file"]


@pytest.mark.anyio
async def test_read_only_tool_set_offers_no_write_tools(api, tmp_path):
    api.queue(tool_use("write_file", {"path": "x", "content": "y"}), text("ok"))
    result, _ = await run('return await agent("a").ask("w")\n', make_port(api, tmp_path, actor_tools="read"))
    assert result.value == "ok"
    assert {t["name"] for t in api.requests[0]["tools"]} == {"escalate", "read_file", "list_files", "grep"}
    assert tool_results(api.requests[1])[0]["is_error"] is True and not (tmp_path / "x").exists()


# ---------------------------------------------------------------- actor tools directly


class Channel:
    def __init__(self):
        self.progress_calls, self.touched = [], 0

    def progress(self, message, **info):
        self.progress_calls.append((message, info))

    def touched_world(self):
        self.touched += 1

    def usage(self, usage: Usage):
        pass


@pytest.fixture
def workspace(tmp_path):
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("def f():\n    return 1\n\ndef g():\n    return 1\n")
    (root / "README.md").write_text("hello world\n")
    outside = tmp_path / "secret.txt"
    outside.write_text("top secret\n")
    os.symlink(outside, root / "link.txt")
    os.symlink(tmp_path, root / "linkdir")
    return root


@pytest.mark.anyio
async def test_actor_tools_read_list_grep(workspace):
    tools, channel = ActorTools(workspace, "read"), Channel()
    assert (await tools.call("read_file", {"path": "README.md"}, channel)).text == "hello world\n"
    part = await tools.call("read_file", {"path": "src/a.py", "offset": 2, "limit": 1}, channel)
    assert part.text == "    return 1\n"
    listing = await tools.call("list_files", {"pattern": "**/*.py"}, channel)
    assert listing.text == "src/a.py"
    everything = (await tools.call("list_files", {}, channel)).text.splitlines()
    assert "link.txt" not in everything and not any(p.startswith("linkdir") for p in everything)
    grep = await tools.call("grep", {"pattern": r"def \w"}, channel)
    assert grep.text.splitlines() == ["src/a.py:1: def f():", "src/a.py:4: def g():"]
    assert channel.touched == 0 and [m for m, _ in channel.progress_calls] == ["tool"] * 5


@pytest.mark.anyio
async def test_actor_tools_refuse_escapes(workspace):
    tools, channel = ActorTools(workspace, "exec"), Channel()
    for name, arguments in [("read_file", {"path": "link.txt"}), ("read_file", {"path": "/etc/passwd"}),
                            ("read_file", {"path": "linkdir/secret.txt"}), ("read_file", {"path": ".git/config"}),
                            ("write_file", {"path": "link.txt", "content": "pwned"}),
                            ("write_file", {"path": "linkdir/secret.txt", "content": "pwned"}),
                            ("write_file", {"path": "linkdir/new.txt", "content": "pwned"}),
                            ("edit_file", {"path": "link.txt", "old_string": "top", "new_string": "x"}),
                            ("list_files", {"pattern": "../*"})]:
        outcome = await tools.call(name, arguments, channel)
        assert outcome.is_error, (name, arguments, outcome.text)
    assert (workspace.parent / "secret.txt").read_text() == "top secret\n"
    assert not (workspace.parent / "new.txt").exists()


@pytest.mark.anyio
async def test_actor_tools_write_and_edit(workspace):
    tools, channel = ActorTools(workspace, "write"), Channel()
    assert not (await tools.call("write_file", {"path": "deep/dir/f.txt", "content": "one two"}, channel)).is_error
    assert (workspace / "deep/dir/f.txt").read_text() == "one two"
    ok = await tools.call("edit_file", {"path": "deep/dir/f.txt", "old_string": "two", "new_string": "2"}, channel)
    assert not ok.is_error and (workspace / "deep/dir/f.txt").read_text() == "one 2"
    twice = await tools.call("edit_file", {"path": "src/a.py", "old_string": "return 1", "new_string": "x"}, channel)
    assert twice.is_error and "2 times" in twice.text
    missing = await tools.call("edit_file", {"path": "src/a.py", "old_string": "nope", "new_string": "x"}, channel)
    assert missing.is_error and "does not occur" in missing.text
    bad = await tools.call("write_file", {"path": "x"}, channel)
    assert bad.is_error and "bad arguments" in bad.text
    assert channel.touched == 5
    assert (await tools.call("run_command", {"argv": ["true"]}, channel)).is_error  # not in the write set


@pytest.mark.anyio
async def test_actor_tools_run_command(workspace, monkeypatch):
    # An actor starts only the run's approved programs, its argv checked with nothing trusted
    # (no computed `-c`), inside the sandbox: so the probes are workspace scripts.
    monkeypatch.setenv("MY_SECRET_TOKEN", "hunter2")
    tools, channel = ActorTools(workspace, "exec", run_timeout_s=5), Channel()
    programs = frozenset({sys.executable, "/no/such/program"})
    (workspace / "probe.py").write_text("import os, sys; print(sorted(os.listdir('.'))); "
                                        "print('TOKEN' in str(os.environ)); sys.exit(3)\n")
    (workspace / "slow.py").write_text("import time; time.sleep(30)\n")
    (workspace / "loud.py").write_text("print('x' * 5000)\n")
    done = await tools.call("run_command", {"argv": [sys.executable, "probe.py"]}, channel, programs=programs)
    assert not done.is_error
    assert "exit code: 3" in done.text and "'README.md'" in done.text and "False" in done.text
    assert channel.touched == 1
    started = time.monotonic()
    slow_run = await tools.call("run_command", {"argv": [sys.executable, "slow.py"], "timeout_s": 0.5}, channel,
                                programs=programs)
    assert slow_run.is_error and "timed out" in slow_run.text and time.monotonic() - started < 5
    missing = await tools.call("run_command", {"argv": ["/no/such/program"]}, channel, programs=programs)
    assert missing.is_error and "cannot start" in missing.text
    code = await tools.call("run_command", {"argv": [sys.executable, "-c", "print(1)"]}, channel, programs=programs)
    assert code.is_error and "the option `-c`" in code.text
    shell = await tools.call("run_command", {"argv": ["sh", "-c", "echo escaped"]}, channel, programs=programs)
    assert shell.is_error and "not a program this run approved" in shell.text
    noisy = ActorTools(workspace, "exec", output_cap=100)
    big = await noisy.call("run_command", {"argv": [sys.executable, "loud.py"]}, None, programs=programs)
    assert "truncated" in big.text and len(big.text) < 400


# ---------------------------------------------------------------- strict submit_result


def test_strict_submit_tool_when_the_schema_fits_the_subset():
    from dwf.runtime.ports.anthropic import submit_tool

    schema = {"type": "object", "additionalProperties": False, "required": ["name", "tags", "kind"],
              "properties": {"name": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}},
                             "kind": {"enum": ["a", "b"]}}}
    tool, wrapped = submit_tool(schema)
    assert tool["strict"] is True and not wrapped and tool["input_schema"] == schema
    tool, wrapped = submit_tool({"type": "array", "items": {"type": "integer"}})
    assert tool["strict"] is True and wrapped and tool["input_schema"]["additionalProperties"] is False


def test_unsupported_constraints_are_folded_into_the_description():
    from dwf.runtime.ports.anthropic import submit_tool

    schema = {"type": "object", "additionalProperties": False, "required": ["title", "items", "score"],
              "properties": {"title": {"type": "string", "minLength": 3, "pattern": "^[A-Z]"},
                             "items": {"type": "array", "items": {"type": "string"}, "minItems": 2},
                             "score": {"type": "number", "maximum": 10}}}
    tool, _ = submit_tool(schema)
    assert "strict" not in tool and tool["input_schema"] == schema
    for line in ("- $.title: minLength 3", '- $.title: pattern "^[A-Z]"', "- $.items: minItems 2",
                 "- $.score: maximum 10"):
        assert line in tool["description"]
    optional = {"type": "object", "properties": {"a": {"type": "string"}}}  # not closed, optional property
    tool, _ = submit_tool(optional)
    assert "strict" not in tool and "constraints" not in tool["description"]


@pytest.mark.anyio
async def test_typed_ask_sends_the_strict_flag_over_the_wire(api, tmp_path):
    api.queue(tool_use("submit_result", {"name": "x", "count": 3}), text("Submitted."))
    result, _ = await run(TYPED, make_port(api, tmp_path))
    assert result.value == {"name": "x", "count": 3}
    submit = next(t for t in api.requests[0]["tools"] if t["name"] == "submit_result")
    assert submit.get("strict") is True


@pytest.mark.anyio
async def test_an_actor_runs_only_the_programs_the_run_approved(api, tmp_path):
    api.queue(message(tool_block("run_command", {"argv": ["sh", "-c", "touch escaped"]}, "t1"),
                      tool_block("run_command", {"argv": ["true"]}, "t2")),
              text("done"))
    body = ('answer = await agent("a").ask("work")\nif answer == "never":\n    await world.run("true")\n'
            'return answer\n')
    result, _ = await run(body, make_port(api, tmp_path, actor_tools="exec"))
    assert result.value == "done", result.error
    refused, ran = tool_results(api.requests[1])
    assert refused["is_error"] is True and "`sh` is not a program this run approved" in refused["content"]
    assert "`true`" in refused["content"] and not (tmp_path / "escaped").exists()
    assert not ran.get("is_error") and "exit code: 0" in ran["content"]


# ---------------------------------------------------------------- worktree isolation and per-actor tools (#16)


@pytest.mark.anyio
async def test_an_isolated_actor_edits_its_worktree_through_the_model(api, tmp_path):
    import subprocess

    from dwf.runtime.ports.world import LocalWorld

    env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": "/nonexistent", "GIT_CONFIG_NOSYSTEM": "1"}
    for argv in (["init", "-q", "-b", "main"], ["add", "."],
                 ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init"]):
        if argv[0] == "add":
            (tmp_path / "calc.py").write_text("def answer():\n    return 0\n")
            (tmp_path / ".gitignore").write_text(".dwf/\n")
        subprocess.run(["git", *argv], cwd=tmp_path, env=env, check=True, capture_output=True)
    api.queue(message(tool_block("edit_file", {"path": "calc.py", "old_string": "return 0",
                                               "new_string": "return 42"}, "t1"),
                      tool_block("write_file", {"path": "../../../../calc.py", "content": "pwned"}, "t2"),
                      tool_block("run_command", {"argv": ["true"]}, "t3")),
              text("fixed"))
    body = ('fixer = agent("fixer", isolation="worktree", tools=["Read", "Edit", "Write"])\n'
            'await fixer.ask("Make answer() return 42.")\n'
            'change = await git.worktree(fixer)\n'
            'return {"files": change.changed_files, "diff": change.diff, "branch": change.branch}\n')
    port = make_port(api, tmp_path, actor_tools="exec")
    result, events = await run(body, port, world=LocalWorld(tmp_path))
    assert result.status == "completed", result.error
    # the model was offered only the actor's narrowed tools
    assert {t["name"] for t in api.requests[0]["tools"]} == {"escalate", "read_file", "write_file", "edit_file"}
    edited, escaped, ran = tool_results(api.requests[1])
    assert not edited.get("is_error") and "edited calc.py" in edited["content"]
    assert escaped["is_error"] is True and "leaves the workspace" in escaped["content"]  # out of its worktree
    assert ran["is_error"] is True and "unknown tool `run_command`" in ran["content"]
    assert result.value["files"] == ["calc.py"] and "+    return 42" in result.value["diff"]
    assert (tmp_path / "calc.py").read_text() == "def answer():\n    return 0\n"  # the main tree is untouched
    shown = subprocess.run(["git", "show", f"{result.value['branch']}:calc.py"], cwd=tmp_path, env=env,
                           capture_output=True, text=True, check=True).stdout
    assert shown == "def answer():\n    return 42\n"
    assert [e["actor"] for e in events if e["type"] == "worktree-created"] == ["fixer"]
