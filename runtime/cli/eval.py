"""This module defines `dwfc eval SNIPPET_FILE` (TOOLS §1): run a snippet at once and print its
value (`runtime.host.snippets`). `add_parsers(commands)` adds it to the `dwfc` parser.

A snippet that may run commands shows them and asks `Run these commands? [y/N]` on a terminal
unless `--yes`; without a terminal and without `--yes` it is refused (as `dwfc run` refuses an
unapproved plan). A snippet without commands runs without asking. `--format text` prints the
value as JSON on stdout and `log()` lines on stderr; `--format json` prints one result object.

Exit codes: 0 completed; 1 errored or rejected (compile errors, or an effect a snippet cannot
have); 2 usage error or not approved (nothing ran).
"""

from __future__ import annotations

import sys
from pathlib import Path

from dwf.compiler.inert import escape, screen
from dwf.runtime.cli.exit_codes import EXIT_ERRORS, EXIT_OK, EXIT_USAGE, UsageError
from dwf.runtime.cli.options import WORKSPACE, own_options
from dwf.runtime.cli.usage import confirm, read_script


def add_parsers(commands) -> None:
    """Add `eval` to the subparsers object of the `dwfc` parser."""
    snippet = own_options()
    snippet.add_argument("file", metavar="SNIPPET_FILE")
    snippet.add_argument("--yes", "-y", action="store_true", help="run the snippet's commands without the prompt")
    snippet.add_argument("--format", choices=("text", "json"), default="text",
                         help="text: the value as JSON on stdout, logs on stderr (default); json: one result object")
    evaluate = commands.add_parser(
        "eval", help="run a snippet at once and print its value", parents=[snippet, WORKSPACE],
        description="Run a snippet synchronously: world reads (files.*, git.*), world.run of literal commands and "
                    "pure logic; no agents, reports, artifacts or phases, no meta block needed, nothing persisted. "
                    "Exit 0 completed, 1 errored or rejected, 2 usage error or not approved.")
    evaluate.set_defaults(handler=cmd_eval)


def cmd_eval(args) -> int:
    """`dwfc eval SNIPPET_FILE`: compile, approve the commands if any, run, print the value."""
    import anyio  # deferred: start-up

    import dwf.compiler.render as render  # deferred: start-up
    from dwf.runtime.host.snippets import compile_snippet, eval_snippet  # deferred: start-up
    from dwf.runtime.cli.progress import dumps  # deferred: start-up (inert JSON for the terminal)

    source = _read_snippet(Path(args.file))
    workspace = Path(args.workspace) if args.workspace else Path.cwd()
    if not workspace.is_dir():
        raise UsageError(f"the workspace {workspace} is not a directory; pass an existing directory to --workspace")
    text_mode = args.format == "text"
    compiled = compile_snippet(source, args.file)
    if compiled.program is not None:
        if compiled.diagnostics and text_mode:  # warnings only
            sys.stderr.write(render.render_concise(compiled))
        if compiled.program.commands and not _approved(list(compiled.program.commands), workspace, args):
            return EXIT_USAGE

    def show_log(message: str) -> None:
        if text_mode:
            print(screen(f"log: {message}"), file=sys.stderr, flush=True)

    # A rejected snippet comes back from eval_snippet without running, in the result's shape.
    result = anyio.run(lambda: eval_snippet(source, workspace, name=args.file, on_log=show_log))
    if not text_mode:
        sys.stdout.write(dumps(result.to_json()) + "\n")
    elif result.status == "completed":
        sys.stdout.write(dumps(result.value, indent=2) + "\n")
    elif result.status == "rejected":
        sys.stderr.write(render.render_full(compiled) + render.summary_line([compiled]) + "\n")
        print(screen(f"dwfc: error: {result.error}"), file=sys.stderr)
    else:
        print(screen(result.traceback or f"dwfc: error: {result.error}"), file=sys.stderr)
    return EXIT_OK if result.status == "completed" else EXIT_ERRORS


def _read_snippet(path: Path) -> str:
    data = read_script(path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UsageError(f"{path} is not UTF-8 text (byte 0x{data[error.start]:02x} at offset {error.start}); "
                         "save it as UTF-8") from None


def _approved(commands: list[str], workspace: Path, args) -> bool:
    """Show the commands and get approval (mirrors `dwfc run`): True to go on."""
    if args.format == "text" or not args.yes:
        listing = "".join(f"  {escape(command)}\n" for command in commands)
        sys.stderr.write(f"This snippet may run these commands in {workspace.resolve()}:\n{listing}")
    return args.yes or confirm("Run these commands?", "pass --yes to allow the commands above without a prompt")
