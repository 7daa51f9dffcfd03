"""This module defines how a port runs a child process: `run_process`, shared by the world's
commands, `git` and the grep worker (`world.py`), the actor tool `run_command`
(`actor_tools.py`) and the command agent port (`command.py`), and the environment children get.

Processes. No shell; stdin from /dev/null (or a pipe when there is input to send); a new
session, so the child leads its own process group; stdout and stderr drained concurrently under
a byte cap per stream; the whole call under a deadline. On every exit path — normal, timeout,
output overflow, or cancellation of the calling task — the process group is sent SIGKILL and
the child is reaped inside a shielded scope, so no descendant outlives the call.

Environment. Children never inherit the host environment: `sanitized_environment` keeps an
allow-list (`PATH`, `HOME`, locale, `TERM`, `TMPDIR`, `TZ`, `USER`, `LOGNAME`, `SHELL`) plus the
caller's overrides, minus every name that looks like a credential (`looks_like_credential`).
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import anyio

from dwf.runtime.values.errors import world_error

KIB = 1 << 10
MIB = 1 << 20

ENV_ALLOWED = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TMPDIR", "TZ", "USER",
               "LOGNAME", "SHELL")
CREDENTIAL_MARKERS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH",
                      "COOKIE", "SESSION")
CREDENTIAL_PREFIXES = ("AWS_", "ANTHROPIC_", "OPENAI_", "GITHUB_", "GH_")


def format_size(n: int) -> str:
    """A byte cap as text: `16 MiB`, `256 KiB`."""
    return f"{n // MIB} MiB" if n % MIB == 0 else f"{n // KIB} KiB"


def looks_like_credential(name: str) -> bool:
    """Whether an environment variable's name suggests a secret (`*TOKEN*`, `AWS_*`, ...)."""
    upper = name.upper()
    return any(m in upper for m in CREDENTIAL_MARKERS) or upper.startswith(CREDENTIAL_PREFIXES)


def sanitized_environment(overrides: Mapping[str, str] | None = None,
                          base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The allow-listed part of `base` (default: this process's environment) plus `overrides`,
    without credential-like names; `PATH` defaults to `os.defpath`."""
    base = os.environ if base is None else base
    env = {name: base[name] for name in ENV_ALLOWED if name in base}
    env.update(overrides or {})
    env.setdefault("PATH", os.defpath)
    return {k: v for k, v in env.items() if not looks_like_credential(k)}


@dataclass(frozen=True, slots=True)
class Completed:
    """A process that ran to its end: its exit code and everything it wrote."""

    exit_code: int
    stdout: bytes
    stderr: bytes


async def run_process(argv: list[str], *, what: str, cwd: Path, env: dict[str, str], timeout_s: float,
                      output_limit: int, stdin_data: bytes | None = None, timeout_message: str | None = None,
                      overflow_message: str | None = None) -> Completed:
    """Run `argv` to completion under a deadline and a per-stream byte cap (see the module
    docstring). Raises `WorldError` on spawn failure, timeout (`timeout_message`) or output over
    the cap (`overflow_message`); `what` names the process in the default messages."""
    try:
        process = await anyio.open_process(
            argv, stdin=subprocess.PIPE if stdin_data is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=env, start_new_session=True)
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise world_error(f"{what}: cannot start: {reason}") from None
    buffers = {"stdout": bytearray(), "stderr": bytearray()}
    overflow: list[str] = []
    exit_code: int | None = None
    try:
        with anyio.move_on_after(timeout_s):
            async with anyio.create_task_group() as group:
                async def drain(stream, name: str) -> None:
                    buffer = buffers[name]
                    async for chunk in stream:
                        buffer += chunk
                        if len(buffer) > output_limit:
                            overflow.append(name)
                            group.cancel_scope.cancel()
                            return

                async def feed() -> None:
                    try:
                        await process.stdin.send(stdin_data)
                        await process.stdin.aclose()
                    except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                        pass

                group.start_soon(drain, process.stdout, "stdout")
                group.start_soon(drain, process.stderr, "stderr")
                if stdin_data is not None:
                    group.start_soon(feed)
            if not overflow:
                exit_code = await process.wait()
    finally:
        with anyio.CancelScope(shield=True):
            kill_group(process.pid)
            await process.aclose()
    if overflow:
        raise world_error(overflow_message or f"{what}: {overflow[0]} is over the {format_size(output_limit)} cap")
    if exit_code is None:
        raise world_error(timeout_message or f"{what}: timed out after {timeout_s:g} s")
    return Completed(exit_code, bytes(buffers["stdout"]), bytes(buffers["stderr"]))


def kill_group(pgid: int) -> None:
    """SIGKILL the process group `pgid`; one already gone is no error."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


__all__ = ["CREDENTIAL_MARKERS", "CREDENTIAL_PREFIXES", "Completed", "ENV_ALLOWED", "KIB", "MIB", "format_size",
           "kill_group", "looks_like_credential", "run_process", "sanitized_environment"]
