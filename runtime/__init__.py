"""The DWF runtime: command line, interpreter, engine and ports, one package per layer, bottom first.

- `values/`: what scripts hold and what crosses ports (objects, views, records, errors).
- `statedir.py`: the `.dwf/` state folder's layout, `DWF_HOME`, and the one atomic file writer.
- `interpreter/`: the analyzed IR run as closures against an effect host, with the builtins and modules.
- `journal/`: storage (the journal interface, memory and SQLite stores, run control).
- `ports/`: the port interfaces and the outside world (agent ports, world, artifacts, questions).
- `engine/`: the run contract (`Engine`, requests, asks, events, arguments, called workflows).
- `host/`: workspace use cases shared by the CLI and the tool layer (saved, drafts, snippets, amend).
- `tools/`: the host-agent tool layer and its MCP front end.
- `viewer/`: the live run viewer `dwfc ui`, a local web app over the journal.
- `temporal/`: runs on a Temporal cluster (`dwfc worker`, `dwfc run --temporal`; the optional `temporal` extra).
- `cli/`: `dwfc`, the command line.
"""

__all__ = ["cli", "engine", "host", "interpreter", "journal", "ports", "statedir", "temporal", "tools", "values", "viewer"]
