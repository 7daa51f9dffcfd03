"""This module defines, as data, what DWF knows about the programs scripts and actors run most:
which of them run arbitrary code by design (interpreters), which run another program named in
their arguments (`env`, `xargs`), and, per program, the options that execute code or make the
program work outside the workspace. Two readers share it: the approval screen
(`compiler.plan.commands`) marks a program "runs arbitrary code" when it is an interpreter or its
literal leading arguments use a code option (`python3 -c …`, `find . -exec …`); the runtime's
argument rules (`runtime/ports/argument_rules.py`) refuse those options when they are computed,
that is, not part of the leading arguments the person saw and approved.

An option is matched as a whole argument (`--upload-pack`), with an attached value
(`--upload-pack=sh`, `-csh`), or, for a one-letter option, inside a bundle of one-letter flags
(`-xIf`). A program is named by its file name (`/usr/bin/git` is `git`); `python3.11` is `python3`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class ProgramRules:
    """What DWF knows about one program (see the module docstring). `code`: options that run
    code; `leaves`: options that point the program at another repository, host or scope than the
    workspace; `subcommand_code`: code options of one subcommand only (`git rebase -x`);
    `refused_subcommands`: subcommands refused outright; `runs_code`: the program runs code by
    design (an interpreter, or one that runs the workspace's own code: `pytest`'s conftest.py, a
    Makefile's recipes); `runs_program`: its first operand is a program it starts;
    `options_end_at_operand`: its options end at the first operand (what follows belongs to the
    script it runs); `value_options`: options whose value is the next argument; `bundles`: it
    accepts one-letter flags bundled (`sh -ec`), so a code option is looked for inside bundles;
    `global_code`: code options valid only before the subcommand (`git -c`); `note`: what the
    approval screen says about it."""

    code: tuple[str, ...] = ()
    leaves: tuple[str, ...] = ()
    subcommand_code: dict[str, tuple[str, ...]] = field(default_factory=dict)
    refused_subcommands: frozenset[str] = frozenset()
    runs_code: bool = False
    runs_program: bool = False
    options_end_at_operand: bool = False
    value_options: tuple[str, ...] = ()
    bundles: bool = False
    global_code: tuple[str, ...] = ()
    note: str = ""


ARBITRARY_CODE = "runs arbitrary code"

_SHELL = ProgramRules(code=("-c",), runs_code=True, options_end_at_operand=True, value_options=("-o", "-O"),
                      bundles=True, note=ARBITRARY_CODE)

PROGRAMS: dict[str, ProgramRules] = {
    "git": ProgramRules(
        global_code=("-c", "--config-env", "--exec-path"),
        code=("--upload-pack", "--receive-pack", "--exec", "--ext-diff", "--textconv", "--extcmd",
              "--open-files-in-pager", "--template"),
        leaves=("--git-dir", "--work-tree", "--namespace", "--separate-git-dir", "--no-index", "--global",
                "--system"),
        subcommand_code={"rebase": ("-x",), "difftool": ("-x", "-t", "--tool"), "grep": ("-O",),
                         "clone": ("-u",), "fetch": ("-u",), "pull": ("-u",), "ls-remote": ("-u",), "push": ("-u",)},
        refused_subcommands=frozenset({"filter-branch", "bisect", "submodule", "difftool", "mergetool", "daemon",
                                       "instaweb", "web--browse", "credential", "credential-store",
                                       "credential-cache", "send-email", "imap-send", "shell", "upload-pack",
                                       "receive-pack", "upload-archive", "http-backend", "remote-ext", "p4", "svn",
                                       "cvsimport", "cvsserver", "archimport", "quiltimport"}),
        value_options=("-C",)),
    "python3": ProgramRules(code=("-c",), runs_code=True, options_end_at_operand=True,
                            value_options=("-m", "-W", "-X"), bundles=True, note=ARBITRARY_CODE),
    "sh": _SHELL, "bash": _SHELL, "dash": _SHELL, "zsh": _SHELL,
    "node": ProgramRules(code=("-e", "--eval", "-p", "--print", "-r", "--require", "--import", "--loader",
                               "--experimental-loader"), runs_code=True, options_end_at_operand=True,
                         note=ARBITRARY_CODE),
    "perl": ProgramRules(code=("-e", "-E"), runs_code=True, options_end_at_operand=True, note=ARBITRARY_CODE),
    "ruby": ProgramRules(code=("-e",), runs_code=True, options_end_at_operand=True, note=ARBITRARY_CODE),
    "npx": ProgramRules(runs_code=True, note=ARBITRARY_CODE),
    "pytest": ProgramRules(code=("-p", "-o", "--override-ini", "--pdbcls"), runs_code=True,
                           note="runs the workspace's tests and conftest.py"),
    "npm": ProgramRules(code=("-c", "--call", "--script-shell", "--node-options"), leaves=("-g", "--global"),
                        refused_subcommands=frozenset({"exec", "x", "explore", "edit"}),
                        note="runs the scripts of the workspace's package.json"),
    "make": ProgramRules(code=("--eval", "-E"), value_options=("-C", "-f", "-I", "-j", "-o", "-W"), runs_code=True,
                         note="runs the recipes of the workspace's Makefile"),
    "find": ProgramRules(code=("-exec", "-execdir", "-ok", "-okdir")),
    "env": ProgramRules(code=("-S", "--split-string"), runs_program=True, value_options=("-u", "-C")),
    "xargs": ProgramRules(code=("-a", "--arg-file"), runs_program=True,
                          value_options=("-d", "-E", "-I", "-L", "-n", "-P", "-s")),
    "sed": ProgramRules(code=("-f", "--file"), note="runs in GNU sed's --sandbox mode (no `e`, `r` or `w`)"),
    "awk": ProgramRules(code=("-f", "--file", "-E", "--exec", "-l", "--load"), value_options=("-F", "-v")),
    "tar": ProgramRules(code=("--checkpoint-action", "--to-command", "-I", "--use-compress-program", "--rsh-command",
                              "-F", "--info-script", "--new-volume-script", "--rmt-command"), bundles=True),
    "ssh": ProgramRules(code=("-o", "-F", "-J", "-L", "-R", "-D", "-W", "-w", "-S", "-M", "-I", "-P"),
                        note="runs commands on another host"),
}
ALIASES = {"python": "python3", "mawk": "awk", "gawk": "awk", "nawk": "awk", "nodejs": "node"}
VERSIONED = re.compile(r"^(python)3?(?:\.\d+)*$")


def program_name(command: str) -> str:
    """The name `PROGRAMS` knows a command by: its file name, without a Python version."""
    name = command.rsplit("/", 1)[-1]
    if VERSIONED.match(name):
        return "python3"
    return ALIASES.get(name, name)


def rules_of(command: str) -> ProgramRules | None:
    """The rules of the program `command` names, or None for a program DWF has no rules for."""
    return PROGRAMS.get(program_name(command))


def matches_option(argument: str, option: str, bundles: bool = False) -> bool:
    """Whether `argument` is `option`, `option` with an attached value, or (for a one-letter
    option of a program that `bundles`) a bundle of one-letter flags containing it."""
    if argument == option:
        return True
    if option.startswith("--"):
        return argument.startswith(option + "=")
    if option.startswith("-") and len(option) == 2 and argument.startswith("-") and not argument.startswith("--"):
        if argument.startswith(option):
            return True  # `-csh`: the value attached
        return bundles and argument[1:].isalpha() and option[1] in argument[1:]
    return False


__all__ = ["ALIASES", "ARBITRARY_CODE", "PROGRAMS", "ProgramRules", "VERSIONED", "matches_option", "program_name",
           "rules_of"]
