"""This module defines `drive`, which runs one start request to settlement for the command line:
SIGINT/SIGTERM stop the run as `stopped(interrupted)` (it settles within its grace period),
and a live terminal status line is refreshed while it runs. `dwfc run`, `resume` and `amend`
share it."""

from __future__ import annotations

import signal

import anyio

from typing import Awaitable, Callable

from dwf.runtime.engine.engine import Engine, Run, RunResult, StartError, StartRequest


async def drive(start: StartRequest | Callable[[Engine], Awaitable[Run]], progress) -> RunResult | list[str]:
    """Start a run (a request, or a coroutine function that starts one on the engine, as amend
    does) and return its result, or the problems when the engine refuses to start it."""
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with Engine() as engine:
            try:
                run = engine.start(start) if isinstance(start, StartRequest) else await start(engine)
            except StartError as error:
                return list(error.problems)

            async def stop_on_signal():
                async for _ in signals:
                    if run.settled.is_set():
                        continue
                    progress.notice("interrupted: stopping the run (it settles within a few seconds)")
                    run.cancel("interrupted")

            async def refresh_live_status():
                while True:
                    await anyio.sleep(0.5)
                    progress.refresh()

            async with anyio.create_task_group() as group:
                group.start_soon(stop_on_signal)
                if progress.live:
                    group.start_soon(refresh_live_status)
                result = await run.result
                group.cancel_scope.cancel()
            return result
