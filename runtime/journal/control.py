"""This module is the run-management service over a workspace's journal (RUNTIME §5.1, TOOLS §1):
run lookup by id prefix, reconciliation of runs left `running` by a dead process, cancel
requests from another process, resume checks, and the summaries `dwfc runs` and `dwfc show`
print.

Control files. Next to the journal (`<workspace>/.dwf/runs/`) each live run has an owner record
`<run id>.owner.json` = {pid, host, boot_id, start_token} written before its row says `running`
and removed when it settles. `start_token` is the process start time from `/proc/<pid>/stat`
(field 22, clock ticks since boot), so a reused pid is not mistaken for the owner; `boot_id`
detects a reboot. A run whose row says `running` but whose owner is gone (no record, no such
process, another process under that pid, a zombie, another boot) is marked
`stopped(interrupted)`. An owner on another host cannot be checked and is left alone.

A cancel request is the file `<run id>.cancel` = {reason, by_pid}; the owning process polls for
it (`CANCEL_POLL_S`) and stops the run as `stopped(reason)` (`user`, or `superseded` when the run
is amended, see `host/amend.py`).

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
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from dwf.compiler.version import COMPILER_VERSION

from dwf.runtime.journal.store import JournalStore, RunRow
from dwf.runtime.statedir import write_atomic

CANCEL_POLL_S = 0.2


class RunLookupError(Exception):
    """No run, or several runs, match a run reference; `candidates` lists the ambiguous ones."""

    def __init__(self, message: str, candidates: list[RunRow] | None = None):
        super().__init__(message)
        self.candidates = candidates or []


# ---------------------------------------------------------------------------- paths


def _owner_path(control: Path, run_id: str) -> Path:
    return Path(control) / f"{run_id}.owner.json"


def _cancel_path(control: Path, run_id: str) -> Path:
    return Path(control) / f"{run_id}.cancel"


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
    for path in (_owner_path(control, run_id), _cancel_path(control, run_id)):
        try:
            path.unlink()
        except OSError:
            pass


def request_cancel(control: Path, run_id: str, reason: str = "user") -> None:
    """Ask the owning process to stop the run as `stopped(reason)` (`user`, or `superseded` by amend)."""
    write_atomic(_cancel_path(control, run_id), json.dumps({"reason": reason, "by_pid": os.getpid()}))


def cancel_reason(control: Path, run_id: str) -> str:
    """The stop reason of a pending cancel request (`user` when the file does not say)."""
    try:
        data = json.loads(_cancel_path(control, run_id).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "user"
    reason = data.get("reason") if isinstance(data, dict) else None
    return reason if reason in ("user", "superseded") else "user"


def cancel_requested(control: Path, run_id: str) -> bool:
    """Whether a cancel request for `run_id` is pending."""
    return _cancel_path(control, run_id).exists()


def clear_cancel(control: Path, run_id: str) -> None:
    """Forget a pending cancel request (a run claimed anew starts without one)."""
    try:
        _cancel_path(control, run_id).unlink()
    except OSError:
        pass


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
    journal.update_run(row.id, status="stopped", stop_reason="interrupted", error={"message": message, "traceback": None})
    for node in journal.list_nodes(row.id):
        if node.status == "running":
            journal.append_event(row.id, "node-settled", {"site": node.site, "key": node.key, "kind": node.kind,
                                                          "outcome": "cancelled", "reconciled": True})
    journal.append_event(row.id, "run-settled", {"status": "stopped", "stop_reason": "interrupted", "error": message,
                                                 "value": None, "reconciled": True})
    release(control, row.id)


def _running_runs(journal: JournalStore) -> list[RunRow]:
    return [row for row in journal.list_runs() if row.status == "running"]


# ---------------------------------------------------------------------------- lookup and checks


def resolve_run(journal: JournalStore, reference: str) -> RunRow:
    """The one run whose id is `reference` or starts with it (with or without `dwfrun-`)."""
    reference = reference.strip()
    if not reference:
        raise RunLookupError("a run id (or a unique prefix of one) is needed; `dwfc runs` lists them")
    exact = journal.get_run(reference)
    if exact is not None:
        return exact
    found = journal.find_runs(reference)
    if not found:
        raise RunLookupError(f"no run matches {reference!r}; `dwfc runs` lists the runs of this workspace")
    if len(found) > 1:
        raise RunLookupError(f"{reference!r} matches {len(found)} runs; give more of the id", found)
    return found[0]


def _version_tuple(text: str) -> tuple:
    parts = []
    for piece in str(text).split("."):
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


def resume_problems(row: RunRow) -> list[str]:
    """Why a stored run cannot be resumed (empty when it can)."""
    if _version_tuple(row.compiler_version) > _version_tuple(COMPILER_VERSION):
        return [f"run {row.id} was written by a newer dwf ({row.compiler_version}; this is {COMPILER_VERSION}); "
                "upgrade dwf to resume it"]
    if row.status == "running":
        return [f"run {row.id} is still running; cancel it first (`dwfc cancel {row.id}`) or wait for it"]
    if row.status != "stopped":
        hint = "it finished" if row.status == "completed" else "an errored run is not resumable; amend it instead"
        return [f"run {row.id} cannot be resumed: it is {row.status} ({hint})"]
    if row.stop_reason == "superseded" or row.superseded_by:
        return [f"run {row.id} cannot be resumed: it was superseded"
                + (f" by {row.superseded_by}" if row.superseded_by else "")]
    return []


# ---------------------------------------------------------------------------- summaries


def _parse_time(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
    except ValueError:
        try:
            return datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            return None


def _times(journal: JournalStore, row: RunRow) -> tuple[str | None, str | None, float | None]:
    times = journal.run_times(row.id)
    if not times:
        return None, None, None
    created, updated = times
    start, end = _parse_time(created), _parse_time(updated)
    if row.status == "running":
        end = datetime.now(timezone.utc)
    duration = (end - start).total_seconds() if start and end else None
    return created, updated, duration


def _name(row: RunRow) -> str | None:
    return row.meta.get("name")


def run_summary(journal: JournalStore, row: RunRow) -> dict:
    """One line of `dwfc runs`."""
    created, updated, duration = _times(journal, row)
    nodes = journal.list_nodes(row.id)
    return {"id": row.id, "name": _name(row), "status": row.status, "stop_reason": row.stop_reason,
            "started": created, "updated": updated, "duration_s": None if duration is None else round(duration, 3),
            "asks": sum(1 for node in nodes if node.kind == "ask"),
            "tokens": int((row.usage or {}).get("output_tokens", 0) or 0)}


def snapshot(journal: JournalStore, row: RunRow) -> dict:
    """Everything `dwfc show` prints about one run."""
    summary = run_summary(journal, row)
    events = journal.events(row.id)
    nodes = journal.list_nodes(row.id)
    meta = row.meta
    declared = []
    for phase in meta.get("phases") or []:
        title = phase.get("title") if isinstance(phase, dict) else phase
        if isinstance(title, str):
            declared.append(title)
    phases: dict[str, dict] = {title: {"title": title, "status": "pending", "nodes": 0, "settled": 0, "failed": 0}
                               for title in declared}
    node_phase: dict[str, str | None] = {}
    entered_order: list[str] = []
    raised: dict[str, dict] = {}
    resolved: set[str] = set()
    artifacts: list[dict] = []
    for event in events:
        kind, payload = event["type"], event["payload"] or {}
        if kind == "phase-entered":
            title = payload.get("name")
            phases.setdefault(title, {"title": title, "status": "pending", "nodes": 0, "settled": 0, "failed": 0})
            if title not in entered_order:
                entered_order.append(title)
        elif kind in ("node-queued", "node-settled"):
            node_key = f"{payload.get('site')}|{payload.get('key')}"
            if node_key not in node_phase and payload.get("phase") is not None:
                node_phase[node_key] = payload.get("phase")
        elif kind == "escalation-raised":
            raised[payload.get("id")] = {"id": payload.get("id"), "actor": payload.get("actor"),
                                         "question": payload.get("question"), "context": payload.get("context")}
        elif kind == "escalation-resolved":
            resolved.add(payload.get("id"))
        elif kind == "artifact-published":
            artifacts.append({"id": payload.get("id"), "kind": payload.get("kind"), "ref": payload.get("ref")})
    for node in nodes:
        if node.kind == "report":
            continue
        title = node_phase.get(f"{node.site}|{node.key}")
        if title in phases:
            phases[title]["nodes"] += 1
            if node.status != "running":
                phases[title]["settled"] += 1
            if node.status == "failed":
                phases[title]["failed"] += 1
    last = entered_order[-1] if entered_order else None
    for title in entered_order:
        phases[title]["status"] = "active" if (title == last and row.status == "running") else "done"
    if row.status != "completed" and last in phases and phases[last]["status"] == "done":
        phases[last]["status"] = "stopped" if row.status == "stopped" else "errored"
    reports = [node.result.get("item") if isinstance(node.result, dict) else node.result
               for node in nodes if node.kind == "report"]
    pending = [question for qid, question in raised.items() if qid not in resolved] if row.status == "running" else []
    actors = journal.list_actors(row.id)
    error = row.error.get("message") if isinstance(row.error, dict) else row.error
    return {**summary, "description": meta.get("description"), "args": row.args, "caps": row.caps,
            "usage": row.usage or {}, "compiler_version": row.compiler_version,
            "resumable": not resume_problems(row), "amended_from": row.resumed_from, "superseded_by": row.superseded_by,
            "workflows": sorted(row.workflows or {}),  # the saved workflows it calls inline (pinned)
            "phases": list(phases.values()),
            "actors": [{"key": a["key"], "name": a["name"], "model": a["model"]} for a in actors],
            "nodes": {"total": len([n for n in nodes if n.kind != "report"]),
                      "running": sum(1 for n in nodes if n.status == "running"),
                      "completed": sum(1 for n in nodes if n.status == "completed" and n.kind != "report"),
                      "failed": sum(1 for n in nodes if n.status == "failed")},
            "reports": reports, "artifacts": artifacts, "pending_questions": pending,
            "result": row.result if row.status == "completed" else None,
            "error": error, "events": len(events)}


def format_duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def status_text(row_or_summary: Any) -> str:
    status = row_or_summary["status"] if isinstance(row_or_summary, dict) else row_or_summary.status
    reason = row_or_summary["stop_reason"] if isinstance(row_or_summary, dict) else row_or_summary.stop_reason
    return f"{status}({reason})" if status == "stopped" and reason else status


def wait_until_settled(journal: JournalStore, run_id: str, timeout_s: float, poll_s: float = 0.1) -> RunRow | None:
    """The run's row once it is no longer `running`, or as it is when `timeout_s` passes."""
    deadline = time.monotonic() + timeout_s
    while True:
        row = journal.get_run(run_id)
        if row is None or row.status != "running" or time.monotonic() >= deadline:
            return row
        time.sleep(poll_s)
