"""This module defines the client side of DWF runs on Temporal: `submit` starts a prepared run as a
`DwfRun` workflow (workflow id = run id) once `serving_problems` found no reason that its task
queue's workers cannot serve it, and `follow` delivers its events to the listeners a local run has
(the progress line, `--progress stream-json`) by polling the `events` query, then returns its
`RunOutcome` (or, for a run refused at start, its problems, as a local start lists them);
`cancel_run`, `answer_question`, `list_runs`, `show_run` and `run_nodes` are what `dwfc cancel`,
`answer`, `runs` and `show` do for runs on Temporal (signals, queries, visibility).
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable

from temporalio.api.enums.v1 import TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowFailureError
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError

from dwf.runtime.engine.request import RunOutcome
from dwf.runtime.temporal import contract

POLL_S = 0.2
STATUS = {WorkflowExecutionStatus.RUNNING: "running", WorkflowExecutionStatus.COMPLETED: "completed",
          WorkflowExecutionStatus.FAILED: "errored", WorkflowExecutionStatus.TERMINATED: "stopped",
          WorkflowExecutionStatus.CANCELED: "stopped", WorkflowExecutionStatus.TIMED_OUT: "errored",
          WorkflowExecutionStatus.CONTINUED_AS_NEW: "running"}


async def submit(client: Client, run_input: dict, *, task_queue: str = contract.DEFAULT_TASK_QUEUE):
    """Start the run (`contract.run_input`); returns its workflow handle."""
    return await client.start_workflow(contract.WORKFLOW, contract.encode(run_input), id=run_input["run_id"],
                                       task_queue=task_queue, result_type=str)


async def serving_problems(client: Client, task_queue: str, repository: str) -> list[str]:
    """Why the DWF workers polling `task_queue` cannot serve a run of `repository` (the
    `repository_identity` of its workspace): they all serve another one. Empty when one serves
    it, or when none polls yet (the run then waits for a worker, as Temporal's runs do)."""
    described = await client.workflow_service.describe_task_queue(DescribeTaskQueueRequest(
        namespace=client.namespace, task_queue=TaskQueue(name=task_queue),
        task_queue_type=TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY))
    served = {found[1] for found in (contract.parse_identity(p.identity) for p in described.pollers) if found}
    if not served or repository in served:
        return []
    return [f"the workers of task queue {task_queue} serve {' and '.join(f'`{r}`' for r in sorted(served))}, "
            f"not this workspace's repository `{repository}`: run `dwfc worker --workspace DIR` in a checkout of "
            "it, or pick their task queue with --task-queue"]


async def follow(handle, listeners: list[Callable[[dict], Any]]) -> RunOutcome | list[str]:
    """Deliver the run's events to `listeners` in order, as they happen, and return its outcome;
    a run refused at start returns its problems instead (`contract.START_REFUSED`)."""
    seen = 0
    result_task = asyncio.ensure_future(handle.result())
    try:
        while True:
            if result_task.done() and isinstance(result_task.exception(), RPCError):
                result_task = asyncio.ensure_future(handle.result())  # the server went away: wait again
            done = result_task.done()
            try:
                events = contract.decode(await handle.query(contract.QUERY_EVENTS, seen, result_type=str))
            except RPCError:  # no worker has the run yet, or the server restarts: ask again
                events = []
            for event in events:
                seen = event["seq"]
                delivered = {"type": event["type"], "run_id": handle.id, "seq": event["seq"], **event["payload"]}
                for listener in listeners:
                    listener(delivered)
            if done:
                break
            await asyncio.wait({result_task}, timeout=POLL_S)
        try:
            data = contract.decode(result_task.result())
        except WorkflowFailureError as error:
            cause = error.cause
            if isinstance(cause, ApplicationError) and cause.type == contract.START_REFUSED:
                return list(cause.details[0]) if cause.details else [cause.message]
            message = cause.message if isinstance(cause, ApplicationError) else str(cause or error)
            return RunOutcome(handle.id, "errored", error=f"InternalError: the workflow failed: {message}")
    finally:
        result_task.cancel()
    outcome = RunOutcome(data["run_id"], data["status"], data.get("value"), data.get("error"), data.get("stop_reason"),
                         data.get("agents_started", 0), data.get("usage") or {}, data.get("reports") or [],
                         data.get("traceback"))
    return outcome


async def cancel_run(client: Client, run_id: str, reason: str = "user") -> None:
    """Ask the run to stop as `stopped(reason)`."""
    await client.get_workflow_handle(run_id).signal(contract.SIGNAL_CANCEL, reason)


async def answer_question(client: Client, question_id: str, text: str) -> str | None:
    """Answer one open question of a run; returns the asking actor's name, or raises LookupError."""
    run_id = contract.run_id_of_question(question_id)
    if run_id is None:
        raise LookupError(f"{question_id} is not a question id (they look like dwfq-...)")
    handle = client.get_workflow_handle(run_id)
    try:
        state = await handle.query(contract.QUERY_STATE)
    except RPCError:
        raise LookupError(f"there is no run {run_id} on this Temporal server") from None
    asked = {item["id"]: item for item in state["questions"]}
    if question_id not in asked:
        raise LookupError(f"question {question_id} is not open (answered already, or never asked)")
    await handle.signal(contract.SIGNAL_ANSWER, {"id": question_id, "text": text})
    return asked[question_id].get("actor")


async def list_runs(client: Client, limit: int = 50) -> list[dict]:
    """The DWF runs the server knows (visibility), newest first: id, status, start time."""
    rows = []
    async for execution in client.list_workflows(f"WorkflowType = '{contract.WORKFLOW}'", limit=limit):
        rows.append({"id": execution.id, "status": STATUS.get(execution.status, "running"),
                     "started": execution.start_time.isoformat() if execution.start_time else None})
    return rows


async def show_run(client: Client, run_id: str) -> dict:
    """What `dwfc show` prints of one run: the `show` query (`run_views.snapshot` of the
    workflow's journal, as for a local run), with its times and, for a workflow that ended
    without settling the run, its status from visibility."""
    handle = client.get_workflow_handle(run_id)
    description = await handle.describe()
    data = contract.decode(await handle.query(contract.QUERY_SHOW, result_type=str))
    if data is None:  # refused at start: no run to show but the workflow's end
        state = await handle.query(contract.QUERY_STATE)
        data = {"id": run_id, "name": None, "status": "starting", "stop_reason": None, "asks": 0, "tokens": 0,
                "usage": {}, "resumable": False, "amended_from": None, "superseded_by": None, "workflows": [],
                "phases": [], "actors": [], "nodes": {"total": 0, "running": 0, "completed": 0, "failed": 0},
                "reports": [], "artifacts": [], "pending_questions": state["questions"], "worktrees": [],
                "result": None, "error": None, "events": 0}
    started, ended = description.start_time, description.close_time
    data["started"] = started.isoformat() if started else None
    data["updated"] = ended.isoformat() if ended else None
    if started and ended:
        data["duration_s"] = round((ended - started).total_seconds(), 3)
    # A workflow that ended normally holds the run's own status (completed, errored or stopped);
    # one the server failed, terminated or timed out did not get to settle the run.
    if description.status not in (WorkflowExecutionStatus.RUNNING, WorkflowExecutionStatus.COMPLETED):
        data["status"] = STATUS[description.status]
    data["resumable"] = False  # a cluster run is retried by Temporal, not resumed (docs/scale.md)
    data["where"] = "temporal"
    return data


async def run_nodes(client: Client, run_id: str) -> list[dict]:
    """The run's effects: site, key, kind, input hash and status of each."""
    return await client.get_workflow_handle(run_id).query(contract.QUERY_NODES)
