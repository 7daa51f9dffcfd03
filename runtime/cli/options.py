"""This module defines the options several `dwfc` subcommands share, each group declared once as
an argparse parent parser (`parents=[...]`): `WORKSPACE`, `RUN_ARGS`, `APPROVE`, `RERUN_AGENT`,
`CEILINGS` (read by `ceilings_of`) and `CHANGED_CAPS`; and the argument types of caps
(`positive_int`, `non_negative_int`, `or_none`).

argparse puts a parent's options before the child's own, so a command whose shared options come
after its own (in `--help` and the usage line) declares its own in a parser of their own and
lists it first: `parents=[own, WORKSPACE]`. `own_options()` makes such a parser.
"""

from __future__ import annotations

import argparse
from typing import Callable

NONE_WORDS = ("none", "null")


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def positive_seconds(text: str) -> float:
    """An argparse type: a duration in seconds greater than 0 (`90`, `0.5`)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text!r}")
    return value


def non_negative_int(text: str) -> int:
    """An argparse type: a whole number of tokens (`_` and `,` may group digits), at least 0."""
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of tokens, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, got {value}")
    return value


def or_none(parse: Callable[[str], int]) -> Callable[[str], int | str]:
    """An argparse type: `parse`, or the word `none` (kept as "none": the cap is cleared)."""
    def parse_or_none(text: str) -> int | str:
        return "none" if text.strip().lower() in NONE_WORDS else parse(text)
    parse_or_none.__name__ = parse.__name__
    return parse_or_none


def own_options() -> argparse.ArgumentParser:
    """A parser that only holds options (no `-h`), to pass as one of `parents=`."""
    return argparse.ArgumentParser(add_help=False)


def ceilings_of(args):
    """The host's ceilings (`engine.Ceilings`) the `CEILINGS` options give; defaults for those not given."""
    from dwf.runtime.engine import Ceilings  # deferred: start-up

    defaults = Ceilings()
    return Ceilings(max_agents=args.max_agents or defaults.max_agents,
                    max_concurrency=args.max_concurrency_ceiling or defaults.max_concurrency)


WORKSPACE = own_options()
WORKSPACE.add_argument("--workspace", metavar="DIR", help="workspace directory (default: the current directory)")

RUN_ARGS = own_options()  # `dwfc run` and `dwfc plan`; read by `cli.run.read_run_args`
RUN_ARGS.add_argument("--args", metavar="JSON|@FILE", help="run arguments: a JSON object, or @path of a file holding one")

APPROVE = own_options()  # `dwfc run` and `dwfc amend`
APPROVE.add_argument("--yes", "-y", action="store_true", help="approve without the interactive prompt")

RERUN_AGENT = own_options()  # resume and amend run a script again: amend needs an agent port, resume pins it
RERUN_AGENT.add_argument("--agent", metavar="PORT",
                         help="the agent port: scripted:FIXTURE.json, anthropic[:MODEL] or command:'CMD ...' "
                              "(resume: default the run's pinned one; another kind needs --yes)")
RERUN_AGENT.add_argument("--model", metavar="MODEL",
                         help="the default model of --agent anthropic (resume: default the run's; another needs --yes)")
RERUN_AGENT.add_argument("--actor-tools", choices=("read", "write", "exec"), default=None,
                         help="the workspace tools --agent anthropic offers actors (resume: default the run's; a "
                              "wider set needs --yes)")
RERUN_AGENT.add_argument("--progress", choices=("text", "stream-json", "json"), default="text",
                         help="as for `dwfc run`: text lines on stderr, stream-json NDJSON events, or json "
                              "(the result)")

SERVED_AGENT = own_options()  # `dwfc mcp` and `dwfc ui`: how the runs they start use their `--agent`
SERVED_AGENT.add_argument("--model", metavar="MODEL", help="the default model of --agent anthropic")
SERVED_AGENT.add_argument("--actor-tools", choices=("read", "write", "exec"), default=None,
                          help="the workspace tools --agent anthropic offers actors (default write)")

CEILINGS = own_options()  # `dwfc run`, `mcp`, `resume` and `amend`: what the operator lets any run have
CEILINGS.add_argument("--max-agents", type=positive_int, metavar="N",
                      help="the most actors a run may start (default 1,000); a script's meta may ask for fewer, "
                           "never more")
CEILINGS.add_argument("--max-concurrency-ceiling", type=positive_int, metavar="N",
                      help="the most asks a run may have in flight (default 16); a script's meta, --max-concurrency "
                           "or a tool call may ask for fewer, never more")

CHANGED_CAPS = own_options()  # `dwfc amend` (and `dwfc set`): unset keeps the run's, `none` clears one
CHANGED_CAPS.add_argument("--max-concurrency", type=or_none(positive_int), metavar="N|none",
                          help="asks in flight at once (default: the run's; none: the script's, else the default)")
CHANGED_CAPS.add_argument("--budget", type=or_none(non_negative_int), metavar="TOKENS|none",
                          help="output-token budget (default: the run's; none: no budget)")


def changed_caps(args) -> dict:
    """The caps `CHANGED_CAPS` gave (and `--model`), an explicit `none` as None; the others are left out."""
    given = {name: getattr(args, name, None) for name in ("max_concurrency", "budget", "model")}
    return {name: None if str(value).lower() in NONE_WORDS else value for name, value in given.items()
            if value is not None}
