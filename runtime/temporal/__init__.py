"""DWF runs on Temporal (issue #17): the same scripts, run by a cluster of workers. Optional: it
needs the `temporal` extra (`pip install -e '.[temporal]'`); nothing else in dwf imports it at
module level, so `dwfc run` without `--temporal` never loads temporalio.

- `contract.py`: the names the workflow, activities, worker and client share; `run_input`, the
  workflow's input (the analyzed IR, the validated arguments, the repository it targets);
  `worker_queue`, `worker_identity`, `parse_identity`; `run_id_of_question`, `escalation_key`.
- `workflow.py`: `DwfRunWorkflow`, the engine's `Run` inside a Temporal workflow;
  `TemporalRunHost`, whose effects are activities keyed by occurrence key; `ActivityWorktrees`,
  isolated actors' worktrees on the worker that holds them.
- `activities.py`: `DwfActivities`, each effect performed on a worker with the local ports.
- `worker.py`: `serve` and `build_workers` (`dwfc worker`: the shared queue and its own), `connect`.
- `client.py`: `serving_problems`, `submit`, `follow` (`dwfc run --temporal`), `cancel_run`,
  `answer_question`, `list_runs`, `show_run`, `run_nodes`.
"""

__all__ = ["activities", "client", "contract", "worker", "workflow"]
