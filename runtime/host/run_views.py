"""This module defines the read models of a workspace's runs (TOOLS §1, §3): run lookup by id
prefix (`resolve_run`), the one-line summary `dwfc runs` and ListWorkflowRuns show
(`run_summary`), the snapshot `dwfc show` and GetWorkflowRun show (`snapshot`), and their
formatting helpers. The cross-process control protocol is `journal/control.py`.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from dwf.runtime.journal.store import JournalStore, RunRow


class RunLookupError(Exception):
    """No run, or several runs, match a run reference; `candidates` lists the ambiguous ones."""

    def __init__(self, message: str, candidates: list[RunRow] | None = None):
        super().__init__(message)
        self.candidates = candidates or []


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
    worktrees: dict[str, dict] = {}  # actor key -> its isolated worktree, as journaled
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
        elif kind == "worktree-created":
            worktrees[payload.get("key")] = {"actor": payload.get("actor"), "branch": payload.get("branch"),
                                             "path": payload.get("path"), "base": payload.get("base"),
                                             "state": "live", "changed_files": None}
        elif kind == "worktree-removed" and payload.get("key") in worktrees:
            worktrees[payload.get("key")].update(state="kept" if payload.get("kept") else "removed",
                                                 changed_files=payload.get("changed_files"), head=payload.get("head"))
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
            "resumable": not resumable_problems(row), "amended_from": row.resumed_from, "superseded_by": row.superseded_by,
            "workflows": sorted(row.workflows or {}),  # the saved workflows it calls inline (pinned)
            "phases": list(phases.values()),
            "actors": [{"key": a["key"], "name": a["name"], "model": a["model"]} for a in actors],
            "nodes": {"total": len([n for n in nodes if n.kind != "report"]),
                      "running": sum(1 for n in nodes if n.status == "running"),
                      "completed": sum(1 for n in nodes if n.status == "completed" and n.kind != "report"),
                      "failed": sum(1 for n in nodes if n.status == "failed")},
            "reports": reports, "artifacts": artifacts, "pending_questions": pending,
            "worktrees": list(worktrees.values()),
            "result": row.result if row.status == "completed" else None,
            "error": error, "events": len(events)}


def format_duration(seconds: float | None) -> str:
    """A duration as `dwfc runs` shows it: `4.2s`, `3m07s`, `1h05m`, or `-`."""
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
    """A run's status, with the stop reason of a stopped one: `stopped(user)`."""
    status = row_or_summary["status"] if isinstance(row_or_summary, dict) else row_or_summary.status
    reason = row_or_summary["stop_reason"] if isinstance(row_or_summary, dict) else row_or_summary.stop_reason
    return f"{status}({reason})" if status == "stopped" and reason else status


def resumable_problems(row: RunRow) -> list[str]:
    """`engine.prepare.resume_problems`, loaded when a run is shown: `dwfc` imports this module
    at start-up and the engine only for runs."""
    from dwf.runtime.engine.prepare import resume_problems  # deferred: start-up

    return resume_problems(row)
