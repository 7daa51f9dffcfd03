"""This module defines what the user is told about names, modules and attributes outside the
language: the diagnostic for a Python builtin DWF does not offer (`DWF201`), a module it does
not offer (`DWF204` when the module observes time, randomness or the environment, else
`DWF205`) and a name bound nowhere (`DWF206`), and the help for an attribute a value of a known
kind does not have (`DWF207`, `DWF213`, `DWF214`, from `compiler.checks.kind_checks`). Each carries the
replacement from the tables of `grammar.builtins` (`MISTAKEN_ATTRIBUTES` for attributes).

The functions return the rule and its fields; lowering reports them at the node. A typo hint
("did you mean") is only ever a name of the script, a facade name or an offered builtin close
enough to be a misspelling of it, never an unrelated builtin: every CPython builtin has its own
entry in `FORBIDDEN_BUILTINS` or `NOT_OFFERED_EXCEPTIONS`.
"""

from __future__ import annotations

import difflib
from typing import Iterable

from dwf.grammar import builtins as B
from dwf.grammar import facade as F

from dwf.compiler.checks import kinds as K
from dwf.compiler.checks.kinds import Kind
from dwf.compiler.rules import names as N

TYPO_CUTOFF = 0.8


def offered_modules() -> str:
    names = [f"`{m}`" for m in sorted(B.MODULES)] + ["`typing`", "`dwf`"]
    return ", ".join(names[:-1]) + f" and {names[-1]}"


def _specific(dotted: str) -> str | None:
    """The entry of `NOT_OFFERED_MODULES` for a dotted module name or its nearest parent."""
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        hint = B.NOT_OFFERED_MODULES.get(".".join(parts[:end]))
        if hint is not None:
            return hint
    return None


def module_problem(module: str) -> tuple[type, dict]:
    """The diagnostic for `import module` (or `from module import ...`) of a module DWF does
    not offer."""
    root = module.split(".")[0]
    if root in B.NONDETERMINISTIC_MODULES:
        why, hint = B.NONDETERMINISTIC_MODULES[root]
        return N.NondeterministicModule, {"module": module, "why": why, "hint": _specific(module) or hint}
    if root == "typing":
        return N.ImportNotAllowed, {"detail": "Import typing names with `from typing import ...`",
                                    "hint": f"write `from typing import {', '.join(B.TYPING_NAMES[:3])}, ...`"}
    hint = _specific(module)
    if hint is not None:
        return N.ImportNotAllowed, {"detail": f"DWF does not offer `{module}`", "hint": hint}
    return N.ImportNotAllowed, {"detail": f"DWF does not offer `{module}`",
                                "hint": f"DWF scripts can import {offered_modules()}: the compiler must prove the script deterministic"}


# The standard module that offers each distinctive member, for "add `from collections import
# Counter`" (names such as `count` or `digits` are more often a variable of the script).
MODULE_OF_MEMBER = {member: module for module in ("collections", "itertools", "functools", "statistics", "textwrap", "difflib")
                    for member in B.MODULES[module] if member not in ("count", "repeat", "cycle", "compress", "mode")}


def undefined_problem(name: str, script_names: Iterable[str]) -> tuple[type, dict]:
    """The diagnostic for a name that is bound nowhere (`script_names`: the names the script
    binds in the scopes visible here)."""
    hint = B.FORBIDDEN_BUILTINS.get(name) or B.NOT_OFFERED_EXCEPTIONS.get(name)
    if hint is not None:
        return N.ForbiddenBuiltin, {"name": name, "hint": hint}
    if name in B.NONDETERMINISTIC_MODULES:
        why, hint = B.NONDETERMINISTIC_MODULES[name]
        return N.NondeterministicModule, {"module": name, "why": why, "hint": hint}
    if name in B.NOT_OFFERED_MODULES:
        return N.ImportNotAllowed, {"detail": f"DWF does not offer `{name}`", "hint": B.NOT_OFFERED_MODULES[name]}
    if name in B.MODULES:
        return N.UndefinedName, {"name": name, "hint": f"add `import {name}` at the top of the script"}
    if name in B.TYPING_NAMES:
        return N.UndefinedName, {"name": name, "hint": f"add `from typing import {name}` at the top of the script"}
    if name in B.NOT_OFFERED_NAMES:
        module, hint = B.NOT_OFFERED_NAMES[name]
        return N.UndefinedName, {"name": name, "hint": f"`{name}` comes from `{module}`, which DWF does not offer: {hint}"}
    if name in MODULE_OF_MEMBER:
        return N.UndefinedName, {"name": name, "hint": f"add `from {MODULE_OF_MEMBER[name]} import {name}` at the top of the script"}
    candidates = sorted(set(script_names) | set(F.FACADE_NAMES) | set(B.BUILTINS))
    close = difflib.get_close_matches(name, candidates, n=1, cutoff=TYPO_CUTOFF)
    if close:
        return N.UndefinedName, {"name": name, "hint": f"did you mean `{close[0]}`?"}
    module = next((m for m, members in sorted(B.MODULES.items()) if name in members), None) if len(name) > 1 else None
    if module is not None:
        return N.UndefinedName, {"name": name, "hint": f"`{name}` is in `{module}`: add `import {module}` and write `{module}.{name}`"}
    return N.UndefinedName, {"name": name, "hint": "define it before use, or pass it in through `args`"}


# ---------------------------------------------------------------- attributes


def receiver_name(kind: Kind) -> str:
    """How `DWF207` names the receiver: its type (`str`, `RunResult`), or "JSON data"."""
    return "JSON data" if kind.name == "json" else kind.name


def attribute_hint(kind: Kind, attr: str, text: str) -> str:
    """The help for an attribute a value of `kind` (source text `text`) does not have: the
    name models mean by it, a close match, or what the value offers."""
    receiver = "dict" if kind.name == "json" else kind.name
    names = K.attribute_names(kind) or ()
    meant = B.MISTAKEN_ATTRIBUTES.get(receiver, {}).get(attr)
    if meant is not None:
        return f"did you mean `{meant}`?" if meant in names else meant.replace("{text}", text)
    close = difflib.get_close_matches(attr, names, n=1)
    if close:
        return f"did you mean `{close[0]}`?"
    if kind.name in F.RECORDS or kind.name == "Agent":
        return f"`{kind.name}` has: {', '.join(names)}"
    return f"`{receiver_name(kind)}` offers: {', '.join(names)}"


def subscript_hint(text: str, attr: str, kind: Kind) -> str:
    """The help for `text.attr` on JSON data: read it by key (a declared key, when the ask's
    result type names them)."""
    fields = kind.field_names()
    if fields and attr not in fields:
        close = difflib.get_close_matches(attr, fields, n=1)
        if close:
            return f"JSON data is read by key: did you mean `{text}[\"{close[0]}\"]`?"
        return f"JSON data is read by key; the declared keys are {', '.join(f'`{f}`' for f in fields)}"
    if kind.origin == "ask":
        return f"ask results are plain JSON data: use `{text}[\"{attr}\"]`"
    return f"read it by key: `{text}[\"{attr}\"]` (or `{text}.get(\"{attr}\")`)"


def record_subscript_hint(kind: Kind, key: str | None, text: str) -> str:
    """The help for `text[key]` on a record or an actor: the field to read as an attribute."""
    fields = F.RECORDS.get(kind.name, F.AGENT_ATTRIBUTES)
    if key is not None and key not in fields:
        key = B.MISTAKEN_ATTRIBUTES.get(kind.name, {}).get(key, key)
    if key in fields:
        return f"read its fields as attributes: `{text}.{key}`"
    return f"read its fields as attributes: {', '.join(f'`{text}.{f}`' for f in fields)}"


# ---------------------------------------------------------------- result keys and command arguments


def result_description(kind: Kind) -> str:
    """How `DWF215` names a closed dict: "a `Verdict` result", or "a typed ask result"."""
    if not kind.type_name:
        return "a typed ask result"
    return f"{'an' if kind.type_name[0] in 'AEIOUaeiou' else 'a'} `{kind.type_name}` result"


def result_key_hint(kind: Kind, key: str, method: str = "") -> str:
    """The help for a key a closed dict (a TypedDict result) does not declare: a close match,
    or the keys it has."""
    fields = kind.field_names()
    close = difflib.get_close_matches(key, fields, n=1)
    hint = f"did you mean `{close[0]}`?" if close else f"its keys are: {', '.join(fields)}"
    if method == "get":
        return f"{hint} (`.get(\"{key}\")` can only ever return its default)"
    return hint


def command_argument_hint(kind: Kind, text: str, literal: object = None) -> str:
    """The help for a `world.run` argument of `kind` (source text `text`, the constant
    `literal` when it is one) that is not a str."""
    if literal is not None and kind.name in ("int", "float"):
        return f"write it as a string: `\"{literal}\"`"
    if kind.name in ("int", "float", "bool"):
        return f"convert it: `str({text})`, or use an f-string"
    if kind.name in ("list", "tuple", "set", "iterable") and K.element(kind) == K.STR:
        return f"spread its items into the list: `*{text}`"
    if kind.name == "None":
        return "pass a string, or leave the argument out"
    return "pass a string built from it (an f-string, or `json.dumps(...)` for data)"
