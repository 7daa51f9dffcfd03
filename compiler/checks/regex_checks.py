"""This module defines the check-time checks of `re` calls, run on each lowered call:

- DWF223: a pattern written as a string literal (with flags the compiler can read) must
  compile, and a replacement template literal of `re.sub`/`re.subn` must parse against it;
  otherwise the call would raise `re.error` when the run reaches it.
- DWF224: a flag (`re.I`, `re.M | re.S`, ...) must not be passed positionally where CPython
  takes a count or a position: `re.sub(p, r, s, re.I)` is `count=2`, `re.split(p, s, re.M)`
  is `maxsplit=8`, `pattern.search(s, re.I)` is `pos=2`. CPython runs these without a word and
  gives a wrong result.

The checks compile patterns with the compiler's own `re`: patterns are literals of the source,
so their size is the source's.
"""

from __future__ import annotations

import re
import warnings
from typing import Callable

from dwf.grammar import builtins as B

from dwf.compiler import ir
from dwf.compiler.rules import names as N

FLAG_VALUES = {name: int(getattr(re, name)) for name in ("I", "M", "S", "X", "A", "U", "IGNORECASE", "MULTILINE",
                                                        "DOTALL", "VERBOSE", "ASCII", "UNICODE", "NOFLAG")}
ALLOWED_FLAGS = re.I | re.M | re.S | re.X | re.A | re.U
# Module functions: the position of `flags`, and the positions of integer parameters before it.
MODULE_FLAGS = {"compile": 1, "match": 2, "search": 2, "fullmatch": 2, "findall": 2, "finditer": 2, "split": 3,
                "sub": 4, "subn": 4}
MODULE_COUNTS = {"sub": {3: "count"}, "subn": {3: "count"}, "split": {2: "maxsplit"}}
# Pattern methods (any receiver but the module): their integer parameters by position.
SPAN_PARAMETERS = {1: "pos", 2: "endpos"}
METHOD_COUNTS = {"match": SPAN_PARAMETERS, "search": SPAN_PARAMETERS, "fullmatch": SPAN_PARAMETERS,
                 "findall": SPAN_PARAMETERS, "finditer": SPAN_PARAMETERS, "split": {1: "maxsplit"}, "sub": {2: "count"},
                 "subn": {2: "count"}}


def check_regex_call(call: ir.Call, module_of: Callable[[str], str], report: Callable) -> None:
    """Report DWF223/DWF224 findings for `call` (any call; only `re` calls and pattern
    methods are looked at). `module_of(name)` is the module a module-scope name is bound to,
    `report(rule, span, **fields)` reports a finding."""
    lowering = _Context(module_of, report)
    func = call.func
    if not isinstance(func, ir.Attribute) or any(isinstance(a, ir.Starred) for a in call.args):
        return
    if _is_re_module(lowering, func.value):
        counts = MODULE_COUNTS.get(func.attr, {})
        if func.attr in MODULE_FLAGS:
            _check_literals(lowering, call, func.attr)
        hint = f"pass flags by keyword: `re.{func.attr}(..., flags={{flag}})`"
    elif func.attr in METHOD_COUNTS:
        counts = METHOD_COUNTS[func.attr]
        hint = "a compiled pattern's methods take no flags: give them to `re.compile(pattern, {flag})`"
    else:
        return
    for position, param in counts.items():
        if position < len(call.args):
            flag = _flag_text(lowering, call.args[position])
            if flag is not None:
                lowering.report(N.RegexFlagAsCount, call.args[position].span, flag=flag, param=param,
                                hint=hint.format(flag=flag))


class _Context:
    __slots__ = ("module_of", "report")

    def __init__(self, module_of: Callable[[str], str], report: Callable):
        self.module_of, self.report = module_of, report


# The value kind (a key of grammar/builtins.py METHODS) that a call of these `re` functions gives.
def _is_re_module(lowering, value: ir.Expr) -> bool:
    return isinstance(value, ir.Name) and value.scope == ir.MODULE and lowering.module_of(value.id) == "re"


def _flag_text(lowering, value: ir.Expr) -> str | None:
    """`re.X` or `re.X | re.Y ...` as written (None when `value` is not made of flags)."""
    if isinstance(value, ir.Attribute) and value.attr in FLAG_VALUES and value.attr != "NOFLAG" \
            and _is_re_module(lowering, value.value):
        return f"re.{value.attr}"
    if isinstance(value, ir.BinOp) and value.op == "|":
        left, right = _flag_text(lowering, value.left), _flag_text(lowering, value.right)
        if left is not None and right is not None:
            return f"{left} | {right}"
    return None


def _flag_value(lowering, value: ir.Expr) -> int | None:
    if isinstance(value, ir.Const) and type(value.value) is int:
        return value.value
    if isinstance(value, ir.Attribute) and value.attr in FLAG_VALUES and _is_re_module(lowering, value.value):
        return FLAG_VALUES[value.attr]
    if isinstance(value, ir.BinOp) and value.op == "|":
        left, right = _flag_value(lowering, value.left), _flag_value(lowering, value.right)
        if left is not None and right is not None:
            return left | right
    return None


def _argument(call: ir.Call, position: int, name: str) -> ir.Expr | None:
    if position < len(call.args):
        return call.args[position]
    return next((k.value for k in call.keywords if k.name == name), None)


def _check_literals(lowering, call: ir.Call, function: str) -> None:
    pattern = _argument(call, 0, "pattern")
    if not isinstance(pattern, ir.Const) or type(pattern.value) is not str:
        return
    flags_given = _argument(call, MODULE_FLAGS[function], "flags")
    flags = 0 if flags_given is None else _flag_value(lowering, flags_given)
    if flags is None or flags & ~ALLOWED_FLAGS or any(k.name is None for k in call.keywords):
        return  # flags unknown here (or refused at run time with their own message)
    try:
        with warnings.catch_warnings():  # FutureWarnings ("possible nested set") are not findings
            warnings.simplefilter("ignore")
            compiled = re.compile(pattern.value, flags)
    except (re.error, OverflowError) as error:
        lowering.report(N.InvalidRegex, pattern.span, what="regular expression", error=str(error),
                        hint="the call would raise `re.error` when the run reaches it; a character that is meant "
                             "literally is escaped with `\\`, or with `re.escape(text)` for text from data")
        return
    except (RecursionError, ValueError):
        return
    template = _argument(call, 1, "repl") if function in ("sub", "subn") else None
    if isinstance(template, ir.Const) and type(template.value) is str:
        try:
            compiled.sub(template.value, "")  # parses the whole template, whether or not anything matches
        except (re.error, IndexError) as error:
            groups = ", ".join([str(i) for i in range(1, compiled.groups + 1)] + list(compiled.groupindex))
            lowering.report(N.InvalidRegex, template.span, what="replacement template", error=str(error),
                            hint=f"the pattern's groups are: {groups}" if groups else "the pattern has no groups; a "
                            "backslash that is meant literally is written `\\\\`")


assert set(MODULE_FLAGS) <= set(B.MODULES["re"]) and set(METHOD_COUNTS) <= set(B.PATTERN_METHODS)
