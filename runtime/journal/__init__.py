"""Storage: the journal of runs, nodes and actors.

- `store.py`: the `JournalStore` interface, its rows, `JournalError`, `input_hash` and `MemoryJournal`.
- `sqlite.py`: the SQLite journal store, the embedded default (`.dwf/state.db`).
- `control.py`: the run-management service over a journal (run lookup, reconciliation, owner files,
  cancel requests, resume checks, summaries); redesign step 2 splits its read models out to
  `host/run_views.py`.
"""
