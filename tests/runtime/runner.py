"""A tiny helper for runtime tests: compile a snippet and run it end to end through the Engine
with a fake agent port, optionally under overridden `Limits`.

The `meta` block is appended *after* the snippet, so script line numbers in tracebacks are the
snippet's own line numbers."""

from __future__ import annotations

import textwrap
from typing import Any, Callable

import anyio

from dwf.compiler.compile import CompileResult, compile_source
from dwf.runtime.engine import Engine, RunOutcome, StartError, StartRequest
from dwf.runtime.interpreter.limits import Limits
from dwf.runtime.ports.protocols import AskRequest
from fakes import FakeAgentPort, echo

META = '\nmeta = {"name": "runtime-test", "description": "A runtime test snippet."}\n'


def script_of(snippet: str) -> str:
    text = textwrap.dedent(snippet).strip("\n") + "\n"
    return text if "meta = {" in text else text + META


class EchoPort(FakeAgentPort):
    """The `FakeAgentPort` that echoes: every ask is answered with its instructions; a typed ask
    submits `respond(request)` (default: the instructions) once. `delays` maps an instruction
    prefix to seconds slept before answering; `fail(request)` fails an ask with `refused:
    <instructions>`; `log` records (event, instructions) in order."""

    def __init__(self, respond: Callable[[AskRequest], Any] | None = None, delays: dict[str, float] | None = None,
                 fail: Callable[[AskRequest], bool] | None = None):
        super().__init__(text=respond or echo, value=respond or echo, delay=delays, fail=fail,
                         failure=lambda request: f"refused: {request.instructions}")


class FakeWorld:
    """A world port without a workspace: reads answer from `files` (path -> text) and every
    command echoes its arguments, so scripts get real records without real processes."""

    def __init__(self, files: dict[str, str] | None = None):
        self.files = files or {"a.py": "x = 1\nprint(x)\n", "b.py": "y = 2\n"}
        self.calls: list[tuple] = []

    async def read(self, op: str, args: list, kwargs: dict) -> Any:
        from dwf.runtime.values.errors import world_error
        from dwf.runtime.values.records import git_commit, git_status, grep_match

        self.calls.append((op, *args))
        if op == "files.glob":
            return sorted(self.files)
        if op == "files.read":
            if args[0] not in self.files:
                raise world_error(f"no such file: {args[0]}")
            return self.files[args[0]]
        if op == "files.grep":
            return [grep_match(path, number, line) for path, text in sorted(self.files.items())
                    for number, line in enumerate(text.splitlines(), 1) if args[0] in line]
        if op == "git.status":
            return git_status("main", False, [], ["a.py"], [])
        if op == "git.log":
            return [git_commit("abc123", "first", "Ada", "2024-01-02")]
        if op == "git.changed_files":
            return ["a.py"]
        raise world_error(f"{op} is not supported by the fake world")

    async def run(self, cmd: str, args: list, timeout_s: float) -> Any:
        from dwf.runtime.values.records import run_result

        self.calls.append(("run", cmd, *args))
        return run_result(0 if cmd != "false" else 1, " ".join(args), "")


def compile_snippet(snippet: str) -> CompileResult:
    return compile_source(script_of(snippet), "test.dwf.py")


async def run_async(snippet: str, limits: Limits | None = None, port: EchoPort | None = None, *,
                    timeout: float = 60.0, **options: Any) -> RunOutcome:
    """`timeout` only guards against a hung test (a loaded machine can take seconds to start the
    regex worker); `options` go to `StartRequest` (args, world, max_concurrency, ...); asks may run 8 at a
    time unless `max_concurrency` says otherwise, whatever the machine's CPU count."""
    options.setdefault("max_concurrency", 8)
    request = StartRequest(script=script_of(snippet), agent_port=port or EchoPort(), path="test.dwf.py",
                           limits=limits or Limits(), grace_period_s=1.0, **options)
    refused: StartError | None = None
    with anyio.fail_after(timeout):
        async with Engine() as engine:
            try:
                run = engine.start(request)
            except StartError as error:
                refused = error  # raised below, outside the engine's task group
            else:
                return await run.result
    assert refused is not None
    raise refused


def run(snippet: str, limits: Limits | None = None, port: EchoPort | None = None, *, timeout: float = 60.0,
        **options: Any) -> RunOutcome:
    """Compile and run `snippet` (raises `StartError` on compile errors); returns the RunOutcome."""
    return anyio.run(lambda: run_async(snippet, limits, port, timeout=timeout, **options))


def value(snippet: str, limits: Limits | None = None, port: EchoPort | None = None, **options: Any) -> Any:
    """Run and return the script's value, failing the test with the traceback if it errored."""
    result = run(snippet, limits, port, **options)
    assert result.status == "completed", f"{result.error}\n{result.traceback}"
    return result.value


__all__ = ["EchoPort", "FakeWorld", "Limits", "RunOutcome", "StartError", "compile_snippet", "run", "run_async", "script_of", "value"]
