"""This module defines snippet evaluation (TOOLS §1 `dwfc eval`, §3 `EvalWorkflowSnippet`):
`check_snippet` says what a snippet may do before it runs (`SnippetCheck`: diagnostics and the
commands to approve), `eval_snippet` runs it at once and returns a `SnippetResult`;
`compile_snippet` is the compile step both share (cached, so check-then-run compiles once).
`eval_snippet_in_thread` runs `eval_snippet` on an event loop of its own in a worker thread,
for a host whose event loop must keep answering (`tools/layer.py`, under `dwfc mcp`): a
snippet's synchronous stretches then hold only that thread, which gives the GIL back every
few milliseconds. There its regular expressions run in the worker process of
`interpreter/regex.py` (SIGALRM, the in-process time bound, reaches the main thread only).

The dialect itself (no meta block needed, no phases expected, the effects that need a run
refused) is the compiler's snippet mode, `compile_source(..., options=SNIPPET)` (`compiler.snippet`).
Nothing is persisted: the run uses an in-memory journal, no artifact store and no control
directory, so no `.dwf/` folder is created.
"""

from __future__ import annotations

import functools
import shlex
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

import anyio
import anyio.to_thread

from dwf.compiler.compile import compile_source
from dwf.compiler.plan.commands import approved_arguments
from dwf.compiler.result import SNIPPET, CompileResult

from dwf.runtime.engine import Engine, StartError, StartRequest, run_commands
from dwf.runtime.journal.memory import MemoryJournal
from dwf.runtime.interpreter.limits import Limits
from dwf.runtime.ports.sandbox import Sandbox
from dwf.runtime.ports.world import RUN_TIMEOUT_DEFAULT_S, LocalWorld
from dwf.runtime.values.plain_json import to_plain


@dataclass
class SnippetCheck:
    diagnostics: list[dict]  # Diagnostic.to_json() of each finding, sorted by position
    commands: list[str]  # the literal world.run commands the snippet may run, sorted
    ok: bool  # no errors: the snippet may run (after its commands are approved)


@dataclass
class SnippetResult:
    status: str  # completed | errored | rejected
    value: Any = None  # the snippet's JSON return value when completed
    error: str | None = None  # one sentence when not completed
    diagnostics: list[dict] = field(default_factory=list)
    logs: list[str] = field(default_factory=list)  # the log() lines, in order
    commands_run: list[str] = field(default_factory=list)  # shell-quoted command lines, in dispatch order
    traceback: str | None = None  # the DWF traceback of an errored snippet (snippet line numbers)

    def to_json(self) -> dict:
        return {"status": self.status, "value": self.value, "error": self.error, "diagnostics": self.diagnostics,
                "logs": self.logs, "commands_run": self.commands_run, "traceback": self.traceback}


def check_snippet(source: str, name: str = "<snippet>") -> SnippetCheck:
    """Compile `source` as a snippet: its diagnostics and the commands it may run."""
    compiled = compile_snippet(source, name)
    return SnippetCheck([d.to_json() for d in compiled.diagnostics],
                        list(compiled.program.commands) if compiled.program else [], compiled.program is not None)


@lru_cache(maxsize=8)  # a caller checks, approves, then evaluates the same text: one compile
def compile_snippet(source: str, name: str = "<snippet>") -> CompileResult:
    """Compile `source` in the compiler's snippet mode."""
    return compile_source(source, name, SNIPPET)


# ---------------------------------------------------------------- evaluation


async def eval_snippet(source: str, workspace: Path, *, name: str = "<snippet>", limits: Limits | None = None,
                       timeout_s: float | None = None, on_log: Callable[[str], None] | None = None) -> SnippetResult:
    """Run `source` in `workspace` and return its value. The caller has approved the commands
    `check_snippet(source).commands` beforehand; nothing is asked here. `on_log` sees each
    `log()` line as it happens (they are collected in the result either way)."""
    compiled = compile_snippet(source, name)
    diagnostics = [d.to_json() for d in compiled.diagnostics]
    if compiled.program is None:
        errors = sum(d.is_error for d in compiled.diagnostics)
        error = f"the snippet has {errors} error{'s' if errors != 1 else ''} and was not run"
        return SnippetResult("rejected", error=error, diagnostics=diagnostics)
    workspace = Path(workspace)
    if not workspace.is_dir():
        return SnippetResult("rejected", error=f"the workspace {workspace} is not a directory", diagnostics=diagnostics)

    logs: list[str] = []

    def listen(event: dict) -> None:
        if event.get("type") == "log":
            logs.append(str(event.get("message", "")))
            if on_log is not None:
                on_log(logs[-1])

    commands = run_commands(compiled.program, {})  # a snippet calls no saved workflow
    world = _NotingWorld(workspace, allowed_commands=commands, approved_arguments=approved_arguments([compiled.program]),
                         sandbox=Sandbox.from_environment(network=bool(compiled.program.meta.get("network", False))))
    request = StartRequest(script=compiled.script, agent_port=_NoAgents(), path=name, journal=MemoryJournal(),
                           world=world, limits=limits or Limits(), listeners=[listen], approved_commands=commands)
    timed_out = False
    async with Engine() as engine:
        try:
            run = engine.start(request)
        except StartError as error:  # e.g. the snippet's own meta declares a required argument
            return SnippetResult("rejected", error="; ".join(error.problems), diagnostics=diagnostics)
        deadline = _Deadline(run, timeout_s)
        with anyio.move_on_after(timeout_s):  # None: no deadline
            await run.settled.wait()
        deadline.cancel()
        if not run.settled.is_set():
            timed_out = True
            run.cancel("user")  # settles within the grace period; commands in flight are killed
        outcome = await run.result
        timed_out = timed_out or (deadline.fired and outcome.status == "stopped")
    common = {"diagnostics": diagnostics, "logs": logs, "commands_run": world.ran}
    if outcome.status == "completed":
        return SnippetResult("completed", value=to_plain(outcome.value), **common)
    if timed_out:
        error = f"the snippet did not finish within {timeout_s:g} seconds and was stopped"
        return SnippetResult("errored", error=error, **common)
    return SnippetResult("errored", error=outcome.error, traceback=outcome.traceback, **common)


async def eval_snippet_in_thread(source: str, workspace: Path, *, timeout_s: float | None = None) -> SnippetResult:
    """`eval_snippet` in a worker thread, on its own event loop (module docstring); the caller's
    loop stays free meanwhile. A cancelled caller still waits for the result: the snippet ends
    at its `timeout_s` or its step limit."""
    evaluate = functools.partial(eval_snippet, source, workspace, timeout_s=timeout_s)
    return await anyio.to_thread.run_sync(anyio.run, evaluate)


class _Deadline:
    """`timeout_s` held even while the snippet keeps the event loop busy in synchronous code
    (where `move_on_after` cannot fire): a timer thread stops the script at its next step
    (`Run.interrupt`); the event loop then settles the run."""

    def __init__(self, run, timeout_s: float | None):
        self.fired = False
        self.timer = None
        if timeout_s is not None:
            self.timer = threading.Timer(timeout_s, self._fire, args=(run,))
            self.timer.daemon = True
            self.timer.start()

    def _fire(self, run) -> None:
        self.fired = True
        run.interrupt("user")

    def cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()


class _NotingWorld(LocalWorld):
    """The local world port, noting every command line it is asked to run (`commands_run`)."""

    def __init__(self, root: Path, **options: Any):
        super().__init__(root, **options)
        self.ran: list[str] = []

    async def run(self, cmd: str, args=(), timeout_s: float = RUN_TIMEOUT_DEFAULT_S):
        if isinstance(args, (list, tuple)) and all(isinstance(a, str) for a in args):
            self.ran.append(shlex.join([cmd, *args]))  # other arguments are refused: nothing runs
        return await super().run(cmd, args, timeout_s)


class _NoAgents:
    """The agent port of a snippet. Asks are refused at compile time, so it is never called."""

    async def run_turn(self, request, message: str, channel) -> str:
        raise RuntimeError("a snippet has no agents")

    async def close(self) -> None:
        pass
