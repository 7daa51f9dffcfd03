"""Resume (RUNTIME §5.1) through the engine: a stopped run continues under the same id, finished
asks replay from the journal without calling the port, asks left `running` are dispatched
again, reports are not re-emitted, usage continues; and the refusals (edited script, finished,
errored, superseded, running, unknown, newer dwf), run lookup by prefix, and reconciliation of
runs whose owner process is gone."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import anyio
import pytest

from dwf.runtime.journal import control as runs
from dwf.runtime.host import run_views
from dwf.runtime.engine import Engine, StartError, StartRequest
from dwf.runtime.journal.store import RunRow
from dwf.runtime.ports.scripted import ScriptedAgentPort, parse_fixture
from dwf.runtime.journal.sqlite import SqliteJournal

SCRIPT = '''meta = {"name": "three", "description": "Three asks and a report.", "phases": [{"title": "Work", "detail": "ask"}]}
phase("Work")
a = await agent("first").ask("one")
report({"got": a})
b = await agent("second").ask("two")
c = await agent("third").ask("three")
return [a, b, c]
'''


def fixture(third_delay: float = 0.0) -> dict:
    return {"rules": [{"actor": "first", "result": "A", "output_tokens": 10},
                      {"actor": "second", "result": "B", "output_tokens": 20},
                      {"actor": "third", "result": "C", "output_tokens": 30, "delay_s": third_delay}]}


def port(third_delay: float = 0.0) -> ScriptedAgentPort:
    return ScriptedAgentPort(parse_fixture(fixture(third_delay)), call_log=None)


@pytest.fixture
def journal(tmp_path):
    store = SqliteJournal(tmp_path / ".dwf" / "state.db")
    yield store
    store.close()


def start_and_settle(request: StartRequest, *, stop_after: str | None = None):
    """Run to settlement; with `stop_after`, cancel as `user` once that ask has settled."""
    events: list[dict] = []
    request.listeners = [events.append]

    async def main():
        async with Engine() as engine:
            run = engine.start(request)
            if stop_after is not None:
                while not any(e["type"] == "node-settled" and e.get("key") == stop_after for e in events):
                    await anyio.sleep(0.01)
                while not any(e["type"] == "node-started" and e.get("actor") == "third" for e in events):
                    await anyio.sleep(0.01)
                run.cancel("user")
            return await run.result

    return anyio.run(main), events


def stopped_run(journal) -> str:
    result, _ = start_and_settle(StartRequest(script=SCRIPT, agent_port=port(third_delay=30), journal=journal,
                                              grace_period_s=2), stop_after="ask#2")
    assert result.status == "stopped" and result.stop_reason == "user"
    return result.run_id


def test_resume_replays_finished_asks_and_equals_an_uninterrupted_run(journal, tmp_path):
    with SqliteJournal(tmp_path / "other" / "state.db") as other:
        straight, _ = start_and_settle(StartRequest(script=SCRIPT, agent_port=port(), journal=other))
    assert straight.status == "completed"

    run_id = stopped_run(journal)
    row = journal.get_run(run_id)
    assert row.usage["output_tokens"] == 30  # first and second were paid for
    assert {n.key: n.status for n in journal.list_nodes(run_id) if n.kind == "ask"} == \
        {"ask#1": "completed", "ask#2": "completed", "ask#3": "running"}

    again = port()
    result, events = start_and_settle(StartRequest(script="ignored", agent_port=again, journal=journal,
                                                   run_id=run_id, resume=True))
    assert result.run_id == run_id and result.status == "completed"
    assert result.value == straight.value == ["A", "B", "C"]
    assert [call["actor"] for call in again.calls] == ["third"]  # only the ask left running is dispatched
    assert result.usage["output_tokens"] == straight.usage["output_tokens"] == 60  # usage continues
    assert result.reports == [{"got": "A"}]
    started = [e for e in events if e["type"] == "run-started"]
    assert len(started) == 1 and started[0]["resumed"] is True
    assert not [e for e in events if e["type"] == "report"]  # delivered before, not re-emitted
    # replayed asks journal no event: the log holds their events from the first attempt, once
    assert not [e for e in events if e.get("key") in ("ask#1", "ask#2")]
    assert [e["payload"]["key"] for e in journal.events(run_id) if e["type"] == "node-settled"] == \
        ["ask#1", "ask#2", "ask#3", "ask#3"]  # ask#3: cancelled by the stop, then run by the resume
    assert journal.get_run(run_id).status == "completed"
    assert len(journal.list_runs()) == 1  # the same run, no new row
    logged = journal.events(run_id)
    sequences = [e["seq"] for e in logged]
    assert sequences == sorted(set(sequences))  # increasing, never reused
    # one run-started (the resume journals none) and one run-settled, moved to the end; the
    # number it held when the first attempt stopped is the only hole
    assert [e["type"] for e in logged].count("run-started") == 1 and logged[-1]["type"] == "run-settled"
    assert [e["type"] for e in logged].count("run-settled") == 1
    assert len(set(range(1, sequences[-1] + 1)) - set(sequences)) == 1


def test_resume_keeps_the_original_args_and_caps(journal):
    script = SCRIPT.replace('"phases"', '"args": {"n": {"type": "integer", "default": 1}}, "phases"')
    result, _ = start_and_settle(StartRequest(script=script, agent_port=port(third_delay=30), journal=journal,
                                              args={"n": 7}, max_concurrency=3, budget=1000, grace_period_s=2),
                                 stop_after="ask#2")
    result2, events = start_and_settle(StartRequest(script="", agent_port=port(), journal=journal,
                                                    run_id=result.run_id, resume=True))
    assert result2.status == "completed"
    started = next(e for e in events if e["type"] == "run-started")
    assert started["args"] == {"n": 7}
    assert started["caps"] == {"max_concurrency": 3, "max_agents": started["caps"]["max_agents"], "budget": 1000}


def refuse(journal, run_id: str) -> str:
    with pytest.raises(StartError) as caught:
        start_and_settle(StartRequest(script="", agent_port=port(), journal=journal, run_id=run_id, resume=True))
    return str(caught.value)


def test_an_edited_script_is_refused_before_any_effect(journal):
    run_id = stopped_run(journal)
    before = len(journal.events(run_id))
    journal.update_run(run_id, script=SCRIPT.replace('"one"', '"uno"'))
    assert "sha256" in refuse(journal, run_id)
    assert len(journal.events(run_id)) == before
    assert journal.get_run(run_id).status == "stopped"


def test_finished_errored_superseded_running_and_unknown_runs_are_refused(journal):
    done, _ = start_and_settle(StartRequest(script=SCRIPT, agent_port=port(), journal=journal))
    assert "completed" in refuse(journal, done.run_id)
    run_id = stopped_run(journal)
    journal.update_run(run_id, status="errored", stop_reason=None)
    assert "errored" in refuse(journal, run_id)
    journal.update_run(run_id, status="stopped", stop_reason="superseded")
    assert "superseded" in refuse(journal, run_id)
    journal.update_run(run_id, status="stopped", stop_reason="user", compiler_version="99.0.0")
    assert "newer dwf" in refuse(journal, run_id)
    assert "no run" in refuse(journal, "dwfrun-" + "0" * 32)


def test_a_run_whose_script_no_longer_compiles_is_refused(journal):
    run_id = stopped_run(journal)
    broken = "meta = {\"name\": \"x\", \"description\": \"y\"}\nimport subprocess\n"
    from dwf.compiler.compile import compile_source

    journal.update_run(run_id, script=broken, script_sha256=compile_source(broken, "x").source.sha256)
    assert "no longer compiles" in refuse(journal, run_id)


def test_runs_are_found_by_unique_prefix(journal):
    for suffix in ("aa11", "aa22", "bb33"):
        journal.create_run(RunRow(id=f"dwfrun-{suffix}", script="", script_sha256="", ir_hash="", compiler_version="0",
                                  args={}, meta={}, caps={}, status="completed"))
    assert run_views.resolve_run(journal, "bb").id == "dwfrun-bb33"
    assert run_views.resolve_run(journal, "dwfrun-aa2").id == "dwfrun-aa22"
    with pytest.raises(run_views.RunLookupError) as caught:
        run_views.resolve_run(journal, "aa")
    assert {row.id for row in caught.value.candidates} == {"dwfrun-aa11", "dwfrun-aa22"}
    with pytest.raises(run_views.RunLookupError):
        run_views.resolve_run(journal, "zz")


def test_reconcile_marks_only_runs_whose_owner_is_gone(journal, tmp_path):
    control = tmp_path / ".dwf" / "runs"
    for suffix in ("dead", "mine", "remote", "noowner", "reused"):
        journal.create_run(RunRow(id=f"dwfrun-{suffix}", script="", script_sha256="", ir_hash="", compiler_version="0",
                                  args={}, meta={}, caps={}))
    control.mkdir(parents=True)
    runs.write_owner(control, "dwfrun-mine")
    dead = runs.owner_record()
    dead["pid"] = 2 ** 22 + 12345  # above any pid_max default: no such process
    (control / "dwfrun-dead.owner.json").write_text(json.dumps(dead))
    remote = dict(runs.owner_record(), host=socket.gethostname() + "-elsewhere")
    (control / "dwfrun-remote.owner.json").write_text(json.dumps(remote))
    reused = dict(runs.owner_record(), start_token="1")  # our pid, but another process start time
    (control / "dwfrun-reused.owner.json").write_text(json.dumps(reused))
    marked = runs.reconcile(journal, control)
    assert sorted(marked) == ["dwfrun-dead", "dwfrun-noowner", "dwfrun-reused"]
    for run_id in marked:
        row = journal.get_run(run_id)
        assert (row.status, row.stop_reason) == ("stopped", "interrupted")
        assert journal.events(run_id)[-1]["type"] == "run-settled"
    assert journal.get_run("dwfrun-mine").status == "running"
    assert journal.get_run("dwfrun-remote").status == "running"
    assert runs.reconcile(journal, control) == []
    assert os.getpid() == runs.read_owner(control, "dwfrun-mine")["pid"]


def test_a_cancel_request_file_stops_a_live_run_as_user(journal, tmp_path):
    events: list[dict] = []

    async def main():
        async with Engine() as engine:
            run = engine.start(StartRequest(script=SCRIPT, agent_port=port(third_delay=30), journal=journal,
                                            listeners=[events.append], grace_period_s=2))
            while not any(e["type"] == "node-started" and e.get("actor") == "third" for e in events):
                await anyio.sleep(0.01)
            runs.request_cancel(tmp_path / ".dwf" / "runs", run.id)
            with anyio.fail_after(3):
                return await run.result

    result = anyio.run(main)
    assert (result.status, result.stop_reason) == ("stopped", "user")
    control = Path(tmp_path / ".dwf" / "runs")
    assert not list(control.glob("*.cancel")) and not list(control.glob("*.owner.json"))


JOINS = '''meta = {"name": "joins", "description": "Replayed asks inside joins."}
workers = [agent(f"w{i}") for i in range(4)]
first = await parallel(workers[i].ask(f"item {i}") for i in range(4))
late = await agent("late").ask("after the joins")
try:
    both = await gather(workers[0].ask("strict ok"), workers[1].ask("strict bad"))
except AskFailed as error:
    both = ["gather failed", str(error)]
return {"first": first, "late": late, "both": both}
'''


def joins_port(late_delay: float) -> ScriptedAgentPort:
    return ScriptedAgentPort(parse_fixture({"rules": [
        {"instructions": "item 2", "fail": "no item 2"},
        {"instructions": "strict bad", "fail": "no strict"},
        {"actor": "late", "result": "L", "delay_s": late_delay},
    ], "default": {"result": "ok"}}), call_log=None)


def test_replayed_asks_in_joins_keep_their_outcomes_failures_included(journal, tmp_path):
    with SqliteJournal(tmp_path / "other" / "state.db") as other:
        straight, _ = start_and_settle(StartRequest(script=JOINS, agent_port=joins_port(0), journal=other))
    assert straight.status == "completed", straight.error
    assert straight.value["first"] == ["ok", "ok", None, "ok"]  # parallel: a failed item is None
    assert straight.value["both"][0] == "gather failed" and "no strict" in straight.value["both"][1]

    async def stop_at_late():
        events: list[dict] = []
        async with Engine() as engine:
            run = engine.start(StartRequest(script=JOINS, agent_port=joins_port(30), journal=journal, grace_period_s=2,
                                            listeners=[events.append]))
            while not any(e["type"] == "node-started" and e.get("actor") == "late" for e in events):
                await anyio.sleep(0.01)
            run.cancel("user")
            return await run.result

    stopped = anyio.run(stop_at_late)
    assert stopped.status == "stopped"
    again = joins_port(0)
    result, events = start_and_settle(StartRequest(script="ignored", agent_port=again, journal=journal,
                                                   run_id=stopped.run_id, resume=True))
    assert result.status == "completed" and result.value == straight.value
    # the four join items replayed (the failed one too); `late` and the gather ran live
    assert sorted(call["instructions"] for call in again.calls) == ["after the joins", "strict bad", "strict ok"]
    replayed = {f"ask#1/comp#2[{i}]" for i in range(4)}
    assert not [e for e in events if e.get("key") in replayed]  # replays journal no event

    # resumed again after finishing: everything replays, the strict join's failure included
    journal.update_run(stopped.run_id, status="stopped", stop_reason="user")
    idle = joins_port(0)
    replayed, events = start_and_settle(StartRequest(script="ignored", agent_port=idle, journal=journal,
                                                     run_id=stopped.run_id, resume=True))
    assert replayed.value == straight.value and idle.calls == []
    assert [e["type"] for e in events] == ["run-started", "run-settled"]
