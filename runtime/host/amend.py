"""This module implements amend (RUNTIME §5.2): start a new run of an edited script that imports
the finished work of its predecessor; and `cancel_run`, stopping a live run in this process or
another (CancelWorkflowRun, and amend's supersede).

`amend(engine, run_id, new_script, journal=..., agent_port=..., ...)` validates the new script,
stops the predecessor as `stopped(superseded)` when it is live (in this engine: cancelled and
awaited; in another process: a cancel request with reason `superseded`, then the journal is
polled; an owner that is gone or does not answer in time: the row is marked), sets its
`superseded_by`, builds an `ImportedCache` from its journal rows and starts the new run with
`resumed_from` = the predecessor.

The imported cache itself (what matches, and when it closes) is `engine/import_cache.py`.
"""

from __future__ import annotations

import contextlib
import uuid
from pathlib import Path
from typing import Any

import anyio

from dwf.runtime.engine import Engine, ImportedCache, PreparedRun, Run, StartError, StartRequest, prepare
from dwf.runtime.engine.request import control_dir_of
from dwf.runtime.host.run_views import RunLookupError, resolve_run
from dwf.runtime.journal import control
from dwf.runtime.journal.store import JournalStore, RunRow
from dwf.runtime.ports.protocols import AgentPort

SUPERSEDE_WAIT_S = 10.0
INHERITED_CAPS = ("max_concurrency", "budget", "model")


def inherited_caps(predecessor: RunRow, given: dict) -> dict:
    """The caps of an amend's new run: those in `given` (an explicit None clears one: the script's
    meta or the default applies), else the ones the predecessor's caller chose (its caps' `given`;
    a row from before `given` was recorded: its budget and concurrency) and the model it ran with."""
    stored = predecessor.caps or {}
    chosen = stored.get("given", ("max_concurrency", "budget"))
    caps = {name: stored.get(name) for name in INHERITED_CAPS if name in chosen or name == "model"}
    caps.update((name, value) for name, value in given.items() if name in INHERITED_CAPS)
    return caps


def _find(journal: JournalStore, reference: str) -> RunRow | None:
    try:
        return resolve_run(journal, reference)
    except RunLookupError:
        return None


async def cancel_run(journal: JournalStore, row: RunRow, *, reason: str, engine: Engine | None = None,
                     control_dir: Path | None = None, wait_s: float = SUPERSEDE_WAIT_S) -> RunRow:
    """Stop the live run `row` as `stopped(reason)`: cancelled and awaited when it runs in
    `engine`, else a cancel request to its owner process and the journal polled for up to
    `wait_s` seconds. Returns its row as it is then (still `running` if it did not settle)."""
    live = engine.runs.get(row.id) if engine is not None else None
    if live is not None and not live.settled.is_set():
        live.cancel(reason)
        with anyio.move_on_after(live.request.grace_period_s + 2):
            await live.settled.wait()
    current = journal.get_run(row.id) or row
    if current.status == "running" and control_dir is not None \
            and control.owner_alive(control.read_owner(control_dir, current.id)):
        control.request_cancel(control_dir, current.id, reason=reason)
        with anyio.move_on_after(wait_s):
            while True:
                current = journal.get_run(row.id) or current
                if current.status != "running":
                    break
                await anyio.sleep(0.05)
    return current


async def supersede(journal: JournalStore, predecessor: RunRow, new_id: str, *, engine: Engine | None = None,
                    control_dir: Path | None = None, wait_s: float = SUPERSEDE_WAIT_S) -> RunRow:
    """Stop `predecessor` as `stopped(superseded)` if it is live and set its `superseded_by`."""
    current = await cancel_run(journal, predecessor, reason="superseded", engine=engine, control_dir=control_dir,
                               wait_s=wait_s)
    with control.claim_lock(control_dir) if control_dir is not None else contextlib.nullcontext():
        # under the lock, so a concurrent resume cannot claim the run between our read and write
        return _mark_superseded(journal, journal.get_run(predecessor.id) or current, new_id, control_dir)


def _mark_superseded(journal: JournalStore, current: RunRow, new_id: str, control_dir: Path | None) -> RunRow:
    fields: dict[str, Any] = {"superseded_by": new_id}
    if current.status == "running":  # owner gone, or it did not answer in time: mark it ourselves
        message = "the run was stopped (superseded): it was amended"
        fields.update(status="stopped", stop_reason="superseded", error={"message": message, "traceback": None})
        for node in journal.list_nodes(current.id):
            if node.status == "running":
                journal.append_event(current.id, "node-settled", {"site": node.site, "key": node.key, "kind": node.kind,
                                                                  "outcome": "cancelled", "superseded": True})
        journal.append_event(current.id, "run-settled", {"status": "stopped", "stop_reason": "superseded",
                                                         "error": message, "value": None, "superseded_by": new_id})
        if control_dir is not None:
            control.release(control_dir, current.id)
    elif current.status == "stopped":
        fields["stop_reason"] = "superseded"
    journal.update_run(current.id, **fields)
    return journal.get_run(current.id)


async def amend(engine: Engine, run_id: str, new_script: str | PreparedRun, *, journal: JournalStore,
                agent_port: AgentPort, args: dict | None = None, control_dir: Path | None = None,
                path: str = "<script>", wait_s: float = SUPERSEDE_WAIT_S, new_id: str | None = None,
                **fields: Any) -> Run:
    """Amend run `run_id` (RUNTIME §5.2): returns the new `Run` started on `engine` (its id is
    `new_id` when given, e.g. to name the run's question files before it starts).

    `new_script` is the edited script's text, or the `PreparedRun` a front end prepared (with
    the predecessor's args, or those it was given) and showed for approval. `fields` are the
    other `StartRequest` fields (ports, caps, listeners, `workflows`, `approved_commands`); the
    caps not among them are the predecessor's (`inherited_caps`).

    Raises `StartError` (predecessor untouched) when the run is unknown or the new script does
    not compile or does not accept the arguments (the predecessor's, unless `args` is given). If
    the engine refuses the new run after the predecessor was stopped, the predecessor is left
    `stopped(interrupted)` without a successor, so it can be resumed."""
    predecessor = _find(journal, run_id)
    if predecessor is None:
        raise StartError([f"there is no run {run_id} in this journal"])
    prepared = new_script
    if isinstance(prepared, str):
        run_args = dict(predecessor.args or {}) if args is None else dict(args)
        prepared = prepare(new_script, path, run_args, fields.pop("workflows", None),
                           approved=fields.pop("approved_commands", None))
    if prepared.program is None or prepared.argument_problems:  # the rest is the engine's to refuse
        raise StartError(prepared.argument_problems or prepared.problems,
                         prepared.compiled.diagnostics if prepared.compiled else None)
    new_id = new_id or f"dwfrun-{uuid.uuid4().hex}"
    fields.update(inherited_caps(predecessor, {name: fields.pop(name) for name in INHERITED_CAPS if name in fields}))
    request = StartRequest(agent_port=agent_port, prepared=prepared, journal=journal, run_id=new_id,
                           control_dir=control_dir, resumed_from=predecessor.id, **fields)
    stopped = await supersede(journal, predecessor, new_id, engine=engine, control_dir=control_dir_of(request),
                              wait_s=wait_s)
    request.imported_cache = ImportedCache.build(journal, predecessor.id)  # after it stopped: its rows are final
    try:
        return engine.start(request)
    except StartError as error:  # no successor after all: the stopped predecessor stays resumable
        if stopped.status == "stopped":
            reason = predecessor.stop_reason if predecessor.status == "stopped" else "interrupted"
            journal.update_run(predecessor.id, superseded_by=None, stop_reason=reason)
            error.problems.append(f"run {predecessor.id} was stopped for the amend and can be resumed "
                                  "(`dwfc resume`) or amended again")
        else:
            journal.update_run(predecessor.id, superseded_by=None)
        raise
