"""This module defines `dwfc`, the command line: argument parsing, the subcommands and their
exit codes. Each subcommand is a small function that returns its exit code; user errors are one
clear sentence on stderr (exit 2), never a traceback.

Exit codes: 0 success (warnings allowed), 1 the script has errors, 2 usage or I/O error. `run`
adds its run outcome: 0 completed, 1 errored (or the script was rejected), 2 usage error or not
approved (nothing ran), 3 stopped (Ctrl-C stops the run as `stopped(interrupted)`).
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from pathlib import Path

from dwf.compiler import render
from dwf.compiler.compile import CompileResult, compile_bytes
from dwf.compiler.rules import all_rules, lookup
from dwf.compiler.version import COMPILER_VERSION
from dwf.grammar import language_guide

EXIT_OK, EXIT_ERRORS, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A bad argument or unreadable input: reported as one sentence, exit code 2."""


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return args.handler(args)
    except UsageError as error:
        print(f"dwfc: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("dwfc: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse's default exit code is 2 too; keep one sentence
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="dwfc", description="Compile, plan and run DWF workflow scripts (*.dwf.py).")
    parser.add_argument("--version", action="version", version=f"dwfc {COMPILER_VERSION}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    guide = commands.add_parser(
        "guide", help="print the language guide: read it before writing a workflow",
        description="Print the DWF language guide (Markdown) on stdout: what is Python as usual, what differs, "
                    "the facades, typed asks, joins, errors and a complete example.")
    guide.set_defaults(handler=cmd_guide)
    check = commands.add_parser("check", help="compile scripts and print diagnostics",
                                description="Compile scripts and print diagnostics. Directories are searched for *.dwf.py.")
    check.add_argument("files", nargs="+", metavar="FILE")
    check.add_argument("--format", choices=("concise", "full", "json", "sarif"), default="concise")
    check.add_argument("--sites", action="store_true", help="print the site table of each clean script")
    check.set_defaults(handler=cmd_check)
    from dwf.runtime.cli import eval as cli_eval  # each adds its subcommands
    from dwf.runtime.cli import mcp as cli_mcp
    from dwf.runtime.cli import plan as cli_plan
    from dwf.runtime.cli import runs as cli_runs
    from dwf.runtime.cli import saved as cli_saved

    cli_plan.add_parsers(commands)  # plan, graph

    run = commands.add_parser(
        "run", help="approve and run a script",
        description="Compile a script (FILE, or the saved workflow NAME), show its plan and ask for approval (unless "
                    "--yes), then run it headless. Exit 0 completed, 1 errored (or compile errors), 2 usage error, "
                    "3 stopped.")
    run.add_argument("file", metavar="FILE", nargs="?", help="the script to run (or give --saved NAME)")
    run.add_argument("--saved", metavar="NAME", help="run the saved workflow NAME (`dwfc saved` lists them)")
    run.add_argument("--args", metavar="JSON|@FILE", help="run arguments: a JSON object, or @path of a file holding one")
    run.add_argument("--agent", metavar="PORT",
                     help="the agent port: scripted:FIXTURE.json, anthropic[:MODEL] (needs ANTHROPIC_API_KEY) or "
                          "command:'CMD ARGS...' (an external CLI agent; see docs/agents.md)")
    run.add_argument("--model", metavar="MODEL",
                     help="the default model of --agent anthropic (e.g. claude-sonnet-4-5); an agent definition's "
                          "model or the script's agent(model=...) overrides it")
    run.add_argument("--actor-tools", choices=("read", "write", "exec"), default=None,
                     help="the workspace tools --agent anthropic offers actors: read (read/list/grep files), write "
                          "(also write/edit files; the default) or exec (also run commands)")
    run.add_argument("--yes", "-y", action="store_true", help="approve without the interactive prompt")
    run.add_argument("--progress", choices=("text", "stream-json", "json"), default="text",
                     help="text: lines on stderr, the value on stdout (default); stream-json: one NDJSON event per "
                          "line, then the result; json: only the result object")
    run.add_argument("--max-concurrency", type=_positive_int, metavar="N", help="asks in flight at once (at least 1)")
    run.add_argument("--budget", type=_non_negative_int, metavar="TOKENS", help="output-token budget of the run")
    run.add_argument("--workspace", metavar="DIR", help="workspace directory (default: the current directory)")
    run.set_defaults(handler=cmd_run)
    cli_runs.add_parsers(commands)  # runs, show, events, resume, amend, cancel

    answer = commands.add_parser(
        "answer", help="answer a question an actor of a running workflow asked",
        description="Answer an escalation of a run that is not attached to a terminal (e.g. --progress stream-json): "
                    "QUESTION_ID is the id of its escalation-raised event. Exit 0 answered, 2 unknown id or "
                    "already answered.")
    answer.add_argument("question_id", metavar="QUESTION_ID")
    answer.add_argument("text", metavar="TEXT")
    answer.add_argument("--workspace", metavar="DIR", help="the run's workspace (default: the current directory)")
    answer.set_defaults(handler=cmd_answer)
    cli_saved.add_parsers(commands)  # save, saved
    cli_eval.add_parsers(commands)  # eval
    cli_mcp.add_parsers(commands)  # mcp

    rules = commands.add_parser("rules", help="list the diagnostic catalogue")
    rules.add_argument("--format", choices=("text", "json"), default="text")
    rules.set_defaults(handler=cmd_rules)

    explain = commands.add_parser("explain", help="print the documentation of one rule")
    explain.add_argument("code", metavar="CODE")
    explain.set_defaults(handler=cmd_explain)
    return parser


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _non_negative_int(text: str) -> int:
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of tokens, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {value}")
    return value


# ---------------------------------------------------------------- guide


def cmd_guide(args) -> int:
    sys.stdout.write(language_guide())
    return EXIT_OK


# ---------------------------------------------------------------- check


def expand_inputs(names: list[str]) -> tuple[list[Path], list[str]]:
    """Files to check (directories expanded to their *.dwf.py files) and problems found."""
    files: list[Path] = []
    problems: list[str] = []
    for name in names:
        path = Path(name)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*.dwf.py") if p.is_file())
            if not found:
                problems.append(f"{name}: no *.dwf.py files in this directory")
            files.extend(found)
        elif path.exists():
            files.append(path)
        else:
            problems.append(f"{name}: no such file")
    return files, problems


def compile_path(path: Path) -> CompileResult:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror or error}") from None
    return compile_bytes(data, str(path))


def cmd_check(args) -> int:
    files, problems = expand_inputs(args.files)
    results: list[CompileResult] = []
    for path in files:
        try:
            results.append(compile_path(path))
        except UsageError as error:
            problems.append(str(error))
    out = sys.stdout
    if args.format == "json":
        out.write(render.dumps(render.to_json(results)))
    elif args.format == "sarif":
        out.write(render.dumps(render.to_sarif(results)))
    else:
        for result in results:
            out.write(render.render_full(result) if args.format == "full" else render.render_concise(result))
            if args.sites and result.program is not None:
                out.write(f"{result.source.path}: {len(result.program.sites)} sites\n")
                out.write(render.render_sites(result.program))
        if results:
            out.write(render.summary_line(results) + "\n")
    for problem in problems:
        print(f"dwfc: error: {problem}", file=sys.stderr)
    if problems:
        return EXIT_USAGE
    return EXIT_ERRORS if any(r.errors for r in results) else EXIT_OK


# ---------------------------------------------------------------- rules and explain


def cmd_rules(args) -> int:
    rules = all_rules()
    if args.format == "json":
        data = [{"code": r.code, "name": r.name, "severity": r.severity, "group": r.group(),
                 "summary": render._first_sentence(r)} for r in rules]
        sys.stdout.write(json.dumps(data, indent=2) + "\n")
        return EXIT_OK
    name_width = max(len(r.name) for r in rules)
    for rule in rules:
        sys.stdout.write(f"{rule.code}  {rule.name.ljust(name_width)}  {rule.severity.ljust(7)}  {render._first_sentence(rule)}\n")
    return EXIT_OK


def cmd_explain(args) -> int:
    rule = lookup(args.code)
    if rule is None:
        known = [r.code for r in all_rules()] + [r.name for r in all_rules()]
        by_name = {r.name: r for r in all_rules()}
        if args.code in by_name:
            rule = by_name[args.code]
        else:
            close = difflib.get_close_matches(args.code.upper(), known, n=1) or difflib.get_close_matches(args.code, known, n=1)
            hint = f"; did you mean {close[0]}?" if close else "; `dwfc rules` lists them"
            raise UsageError(f"there is no rule {args.code!r}{hint}")
    sys.stdout.write(f"# {rule.code} {rule.name} ({rule.severity}, {rule.group()})\n\n{rule.docs()}\n")
    return EXIT_OK


# ---------------------------------------------------------------- run

EXIT_STOPPED = 3
RUN_EXIT = {"completed": EXIT_OK, "errored": EXIT_ERRORS, "stopped": EXIT_STOPPED}


def cmd_run(args) -> int:
    """`dwfc run FILE|--saved NAME`: prepare the run (compile once, validate), approve, run headless (TOOLS §1, §4)."""
    from dwf.runtime.cli.progress import dumps, make_progress  # deferred: start-up
    from dwf.runtime.host.approval import plan_summary  # deferred: start-up
    from dwf.runtime.host.session import WorkspaceSession  # deferred: start-up
    from dwf.runtime.ports.agent_definitions import check_agent_types  # deferred: start-up

    path = _script_to_run(args)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror or error}") from None
    workspace = Path(args.workspace) if args.workspace else Path.cwd()
    session = WorkspaceSession(workspace, agent=args.agent, model=getattr(args, "model", None),
                               actor_tools=getattr(args, "actor_tools", None))
    problems: list[str] = []
    run_args = _load_run_args(args.args, problems)
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
    problems.extend(prepared.problems[len(prepared.argument_problems):])  # the saved workflows it calls
    port = session.open_port(problems)
    problems.extend(prepared.argument_problems)
    if problems:
        return _usage_problems(problems)

    if args.progress == "text" or not args.yes:
        sys.stderr.write(plan_summary(prepared, workspace, agent=args.agent, max_concurrency=args.max_concurrency,
                                      budget=args.budget))
    if not args.yes and not confirm("Run this workflow?", "pass --yes to approve the plan above without a prompt"):
        return EXIT_USAGE

    progress = make_progress(args.progress)
    outcome = _execute_run(session, prepared, port, progress, args)
    if isinstance(outcome, list):  # the engine refused the request
        return _usage_problems(outcome)
    progress.finish(outcome)
    return RUN_EXIT.get(outcome.status, EXIT_ERRORS)


def _script_to_run(args) -> Path:
    """FILE, or the file of the saved workflow `--saved NAME` (only read: a run never modifies it)."""
    if (args.file is None) == (args.saved is None):
        raise UsageError("give exactly one script to run: a FILE or --saved NAME (`dwfc saved` lists the saved ones)")
    if args.saved is None:
        return Path(args.file)
    from dwf.runtime.host.saved import SavedWorkflowError, locate_saved

    try:
        return locate_saved(Path(args.workspace) if args.workspace else Path.cwd(), args.saved)[1]
    except SavedWorkflowError as error:
        raise UsageError(str(error)) from None


def _usage_problems(problems: list[str]) -> int:
    for problem in problems:
        print(f"dwfc: error: {problem}", file=sys.stderr)
    return EXIT_USAGE


def confirm(question: str, without_terminal: str) -> bool:
    """Ask `question [y/N]` on the terminal, after the caller has shown what is to be approved;
    False, with the reason on stderr, when stdin is not a terminal (`without_terminal` says
    what to do instead) or the answer is not yes."""
    if not _isatty(sys.stdin):
        _usage_problems([f"cannot ask for approval: standard input is not a terminal; {without_terminal}"])
        return False
    sys.stderr.write(f"{question} [y/N] ")
    sys.stderr.flush()
    if sys.stdin.readline().strip().lower() not in ("y", "yes"):
        print("dwfc: not approved; nothing ran", file=sys.stderr)
        return False
    return True


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _load_run_args(text: str | None, problems: list[str]) -> dict | None:
    if text is None:
        return {}
    origin = "--args"
    if text.startswith("@"):
        origin = text[1:]
        try:
            text = Path(origin).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            problems.append(f"cannot read the arguments file {origin}: {getattr(error, 'strerror', None) or error}")
            return None
    try:
        value = json.loads(text)
    except ValueError as error:
        problems.append(f"{origin} is not valid JSON ({error}); pass a JSON object such as '{{\"name\": \"value\"}}'")
        return None
    if not isinstance(value, dict):
        problems.append(f"{origin} must be a JSON object of argument names to values, not {type(value).__name__}")
        return None
    return value


def question_port(progress, root: Path, run_id: str, args):
    """Terminal runs ask on the terminal; headless ones (stdin not a terminal, or --progress
    stream-json) publish the question under .dwf/questions/ for `dwfc answer` (RUNTIME §4)."""
    from dwf.runtime.ports.questions import FileQuestions, TerminalQuestions  # deferred: start-up

    if _isatty(sys.stdin) and args.progress != "stream-json":
        return TerminalQuestions(progress.notice)
    return FileQuestions(root, run_id, notify=progress.notice)


def cmd_answer(args) -> int:
    """`dwfc answer QUESTION_ID TEXT`: answer a pending escalation of a headless run."""
    from dwf.runtime.ports.questions import AnswerError, write_answer

    workspace = Path(args.workspace) if args.workspace else Path.cwd()
    if not workspace.is_dir():
        raise UsageError(f"the workspace {workspace} is not a directory")
    try:
        record = write_answer(workspace, args.question_id, args.text)
    except AnswerError as error:
        raise UsageError(str(error)) from None
    who = record.get("actor") or "an anonymous actor"
    print(f"dwfc: answered question {args.question_id} from {who}", file=sys.stderr)
    return EXIT_OK


def _execute_run(session, prepared, port, progress, args):
    """Run a prepared run to settlement over the workspace's journal; returns the RunOutcome,
    or the list of problems when the journal cannot open or the engine refuses."""
    import anyio  # deferred: start-up

    from dwf.runtime.cli.driver import drive  # deferred: start-up
    from dwf.runtime.engine import StartError  # deferred: start-up
    from dwf.runtime.journal.store import JournalError  # deferred: start-up

    async def main():
        try:
            with session.opened():  # .dwf/state.db: every effect is journaled
                return await drive(lambda engine: session.start(
                    engine, prepared, port, questions=lambda run_id: question_port(progress, session.root, run_id, args),
                    listeners=[progress], max_concurrency=args.max_concurrency, budget=args.budget), progress)
        except (JournalError, StartError) as error:
            return list(error.problems) if isinstance(error, StartError) else [str(error)]

    return anyio.run(main)

if __name__ == "__main__":
    sys.exit(main())
