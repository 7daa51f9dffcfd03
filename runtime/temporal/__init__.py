"""DWF runs on Temporal (issue #17): the same scripts, run by a cluster of workers. Optional: it
needs the `temporal` extra (`pip install -e '.[temporal]'`); nothing else in dwf imports it at
module level, so `dwfc run` without `--temporal` never loads temporalio.

- `contract.py`: the names the workflow, activities, worker and client share; `run_input`, the
  workflow's input (the analyzed IR and the validated arguments); `run_id_of_question`,
  `escalation_key`.
- `workflow.py`: `DwfRunWorkflow`, the engine's `Run` inside a Temporal workflow, and
  `TemporalRunHost`, whose effects are activities keyed by occurrence key.
- `activities.py`: `DwfActivities`, each effect performed on a worker with the local ports.
- `worker.py`: `serve` and `build_worker` (`dwfc worker`), `connect`.
- `client.py`: `submit`, `follow` (`dwfc run --temporal`), `cancel_run`, `answer_question`,
  `list_runs`, `show_run`, `run_nodes`.
"""

__all__ = ["activities", "client", "contract", "worker", "workflow"]
