"""This module defines the helpers the `dwfc` commands that run or approve something share:
`read_run_args` (the one reader of `--args`), `confirm` (the `[y/N]` approval prompt),
`isatty`, `report_usage_problems` (every problem on stderr, exit code 2) and `workspace_root`
(the `--workspace` directory of a command that needs one to exist) and `read_script`.

Messages are one sentence each, with what to do instead where there is a choice, and never a
traceback: `UsageError` carries them to `main`, which prints `dwfc: error: ...`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TextIO

from dwf.compiler.inert import screen
from dwf.runtime.cli.exit_codes import EXIT_USAGE, UsageError

_EXAMPLE = "'{\"name\": \"value\"}'"


def read_run_args(text: str | None) -> dict | None:
    """read_run_args(text): the `--args` value, a JSON object given inline or as `@path` of a
    file holding one; None when `--args` was not given. Raises `UsageError` when it cannot be
    read or is not a JSON object."""
    if text is None:
        return None
    origin = "--args"
    if text.startswith("@"):
        name = text[1:]
        origin = f"the arguments file {name}"
        try:
            text = Path(name).read_text(encoding="utf-8")
        except OSError as error:
            raise UsageError(f"cannot read the arguments file {name}: {error.strerror or error}") from None
        except UnicodeDecodeError:
            raise UsageError(f"{origin} is not UTF-8 text") from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise UsageError(f"{origin} is not valid JSON ({error.msg} at line {error.lineno}, column {error.colno}); "
                         f"pass a JSON object such as {_EXAMPLE}") from None
    if not isinstance(value, dict):
        raise UsageError(f"{origin} must be a JSON object of argument names to values, such as {_EXAMPLE}, "
                         f"not {type(value).__name__}")
    return value


def collect_run_args(text: str | None, problems: list[str]) -> dict | None:
    """collect_run_args(text, problems): `read_run_args` for a command that reports all its usage
    problems together: `{}` when `--args` was not given, None (with the problem appended to
    `problems`) when it is unusable."""
    try:
        value = read_run_args(text)
    except UsageError as error:
        problems.append(str(error))
        return None
    return {} if value is None else value


def report_usage_problems(problems: list[str]) -> int:
    """report_usage_problems(problems): each problem as a `dwfc: error:` line on stderr; returns
    exit code 2."""
    for problem in problems:
        print(screen(f"dwfc: error: {problem}"), file=sys.stderr)  # problems quote scripts' names
    return EXIT_USAGE


def isatty(stream: TextIO) -> bool:
    """isatty(stream): whether `stream` is a terminal (False for a closed or replaced stream)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def confirm(question: str, without_terminal: str) -> bool:
    """confirm(question, without_terminal): ask `question [y/N]` on the terminal, after the caller
    has shown what is to be approved; False, with the reason on stderr, when stdin is not a
    terminal (`without_terminal` says what to do instead) or the answer is not yes."""
    if not isatty(sys.stdin):
        report_usage_problems([f"cannot ask for approval: standard input is not a terminal; {without_terminal}"])
        return False
    sys.stderr.write(f"{question} [y/N] ")
    sys.stderr.flush()
    if sys.stdin.readline().strip().lower() not in ("y", "yes"):
        print("dwfc: not approved; nothing ran", file=sys.stderr)
        return False
    return True


def read_script(path: Path) -> bytes:
    """read_script(path): the bytes of the script (or snippet) file `path`; `UsageError` saying
    why it cannot be read."""
    try:
        return Path(path).read_bytes()
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror or error}") from None


def workspace_root(args) -> Path:
    """workspace_root(args): the resolved `--workspace` directory (default: the current one);
    `UsageError` when it is not a directory."""
    root = Path(args.workspace) if getattr(args, "workspace", None) else Path.cwd()
    if not root.is_dir():
        raise UsageError(f"the workspace {root} is not a directory")
    return root.resolve()
