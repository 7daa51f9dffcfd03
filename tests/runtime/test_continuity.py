"""Actor continuity across resumes (issue #14): replays write nothing new (ten resumes leave the
event count unchanged: the run keeps its one `run-started`, and its one `run-settled` moves to the
end; the resumes are counted on the run row), usage is durable with its
node (SIGKILL + resume spends and reports what an uninterrupted run does, the budget exceeded at
the same ask), and question ids carry the whole run id. Real SQLite files and real `dwfc`
processes."""

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

from dwf.runtime.engine import Engine, StartRequest
from dwf.runtime.journal.sqlite import SqliteJournal
from dwf.runtime.ports.scripted import ScriptedAgentPort, parse_fixture

DWFC = Path(sys.executable).parent / "dwfc"
LIFECYCLE = ("run-started", "run-settled")
META = 'meta = {"name": "t", "description": "A test."}\n'

SCRIPT = '''meta = {"name": "continuity", "description": "Phases, logs, actors, asks and a report.",
        "phases": [{"title": "Plan", "detail": "ask"}, {"title": "Work", "detail": "fan out"}]}
phase("Plan")
planner = agent("planner")
plan = await planner.ask("plan it")
log(f"planned: {plan}")
report({"plan": plan})
phase("Work")
workers = [agent(f"worker {i}") for i in range(3)]
done = await parallel([w.ask(f"do part {i}") for i, w in enumerate(workers)])
log("all parts done")
return {"plan": plan, "done": done, "again": await planner.ask("review")}
'''


def scripted() -> ScriptedAgentPort:
    return ScriptedAgentPort(parse_fixture({"rules": [], "default": {"result": "ok", "output_tokens": 5}}))


def settle(request: StartRequest):
    async def main():
        async with Engine() as engine:
            return await engine.start(request).result
    return anyio.run(main)


def test_ten_resumes_leave_the_log_as_the_run_wrote_it(tmp_path):
    with SqliteJournal(tmp_path / "state.db") as journal:
        first = settle(StartRequest(script=SCRIPT, agent_port=scripted(), journal=journal))
        assert first.status == "completed"
        original = journal.events(first.run_id)
        work = [e for e in original if e["type"] not in LIFECYCLE]
        assert {"phase-entered", "log", "actor-created", "node-settled", "report"} <= {e["type"] for e in work}
        for attempt in range(1, 11):
            journal.update_run(first.run_id, status="stopped", stop_reason="user")
            port = scripted()
            again = settle(StartRequest(script="", agent_port=port, journal=journal, run_id=first.run_id, resume=True))
            assert again.status == "completed" and again.value == first.value and port.calls == []
            assert again.usage == first.usage  # replays spend nothing and lose nothing
            events = journal.events(first.run_id)
            assert [e for e in events if e["type"] not in LIFECYCLE] == work  # shown once, as written
            assert len(events) == len(original)  # the event count is unchanged
            assert [e["type"] for e in events].count("run-started") == 1
            assert [e["type"] for e in events].count("run-settled") == 1 and events[-1]["type"] == "run-settled"
            assert events[-1]["seq"] == original[-1]["seq"] + attempt  # moved to a fresh number, never reused
            row = journal.get_run(first.run_id)
            assert row.resumes == attempt and row.resumed_at  # the resume is recorded on the run row
        assert len(journal.list_actors(first.run_id)) == 4


def test_dwfc_events_shows_a_resumed_runs_node_events_once(tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "flow.dwf.py").write_text(SCRIPT)
    fixture = tmp_path / "fixture.json"
    fixture.write_text(json.dumps({"rules": [], "default": {"result": "ok", "output_tokens": 5}}))

    def dwfc(*arguments: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(DWFC), *arguments, "--workspace", str(workspace)], capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=120, cwd=workspace)

    done = dwfc("run", "flow.dwf.py", "--yes", "--agent", f"scripted:{fixture}", "--progress", "json")
    assert done.returncode == 0, done.stderr
    run_id = json.loads(done.stdout)["run_id"]
    before = dwfc("events", run_id).stdout
    with SqliteJournal(workspace / ".dwf" / "state.db") as journal:
        journal.update_run(run_id, status="stopped", stop_reason="user")
    resumed = dwfc("resume", run_id, "--agent", f"scripted:{fixture}", "--progress", "json", "--yes")  # a person stopped it: approve again (#19)
    assert resumed.returncode == 0, resumed.stderr
    after = dwfc("events", run_id).stdout
    lines = lambda text: [line for line in text.splitlines() if "node-" in line]
    assert lines(after) == lines(before) and lines(before)
    assert len(after.splitlines()) == len(before.splitlines())  # no run-started or second run-settled added
    assert [json.loads(line)["type"] for line in after.splitlines()].count("run-settled") == 1


BUDGET_SCRIPT = '''meta = {"name": "spend", "description": "Asks one worker until the budget is spent."}
worker = agent("worker")
answers = []
for i in range(10):
    if budget.remaining() == 0:
        break
    answers.append(await worker.ask(f"step {i}"))
return {"answers": answers, "spent": budget.spent()}
'''


def budget_fixture(path: Path, slow_step: int | None) -> Path:
    rules = [{"instructions": f"step {slow_step}$", "result": "slow", "output_tokens": 10, "delay_s": 60}] if slow_step else []
    path.write_text(json.dumps({"rules": rules, "default": {"result": "done", "output_tokens": 10}}))
    return path


def run_budget(workspace: Path, fixture: Path) -> subprocess.Popen:
    return subprocess.Popen([str(DWFC), "run", "spend.dwf.py", "--yes", "--agent", f"scripted:{fixture}", "--budget", "25",
                             "--progress", "json", "--workspace", str(workspace)], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=workspace,
                            start_new_session=True)


def test_usage_is_durable_across_sigkill_and_resume(tmp_path):
    reference_ws, killed_ws = tmp_path / "reference", tmp_path / "killed"
    for folder in (reference_ws, killed_ws):
        folder.mkdir()
        (folder / "spend.dwf.py").write_text(BUDGET_SCRIPT)
    fast = budget_fixture(tmp_path / "fast.json", None)
    reference = run_budget(reference_ws, fast)
    out, err = reference.communicate(timeout=120)
    assert reference.returncode == 0, err
    straight = json.loads(out)
    assert straight["value"] == {"answers": ["done"] * 3, "spent": 30}  # 0, 10, 20 < 25: the third ask exceeds it

    process = run_budget(killed_ws, budget_fixture(tmp_path / "slow.json", 2))
    database = killed_ws / ".dwf" / "state.db"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # the third ask is in flight: two settled, 20 tokens spent
            if database.exists():
                with SqliteJournal(database) as journal:
                    runs = journal.list_runs()
                    nodes = journal.list_nodes(runs[0].id) if runs else []
                if [n.status for n in nodes] == ["completed", "completed", "running"]:
                    break
            time.sleep(0.05)
        else:
            pytest.fail("the killed run never reached its third ask")
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
    with SqliteJournal(database) as journal:
        run_id = journal.list_runs()[0].id
        assert journal.get_run(run_id).usage == {}  # the run row never learned: the nodes hold it
        assert sum(n.usage.get("output_tokens", 0) for n in journal.list_nodes(run_id)) == 20
    shown = subprocess.run([str(DWFC), "show", run_id, "--json", "--workspace", str(killed_ws)], capture_output=True,
                           text=True, stdin=subprocess.DEVNULL, timeout=60, cwd=killed_ws)
    assert json.loads(shown.stdout)["usage"]["output_tokens"] == 20  # reconciled: what its nodes spent
    resumed = subprocess.run([str(DWFC), "resume", run_id, "--agent", f"scripted:{fast}", "--progress", "json",
                              "--workspace", str(killed_ws)], capture_output=True, text=True,
                             stdin=subprocess.DEVNULL, timeout=120, cwd=killed_ws)
    assert resumed.returncode == 0, resumed.stderr
    outcome = json.loads(resumed.stdout)
    assert outcome["value"] == straight["value"]  # the budget ran out at the same ask, spent 30
    assert outcome["usage"] == straight["usage"]
    with SqliteJournal(database) as journal:
        assert journal.get_run(run_id).usage["output_tokens"] == straight["usage"]["output_tokens"] == 30


def test_the_usage_of_an_ask_still_running_is_committed_with_its_node(tmp_path):
    class TwoCalls:
        """Reports usage for a first model call, then waits (the process dies here)."""

        def __init__(self):
            self.reported = anyio.Event()

        async def close(self):
            return None

        async def run_turn(self, request, message, channel):
            from dwf.runtime.ports.protocols import Usage
            channel.usage(Usage(input_tokens=7, output_tokens=3))
            self.reported.set()
            await anyio.sleep(60)
            return "late"

    port = TwoCalls()
    with SqliteJournal(tmp_path / "state.db") as journal:
        async def main():
            async with Engine() as engine:
                run = engine.start(StartRequest(script=META + 'return await agent("a").ask("x")', agent_port=port,
                                                journal=journal, grace_period_s=1))
                await port.reported.wait()
                await anyio.sleep(0.05)  # the tick's group commit
                with SqliteJournal(tmp_path / "state.db") as reader:  # another connection sees it
                    node = reader.list_nodes(run.id)[0]
                run.cancel("user")
                await run.result
                return run.id, node

        run_id, node = anyio.run(main)
        assert node.status == "running" and node.usage["output_tokens"] == 3
        resumed = settle(StartRequest(script="", agent_port=scripted(), journal=journal, run_id=run_id, resume=True))
        # what the interrupted attempt spent is kept with the node it re-dispatched
        assert resumed.usage["output_tokens"] == 3 + 5 and resumed.usage["input_tokens"] == 7
        assert journal.list_nodes(run_id)[0].usage["output_tokens"] == 8


def test_question_ids_carry_the_whole_run_id_and_the_ask(tmp_path):
    script = (META + 'a = agent("a")\n'
              'return await parallel([a.ask("x"), agent("b").ask("y")])\n')
    asked: list[str] = []

    class Owner:
        async def ask_owner(self, question_id, actor, question, context, *, posted=None):
            asked.append(question_id)
            if posted is not None:
                posted()
            return "yes"

    fixture = {"rules": [], "default": {"escalate": "May I?"}}
    with SqliteJournal(tmp_path / "state.db") as journal:
        result = settle(StartRequest(script=script, agent_port=ScriptedAgentPort(parse_fixture(fixture)),
                                     journal=journal, questions=Owner()))
    assert result.status == "completed", result.error
    hex_id = result.run_id.removeprefix("dwfrun-")
    assert len(asked) == 2 and len(set(asked)) == 2
    for question_id in asked:
        prefix, run_part, ask_part, number = question_id.split("-")
        assert (prefix, run_part, number) == ("dwfq", hex_id, "1") and len(ask_part) == 16


FIXTURES = Path(__file__).parents[1] / "fixtures" / "journals"


def test_a_version_3_journal_migrates_forward_and_resumes_without_a_pin(tmp_path):
    import shutil
    import sqlite3

    path = tmp_path / ".dwf" / "state.db"
    path.parent.mkdir()
    shutil.copyfile(FIXTURES / "loops_stopped.db", path)  # never touch the committed file
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT MAX(version) FROM dwf_schema_version").fetchone()[0] == 3
    with SqliteJournal(path) as journal:
        assert journal.schema_version() == 6
        (row,) = journal.list_runs()
        assert row.resumes == 0 and row.resumed_at is None  # version 5's columns, defaulted
        assert row.agent == {} and all(a["effective_model"] is None for a in journal.list_actors(row.id))
        usage_before = sum(n.usage.get("output_tokens", 0) for n in journal.list_nodes(row.id))
    with sqlite3.connect(path) as raw:
        assert [v for (v,) in raw.execute("SELECT version FROM dwf_schema_version ORDER BY version")] == [1, 2, 3, 4, 5, 6]
        assert "last_sequence" in {c[1] for c in raw.execute("PRAGMA table_info(dwf_event)")}  # version 6
        assert {"message", "message_blob", "occurrence_key"} <= {c[1] for c in raw.execute("PRAGMA table_info(dwf_message)")}
        assert {"agent", "resumes", "resumed_at"} <= {c[1] for c in raw.execute("PRAGMA table_info(dwf_run)")}
    # `dwfc resume` of a run journaled before pins: it cannot guess the agent port
    refused = subprocess.run([str(DWFC), "resume", row.id, "--workspace", str(tmp_path)], capture_output=True,
                             text=True, stdin=subprocess.DEVNULL, timeout=60, cwd=tmp_path)
    assert refused.returncode == 2 and "pass --agent" in refused.stderr
    pin = {"spec": "scripted:x.json", "kind": "scripted", "model": None, "actor_tools": None}
    with SqliteJournal(path) as journal:  # nothing pinned: the resume's agent is recorded, not refused
        script_port = ScriptedAgentPort(parse_fixture({"rules": [], "default": {"result": "ok", "output_tokens": 1}}))
        result = settle(StartRequest(script="", agent_port=script_port, journal=journal, run_id=row.id, resume=True,
                                     agent_pin=pin))
        assert result.status == "completed", result.error
        assert journal.get_run(row.id).agent == pin
        assert result.usage["output_tokens"] == usage_before + len(script_port.calls)  # the old nodes' usage counts


def test_a_large_message_is_content_addressed_and_an_unsettled_asks_messages_are_dropped(tmp_path):
    import sqlite3

    from dwf.runtime.journal.store import NodeRow, RunRow

    path = tmp_path / "state.db"
    big = {"role": "user", "content": [{"type": "text", "text": "x" * 10_000}]}
    with SqliteJournal(path) as journal:
        journal.create_run(RunRow("dwfrun-m", "s", "h", "i", "0", {}, {}, {}))
        for key, status in (("ask#1", "completed"), ("ask#2", "running")):
            journal.put_node(NodeRow("dwfrun-m", "ask#1", key, "ask", "a", "d", {}, status))
        journal.append_message("dwfrun-m", "actor#1", "ask#1", "ask#1", big)
        journal.append_message("dwfrun-m", "actor#1", "ask#1", "ask#1", {"role": "assistant", "content": []})
        journal.append_message("dwfrun-m", "actor#1", "ask#1", "ask#2", {"role": "user", "content": []})
        assert journal.actor_messages("dwfrun-m", "actor#1") == [big, {"role": "assistant", "content": []}]
        journal.drop_unsettled_messages("dwfrun-m")
        assert journal.ask_messages("dwfrun-m", "ask#1", "ask#2") == []
        assert journal.ask_messages("dwfrun-m", "ask#1", "ask#1")[0] == big
    with sqlite3.connect(path) as raw:
        (text, blob), = raw.execute("SELECT message, message_blob FROM dwf_message WHERE sequence = 1").fetchall()
        assert text is None and raw.execute("SELECT length(data) FROM dwf_blob WHERE sha256 = ?", (blob,)).fetchone()[0] > 10_000
