"""This module defines run events and their delivery (RUNTIME §6): every event gets the run's
next sequence number, is appended to the journal, and is handed to each listener as its own
copy (a resume's `run-started` reaches the listeners without being journaled). A run keeps one
`run-settled` in its log: settling again moves it to the end. A listener that raises is logged and skipped; no listener ever receives a live object."""

from __future__ import annotations

import logging
from typing import Any, Callable

from dwf.runtime.journal.codec import dumps, encoded_copies

log = logging.getLogger("dwf.events")

EVENT_TYPES = (
    "run-started", "actor-created", "phase-entered", "log", "node-queued", "node-started", "node-progress",
    "node-settled", "usage-updated", "report", "artifact-published", "escalation-raised", "escalation-resolved",
    "run-caps-changed", "worktree-created", "worktree-removed", "run-settled",
)
_KNOWN = frozenset(EVENT_TYPES)

Listener = Callable[[dict], None]


class EventBus:
    def __init__(self, run_id: str, journal, listeners: list[Listener] | None = None):
        self.run_id = run_id
        self.journal = journal
        self.listeners: list[Listener] = list(listeners or [])
        self.settled = False

    def emit(self, event_type: str, journaled: bool = True, **payload: Any) -> int | None:
        """Journal the event and hand it to the listeners; one not `journaled` (a resume's
        `run-started`) reaches the listeners only, with `seq` None. Returns its sequence. The
        payload is encoded once: the journal stores that text and each listener's copy is read
        back from it."""
        if self.settled:
            return None  # run-settled is the last event of a run
        assert event_type in _KNOWN, event_type
        listeners = self.listeners
        if listeners:
            text, copy = encoded_copies(payload)
        elif journaled:
            text = dumps(payload)
        sequence = self.journal.append_event(self.run_id, event_type, payload, encoded=text) if journaled else None
        if event_type == "run-settled":
            self.settled = True
        for listener in list(listeners):
            try:  # each listener gets its own copy of plain data
                listener({"type": event_type, "run_id": self.run_id, "seq": sequence, **copy()})
            except Exception:  # a broken listener must not break the run or other listeners
                log.exception("event listener %r failed on %s; skipped", listener, event_type)
        return sequence

    def emit_flat(self, event_type: str, payload: dict, nested: bool = False) -> int | None:
        """`emit` of a payload the engine built with str, int, bool and None values only (the
        node events of every effect), or also dicts of those when `nested` (an ask's usage):
        no value needs checking or a JSON round trip to be copied, so the journal encodes it
        with orjson as it is (the SQLite journal at the group's flush, with the group's other
        node events) and each listener's copy is a shallow one, its dicts copied too (#18)."""
        if self.settled:
            return None
        sequence = self.journal.append_event(self.run_id, event_type, payload, flat=True)
        for listener in list(self.listeners):
            event = {"type": event_type, "run_id": self.run_id, "seq": sequence, **payload}
            if nested:
                for name, value in payload.items():
                    if type(value) is dict:
                        event[name] = dict(value)
            try:
                listener(event)
            except Exception:  # a broken listener must not break the run or other listeners
                log.exception("event listener %r failed on %s; skipped", listener, event_type)
        return sequence
