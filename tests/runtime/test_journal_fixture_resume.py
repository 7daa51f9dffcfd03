"""Journals recorded by an older dwf keep their keys (issue #12, acceptance 6): occurrence keys
(`ask#1/for#1[0]/call#4`) are persistent, so a run journaled before loop and call IDs moved from
the runtime's closure compiler into the IR resumes with every settled ask replayed, none
dispatched again. The fixture `tests/fixtures/journals/loops_stopped.db` is a real SQLite journal
of `loops.dwf.py` (asks in `for`, `while`, comprehensions, `map` and helper calls, nested),
stopped while the ask `late1` ran; `record.py` next to it says how it was made."""

from __future__ import annotations

import shutil
from pathlib import Path

import anyio

from dwf.runtime.engine import Engine, StartRequest
from dwf.runtime.engine.prepare import resume_problems
from dwf.runtime.journal.sqlite import SqliteJournal
from dwf.runtime.ports.protocols import NUDGE_MESSAGE, Usage

FIXTURES = Path(__file__).parents[1] / "fixtures" / "journals"


class EchoPort:
    """Answers each ask with `R(<instructions>)`; an ask whose instructions are `hang` waits
    until the run is stopped."""

    def __init__(self, hang: str | None = None):
        self.hang = hang
        self.calls: list[tuple[str, str]] = []  # (occurrence key, instructions) of each dispatched ask

    async def run_turn(self, request, message, channel) -> str:
        if message == NUDGE_MESSAGE:
            return "nothing to submit"
        self.calls.append((request.key, request.instructions))
        if request.instructions == self.hang:
            await anyio.sleep(600)
        channel.usage(Usage(output_tokens=1))
        return f"R({request.instructions})"

    async def close(self) -> None:
        return None


def settle(request: StartRequest):
    async def main():
        async with Engine() as engine:
            return await engine.start(request).result

    return anyio.run(main)


def test_a_journal_recorded_before_the_ir_minted_ids_resumes_without_redispatch(tmp_path):
    script = (FIXTURES / "loops.dwf.py").read_text(encoding="utf-8")
    with SqliteJournal(tmp_path / "straight" / "state.db") as other:
        straight = settle(StartRequest(script=script, path="loops.dwf.py", agent_port=EchoPort(), journal=other))
        straight_keys = {node.key for node in other.list_nodes(straight.run_id)}
    assert straight.status == "completed"

    path = tmp_path / ".dwf" / "state.db"
    path.parent.mkdir()
    shutil.copyfile(FIXTURES / "loops_stopped.db", path)  # never touch the committed file
    with SqliteJournal(path) as journal:
        (row,) = journal.list_runs()
        assert row.status == "stopped" and resume_problems(row) == []  # an older compiler version is accepted
        before = {node.key: node.status for node in journal.list_nodes(row.id)}
        settled = {key for key, status in before.items() if status == "completed"}
        assert before["ask#5/for#3[1]"] == "running" and len(settled) == 24
        assert {key.split("/")[1].split("#")[0] for key in settled if "/" in key} >= {"for", "comp", "while", "call"}

        port = EchoPort()
        result = settle(StartRequest(script="", agent_port=port, journal=journal, run_id=row.id, resume=True))
        after = {node.key for node in journal.list_nodes(row.id)}

    assert result.status == "completed" and result.value == straight.value
    dispatched = {key for key, _ in port.calls}
    assert not dispatched & settled  # zero re-dispatch of settled asks
    assert sorted(instructions for _, instructions in port.calls) == ["late1", "late2", "review t0", "review t1"]
    assert after == straight_keys  # today's compiler mints the keys the old run journaled
