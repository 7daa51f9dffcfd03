"""This module defines what the approval screen shows of the programs a script starts, and what
a run trusts of their arguments: per program, the literal leading arguments of each `world.run`
call the compiler can see (`command_uses`), and the plan's `programs` entries built from them
(`program_entries`), each marked when the program runs arbitrary code.

Leading arguments. `world.run("git", ["diff", "--stat", base])` shows as `git diff --stat …`: the
string literals (and top-level constants bound once to a list of strings) up to the first
computed element; `…` says computed arguments follow. A call whose whole argument list is
literal shows complete. The run trusts exactly these prefixes and checks every argument after
them (`runtime/ports/argument_rules.py`), so what the person saw is what is trusted.

Marks. A program is marked "runs arbitrary code" when it is an interpreter (`python3`, `sh`,
`node`) or when a literal leading argument is one of its options that execute code
(`find . -exec …`, `git -c …`); programs that run the workspace's own code (`pytest`, `make`,
`npm`) carry their note from `grammar/programs.py`.
"""

from __future__ import annotations

from dataclasses import dataclass

from dwf.grammar.programs import ARBITRARY_CODE, matches_option, rules_of

from dwf.compiler import ir
from dwf.compiler.plan.labels import Labeller
from dwf.compiler.plan.statics import iter_nodes, module_constants

ELLIPSIS = "…"


@dataclass(frozen=True, slots=True)
class CommandUse:
    """One `world.run` call as the compiler sees it: its literal leading arguments, and whether
    they are all of its arguments."""

    prefix: tuple[str, ...]
    complete: bool

    def text(self, command: str) -> str:
        """The call as the screen shows it: `git diff --stat …`."""
        return " ".join((command, *self.prefix, *(() if self.complete else (ELLIPSIS,))))


def command_uses(programs: list[ir.Program] | tuple[ir.Program, ...]) -> dict[str, list[CommandUse]]:
    """Per literal command of `programs` (a script and the saved workflows it calls), its calls
    in source order, each once."""
    uses: dict[str, list[CommandUse]] = {}
    for program in programs:
        constants = module_constants(program)
        for node in iter_nodes(program.body):
            if type(node) is not ir.FacadeCall or node.op != "world.run":
                continue
            cmd = Labeller.argument(node, 0, "cmd")
            if type(cmd) is not ir.Const or not isinstance(cmd.value, str):
                continue  # the compiler refused it (DWF: command not literal)
            args = Labeller.argument(node, 1, "args")
            use = CommandUse(*_leading(args, constants)) if args is not None else CommandUse((), True)
            if use not in uses.setdefault(cmd.value, []):
                uses[cmd.value].append(use)
    return uses


def approved_arguments(programs: list[ir.Program] | tuple[ir.Program, ...]) -> dict[str, tuple[tuple[str, ...], ...]]:
    """Per command, the literal leading arguments a run trusts (`command_uses`' prefixes)."""
    return {cmd: tuple(use.prefix for use in uses) for cmd, uses in command_uses(programs).items()}


def _leading(node, constants: dict) -> tuple[tuple[str, ...], bool]:
    if type(node) is ir.Name and node.scope == ir.GLOBAL and isinstance(constants.get(node.id), tuple):
        items = constants[node.id]
        if all(isinstance(i, str) for i in items):
            return tuple(items), True
        return (), False
    if type(node) in (ir.List, ir.Tuple):
        prefix: list[str] = []
        for element in node.elts:
            if type(element) is not ir.Const or not isinstance(element.value, str):
                return tuple(prefix), False
            prefix.append(element.value)
        return tuple(prefix), True
    if type(node) is ir.BinOp and node.op == "+":
        left, complete = _leading(node.left, constants)
        if not complete:
            return left, False
        right, complete = _leading(node.right, constants)
        return left + right, complete
    return (), False


def program_entries(uses: dict[str, list[CommandUse]]) -> list[dict]:
    """The plan's `programs`: per command (sorted), its calls as text and its mark (None, or
    what it runs: "runs arbitrary code", "runs the workspace's tests and conftest.py", ...)."""
    entries = []
    for command in sorted(uses):
        entries.append({"name": command, "uses": [use.text(command) for use in uses[command]],
                        "runs": _mark(command, uses[command])})
    return entries


def _mark(command: str, uses: list[CommandUse]) -> str | None:
    rules = rules_of(command)
    if rules is None:
        return None
    options = rules.code + rules.global_code + tuple(o for opts in rules.subcommand_code.values() for o in opts)
    for use in uses:
        for argument in use.prefix:
            if any(matches_option(argument, option, rules.bundles) for option in options):
                return f"{ARBITRARY_CODE} (`{argument}`)"
    return rules.note or None


__all__ = ["CommandUse", "ELLIPSIS", "approved_arguments", "command_uses", "program_entries"]
