"""Benchmark the SQLite journal (RUNTIME §5) against the in-memory journal, measured in the same
run, and write the `## journal` section of docs/performance.md.

(a) throughput: the 10,000-ask benchmark of bench/run.py (instant scripted port, concurrency 16)
    with the SQLite journal vs the in-memory journal; target SQLite >= 0.5x the in-memory rate.
(b) resume replay: a completed 10,000-ask run is marked stopped and resumed: every ask replays
    from the journal with zero port calls; target <= 2 s and >= 20x faster than the original
    run's engine time.
(c) size: database bytes per 1,000 asks with distinct 2 KiB results (and, for comparison, with
    one identical 2 KiB result, which content addressing stores once).

Usage: python bench/journal.py [--no-write] [--quick]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from report import use_project_interpreter, write_section

use_project_interpreter(__file__)

import anyio  # noqa: E402

from run import throughput_script  # noqa: E402  (bench/run.py: the same 10,000-ask script)
from dwf.runtime.engine import Engine, StartRequest  # noqa: E402
from dwf.runtime.ports import NUDGE_MESSAGE, Usage  # noqa: E402
from dwf.runtime.scripted import ScriptedAgentPort, parse_fixture  # noqa: E402
from dwf.runtime.sqlite_journal import SqliteJournal  # noqa: E402

SECTION = "## journal"


class SizedPort:
    """Answers each ask at once with a result of `size` characters, distinct per ask unless `same`."""

    def __init__(self, size: int, same: bool = False):
        self.size, self.same, self.calls = size, same, 0

    async def close(self) -> None:
        return None

    async def run_turn(self, request, message, channel) -> str:
        if message == NUDGE_MESSAGE:
            return "There is nothing more to submit."
        self.calls += 1
        channel.usage(Usage(output_tokens=1))
        seed = "same" if self.same else request.key + request.instructions
        return (seed + "|" + "x" * self.size)[: self.size] if self.same else (seed * (self.size // len(seed) + 1))[: self.size]


async def timed(request: StartRequest):
    async with Engine() as engine:
        started = time.perf_counter()
        run = engine.start(request)
        result = await run.result
        elapsed = time.perf_counter() - started
    assert result.status == "completed", result.error
    return elapsed, result


def instant_port():
    return ScriptedAgentPort(parse_fixture({"rules": [], "default": {"result": "ok"}}))


def bench_throughput_and_replay(asks: int, folder: Path) -> tuple[dict, dict]:
    script = throughput_script(asks, 2000 if asks >= 2000 else asks)
    memory_s, memory = anyio.run(lambda: timed(StartRequest(script=script, agent_port=instant_port(), max_concurrency=16)))
    assert memory.value == asks
    with SqliteJournal(folder / "throughput" / "state.db") as journal:
        sqlite_s, result = anyio.run(lambda: timed(StartRequest(script=script, agent_port=instant_port(), journal=journal,
                                                                max_concurrency=16)))
        assert result.value == asks
        ask_rows = sum(1 for n in journal.list_nodes(result.run_id) if n.kind == "ask")
        assert ask_rows == asks, ask_rows
        journal.update_run(result.run_id, status="stopped", stop_reason="user")  # completed but stopped
        port = instant_port()
        replay_s, replayed = anyio.run(lambda: timed(StartRequest(script="", agent_port=port, journal=journal,
                                                                  run_id=result.run_id, resume=True)))
        assert replayed.value == asks and not port.calls, len(port.calls)
    throughput = {"asks": asks, "memory_s": memory_s, "sqlite_s": sqlite_s, "memory_rate": asks / memory_s,
                  "sqlite_rate": asks / sqlite_s, "ratio": memory_s / sqlite_s}
    replay = {"nodes": ask_rows, "seconds": replay_s, "original_s": sqlite_s, "speedup": sqlite_s / replay_s,
              "port_calls": len(port.calls)}
    return throughput, replay


def database_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.parent.glob(path.name + "*"))


def bench_size(asks: int, folder: Path, same: bool) -> dict:
    script = throughput_script(asks, min(asks, 2000))
    path = folder / ("same" if same else "distinct") / "state.db"
    with SqliteJournal(path) as journal:
        empty = database_bytes(path)
        port = SizedPort(2048, same=same)
        _, result = anyio.run(lambda: timed(StartRequest(script=script, agent_port=port, journal=journal, max_concurrency=16)))
        assert result.value == asks and port.calls == asks
    total = database_bytes(path)  # after close: the WAL is checkpointed (or counted with the file)
    return {"asks": asks, "bytes": total, "empty": empty, "per_1000": (total - empty) * 1000 / asks}


def render(t: dict, r: dict, distinct: dict, same: dict) -> str:
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    verdict = lambda ok: "met" if ok else "**missed**"
    kib = lambda n: f"{n / 1024:,.0f} KiB"
    return "\n".join([
        SECTION, "",
        f"Generated by `python bench/journal.py` on {now}: {os.cpu_count()} CPUs (load average {load:.1f} at the start), "
        f"Python {platform.python_version()}, {platform.system()} {platform.machine()}.", "",
        "In-process runs through `Engine` with the scripted agent port; the SQLite journal is a file in a temporary "
        "folder (WAL mode), the baseline the in-memory journal in the same process.", "",
        "| benchmark | measured | baseline (same run) | ratio / rate | target |",
        "|---|---:|---:|---:|---|",
        f"| (a) {t['asks']:,} asks, instant port, concurrency 16, SQLite journal | {t['sqlite_s']:.2f} s "
        f"({t['sqlite_rate']:,.0f} asks/s) | in-memory {t['memory_s']:.2f} s ({t['memory_rate']:,.0f} asks/s) | "
        f"**{t['ratio']:.2f}×** the in-memory rate | ≥ 0.5×: {verdict(t['ratio'] >= 0.5)} |",
        f"| (b) resume replay of a stopped run with {r['nodes']:,} completed asks ({r['port_calls']} port calls) | "
        f"{r['seconds']:.2f} s | original run {r['original_s']:.2f} s | **{r['speedup']:.1f}×** faster | "
        f"≤ 2 s and ≥ 20×: {verdict(r['seconds'] <= 2 and r['speedup'] >= 20)} |",
        f"| (c) database size, {distinct['asks']:,} asks with distinct 2 KiB results | {kib(distinct['bytes'])} "
        f"(empty {kib(distinct['empty'])}) | identical 2 KiB results (inline: below the 4 KiB blob threshold, not deduplicated): {kib(same['per_1000'])} per 1,000 asks | "
        f"**{kib(distinct['per_1000'])} per 1,000 asks** | — |",
        "",
    ])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    options = parser.parse_args()
    asks = 2000 if options.quick else 10_000
    with tempfile.TemporaryDirectory(prefix="dwf-bench-journal-") as folder:
        t, r = bench_throughput_and_replay(asks, Path(folder))
        print(f"(a) {asks} asks: SQLite {t['sqlite_s']:.2f} s ({t['sqlite_rate']:.0f} asks/s), in-memory "
              f"{t['memory_s']:.2f} s ({t['memory_rate']:.0f} asks/s), ratio {t['ratio']:.2f}")
        print(f"(b) replay of {r['nodes']} nodes: {r['seconds']:.2f} s, {r['port_calls']} port calls, "
              f"original {r['original_s']:.2f} s, {r['speedup']:.1f}x faster")
        distinct = bench_size(1000, Path(folder), same=False)
        same = bench_size(1000, Path(folder), same=True)
        print(f"(c) {distinct['per_1000'] / 1024:.0f} KiB per 1,000 asks of distinct 2 KiB results "
              f"({same['per_1000'] / 1024:.0f} KiB when identical)")
    if not options.no_write:
        write_section(SECTION, render(t, r, distinct, same))
    return 0


if __name__ == "__main__":
    sys.exit(main())
