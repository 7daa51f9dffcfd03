"""This module defines the argument rules of the programs a run starts (`world.run`, the actor
tool `run_command`): `check_arguments`, applied after the program is approved and before it
starts inside the sandbox (`sandbox.py`), with what DWF knows about each program
(`grammar/programs.py`).

The rule. Approving a program approves what the approval screen showed of its calls: the
literal leading arguments the compiler could see (`git diff …`). The longest approved prefix that
the arguments start with is trusted as written; every argument after it was computed (from an
agent's answer, a file, a run argument) and is checked:

- an option that runs code (`git -c`, `python3 -c`, `find -exec`, `make --eval`, `tar
  --checkpoint-action`, `ssh -o`, `pytest -p`, ...) or points the program at another repository,
  host or scope (`git --git-dir`, `git diff --no-index`, `npm -g`) is refused, naming the option;
  so is a refused subcommand (`npm exec`, `git filter-branch`) and `git config` other than a read;
- a program that starts another program (`env`, `xargs`) may start only an approved program of
  this run, whose own arguments are checked by the same rules;
- an `awk` program text that starts commands (`system(`, pipes to or from commands) and a
  `make` variable assignment that could run code (`SHELL=`, a value with `$(`) are refused;
- any argument (or the value of `--option=value`) naming a path outside the workspace (absolute
  elsewhere, `~`, or `..` past the root) is refused; `/dev/null` is allowed.

`sed` always runs with GNU sed's `--sandbox` (no `e`, `r` or `w` commands), and `git` with the
configuration `GIT_CONFIG_OVERRIDES` (no fsmonitor, no hooks, no pager, no ssh, no `ext::`
transport), whatever its arguments and the repository's configuration. These rules are a second line; the sandbox is the first: what a
rule misses still runs with the workspace as its only writable path and no network.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from dwf.grammar.programs import ProgramRules, matches_option, program_name, rules_of
from dwf.runtime.values.errors import world_error

GIT_READ_CONFIG = ("--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "--get-color",
                   "--get-colorbool")
GIT_CONFIG_OVERRIDES = (("core.fsmonitor", "false"), ("core.hooksPath", "/dev/null"), ("core.pager", "cat"),
                        ("core.sshCommand", "false"), ("protocol.ext.allow", "never"))
AWK_STARTS_COMMANDS = re.compile(r"\bsystem\s*\(|\|\s*getline|\|&|\b(?:print|printf)\b[^;{}\n]*\|")
MAKE_CODE_VARIABLES = frozenset({"SHELL", ".SHELLFLAGS", "MAKEFLAGS", "MFLAGS", "MAKE", "MAKEFILES", "MAKESHELL",
                                 "GNUMAKEFLAGS"})
ASSIGNMENT = re.compile(r"^([A-Za-z_.][A-Za-z0-9_.]*)\s*[:+?!]?=(.*)$", re.DOTALL)
ALLOWED_OUTSIDE = frozenset({os.devnull, "/dev/stdin", "/dev/stdout", "/dev/stderr"})
MAX_WRAPPING = 4  # env env env … : deeper nesting is refused


def check_arguments(cmd: str, args: Sequence[str], *, approved: Sequence[tuple[str, ...]], root: Path,
                    programs: frozenset[str], what: str) -> list[str]:
    """The arguments `cmd` starts with (`sed` gains `--sandbox`), after the rules of the module
    docstring; `approved` are the literal leading arguments the approval showed for `cmd`,
    `programs` the run's approved programs. Raises `WorldError` naming what is refused."""
    args = list(args)
    trusted = max((len(p) for p in approved if tuple(args[:len(p)]) == tuple(p)), default=0)
    _check(cmd, args, trusted, root, programs, what, 0)
    if program_name(cmd) == "sed" and "--sandbox" not in args:
        args.insert(0, "--sandbox")
    return args


def program_environment(cmd: str) -> dict[str, str]:
    """Variables `cmd` gets on top of the sanitized environment: for `git`, configuration that
    overrides every file (`GIT_CONFIG_COUNT`), so no repository setting runs code."""
    if program_name(cmd) != "git":
        return {}
    env = {"GIT_CONFIG_COUNT": str(len(GIT_CONFIG_OVERRIDES)), "GIT_TERMINAL_PROMPT": "0"}
    for i, (key, value) in enumerate(GIT_CONFIG_OVERRIDES):
        env[f"GIT_CONFIG_KEY_{i}"], env[f"GIT_CONFIG_VALUE_{i}"] = key, value
    return env


def _refuse(what: str, message: str):
    return world_error(f"{what}: refused: {message}")


def _check(cmd: str, args: list[str], trusted: int, root: Path, programs: frozenset[str], what: str,
           depth: int) -> None:
    _check_options(cmd, args, trusted, root, programs, what, depth)  # first: its message names the option
    for index in range(trusted, len(args)):
        outside = _outside_path(args[index], root)
        if outside is not None:
            raise _refuse(what, f"the argument `{args[index]}` names `{outside}`, outside the workspace; "
                                "commands work on workspace paths only")


def _check_options(cmd: str, args: list[str], trusted: int, root: Path, programs: frozenset[str], what: str,
                   depth: int) -> None:
    name = program_name(cmd)
    rules = rules_of(cmd)
    if rules is None:
        return
    subcommand: str | None = None
    index = 0
    while index < len(args):
        argument = args[index]
        computed = index >= trusted
        if argument == "--":
            break
        if not argument.startswith("-") or argument == "-":
            if rules.runs_program and not (name == "env" and ASSIGNMENT.match(argument)):
                _check_wrapped(name, argument, args[index + 1:], max(0, trusted - index - 1), root, programs,
                               what, depth, computed)
                return
            if name == "make" and computed:
                _check_make_assignment(argument, what)
            if name == "awk" and computed and not any(a in ("-f", "--file") or a.startswith("--file=") for a in args):
                _check_awk_program(argument, what)
            if rules.options_end_at_operand:
                return  # what follows belongs to the script the program runs
            if subcommand is None and name in ("git", "npm"):
                subcommand = argument
                if computed and argument in rules.refused_subcommands:
                    raise _refuse(what, f"`{name} {argument}` runs other programs or leaves the workspace")
                if computed and name == "git" and argument == "config" and not any(
                        a in GIT_READ_CONFIG for a in args[index + 1:]):
                    raise _refuse(what, "`git config` may only read configuration (--get, --list)")
            index += 1
            continue
        if computed:
            _check_option(name, rules, argument, subcommand, what)
        if name == "python3" and matches_option(argument, "-m", bundles=True):
            module = argument[2:] if argument != "-m" else (args[index + 1] if index + 1 < len(args) else "")
            skip = 1 if argument != "-m" else 2
            _check(module, args[index + skip:], max(0, trusted - index - skip), root, programs, what, depth + 1)
            return  # `python3 -m pytest …`: the rest are the module's arguments, checked by its rules
        index += 2 if argument in rules.value_options else 1


def _check_option(name: str, rules: ProgramRules, argument: str, subcommand: str | None, what: str) -> None:
    code = rules.code + (rules.global_code if subcommand is None else ())
    code += rules.subcommand_code.get(subcommand or "", ())
    for option in code:
        if matches_option(argument, option, rules.bundles):
            raise _refuse(what, f"`{argument}`: the option `{option}` of {name} executes code, so it may appear "
                                "only in the leading arguments the approval showed")
    for option in rules.leaves:
        if matches_option(argument, option, rules.bundles):
            raise _refuse(what, f"`{argument}`: the option `{option}` makes {name} work outside the workspace")


def _check_wrapped(name: str, inner: str, rest: list[str], trusted: int, root: Path, programs: frozenset[str],
                   what: str, depth: int, computed: bool) -> None:
    if computed and inner not in programs:
        approved = ", ".join(sorted(programs)) or "none"
        raise _refuse(what, f"{name} would start `{inner}`, which is not an approved program of this run "
                            f"(approved: {approved})")
    if depth >= MAX_WRAPPING:
        raise _refuse(what, f"{name} nests programs more than {MAX_WRAPPING} deep")
    _check(inner, rest, trusted, root, programs, what, depth + 1)


def _check_make_assignment(argument: str, what: str) -> None:
    found = ASSIGNMENT.match(argument)
    if found is None:
        return
    variable, value = found.groups()
    if variable in MAKE_CODE_VARIABLES or "$" in value or "`" in value:
        raise _refuse(what, f"`{argument}`: this make variable assignment could run code")


def _check_awk_program(text: str, what: str) -> None:
    found = AWK_STARTS_COMMANDS.search(text)
    if found is not None:
        raise _refuse(what, f"the awk program uses `{found.group().strip()}`, which starts commands")


def _outside_path(argument: str, root: Path) -> str | None:
    """The path `argument` (or the value of `--option=value`) names outside `root`, or None."""
    candidates = [argument]
    if argument.startswith("--") and "=" in argument:
        candidates.append(argument.split("=", 1)[1])
    for candidate in candidates:
        if candidate.startswith("~"):
            return candidate
        if candidate.startswith("/"):
            if candidate in ALLOWED_OUTSIDE:
                continue
            normal = os.path.normpath(candidate)
            if not _within(normal, str(root)):
                return normal
        elif ".." in candidate.split("/"):
            normal = os.path.normpath(os.path.join(root, candidate))
            if not _within(normal, str(root)):
                return normal
    return None


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


__all__ = ["ALLOWED_OUTSIDE", "ASSIGNMENT", "AWK_STARTS_COMMANDS", "GIT_CONFIG_OVERRIDES", "GIT_READ_CONFIG",
           "MAKE_CODE_VARIABLES", "MAX_WRAPPING", "check_arguments", "program_environment"]
