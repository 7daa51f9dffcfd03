"""This module defines run events and their delivery (RUNTIME §6): every event gets the run's
next sequence number, is appended to the journal, and is handed to each listener as its own
copy. A listener that raises is logged and skipped; no listener ever receives a live object."""

from __future__ import annotations

import json
import logging
from typing import Any, Callable

log = logging.getLogger("dwf.events")

EVENT_TYPES = (
    "run-started", "actor-created", "phase-entered", "log", "node-queued", "node-started", "node-progress",
    "node-settled", "usage-updated", "report", "artifact-published", "escalation-raised", "escalation-resolved",
    "run-caps-changed", "worktree-created", "worktree-removed", "run-settled",
)

Listener = Callable[[dict], None]


class EventBus:
    def __init__(self, run_id: str, journal, listeners: list[Listener] | None = None):
        self.run_id = run_id
        self.journal = journal
        self.listeners: list[Listener] = list(listeners or [])
        self.settled = False

    def emit(self, event_type: str, **payload: Any) -> dict | None:
        if self.settled:
            return None  # run-settled is the last event of a run
        assert event_type in EVENT_TYPES, event_type
        sequence = self.journal.append_event(self.run_id, event_type, payload)
        event = {"type": event_type, "run_id": self.run_id, "seq": sequence, **payload}
        if event_type == "run-settled":
            self.settled = True
        text = json.dumps(event) if self.listeners else ""
        for listener in list(self.listeners):
            try:
                listener(json.loads(text))  # each listener gets its own copy of plain data
            except Exception:  # a broken listener must not break the run or other listeners
                log.exception("event listener %r failed on %s; skipped", listener, event_type)
        return event
