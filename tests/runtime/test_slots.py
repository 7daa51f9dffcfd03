"""`Slots`, the cap on asks in flight (runtime/engine/slots.py): a free slot is taken without a
trip through the event loop, slots go to waiters in arrival order, the cap can change while
holders wait, and a waiter cancelled after it was handed a slot gives it on."""

from __future__ import annotations

import anyio
import pytest

from dwf.runtime.engine.slots import Slots


@pytest.mark.anyio
async def test_a_free_slot_is_taken_without_yielding_and_the_cap_holds():
    slots = Slots(2)
    ran = []

    async def other():
        ran.append("other")

    async with anyio.create_task_group() as group:
        group.start_soon(other)
        async with slots:  # `other` is ready, but taking a free slot lets nothing else run
            async with slots:
                assert ran == [] and slots.borrowed_tokens == 2
        await anyio.sleep(0)
    assert ran == ["other"] and slots.borrowed_tokens == 0


@pytest.mark.anyio
async def test_waiters_get_slots_in_arrival_order_and_at_most_the_cap_hold_one():
    slots = Slots(2)
    order, holding, most = [], [0], [0]

    async def hold(name: str, gate: anyio.Event):
        async with slots:
            order.append(name)
            holding[0] += 1
            most[0] = max(most[0], holding[0])
            await gate.wait()
            holding[0] -= 1

    gates = [anyio.Event() for _ in range(6)]
    async with anyio.create_task_group() as group:
        for index in range(6):
            group.start_soon(hold, f"t{index}", gates[index])
            await anyio.sleep(0)  # each arrives before the next
        assert order == ["t0", "t1"]
        for gate in gates:
            gate.set()
            await anyio.sleep(0.01)
    assert order == [f"t{index}" for index in range(6)] and most[0] == 2


@pytest.mark.anyio
async def test_raising_the_cap_wakes_waiters_and_lowering_it_lets_holders_finish():
    slots = Slots(1)
    release = anyio.Event()
    started = []

    async def hold(name: str):
        async with slots:
            started.append(name)
            await release.wait()

    async with anyio.create_task_group() as group:
        for name in ("a", "b", "c"):
            group.start_soon(hold, name)
        await anyio.sleep(0.01)
        assert started == ["a"]
        slots.total_tokens = 3  # `dwfc set --max-concurrency 3` on a live run
        await anyio.sleep(0.01)
        assert started == ["a", "b", "c"] and slots.borrowed_tokens == 3
        slots.total_tokens = 1
        release.set()
    assert slots.borrowed_tokens == 0


@pytest.mark.anyio
async def test_a_cancelled_waiter_gives_on_the_slot_it_was_handed():
    import asyncio

    slots = Slots(1)
    got = []

    async def wait_for_slot(name: str):
        async with slots:
            got.append(name)

    await slots.__aenter__()  # held by the test
    first = asyncio.ensure_future(wait_for_slot("first"))
    second = asyncio.ensure_future(wait_for_slot("second"))
    await asyncio.sleep(0.01)
    await slots.__aexit__(None, None, None)  # handed to "first" ...
    first.cancel()  # ... which is cancelled before it resumes
    await asyncio.gather(first, second, return_exceptions=True)
    assert first.cancelled() and got == ["second"] and slots.borrowed_tokens == 0


@pytest.mark.anyio
async def test_a_waiter_cancelled_before_its_turn_leaves_the_queue():
    import asyncio

    slots = Slots(1)
    got = []

    async def wait_for_slot(name: str):
        async with slots:
            got.append(name)

    await slots.__aenter__()
    first = asyncio.ensure_future(wait_for_slot("first"))
    second = asyncio.ensure_future(wait_for_slot("second"))
    await asyncio.sleep(0.01)
    first.cancel()
    await asyncio.sleep(0.01)
    await slots.__aexit__(None, None, None)
    await asyncio.gather(first, second, return_exceptions=True)
    assert got == ["second"] and slots.borrowed_tokens == 0


@pytest.mark.anyio
async def test_giving_a_slot_back_says_whether_a_waiter_was_handed_it():
    import asyncio

    slots = Slots(1)
    await slots.__aenter__()
    assert slots.give_back() is False and slots.borrowed_tokens == 0  # nobody waited
    await slots.__aenter__()
    waiter = asyncio.ensure_future(slots.__aenter__())
    await asyncio.sleep(0)
    assert slots.give_back() is True and slots.borrowed_tokens == 1  # counted as the waiter's at once
    await waiter
    assert slots.give_back() is False and slots.borrowed_tokens == 0
