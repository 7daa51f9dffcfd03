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
# Signals the client (or an ask activity) sends the run, and the queries it answers.
SIGNAL_CANCEL, SIGNAL_ANSWER, SIGNAL_ESCALATE = "cancel", "answer", "escalate"
QUERY_EVENTS, QUERY_NODES, QUERY_PROGRAM, QUERY_ANSWER, QUERY_STATE = "events", "nodes", "program", "answer", "state"
QUERY_INPUTS = "inputs"  # the journaled inputs of some effects, by key

# An ask heartbeats every HEARTBEAT_S; a worker that stops (killed, partitioned) is noticed after
# HEARTBEAT_TIMEOUT and its asks in flight are dispatched again on another worker.
HEARTBEAT_S = 1.0
HEARTBEAT_TIMEOUT = timedelta(seconds=4)
ASK_TIMEOUT = timedelta(hours=6)  # one ask, all its turns and escalations
WORLD_TIMEOUT = timedelta(minutes=30)  # a read or command (a command has its own timeout_s inside)
ESCALATION_POLL_S = 0.25


def encode(value: Any) -> str:
    """A payload as JSON text. Temporal's JSON converter sorts object keys; DWF dicts keep their
    insertion order (a script sees it, and input hashes cover it), so every payload crosses as text."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def decode(text: str) -> Any:
    """The value `encode` wrote."""
    return json.loads(text)


def run_input(prepared, run_id: str, *, max_concurrency: int | None, budget: int | None,
              agent_pin: dict | None = None, ceilings=None) -> dict:
    """The workflow input of a prepared run (`engine.PreparedRun` without problems)."""
    return {
        "run_id": run_id,
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
