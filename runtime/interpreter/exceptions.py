"""This module defines how a missing attribute fails, by comparing a DWF value with the object
CPython would hold in its place (its *counterpart*: the str itself, `set()` for a DWF set,
`len` for a builtin, a `ValueError()` for a caught `ValueError`, the real `json` module, ...).

- An attribute the counterpart does not have either (`None.get`, `"s".foo`, `[].push`, a
  misspelt record field, `e.foo` on an exception) is a script bug that CPython reports as a
  catchable `AttributeError`; DWF raises the same exception with CPython's exact message
  (`'NoneType' object has no attribute 'get'`). Records have no counterpart, so their message
  names the DWF record type and lists its fields.
- An attribute the counterpart has but DWF does not offer (`"s".encode`, `e.with_traceback`,
  `json.decoder`, `ValueError.mro`) is not the script's mistake but a gap of the language: a
  script that caught it would take a path CPython never takes, so it stays a fatal misuse that
  names the attribute.

The counterparts are a few fixed sample objects made here and never handed to scripts; only
`hasattr` is ever called on them, with a name that does not start with `__`.
"""

from __future__ import annotations

import builtins as python_builtins
import importlib
import json
import math
import re
from typing import Any

from dwf.runtime.values.errors import SCRIPT_EXCEPTION_PARENTS, DwfError, FatalError, ScriptError
from dwf.runtime.values.records import Record
from dwf.runtime.values.objects import (BoundMethod, BuiltinFunction, DwfIterator, ExceptionType, Module, ScriptObject, ReadOnlyMapping, ScriptFunction, type_name)
from dwf.runtime.values.sets import OrderedSet

_MODULES = {"json": json, "math": math, "re": re}
# What owns a dotted builtin's name (`re.Pattern.search`): a module, or a sample of a type.
_OWNERS = {**_MODULES, "re.Pattern": re.compile(""), "re.Match": re.match("", "")}


def _sample_function():
    pass


_ITERATOR_SAMPLES = {
    "map": map(str, ()), "filter": filter(None, ()), "zip": zip(), "enumerate": enumerate(()),
    "reversed": reversed(()), "generator": (x for x in ()),
}
_NO_COUNTERPART = object()


def _python_class(lineage: tuple[str, ...]) -> type:
    """The nearest CPython class of an exception lineage (a user class: its builtin base)."""
    for name in lineage:
        if name == "JSONDecodeError":
            return json.JSONDecodeError
        found = getattr(python_builtins, name, None)
        if isinstance(found, type) and issubclass(found, BaseException):
            return found
    return Exception


def _counterpart(value: Any) -> Any:
    kind = type(value)
    if value is None or kind in (bool, int, float, str, list, tuple, dict, range):
        return value
    if kind is ReadOnlyMapping:
        return {}
    if kind is OrderedSet:
        return set()
    if kind is ScriptFunction:
        return _sample_function
    if kind is BoundMethod:
        return len
    if kind is BuiltinFunction:
        owner, _, member = value.name.rpartition(".")
        return getattr(_OWNERS.get(owner, len) if owner else python_builtins, member, len)
    if kind is DwfIterator:
        return _ITERATOR_SAMPLES.get(value.name, _ITERATOR_SAMPLES["map"])
    if isinstance(value, ScriptObject):
        return value.python_counterpart
    if kind is Module:  # the standard modules are imported only on this error path
        try:
            return _MODULES.get(value.name) or importlib.import_module(value.name)
        except ImportError:
            return _NO_COUNTERPART
    if kind is ExceptionType:
        return _python_class(value.lineage)
    if isinstance(value, ScriptError):
        cls = _python_class(value.lineage)
        return json.JSONDecodeError("", "", 0) if cls is json.JSONDecodeError else cls()
    return _NO_COUNTERPART


def missing_attribute(value: Any, attr: str) -> DwfError:
    """The error for reading an attribute DWF does not offer on `value` (see the module
    docstring): a catchable `AttributeError`, or a fatal misuse for a gap of the language."""
    counterpart = _counterpart(value)
    if counterpart is not _NO_COUNTERPART and hasattr(counterpart, attr):
        if isinstance(value, Module):
            return FatalError("Misuse", f"module `{value.name}` has no allowed member `{attr}`")
        return FatalError("Misuse", f"`{type_name(value)}` has no allowed attribute `{attr}`")
    if isinstance(value, Record):
        message = (f"'{value.type_name}' object has no attribute '{attr}'; its fields are "
                   f"{', '.join(value.fields) or 'none'}")
    elif isinstance(value, ExceptionType):
        message = f"type object '{value.name}' has no attribute '{attr}'"
    elif isinstance(value, BuiltinFunction) and type_name(value) == "type":
        message = f"type object '{value.name}' has no attribute '{attr}'"
    elif isinstance(value, Module):
        message = f"module '{value.name}' has no attribute '{attr}'"
    else:
        message = f"'{type_name(value)}' object has no attribute '{attr}'"
    return ScriptError("AttributeError", message, attributes={"name": attr})


def is_exception_class_name(name: str) -> bool:
    return name in SCRIPT_EXCEPTION_PARENTS


# ---------------------------------------------------------------- interpreter-raised errors


def json_decode_error(message: str, document: str, position: int) -> ScriptError:
    """`json.JSONDecodeError(msg, doc, pos)` as CPython builds it: `str(e)` is the message with
    the line, column and character position, and `e.msg`, `e.doc`, `e.pos`, `e.lineno`,
    `e.colno` are readable."""
    lineno = document.count("\n", 0, position) + 1
    colno = position - document.rfind("\n", 0, position)
    text = f"{message}: line {lineno} column {colno} (char {position})"
    return ScriptError("JSONDecodeError", text, attributes={"msg": message, "doc": document, "pos": position,
                                                             "lineno": lineno, "colno": colno})


def unbound_local(name: str) -> ScriptError:
    return ScriptError("UnboundLocalError", f"cannot access local variable '{name}' where it is not associated with a value",
                       attributes={"name": name})


def undefined_global(name: str) -> ScriptError:
    return ScriptError("NameError", f"name '{name}' is not defined", attributes={"name": name})


def unbound_free(name: str) -> ScriptError:
    return ScriptError("NameError", f"cannot access free variable '{name}' where it is not associated with a value "
                                    "in enclosing scope", attributes={"name": name})


