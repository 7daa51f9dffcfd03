"""This module defines `dwfc mcp` (TOOLS §1, §3): serve the tool layer to a host agent over MCP
stdio (see `tools/mcp.py`). `add_parsers(commands)` adds it to the `dwfc` parser.

While it serves, the workspace's runs are watched and the client is told when one finishes, an
actor asks a question, or a run stalls (`tools/notices.py`, `docs/hosts.md`).

Stdout carries the protocol only; logs go to stderr (`DWF_MCP_LOG=debug|info|warning` sets the
level). Exit codes: 0 the client disconnected (or SIGINT/SIGTERM), 2 usage error (the workspace
or the agent port is unusable), reported before anything is served.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from dwf.runtime.cli.exit_codes import EXIT_OK, UsageError
from dwf.runtime.cli.options import CEILINGS, SERVED_AGENT, WORKSPACE, ceilings_of, positive_seconds


def add_parsers(commands) -> None:
    """Add `mcp` to the subparsers object of the `dwfc` parser."""
    mcp = commands.add_parser(
        "mcp", help="serve the workflow tools to a host agent over MCP stdio",
        parents=[SERVED_AGENT, CEILINGS, WORKSPACE],
        description="Serve the DWF tool layer (CreateWorkflow, GetWorkflowRun, ...) over MCP on stdin/stdout. Runs "
                    "start in the background in the workspace; a live run stops as stopped(interrupted) when the "
                    "client disconnects (ResumeWorkflowRun or `dwfc resume` continues it).")
    mcp.add_argument("--agent", metavar="PORT",
                     help="the agent port of the runs: scripted:FIXTURE.json, anthropic[:MODEL] (needs "
                          "ANTHROPIC_API_KEY) or command:'CMD ARGS...'; without it workflows cannot run")
    mcp.add_argument("--approve", choices=("elicit", "auto"), default="elicit",
                     help="elicit: ask the person to approve each plan through MCP elicitation (calls are refused "
                          "when the client cannot show it); auto: approve everything, for hosts that gate every "
                          "tool call themselves")
    mcp.add_argument("--stall-after", metavar="SECONDS", type=positive_seconds,
                     help="tell the client a run is stalled when nothing settled for this long while asks are in "
                          "flight (default 600, ten minutes)")
    mcp.set_defaults(handler=cmd_mcp)


def cmd_mcp(args) -> int:
    """`dwfc mcp`: serve the tool layer over MCP stdio until the client disconnects."""
    import logging  # deferred: start-up

    import anyio  # deferred: start-up

    from dwf.runtime.tools.layer import ToolLayerError  # deferred: start-up
    from dwf.runtime.tools.mcp import serve_stdio  # deferred: start-up

    level = os.environ.get("DWF_MCP_LOG", "warning").upper()
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, level, logging.WARNING),
                        format="dwfc mcp: %(levelname)s %(name)s: %(message)s")
    workspace = Path(args.workspace) if args.workspace else Path.cwd()
    try:
        anyio.run(lambda: serve_stdio(workspace, agent=args.agent, model=args.model, actor_tools=args.actor_tools,
                                      approve=args.approve, ceilings=ceilings_of(args),
                                      **({"stall_after_s": args.stall_after} if args.stall_after else {})))
    except ToolLayerError as error:
        raise UsageError(str(error)) from None
    return EXIT_OK
