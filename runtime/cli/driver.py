"""This module defines `drive`, which runs one run to settlement for the command line:
SIGINT/SIGTERM stop the run as `stopped(interrupted)` (it settles within its grace period),
and a live terminal status line is refreshed while it runs. `dwfc run`, `resume` and `amend`
share it."""

from __future__ import annotations

import signal
from typing import Awaitable, Callable

import anyio

from dwf.runtime.engine import Engine, Run, RunOutcome


async def drive(start: Callable[[Engine], Run | Awaitable[Run]], progress) -> RunOutcome:
    """Start a run with `start(engine)` (which may be a coroutine function, as amend is) and
    return its outcome; a `StartError` from `start` leaves it (nothing ran)."""
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with Engine() as engine:
            run = start(engine)
            if not isinstance(run, Run):
                run = await run

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
