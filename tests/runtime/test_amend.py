"""Amend (RUNTIME §5.2): a new run of an edited script imports its predecessor's finished asks per
named actor, in order, by input hash (first miss ends the actor's imports), reads by content;
the cache closes at the first side effect (a live world.run, or an ask that touched the world)
after which only pure asks import; anonymous actors never import; imported rows are real
journal rows marked imported that cost zero tokens; a live predecessor is stopped as
`stopped(superseded)`; and `dwfc amend` on the command line."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import anyio
import pytest

from dwf.runtime.engine import resume_problems
from dwf.runtime.host.amend import amend
from dwf.runtime.engine import Engine, StartError, StartRequest
from dwf.runtime.ports.protocols import Usage
from dwf.runtime.journal.sqlite import SqliteJournal
from dwf.runtime.ports.world import LocalWorld
from fakes import FakeAgentPort

ROOT = Path(__file__).resolve().parents[2]
META = 'meta = {"name": "amend-me", "description": "Asks to be amended."}\n'


def fake_port() -> FakeAgentPort:
    """Answers `<actor>:<instructions>`, 10 output tokens per ask; `calls` logs (actor,
    instructions) of every dispatched ask. Instructions containing `touch` report that they
    touched the world; `slow` sleeps long."""
    return FakeAgentPort(record=lambda request: (request.actor.name or "", request.instructions),
                         delay=lambda request: 30 if "slow" in request.instructions else None,
                         touches=lambda request: "touch" in request.instructions,
                         usage=Usage(input_tokens=3, output_tokens=10),
                         text=lambda request: f"{request.actor.name or ''}:{request.instructions}")


@pytest.fixture
def journal(tmp_path):
    store = SqliteJournal(tmp_path / ".dwf" / "state.db")
    yield store
    store.close()


def world(tmp_path):
    (tmp_path / "note.txt").write_text("hello")
    return LocalWorld(tmp_path, allowed_commands=frozenset({"true"}))


def first_run(journal, script, tmp_path):
    port, events = fake_port(), []

    async def main():
        async with Engine() as engine:
            run = engine.start(StartRequest(script=script, agent_port=port, journal=journal, world=world(tmp_path),
                                            listeners=[events.append]))
            return await run.result

    result = anyio.run(main)
    assert result.status == "completed", result.error
    return result, port


def amended(journal, run_id, script, tmp_path):
    port, events = fake_port(), []

    async def main():
        async with Engine() as engine:
            run = await amend(engine, run_id, script, journal=journal, agent_port=port, world=world(tmp_path),
                              listeners=[events.append])
            return await run.result

    result = anyio.run(main)
    return result, port, events


def imported_keys(events):
    return [e["key"] for e in events if e["type"] == "node-settled" and e.get("imported")]


THREE = '''meta = {"name": "amend-me", "description": "Asks.", "phases": [{"title": "@PHASE@", "detail": "asks"}]}
phase("@PHASE@")
a = agent("alpha", system="You are alpha.")
b = agent("beta", system="You are beta.")
x = await a.ask("@FIRST@")
y = await b.ask("b one")
z = await a.ask("a two " + x)
w = await b.ask("b two " + y)
return [x, y, z, w]
'''


def three(phase: str = "Work", first: str = "a one") -> str:
    return THREE.replace("@PHASE@", phase).replace("@FIRST@", first)


def test_renamed_phase_imports_everything(journal, tmp_path):
    old, _ = first_run(journal, three("Work", "a one"), tmp_path)
    new_script = three("Renamed", "a one")
    result, port, events = amended(journal, old.run_id, new_script, tmp_path)
    assert result.status == "completed" and result.value == old.value
    assert port.calls == []
    assert len(imported_keys(events)) == 4
    assert all(e.get("cached") for e in events if e["type"] == "node-settled")
    row = journal.get_run(result.run_id)
    assert row.resumed_from == old.run_id and result.run_id != old.run_id
    assert journal.get_run(old.run_id).superseded_by == result.run_id
    assert journal.get_run(old.run_id).status == "completed"
    nodes = [n for n in journal.list_nodes(result.run_id) if n.kind == "ask"]
    assert len(nodes) == 4 and all(n.imported and n.status == "completed" for n in nodes)


def test_edited_prompt_reruns_that_ask_and_later_asks_of_the_same_actor(journal, tmp_path):
    old, _ = first_run(journal, three("Work", "a one"), tmp_path)
    result, port, events = amended(journal, old.run_id, three("Work", "a ONE edited"), tmp_path)
    assert result.status == "completed"
    assert port.calls == [("alpha", "a ONE edited"), ("alpha", "a two alpha:a ONE edited")]
    assert len(imported_keys(events)) == 2  # both beta asks


def test_inserted_ask_shifts_sites_but_imports_match_by_actor_and_order(journal, tmp_path):
    script = three("Work", "a one")
    old, _ = first_run(journal, script, tmp_path)
    inserted = script.replace('x = await a.ask(', 'pre = await agent("gamma").ask("new first")\nx = await a.ask(')
    result, port, events = amended(journal, old.run_id, inserted, tmp_path)
    assert result.status == "completed"
    assert port.calls == [("gamma", "new first")]
    assert len(imported_keys(events)) == 4
    old_sites = {n.site for n in journal.list_nodes(old.run_id) if n.kind == "ask"}
    new_sites = {n.site for n in journal.list_nodes(result.run_id) if n.kind == "ask" and n.imported}
    assert old_sites != new_sites  # the site ids shifted; the imports matched anyway


def test_an_ask_inserted_in_the_same_actor_ends_its_imports(journal, tmp_path):
    script = three("Work", "a one")
    old, _ = first_run(journal, script, tmp_path)
    inserted = script.replace('x = await a.ask(', 'pre = await a.ask("a zero")\nx = await a.ask(')
    result, port, _ = amended(journal, old.run_id, inserted, tmp_path)
    assert [c for c in port.calls if c[0] == "alpha"] == [("alpha", "a zero"), ("alpha", "a one"),
                                                          ("alpha", "a two alpha:a one")]
    assert [c for c in port.calls if c[0] == "beta"] == []


def test_changed_persona_and_anonymous_actors_never_import(journal, tmp_path):
    script = META + 'x = await agent().ask("anon")\ny = await agent("beta", system="You are beta.").ask("b")\nreturn [x, y]\n'
    old, _ = first_run(journal, script, tmp_path)
    result, port, events = amended(journal, old.run_id, script, tmp_path)
    assert port.calls == [("", "anon")]
    assert len(imported_keys(events)) == 1
    result, port, _ = amended(journal, result.run_id, script.replace("You are beta.", "You are new beta."), tmp_path)
    assert port.calls == [("", "anon"), ("beta", "b")]


def test_cache_closes_at_the_first_live_world_run(journal, tmp_path):
    script = META + '''a = agent("alpha")
b = agent("beta")
note = await files.read("note.txt")
x = await a.ask("touch one")
done = await world.run("true", [])
y = await b.ask("touch two")
note2 = await files.read("note.txt")
z = await a.ask("touch three")
v = await b.ask("pure four")
return [note, x, y, z, v]
'''
    old, _ = first_run(journal, script, tmp_path)
    result, port, events = amended(journal, old.run_id, script, tmp_path)
    assert result.status == "completed" and result.value == old.value
    # before the command the read and alpha's (impure) ask import; after it the impure asks
    # re-run and reads no longer import; beta diverged at "touch two", so its later (pure) ask
    # runs live as well
    assert port.calls == [("beta", "touch two"), ("alpha", "touch three"), ("beta", "pure four")]
    kinds = sorted(e["kind"] for e in events if e["type"] == "node-settled" and e.get("imported"))
    assert kinds == ["ask", "read"]
    assert sum(1 for e in events if e.get("import_cache_closed")) == 1
    assert [n.kind for n in journal.list_nodes(result.run_id) if n.kind == "run" and n.imported] == []


def test_pure_asks_still_import_after_the_cache_closed(journal, tmp_path):
    script = META + '''a = agent("alpha")
b = agent("beta")
x = await a.ask("touch one")
done = await world.run("true", [])
y = await b.ask("pure two")
z = await a.ask("touch three")
return [x, y, z]
'''
    old, _ = first_run(journal, script, tmp_path)
    assert [n.usage.get("pure") for n in journal.list_nodes(old.run_id) if n.kind == "ask"] == [False, True, False]
    result, port, _ = amended(journal, old.run_id, script, tmp_path)
    assert result.value == old.value
    assert port.calls == [("alpha", "touch three")]


def test_an_ask_that_touched_the_world_closes_the_cache(journal, tmp_path):
    script = META + '''a = agent("alpha")
b = agent("beta")
x = await a.ask("touch it")
y = await b.ask("two")
return [x, y]
'''
    old, _ = first_run(journal, script, tmp_path)
    edited = script.replace('"touch it"', '"touch it again"')
    result, port, events = amended(journal, old.run_id, edited, tmp_path)
    # beta's ask was recorded pure in the first run, so it still imports after the close
    assert port.calls == [("alpha", "touch it again")]
    assert sum(1 for e in events if e.get("import_cache_closed")) == 1
    # with beta impure (touched) in the predecessor, it re-runs after the close
    script2 = script.replace('"two"', '"touch two"')
    old2, _ = first_run(journal, script2, tmp_path)
    result, port, _ = amended(journal, old2.run_id, script2.replace('"touch it"', '"touch it again"'), tmp_path)
    assert port.calls == [("alpha", "touch it again"), ("beta", "touch two")]


def test_imported_asks_cost_zero_tokens(journal, tmp_path):
    old, _ = first_run(journal, three("Work", "a one"), tmp_path)
    assert old.usage["output_tokens"] == 40
    result, port, _ = amended(journal, old.run_id, three("Work", "a ONE edited"), tmp_path)
    assert len(port.calls) == 2 and result.usage["output_tokens"] == 20 and result.usage["input_tokens"] == 6
    assert journal.get_run(result.run_id).usage["output_tokens"] == 20
    for node in journal.list_nodes(result.run_id):
        if node.imported:
            assert node.usage.get("output_tokens") == 0
    assert result.agents_started == 1


def test_amending_a_live_run_stops_it_as_superseded(journal, tmp_path):
    script = META + 'x = await agent("alpha").ask("one")\ny = await agent("beta").ask("slow two")\nreturn [x, y]\n'
    edited = script.replace("slow two", "two")
    port = fake_port()

    async def main():
        async with Engine() as engine:
            old = engine.start(StartRequest(script=script, agent_port=port, journal=journal, grace_period_s=2))
            while not any(call[1] == "slow two" for call in port.calls):
                await anyio.sleep(0.01)
            new = await amend(engine, old.id, edited, journal=journal, agent_port=port)
            return await old.result, await new.result

    old, new = anyio.run(main)
    assert old.status == "stopped" and old.stop_reason == "superseded"
    row = journal.get_run(old.run_id)
    assert row.status == "stopped" and row.stop_reason == "superseded" and row.superseded_by == new.run_id
    assert new.status == "completed" and new.value == ["alpha:one", "beta:two"]
    assert port.calls == [("alpha", "one"), ("beta", "slow two"), ("beta", "two")]
    assert resume_problems(row)  # a superseded run is not resumable


def test_amend_refuses_unknown_runs_and_broken_scripts(journal, tmp_path):
    old, _ = first_run(journal, three("Work", "a one"), tmp_path)

    async def main(run_id, script):
        async with Engine() as engine:
            await amend(engine, run_id, script, journal=journal, agent_port=fake_port())

    with pytest.raises(StartError, match="no run"):
        anyio.run(main, "dwfrun-nope", three())
    with pytest.raises(StartError):
        anyio.run(main, old.run_id, "return (\n")
    assert journal.get_run(old.run_id).superseded_by is None



def test_a_live_run_stopped_for_an_amend_the_engine_refuses_stays_resumable(journal, tmp_path):
    script = META + 'x = await agent("alpha").ask("one")\ny = await agent("beta").ask("slow two")\nreturn [x, y]\n'
    edited = script.replace('return [x, y]', 'done = await world.run("true")\nreturn [x, y]')
    port = fake_port()

    async def main():
        async with Engine() as engine:
            old = engine.start(StartRequest(script=script, agent_port=port, journal=journal, grace_period_s=2))
            while not any(call[1] == "slow two" for call in port.calls):
                await anyio.sleep(0.01)
            with pytest.raises(StartError) as refused:  # the new script's command was not approved
                await amend(engine, old.id, edited, journal=journal, agent_port=port, approved_commands=frozenset())
            return await old.result, refused.value.problems

    old, problems = anyio.run(main)
    assert old.status == "stopped"
    assert problems[0] == "the script may run commands that were not approved: true"
    assert "can be resumed" in problems[-1]
    row = journal.get_run(old.run_id)
    assert (row.status, row.stop_reason, row.superseded_by) == ("stopped", "interrupted", None)
    assert not resume_problems(row)
    assert [r.id for r in journal.list_runs()] == [old.run_id]  # no successor was recorded

def test_dwfc_amend_cli(tmp_path):
    script = META + 'x = await agent("alpha").ask("one")\ny = await agent("beta").ask("two")\nreturn [x, y]\n'
    (tmp_path / "w.dwf.py").write_text(script)
    (tmp_path / "w2.dwf.py").write_text(script.replace('"two"', '"two edited"'))
    fixture = {"rules": [{"actor": "*", "result": "ok", "output_tokens": 7}]}
    (tmp_path / "fx.json").write_text(json.dumps(fixture))
    log = tmp_path / "calls.ndjson"
    env = {**os.environ, "DWF_SCRIPTED_CALL_LOG": str(log)}
    dwf = [str(ROOT / "dwf")]
    first = subprocess.run(dwf + ["run", "w.dwf.py", "--agent", "scripted:fx.json", "--yes", "--progress", "json"],
                           cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    run_id = json.loads(first.stdout)["run_id"]
    log.unlink()
    second = subprocess.run(dwf + ["amend", run_id[:14], "w2.dwf.py", "--agent", "scripted:fx.json", "--yes",
                                   "--progress", "json"], cwd=tmp_path, env=env, capture_output=True, text=True,
                            timeout=120)
    assert second.returncode == 0, second.stderr
    out = json.loads(second.stdout)
    assert out["status"] == "completed" and out["run_id"] != run_id and out["usage"]["output_tokens"] == 7
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(c["actor"], c["instructions"]) for c in calls] == [("beta", "two edited")]
    with SqliteJournal(tmp_path / ".dwf" / "state.db") as store:
        assert store.get_run(run_id).superseded_by == out["run_id"]
        assert store.get_run(out["run_id"]).resumed_from == run_id
    refused = subprocess.run(dwf + ["amend", "dwfrun-nothere", "w2.dwf.py", "--agent", "scripted:fx.json", "--yes"],
                             cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2
