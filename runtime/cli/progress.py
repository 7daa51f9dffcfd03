"""This module defines the progress renderers of `dwfc run --progress text|stream-json|json`
(TOOLS §1): one listener class per mode. A listener is called with each run event (RUNTIME §6,
a plain dict) and, once the run has settled, `finish(result)` writes the final output.

- `TextProgress`: concise lines on stderr. Run start and settlement, `log` lines, phases,
  escalations and artifacts are written at once; node status changes (asks, reads, commands
  queued/started/settled) at most one line per 400 ms. When stderr is a terminal, a live
  one-line status (phase, asks running/done, tokens, elapsed time) is redrawn in place below
  the lines. `finish` prints the final value as JSON on stdout, and for an errored run the DWF
  traceback on stderr.
- `StreamJsonProgress`: one NDJSON object per event on stdout,
  `{"type": "workflow.run.progress", "event": {...}}`, then `RunOutcome.to_json()` as the last line.
- `JsonProgress`: nothing while the run goes; `finish` prints `RunOutcome.to_json()` as one JSON
  object on stdout.

The clock here is for display only (throttling and elapsed time); the engine never sees it.
"""

from __future__ import annotations

import shutil
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable, TextIO

from dwf.runtime.cli.usage import isatty
from dwf.compiler.inert import json_text, screen
from dwf.runtime.values.plain_json import dumps as plain_dumps

STATUS_INTERVAL_S = 0.4  # node status lines, at most one per interval
LIVE_INTERVAL_S = 0.1  # redraws of the live status line
PROGRESS_TYPE = "workflow.run.progress"


@dataclass
class NodeCounts:
    """How many nodes of one kind (asks, reads or commands) are queued, running, done and failed."""

    queued: int = 0
    running: int = 0
    done: int = 0
    failed: int = 0


class Progress:
    """Base listener: `__call__(event)` while the run goes, `finish(result)` once at the end."""

    def __init__(self, stdout: TextIO | None = None, stderr: TextIO | None = None):
        self.stdout = stdout if stdout is not None else sys.stdout
        self.stderr = stderr if stderr is not None else sys.stderr

    live = False  # whether a live status line is drawn (and `refresh` should be called periodically)

    def __call__(self, event: dict) -> None:
        pass

    def refresh(self) -> None:
        pass

    def notice(self, message: str) -> None:
        """A message from the CLI itself (e.g. "stopping the run")."""
        _write(self.stderr, f"dwfc: {message}\n")

    def finish(self, result: Any) -> None:
        _write(self.stdout, dumps(result.to_json()) + "\n")


class JsonProgress(Progress):
    """`--progress json`: stdout is exactly one JSON object, the run result."""


class StreamJsonProgress(Progress):
    """`--progress stream-json`: one NDJSON object per event, then the run result."""

    def __call__(self, event: dict) -> None:
        _write(self.stdout, dumps({"type": PROGRESS_TYPE, "event": event}) + "\n")


class TextProgress(Progress):
    """`--progress text`: concise lines on stderr, a live status line on a terminal."""

    def __init__(self, stdout: TextIO | None = None, stderr: TextIO | None = None, *, live: bool | None = None,
                 clock: Callable[[], float] = time.monotonic, status_interval_s: float = STATUS_INTERVAL_S):
        super().__init__(stdout, stderr)
        self.live = isatty(self.stderr) if live is None else live
        self.clock = clock
        self.status_interval_s = status_interval_s
        self.started_at: float | None = None
        self.last_status: float | None = None
        self.last_live = 0.0
        self.live_shown = False
        self.run_id = ""
        self.name = ""
        self.phase: str | None = None
        self.tokens = 0
        self.nodes: dict[str, dict] = {}  # occurrence key -> what node-queued said, until it settles
        self.counts = {kind: NodeCounts() for kind in ("ask", "read", "run")}
        self.reports = 0
        self.settled = False
        # `_on_<type>` by event type, looked up once (a fan-out sends thousands of events)
        self.handlers: dict[str, Callable[[dict], None]] = {
            name[4:].replace("_", "-"): getattr(self, name) for name in dir(type(self)) if name.startswith("_on_")}

    # -- events

    def __call__(self, event: dict) -> None:
        handler = self.handlers.get(event.get("type"))
        if handler is not None:
            handler(event)
        if self.live and not self.settled:
            self._redraw()

    def refresh(self) -> None:
        """Redraw the live status line (called periodically so the elapsed time moves)."""
        if self.live and not self.settled and self.started_at is not None:
            self._redraw()

    def _on_run_started(self, event: dict) -> None:
        self.started_at = self.clock()
        self.run_id = event.get("run_id", "")
        meta = event.get("meta") if isinstance(event.get("meta"), dict) else {}
        self.name = str(meta.get("name") or "workflow")
        caps = event.get("caps") or {}
        extra = f", budget {caps['budget']:,} tokens" if caps.get("budget") is not None else ""
        self._line(f"run {self.run_id} started: {self.name} "
                   f"(max {caps.get('max_concurrency', '?')} asks in flight{extra})")

    def _on_phase_entered(self, event: dict) -> None:
        name, previous = event.get("name"), self.phase
        self.phase = name
        if name != previous:
            self._line(f"phase: {name}")

    def _on_log(self, event: dict) -> None:
        self._line(f"log: {event.get('message', '')}")

    def _on_node_queued(self, event: dict) -> None:
        self.nodes[event.get("key", "")] = event
        counts = self.counts.get(event.get("kind"))
        if counts is not None:
            counts.queued += 1
        if self._status_due():
            self._status(f"{event.get('kind')} queued: {self._describe(event)}")

    def _on_node_started(self, event: dict) -> None:
        counts = self.counts.get(event.get("kind"))
        if counts is not None:
            counts.queued = max(0, counts.queued - 1)
            counts.running += 1
        if self._status_due():
            self._status(f"{event.get('kind')} started: {self._describe(event)}")

    def _on_node_settled(self, event: dict) -> None:
        counts = self.counts.get(event.get("kind"))
        outcome = event.get("outcome")
        if counts is not None:
            if not event.get("cached"):
                counts.running = max(0, counts.running - 1)
            if outcome == "failed":
                counts.failed += 1
            elif outcome == "ok":
                counts.done += 1
        if self._status_due():
            cached = " (cached)" if event.get("cached") else ""
            self._status(f"{event.get('kind')} {outcome}{cached}: {self._describe(event)}")
        self.nodes.pop(event.get("key", ""), None)

    def _on_usage_updated(self, event: dict) -> None:
        self.tokens = int((event.get("run") or {}).get("output_tokens", self.tokens))

    def _on_report(self, event: dict) -> None:
        self.reports += 1

    def _on_escalation_raised(self, event: dict) -> None:
        who = event.get("actor") or "an anonymous actor"
        self._line(f"question {event.get('id')} from {who}: {event.get('question', '')}")

    def _on_escalation_resolved(self, event: dict) -> None:
        self._line(f"question {event.get('id')} answered: {first_line(str(event.get('answer', '')), 120)}")

    def _on_artifact_published(self, event: dict) -> None:
        ref = event.get("ref") or {}
        version = f" v{ref['version']}" if isinstance(ref, dict) and ref.get("version") else ""
        self._line(f"artifact: {event.get('id')}{version} ({event.get('kind')})")

    def _on_run_caps_changed(self, event: dict) -> None:
        self._line(f"caps changed: {dumps(event.get('caps'))}")

    def _on_run_settled(self, event: dict) -> None:
        self.settled = True
        self._clear_live()
        status = event.get("status")
        reason = f" ({event.get('stop_reason')})" if event.get("stop_reason") else ""
        asks = self.counts["ask"]
        summary = f"{asks.done} ask{'s' if asks.done != 1 else ''} done" + (f", {asks.failed} failed" if asks.failed else "")
        summary += f", {self.tokens:,} output tokens"
        if self.reports:
            summary += f", {self.reports} reports"
        self._line(f"run {self.run_id} {status}{reason} after {self._elapsed():.1f}s: {summary}")
        if event.get("error") and status != "errored":
            self._line(str(event["error"]))

    # -- the end

    def finish(self, result: Any) -> None:
        self._clear_live()
        if result.status == "completed":
            _write(self.stdout, dumps(result.value, indent=2) + "\n")
        elif result.status == "errored":
            _write(self.stderr, screen(result.traceback or result.error or "the run failed") + "\n")

    def notice(self, message: str) -> None:
        self._line(message, prefix="dwfc: ")

    # -- output

    def _describe(self, event: dict) -> str:
        key = event.get("key", "")
        queued = self.nodes.get(key, event)
        kind = queued.get("kind")
        if kind == "ask":
            what = queued.get("label") or first_line(queued.get("instructions_head") or "", 60)
            actor = queued.get("actor")
            return f"{key} {what}" + (f" [{actor}]" if actor else "")
        if kind == "run" and queued.get("command"):
            return f"{key} {queued['command']}"
        return key

    def _status_due(self) -> bool:
        """Whether a node status line may be written now (at most one per interval); the line
        is only formatted when it is (a 2,000-ask fan-out writes a few of 6,000)."""
        now = self.clock()
        if self.last_status is not None and now - self.last_status < self.status_interval_s:
            return False
        self.last_status = now
        return True

    def _status(self, text: str) -> None:
        asks = self.counts["ask"]
        self._line(f"{text} (asks: {asks.running} running, {asks.done} done"
                   + (f", {asks.failed} failed" if asks.failed else "") + ")")

    def _line(self, text: str, prefix: str = "") -> None:
        self._clear_live()
        _write(self.stderr, screen(prefix + text) + "\n")  # names, labels and errors come from the script
        if self.live and not self.settled:
            self._redraw(force=True)

    def _redraw(self, force: bool = False) -> None:
        now = self.clock()
        if not force and now - self.last_live < LIVE_INTERVAL_S:
            return
        self.last_live = now
        asks = self.counts["ask"]
        text = (f"[{self.phase or self.name or 'run'}] asks {asks.running} running, {asks.queued} waiting, "
                f"{asks.done} done" + (f", {asks.failed} failed" if asks.failed else "")
                + f" | {self.tokens:,} tokens | {self._elapsed():.0f}s")
        width = shutil.get_terminal_size((100, 20)).columns - 1
        _write(self.stderr, "\r\x1b[2K" + screen(text)[:max(10, width)])
        self.live_shown = True

    def _clear_live(self) -> None:
        if self.live_shown:
            _write(self.stderr, "\r\x1b[2K")
            self.live_shown = False

    def _elapsed(self) -> float:
        return 0.0 if self.started_at is None else self.clock() - self.started_at


def dumps(value: Any, **options: Any) -> str:
    """JSON text of `value` for a terminal or a pipe (`plain_json.dumps`), made inert: a control
    or bidi character of a script's or an agent's string is a `\\uXXXX` escape, never raw."""
    return json_text(plain_dumps(value, **options))


def make_progress(mode: str, stdout: TextIO | None = None, stderr: TextIO | None = None) -> Progress:
    """The listener of `--progress MODE` (text, stream-json or json)."""
    if mode == "text":
        return TextProgress(stdout, stderr)
    if mode == "stream-json":
        return StreamJsonProgress(stdout, stderr)
    if mode == "json":
        return JsonProgress(stdout, stderr)
    raise ValueError(f"unknown progress mode {mode!r}")


def first_line(text: str, limit: int) -> str:
    """The first line of `text` (stripped), cut to `limit` characters with an ellipsis."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _write(stream: TextIO, text: str) -> None:
    try:
        stream.write(text)
        stream.flush()
    except BrokenPipeError:
        pass
