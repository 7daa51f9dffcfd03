"""A run's caps and the host's ceilings (`engine/caps.py`): the default of 16 asks in flight,
meta and callers lowering caps but never raising them above the ceiling, in the engine and
through the tool layer."""

import json
from pathlib import Path

import anyio
import pytest

from dwf.runtime.engine import DEFAULT_MAX_CONCURRENCY, Ceilings, Engine, StartError, StartRequest, resolve_caps
from dwf.runtime.tools.layer import ToolLayer

from fakes import FakeAgentPort


@pytest.fixture
def anyio_backend():
    return "asyncio"


class GatedPort:
    """Holds every turn until `target` turns are in flight at once (or `patience` seconds
    passed), then lets them all finish: `max_in_flight` is the most turns the engine admitted
    together, whatever the machine's speed."""

    def __init__(self, target: int, patience: float = 5.0):
        self.target, self.patience = target, patience
        self.in_flight = self.max_in_flight = 0
        self.full = anyio.Event()

    async def run_turn(self, request, message, channel) -> str:
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        if self.in_flight >= self.target:
            self.full.set()
        with anyio.move_on_after(self.patience):
            await self.full.wait()
        self.in_flight -= 1
        return f"done: {request.instructions}"

    async def close(self) -> None:
        pass


def fan_out(items: int, meta: str = "") -> str:
    return (f'meta = {{"name": "caps", "description": "Caps tests."{meta}}}\n'
            f'return await parallel(agent(f"w{{i}}").ask(f"item {{i}}") for i in range({items}))\n')


async def start(request: StartRequest):
    events = []
    request.listeners.append(events.append)
    async with Engine() as engine:
        outcome = await engine.start(request).result
    started = next(e for e in events if e["type"] == "run-started")
    return outcome, started["caps"]


@pytest.mark.anyio
async def test_a_run_with_no_caps_admits_sixteen_asks_at_once():
    port = GatedPort(target=16)
    outcome, caps = await start(StartRequest(script=fan_out(20), agent_port=port))
    assert outcome.status == "completed", outcome.error
    assert DEFAULT_MAX_CONCURRENCY == 16 and caps["max_concurrency"] == 16
    assert port.max_in_flight == 16  # not min(16, cpus - 2)


@pytest.mark.anyio
async def test_meta_may_lower_the_caps():
    outcome, caps = await start(StartRequest(script=fan_out(4, ', "max_concurrency": 3, "max_agents": 9'),
                                             agent_port=FakeAgentPort()))
    assert outcome.status == "completed"
    assert caps == {"max_concurrency": 3, "max_agents": 9, "budget": None}


@pytest.mark.anyio
async def test_meta_never_raises_a_cap_above_the_default_ceiling():
    outcome, caps = await start(StartRequest(script=fan_out(2, ', "max_concurrency": 64, "max_agents": 1500'),
                                             agent_port=FakeAgentPort()))
    assert outcome.status == "completed"
    assert caps == {"max_concurrency": 16, "max_agents": 1000, "budget": None}


@pytest.mark.anyio
async def test_an_operators_ceiling_bounds_meta_and_the_caller():
    ceilings = Ceilings(max_agents=5, max_concurrency=2)
    port = FakeAgentPort(delay=0.01)
    outcome, caps = await start(StartRequest(script=fan_out(4, ', "max_agents": 1500'), agent_port=port,
                                             max_concurrency=8, ceilings=ceilings))
    assert outcome.status == "completed"
    assert caps["max_concurrency"] == 2 and caps["max_agents"] == 5 and port.max_in_flight == 2
    outcome, _ = await start(StartRequest(script=fan_out(6, ', "max_agents": 1500'), agent_port=FakeAgentPort(),
                                          ceilings=ceilings))
    assert outcome.status == "errored" and "the actor limit (5) was exceeded" in outcome.error


@pytest.mark.anyio
async def test_a_live_run_cannot_be_raised_above_the_ceiling():
    port = FakeAgentPort(delay=0.05)
    async with Engine() as engine:
        run = engine.start(StartRequest(script=fan_out(8), agent_port=port, max_concurrency=1,
                                        ceilings=Ceilings(max_concurrency=3)))
        await anyio.sleep(0.02)
        assert run.set_max_concurrency(50)
        assert not run.set_max_concurrency(3)  # already at the ceiling: nothing changed
        assert (await run.result).status == "completed"
    assert port.max_in_flight <= 3


@pytest.mark.anyio
async def test_unusable_ceilings_refuse_the_run():
    async with Engine() as engine:
        with pytest.raises(StartError) as refused:
            engine.start(StartRequest(script=fan_out(1), agent_port=FakeAgentPort(),
                                      ceilings=Ceilings(max_agents=0, max_concurrency=2)))
    assert refused.value.problems == ["the max_agents ceiling must be an integer of at least 1, got 0"]


def test_resolve_caps_names_each_clamped_cap():
    caps, problems = resolve_caps(max_concurrency=None, max_agents=None, budget=None, stored={"max_concurrency": 40},
                                  meta={"max_agents": 1500}, ceilings=Ceilings())
    assert problems == [] and (caps.max_concurrency, caps.max_agents) == (16, 1000)
    assert caps.clamped == {"max_concurrency": 40, "max_agents": 1500}
    caps, problems = resolve_caps(max_concurrency=4, max_agents=None, budget=-1, stored=None, meta={},
                                  ceilings=Ceilings())
    assert caps is None and problems == ["the budget must be a non-negative number of tokens, got -1"]


# ---------------------------------------------------------------- the tool layer

SCRIPT = '''meta = {"name": "wide", "description": "Asks for many actors.", "max_agents": 1500}
return await agent("a").ask("go")
'''


@pytest.mark.anyio
async def test_the_tool_layer_holds_runs_to_its_ceilings(tmp_path, monkeypatch):
    monkeypatch.setenv("DWF_HOME", str(tmp_path / "home"))
    root = tmp_path / "ws"
    root.mkdir()
    (root / "any.json").write_text(json.dumps({"rules": [], "default": {"result": "ok"}}))
    requests = []

    async def approve(request):
        requests.append(request)
        return True

    async with ToolLayer(root, agent=f"scripted:{root / 'any.json'}", approver=approve,
                         ceilings=Ceilings(max_agents=20, max_concurrency=4)) as tools:
        started = await tools.call("CreateWorkflow", {"script": SCRIPT, "max_concurrency": 8})
        assert started["ok"], started
        with anyio.fail_after(10):
            while (await tools.call("GetWorkflowRun", {"run": started["run_id"]}))["status"] == "running":
                await anyio.sleep(0.02)
        row = tools.journal.get_run(started["run_id"])
    workspace = row.caps.pop("workspace")  # the workspace identity a resume checks (issue #19)
    assert workspace.startswith(str(tmp_path.resolve())) and "inode" in workspace
    assert row.status == "completed" and row.caps == {"max_concurrency": 4, "max_agents": 20, "budget": None,
                                                      "given": ["max_concurrency"]}
    [request] = requests
    assert ("Caps: max concurrency 4 (asked for 8; this host's ceiling is 4), "
            "max agents 20 (asked for 1,500; this host's ceiling is 20)") in request.text
    assert Path(started["draft"]).is_file()
