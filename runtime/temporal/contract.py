"""This module defines what the workflow, its activities, the worker and the client agree on:
the names of the workflow, its activities, signals and queries, the task queue and namespace
used by default, the activity timeouts, and `run_input`, the one payload a run starts from (the
analyzed IR of the script and of the saved workflows it calls, as `ir.to_json` writes it, with
the validated arguments and the approved command set; never the script text to evaluate).

It imports nothing of temporalio, so the command line can name these without loading the SDK.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from dwf.compiler import ir

WORKFLOW = "DwfRun"
DEFAULT_TASK_QUEUE = "dwf"
DEFAULT_NAMESPACE = "default"
# Activities: one per effect kind; each activity id is the effect's occurrence key.
ASK, READ, COMMAND, ARTIFACT, REPORT, DASHBOARD = ("dwf.ask", "dwf.read", "dwf.command", "dwf.artifact",
                                                    "dwf.report", "dwf.dashboard")
WORKTREE = "dwf.worktree"  # an isolated actor's worktree: attach, snapshot (`git.worktree`), finish
# Signals the client (or an ask activity) sends the run, and the queries it answers.
SIGNAL_CANCEL, SIGNAL_ANSWER, SIGNAL_ESCALATE = "cancel", "answer", "escalate"
QUERY_EVENTS, QUERY_NODES, QUERY_PROGRAM, QUERY_ANSWER, QUERY_STATE = "events", "nodes", "program", "answer", "state"
QUERY_INPUTS = "inputs"  # the journaled inputs of some effects, by key
QUERY_SHOW = "show"  # what `dwfc show` prints (`host.run_views.snapshot` of the workflow's journal)
# Failures that end the workflow (not its run) with a non-retryable ApplicationError of this type:
# the run was refused at start (details: the problems, as a local start lists them), or a worker's
# workspace is not the repository the run targets.
START_REFUSED, WORKSPACE_MISMATCH = "StartError", "WorkspaceMismatch"

# An ask heartbeats every HEARTBEAT_S; a worker that stops (killed, partitioned) is noticed after
# HEARTBEAT_TIMEOUT and its asks in flight are dispatched again on another worker.
HEARTBEAT_S = 1.0
HEARTBEAT_TIMEOUT = timedelta(seconds=4)
ASK_TIMEOUT = timedelta(hours=6)  # one ask, all its turns and escalations
WORLD_TIMEOUT = timedelta(minutes=30)  # a read or command (a command has its own timeout_s inside)
ESCALATION_POLL_S = 0.25
# An isolated actor's activities go to the own task queue of the worker that holds its worktree
# (`worker_queue`); a worker polls it with slots of its own, so a live one starts them at once.
# Not started within this time: that worker is gone, and another takes the worktree over.
# `DWF_TEMPORAL_AFFINITY_START_S` (seconds, read where a run is submitted, carried in its input)
# sets it for the runs a host submits, e.g. shorter where workers are known to be quick.
AFFINITY_START_TIMEOUT = timedelta(seconds=20)


def affinity_start_timeout(run: dict) -> timedelta:
    """The affinity start timeout a run was submitted with (`run_input`'s `affinity_start_s`)."""
    seconds = run.get("affinity_start_s")
    return timedelta(seconds=seconds) if seconds else AFFINITY_START_TIMEOUT


def worker_queue(task_queue: str, worker_tag: str) -> str:
    """The task queue only one worker polls (its isolated actors' asks and worktree operations)."""
    return f"{task_queue}@{worker_tag}"


def encode(value: Any) -> str:
    """A payload as JSON text. Temporal's JSON converter sorts object keys; DWF dicts keep their
    insertion order (a script sees it, and input hashes cover it), so every payload crosses as text."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def decode(text: str) -> Any:
    """The value `encode` wrote."""
    return json.loads(text)


def worker_identity(process: str, own_queue: str, repository: str) -> str:
    """The identity a DWF worker polls with, `PROCESS|OWN QUEUE|REPOSITORY` (`parse_identity`):
    the task queue's pollers tell a client which repositories its workers serve."""
    return f"{process}|{own_queue}|{repository}"


def parse_identity(identity: str) -> tuple[str, str] | None:
    """(own queue, repository) of a DWF worker's identity, or None for another poller."""
    parts = identity.split("|", 2)
    return (parts[1], parts[2]) if len(parts) == 3 else None


def run_input(prepared, run_id: str, *, max_concurrency: int | None, budget: int | None,
              agent_pin: dict | None = None, ceilings=None, workspace: str | None = None,
              actor_tools: str | None = None, affinity_start_s: float | None = None) -> dict:
    """The workflow input of a prepared run (`engine.PreparedRun` without problems); `workspace` is
    the identity of the repository it targets (`ports.worktrees.repository_identity`), which every
    worker serving it must have; `actor_tools`, the actor tool set it was approved with (None: the
    workers' own); `affinity_start_s`, its `AFFINITY_START_TIMEOUT` in seconds (None: the default)."""
    return {
        "run_id": run_id,
        "workspace": workspace,
        "path": prepared.path,
        "program": ir.to_json(prepared.program),
        "called": {name: ir.to_json(program) for name, program in prepared.called.items()},
        "source_lines": prepared.script.splitlines(),  # for tracebacks only
        "args": prepared.args,
        "given": list(prepared.given),
        "commands": sorted(prepared.commands),
        "max_concurrency": max_concurrency,
        "budget": budget,
        "agent_pin": agent_pin or {},
        "actor_tools": actor_tools,
        "affinity_start_s": affinity_start_s,
        # the submitting host's ceilings (`engine.Ceilings`; None: the defaults)
        "ceilings": {"max_agents": ceilings.max_agents, "max_concurrency": ceilings.max_concurrency} if ceilings else None,
    }


def run_id_of_question(question_id: str) -> str | None:
    """The run a question id (`dwfq-<run hex>-<occurrence>-<n>`) belongs to, or None."""
    parts = question_id.split("-")
    return f"dwfrun-{parts[1]}" if len(parts) == 4 and parts[0] == "dwfq" else None


def escalation_key(site: str, key: str, number: int) -> str:
    """How an ask activity names one of its questions to the run (stable across retries)."""
    return f"{site}|{key}|{number}"
