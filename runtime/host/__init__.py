"""Workspace use cases shared by the command line and the tool layer, above the engine.

- `saved.py`: saved workflows (`.dwf/workflows/`, `$DWF_HOME/workflows/`).
- `drafts.py`: drafts, the inline scripts a host agent submits (`.dwf/drafts/`).
- `snippets.py`: snippet evaluation (`dwfc eval`, `EvalWorkflowSnippet`).
- `amend.py`: amend, a new run of an edited script that imports its predecessor's work
  (with `ImportedCache`, which redesign step 2 moves to `engine/import_cache.py`).
"""
