"""This module defines `drive`, which runs one run to settlement for the command line:
SIGINT/SIGTERM stop the run as `stopped(interrupted)` (it settles within its grace period; a
script busy in synchronous code stops at its next step, `stop_inside_steps`),
and a live terminal status line is refreshed while it runs. `dwfc run`, `resume` and `amend`
share it."""

from __future__ import annotations

import signal
import threading
from typing import Awaitable, Callable

import anyio

from dwf.runtime.engine import Engine, Run, RunOutcome


def stop_inside_steps(run: Run) -> None:
    """Make SIGINT/SIGTERM stop the script at its next step even while it keeps the event loop
    busy (a long loop never awaits, so the loop's own signal handler would run only after it).
    The Python-level handler only flags the interpreter (`Run.interrupt`); the signal still
    reaches the event loop's handler, which settles the run."""
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda number, frame: run.interrupt("interrupted"))


async def drive(start: Callable[[Engine], Run | Awaitable[Run]], progress) -> RunOutcome:
    """Start a run with `start(engine)` (which may be a coroutine function, as amend is) and
    return its outcome; a `StartError` from `start` leaves it (nothing ran)."""
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with Engine() as engine:
            run = start(engine)
            if not isinstance(run, Run):
                run = await run
            stop_inside_steps(run)

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
