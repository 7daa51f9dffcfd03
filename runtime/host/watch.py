"""This module defines what a host is told about a workspace's runs without asking (#13, TOOLS §3):
`RunNotice`, one of three kinds, each with one line of guidance for the host model, and `RunWatch`,
an async iterator of the notices of every run of the workspace, whether this process started it or
another one (`dwfc run` in a terminal, a second host).

- `run-finished`: a run settled (completed, errored or stopped) — its status, result or error,
  reports, artifacts and usage, and what to do next for its stop reason (a run a person stopped
  is not to be resumed unasked);
- `escalation-raised`: an actor asked a question — its id, the actor and the question;
- `run-stalled`: no event (no node settled, no progress, no log) for `stall_after_s` (default
  10 minutes) while asks are in flight and no question is pending; said once per quiet spell.

The watch reads the journal on its own connection every `poll_s` (the journal is the one record
every process writes, so runs of other processes are seen the same way), off the event loop, and
marks runs whose process died `stopped(interrupted)` as `dwfc runs` does, so a crashed run is
reported finished rather than stalled. Runs that had already settled when the watch started are
not reported (until one is resumed); questions still pending then are.

    async with RunWatch.of_workspace(root) as watch:
        async for notice in watch:
            print(notice.text())
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import anyio
import anyio.to_thread

from dwf.runtime.host.run_views import snapshot, status_text
from dwf.runtime.journal import control
from dwf.runtime.journal.sqlite import SqliteJournal
from dwf.runtime.journal.store import JournalStore, RunRow
from dwf.runtime.statedir import StateDir
from dwf.runtime.values.plain_json import dumps

NOTICE_KINDS = ("run-finished", "escalation-raised", "run-stalled")
DEFAULT_STALL_AFTER_S = 600.0
DEFAULT_POLL_S = 0.25
LIST_ALL_EVERY_S = 2.0  # every run is listed (and dead processes' runs reconciled) this often
NEWEST_RUNS = 64  # in between, new runs are looked for among the newest
MAX_VALUE_CHARS = 16_000  # a larger result or report list is left to GetWorkflowRun


@dataclass(frozen=True)
class RunNotice:
    """RunNotice: one thing a host should know about run `run_id`; `kind` is one of
    `NOTICE_KINDS`, `data` its JSON fields (always with `guidance`, one line for the host model)."""

    kind: str
    run_id: str
    data: dict

    def to_json(self) -> dict:
        return {"kind": self.kind, "run_id": self.run_id, **self.data}

    def text(self) -> str:
        """The notice as a model reads it: what happened, then the guidance."""
        data = self.data
        name = f" `{data['name']}`" if data.get("name") else ""
        if self.kind == "run-finished":
            head = f"DWF run {self.run_id}{name} finished: {data['outcome']}."
            if data.get("status") == "completed":
                head += " Result: " + _clip(dumps(data.get("result")), 2000)
            elif data.get("error"):
                head += f" Error: {data['error']}"
        elif self.kind == "escalation-raised":
            head = (f"DWF run {self.run_id}{name}: actor `{data.get('actor')}` asks (question {data['question_id']}): "
                    f"{data.get('question')}")
        else:
            head = (f"DWF run {self.run_id}{name} looks stalled: nothing settled for {round(data['idle_s'])} s "
                    f"while {data['asks_in_flight']} ask(s) are in flight.")
        return f"{head}\n{data['guidance']}"


@dataclass
class _Followed:
    """What the watch knows of a running run."""

    seen_seq: int = 0
    quiet_since: float = 0.0
    stall_reported: bool = False
    pending: set[str] = field(default_factory=set)  # questions raised and not yet answered
    since_last_start: bool = False  # a resumed run: only events after its earlier settlement are news


class RunWatch:
    """RunWatch: the notices of a workspace's runs (module docstring). `poll()` checks once and
    returns what is new; iterating (inside `async with`) waits for notices. `clock` is
    `time.monotonic` except in tests."""

    def __init__(self, journal_path: str | Path, *, control_dir: Path | None = None,
                 stall_after_s: float = DEFAULT_STALL_AFTER_S, poll_s: float = DEFAULT_POLL_S,
                 clock: Callable[[], float] = time.monotonic):
        if not stall_after_s > 0:
            raise ValueError(f"stall_after_s must be a positive number of seconds, not {stall_after_s!r}")
        self.journal_path = Path(journal_path)
        self.control_dir = control_dir if control_dir is not None else StateDir.of_journal(journal_path).runs
        self.stall_after_s = float(stall_after_s)
        self.poll_s = float(poll_s)
        self.clock = clock
        self.journal: JournalStore | None = None
        self._followed: dict[str, _Followed] = {}
        self._settled: set[str] = set()
        self._listed_all_at = float("-inf")
        self._queue: list[RunNotice] = []

    @classmethod
    def of_workspace(cls, workspace: str | Path, **options: Any) -> RunWatch:
        """The watch of the journal of `workspace` (`.dwf/state.db`)."""
        state = StateDir(Path(workspace).resolve())
        return cls(state.journal, control_dir=state.runs, **options)

    def open(self) -> RunWatch:
        """Open the watch's own connection to the journal (created when the workspace has none
        yet) and note the runs that have settled already: from here on, what happens is news."""
        if self.journal is None:
            self.journal = SqliteJournal(self.journal_path)
            now = self._listed_all_at = self.clock()  # every run is listed here: the first check need not
            for row in self.journal.list_runs():
                if row.status == "running":
                    self._followed[row.id] = _Followed(quiet_since=now)
                else:
                    self._settled.add(row.id)
        return self

    def close(self) -> None:
        if self.journal is not None:
            self.journal.close()
            self.journal = None

    def __enter__(self) -> RunWatch:
        return self.open()

    def __exit__(self, *exc_info) -> None:
        self.close()

    async def __aenter__(self) -> RunWatch:
        await anyio.to_thread.run_sync(self.open)
        return self

    async def __aexit__(self, *exc_info) -> None:
        self.close()

    def __aiter__(self) -> RunWatch:
        return self

    async def __anext__(self) -> RunNotice:
        while not self._queue:
            self._queue.extend(await anyio.to_thread.run_sync(self.poll))
            if not self._queue:
                await anyio.sleep(self.poll_s)
        return self._queue.pop(0)

    # ------------------------------------------------------------ one check

    def poll(self) -> list[RunNotice]:
        """What happened since the last check, oldest first."""
        journal = self.open().journal
        now = self.clock()
        notices: list[RunNotice] = []
        every_run = now - self._listed_all_at >= LIST_ALL_EVERY_S
        if every_run:
            self._listed_all_at = now
            if self._followed:
                control.reconcile(journal, self.control_dir)
        for row in journal.list_runs(limit=None if every_run else NEWEST_RUNS):
            if row.id in self._followed:
                continue
            if row.id not in self._settled:  # new, perhaps settled already
                self._followed[row.id] = _Followed(quiet_since=now)
            elif row.status == "running":  # resumed: what happened before it is old news
                self._settled.discard(row.id)
                self._followed[row.id] = _Followed(quiet_since=now, since_last_start=True)
        for run_id, followed in list(self._followed.items()):
            row = journal.get_run(run_id)
            if row is None:  # deleted under us
                del self._followed[run_id]
                continue
            notices.extend(self._read_events(journal, row, followed, now))
            if row.status != "running":
                del self._followed[run_id]
                self._settled.add(run_id)
                notices.append(finished_notice(journal, row))
            elif not (followed.stall_reported or followed.pending) and now - followed.quiet_since >= self.stall_after_s:
                asks = _asks_in_flight(journal, run_id)
                if asks:
                    followed.stall_reported = True
                    notices.append(stall_notice(row, asks, now - followed.quiet_since))
        return notices

    def _read_events(self, journal: JournalStore, row: RunRow, followed: _Followed, now: float) -> list[RunNotice]:
        events = journal.events(row.id, after=followed.seen_seq)
        if not events:
            return []
        followed.seen_seq = events[-1]["seq"]
        followed.quiet_since, followed.stall_reported = now, False
        if followed.since_last_start:
            followed.since_last_start = False
            # A resume journals no run-started; until it settles, the earlier attempt's
            # run-settled is where the resume's events begin.
            ends = [index for index, event in enumerate(events) if event["type"] == "run-settled"]
            events = events[ends[-1] + 1:] if ends else events
        raised: dict[str, dict] = {}
        for event in events:
            payload = event["payload"] or {}
            if event["type"] == "escalation-raised":
                raised[payload.get("id")] = payload
                followed.pending.add(payload.get("id"))
            elif event["type"] == "escalation-resolved":
                raised.pop(payload.get("id"), None)  # asked and answered between two checks: nothing to say
                followed.pending.discard(payload.get("id"))
        if row.status != "running":
            return []  # the finished notice says it all
        return [escalation_notice(row, payload) for payload in raised.values()]


# ---------------------------------------------------------------------------- notices


GUIDANCE = {
    "completed": "Tell the user the result; GetWorkflowRun has the reports and artifacts.",
    "errored": "Tell the user what failed; if the script is at fault, fix it and AmendWorkflow(run, script=...) "
               "keeps the finished work.",
    "stopped(user)": "A person stopped this run: do not resume it unless they ask you to.",
    "stopped(model)": "You cancelled this run: resume it (ResumeWorkflowRun) only if the user asks.",
    "stopped(interrupted)": "The process running it stopped: ResumeWorkflowRun continues it without repeating "
                            "finished work; ask the user first if they may not want it any more.",
    "stopped(superseded)": "An amended run replaced it; follow that run instead.",
}


def finished_notice(journal: JournalStore, row: RunRow) -> RunNotice:
    """The `run-finished` notice of the settled run `row`."""
    view = snapshot(journal, row)
    outcome = status_text(row)
    data = {"name": view.get("name"), "status": row.status, "stop_reason": row.stop_reason, "outcome": outcome,
            "result": _bounded(view["result"]), "error": view["error"], "reports": _bounded(view["reports"]),
            "artifacts": _bounded(view["artifacts"]), "usage": view["usage"], "duration_s": view["duration_s"],
            "guidance": GUIDANCE.get(outcome, "The run stopped; GetWorkflowRun says why.")}
    if row.superseded_by:
        data["superseded_by"] = row.superseded_by
        data["guidance"] = f"An amended run replaced it; follow {row.superseded_by} instead."
    return RunNotice("run-finished", row.id, data)


def escalation_notice(row: RunRow, payload: dict) -> RunNotice:
    """The `escalation-raised` notice of a question an actor of `row` asked."""
    question_id = payload.get("id")
    return RunNotice("escalation-raised", row.id, {
        "name": row.meta.get("name"), "question_id": question_id, "actor": payload.get("actor"),
        "question": payload.get("question"), "context": _bounded(payload.get("context")),
        "guidance": f"The actor waits for an answer: ResolveWorkflowQuestion(question_id={dumps(question_id)}, "
                    "answer=...); ask the user when it needs their decision."})


def stall_notice(row: RunRow, asks: list, idle_s: float) -> RunNotice:
    """The `run-stalled` notice of `row`, quiet for `idle_s` with the ask nodes `asks` in flight."""
    return RunNotice("run-stalled", row.id, {
        "name": row.meta.get("name"), "idle_s": round(idle_s, 1), "asks_in_flight": len(asks),
        "sites": sorted({node.site for node in asks}), "actors": sorted({node.actor for node in asks if node.actor}),
        "guidance": f"Nothing has settled in {_minutes(idle_s)}; tell the user, and check GetWorkflowRun. "
                    "Asks may just be slow: keep waiting unless the user wants it stopped (CancelWorkflowRun), "
                    "or lower its load with AmendWorkflow(run, max_concurrency=...)."})


def _asks_in_flight(journal: JournalStore, run_id: str) -> list:
    return [node for node in journal.list_nodes(run_id, with_input=False)
            if node.kind == "ask" and node.status == "running"]


def _bounded(value: Any) -> Any:
    """`value`, or a note pointing to GetWorkflowRun when its JSON is too large for a notice."""
    size = len(dumps(value))
    if size <= MAX_VALUE_CHARS:
        return value
    return {"omitted": f"{size} characters of JSON; GetWorkflowRun (or the resource dwf://runs/ID) has it"}


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.0f} minutes" if seconds >= 120 else f"{seconds:.0f} seconds"


__all__ = ["DEFAULT_STALL_AFTER_S", "NOTICE_KINDS", "RunNotice", "RunWatch", "escalation_notice", "finished_notice",
           "stall_notice"]
