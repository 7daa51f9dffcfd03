"""This module defines the small pure standard modules of DWF scripts — `functools.reduce`,
`statistics` and the `string` constants — and `standard_modules()`, which gathers every
standard module (these, `collections`, `itertools`, `textwrap`, `difflib`) for
`builtins.make_modules`.

`statistics` runs CPython's own implementation on the materialized data, so results are
exactly CPython's floats and its `StatisticsError` messages; the data is first checked to be
plain values (numbers, strings, tuples, ...) so CPython's code never meets an interpreter object,
and charged for the Python-level work it does per item (exact fractions, sorting)."""

from __future__ import annotations

import statistics
import string
from typing import Any

from dwf.runtime.interpreter.collections_module import collections_members
from dwf.runtime.values.errors import ScriptError
from dwf.runtime.interpreter.itertools_module import itertools_members
from dwf.runtime.interpreter.module_support import bind, callback, materialize
from dwf.runtime.interpreter.sandbox import charge, charge_walk, check_string, iterable, limit_error
from dwf.runtime.interpreter.text_modules import difflib_members, textwrap_members
from dwf.runtime.values.objects import BuiltinFunction, DwfIterator, ExceptionType, type_name

# ---------------------------------------------------------------- functools


def f_reduce(interp, args, kwargs):
    if kwargs:
        raise ScriptError("TypeError", "reduce() takes no keyword arguments")
    if len(args) < 2:
        raise ScriptError("TypeError", f"reduce expected at least 2 arguments, got {len(args)}")
    if len(args) > 3:
        raise ScriptError("TypeError", f"reduce expected at most 3 arguments, got {len(args)}")
    function, source = args[0], args[1]
    try:
        items = iter(iterable(source))
    except ScriptError:
        raise ScriptError("TypeError", "reduce() arg 2 must support iteration") from None
    call = callback(interp, function)
    if len(args) == 3:
        value = args[2]
    else:
        try:
            value = next(items)
        except StopIteration:
            raise ScriptError("TypeError", "reduce() of empty iterable with no initial value") from None
    limits = interp.limits
    sized = type(source) is not DwfIterator  # a lazy source charges its own items
    for item in items:
        if sized:
            charge(limits, 1)
        value = call(value, item)
    return value


# ---------------------------------------------------------------- statistics

# Types CPython's statistics code may meet: it only compares, hashes and does arithmetic on them.
_PLAIN = frozenset({int, float, bool, str, tuple, list, dict, type(None)})
_NUMBERS = frozenset({int, float, bool})


def _data(interp, value: Any, name: str) -> list:
    data = materialize(interp, value)
    for item in data:
        if type(item) not in _PLAIN:
            raise ScriptError("TypeError", f"can't convert type '{type_name(item)}' to numerator/denominator")
    # exact fractions and sorting visit each item in Python: about one step each
    charge(interp.limits, len(data))
    charge_walk(interp.limits, data)
    return data


def _statistic(name: str, params: tuple = ("data",), keyword_only: tuple = (), defaults: dict | None = None):
    python = getattr(statistics, name)

    def impl(interp, args, kwargs):
        values = bind(name, params, args, kwargs, required=1, keyword_only=keyword_only, defaults=defaults)
        values["data"] = _data(interp, values["data"], name)
        if name == "quantiles":
            n = values["n"]
            if type(n) is int and n > interp.limits.items:
                raise limit_error("items", interp.limits)
        if "xbar" in values and values["xbar"] is None:
            del values["xbar"]
        if "mu" in values and values["mu"] is None:
            del values["mu"]
        if "weights" in values:
            if values["weights"] is None:
                del values["weights"]
            else:
                values["weights"] = _data(interp, values["weights"], name)
        data = values.pop("data")
        try:
            return python(data, **values)
        except statistics.StatisticsError as error:
            raise ScriptError("StatisticsError", str(error), args=(str(error),)) from None
    return impl


def statistics_members() -> dict[str, Any]:
    members: dict[str, Any] = {
        "mean": _statistic("mean"),
        "fmean": _statistic("fmean", ("data", "weights")),
        "median": _statistic("median"), "median_low": _statistic("median_low"),
        "median_high": _statistic("median_high"), "mode": _statistic("mode"),
        "multimode": _statistic("multimode"),
        "stdev": _statistic("stdev", ("data", "xbar")), "variance": _statistic("variance", ("data", "xbar")),
        "pstdev": _statistic("pstdev", ("data", "mu")), "pvariance": _statistic("pvariance", ("data", "mu")),
        "quantiles": _statistic("quantiles", keyword_only=("n", "method"), defaults={"n": 4, "method": "exclusive"}),
    }
    result: dict[str, Any] = {name: BuiltinFunction(name, impl) for name, impl in members.items()}
    result["StatisticsError"] = ExceptionType("StatisticsError")
    return result


# ---------------------------------------------------------------- string


def s_capwords(interp, args, kwargs):
    values = bind("capwords", ("s", "sep"), args, kwargs, required=1)
    text, sep = values["s"], values["sep"]
    if not isinstance(text, str) or not (sep is None or isinstance(sep, str)):
        raise ScriptError("TypeError", "capwords() arguments must be str")
    limits = interp.limits
    charge(limits, len(text) // 64)
    words = text.split(sep, limits.items)
    if len(words) > limits.items:
        raise limit_error("items", limits)
    return check_string((sep or " ").join(map(str.capitalize, words)), limits)


def string_members() -> dict[str, Any]:
    members: dict[str, Any] = {name: getattr(string, name) for name in (
        "ascii_letters", "ascii_lowercase", "ascii_uppercase", "digits", "hexdigits", "octdigits",
        "punctuation", "whitespace", "printable")}
    members["capwords"] = BuiltinFunction("capwords", s_capwords)
    return members


def standard_modules() -> dict[str, dict[str, Any]]:
    """The members of every standard module, made afresh for each run (a defaultdict factory's
    nesting is counted per run)."""
    return {
        "collections": collections_members(),
        "itertools": itertools_members(),
        "functools": {"reduce": BuiltinFunction("reduce", f_reduce)},
        "statistics": statistics_members(),
        "string": string_members(),
        "textwrap": textwrap_members(),
        "difflib": difflib_members(),
    }
