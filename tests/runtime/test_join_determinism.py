"""The determinism proof without holes (#19 point 7): random workflows whose join items touch state
— shared top-level lists, dicts and counters, a parameter every item shares, a helper that changes
shared state, per-item locals, logs — are compiled; every one the compiler accepts runs live under
one random completion order and, interrupted and resumed (finished asks replayed instantly, in
another order), gives the same value, reports and logs. The ones it refuses are exactly those
with a change to shared state in an item that awaits (DWF330)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from dwf.compiler.compile import compile_source
from dwf.runtime.journal.sqlite import SqliteJournal
from test_resume_fuzz import fake_port, run

META = 'meta = {"name": "joins", "description": "Join items with state."}\nphase("Work")\n'
PRELUDE = 'shared = []\ntable = {}\ncount = {"n": 0}\n\n\ndef note(value):\n    shared.append(value)\n\n\n'

# (statement, changes shared state?) — `{v}` is the latest ask's result in the item.
STATEMENTS = {
    "shared-append": ("shared.append({v})", True),
    "table-set": ("table[str(index)] = {v}", True),
    "counter": ('count["n"] += 1', True),
    "helper": ("note({v})", True),
    "param-append": ("acc.append({v})", None),  # shared only when every item gets the same `acc`
    "own-list": ("mine.append({v})", False),
    "log": ('log(f"item {{index}}: {{{v}[:8]}}")', False),
}


@st.composite
def programs(draw) -> tuple[str, bool]:
    """A script and whether it changes state its join's items share after an await."""
    join = draw(st.sampled_from(["parallel", "gather", "pipeline"]))
    shared_acc = draw(st.booleans())
    n = draw(st.integers(1, 4))
    steps = draw(st.lists(st.sampled_from(["ask", *STATEMENTS]), min_size=1, max_size=6))
    lines, asked = ["mine = []"], 0
    for step in steps:
        if step == "ask":
            lines.append(f'v{asked} = await agent(f"a{asked}_{{index}}").ask(f"item {{index}} step {asked}")')
            asked += 1
        else:
            lines.append(STATEMENTS[step][0].format(v=f"v{asked - 1}" if asked else "str(index)"))

    def shared(step: str) -> bool:
        changes = STATEMENTS[step][1]
        return shared_acc and join != "pipeline" if changes is None else changes

    # The check is not position-aware: an item that awaits anywhere may not change shared state.
    changes_shared = "ask" in steps and any(shared(step) for step in steps if step != "ask")
    lines.append(f"return [mine, {f'v{asked - 1}' if asked else 'index'}]")
    body = "".join(f"    {line}\n" for line in lines)
    acc = "shared" if shared_acc else "[]"
    if join == "pipeline":  # one stage: (previous, item, index); `acc` is a fresh list per item
        source = f"async def item(previous, item, index):\n    acc = []\n{body}\n\n"
        source += f"r = await pipeline(list(range({n})), item)\n"
    else:
        source = f"async def item(index, acc):\n{body}\n\n"
        awaitables = f"item(i, {acc}) for i in range({n})"
        source += (f"r = await parallel({awaitables})\n" if join == "parallel"
                   else f"r = await gather(*[{awaitables}])\n")
    return META + PRELUDE + source + 'report({"size": len(r)})\nreturn [r, shared, table, count]\n', changes_shared


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(program=programs(), delays=st.lists(st.sampled_from([0.0, 0.001, 0.004, 0.01]), min_size=2, max_size=6),
       data=st.data())
def test_every_accepted_program_replays_to_the_live_result(program, delays, data):
    script, changes_shared = program
    compiled = compile_source(script, "joins.dwf.py")
    refused = {d.code for d in compiled.diagnostics if d.severity == "error"}
    assert refused <= {"DWF330"}, (refused, script)
    assert bool(refused) == changes_shared, script  # refused exactly when an awaiting item changes shared state
    if refused:
        event("refused (DWF330)")
        return
    event("accepted")
    with tempfile.TemporaryDirectory() as folder:
        with SqliteJournal(Path(folder) / "live" / "state.db") as journal:
            live = run(journal, fake_port(delays), script=script, max_concurrency=4)
        assert live.status == "completed", (live.error, script)
        k = data.draw(st.integers(0, 3), label="stop after k settled asks")
        replay_delays = list(reversed(delays))  # another completion order
        with SqliteJournal(Path(folder) / "replayed" / "state.db") as journal:
            stopped = run(journal, fake_port(replay_delays), script=script, stop_after=k, max_concurrency=4)
            if stopped.status != "completed":
                stopped = run(journal, fake_port(delays[1:] + delays[:1]), run_id=stopped.run_id, resume=True,
                              max_concurrency=4)
        assert stopped.status == "completed", (stopped.error, script)
        assert stopped.value == live.value, script
        assert stopped.reports == live.reports, script
