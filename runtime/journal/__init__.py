"""Storage: the journal of runs, nodes, actors and events. It imports nothing else from the runtime
except `statedir`.

- `store.py`: the `JournalStore` interface (every method the engine, run control, amend and the
  read models call), its rows `RunRow` and `NodeRow`, `JournalError` and `input_hash`.
- `memory.py`: `MemoryJournal`, the store in memory (a run given no journal).
- `sqlite.py`: `SqliteJournal`, the store in one SQLite file (`.dwf/state.db`): transactions,
  group commit, rows and blobs.
- `sqlite_schema.py`: its schema versions as forward migrations, and every SQL statement.
- `codec.py`: `dumps`, the JSON text the journal stores and event listeners get (orjson where it
  writes what `json` would, `json` where they would differ).
- `control.py`: the cross-process run-control protocol over a journal (owner records, liveness,
  `claim_lock`, cancel requests, reconciliation of dead owners' runs), plus the run lookup,
  resume checks and summaries `dwfc runs`/`show` print, and `spent`, the usage a run's nodes record.

The package exports the interface and the memory store. `SqliteJournal` is imported from
`dwf.runtime.journal.sqlite`: `dwfc` imports this package at start-up (run control), and `sqlite3`
should cost only the commands that open a journal.
"""

from dwf.runtime.journal.store import JournalError, JournalStore, NodeRow, RunRow, input_hash
from dwf.runtime.journal.memory import MemoryJournal

__all__ = ["JournalError", "JournalStore", "MemoryJournal", "NodeRow", "RunRow", "input_hash"]
