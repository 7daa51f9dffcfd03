"""This module defines `dwfc run` (`cmd_run`: prepare the run once, show its plan, approve, run it
headless) and `dwfc answer` (`cmd_answer`), and what `dwfc resume` and `dwfc amend` share with
them: `question_port` (where an actor's question goes) and `settle` (drive a run to its end with
the workspace's journal open). Preparing, journaling and the ports are `host.session`'s.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from dwf.runtime.cli.exit_codes import EXIT_ERRORS, EXIT_OK, EXIT_USAGE, RUN_EXIT, UsageError
from dwf.runtime.cli.options import ceilings_of
from dwf.runtime.cli.temporal import run_on_temporal, temporal_answer
from dwf.runtime.cli.usage import collect_run_args, confirm, isatty, read_script, report_usage_problems


def cmd_run(args) -> int:
    """`dwfc run FILE|--saved NAME`: prepare the run (compile once, validate), approve, run headless (TOOLS §1, §4)."""
    import dwf.compiler.render as render  # deferred: start-up
    from dwf.runtime.cli.progress import dumps, make_progress  # deferred: start-up
    from dwf.runtime.host.approval import approval_binding, check_unchanged, plan_summary  # deferred: start-up
    from dwf.runtime.ports.agent_definitions import check_agent_types  # deferred: start-up
    from dwf.runtime.ports.worktrees import check_isolation  # deferred: start-up

    path = _script_to_run(args)
    data = read_script(path)
    workspace = Path(args.workspace) if args.workspace else Path.cwd()
    session = workspace_session(args, workspace, model=getattr(args, "model", None))
    problems: list[str] = []
    run_args = collect_run_args(args.args, problems)
    prepared = session.prepare(data, str(path), run_args)  # the script and the saved workflows it calls
    compiled = prepared.compiled
    if prepared.program is None:
        if args.progress == "json":
            sys.stdout.write(dumps({"status": "rejected", "diagnostics": [d.to_json() for d in compiled.diagnostics]}) + "\n")
        else:
            sys.stderr.write(render.render_full(compiled))
            sys.stderr.write(render.summary_line([compiled]) + "\n")
            print("dwfc: error: the script has errors and was not run", file=sys.stderr)
            if args.progress == "stream-json":
                sys.stdout.write(dumps({"status": "rejected",
                                        "diagnostics": [d.to_json() for d in compiled.diagnostics]}) + "\n")
        return EXIT_ERRORS
    if compiled.diagnostics and (args.progress == "text" or not args.yes):  # warnings only
        sys.stderr.write(render.render_concise(compiled))

    if not workspace.is_dir():
        problems.append(f"the workspace {workspace} is not a directory")
    else:
        problems.extend(check_agent_types(prepared.program, workspace))
        for program in (prepared.program, *prepared.called.values()):  # the saved workflows it calls too
            problems.extend(check_isolation(program, workspace))
    problems.extend(prepared.problems[len(prepared.argument_problems):])  # the saved workflows it calls
    temporal = getattr(args, "temporal", None)  # on a cluster: the workers' agent port answers the asks
    port = None if temporal else session.open_port(problems)
    problems.extend(prepared.argument_problems)
    if problems:
        return report_usage_problems(problems)

    binding = approval_binding(prepared, session.actor_tools)  # what the screen below shows
    # the tool set the actors get: the command port's agent brings its own tools
    tool_set = None if str(args.agent or "").startswith("command") else \
        session.actor_tools or os.environ.get("DWF_ACTOR_TOOLS") or "write"
    if args.progress == "text" or not args.yes:
        sys.stderr.write(plan_summary(prepared, workspace, agent=args.agent, max_concurrency=args.max_concurrency,
                                      actor_tools=tool_set,
                                      budget=args.budget, ceilings=session.ceilings))
    if not args.yes and not confirm("Run this workflow?", "pass --yes to approve the plan above without a prompt"):
        return EXIT_USAGE
    changed = check_unchanged(prepared, path, binding, session.actor_tools)
    if changed is not None:  # edited while the person read the plan
        return report_usage_problems([changed])

    progress = make_progress(args.progress)
    if temporal:
        from dwf.runtime.host.session import new_run_id  # deferred: start-up

        outcome = run_on_temporal(args, prepared, progress, new_run_id(), {"spec": args.agent} if args.agent else None,
                                  session.ceilings, workspace, tool_set)
    else:
        outcome = _execute_run(session, prepared, port, progress, args)
    if isinstance(outcome, list):  # the engine refused the request
        return report_usage_problems(outcome)
    progress.finish(outcome)
    return RUN_EXIT.get(outcome.status, EXIT_ERRORS)


def _script_to_run(args) -> Path:
    """FILE, or the file of the saved workflow `--saved NAME` (only read: a run never modifies it)."""
    from dwf.runtime.host.saved import SavedWorkflowError, locate_saved  # deferred: start-up

    if (args.file is None) == (args.saved is None):
        raise UsageError("give exactly one script to run: a FILE or --saved NAME (`dwfc saved` lists the saved ones)")
    if args.saved is None:
        return Path(args.file)
    try:
        return locate_saved(Path(args.workspace) if args.workspace else Path.cwd(), args.saved)[1]
    except SavedWorkflowError as error:
        raise UsageError(str(error)) from None


def workspace_session(args, workspace: Path, *, model: str | None = None):
    """The `host.session.WorkspaceSession` of a run command over `workspace`: its `--agent`,
    `--actor-tools` and ceiling options, with `model` as the agent's default model."""
    from dwf.runtime.host.session import WorkspaceSession  # deferred: start-up

    return WorkspaceSession(workspace, agent=args.agent, model=model, actor_tools=getattr(args, "actor_tools", None),
                            ceilings=ceilings_of(args))


def question_port(progress, root: Path, run_id: str, args):
    """Terminal runs ask on the terminal; headless ones (stdin not a terminal, or --progress
    stream-json) publish the question under .dwf/questions/ for `dwfc answer` (RUNTIME §4)."""
    from dwf.runtime.ports.questions import FileQuestions, TerminalQuestions  # deferred: start-up

    if isatty(sys.stdin) and args.progress != "stream-json":
        return TerminalQuestions(progress.notice)
    return FileQuestions(root, run_id, notify=progress.notice)


def cmd_answer(args) -> int:
    """`dwfc answer QUESTION_ID TEXT`: answer a pending escalation of a headless run."""
    from dwf.runtime.ports.questions import AnswerError, write_answer  # deferred: start-up

    workspace = Path(args.workspace) if args.workspace else Path.cwd()
    if not workspace.is_dir():
        raise UsageError(f"the workspace {workspace} is not a directory")
    try:
        record = write_answer(workspace, args.question_id, args.text)
    except AnswerError as error:
        if not getattr(args, "temporal", None):
            raise UsageError(str(error)) from None
        record = {"actor": temporal_answer(args, args.question_id, args.text)}  # a question of a run on the cluster
    who = record.get("actor") or "an anonymous actor"
    print(f"dwfc: answered question {args.question_id} from {who}", file=sys.stderr)
    return EXIT_OK


def _execute_run(session, prepared, port, progress, args):
    """Run a prepared run to settlement over the workspace's journal; returns the RunOutcome,
    or the list of problems when the journal cannot open or the engine refuses."""
    return settle(session, progress, lambda engine: session.start(
        engine, prepared, port, questions=lambda run_id: question_port(progress, session.root, run_id, args),
        listeners=[progress], max_concurrency=args.max_concurrency, budget=args.budget))


def settle(session, progress, start):
    """`drive(start)` with the session's journal open: the RunOutcome, or the problems when the
    journal cannot open or the engine refuses."""
    import anyio  # deferred: start-up

    from dwf.runtime.cli.driver import drive  # deferred: start-up
    from dwf.runtime.engine import StartError  # deferred: start-up
    from dwf.runtime.journal.store import JournalError  # deferred: start-up

    async def main():
        try:
            with session.opened():
                return await drive(start, progress)
        except StartError as error:
            return list(error.problems)
        except JournalError as error:
            return [str(error)]

    return anyio.run(main)
