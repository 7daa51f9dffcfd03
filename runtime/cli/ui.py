"""This module defines `dwfc ui` (#15): serve the live run viewer (`dwf.runtime.viewer`) for a
workspace's runs on 127.0.0.1, print its URL (with the per-start access token) on stdout, and
serve until SIGINT or SIGTERM. `add_parsers(commands)` adds it to the `dwfc` parser.

The viewer reads the journal, so it shows runs of every process (`dwfc run` in a terminal,
`dwfc mcp`); its actions go through the same host paths as `dwfc answer`, `cancel`, `set` and
`resume`. A run resumed from the page runs in this process with the agent it recorded (or `--agent`); stopping the viewer
stops it as `stopped(interrupted)`. The plan's graph is drawn by Graphviz's `dot` when it is
installed (`cli/graphviz.py`), else shown as text.

Exit codes: 0 stopped by a signal; 2 usage error (no such workspace, the port is taken).
"""

from __future__ import annotations

import socket
import sys
from pathlib import Path

from dwf.runtime.cli.exit_codes import EXIT_OK, UsageError
from dwf.runtime.cli.options import CEILINGS, SERVED_AGENT, WORKSPACE, ceilings_of

SHUTDOWN_GRACE_S = 2  # open event streams are closed after this long


def add_parsers(commands) -> None:
    """Add `ui` to the subparsers object of the `dwfc` parser."""
    ui = commands.add_parser(
        "ui", help="serve the live run viewer (a local web page) for this workspace's runs",
        parents=[SERVED_AGENT, CEILINGS, WORKSPACE],
        description="Serve a local web page that shows the workspace's runs live (phases, asks, actors, "
                    "reports, artifacts, questions, results) and can answer questions, cancel, resume and "
                    "change the concurrency of runs. It prints the URL, which carries a fresh access token; "
                    "only that URL opens it. Stop it with Ctrl-C.")
    ui.add_argument("--port", type=int, default=0, metavar="N", help="the port (default: any free one)")
    ui.add_argument("--host", default="127.0.0.1", metavar="ADDRESS",
                    help="the address to listen on (default 127.0.0.1, this machine only)")
    ui.add_argument("--open", action="store_true", help="open the page in the default browser")
    ui.add_argument("--agent", metavar="PORT",
                    help="the agent port runs resumed from the page use: scripted:FIXTURE.json, anthropic[:MODEL] "
                         "or command:'CMD ARGS...'; default: the one each run recorded")
    ui.set_defaults(handler=cmd_ui)


def cmd_ui(args) -> int:
    """`dwfc ui`: serve the run viewer until interrupted."""
    import uvicorn  # deferred: start-up

    from dwf.runtime.viewer import Viewer, new_token  # deferred: start-up

    workspace = Path(args.workspace) if args.workspace else Path.cwd()
    if not workspace.is_dir():
        raise UsageError(f"the workspace {workspace} is not a directory; pass an existing folder with --workspace")
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be between 0 and 65535, not {args.port}")
    token = new_token()
    viewer = Viewer(workspace, token=token, host=args.host, agent=args.agent, model=args.model,
                    actor_tools=args.actor_tools, ceilings=ceilings_of(args), render_svg=svg_or_none)
    listening = _listen(args.host, args.port)
    port = listening.getsockname()[1]
    shown = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{shown}:{port}/?token={token}"
    print(f"dwfc ui: serving the runs of {viewer.root} at {url}", flush=True)
    print("dwfc ui: stop it with Ctrl-C", file=sys.stderr, flush=True)
    if args.open:
        import webbrowser  # deferred: start-up

        webbrowser.open(url)
    config = uvicorn.Config(viewer.app(), log_level="warning", lifespan="on",
                            timeout_graceful_shutdown=SHUTDOWN_GRACE_S)
    uvicorn.Server(config).run(sockets=[listening])
    return EXIT_OK


def svg_or_none(dot_source: str) -> str | None:
    """The SVG `dot` draws, or None when Graphviz is missing or fails (the page shows text)."""
    import dwf.runtime.cli.graphviz as graphviz_bin  # deferred: start-up

    try:
        return graphviz_bin.render_svg(dot_source)
    except (graphviz_bin.GraphvizMissing, graphviz_bin.GraphvizFailed):
        return None


def _listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listening = socket.socket(family, socket.SOCK_STREAM)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listening.bind((host, port))
    except OSError as error:
        listening.close()
        raise UsageError(f"cannot listen on {host}:{port}: {error.strerror or error}; choose another --port") from None
    listening.listen(64)
    return listening
