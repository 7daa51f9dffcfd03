"""This module defines the command line of DWF runs on Temporal (runtime/temporal, the optional
`temporal` extra): `dwfc worker` (`cmd_worker`), the `--temporal HOST:PORT` options of `dwfc run`,
`runs`, `show`, `cancel` and `answer` (`TEMPORAL`, a parent parser; `DWF_TEMPORAL` is its default),
and what those commands do with it: `run_on_temporal` submits an approved run and follows it,
`temporal_runs`, `temporal_show`, `temporal_cancel` and `temporal_answer` reach runs there. The SDK
is imported only inside these functions, so no other command loads it.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from dwf.runtime.cli.exit_codes import EXIT_OK, UsageError
from dwf.runtime.cli.options import positive_int

TEMPORAL_ENV = "DWF_TEMPORAL"
AFFINITY_START_ENV = "DWF_TEMPORAL_AFFINITY_START_S"  # seconds (contract.AFFINITY_START_TIMEOUT)
MISSING = ("the Temporal SDK is not installed; install the extra with `pip install -e '.[temporal]'` "
           "(a checkout's ./dwf installs it)")

TEMPORAL = argparse.ArgumentParser(add_help=False)
TEMPORAL.add_argument("--temporal", metavar="HOST:PORT", default=os.environ.get(TEMPORAL_ENV),
                      help=f"the Temporal server of runs on a cluster (default: ${TEMPORAL_ENV}; docs/scale.md)")
TEMPORAL.add_argument("--namespace", metavar="N", default="default", help="the Temporal namespace (default: default)")
TEMPORAL.add_argument("--task-queue", metavar="Q", default="dwf", help="the task queue of DWF workers (default: dwf)")


def add_parsers(commands) -> None:
    """Add `dwfc worker`."""
    worker = commands.add_parser(
        "worker", help="run a Temporal worker that executes DWF runs and their effects", parents=[TEMPORAL],
        description="Serve DWF runs submitted with `dwfc run --temporal`: the run's interpreter as a Temporal "
                    "workflow, each effect as an activity over this workspace (isolated actors' worktrees too, "
                    "on a task queue only this worker polls). Runs until SIGINT or SIGTERM.")
    worker.add_argument("--agent", metavar="PORT", help="the agent port asks run on (as for dwfc run)")
    worker.add_argument("--model", metavar="MODEL", help="the default model of --agent anthropic")
    worker.add_argument("--max-concurrency", type=positive_int, default=16, metavar="N",
                        help="activities (asks, reads, commands) this worker runs at once (default 16)")
    worker.add_argument("--workspace", metavar="DIR",
                        help="the checkout effects run in; it serves runs of its repository only "
                             "(default: the current directory)")
    worker.set_defaults(handler=cmd_worker)


_SDK_LOADED = False


def leave_if_sdk_loaded(code: int) -> None:
    """End the process now with `code` when this command used the Temporal SDK: its Rust runtime
    can abort an exiting interpreter (`PyGILState_Release ... finalizing`, temporalio/sdk-python
    #300), which would turn a finished command's exit code into SIGABRT. Output is flushed first."""
    if _SDK_LOADED:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _sdk():
    global _SDK_LOADED
    _SDK_LOADED = True
    try:
        import dwf.runtime.temporal.client as client  # deferred: start-up (temporalio is optional)
        import dwf.runtime.temporal.contract as contract  # deferred: start-up (temporalio is optional)
        import dwf.runtime.temporal.worker as worker  # deferred: start-up (temporalio is optional)
    except ImportError:
        raise UsageError(MISSING) from None
    return client, contract, worker


def _address(args) -> str:
    if not args.temporal or ":" not in args.temporal:
        raise UsageError("give the Temporal server as --temporal HOST:PORT (or set DWF_TEMPORAL)")
    return args.temporal


def _call(args, action):
    """Run `action(client, modules)` against the server; a server that cannot be reached is a usage error."""
    import asyncio  # deferred: start-up

    client_module, contract, worker = _sdk()

    async def main():
        try:
            client = await worker.connect(_address(args), args.namespace)
        except RuntimeError as error:
            raise UsageError(f"cannot reach the Temporal server at {args.temporal}: {error}") from None
        return await action(client, client_module, contract)

    return asyncio.run(main())


def cmd_worker(args) -> int:
    """`dwfc worker --temporal HOST:PORT`: serve DWF runs until stopped."""
    import asyncio  # deferred: start-up

    _client, _contract, worker = _sdk()
    workspace = Path(args.workspace) if args.workspace else Path.cwd()
    if not workspace.is_dir():
        raise UsageError(f"the workspace {workspace} is not a directory")
    if not args.agent:
        raise UsageError("give the agent port the worker's asks run on: --agent scripted:FIXTURE.json, "
                         "anthropic[:MODEL] or command:'CMD ...'")

    def ready():
        print(f"dwfc: worker serving task queue {args.task_queue} on {args.temporal} "
              f"(workspace {workspace}, {args.max_concurrency} at once)", file=sys.stderr, flush=True)

    try:
        asyncio.run(worker.serve(_address(args), namespace=args.namespace, task_queue=args.task_queue,
                                 workspace=workspace, agent=args.agent, max_concurrency=args.max_concurrency,
                                 model=args.model, ready=ready))
    except RuntimeError as error:
        raise UsageError(f"the worker could not serve {args.temporal}: {error}") from None
    return EXIT_OK


def run_on_temporal(args, prepared, progress, run_id: str, agent_pin: dict | None, ceilings=None, workspace=None,
                    actor_tools: str | None = None):
    """Submit an approved run of `workspace`'s repository (its actors with the `actor_tools` set
    the approval screen showed) and follow it to its end; returns its RunOutcome, or the problems
    that refused it (no worker of that repository, or its start)."""
    from dwf.runtime.ports.worktrees import repository_identity  # deferred: start-up

    repository = repository_identity(workspace or Path.cwd())
    affinity_start_s = affinity_start_seconds()

    async def action(client, client_module, contract):
        problems = await client_module.serving_problems(client, args.task_queue, repository)
        if problems:
            return problems
        data = contract.run_input(prepared, run_id, max_concurrency=args.max_concurrency, budget=args.budget,
                                  agent_pin=agent_pin, ceilings=ceilings, workspace=repository,
                                  actor_tools=actor_tools, affinity_start_s=affinity_start_s)
        handle = await client_module.submit(client, data, task_queue=args.task_queue)
        if args.progress == "text":
            progress.notice(f"run {run_id} submitted to {args.temporal} (task queue {args.task_queue})")
        return await client_module.follow(handle, [progress])

    return _call(args, action)


def affinity_start_seconds() -> float | None:
    """`DWF_TEMPORAL_AFFINITY_START_S` (contract.AFFINITY_START_TIMEOUT) as seconds, None when unset."""
    text = os.environ.get(AFFINITY_START_ENV, "").strip()
    if not text:
        return None
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0.0
    if not 0 < seconds <= 86_400:
        raise UsageError(f"{AFFINITY_START_ENV} must be a number of seconds above 0 (at most a day), "
                         f"not {text!r}")
    return seconds


def temporal_runs(args, limit: int | None) -> list[dict]:
    """The runs on the Temporal server, as `dwfc runs` rows."""
    async def action(client, client_module, contract):
        return await client_module.list_runs(client, limit or 50)

    return _call(args, action)


def temporal_show(args, run_id: str) -> dict:
    async def action(client, client_module, contract):
        try:
            return await client_module.show_run(client, run_id)
        except Exception as error:  # RPCError: no such workflow
            raise UsageError(f"there is no run {run_id} on {args.temporal}: {error}") from None

    return _call(args, action)


def temporal_cancel(args, run_id: str) -> None:
    async def action(client, client_module, contract):
        await client_module.cancel_run(client, run_id, "user")

    _call(args, action)


def temporal_answer(args, question_id: str, text: str) -> str | None:
    async def action(client, client_module, contract):
        try:
            return await client_module.answer_question(client, question_id, text)
        except LookupError as error:
            raise UsageError(str(error)) from None

    return _call(args, action)
