"""This module defines the read models of the run viewer (`dwfc ui`, #15): plain JSON the page
renders, built from the journal and the artifact store only, so a run of any process is shown
the same way.

- `runs_page(journal)`: every run with its name, status, times, asks done/total and tokens;
- `run_page(journal, row, artifacts)`: `host.run_views.snapshot` plus the timeline (each
  phase's asks, reads and commands as bars with start, end, status and tokens), the actors with
  their asks, the logs, the reports, the artifacts as the page draws them (Markdown text, a
  table's rows, a metrics panel's latest values) and the error with its DWF traceback;
- `node_detail(journal, row, site, key)`: one step's instructions, result, usage and attempts
  (repairs, nudges, questions);
- `JournalMarks`: what changed since the last look, for the live stream.

Every value stays data: the page inserts strings with `textContent`, never as markup.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from dwf.runtime.host.run_views import snapshot, run_summary, status_text
from dwf.runtime.journal.store import JournalStore, RunRow, NodeRow
from dwf.runtime.ports.artifacts import ArtifactStore
from dwf.runtime.values.errors import ScriptError

NO_PHASE = "(before the first phase)"
STEP_KINDS = ("ask", "read", "run")
MARKDOWN_CHARS = 256 * 1024  # the artifact.markdown limit: a stored version is shown whole
TABLE_ROWS = 500  # rows of a table dashboard the page shows (the newest)
NEWEST_RUNS = 200  # runs the runs page lists
LABEL_CHARS = 120  # a read's or command's one-line label


def runs_page(journal: JournalStore, limit: int | None = NEWEST_RUNS) -> list[dict]:
    """One entry per run, newest first: `run_summary` plus `outcome` and the asks settled."""
    entries = []
    for row in journal.list_runs(limit):
        entry = run_summary(journal, row)
        asks = [node for node in journal.list_nodes(row.id, with_input=False) if node.kind == "ask"]
        spent = sum(int((node.usage or {}).get("output_tokens", 0) or 0) for node in asks)
        entry.update(outcome=status_text(row), asks_done=sum(1 for node in asks if node.status != "running"),
                     tokens=max(entry["tokens"], spent))  # a live run's row has its usage only at the end
        entries.append(entry)
    return entries


class JournalMarks:
    """What the live stream compares to know the page should redraw: each run's status and last
    event (read incrementally: only running runs, and runs not seen before, are read again)."""

    def __init__(self) -> None:
        self.last_seq: dict[str, int] = {}

    def mark(self, journal: JournalStore, run_id: str | None = None) -> tuple:
        """The mark of the runs page (`run_id` None) or of one run's page."""
        rows = journal.list_runs(NEWEST_RUNS)
        if run_id is not None:
            rows = [row for row in rows if row.id == run_id] or [row for row in [journal.get_run(run_id)] if row]
        for row in rows:
            if row.status == "running" or row.id not in self.last_seq:
                new = journal.event_times(row.id, after=self.last_seq.get(row.id, 0))
                self.last_seq[row.id] = max(new) if new else self.last_seq.get(row.id, 0)
        return tuple((row.id, row.status, row.stop_reason, self.last_seq[row.id]) for row in rows)


# ---------------------------------------------------------------------------- one run


def run_page(journal: JournalStore, row: RunRow, artifacts: ArtifactStore) -> dict:
    """Everything the run page shows (module docstring)."""
    view = snapshot(journal, row)
    events = journal.events(row.id)
    times = journal.event_times(row.id)
    started = _parse(view["started"])
    nodes = journal.list_nodes(row.id)
    steps = _steps(events, times, started, {(node.site, node.key): node for node in nodes})
    declared = [phase["title"] for phase in view["phases"]]
    timeline = [{**phase, "steps": [step for step in steps if step["phase"] == phase["title"]]}
                for phase in view["phases"]]
    loose = [step for step in steps if step["phase"] not in declared]
    if loose:
        timeline.insert(0, {"title": NO_PHASE, "status": "done", "nodes": len(loose),
                            "settled": sum(1 for s in loose if s["status"] != "running"),
                            "failed": sum(1 for s in loose if s["status"] == "failed"), "steps": loose})
    error = row.error if isinstance(row.error, dict) else {"message": row.error, "traceback": None}
    spent = sum(step["tokens"] for step in steps)
    return {**view, "outcome": status_text(row), "timeline": timeline, "tokens": max(view["tokens"], spent),
            "span_s": max([view["duration_s"] or 0] + [step["end_s"] or 0 for step in steps]),
            "actors": _actors(journal.list_actors(row.id), steps),
            "logs": [{"message": str(event["payload"].get("message", "")), "phase": event["payload"].get("phase"),
                      "at_s": _offset(times.get(event["seq"]), started)}
                     for event in events if event["type"] == "log"],
            "artifacts": _artifacts(artifacts, row.id, view["reports"]),
            "error": error if row.status != "completed" and error.get("message") else None,
            "caps": row.caps or {}}


def _steps(events: list[dict], times: dict[int, str], started: datetime | None,
           nodes: dict[tuple[str, str], NodeRow]) -> list[dict]:
    """The run's asks, reads and commands in the order they were queued, with their times."""
    steps: dict[tuple[str, str], dict] = {}
    for event in events:
        payload = event["payload"] or {}
        if payload.get("kind") not in STEP_KINDS and event["type"] != "usage-updated":
            continue
        ident = (payload.get("site"), payload.get("key"))
        at = _offset(times.get(event["seq"]), started)
        if event["type"] == "node-queued" or (event["type"] == "node-settled" and ident not in steps):
            steps.setdefault(ident, {"site": ident[0], "key": ident[1], "kind": payload.get("kind"),
                                     "actor": payload.get("actor"), "phase": payload.get("phase") or NO_PHASE,
                                     "label": payload.get("label") or payload.get("instructions_head"),
                                     "queued_s": at, "start_s": None, "end_s": None, "status": "queued",
                                     "cached": False, "tokens": 0})
        step = steps.get(ident)
        if step is None:
            continue
        if event["type"] == "node-started":
            step.update(start_s=at, status="running")
        elif event["type"] == "node-settled":
            step.update(end_s=at, status={"ok": "completed"}.get(payload.get("outcome"), payload.get("outcome")),
                        cached=bool(payload.get("cached")))
            if step["start_s"] is None:
                step["start_s"] = at
        elif event["type"] == "usage-updated":
            step["tokens"] += int((payload.get("ask") or {}).get("output_tokens", 0) or 0)
    for ident, step in steps.items():
        node = nodes.get(ident)
        if node is not None:
            step["imported"] = node.imported
            step["label"] = step["label"] or effect_label(node)
            step["tokens"] = int((node.usage or {}).get("output_tokens", step["tokens"]) or 0)
            if step["status"] in ("queued", "running") and node.status != "running":
                step["status"] = node.status
        if step["start_s"] is not None and step["end_s"] is not None:
            step["duration_s"] = round(step["end_s"] - step["start_s"], 3)
    return list(steps.values())


def effect_label(node: NodeRow) -> str | None:
    """What a read or command did, in one line: `files.read a.txt`, `git status`."""
    given = node.input if isinstance(node.input, dict) else {}
    if node.kind not in ("read", "run") or not given:
        return None
    head = given.get("cmd") if node.kind == "run" else given.get("op")
    words = [str(head or node.kind)] + [str(arg) for arg in given.get("args") or [] if not isinstance(arg, (dict, list))]
    text = " ".join(words)
    return text if len(text) <= LABEL_CHARS else text[:LABEL_CHARS - 1] + "…"


def _actors(actors: list[dict], steps: list[dict]) -> list[dict]:
    asks = [step for step in steps if step["kind"] == "ask"]
    shown = [{"name": actor["name"], "key": actor["key"], "model": actor["model"], "persona": actor["persona"],
              "asks": [step for step in asks if step["actor"] == actor["name"]]} for actor in actors]
    return shown


def _artifacts(store: ArtifactStore, run_id: str, reports: list) -> list[dict]:
    """The run's artifacts as the page draws them: Markdown text, dashboards with their data."""
    manifest = store.list(run_id).get("artifacts", {})
    routed: dict[str, list] = {}
    for record in store.reports(run_id):
        if record.get("artifact"):
            routed.setdefault(record["artifact"], []).append(record.get("item"))
    shown = []
    for ident, entry in manifest.items():
        item = {"id": ident, "kind": entry.get("kind"), "title": entry.get("title"),
                "description": entry.get("description"), "primary": bool(entry.get("primary"))}
        versions = entry.get("versions") or []
        if versions:
            latest = versions[-1]
            item.update(version=latest["version"], bytes=latest.get("bytes"), source=latest.get("source"),
                        versions=len(versions))
            if entry.get("kind") == "markdown":
                item["markdown"] = _read_text(store, run_id, ident, latest["version"])
        spec = entry.get("spec")
        if spec is not None:
            items = routed.get(ident, [])
            item["spec"] = spec
            if entry.get("kind") == "metrics":
                values: dict = {}
                for reported in items:
                    if isinstance(reported, dict):
                        values.update(reported)
                item["values"] = values
            else:
                item["rows"] = items[-TABLE_ROWS:]
                item["total_rows"] = len(items)
        shown.append(item)
    return shown


def _read_text(store: ArtifactStore, run_id: str, ident: str, version: int) -> str | None:
    try:
        return store.version_path(run_id, ident, version).read_text(encoding="utf-8", errors="replace")[:MARKDOWN_CHARS]
    except (OSError, ScriptError):  # a version file gone or unreadable: the page says so
        return None


def node_detail(journal: JournalStore, row: RunRow, site: str, key: str) -> dict | None:
    """One step of run `row`: its inputs, result, usage and attempts; None when there is none."""
    node = journal.get_node(row.id, site, key)
    if node is None:
        return None
    given: dict[str, Any] = node.input if isinstance(node.input, dict) else {"input": node.input}
    attempts, questions, label = [], [], None
    for event in journal.events(row.id):
        payload = event["payload"] or {}
        if (payload.get("site"), payload.get("key")) != (site, key):
            continue
        if event["type"] == "node-queued":
            label = payload.get("label")
        elif event["type"] == "node-progress":
            attempts.append({key_: value for key_, value in payload.items() if key_ not in ("site", "key")})
        elif event["type"] == "escalation-raised":
            questions.append({"id": payload.get("id"), "question": payload.get("question"),
                              "context": payload.get("context"), "answer": None})
    answers = {event["payload"].get("id"): event["payload"].get("answer") for event in journal.events(row.id)
               if event["type"] == "escalation-resolved"}
    for question in questions:
        question["answer"] = answers.get(question["id"])
    return {"site": node.site, "key": node.key, "kind": node.kind, "actor": node.actor, "status": node.status,
            "label": label or effect_label(node),
            "imported": node.imported, "instructions": given.get("instructions"), "schema": given.get("schema"),
            "persona": given.get("persona"), "input": {k: v for k, v in given.items()
                                                       if k not in ("instructions", "schema", "persona", "actor")},
            "result": node.result, "error": node.error, "usage": node.usage or {}, "attempts": attempts,
            "questions": questions}


def _parse(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def _offset(text: str | None, started: datetime | None) -> float | None:
    at = _parse(text)
    return round((at - started).total_seconds(), 3) if at and started else None


__all__ = ["JournalMarks", "node_detail", "run_page", "runs_page"]
