"""This module defines the abstract values of the data-flow analysis (`compiler.plan.dataflow`):
sets of labels, and the operations that move labels through expressions.

A label is the tuple `(source, pos, access, exact)`:

- `source` names what put it there: a step site (`ask#3`, `read#1`, `run#2`), an actor site
  (`actor#1`, on the handle `agent()` returns), a function (`fn:<key>`, on a function or
  lambda value) or a parameter (`p:<key>:<index>`, while a helper's body is analysed).
- `pos` says where in the value the labelled data sits: `()` the whole value, `("path",)` the
  `"path"` field of a dict literal, `(1,)` the second element of a tuple, `(ANY,)` some element
  of a collection. `ANY` is also the key of every computed index.
- `access` exists for parameter labels only: the part of the argument it stands for
  (`d["a"]` inside `def f(d)` is parameter `d` with access `("a",)`), so a helper that reads
  one field of its argument passes on only that field's producers.
- `exact` is cleared by every widening: a computed index or iteration that picks a specific
  position among several, a slice or a concatenation that loses positions, a path cut at
  `PATH_CAP` elements.

Values are frozensets of labels; every operation returns a new frozenset and never removes a
label that can flow, so the analysis built on them only grows and reaches a fixpoint.
"""

from __future__ import annotations

from typing import Iterable

ANY = "*"
PATH_CAP = 3

Label = tuple  # (source: str, pos: tuple, access: tuple, exact: bool)
Value = frozenset
EMPTY: frozenset = frozenset()

# ---------------------------------------------------------------- value operations


def is_step(source: str) -> bool:
    return source.startswith(("ask#", "read#", "run#", "workflow#"))


def is_param(source: str) -> bool:
    return source.startswith("p:")


def collapse(value: Value) -> Value:
    """The value consumed whole: every label, positions dropped (an f-string, `len(x)`, ...)."""
    if not value:
        return value
    return frozenset((s, (), a, e) for s, _, a, e in value if not s.startswith("fn:"))


def select(value: Value, key) -> Value:
    """The part of `value` at `key` (a constant dict key or index, `.attr`, or `ANY`)."""
    out = set()
    for label in value:
        source, pos, access, exact = label
        if not pos:
            if is_param(source):
                if len(access) < PATH_CAP:
                    out.add((source, (), access + (key,), exact))
                else:
                    out.add((source, (), access, False))
            else:
                out.add(label)
        elif pos[0] == key or pos[0] == ANY:
            out.add((source, pos[1:], access, exact))
        elif key == ANY:
            out.add((source, pos[1:], access, False))
    return frozenset(out)


def select_path(value: Value, path: Iterable) -> Value:
    for key in path:
        value = select(value, key)
    return value


def prefix(key, value: Value) -> Value:
    """`value` placed at `key` of a new structure."""
    out = set()
    for source, pos, access, exact in value:
        if len(pos) < PATH_CAP:
            out.add((source, (key,) + pos, access, exact))
        else:
            out.add((source, (key,) + pos[:PATH_CAP - 1], access, False))
    return frozenset(out)


def prefix_path(path: tuple, value: Value) -> Value:
    for key in reversed(path):
        value = prefix(key, value)
    return value


def widen_positions(value: Value) -> Value:
    """Positions lost (list concatenation, slices): specific indexes become `ANY`, inexact."""
    if not any(pos and isinstance(pos[0], int) for _, pos, _, _ in value):
        return value
    return frozenset((s, (ANY,) + p[1:], a, False) if p and isinstance(p[0], int) else (s, p, a, e)
                     for s, p, a, e in value)


def union(values: Iterable[Value]) -> Value:
    out: set = set()
    for value in values:
        out.update(value)
    return frozenset(out)


# ---------------------------------------------------------------- transfer of library calls
#
# `callback(callee, arguments, tag)` applies a function value the script passed in (a `key=`
# or `map` function) and returns its result; `mutate(path, value)` adds `value` at `path` of
# the receiver's variable (a weak update); `key` is the constant key of the first argument,
# or ANY.


def builtin_call(name: str, args: list, starred: list, keywords: dict, everything: Value, callback) -> Value:
    """The result of a call of the builtin `name`; `everything` is all arguments, collapsed."""
    first = args[0] if args else EMPTY
    if name in ("list", "tuple", "set", "dict"):
        extra = union(prefix(k, v) for k, v in keywords.items() if k is not None)
        return (first if args and not starred[0] else prefix(ANY, select(first, ANY))) | extra
    if name in ("sorted", "reversed"):
        callback(keywords.get("key", EMPTY), [select(first, ANY)], "key")
        return prefix(ANY, select(first, ANY))
    if name == "enumerate":
        return prefix(ANY, prefix(1, select(first, ANY)))
    if name == "zip":
        return union(prefix(ANY, prefix(i, select(v, ANY))) for i, v in enumerate(args))
    if name == "range":
        return prefix(ANY, everything)
    if name in ("map", "filter") and args:
        result = callback(first, [select(v, ANY) for v in args[1:]], "map")
        if name == "filter":
            return args[1] if len(args) > 1 else EMPTY
        return prefix(ANY, result)
    if name in ("min", "max") and "key" in keywords:
        callback(keywords["key"], [select(first, ANY)], "key")
    return everything


def method_call(attr: str, receiver: Value, args: list, keywords: dict, everything: Value, key,
                mutate, callback) -> Value:
    """The result of `receiver.attr(...)` for the methods of str, list, dict and set."""
    first = args[0] if args else EMPTY
    if attr == "get":
        return select(receiver, key) | (args[1] if len(args) > 1 else EMPTY)
    if attr in ("items", "values", "keys"):
        element = select(receiver, ANY)
        return prefix(ANY, prefix(0, element) | prefix(1, element)) if attr == "items" else prefix(ANY, element)
    if attr in ("append", "add", "insert", "extend", "update"):
        if attr in ("append", "add"):
            mutate((ANY,), first)
        elif attr == "insert":
            mutate((ANY,), args[1] if len(args) > 1 else EMPTY)
        elif attr == "extend":
            mutate((ANY,), select(first, ANY))
        else:
            mutate((), first | union(prefix(k, v) for k, v in keywords.items() if k))
        return EMPTY
    if attr == "setdefault":
        default = args[1] if len(args) > 1 else EMPTY
        mutate((key,), default | (collapse(first) if key == ANY else EMPTY))
        return select(receiver, key) | default
    if attr == "pop":
        return select(receiver, key if args else ANY)
    if attr == "copy":
        return receiver
    if attr in ("remove", "clear", "sort", "reverse", "discard"):
        if attr == "sort" and "key" in keywords:
            callback(keywords["key"], [select(receiver, ANY)], "key")
        return EMPTY
    if attr == "join":
        return collapse(receiver) | collapse(first)
    return collapse(receiver) | everything


def gather_result(args: list, starred: list) -> Value:
    """`gather(a, b, *rest)`: positions for the plain arguments, ANY from the first `*` on."""
    values, spread = [], False
    for index, (value, is_star) in enumerate(zip(args, starred)):
        spread = spread or is_star
        values.append(prefix(ANY, select(value, ANY)) if is_star else prefix(ANY if spread else index, value))
    return union(values)


# ---------------------------------------------------------------- parameters and summaries


def bind_arguments(params, args: list, starred: list, keywords: dict) -> list:
    """The value each parameter (`ir.Param`) of a function receives from one call."""
    bound = [EMPTY] * len(params)
    plain = [i for i, p in enumerate(params) if p.kind in ("posonly", "plain")]  # filled by position
    star = next((i for i, p in enumerate(params) if p.kind == "star"), None)
    double = next((i for i, p in enumerate(params) if p.kind == "double_star"), None)
    position, spread = 0, False
    for value, is_star in zip(args, starred):
        if is_star or spread:  # after a `*` argument, any parameter may receive any element
            spread = True
            element = select(value, ANY) if is_star else value
            for i in plain[position:]:
                bound[i] = bound[i] | element
            if star is not None:
                bound[star] = bound[star] | prefix(ANY, element)
            continue
        if position < len(plain):
            bound[plain[position]] = bound[plain[position]] | value
        elif star is not None:
            bound[star] = bound[star] | prefix(position - len(plain), value)
        position += 1
    names = {p.name: i for i, p in enumerate(params) if p.kind in ("plain", "kwonly")}  # filled by keyword
    for name, value in keywords.items():
        if name is None:  # **mapping: any parameter may receive any part
            for i in names.values():
                bound[i] = bound[i] | select(value, ANY)
            if double is not None:
                bound[double] = bound[double] | value
        elif name in names:
            bound[names[name]] = bound[names[name]] | value
        elif double is not None:
            bound[double] = bound[double] | prefix(name, value)
    return bound


def _replace(label: tuple, argument: Value, out: set) -> None:
    """Put what `argument` holds in place of the parameter `label` (its access path selects
    the part, its position places it)."""
    _, pos, access, exact = label
    for s, p, a, e in select_path(argument, access):
        merged = pos + p
        if len(merged) > PATH_CAP:
            out.add((s, merged[:PATH_CAP], a, False))
        else:
            out.add((s, merged, a, exact and e))


def substitute(value: Value, labels: tuple, bound: list) -> Value:
    """A summary (a function's return value) at one call: its parameter labels (`labels`)
    replaced by that call's arguments (`bound`)."""
    if not value:
        return value
    index = {label: i for i, label in enumerate(labels)}
    out: set = set()
    for label in value:
        i = index.get(label[0])
        if i is None:
            out.add(label)
        else:
            _replace(label, bound[i], out)
    return frozenset(out)


def resolve_parameters(value: Value, params: dict) -> Value:
    """`value` with every parameter label replaced by what all calls pass (`params`); labels
    of parameters nothing passes disappear."""
    if not any(is_param(s) for s, _, _, _ in value):
        return value
    out: set = set()
    for label in value:
        if is_param(label[0]):
            _replace(label, params.get(label[0], EMPTY), out)
        else:
            out.add(label)
    return frozenset(l for l in out if not is_param(l[0]))
