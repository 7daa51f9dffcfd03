"""This module defines the approval-screen subcommands of `dwfc`: `dwfc plan` (the plan as text,
JSON or a self-contained HTML page) and `dwfc graph` (one graph as DOT, SVG, PNG, Mermaid or
text). `add_parsers(commands)` adds both to the `dwfc` argument parser; each handler returns
its exit code: 0 planned, 1 the script has errors (its diagnostics are printed instead of a
plan), and user errors (a missing file, bad `--args`, no Graphviz for SVG/PNG) raise
`UsageError`, which `dwfc` reports in one sentence with exit code 2.

Nothing here runs the script: planning is compiling plus analysis, plus looking up (in the
current directory's workspace, as `dwfc run` would) the saved workflows it calls inline: the
plan lists them and its command set includes theirs. The only process started
is Graphviz's `dot`, for SVG, PNG and the HTML page's pictures (`dwf.runtime.cli.graphviz`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from dwf.runtime.cli.check import compile_path
from dwf.runtime.cli.exit_codes import EXIT_ERRORS, EXIT_OK, UsageError
from dwf.runtime.cli.options import RUN_ARGS
from dwf.runtime.cli.usage import isatty, read_run_args

if TYPE_CHECKING:
    from dwf.compiler.result import CompileResult

# The analyses and renderers (the IR, networkx, graphviz) and the engine's argument check are
# imported by the handlers, not here, so adding these subcommands to `dwfc` costs `dwfc --version`
# nothing at start-up (tests/plan/test_plan_cli.py checks it), and a plan of a cached script
# never loads the front end.

PLAN_FORMATS = ("text", "json", "html")
GRAPH_KINDS = ("phase", "causal", "handoff")
GRAPH_FORMATS = ("dot", "svg", "png", "mermaid", "text")


def add_parsers(commands) -> None:
    """Add `plan` and `graph` to the subparsers object of the `dwfc` parser."""
    plan = commands.add_parser(
        "plan", help="show what a script will do, without running it", parents=[RUN_ARGS],
        description="Compile a script and show its plan: phases and steps, actors, commands, data flow and "
                    "warnings. Nothing runs. Exit 0 planned, 1 the script has errors (diagnostics are printed "
                    "instead), 2 usage error.")
    plan.add_argument("file", metavar="FILE")
    plan.add_argument("--format", choices=PLAN_FORMATS, default="text",
                      help="text for a terminal, json for host UIs (docs/plan.md), html for a browser")
    plan.add_argument("-o", "--output", metavar="OUT", help="write to OUT instead of standard output")
    plan.set_defaults(handler=cmd_plan)

    graph = commands.add_parser(
        "graph", help="render one graph of a script's plan",
        description="Render the phase, causal or hand-off graph of a script. dot, mermaid and text need no "
                    "other program; svg and png run Graphviz's `dot`.")
    graph.add_argument("file", metavar="FILE")
    graph.add_argument("--kind", choices=GRAPH_KINDS, default="phase", help="which graph (default: phase)")
    graph.add_argument("--format", choices=GRAPH_FORMATS, default="dot", help="output format (default: dot)")
    graph.add_argument("-o", "--output", metavar="OUT", help="write to OUT instead of standard output")
    graph.set_defaults(handler=cmd_graph)


# ---------------------------------------------------------------- shared steps


def _compile(name: str) -> CompileResult:
    path = Path(name)
    if path.is_dir():
        raise UsageError(f"{name} is a directory; plan one script at a time")
    if not path.exists():
        raise UsageError(f"{name}: no such file")
    return compile_path(name)


def _print_diagnostics(result: CompileResult) -> None:
    import dwf.compiler.render as render  # deferred: start-up

    sys.stderr.write(render.render_full(result))
    sys.stderr.write(render.summary_line([result]) + "\n")
    sys.stderr.write(f"dwfc: {result.source.path} has errors, so it has no plan; fix them and try again\n")


def _write(output: str | None, data: str | bytes) -> None:
    if output is None:
        if isinstance(data, bytes):
            if isatty(sys.stdout):
                raise UsageError("PNG output is binary; pass -o FILE to write it to a file")
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        else:
            sys.stdout.write(data)
        return
    try:
        if isinstance(data, bytes):
            Path(output).write_bytes(data)
        else:
            Path(output).write_text(data, encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot write {output}: {error.strerror or error}") from None


def _svg(dot_source: str) -> str:
    import dwf.runtime.cli.graphviz as graphviz_bin  # deferred: start-up

    try:
        return graphviz_bin.render_svg(dot_source)
    except (graphviz_bin.GraphvizMissing, graphviz_bin.GraphvizFailed) as error:
        raise UsageError(str(error)) from None


# ---------------------------------------------------------------- plan


def cmd_plan(args) -> int:
    """`dwfc plan FILE`: the plan of a script as text, JSON or an HTML page."""
    import dwf.compiler.render as render  # deferred: start-up
    from dwf.compiler.plan.document import build_plan, rejected  # deferred: start-up
    from dwf.compiler.plan.graph_render import to_dot  # deferred: start-up
    from dwf.compiler.plan.graphs import build_graphs  # deferred: start-up
    from dwf.compiler.plan.html import render_html  # deferred: start-up
    from dwf.runtime.engine.arguments import ArgumentError, validate_args  # deferred: start-up
    from dwf.runtime.engine.called import compile_called  # deferred: start-up
    from dwf.runtime.engine.compile_cache import CompileCache  # deferred: start-up
    from dwf.runtime.host.approval import plan_with_called, render_plan_text  # deferred: start-up
    from dwf.runtime.host.saved import resolve_called  # deferred: start-up
    from dwf.runtime.ports.agent_definitions import check_agent_types  # deferred: start-up

    result = _compile(args.file)
    given = read_run_args(args.args)
    if not result.ok:
        if args.format == "json":
            _write(args.output, render.dumps(rejected(result)))
        else:
            _print_diagnostics(result)
        return EXIT_ERRORS
    values = None
    if given is not None:
        try:
            values = validate_args(result.program.meta, given)
        except ArgumentError as error:
            count = len(error.problems)
            raise UsageError(f"{count} problem{'s' if count != 1 else ''} with --args: " + "; ".join(error.problems)) from None
    problems = check_agent_types(result.program, Path.cwd())  # LANGUAGE §6.1: an error when planned
    sources = resolve_called(result.program, Path.cwd())  # the saved workflows it calls, as `run` would
    cache = CompileCache.of_workspace(Path.cwd())
    called, called_problems = compile_called(result.program, sources, cache)
    problems += called_problems
    if problems:
        raise UsageError("; ".join(problems))
    graphs = build_graphs(result.program, result.source)
    plan = plan_with_called(build_plan(result, values, tuple(given or ()), graphs=graphs), result.program, called,
                            sources)
    if args.format == "json":
        _write(args.output, render.dumps(plan))
    elif args.format == "html":
        titles = phase_titles(graphs)
        svgs = {kind: _svg(to_dot(graphs.get(kind), titles)) for kind in GRAPH_KINDS}
        _write(args.output, render_html(plan, svgs))
    else:
        _write(args.output, render_plan_text(plan))
    return EXIT_OK


def phase_titles(graphs) -> dict:
    """The title of each phase node of `graphs`, for the graph renderers' labels."""
    return {node: attrs["title"] for node, attrs in graphs.phase.nodes(data=True)}


# ---------------------------------------------------------------- graph


def cmd_graph(args) -> int:
    """`dwfc graph FILE`: one graph of a script's plan as DOT, SVG, PNG, Mermaid or text."""
    from dwf.compiler.plan.graph_render import RENDERERS, to_dot  # deferred: start-up
    from dwf.compiler.plan.graphs import build_graphs  # deferred: start-up
    import dwf.runtime.cli.graphviz as graphviz_bin  # deferred: start-up

    result = _compile(args.file)
    if not result.ok:
        _print_diagnostics(result)
        return EXIT_ERRORS
    graphs = build_graphs(result.program, result.source)
    graph, titles = graphs.get(args.kind), phase_titles(graphs)
    if args.format in RENDERERS:
        _write(args.output, RENDERERS[args.format](graph, titles))
    elif args.format == "svg":
        _write(args.output, _svg(to_dot(graph, titles)))
    else:
        try:
            data = graphviz_bin.render(to_dot(graph, titles), "png")
        except (graphviz_bin.GraphvizMissing, graphviz_bin.GraphvizFailed) as error:
            raise UsageError(str(error)) from None
        _write(args.output, data)
    return EXIT_OK
