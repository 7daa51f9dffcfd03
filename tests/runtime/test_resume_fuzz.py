"""Resume under permutation (RUNTIME §5.1): random small workflows built from fan-outs,
pipelines, nested helpers, loops and conditionals on results run in-process through `Engine`
with a `SqliteJournal` and a fake port whose per-ask delays come from the example (so agents
finish in varying orders). Each run is interrupted after k asks settled and resumed under the
same id: the final value, the reports and the set of dispatched (site, occurrence) equal an
uninterrupted reference, no ask completed before the interruption is dispatched again, and only
asks in flight at the interruption may be dispatched twice."""

from __future__ import annotations

import tempfile
import zlib
from pathlib import Path

import anyio
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from dwf.runtime.engine import Engine, StartRequest
from dwf.runtime.journal.sqlite import SqliteJournal
from fakes import FakeAgentPort

META = 'meta = {"name": "fuzz", "description": "Random blocks."}\nphase("Work")\n'


def fan(b: int, n: int) -> str:
    return f'r{b} = await parallel(agent(f"f{b}_{{i}}").ask(f"b{b} fan {{i}}") for i in range({n}))\n'


def pipe(b: int, n: int, stages: int) -> str:
    helpers = "".join(
        f"async def st{b}_{s}(prev, item, index):\n"
        f'    return await agent(f"s{b}_{s}_{{index}}").ask(f"b{b} st{s} {{item}} {{prev[:12]}}")\n\n\n'
        for s in range(stages))
    items = [f"i{j}" for j in range(n)]
    return helpers + f"r{b} = await pipeline({items!r}, {', '.join(f'st{b}_{s}' for s in range(stages))})\n"


def loop(b: int, n: int) -> str:
    return (f'L{b} = agent("L{b}")\nr{b} = []\nfor i in range({n}):\n'
            f'    r{b}.append(await L{b}.ask(f"b{b} loop {{i}} {{len(r{b})}}"))\n')


def nested(b: int, n: int) -> str:
    return (f"async def h{b}(x):\n"
            f'    a = await agent(f"h{b}_{{x}}").ask(f"b{b} h {{x}}")\n'
            f"    out = [a]\n"
            f"    if int(a[0]) % 2 == 0:\n"
            f"        for j in range(2):\n"
            f'            out.append(await agent(f"g{b}_{{x}}_{{j}}").ask(f"b{b} even {{x}} {{j}}"))\n'
            f"    return out\n\n\n"
            f"r{b} = await parallel(h{b}(i) for i in range({n}))\n")


def conditional(b: int, n: int) -> str:
    previous = f"len(str(r{b - 1}))" if b else "0"
    return (f'c{b} = await agent("c{b}").ask(f"b{b} cond {{{previous}}}")\n'
            f"if int(c{b}[0]) % 3 != 0:\n"
            f'    r{b} = [c{b}] + await gather(*[agent(f"d{b}_{{k}}").ask(f"b{b} yes {{k}}") for k in range({n})])\n'
            f"else:\n"
            f"    r{b} = [c{b}]\n")


BLOCKS = {"fan": fan, "pipe": pipe, "loop": loop, "nested": nested, "conditional": conditional}


@st.composite
def workflows(draw) -> str:
    kinds = draw(st.lists(st.sampled_from(sorted(BLOCKS)), min_size=1, max_size=4))
    source = META
    for b, kind in enumerate(kinds):
        n = draw(st.integers(1, 5))
        source += pipe(b, n, draw(st.integers(1, 3))) if kind == "pipe" else BLOCKS[kind](b, n)
        if draw(st.booleans()):
            source += f'report({{"block": {b}, "size": len(r{b})}})\n'
    return source + f"return [{', '.join(f'r{b}' for b in range(len(kinds)))}]\n"


def fake_port(delays: list[float]) -> FakeAgentPort:
    """Answers every untyped ask with a result derived from its instructions, after a delay
    picked from the example's delays by a hash of the instructions; `calls` logs (site, key)."""

    def digest(request) -> int:
        return zlib.crc32(request.instructions.encode())

    return FakeAgentPort(record=lambda request: (request.site, request.key),
                         delay=lambda request: delays[digest(request) % len(delays)], usage=1,
                         text=lambda request: f"{digest(request) % 10}|{request.instructions[:24]}")


def run(journal, port, *, script="", stop_after=None, max_concurrency=4, run_id=None, resume=False):
    settled_asks = 0
    reached = None

    def listen(event):
        nonlocal settled_asks
        if event["type"] == "node-settled" and event.get("kind") == "ask" and not event.get("cached"):
            settled_asks += 1
            if stop_after is not None and settled_asks >= stop_after:
                reached.set()

    async def main():
        nonlocal reached
        reached = anyio.Event()
        async with Engine() as engine:
            handle = engine.start(StartRequest(script=script, agent_port=port, journal=journal, listeners=[listen],
                                               max_concurrency=max_concurrency, grace_period_s=2,
                                               run_id=run_id, resume=resume))
            if stop_after is not None:
                async with anyio.create_task_group() as group:
                    async def stop():
                        await reached.wait()
                        handle.cancel("interrupted")
                    group.start_soon(stop)
                    result = await handle.result
                    group.cancel_scope.cancel()
                return result
            return await handle.result

    return anyio.run(main)


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(script=workflows(), delays=st.lists(st.sampled_from([0.0, 0.001, 0.003, 0.008]), min_size=1, max_size=6),
       max_concurrency=st.sampled_from([1, 2, 4, 16]), data=st.data())
def test_an_interrupted_and_resumed_run_equals_an_uninterrupted_one(script, delays, max_concurrency, data):
    with tempfile.TemporaryDirectory() as folder:
        with SqliteJournal(Path(folder) / "ref" / "state.db") as journal:
            reference_port = fake_port(delays)
            reference = run(journal, reference_port, script=script, max_concurrency=max_concurrency)
        assert reference.status == "completed", (reference.error, script)
        expected = reference_port.calls
        assert len(set(expected)) == len(expected)
        k = data.draw(st.integers(0, max(0, len(expected) - 1)), label="stop after k settled asks")

        with SqliteJournal(Path(folder) / "fuzz" / "state.db") as journal:
            first = fake_port(delays)
            stopped = run(journal, first, script=script, stop_after=k, max_concurrency=max_concurrency)
            nodes = [n for n in journal.list_nodes(stopped.run_id) if n.kind == "ask"]
            done = {(n.site, n.key) for n in nodes if n.status in ("completed", "failed")}
            running = {(n.site, n.key) for n in nodes if n.status == "running"}
            if stopped.status == "completed":  # it finished before the cancel could land
                event("finished before the interruption")
                assert stopped.value == reference.value
                return
            assert (stopped.status, stopped.stop_reason) == ("stopped", "interrupted"), stopped.error
            assert set(first.calls) <= done | running  # written ahead of dispatch

            event("interrupted")
            event(f"asks in flight at the interruption: {len(set(first.calls) - done)}")
            second = fake_port(delays)
            resumed = run(journal, second, run_id=stopped.run_id, resume=True, max_concurrency=max_concurrency)
        assert resumed.status == "completed", (resumed.error, script)
        assert resumed.run_id == stopped.run_id
        assert resumed.value == reference.value, script
        assert resumed.reports == reference.reports, script
        assert len(set(first.calls)) == len(first.calls) and len(set(second.calls)) == len(second.calls)
        assert set(first.calls) | set(second.calls) == set(expected), script
        assert not set(second.calls) & done, (script, set(second.calls) & done)
        in_flight = set(first.calls) - done
        assert set(first.calls) & set(second.calls) <= in_flight, script
        assert len(first.calls) + len(second.calls) - len(expected) <= len(in_flight)
