"""Actor sessions are journaled and pinned (issue #14, acceptance 1 and 3), through real `dwfc`
processes, the real `anthropic` SDK and the fake Messages API: after a SIGKILL and a resume
(without `--agent`), the first new request of an actor carries the history of its earlier asks,
equal to what the uninterrupted run sent; an amended run's imported asks rehydrate the same way;
a resume is refused on another model or a wider actor tool set unless `--yes` approves the
change it shows; the actor's effective model and session are journaled."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

from fake_messages_api import FakeMessagesAPI, slow, text, tool_use
from dwf.runtime.engine import Engine, StartError, StartRequest
from dwf.runtime.journal.sqlite import SqliteJournal
from dwf.runtime.ports.scripted import ScriptedAgentPort, parse_fixture

DWFC = Path(sys.executable).parent / "dwfc"

SCRIPT = '''meta = {"name": "notes", "description": "One actor, three asks, the second typed."}
from typing import TypedDict
class Count(TypedDict):
    words: int
writer = agent("writer", system="You keep notes.")
summary = await writer.ask("read notes.txt and summarise it")
count = await writer.ask("count its words", returns=Count)
return [summary, count, await writer.ask("@THIRD@")]
'''
THIRD = "now conclude"


def first_two_asks():
    """The replies of the first two asks: a tool call and its answer, a typed submit and its note."""
    return [tool_use("read_file", {"path": "notes.txt"}, tool_id="toolu_read"), text("Three words about cats."),
            tool_use("submit_result", {"words": 3}, tool_id="toolu_submit"), text("Submitted.")]


def workspace(folder: Path, third: str = THIRD) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "notes.txt").write_text("cats are nice\n")
    (folder / "notes.dwf.py").write_text(SCRIPT.replace("@THIRD@", third))
    return folder


def environment(api: FakeMessagesAPI) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DWF_", "ANTHROPIC_"))}
    return {**env, "ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": api.url}


def dwfc(api: FakeMessagesAPI, folder: Path, *arguments: str, wait: bool = True):
    command = [str(DWFC), *arguments, "--progress", "json", "--workspace", str(folder)]
    if not wait:
        return subprocess.Popen(command, env=environment(api), cwd=folder, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    return subprocess.run(command, env=environment(api), cwd=folder, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=120)


START = ("run", "notes.dwf.py", "--yes", "--agent", "anthropic", "--model", "claude-a", "--actor-tools", "read")


def uninterrupted(tmp_path: Path) -> tuple[list[dict], str, Path]:
    """The reference run: its request bodies, run id and workspace."""
    folder = workspace(tmp_path / "reference")
    with FakeMessagesAPI() as api:
        api.queue(*first_two_asks(), text("The conclusion."))
        done = dwfc(api, folder, *START)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["value"] == ["Three words about cats.", {"words": 3}, "The conclusion."]
        return api.requests, json.loads(done.stdout)["run_id"], folder


def killed_in_third_ask(api: FakeMessagesAPI, tmp_path: Path) -> tuple[str, Path]:
    """A run SIGKILLed while its third ask's request is in flight: its id and workspace."""
    folder = workspace(tmp_path / "killed")
    api.queue(*first_two_asks(), slow(text("never delivered"), 60))
    process = dwfc(api, folder, *START, wait=False)
    try:
        deadline = time.monotonic() + 60
        while len(api.requests) < 5 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(api.requests) == 5, "the third ask was never sent"
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
    with SqliteJournal(folder / ".dwf" / "state.db") as journal:
        return journal.list_runs()[0].id, folder


def test_a_resumed_actor_sends_the_history_an_uninterrupted_run_sends(tmp_path):
    reference, _, _ = uninterrupted(tmp_path)
    with FakeMessagesAPI() as api:
        run_id, folder = killed_in_third_ask(api, tmp_path)
        with SqliteJournal(folder / ".dwf" / "state.db") as journal:
            actor = journal.list_actors(run_id)[0]
            assert actor["effective_model"] == "claude-a" and actor["session_id"].startswith("anthropic-")
            assert journal.get_run(run_id).agent == {"spec": "anthropic", "kind": "anthropic", "model": "claude-a",
                                                     "actor_tools": "read"}
        api.queue(text("The conclusion."))
        resumed = dwfc(api, folder, "resume", run_id)  # no --agent: the pinned port, model and tools
        assert resumed.returncode == 0, resumed.stderr
        assert json.loads(resumed.stdout)["value"] == ["Three words about cats.", {"words": 3}, "The conclusion."]
        first_new = api.requests[5]
    # the tool call and its result, the typed submit and its verdict: all of it, as sent before
    assert [m["role"] for m in first_new["messages"]] == ["user", "assistant", "user", "assistant", "user",
                                                          "assistant", "user", "assistant", "user"]
    assert json.dumps(first_new, sort_keys=True) == json.dumps(reference[4], sort_keys=True)
    with SqliteJournal(folder / ".dwf" / "state.db") as journal:  # the resumed ask's own messages, once
        assert len(journal.actor_messages(run_id, "actor#1")) == 10


def test_an_amended_run_rehydrates_its_imported_asks(tmp_path):
    reference, run_id, folder = uninterrupted(tmp_path)
    (folder / "edited.dwf.py").write_text(SCRIPT.replace("@THIRD@", "now conclude in one line"))
    with FakeMessagesAPI() as api:
        api.queue(text("Cats."))
        amended = dwfc(api, folder, "amend", run_id, "edited.dwf.py", "--yes", "--agent", "anthropic",
                       "--model", "claude-a", "--actor-tools", "read")
        assert amended.returncode == 0, amended.stderr
        assert json.loads(amended.stdout)["value"] == ["Three words about cats.", {"words": 3}, "Cats."]
        assert len(api.requests) == 1  # the first two asks were imported
        request = api.requests[0]
    assert request["messages"][:-1] == reference[4]["messages"][:-1]
    assert request["messages"][-1]["content"][0]["text"].startswith("now conclude in one line\n\n---\n")
    assert request["system"] == reference[4]["system"]


def test_a_resume_refuses_another_model_or_wider_tools_unless_approved(tmp_path):
    with FakeMessagesAPI() as api:
        run_id, folder = killed_in_third_ask(api, tmp_path)
        (folder / "other.json").write_text(json.dumps({"rules": [], "default": {"result": "ok"}}))
        for change, shown in ((("--actor-tools", "exec"), "actor tools: read -> exec (wider)"),
                              (("--model", "claude-b"), "model: claude-a -> claude-b"),
                              (("--agent", "scripted:other.json"), f"agent: anthropic -> scripted:{folder / 'other.json'}")):
            refused = dwfc(api, folder, "resume", run_id, *change)
            assert refused.returncode == 2, refused.stderr
            assert shown in refused.stderr and "--yes" in refused.stderr
        with SqliteJournal(folder / ".dwf" / "state.db") as journal:
            assert journal.get_run(run_id).status == "stopped" and len(api.requests) == 5  # nothing ran
        api.queue(text("The conclusion."))
        approved = dwfc(api, folder, "resume", run_id, "--model", "claude-b", "--yes")
        assert approved.returncode == 0, approved.stderr
        assert "model: claude-a -> claude-b" in approved.stderr
        assert api.requests[5]["model"] == "claude-b"  # the approved change, for the actor's asks too
        with SqliteJournal(folder / ".dwf" / "state.db") as journal:
            assert journal.get_run(run_id).agent["model"] == "claude-b"
            assert journal.list_actors(run_id)[0]["effective_model"] == "claude-b"


def test_resume_yes_is_a_no_op_when_nothing_changes_and_narrower_tools_need_none(tmp_path):
    with FakeMessagesAPI() as api:
        run_id, folder = killed_in_third_ask(api, tmp_path)
        api.queue(text("The conclusion."))
        resumed = dwfc(api, folder, "resume", run_id, "--yes", "--model", "claude-a")
        assert resumed.returncode == 0, resumed.stderr
        assert "changes what was approved" not in resumed.stderr


def test_the_engine_refuses_a_changed_agent_for_every_host(tmp_path):
    """The check is the engine's, so the tool layer's ResumeWorkflowRun is held to it too."""
    port = lambda: ScriptedAgentPort(parse_fixture({"rules": [], "default": {"result": "ok", "delay_s": 30}}))
    pin = {"spec": "anthropic", "kind": "anthropic", "model": "claude-a", "actor_tools": "read"}
    script = 'meta = {"name": "t", "description": "A test."}\nreturn await agent("a").ask("x")\n'
    with SqliteJournal(tmp_path / "state.db") as journal:
        async def stopped() -> str:
            async with Engine() as engine:
                run = engine.start(StartRequest(script=script, agent_port=port(), journal=journal, agent_pin=pin,
                                                grace_period_s=1))
                await anyio.sleep(0.2)
                run.cancel("user")
                return (await run.result).run_id

        run_id = anyio.run(stopped)
        wider = {**pin, "actor_tools": "exec"}
        with pytest.raises(StartError, match="actor tools: read -> exec"):
            anyio.run(lambda: _start(StartRequest(script="", agent_port=port(), journal=journal, run_id=run_id,
                                                  resume=True, agent_pin=wider)))
        assert journal.get_run(run_id).status == "stopped"


async def _start(request: StartRequest):
    async with Engine() as engine:
        engine.start(request)
