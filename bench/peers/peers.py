"""Benchmark DWF against LangGraph with its SQLite checkpointer on the same workloads, in
alternating rounds in one run, and write the `## Peers` section of docs/performance.md.

    pip install -e '.[peers]'            # LangGraph and its SQLite checkpointer, pinned (not a default dependency)
    python bench/peers/peers.py          # measure, print the table, rewrite docs/performance.md
    python bench/peers/peers.py --no-write --rounds 1

Nothing in the test suite runs this (it is under bench/, and its dependencies are the optional
`peers` extra of pyproject.toml).

Workloads, the same on both sides, each durable (results written to a SQLite file in a
temporary folder, so a crashed run does not ask again what it had finished):

(a) 2,000 instant asks, 16 in flight: DWF runs `bench/run.py`'s throughput script (2,000 asks
    over 16 named agents, one `parallel`) on the scripted agent port answering at once, with the
    SQLite journal; LangGraph fans out 2,000 `Send` tasks from one node to an `ask` node that
    returns at once, with `AsyncSqliteSaver` and `max_concurrency` 16, once with
    `durability="sync"` (a step's writes are saved before it goes on; DWF commits a dispatched
    ask's row before it runs) and once with its default, `"async"`.
(b) 1,024 asks of 50 ms, 16 in flight: the same fan-outs, the ask taking 50 ms (the scripted
    port's `delay_s`; `asyncio.sleep` in the LangGraph node). The ideal is ceil(1024/16) x 50 ms.

Each round runs (a) on DWF, LangGraph sync and LangGraph async, then (b) the same way; a ratio
is the median of the per-round ratios (LangGraph time / DWF time: above 1 means DWF is faster),
since this shared machine's timings vary between identical runs.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import operator
import os
import platform
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Annotated, TypedDict

BENCH = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BENCH))

from report import use_project_interpreter, write_section  # noqa: E402  (bench/ is not a package)

use_project_interpreter(__file__)

try:
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
    from langgraph.graph import END, START, StateGraph
    from langgraph.types import Send
except ImportError:
    sys.exit("bench/peers: LangGraph is not installed; install the optional extra: pip install -e '.[peers]'")

import anyio  # noqa: E402

from run import fanout_script, throughput_script  # noqa: E402  (bench/run.py: the same scripts)
from dwf.runtime.engine import Ceilings, Engine, StartRequest  # noqa: E402
from dwf.runtime.interpreter.limits import Limits  # noqa: E402
from dwf.runtime.journal.sqlite import SqliteJournal  # noqa: E402
from dwf.runtime.ports.scripted import ScriptedAgentPort, parse_fixture  # noqa: E402

SECTION = "## Peers"
INSTANT_ASKS = 2000
FANOUT_ASKS, LATENCY_S = 1024, 0.05
CONCURRENCY = 16
ROUNDS = 3


# ---------------------------------------------------------------- DWF


def dwf_run(folder: Path, asks: int, latency: float) -> float:
    """Seconds of one DWF run of `asks` asks taking `latency` each, journaled in SQLite."""
    script = throughput_script(asks, asks) if latency == 0 else fanout_script(asks)
    default = {"result": "ok", "delay_s": latency} if latency else {"result": "ok"}
    port = ScriptedAgentPort(parse_fixture({"rules": [], "default": default}))
    journal = SqliteJournal(folder / "state.db")

    async def run() -> float:
        async with Engine() as engine:
            started = time.perf_counter()
            handle = engine.start(StartRequest(script=script, agent_port=port, journal=journal,
                                               max_concurrency=CONCURRENCY, max_agents=asks + 1,
                                               limits=Limits(agents=asks + 1), ceilings=Ceilings(max_agents=asks + 1)))
            result = await handle.result
            elapsed = time.perf_counter() - started
        assert result.status == "completed" and result.value == asks, (result.status, result.error)
        return elapsed

    try:
        return anyio.run(run)
    finally:
        journal.close()


# ---------------------------------------------------------------- LangGraph


class FanOut(TypedDict):
    asks: int
    latency: float
    results: Annotated[list, operator.add]


class Ask(TypedDict):
    index: int
    latency: float


def fan_out(state: FanOut) -> list[Send]:
    return [Send("ask", {"index": i, "latency": state["latency"]}) for i in range(state["asks"])]


async def ask(task: Ask) -> dict:
    if task["latency"]:
        await asyncio.sleep(task["latency"])
    return {"results": [f"ok {task['index']}"]}


def langgraph_graph():
    graph = StateGraph(FanOut)
    graph.add_node("ask", ask)
    graph.add_conditional_edges(START, fan_out, ["ask"])
    graph.add_edge("ask", END)
    return graph


def langgraph_run(folder: Path, asks: int, latency: float, durability: str) -> float:
    """Seconds of one LangGraph run of the same fan-out, checkpointed in SQLite."""
    async def run() -> float:
        async with AsyncSqliteSaver.from_conn_string(str(folder / "checkpoints.db")) as saver:
            app = langgraph_graph().compile(checkpointer=saver)
            config = {"configurable": {"thread_id": "bench"}, "max_concurrency": CONCURRENCY,
                      "recursion_limit": 10}
            started = time.perf_counter()
            state = await app.ainvoke({"asks": asks, "latency": latency, "results": []}, config,
                                      durability=durability)
            elapsed = time.perf_counter() - started
        assert len(state["results"]) == asks, len(state["results"])
        return elapsed

    return asyncio.run(run())


# ---------------------------------------------------------------- rounds and report


WORKLOADS = {"a": (INSTANT_ASKS, 0.0), "b": (FANOUT_ASKS, LATENCY_S)}
ENGINES = {"dwf": lambda folder, asks, latency: dwf_run(folder, asks, latency),
           "sync": lambda folder, asks, latency: langgraph_run(folder, asks, latency, "sync"),
           "async": lambda folder, asks, latency: langgraph_run(folder, asks, latency, "async")}


def measure(rounds: int) -> dict:
    """Seconds by (workload, engine), one entry per round, the engines alternating in each."""
    times = {(workload, engine): [] for workload in WORKLOADS for engine in ENGINES}
    with tempfile.TemporaryDirectory(prefix="dwf-bench-peers-") as tmp:
        for number in range(rounds):
            for workload, (asks, latency) in WORKLOADS.items():
                for engine, run in ENGINES.items():
                    folder = Path(tmp) / f"{workload}-{engine}-{number}"
                    folder.mkdir()
                    times[workload, engine].append(run(folder, asks, latency))
    return times


def render(times: dict, rounds: int, load: float) -> str:
    import langgraph.version

    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    ideal = math.ceil(FANOUT_ASKS / CONCURRENCY) * LATENCY_S
    median = {key: statistics.median(values) for key, values in times.items()}

    def ratio(workload: str, engine: str) -> str:
        pairs = [peer / dwf for dwf, peer in zip(times[workload, "dwf"], times[workload, engine])]
        return f"**{statistics.median(pairs):.2f}×** ({', '.join(f'{r:.2f}' for r in pairs)})"

    def took(workload: str, engine: str) -> str:
        seconds = median[workload, engine]
        if workload == "a":
            return f"{seconds:.2f} s ({INSTANT_ASKS / seconds:,.0f} asks/s)"
        return f"{seconds:.2f} s ({seconds / ideal:.2f}× ideal)"

    rows = [f"| {label} | {took(w, 'dwf')} | {took(w, 'sync')} | {ratio(w, 'sync')} | {took(w, 'async')} | "
            f"{ratio(w, 'async')} |"
            for w, label in (("a", f"(a) {INSTANT_ASKS:,} instant asks"),
                             ("b", f"(b) {FANOUT_ASKS:,} asks of {LATENCY_S * 1000:.0f} ms (ideal {ideal:.2f} s)"))]
    return "\n".join([
        SECTION,
        "",
        f"Generated by `python bench/peers/peers.py` on {now}: {os.cpu_count()} CPUs (load average {load:.1f} "
        f"at the start), Python {platform.python_version()}, {platform.system()} {platform.machine()}; "
        f"LangGraph {langgraph.version.__version__} with `AsyncSqliteSaver` (the optional `peers` extra).",
        "",
        f"The same workloads in one process each, in {rounds} rounds in which the engines alternate (DWF, "
        "LangGraph `durability=\"sync\"`, LangGraph `durability=\"async\"`, its default), all durable in a "
        f"SQLite file (DWF's journal, LangGraph's checkpointer), {CONCURRENCY} asks in flight. Times are "
        "medians; a ratio is LangGraph / DWF, the median of the per-round ratios (each round's in brackets; "
        "above 1: DWF is faster). `sync` saves a step's writes before the step goes on, as DWF commits a "
        "dispatched ask's row before it runs; `async` saves them while the next step runs. See the docstring "
        "of `bench/peers/peers.py` for the graphs.",
        "",
        "| workload | DWF | LangGraph sync | LangGraph sync / DWF | LangGraph async | LangGraph async / DWF |",
        "|---|---:|---:|---:|---:|---:|",
        *rows,
        "",
    ])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-write", action="store_true", help="print the figures without touching docs/")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help=f"alternating rounds (default {ROUNDS})")
    options = parser.parse_args()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    times = measure(max(1, options.rounds))
    section = render(times, max(1, options.rounds), load)
    print(section)
    if not options.no_write:
        write_section(SECTION, section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
