"""This module defines `Slots`, the run's concurrency cap on asks in flight (issue #18, fan-out).

It is `anyio.CapacityLimiter` for one event loop, minus two yields: taking a free slot does not
pass through the event loop (anyio's limiter and lock checkpoint even when nothing waits), and
neither does giving one back. With a 1,024-item fan-out every item passed two such yields
before its ask could start, and each yield let all the other items run a step first, so the
first asks of a fan-out started only after every item had been queued twice over (0.2 s at
1,024 items). A slot is still handed to the waiters in arrival order, the cap can change while
the run is live (`total_tokens`, as `dwfc set` does), and a cancelled waiter gives back a slot
it was handed. A `Slots(1)` is each actor's turn (its asks one at a time, FIFO): anyio's `Lock`
cost about 3 µs to make and 3 µs to take and give back, this a tenth of that.
"""

from __future__ import annotations

import asyncio
from collections import deque


class Slots:
    """Slots(total): at most `total` holders at once; `async with slots:` holds one."""

    def __init__(self, total: int) -> None:
        self._total = int(total)
        self._held = 0
        self._waiters: deque[asyncio.Future] = deque()

    @property
    def total_tokens(self) -> int:
        return self._total

    @total_tokens.setter
    def total_tokens(self, value: int) -> None:
        self._total = max(1, int(value))
        self._hand_over()

    @property
    def borrowed_tokens(self) -> int:
        return self._held

    def take_free(self) -> bool:
        """Take a slot if one is free and nobody waits for it, without awaiting (True if taken)."""
        if self._held < self._total and not self._waiters:
            self._held += 1
            return True
        return False

    async def __aenter__(self) -> None:
        if self.take_free():  # free: no trip through the event loop (the ask awaits soon enough)
            return
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter  # resolved by _hand_over with the slot already counted as held
        except BaseException:
            if waiter.done() and not waiter.cancelled():
                self.give_back()  # handed a slot while being cancelled: give it on
            elif waiter in self._waiters:
                self._waiters.remove(waiter)
            raise

    async def __aexit__(self, *exc_info) -> None:
        self.give_back()

    def give_back(self) -> bool:
        """Give a held slot back without a yield; True when a waiter was handed it (it runs at
        the event loop's next turn)."""
        self._held -= 1
        return self._hand_over()

    def _hand_over(self) -> bool:
        handed = False
        while self._waiters and self._held < self._total:
            waiter = self._waiters.popleft()
            if not waiter.done():
                self._held += 1
                waiter.set_result(None)
                handed = True
        return handed


__all__ = ["Slots"]
