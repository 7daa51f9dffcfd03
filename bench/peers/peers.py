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
    returns at once, with `AsyncSqliteSaver`, `max_concurrency` 16 and `durability="sync"` (a
    step's writes are saved before it goes on; DWF commits a dispatched ask's row before it runs).
(b) 1,024 asks of 50 ms, 16 in flight: the same fan-outs, the ask taking 50 ms (the scripted
    port's `delay_s`; `asyncio.sleep` in the LangGraph node). The ideal is ceil(1024/16) x 50 ms.

Each round runs DWF (a), LangGraph (a), DWF (b), LangGraph (b); a ratio is the median of the
per-round ratios (LangGraph time / DWF time: above 1 means DWF is faster), since this shared
machine's timings vary between identical runs.
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


def langgraph_run(folder: Path, asks: int, latency: float) -> float:
    """Seconds of one LangGraph run of the same fan-out, checkpointed in SQLite."""
    async def run() -> float:
        async with AsyncSqliteSaver.from_conn_string(str(folder / "checkpoints.db")) as saver:
            app = langgraph_graph().compile(checkpointer=saver)
            config = {"configurable": {"thread_id": "bench"}, "max_concurrency": CONCURRENCY,
                      "recursion_limit": 10}
            started = time.perf_counter()
            state = await app.ainvoke({"asks": asks, "latency": latency, "results": []}, config, durability="sync")
            elapsed = time.perf_counter() - started
        assert len(state["results"]) == asks, len(state["results"])
        return elapsed

    return asyncio.run(run())


# ---------------------------------------------------------------- rounds and report


def measure(rounds: int) -> dict:
    times = {key: [] for key in ("dwf_a", "lg_a", "dwf_b", "lg_b")}
    with tempfile.TemporaryDirectory(prefix="dwf-bench-peers-") as tmp:
        for number in range(rounds):
            for key, run, asks, latency in (("dwf_a", dwf_run, INSTANT_ASKS, 0.0), ("lg_a", langgraph_run, INSTANT_ASKS, 0.0),
                                            ("dwf_b", dwf_run, FANOUT_ASKS, LATENCY_S),
                                            ("lg_b", langgraph_run, FANOUT_ASKS, LATENCY_S)):
                folder = Path(tmp) / f"{key}-{number}"
                folder.mkdir()
                times[key].append(run(folder, asks, latency))
    return times


def render(times: dict, rounds: int) -> str:
    import langgraph.version

    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    ideal = math.ceil(FANOUT_ASKS / CONCURRENCY) * LATENCY_S
    ratio_a = statistics.median(lg / dwf for dwf, lg in zip(times["dwf_a"], times["lg_a"]))
    ratio_b = statistics.median(lg / dwf for dwf, lg in zip(times["dwf_b"], times["lg_b"]))
    median = {key: statistics.median(values) for key, values in times.items()}
    per_round = lambda a, b: ", ".join(f"{lg / dwf:.2f}" for dwf, lg in zip(times[a], times[b]))
    return "\n".join([
        SECTION,
        "",
        f"Generated by `python bench/peers/peers.py` on {now}: {os.cpu_count()} CPUs (load average {load:.1f} "
        f"at the start), Python {platform.python_version()}, {platform.system()} {platform.machine()}; "
        f"LangGraph {langgraph.version.__version__} with `AsyncSqliteSaver` (the optional `peers` extra).",
        "",
        f"The same workloads in one process each, in {rounds} alternating rounds (DWF, LangGraph, DWF, LangGraph); "
        "both durable in a SQLite file (DWF's journal, LangGraph's checkpointer with `durability=\"sync\"`), "
        f"{CONCURRENCY} asks in flight. Times are medians; a ratio is the median of the per-round ratios "
        "LangGraph / DWF (above 1: DWF is faster). See the docstring of `bench/peers/peers.py` for the graphs.",
        "",
        "| workload | DWF | LangGraph | LangGraph / DWF | per round |",
        "|---|---:|---:|---:|---|",
        f"| (a) {INSTANT_ASKS:,} instant asks | {median['dwf_a']:.2f} s ({INSTANT_ASKS / median['dwf_a']:,.0f} asks/s) | "
        f"{median['lg_a']:.2f} s ({INSTANT_ASKS / median['lg_a']:,.0f} asks/s) | **{ratio_a:.2f}×** | "
        f"{per_round('dwf_a', 'lg_a')} |",
        f"| (b) {FANOUT_ASKS:,} asks of {LATENCY_S * 1000:.0f} ms (ideal {ideal:.2f} s) | {median['dwf_b']:.2f} s "
        f"({median['dwf_b'] / ideal:.2f}× ideal) | {median['lg_b']:.2f} s ({median['lg_b'] / ideal:.2f}× ideal) | "
        f"**{ratio_b:.2f}×** | {per_round('dwf_b', 'lg_b')} |",
        "",
    ])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-write", action="store_true", help="print the figures without touching docs/")
    parser.add_argument("--rounds", type=int, default=ROUNDS, help=f"alternating rounds (default {ROUNDS})")
    options = parser.parse_args()
    times = measure(max(1, options.rounds))
    section = render(times, max(1, options.rounds))
    print(section)
    if not options.no_write:
        write_section(SECTION, section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
