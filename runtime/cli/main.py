"""This module defines `dwfc`, the command line: `main`, the argument parser (`build_parser`, which
adds each command module's subcommands), and the `run` and `answer` subcommands. Each subcommand
is a small function that returns its exit code (`exit_codes.py`); user errors are one clear
sentence on stderr (exit 2), never a traceback.

Exit codes: 0 success (warnings allowed), 1 the script has errors, 2 usage or I/O error. `run`
adds its run outcome: 0 completed, 1 errored (or the script was rejected), 2 usage error or not
approved (nothing ran), 3 stopped (Ctrl-C stops the run as `stopped(interrupted)`).

The command modules never import this one: it imports them and calls their `add_parsers`. What
`dwfc --version` would not otherwise load is imported inside the handlers (`# deferred: start-up`).
"""

from __future__ import annotations

import argparse
import sys

from dwf.compiler.inert import screen
from dwf.compiler.version import COMPILER_VERSION
from dwf.runtime.cli import eval as cli_eval
from dwf.runtime.cli import mcp as cli_mcp
from dwf.runtime.cli import plan as cli_plan
from dwf.runtime.cli import runs as cli_runs
from dwf.runtime.cli import saved as cli_saved
from dwf.runtime.cli import temporal as cli_temporal
from dwf.runtime.cli import ui as cli_ui
from dwf.runtime.cli.check import cmd_check, cmd_explain, cmd_guide, cmd_rules
from dwf.runtime.cli.exit_codes import EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, UsageError
from dwf.runtime.cli.options import APPROVE, CEILINGS, RUN_ARGS, WORKSPACE, non_negative_int, own_options, positive_int
from dwf.runtime.cli.run import cmd_answer, cmd_run
from dwf.runtime.statedir import StateDirError


def main(argv: list[str] | None = None) -> int:
    """main(argv): run `dwfc` with `argv` (default: the process's arguments); returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        code = args.handler(args)
    except (UsageError, StateDirError) as error:  # StateDirError: a `.dwf` that is a symlink, refused
        print(screen(f"dwfc: error: {error}"), file=sys.stderr)  # it may quote a script's names
        code = EXIT_USAGE
    except BrokenPipeError:
        return EXIT_OK
    except Exception as error:
        # A damaged journal found while a command reads it: its JournalError names the file and
        # the remedy. Looked up, not imported: `dwfc --version` loads no journal code, and a
        # command that never loaded it cannot have raised it.
        store = sys.modules.get("dwf.runtime.journal.store")
        if store is None or not isinstance(error, store.JournalError):
            raise
        print(screen(f"dwfc: error: {error}"), file=sys.stderr)
        code = EXIT_USAGE
    except KeyboardInterrupt:
        print("dwfc: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    cli_temporal.leave_if_sdk_loaded(code)
    return code


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse's default exit code is 2 too; keep one sentence
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    """build_parser(): the `dwfc` parser with every subcommand; `args.handler(args)` runs the one given."""
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
    cli_plan.add_parsers(commands)  # plan, graph
    _add_run_parser(commands)
    cli_runs.add_parsers(commands)  # runs, show, events, resume, amend, cancel

    answer = commands.add_parser(
        "answer", help="answer a question an actor of a running workflow asked",
        description="Answer an escalation of a run that is not attached to a terminal (e.g. --progress stream-json): "
                    "QUESTION_ID is the id of its escalation-raised event. Exit 0 answered, 2 unknown id or "
                    "already answered.")
    answer.add_argument("question_id", metavar="QUESTION_ID")
    answer.add_argument("text", metavar="TEXT")
    answer.add_argument("--workspace", metavar="DIR", help="the run's workspace (default: the current directory)")
    answer.add_argument("--temporal", metavar="HOST:PORT", default=cli_temporal.TEMPORAL.get_default("temporal"),
                        help="answer a question of a run on this Temporal server (docs/scale.md)")
    answer.add_argument("--namespace", metavar="N", default="default", help=argparse.SUPPRESS)
    answer.set_defaults(handler=cmd_answer)
    cli_saved.add_parsers(commands)  # save, saved
    cli_eval.add_parsers(commands)  # eval
    cli_mcp.add_parsers(commands)  # mcp
    cli_ui.add_parsers(commands)  # ui
    cli_temporal.add_parsers(commands)  # worker

    rules = commands.add_parser("rules", help="list the diagnostic catalogue")
    rules.add_argument("--format", choices=("text", "json"), default="text")
    rules.set_defaults(handler=cmd_rules)

    explain = commands.add_parser("explain", help="print the documentation of one rule")
    explain.add_argument("code", metavar="CODE")
    explain.set_defaults(handler=cmd_explain)
    return parser


def _add_run_parser(commands) -> None:
    """`dwfc run`; its options are grouped so that the shared ones keep their place in `--help`."""
    script = own_options()
    script.add_argument("file", metavar="FILE", nargs="?", help="the script to run (or give --saved NAME)")
    script.add_argument("--saved", metavar="NAME", help="run the saved workflow NAME (`dwfc saved` lists them)")
    agent = own_options()
    agent.add_argument("--agent", metavar="PORT",
                       help="the agent port: scripted:FIXTURE.json, anthropic[:MODEL] (needs ANTHROPIC_API_KEY) or "
                            "command:'CMD ARGS...' (an external CLI agent; see docs/agents.md)")
    agent.add_argument("--model", metavar="MODEL",
                       help="the default model of --agent anthropic (e.g. claude-sonnet-4-5); an agent definition's "
                            "model or the script's agent(model=...) overrides it")
    agent.add_argument("--actor-tools", choices=("read", "write", "exec"), default=None,
                       help="the workspace tools --agent anthropic offers actors: read (read/list/grep files), write "
                            "(also write/edit files; the default) or exec (also run commands)")
    output = own_options()
    output.add_argument("--progress", choices=("text", "stream-json", "json"), default="text",
                        help="text: lines on stderr, the value on stdout (default); stream-json: one NDJSON event per "
                             "line, then the result; json: only the result object")
    output.add_argument("--max-concurrency", type=positive_int, metavar="N", help="asks in flight at once (at least 1)")
    output.add_argument("--budget", type=non_negative_int, metavar="TOKENS", help="output-token budget of the run")
    run = commands.add_parser(
        "run", help="approve and run a script", parents=[script, RUN_ARGS, agent, APPROVE, output, CEILINGS, WORKSPACE,
                                                   cli_temporal.TEMPORAL],
        description="Compile a script (FILE, or the saved workflow NAME), show its plan and ask for approval (unless "
                    "--yes), then run it headless. Exit 0 completed, 1 errored (or compile errors), 2 usage error, "
                    "3 stopped.")
    run.set_defaults(handler=cmd_run)


