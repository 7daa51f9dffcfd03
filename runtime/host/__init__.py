"""Workspace use cases shared by the command line, the tool layer and the MCP server, above the
engine. It imports the engine, the journal and the ports; never the tool layer or the CLI.

- `session.py`: `WorkspaceSession`, the one assembly of a run over a workspace (journal,
  world, artifacts, question port, prepare/start/resume/amend through one `Engine`).
- `approval.py`: the approval screens (`plan_summary`, `caps_lines`, `amend_summary`, `render_plan_text`, ...).
- `amend.py`: `amend`, a new run of an edited script that imports its predecessor's work;
  `cancel_run`, stopping a live run here or in another process.
- `engine_thread.py`: `EngineThread`, an `Engine` on an event loop of its own in a thread of its
  own (the tool layer's background runs).
- `configure.py`: `configure_run`, a run's concurrency and model changed live or recorded.
- `run_views.py`: the read models of runs (`resolve_run`, `run_summary`, `snapshot`, ...).
- `saved.py`: saved workflows (`.dwf/workflows/`, `$DWF_HOME/workflows/`) and `resolve_called`.
- `drafts.py`: drafts, the inline scripts a host agent submits (`.dwf/drafts/`).
- `snippets.py`: snippet evaluation (`dwfc eval`, `EvalWorkflowSnippet`).
- `watch.py`: `RunWatch`, the async subscription to a workspace's run notices (`RunNotice`:
  run finished, question raised, run stalled).

The names below are imported from their modules on first use, so importing one module of the
package (as `dwfc` does at start-up) does not load the others.
"""

from dwf.runtime.values.lazy_exports import lazy_exports

_HOMES = {
    "WorkspaceSession": "session", "new_run_id": "session",
    "plan_summary": "approval", "amend_summary": "approval", "render_plan_text": "approval",
    "plan_with_called": "approval", "called_section": "approval", "called_entries": "approval",
    "caps_lines": "approval",
    "amend": "amend", "supersede": "amend", "cancel_run": "amend", "inherited_caps": "amend",
    "EngineThread": "engine_thread",
    "configure_run": "configure", "ConfigureError": "configure",
    "RunLookupError": "run_views", "resolve_run": "run_views", "run_summary": "run_views", "snapshot": "run_views",
    "status_text": "run_views", "format_duration": "run_views",
    "SavedWorkflow": "saved", "SavedWorkflowError": "saved", "resolve_called": "saved", "save_workflow": "saved",
    "list_saved": "saved", "find_saved": "saved",
    "DraftError": "drafts", "write_draft": "drafts",
    "check_snippet": "snippets", "eval_snippet": "snippets",
    "RunWatch": "watch", "RunNotice": "watch",
}

__all__, __getattr__ = lazy_exports(__name__, _HOMES)
