"""This module defines the engine's half of group commit (`GroupCommitter`); the journal's half
(holders, the open group's serial, the watchdog thread) is in `journal/sqlite.py`.

Node rows and events written during one event-loop tick share one transaction. The journal
opens it on the first write and calls `wake()`; the committer task commits it one turn of the
event loop after it next runs, so every write of the tick, and of the tasks that tick woke, is
in it. Before an effect is dispatched, its `running` row and every outcome settled before it
got its turn must be committed (`dispatch_wait`): no dispatch may have seen a result that a
crash would lose. Effects dispatched in one tick share one commit; an outcome settling during
that wait is committed at the end of its own tick, like every outcome.
A journal failure stops the run (`on_failure`); the run then settles as errored.
`before_commit()` runs before each group commit of the committer task: it writes what a tick
only noted (the usage of asks still running), so it joins the commit.
"""

from __future__ import annotations

from typing import Awaitable, Callable

import anyio

from dwf.runtime.journal.store import JournalError, JournalStore
from dwf.runtime.values.errors import FatalError


class GroupCommitter:
    """GroupCommitter: commits the journal's group transactions of one run (module docstring)."""

    def __init__(self, journal: JournalStore, on_failure: Callable[[], None]):
        self.journal = journal
        self.on_failure = on_failure
        self.failure: JournalError | None = None  # why the journal stopped the run
        self._due = anyio.Event()  # set when the journal opens a group transaction
        self._committed = anyio.Event()  # set (and replaced) after each group commit
        self._done = True  # until `hold` starts the committer task
        self._stopped = False
        self._settled_group: int | None = None  # the open group that holds the latest settled effect
        self.before_commit: Callable[[], None] = lambda: None  # see the module docstring

    def wake(self) -> None:
        """The journal opened a group transaction: commit it when the committer next runs."""
        self._due.set()

    def hold(self) -> Callable[[], object]:
        """Take over the journal's commits; returns the committer task to start."""
        self.journal.hold_commits(self.wake)
        self._done = False
        return self._commit_groups

    def release(self) -> None:
        """Give the commits back to the journal (which commits the run's last rows)."""
        self.journal.release_commits(self.wake)

    def stop(self) -> None:
        """The run settled: let the committer task end."""
        self._stopped = True
        self._due.set()

    def note_settled(self) -> None:
        """An effect settled: the open group holds its outcome."""
        self._settled_group = self.journal.open_group

    def dispatch_wait(self, group: int | None) -> Awaitable[None] | None:
        """What an effect awaits before it is dispatched, None when nothing: the commit of the
        group that wrote its `running` row (`group`) and of the one that holds the latest
        settled outcome. (A plain call: most dispatches find both committed, and skip making a
        coroutine to await.)"""
        pending = self.journal.open_group
        if pending is not None and pending in (group, self._settled_group):
            return self._durable(pending)
        return None

    async def _commit_groups(self) -> None:
        try:
            while not self._stopped:
                await self._due.wait()
                # One more turn of the loop before committing: the writers the tick woke after
                # the group opened join it. A fan-out of instant asks then commits the 16 asks of
                # 16 actors at once instead of 8, and half as often (#18).
                await anyio.lowlevel.checkpoint()
                self._due = anyio.Event()
                if self._stopped:
                    return
                try:
                    self.before_commit()
                    self.journal.commit()
                except JournalError as failure:  # the run cannot go on without its journal
                    self.failure = failure
                    self.on_failure()
                    return
                finally:
                    self._committed.set()
                    self._committed = anyio.Event()
        finally:
            self._done = True
            self._committed.set()

    async def _durable(self, group: int) -> None:
        """Returns once the group transaction `group` is committed."""
        while self.journal.open_group == group:
            if self.failure is not None:
                raise FatalError("JournalError", str(self.failure))
            if self._done:
                self.journal.commit()
                return
            committed = self._committed
            self._due.set()
            await committed.wait()
