"""This module defines `EngineThread`, an `Engine` on an event loop of its own in a dedicated
thread, so that a run's synchronous stretch (a script computing for seconds between two awaits)
holds that loop and not the caller's (the MCP server's, which goes on answering).

    async with EngineThread() as engine_thread:
        run = await engine_thread.call(start_a_run, engine_thread.engine)   # runs on the engine's loop
        engine_thread.interrupt(run.id, "user")                             # from any thread

Everything that touches the engine or a live run (`Engine.start`, `Run.cancel`, `change_caps`,
awaiting `settled`) goes through `call`, which runs a coroutine on the engine's loop and awaits
its result on the caller's (a `concurrent.futures.Future`, `asyncio.wrap_future`); cancelling
the caller cancels it there. `interrupt` is the one thing done from the caller's thread: `Run.interrupt` is
thread-safe and stops a script at its next step, so a cancel lands while the loop is held.
Leaving the `async with` interrupts the live runs and exits the engine on its loop (they
stop as `stopped(interrupted)`, as `Engine.__aexit__` does), and waits for the thread to end.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from typing import Any, Awaitable, Callable, TypeVar

import anyio
import anyio.to_thread

from dwf.runtime.engine import Engine

T = TypeVar("T")


class EngineThread:
    """An `Engine` served by a thread with its own event loop (module docstring)."""

    def __init__(self, name: str = "dwf-engine") -> None:
        self.engine = Engine()
        self._name = name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread: threading.Thread | None = None
        self._ended: concurrent.futures.Future = concurrent.futures.Future()
        self._tasks: set[asyncio.Task] = set()  # the coroutines of `call` running there (the loop holds tasks weakly)

    async def __aenter__(self) -> EngineThread:
        ready: concurrent.futures.Future = concurrent.futures.Future()
        self._thread = threading.Thread(target=asyncio.run, args=(self._serve(ready),), name=self._name, daemon=True)
        self._thread.start()
        await asyncio.wrap_future(ready)  # the engine's __aenter__ failing raises here
        return self

    async def __aexit__(self, exc_type, exc, traceback) -> None:
        for run in list(self.engine.runs.values()):  # a run computing would hold the loop the stop needs
            run.interrupt("interrupted")
        if self._loop is not None and not self._ended.done():
            self._loop.call_soon_threadsafe(self._stop.set)
        with anyio.CancelScope(shield=True):  # a cancelled caller still waits: runs settle within their grace
            await anyio.to_thread.run_sync(self._thread.join)
        self._ended.result()  # raises what the engine's exit raised

    async def call(self, function: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any) -> T:
        """`await function(*args, **kwargs)` on the engine's loop; its result or exception here.
        The result is handed over from inside the coroutine, not from its task's done callback:
        a run it started is scheduled first and may hold the loop for seconds before that."""
        if self._loop is None or self._ended.done():
            raise RuntimeError("use `async with EngineThread()` before calling into its engine")
        outcome: concurrent.futures.Future = concurrent.futures.Future()
        tasks: list[asyncio.Task] = []

        async def there() -> None:
            if not outcome.set_running_or_notify_cancel():  # the caller gave up before it began
                return
            try:
                outcome.set_result(await function(*args, **kwargs))
            except BaseException as error:
                outcome.set_exception(error)

        def begin() -> None:
            tasks.append(self._loop.create_task(there()))
            self._tasks.add(tasks[0])
            tasks[0].add_done_callback(self._tasks.discard)

        self._loop.call_soon_threadsafe(begin)
        try:
            return await asyncio.wrap_future(outcome)
        except asyncio.CancelledError:  # the caller gave up: so does the coroutine
            self._loop.call_soon_threadsafe(lambda: tasks and tasks[0].cancel())
            raise

    def interrupt(self, run_id: str, reason: str) -> None:
        """Stop the live run `run_id` of this engine at its next step, even while its script holds
        the engine's loop (`Run.interrupt`); nothing when it is not live here. The caller still
        cancels it through `call`, which then gets the loop at once."""
        run = self.engine.runs.get(run_id)  # one dict read: atomic under the GIL
        if run is not None:
            run.interrupt(reason)

    async def _serve(self, ready: concurrent.futures.Future) -> None:
        self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
        try:
            async with self.engine:
                ready.set_result(None)
                await self._stop.wait()
        except BaseException as error:
            if not ready.done():
                ready.set_exception(error)
            self._ended.set_exception(error)
        else:
            self._ended.set_result(None)


__all__ = ["EngineThread"]
