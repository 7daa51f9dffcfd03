"""This module defines the saved-workflow subcommands of `dwfc` (TOOLS §1, §4): `save FILE
--scope project|global` and `saved`. `add_parsers(commands)` adds them to the `dwfc` parser;
`dwfc run --saved NAME` lives with `run` in `cli/main.py`.

Exit codes: `save` 0 saved, 1 the script has compile errors (printed like `dwfc check`),
2 usage error (bad name or scope, the name is taken, unreadable file); `saved` 0.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from dwf.compiler.inert import escape
from dwf.runtime.cli.check import compile_path
from dwf.runtime.cli.exit_codes import EXIT_ERRORS, EXIT_OK, UsageError
from dwf.runtime.cli.options import WORKSPACE, own_options
from dwf.runtime.cli.usage import workspace_root
from dwf.runtime.statedir import SCOPES

DESCRIPTION_WIDTH = 60  # the description column shows the head of the first line


def add_parsers(commands) -> None:
    """Add `save` and `saved` to the subparsers object of the `dwfc` parser."""
    saving = own_options()
    saving.add_argument("file", metavar="FILE")
    saving.add_argument("--scope", choices=SCOPES, required=True,
                        help="project: this workspace only (shadows a global one of the same name); global: every "
                             "workspace")
    saving.add_argument("--name", metavar="NAME", help="the saved name (1-64 of A-Z a-z 0-9 _ . -; default: meta's name)")
    saving.add_argument("--replace", action="store_true", help="overwrite a saved workflow of that name")
    save = commands.add_parser(
        "save", help="save a script as a named workflow of this project or of every project",
        parents=[saving, WORKSPACE],
        description="Compile FILE and save it as <name>.dwf.py in <workspace>/.dwf/workflows/ (--scope project) or "
                    "$DWF_HOME/workflows/ (--scope global; DWF_HOME defaults to ~/.dwf). The name defaults to meta's "
                    "name. Run it with `dwfc run --saved NAME`. Exit 0 saved, 1 compile errors, 2 usage error.")
    save.set_defaults(handler=cmd_save)

    table = own_options()
    table.add_argument("--json", action="store_true", help="print a JSON array instead of a table")
    listing = commands.add_parser(
        "saved", help="list the saved workflows", parents=[table, WORKSPACE],
        description="List the saved workflows: this workspace's (.dwf/workflows/) first, then the global ones "
                    "($DWF_HOME/workflows/), each by name. A global workflow hidden by a project one of the same "
                    "name is marked shadowed.")
    listing.set_defaults(handler=cmd_saved)


def cmd_save(args) -> int:
    """`dwfc save FILE --scope project|global`: compile FILE and save it under its name."""
    import dwf.compiler.render as render  # deferred: start-up
    from dwf.runtime.host import saved as service  # deferred: start-up

    workspace = workspace_root(args)
    compiled = compile_path(Path(args.file))
    if compiled.program is None:
        sys.stderr.write(render.render_concise(compiled))
        sys.stderr.write(render.summary_line([compiled]) + "\n")
        print("dwfc: error: the script has errors and was not saved; fix them and save again", file=sys.stderr)
        return EXIT_ERRORS
    if compiled.diagnostics:  # warnings do not block a save, but say them once
        sys.stderr.write(render.render_concise(compiled))
    try:
        workflow = service.save_workflow(workspace, compiled.source.text, args.scope, args.name, replace=args.replace)
    except service.SavedWorkflowError as error:
        raise UsageError(str(error)) from None
    note = ""
    if workflow.shadowed:
        note = " (this workspace's project workflow of the same name shadows it)"
    elif workflow.scope == "project" and os.path.isfile(service.global_dir() / workflow.path.name):
        note = " (it shadows the global workflow of the same name)"
    print(f"dwfc: saved {workflow.scope} workflow `{workflow.name}` to {workflow.path}{note}; "
          f"run it with `dwfc run --saved {workflow.name}`", file=sys.stderr)
    return EXIT_OK


def cmd_saved(args) -> int:
    """`dwfc saved`: the saved workflows, project ones first, as a table or a JSON array."""
    from dwf.runtime.cli.progress import dumps, first_line  # deferred: start-up
    from dwf.runtime.host import saved as service  # deferred: start-up

    workflows = service.list_saved(workspace_root(args))
    if args.json:
        sys.stdout.write(dumps([w.to_json() for w in workflows]) + "\n")
        return EXIT_OK
    if not workflows:
        print("no saved workflows; save one with `dwfc save FILE --scope project|global`", file=sys.stderr)
        return EXIT_OK
    header = ("NAME", "SCOPE", "DESCRIPTION", "ARGS")
    table = [header] + [(w.name, w.scope + (" (shadowed)" if w.shadowed else ""),
                         "(broken)" if w.description is None else first_line(w.description, DESCRIPTION_WIDTH),
                         describe_args(w.args)) for w in workflows]
    table = [tuple(escape(cell) for cell in row) for row in table]  # descriptions are the scripts'
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        sys.stdout.write("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() + "\n")
    for workflow in workflows:
        if workflow.description is None:  # only a file that cannot be read or compiled lacks one
            print(f"dwfc: the {workflow.scope} workflow `{workflow.name}` cannot be read or does not compile; "
                  f"`dwfc check {workflow.path}` says why", file=sys.stderr)
    return EXIT_OK


def describe_args(declared: dict) -> str:
    """One cell: `name: type` per argument, with its default or `(required)`; `-` for none."""
    parts = []
    for name, spec in declared.items():
        part = f"{name}: {spec['type']}"
        if "default" in spec:
            part += f" = {json.dumps(spec['default'], ensure_ascii=False)}"
        elif spec.get("required"):
            part += " (required)"
        parts.append(part)
    return ", ".join(parts) or "-"
