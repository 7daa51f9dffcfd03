"""This module defines `serve`, what `dwfc worker` runs: a Temporal worker on one task queue that
executes DWF runs (`workflow.DwfRunWorkflow`) and their effects (`activities.DwfActivities`)
over one workspace, with at most `max_concurrency` activities (asks, reads, commands) at once;
and beside it a second worker on the task queue only this process polls
(`contract.worker_queue`), with slots of its own, for the isolated actors whose worktrees it
holds. Its Temporal identity names that queue and its workspace's repository
(`worker_identity`), which `dwfc run --temporal` reads from the task queue's pollers.

The workflow runs in Temporal's sandbox with the dwf modules and the libraries the engine uses
passed through (`SANDBOX`): they are imported once per worker, not once per workflow, and keep no
state between runs; the sandbox still refuses non-deterministic calls made from workflow code.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
import uuid
from pathlib import Path

from temporalio.client import Client
from temporalio.runtime import LogForwardingConfig, LoggingConfig, Runtime, TelemetryConfig, TelemetryFilter
from temporalio.worker import Worker
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

from dwf.runtime.temporal import contract
from dwf.runtime.temporal.activities import DwfActivities
from dwf.runtime.temporal.workflow import DwfRunWorkflow

PASSED_THROUGH = ("dwf", "anyio", "sniffio", "jsonschema", "jsonschema_specifications", "referencing", "rpds",
                  "attrs", "idna")
SANDBOX = SandboxedWorkflowRunner(restrictions=SandboxRestrictions.default.with_passthrough_modules(*PASSED_THROUGH))
DEFAULT_MAX_CONCURRENCY = 16


_RUNTIME: Runtime | None = None


def runtime() -> Runtime:
    """The SDK runtime of this process: the core's log lines (its retries while a server restarts)
    go to the `temporalio.core` logger, i.e. stderr, never to stdout, which `--progress json` owns."""
    global _RUNTIME
    if _RUNTIME is None:
        logging_config = LoggingConfig(filter=TelemetryFilter(core_level="WARN", other_level="ERROR"),
                                       forwarding=LogForwardingConfig(logger=logging.getLogger("temporalio.core")))
        _RUNTIME = Runtime(telemetry=TelemetryConfig(logging=logging_config, metrics=None))
    return _RUNTIME


async def connect(address: str, namespace: str = contract.DEFAULT_NAMESPACE) -> Client:
    """A client of the Temporal server at `address` (HOST:PORT)."""
    return await Client.connect(address, namespace=namespace, runtime=runtime())


def build_workers(client: Client, *, workspace: Path, agent: str | None, task_queue: str = contract.DEFAULT_TASK_QUEUE,
                  max_concurrency: int = DEFAULT_MAX_CONCURRENCY, model: str | None = None) -> tuple[Worker, Worker]:
    """The two workers (not started) of one `dwfc worker`: the shared `task_queue`, and its own."""
    own_queue = contract.worker_queue(task_queue, uuid.uuid4().hex[:12])
    activities = DwfActivities(client, workspace, agent, own_queue, model=model)
    identity = contract.worker_identity(f"{os.getpid()}@{socket.gethostname()}", own_queue, activities.identity)
    # debug_mode turns off Temporal's 2 s deadlock detector (the sandbox stays on): a workflow
    # activation is bounded by DWF's own step and work limits, and the regex guard may run a
    # pattern in a subprocess (runtime/interpreter/regex.py) that takes seconds on a loaded
    # machine, which the detector would fail, retry and fail again.
    shared = Worker(client, task_queue=task_queue, workflows=[DwfRunWorkflow], activities=activities.definitions(),
                    workflow_runner=SANDBOX, max_concurrent_activities=max_concurrency, identity=identity,
                    graceful_shutdown_timeout=contract.HEARTBEAT_TIMEOUT, debug_mode=True)
    # Its own slots: a live worker always polls its own queue, so an activity routed there that
    # does not start in time means the worker is gone (contract.AFFINITY_START_TIMEOUT).
    own = Worker(client, task_queue=own_queue, activities=activities.definitions(), identity=identity,
                 max_concurrent_activities=max_concurrency, graceful_shutdown_timeout=contract.HEARTBEAT_TIMEOUT)
    return shared, own


async def serve(address: str, *, namespace: str, task_queue: str, workspace: Path, agent: str | None,
                max_concurrency: int, model: str | None = None, ready=None) -> None:
    """Run a worker until SIGINT or SIGTERM; `ready()` is called once it polls."""
    client = await connect(address, namespace)
    shared, own = build_workers(client, workspace=workspace, agent=agent, task_queue=task_queue,
                                max_concurrency=max_concurrency, model=model)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for number in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(number, stop.set)
    async with shared, own:
        if ready is not None:
            ready()
        await stop.wait()
