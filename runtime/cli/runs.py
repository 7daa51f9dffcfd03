"""This module defines the run-management subcommands of `dwfc` (TOOLS §1) over a workspace's
journal (`<workspace>/.dwf/state.db`): `runs`, `show RUN`, `events RUN [--follow]`,
`resume RUN`, `amend RUN FILE`, `set RUN` and `cancel RUN`. `add_parsers(commands)` adds them to the `dwfc` parser.

A RUN is a run id or a unique prefix of one (with or without `dwfrun-`); an ambiguous prefix
lists the candidates and exits 2. Every command first reconciles the journal: runs left
`running` by a process that died are marked `stopped(interrupted)` (see `journal/control.py`).

Exit codes: 0 success; 2 usage error, unknown or ambiguous run, refused resume or cancel.
`resume` exits like `run`: 0 completed, 1 errored, 3 stopped. `resume` needs no `--yes`: the
plan was approved when the run started, and the run continues the same script, args, caps and
pinned agent port, models and actor tool set; `--yes` approves a change of those (another agent
port or model, a wider tool set), shown first, and is a no-op when nothing changes.
"""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from pathlib import Path

from dwf.compiler.inert import escape, screen
from dwf.runtime.cli.exit_codes import EXIT_ERRORS, EXIT_OK, EXIT_USAGE, RUN_EXIT, UsageError
from dwf.runtime.cli.options import (APPROVE, CEILINGS, CHANGED_CAPS, RERUN_AGENT, WORKSPACE, changed_caps,
                                     or_none, own_options, positive_int)
from dwf.runtime.cli.usage import confirm, read_script, report_usage_problems, workspace_root
from dwf.runtime.cli.run import question_port, settle, workspace_session
from dwf.runtime.cli.temporal import TEMPORAL, temporal_cancel, temporal_runs, temporal_show
from dwf.runtime.statedir import StateDir

# The journal, its views and the progress renderers are imported by the handlers that use them,
# so that adding these subcommands costs `dwfc --version` and `dwfc check` nothing at start-up.

FOLLOW_POLL_S = 0.25


def add_parsers(commands) -> None:
    """Add `runs`, `show`, `events`, `resume`, `amend`, `set` and `cancel` to the subparsers of `dwfc`."""
    listing = own_options()
    listing.add_argument("--json", action="store_true", help="print a JSON array instead of a table")
    listing.add_argument("--limit", type=int, metavar="N", help="show at most N runs")
    runs = commands.add_parser("runs", help="list the runs of this workspace", parents=[listing, WORKSPACE, TEMPORAL],
                               description="List the runs journaled in <workspace>/.dwf/state.db, newest first.")
    runs.set_defaults(handler=cmd_runs)

    snapshot = own_options()
    snapshot.add_argument("run", metavar="RUN")
    snapshot.add_argument("--json", action="store_true", help="print one JSON object")
    show = commands.add_parser("show", help="show one run: status, phases, actors, usage, reports, result",
                               parents=[snapshot, WORKSPACE, TEMPORAL],
                               description="Show a snapshot of one run. RUN is a run id or a unique prefix.")
    show.set_defaults(handler=cmd_show)

    journaled = own_options()
    journaled.add_argument("run", metavar="RUN")
    journaled.add_argument("--follow", "-f", action="store_true", help="keep printing new events until the run settles")
    journaled.add_argument("--after", type=int, default=0, metavar="SEQ", help="only events after this sequence number")
    events = commands.add_parser("events", help="print the events of one run as NDJSON", parents=[journaled, WORKSPACE],
                                 description="Print the journaled events of a run, one JSON object per line.")
    events.set_defaults(handler=cmd_events)

    resume = commands.add_parser(
        "resume", help="continue a stopped run", parents=[RERUN_AGENT, APPROVE, CEILINGS, WORKSPACE],
        description="Continue a stopped run under the same id: finished asks, reads and commands replay from the "
                    "journal (zero tokens, no new events), unfinished ones run again, reports are not repeated, and "
                    "each actor continues its journaled conversation. The script, args, caps, agent port, models "
                    "and actor tool set of the original run are kept; no approval is asked (the plan was approved "
                    "when the run started) unless a person stopped the run or its journal was recorded in another "
                    "workspace (the plan is shown and asked for again), or --agent, --model or --actor-tools change "
                    "what was approved (another agent or model, or a wider tool set): then the changes are shown "
                    "and --yes approves them. Exit 0 completed, 1 errored, 2 refused, 3 stopped.")
    resume.add_argument("run", metavar="RUN")
    resume.set_defaults(handler=cmd_resume)

    amend = commands.add_parser(
        "amend", help="start an edited script as the successor of a run, importing its finished work",
        parents=[RERUN_AGENT, CHANGED_CAPS, APPROVE, CEILINGS, WORKSPACE],
        description="Amend RUN with the script FILE (RUNTIME §5.2): a live RUN is stopped as stopped(superseded); "
                    "a new run starts whose named actors import the predecessor's finished asks in order (zero "
                    "tokens) until the first changed ask, and whose reads import by content, until the first side "
                    "effect. The args, caps (--max-concurrency, --budget) and model (--model) of RUN are kept unless given; "
                    "`none` clears a cap. Exit 0 completed, 1 errored, 2 refused, 3 stopped.")
    amend.add_argument("run", metavar="RUN")
    amend.add_argument("file", metavar="FILE")
    amend.set_defaults(handler=cmd_amend)

    changing = own_options()
    changing.add_argument("run", metavar="RUN")
    changing.add_argument("--max-concurrency", type=or_none(positive_int), metavar="N|none",
                          help="asks in flight at once (none, for a run that is not running: the script's, else "
                               "the default)")
    changing.add_argument("--model", metavar="MODEL|none", help="the agent port's default model (none: the host's)")
    configure = commands.add_parser(
        "set", help="change a run's concurrency or model: a running one at once, else for its resume or amend",
        parents=[changing, WORKSPACE],
        description="Change the max concurrency or the agent model of RUN. A running RUN (in any process) applies "
                    "them at once: raising the concurrency admits asks waiting for a slot immediately, a new model "
                    "is used for asks started afterwards (ports with a default model, e.g. anthropic). For a RUN "
                    "that is not running they are recorded: `dwfc resume` and `dwfc amend` use them.")
    configure.set_defaults(handler=cmd_set)

    stopping = own_options()
    stopping.add_argument("run", metavar="RUN")
    stopping.add_argument("--wait", type=float, default=10.0, metavar="SECONDS",
                          help="how long to wait for the run to settle (default 10; 0: do not wait)")
    cancel = commands.add_parser(
        "cancel", help="stop a running run (from another process)", parents=[stopping, WORKSPACE, TEMPORAL],
        description="Ask the process running RUN to stop it as stopped(user), and wait for it to settle.")
    cancel.set_defaults(handler=cmd_cancel)


# ---------------------------------------------------------------- helpers


@contextmanager
def _opened(args):
    """(journal or None when the workspace has no runs yet, control dir), closed on exit."""
    journal, control = _open(args)
    try:
        yield journal, control
    finally:
        if journal is not None:
            journal.close()


def _open(args, *, create: bool = False):
    """(journal, control dir) of the workspace, reconciled."""
    from dwf.runtime.journal import control as service  # deferred: start-up
    from dwf.runtime.journal.sqlite import SqliteJournal  # deferred: start-up
    from dwf.runtime.journal.store import JournalError  # deferred: start-up

    root = workspace_root(args)
    if not create and not StateDir(root).journal.exists():
        import dwf.runtime.journal.sqlite as stored  # deferred: start-up

        marked = stored.marked_runs(StateDir(root).journal)
        if marked:  # the file is gone but its marker says it held runs: never "no runs"
            raise UsageError(str(stored.lost_runs_error(StateDir(root).journal, marked, 0)))
        return None, StateDir(root).runs
    try:
        journal = SqliteJournal.for_workspace(root)
        control = StateDir(root).runs
        service.reconcile(journal, control)
    except JournalError as error:
        raise UsageError(str(error)) from None
    return journal, control


def _resolve(journal, reference: str):
    from dwf.runtime.host import run_views  # deferred: start-up

    if journal is None:
        raise UsageError(f"no run matches {reference!r}: this workspace has no runs yet")
    try:
        return run_views.resolve_run(journal, reference)
    except run_views.RunLookupError as error:
        if error.candidates:
            lines = [str(error) + ":"]
            lines += [f"  {row.id}  {run_views.status_text(row)}  {(row.meta or {}).get('name') or ''}".rstrip()
                      for row in error.candidates]
            raise UsageError("\n".join(lines)) from None
        raise UsageError(str(error)) from None




# ---------------------------------------------------------------- runs and show


def cmd_runs(args) -> int:
    from dwf.runtime.host import run_views  # deferred: start-up
    from dwf.runtime.cli.progress import dumps  # deferred: start-up (inert JSON for the terminal)

    with _opened(args) as (journal, _):
        rows = [run_views.run_summary(journal, row) for row in journal.list_runs(args.limit)] if journal else []
    if args.temporal:  # the runs on the cluster, next to this workspace's
        rows += [{"id": r["id"], "name": None, "status": r["status"], "stop_reason": None, "started": r["started"],
                  "duration_s": None, "asks": 0, "tokens": 0, "where": "temporal"}
                 for r in temporal_runs(args, args.limit)]
    if args.json:
        sys.stdout.write(dumps(rows) + "\n")
        return EXIT_OK
    if not rows:
        print("no runs in this workspace", file=sys.stderr)
        return EXIT_OK
    header = ("ID", "NAME", "STATUS", "STARTED", "DURATION", "ASKS", "TOKENS")
    table = [header] + [(r["id"], r["name"] or "-", run_views.status_text(r), (r["started"] or "-")[:19].replace("T", " "),
                         run_views.format_duration(r["duration_s"]), str(r["asks"]), f"{r['tokens']:,}") for r in rows]
    table = [tuple(escape(cell) for cell in line) for line in table]  # names are the scripts'
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    for line in table:
        sys.stdout.write("  ".join(cell.ljust(widths[i]) if i < 4 else cell.rjust(widths[i])
                                   for i, cell in enumerate(line)).rstrip() + "\n")
    return EXIT_OK


def cmd_show(args) -> int:
    from dwf.runtime.host import run_views  # deferred: start-up
    from dwf.runtime.cli.progress import dumps  # deferred: start-up (inert JSON for the terminal)

    with _opened(args) as (journal, _):
        try:
            data = run_views.snapshot(journal, _resolve(journal, args.run))
        except UsageError:
            if not args.temporal:
                raise
            data = None
    where = ""
    if data is None:  # not in this workspace: a run on the cluster, shown alike (its `show` query)
        data, where = temporal_show(args, args.run), f"  (on {args.temporal})"
    if args.json:
        sys.stdout.write(dumps(data) + "\n")
        return EXIT_OK
    out = [f"Run {data['id']}" + (f"  {data['name']}" if data["name"] else "") + where,
           f"  Status: {run_views.status_text(data)}" + ("  (resumable: dwfc resume " + data["id"] + ")"
                                                        if data["resumable"] else ""),
           f"  Started: {data['started'] or '-'}   Duration: {run_views.format_duration(data['duration_s'])}",
           f"  Usage: {data['tokens']:,} output tokens, {data['asks']} asks"]
    if data["amended_from"]:
        out.append(f"  Amends: {data['amended_from']}")
    if data["superseded_by"]:
        out.append(f"  Superseded by: {data['superseded_by']}")
    if data["workflows"]:
        out.append(f"  Calls saved workflows: {', '.join(data['workflows'])} (as they were when the run started)")
    if data["phases"]:
        out.append("  Phases:")
        for phase in data["phases"]:
            failed = f", {phase['failed']} failed" if phase["failed"] else ""
            out.append(f"    [{phase['status']}] {phase['title']}: {phase['settled']}/{phase['nodes']} steps done{failed}")
    if data["actors"]:
        out.append("  Actors: " + ", ".join(a["name"] or a["key"] for a in data["actors"]))
    for question in data["pending_questions"]:
        out.append(f"  Question {question['id']} from {question['actor'] or 'an actor'}: {question['question']}")
    if data["reports"]:
        out.append(f"  Reports ({len(data['reports'])}):")
        out += [f"    {dumps(item)}" for item in data["reports"][:20]]
        if len(data["reports"]) > 20:
            out.append(f"    ... and {len(data['reports']) - 20} more (--json shows all)")
    if data["artifacts"]:
        out.append("  Artifacts: " + ", ".join(f"{a['id']} ({a['kind']})" for a in data["artifacts"]))
    if data["worktrees"]:
        out.append("  Worktrees (isolated actors):")
        for tree in data["worktrees"]:
            if tree["state"] == "kept":
                files = tree["changed_files"] or []
                what = f"branch kept: {len(files)} changed file{'s' if len(files) != 1 else ''}"
            elif tree["state"] == "removed":
                what = "no changes: worktree and branch removed"
            else:
                what = f"worktree at {tree['path']}"
            out.append(f"    {tree['actor']}: {tree['branch']} ({what})")
    if data["status"] == "completed":
        out.append("  Result: " + dumps(data["result"]))
    elif data["error"]:
        out.append("  Error: " + str(data["error"]))
    sys.stdout.write(screen("\n".join(out)) + "\n")  # titles, names, questions and errors are the run's
    return EXIT_OK


# ---------------------------------------------------------------- events


def _event_line(run_id: str, event: dict) -> str:
    from dwf.runtime.cli.progress import dumps  # deferred: start-up (inert JSON for the terminal)

    return dumps({"type": event["type"], "run_id": run_id, "seq": event["seq"], **(event["payload"] or {})})


def cmd_events(args) -> int:
    from dwf.runtime.journal import control as service  # deferred: start-up

    journal, control = _open(args)
    try:
        row = _resolve(journal, args.run)
        after = max(0, args.after)
        last_reconcile = time.monotonic()
        while True:
            batch = journal.events(row.id, after)
            for event in batch:
                sys.stdout.write(_event_line(row.id, event) + "\n")
                after = event["seq"]
            sys.stdout.flush()
            if not args.follow:
                return EXIT_OK
            current = journal.get_run(row.id)
            if current is None or current.status != "running":
                if not journal.events(row.id, after):  # everything up to run-settled was printed
                    return EXIT_OK
                continue
            if time.monotonic() - last_reconcile > 2.0:  # the owner may have died meanwhile
                service.reconcile(journal, control)
                last_reconcile = time.monotonic()
            time.sleep(FOLLOW_POLL_S)
    except KeyboardInterrupt:
        return EXIT_OK
    finally:
        if journal is not None:
            journal.close()


# ---------------------------------------------------------------- cancel


def cmd_cancel(args) -> int:
    from dwf.runtime.host import run_views  # deferred: start-up
    from dwf.runtime.journal import control as service  # deferred: start-up

    journal, control = _open(args)
    try:
        try:
            row = _resolve(journal, args.run)
        except UsageError:
            if not args.temporal:
                raise
            temporal_cancel(args, args.run)  # not in this workspace: a run on the cluster gets the signal
            print(f"dwfc: asked run {args.run} to stop", file=sys.stderr)
            return EXIT_OK
        if row.status != "running":
            raise UsageError(f"run {row.id} is not running (it is {run_views.status_text(row)}); nothing to cancel")
        service.request_cancel(control, row.id)
        if args.wait <= 0:
            print(f"dwfc: asked run {row.id} to stop", file=sys.stderr)
            return EXIT_OK
        deadline = time.monotonic() + args.wait
        current = row
        while time.monotonic() < deadline:
            current = service.wait_until_settled(journal, row.id, min(1.0, deadline - time.monotonic()))
            if current is None or current.status != "running":
                break
            service.reconcile(journal, control)
        if current is not None and current.status != "running":
            print(f"dwfc: run {row.id} is {run_views.status_text(current)}", file=sys.stderr)
            return EXIT_OK
        print(f"dwfc: asked run {row.id} to stop; it has not settled yet (`dwfc show {row.id}` tells when it has)",
              file=sys.stderr)
        return EXIT_OK
    finally:
        if journal is not None:
            journal.close()


# ---------------------------------------------------------------- set


def cmd_set(args) -> int:
    import anyio  # deferred: start-up

    from dwf.runtime.host import run_views  # deferred: start-up
    from dwf.runtime.host.configure import LIVE_CAPS, ConfigureError, configure_run  # deferred: start-up

    changes = changed_caps(args)
    if not changes:
        raise UsageError("nothing to change: give --max-concurrency N or --model M")
    journal, control = _open(args)
    try:
        row = _resolve(journal, args.run)
        try:
            current = anyio.run(lambda: configure_run(journal, row, changes, control_dir=control))
        except ConfigureError as error:
            raise UsageError(str(error)) from None
    finally:
        if journal is not None:
            journal.close()
    caps = current.caps or {}
    shown = ", ".join(f"{name.replace('_', ' ')} {caps.get(name) or 'default'}" for name in LIVE_CAPS)
    if current.status == "running":
        applied = all(caps.get(name) == value for name, value in changes.items())
        verb = "runs with" if applied else "was asked to use (its process has not applied it yet)"
        print(f"dwfc: run {row.id} {verb} {shown}", file=sys.stderr)
    else:
        print(f"dwfc: run {row.id} is {run_views.status_text(current)}; its resume or amend uses {shown}",
              file=sys.stderr)
    return EXIT_OK


# ---------------------------------------------------------------- resume


def cmd_resume(args) -> int:
    from dwf.runtime.cli.progress import make_progress  # deferred: start-up
    import anyio  # deferred: start-up
    from dwf.runtime.engine import agent_changes, pinned_agent  # deferred: start-up

    with _opened(args) as (journal, control):
        row = _resolve(journal, args.run)
    root = workspace_root(args)
    session = workspace_session(args, root)
    prepared = session.prepare_resume(row)  # the script and saved workflows pinned when it started
    if prepared.compiled is None:  # not resumable
        raise UsageError("; ".join(prepared.problems))
    if prepared.program is None:
        raise UsageError(f"run {row.id} cannot be resumed: its script no longer compiles with this dwf; amend it instead")
    session.use_pinned_agent(row)  # the agent port and actor tools it was approved with, unless given
    if not session.agent:
        raise UsageError(f"run {row.id} was journaled before dwf pinned a run's agent port; pass --agent")
    problems = []
    model = args.model or session.resume_model(row)
    port = session.open_port(problems, model=model)
    if problems:
        return report_usage_problems(problems)
    changes = agent_changes(pinned_agent(row), session.pin_of(port))
    if changes:
        print(f"dwfc: resuming run {row.id} changes what was approved:\n" + "".join(f"  {c}\n" for c in changes),
              file=sys.stderr, end="")
        if not args.yes:
            anyio.run(port.close)
            raise UsageError("pass --yes to resume with these changes, or leave out --agent/--model/--actor-tools "
                             "to resume with the pinned ones")
    if not _resume_approved(row, prepared, root, args):
        anyio.run(port.close)
        return EXIT_USAGE
    progress = make_progress(args.progress)
    outcome = _execute_resume(session, prepared, port, progress, args, model)
    if isinstance(outcome, list):
        return report_usage_problems(outcome)
    progress.finish(outcome)
    return RUN_EXIT.get(outcome.status, EXIT_ERRORS)


def _resume_approved(row, prepared, root: Path, args) -> bool:
    """A resume goes on without a prompt, since its plan was approved when it started, unless a
    person stopped the run or its journal was recorded in another workspace: then the plan is
    shown again and needs a yes (or `--yes`)."""
    from dwf.runtime.host.approval import plan_summary, resume_needs_approval  # deferred: start-up

    why = resume_needs_approval(row, root)
    if why is None:
        return True
    if args.progress == "text" or not args.yes:
        sys.stderr.write(f"Resume run {row.id}: {why}, so it needs your approval again.\n\n"
                         + plan_summary(prepared, root, agent=args.agent))
    return args.yes or confirm("Resume this run?", "pass --yes to approve the plan above without a prompt")


def _execute_resume(session, prepared, port, progress, args, model):
    """Resume to settlement through the workspace session; the RunOutcome, or the refusal problems."""
    return settle(session, progress, lambda engine: session.start(
        engine, prepared, port, questions=_questions(session, progress, args), listeners=[progress], model=model,
        approve_agent_change=args.yes))


def _questions(session, progress, args):
    """The same question ports `dwfc run` uses (terminal, or files for `dwfc answer`), by run id."""
    return lambda run_id: question_port(progress, session.root, run_id, args)


# ---------------------------------------------------------------- amend


def cmd_amend(args) -> int:
    import dwf.compiler.render as render  # deferred: start-up
    from dwf.runtime.cli.progress import make_progress  # deferred: start-up
    from dwf.runtime.host.approval import amend_summary, approval_binding, check_unchanged  # deferred: start-up

    with _opened(args) as (journal, control):
        row = _resolve(journal, args.run)
    root = workspace_root(args)
    if not args.agent:
        raise UsageError("dwfc amend needs the agent port of the new run: pass --agent scripted:FIXTURE.json, "
                         "anthropic[:MODEL] or command:'CMD ...'")
    path = Path(args.file)
    if not path.is_file():
        raise UsageError(f"no such script: {path}")
    data = read_script(path)
    session = workspace_session(args, root)
    caps = session.amend_caps(row, changed_caps(args))
    session.model = caps["model"]  # the new run's port and row use the inherited model
    prepared = session.prepare(data, str(path), dict(row.args or {}))  # the run's args are kept
    if prepared.program is None:
        sys.stderr.write(render.render_full(prepared.compiled))
        print("dwfc: error: the script has errors; the run was not amended", file=sys.stderr)
        return EXIT_ERRORS
    problems = prepared.problems[len(prepared.argument_problems):]  # the saved workflows it calls
    port = session.open_port(problems)
    if problems:
        return report_usage_problems(problems)
    binding = approval_binding(prepared, session.actor_tools)
    if args.progress == "text" or not args.yes:
        sys.stderr.write(amend_summary(row, prepared, root, agent=args.agent))
    if not args.yes and not confirm("Amend this run?", "pass --yes to approve"):
        return EXIT_USAGE
    changed = check_unchanged(prepared, path, binding, session.actor_tools)
    if changed is not None:  # edited while the person read the screen
        return report_usage_problems([changed])
    progress = make_progress(args.progress)
    outcome = _execute_amend(session, row, prepared, port, progress, args, caps)
    if isinstance(outcome, list):
        return report_usage_problems(outcome)
    progress.finish(outcome)
    return RUN_EXIT.get(outcome.status, EXIT_ERRORS)


def _execute_amend(session, row, prepared, port, progress, args, caps):
    """Amend to settlement through the workspace session; the RunOutcome, or the refusal problems.
    The saved workflows the new script calls are pinned with the new run."""
    return settle(session, progress, lambda engine: session.amend(
        engine, row, prepared, port, questions=_questions(session, progress, args), listeners=[progress], caps=caps))
