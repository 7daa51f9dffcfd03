"""The engine's run contract (RUNTIME §1), scheduling (§3) and events (§6), with an in-process
fake agent port whose delays and answers each test controls."""

import json
import random

import anyio
import pytest

from dwf.runtime.engine import Engine, StartError, StartRequest
from dwf.runtime.journal import MemoryJournal
from fakes import FakeAgentPort


@pytest.fixture
def anyio_backend():
    return "asyncio"


def fake_port(delay=lambda request: 0.0, typed_value=None, fail=lambda request: False, tokens=10) -> FakeAgentPort:
    """Answers every ask after `delay(request)` seconds; typed asks submit `typed_value` and, like a
    real agent, resubmit after each rejection until told to stop. `calls` holds (site, key,
    instructions, actor) of each dispatch."""
    return FakeAgentPort(delay=delay, value=typed_value, fail=fail, usage=tokens, resubmit=True,
                         record=lambda request: (request.site, request.key, request.instructions, request.actor.name))


def script(body: str, phases: bool = True) -> str:
    header = 'meta = {"name": "engine-test", "description": "Engine tests."}\n'
    return header + ('phase("Work")\n' if phases else "") + body


async def run_script(body, port=None, phases=True, **options):
    port = port or fake_port()
    events = []
    async with Engine() as engine:
        run = engine.start(StartRequest(script=script(body, phases), agent_port=port, listeners=[events.append], **options))
        result = await run.result
    return result, port, events


FANOUT_AND_PIPELINE = '''
async def review(path):
    first = await agent(f"r-{path}").ask(f"review {path}")
    return first
reviews = await parallel(review(p) for p in ["a", "b", "c", "d", "e", "f"])
lead = agent("lead")
stages = await pipeline(["x", "y", "z", "w"],
    lambda prev, item, i: agent(f"s1-{item}").ask(f"stage one {item}"),
    lambda prev, item, i: agent(f"s2-{item}").ask(f"stage two {prev}"))
summary = []
for i in range(3):
    summary.append(await lead.ask(f"round {i}"))
return {"reviews": reviews, "stages": stages, "summary": summary}
'''


@pytest.mark.anyio
async def test_occurrence_keys_do_not_depend_on_completion_order():
    observed = []
    values = []
    for seed in range(8):
        rng = random.Random(seed)
        delays = {}
        port = fake_port(delay=lambda request: delays.setdefault(request.key, rng.random() * 0.02))
        result, port, _ = await run_script(FANOUT_AND_PIPELINE, port)
        assert result.status == "completed", result.error
        observed.append(sorted((site, key, text) for site, key, text, _ in port.calls))
        values.append(result.value)
    assert all(o == observed[0] for o in observed)
    assert all(v == values[0] for v in values)
    keys = [key for _, key, _ in observed[0]]
    assert len(keys) == len(set(keys)) == 6 + 8 + 3
    assert "ask#1/comp#1[3]/call#1" in keys  # the 4th item of the fan-out, inside review()
    assert any(k.startswith("ask#4/for#1[2]") for k in keys)


@pytest.mark.anyio
async def test_actor_asks_run_fifo_one_at_a_time_and_concurrency_is_capped():
    body = '''
a = agent("a")
xs = await parallel([a.ask(f"a{i}") for i in range(4)] + [agent(f"b{i}").ask(f"b{i}") for i in range(6)])
return xs
'''
    port = fake_port(delay=lambda r: 0.01)
    result, port, _ = await run_script(body, port, max_concurrency=3)
    assert result.status == "completed"
    a_order = [text for _, _, text, actor in port.calls if actor == "a"]
    assert a_order == ["a0", "a1", "a2", "a3"]
    assert port.max_in_flight == 3
    assert result.value == [f"done: a{i}" for i in range(4)] + [f"done: b{i}" for i in range(6)]


@pytest.mark.anyio
async def test_an_ask_settles_before_its_slot_goes_to_the_next():
    """The slot of a finished ask is handed on only after its outcome is journaled and its
    `node-settled` emitted: the event log never shows more asks in flight than the cap."""
    body = 'return await parallel(agent(f"w{i}").ask("go") for i in range(12))\n'
    result, _, events = await run_script(body, fake_port(delay=lambda r: 0.005), max_concurrency=3)
    in_flight = most = 0
    for event in events:
        if event["type"] == "node-started":
            in_flight += 1
            most = max(most, in_flight)
        elif event["type"] == "node-settled":
            in_flight -= 1
    assert result.status == "completed" and most == 3 and in_flight == 0


@pytest.mark.anyio
async def test_max_concurrency_can_be_raised_on_a_live_run():
    body = 'return await parallel(agent(f"w{i}").ask("go") for i in range(8))\n'
    port = fake_port(delay=lambda r: 0.05)
    events = []
    async with Engine() as engine:
        run = engine.start(StartRequest(script=script(body), agent_port=port, max_concurrency=1, listeners=[events.append]))
        await anyio.sleep(0.02)
        assert port.max_in_flight == 1
        assert run.set_max_concurrency(8)
        result = await run.result
    assert result.status == "completed"
    assert port.max_in_flight >= 6
    assert any(e["type"] == "run-caps-changed" and e["caps"] == {"max_concurrency": 8} for e in events)


@pytest.mark.anyio
async def test_parallel_maps_failures_to_none_and_gather_is_strict():
    body = '''
xs = await parallel(agent(f"p{i}").ask(f"item {i}") for i in range(3))
try:
    await gather(*[agent(f"g{i}").ask(f"item {i}") for i in range(3)])
    strict = "no error"
except AskFailed as error:
    strict = "AskFailed"
return {"xs": xs, "strict": strict}
'''
    port = fake_port(fail=lambda r: r.instructions == "item 1")
    result, _, _ = await run_script(body, port)
    assert result.value == {"xs": ["done: item 0", None, "done: item 2"], "strict": "AskFailed"}


@pytest.mark.anyio
async def test_budget_exceeded_is_catchable_and_counted():
    body = '''
done = 0
try:
    for i in range(10):
        await agent(f"w{i}").ask("work")
        done += 1
except BudgetExceeded:
    pass
return {"done": done, "spent": budget.spent(), "left": budget.remaining(), "total": budget.total}
'''
    result, _, _ = await run_script(body, fake_port(tokens=10), budget=35)
    assert result.value == {"done": 4, "spent": 40, "left": 0, "total": 35}


@pytest.mark.anyio
async def test_typed_ask_repairs_then_fails():
    body = '''
from typing import TypedDict
class Item(TypedDict):
    name: str
try:
    x = await agent("a").ask("give", returns=Item)
except AskFailed as error:
    x = str(error)
return x
'''
    result, _, _ = await run_script(body.replace("from typing", "from typing", 1), fake_port(typed_value={"name": 3}))
    assert result.status == "completed"
    assert "did not match its schema" in result.value and "$.name" in result.value
    ok, _, _ = await run_script(body, fake_port(typed_value={"name": "x"}))
    assert ok.value == {"name": "x"}


@pytest.mark.anyio
async def test_cancel_stops_the_run_and_pairs_every_started_node():
    body = 'return await parallel(agent(f"w{i}").ask("slow") for i in range(5))\n'
    port = fake_port(delay=lambda r: 30)
    events = []
    async with Engine() as engine:
        run = engine.start(StartRequest(script=script(body), agent_port=port, listeners=[events.append]))
        await anyio.sleep(0.1)
        with anyio.fail_after(5):
            run.cancel("user")
            result = await run.result
    assert (result.status, result.stop_reason) == ("stopped", "user")
    started = {(e["site"], e["key"]) for e in events if e["type"] == "node-started"}
    settled = [(e["site"], e["key"]) for e in events if e["type"] == "node-settled"]
    assert started and sorted(started) == sorted(settled)
    assert {e["outcome"] for e in events if e["type"] == "node-settled"} == {"cancelled"}
    assert events[-1]["type"] == "run-settled" and port.closed == 1


@pytest.mark.anyio
async def test_run_that_ignores_cancel_is_force_settled_within_grace_period():
    stubborn = FakeAgentPort(delay=3, shield=True, text="late")
    body = 'return await agent("a").ask("hang")\n'
    async with Engine() as engine:
        run = engine.start(StartRequest(script=script(body), agent_port=stubborn, grace_period_s=0.3))
        await anyio.sleep(0.05)
        started = anyio.current_time()
        run.cancel("user")
        result = await run.result
        assert anyio.current_time() - started < 1.5
        await run.dispose()
        await run.dispose()  # idempotent
    assert result.status == "stopped" and "force-settled" in result.error


@pytest.mark.anyio
async def test_start_refuses_bad_requests_before_any_effect():
    port = fake_port()
    async with Engine() as engine:
        with pytest.raises(StartError) as refused:
            engine.start(StartRequest(script="meta = {}\nx = (\n", agent_port=port))
        assert "DWF001" in str(refused.value)
        text = ('meta = {"name": "a", "description": "d", "args": {"n": {"type": "integer", "required": True}}}\n'
                'phase("P")\nawait world.run("make", [])\n')
        with pytest.raises(StartError) as refused:
            engine.start(StartRequest(script=text, agent_port=port, args={"m": 1}, approved_commands=frozenset()))
        problems = refused.value.problems
        assert any("unknown argument `m`" in p for p in problems)
        assert any("missing required argument `n`" in p for p in problems)
        assert any("not approved: make" in p for p in problems)
        inline = 'meta = {"name": "a", "description": "d"}\nx = await agent("a").ask("go")\ny = await workflow("w")\n'
        with pytest.raises(StartError) as refused:  # refused before the ask, not after it
            engine.start(StartRequest(script=inline, agent_port=port))
        assert refused.value.problems[0].startswith("the script calls the saved workflow `w`, whose script was not given")
    assert port.calls == []


@pytest.mark.anyio
async def test_runtime_duplicate_actor_name_and_agent_cap_are_fatal():
    dup, _, _ = await run_script('for n in ["x", "x"]:\n    agent(f"{n}")\nreturn 1\n', phases=False)
    assert dup.status == "errored" and "DuplicateActorName" in dup.error
    capped, _, _ = await run_script('for i in range(5):\n    agent()\nreturn 1\n', phases=False, max_agents=3)
    assert capped.status == "errored" and "actor limit" in capped.error


@pytest.mark.anyio
async def test_listener_isolation_and_event_sequence():
    seen = []

    def broken(event):
        raise RuntimeError("listener bug")

    def mutating(event):
        event["type"] = "tampered"
        seen.append(event)

    async with Engine() as engine:
        run = engine.start(StartRequest(script=script('log("hi")\nreturn await agent("a").ask("x")\n'),
                                        agent_port=fake_port(), listeners=[broken, mutating, seen.append]))
        result = await run.result
    assert result.status == "completed"
    real = [e for e in seen if e["type"] != "tampered"]
    assert [e["seq"] for e in real] == list(range(1, len(real) + 1))
    assert real[0]["type"] == "run-started" and real[-1]["type"] == "run-settled"
    assert [e["type"] for e in real].count("run-settled") == 1
    json.dumps(real)  # payloads are plain data


@pytest.mark.anyio
async def test_a_listener_changing_an_events_nested_values_changes_nobody_elses():
    seen = []

    def meddling(event):  # node and usage events take the flat path (shallow copies, dicts copied)
        for value in event.values():
            if isinstance(value, dict):
                value["output_tokens"] = -1

    journal = MemoryJournal()
    async with Engine() as engine:
        run = engine.start(StartRequest(script=script('return await agent("a").ask("x")\n'), agent_port=fake_port(),
                                        journal=journal, listeners=[meddling, seen.append]))
        result = await run.result
    assert result.status == "completed"
    usage = [e for e in seen if e["type"] == "usage-updated"]
    assert usage and all(e["ask"]["output_tokens"] >= 0 and e["run"]["output_tokens"] >= 0 for e in usage)
    journaled = [e["payload"] for e in journal.events(run.id) if e["type"] == "usage-updated"]
    assert [{"ask": e["ask"], "run": e["run"]} for e in usage] == [{"ask": p["ask"], "run": p["run"]} for p in journaled]


@pytest.mark.anyio
async def test_fanout_cap_is_fatal_not_truncation():
    from dwf.runtime.interpreter.limits import Limits

    result, port, _ = await run_script('return await parallel(agent().ask("x") for i in range(6))\n',
                                       limits=Limits(fanout=5))
    assert result.status == "errored" and "fan-out limit" in result.error
    assert port.calls == []
