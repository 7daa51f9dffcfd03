"""This module is the cross-process run-control protocol over a workspace's journal (RUNTIME
§5.1, TOOLS §1): owner records and liveness, the claim lock, reconciliation of runs left
`running` by a dead process, and cancel requests from another process. The read models `dwfc
runs`/`show` and GetWorkflowRun print are in `host/run_views.py`.

Control files. Next to the journal (`<workspace>/.dwf/runs/`) each live run has an owner record
`<run id>.owner.json` = {pid, host, boot_id, start_token} written before its row says `running`
and removed when it settles. `start_token` is the process start time from `/proc/<pid>/stat`
(field 22, clock ticks since boot), so a reused pid is not mistaken for the owner; `boot_id`
detects a reboot. A run whose row says `running` but whose owner is gone (no record, no such
process, another process under that pid, a zombie, another boot) is marked
`stopped(interrupted)`. An owner on another host cannot be checked and is left alone.

A cancel request is the file `<run id>.cancel` = {reason, by_pid}; the owning process polls for
it (`CANCEL_POLL_S`) and stops the run as `stopped(reason)` (`user`; `model` when a host's model
asked, CancelWorkflowRun; or `superseded` when the run is amended, see `host/amend.py`).

A caps request (`dwfc set`, AmendWorkflow without a script) is the file `<run id>.caps.json` =
{max_concurrency?, model?}; the owning process polls for it with the cancel requests and applies
it to the live run (`take_caps_request` reads and removes it; requests written before it is taken
merge).

Claiming a run (a start or a resume writing its owner record and setting the row `running`),
reconciling, and marking a dead owner's run superseded all hold `claim_lock` (an advisory
`flock` on `runs/.lock`, released by the kernel even when a process is killed), so two
processes resuming the same run cannot both win, and a reconcile never sees a run between its
claim and its owner record.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from dwf.runtime.journal.store import JournalStore, RunRow
from dwf.runtime.statedir import write_atomic

CANCEL_POLL_S = 0.2
CANCEL_REASONS = ("user", "model", "superseded")  # the stop reasons a cancel request may carry


# ---------------------------------------------------------------------------- paths


def _owner_path(control: Path, run_id: str) -> Path:
    return Path(control) / f"{run_id}.owner.json"


def _cancel_path(control: Path, run_id: str) -> Path:
    return Path(control) / f"{run_id}.cancel"


def _caps_path(control: Path, run_id: str) -> Path:
    return Path(control) / f"{run_id}.caps.json"


# ---------------------------------------------------------------------------- liveness


def _boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def _proc_stat(pid: int) -> tuple[str, str] | None:
    """(state, start time) of a process from /proc, or None when there is no such process."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (OSError, ValueError):
        return None
    fields = text.rsplit(")", 1)[-1].split()
    if len(fields) < 20:
        return None
    return fields[0], fields[19]


def _has_proc() -> bool:
    return Path("/proc/self/stat").exists()


def owner_record(pid: int | None = None) -> dict:
    """{pid, host, boot_id, start_token} of the process `pid` (default: this one)."""
    pid = os.getpid() if pid is None else pid
    stat = _proc_stat(pid) if _has_proc() else None
    return {"pid": pid, "host": socket.gethostname(), "boot_id": _boot_id(),
            "start_token": stat[1] if stat else None}


def owner_alive(owner: dict | None) -> bool:
    """Whether the process that owns a run may still be running it (True when it cannot be told)."""
    if not owner or not isinstance(owner.get("pid"), int):
        return False
    if owner.get("host") != socket.gethostname():
        return True  # another machine's process: we cannot check it, so we never take its runs
    boot = _boot_id()
    if owner.get("boot_id") and boot and owner["boot_id"] != boot:
        return False
    pid = owner["pid"]
    if _has_proc():
        stat = _proc_stat(pid)
        if stat is None or stat[0] in ("Z", "X"):
            return False
        token = owner.get("start_token")
        return token is None or stat[1] == token
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextmanager
def claim_lock(control: Path) -> Iterator[None]:
    """Serializes claims, reconciles and supersedes across the processes sharing a state dir."""
    control = Path(control)
    control.mkdir(parents=True, exist_ok=True)
    with open(control / ".lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def write_owner(control: Path, run_id: str) -> None:
    """Record this process as the owner of `run_id` (atomically: a reader never sees half a record)."""
    write_atomic(_owner_path(control, run_id), json.dumps(owner_record()))


def read_owner(control: Path, run_id: str) -> dict | None:
    """The owner record of `run_id`, or None when there is none (or it cannot be read)."""
    try:
        return json.loads(_owner_path(control, run_id).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def release(control: Path, run_id: str) -> None:
    """The run settled in its own process: forget its owner record and any cancel request."""
    for path in (_owner_path(control, run_id), _cancel_path(control, run_id), _caps_path(control, run_id)):
        try:
            path.unlink()
        except OSError:
            pass


def request_cancel(control: Path, run_id: str, reason: str = "user") -> None:
    """Ask the owning process to stop the run as `stopped(reason)`, one of `CANCEL_REASONS`."""
    write_atomic(_cancel_path(control, run_id), json.dumps({"reason": reason, "by_pid": os.getpid()}))


def cancel_reason(control: Path, run_id: str) -> str:
    """The stop reason of a pending cancel request (`user` when the file does not say)."""
    try:
        data = json.loads(_cancel_path(control, run_id).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "user"
    reason = data.get("reason") if isinstance(data, dict) else None
    return reason if reason in CANCEL_REASONS else "user"


def cancel_requested(control: Path, run_id: str) -> bool:
    """Whether a cancel request for `run_id` is pending."""
    return _cancel_path(control, run_id).exists()


def clear_cancel(control: Path, run_id: str) -> None:
    """Forget a pending cancel request (a run claimed anew starts without one)."""
    try:
        _cancel_path(control, run_id).unlink()
    except OSError:
        pass


def request_caps(control: Path, run_id: str, changes: dict) -> None:
    """Ask the owning process to change the live run's caps (`max_concurrency`, `model`)."""
    pending = _read_json(_caps_path(control, run_id))
    write_atomic(_caps_path(control, run_id), json.dumps({**(pending if isinstance(pending, dict) else {}),
                                                          **changes}))


def take_caps_request(control: Path, run_id: str) -> dict | None:
    """The pending caps request of `run_id`, removed (None when there is none)."""
    path = _caps_path(control, run_id)
    taken = path.with_name(path.name + ".taken")
    try:
        path.rename(taken)  # a request written from now on is a new one
    except OSError:
        return None
    changes = _read_json(taken)
    taken.unlink(missing_ok=True)
    return changes if isinstance(changes, dict) else None


def _read_json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def reconcile(journal: JournalStore, control: Path) -> list[str]:
    """Mark runs of this state dir left `running` by a dead process `stopped(interrupted)`;
    returns their ids. Their open nodes get a `node-settled` (cancelled) event and the run a
    `run-settled` event, so the event log stays well formed."""
    marked = []
    candidates = [row for row in _running_runs(journal) if not owner_alive(read_owner(control, row.id))]
    if not candidates:
        return marked
    with claim_lock(control):
        for row in candidates:
            current = journal.get_run(row.id)
            if current is None or current.status != "running" or owner_alive(read_owner(control, row.id)):
                continue  # settled, or resumed by a live process, meanwhile
            _mark_interrupted(journal, control, row)
            marked.append(row.id)
    return marked


def _mark_interrupted(journal: JournalStore, control: Path, row: RunRow) -> None:
    message = "the run was stopped (interrupted): the process running it died"
    nodes = journal.list_nodes(row.id, with_input=False)
    # The run row learns its usage when the run settles, which a dead process never did; its
    # nodes hold every usage report (committed with them), so `dwfc show` tells what it spent.
    journal.update_run(row.id, status="stopped", stop_reason="interrupted", error={"message": message, "traceback": None},
                       usage=spent(nodes))
    for node in nodes:
        if node.status == "running":
            journal.append_event(row.id, "node-settled", {"site": node.site, "key": node.key, "kind": node.kind,
                                                          "outcome": "cancelled", "reconciled": True})
    journal.append_event(row.id, "run-settled", {"status": "stopped", "stop_reason": "interrupted", "error": message,
                                                 "value": None, "reconciled": True})
    release(control, row.id)


def spent(nodes: list) -> dict:
    """The usage a run's node rows record, summed per count (`pure` and other flags left out)."""
    total: dict[str, int] = {}
    for node in nodes:
        for name, value in (node.usage or {}).items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                total[name] = total.get(name, 0) + int(value)
    return total


def _running_runs(journal: JournalStore) -> list[RunRow]:
    return [row for row in journal.list_runs() if row.status == "running"]


def wait_until_settled(journal: JournalStore, run_id: str, timeout_s: float, poll_s: float = 0.1) -> RunRow | None:
    """The run's row once it is no longer `running`, or as it is when `timeout_s` passes."""
    deadline = time.monotonic() + timeout_s
    while True:
        row = journal.get_run(run_id)
        if row is None or row.status != "running" or time.monotonic() >= deadline:
            return row
        time.sleep(poll_s)
