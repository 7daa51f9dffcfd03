"""This module defines the `itertools` module of DWF scripts. Every function returns a lazy
iterator value (`DwfIterator`, named like CPython's type: `itertools.chain`, ...), never a
Python iterator a script could reach; CPython's own iterators do the work inside it, over
sources the sandbox has checked, so values, laziness and argument errors are CPython's.

Bounds. An iterator charges one step per item it produces, plus the size of each tuple it
builds. The combinatoric iterators copy their inputs first, so `product` checks the size of its
pools times `repeat`, and `permutations`/`combinations` an `r` larger than the pool (which
yields nothing) before C allocates anything for it; `combinations_with_replacement` and
`batched` keep each tuple within the item limit. Callbacks (`accumulate`'s function,
`groupby`'s key, `starmap`, `takewhile`, ...) run as script calls; `accumulate` without a
function adds with DWF's `+`, so its sums stay within the size limits."""

from __future__ import annotations

import itertools
from typing import Any

from dwf.runtime.interpreter.collection_values import NativeType
from dwf.runtime.values.errors import ScriptError
from dwf.runtime.interpreter.module_support import bounded_items, callback, check_int_argument
from dwf.runtime.interpreter.sandbox import ITEMS_PER_STEP, charge, check_tuple, iterable, limit_error
from dwf.runtime.interpreter.operators import BINARY
from dwf.runtime.values.objects import BuiltinFunction, DwfIterator


def _lazy(interp, items, name: str, tuples: bool = False) -> DwfIterator:
    """A lazy iterator value over `items` charging one step per item (and a tuple's size)."""
    limits = interp.limits

    def produce():
        for item in items:
            charge(limits, 1 + (len(item) // ITEMS_PER_STEP if tuples else 0))
            yield check_tuple(item, limits) if tuples else item
    return DwfIterator(produce(), f"itertools.{name}")


def _no_kwargs(name: str, kwargs: dict, allowed: tuple = ()) -> None:
    for key in kwargs:
        if key not in allowed:
            raise ScriptError("TypeError", f"{name}() takes no keyword arguments" if not allowed else
                              f"{name}() got an unexpected keyword argument '{key}'")


def _count_args(name: str, args: list, low: int, high: int) -> None:
    if not low <= len(args) <= high:
        if low == high:
            raise ScriptError("TypeError", f"{name} expected {low} argument{'s' if low != 1 else ''}, got {len(args)}")
        if len(args) < low:
            raise ScriptError("TypeError", f"{name} expected at least {low} argument{'s' if low != 1 else ''}, got {len(args)}")
        raise ScriptError("TypeError", f"{name} expected at most {high} arguments, got {len(args)}")


def _pool(interp, value: Any) -> tuple:
    return tuple(bounded_items(value, interp.limits))


# ---------------------------------------------------------------- chaining and slicing


def i_chain(interp, args, kwargs):
    _no_kwargs("chain", kwargs)
    return _lazy(interp, itertools.chain.from_iterable(iterable(a) for a in args), "chain")


def i_chain_from_iterable(interp, args, kwargs):
    _no_kwargs("from_iterable", kwargs)
    _count_args("from_iterable", args, 1, 1)
    return _lazy(interp, itertools.chain.from_iterable(iterable(a) for a in iterable(args[0])), "chain")


class ChainType(NativeType):
    """`itertools.chain`, which also offers `chain.from_iterable`."""

    __slots__ = ("from_iterable",)

    def __init__(self):
        super().__init__("chain", i_chain, DwfIterator, "itertools.chain")
        self.from_iterable = BuiltinFunction("from_iterable", i_chain_from_iterable)

    def holds(self, value: Any) -> bool:
        return isinstance(value, DwfIterator) and value.name == "itertools.chain"

    def script_attribute(self, attr: str) -> Any:
        if attr == "from_iterable":
            return self.from_iterable
        return super().script_attribute(attr)


def i_islice(interp, args, kwargs):
    _no_kwargs("islice", kwargs)
    _count_args("islice", args, 2, 4)
    return _lazy(interp, itertools.islice(iterable(args[0]), *args[1:]), "islice")


def i_zip_longest(interp, args, kwargs):
    _no_kwargs("zip_longest", kwargs, ("fillvalue",))
    return _lazy(interp, itertools.zip_longest(*(iterable(a) for a in args), **kwargs), "zip_longest", tuples=True)


def i_pairwise(interp, args, kwargs):
    _no_kwargs("pairwise", kwargs)
    _count_args("pairwise", args, 1, 1)
    return _lazy(interp, itertools.pairwise(iterable(args[0])), "pairwise", tuples=True)


def i_batched(interp, args, kwargs):
    """Python 3.12's `itertools.batched`: tuples of `n` items, the last one shorter."""
    _no_kwargs("batched", kwargs, ("n",) if len(args) < 2 else ())
    if "n" in kwargs:
        args = [*args, kwargs["n"]]
    if len(args) != 2:
        raise ScriptError("TypeError", f"batched() missing required argument '{'iterable' if not args else 'n'}' (pos {len(args) + 1})")
    source, n = iterable(args[0]), check_int_argument(args[1])
    if n < 1:
        raise ScriptError("ValueError", "n must be at least one")
    limits = interp.limits
    size = min(n, limits.items + 1)

    def produce():
        items = iter(source)
        while batch := tuple(itertools.islice(items, size)):
            if len(batch) > limits.items:
                raise limit_error("items", limits)
            yield batch
    return _lazy(interp, produce(), "batched", tuples=True)


# ---------------------------------------------------------------- combinatorics


def i_product(interp, args, kwargs):
    _no_kwargs("product", kwargs, ("repeat",))
    repeat = kwargs.get("repeat", 1)
    check_int_argument(repeat)
    if repeat < 0:
        raise ScriptError("ValueError", "repeat argument cannot be negative")
    pools = [_pool(interp, a) for a in args]
    if sum(len(p) for p in pools) * repeat > interp.limits.items or len(pools) * repeat > interp.limits.items:
        raise limit_error("items", interp.limits)
    return _lazy(interp, itertools.product(*pools, repeat=repeat), "product", tuples=True)


def _combinatoric(name: str, python, r_required: bool):
    def impl(interp, args, kwargs):
        _no_kwargs(name, kwargs, ("iterable", "r"))
        if len(args) > 2:
            raise ScriptError("TypeError", f"{name}() takes at most 2 arguments ({len(args)} given)")
        values = dict(zip(("iterable", "r"), args))
        for key, value in kwargs.items():
            if key in values:
                raise ScriptError("TypeError", f"argument for {name}() given by name ('{key}') and position")
            values[key] = value
        if "iterable" not in values or (r_required and "r" not in values):
            missing = "iterable" if "iterable" not in values else "r"
            raise ScriptError("TypeError", f"{name}() missing required argument '{missing}' (pos {1 if missing == 'iterable' else 2})")
        pool = _pool(interp, values["iterable"])
        r = values.get("r")
        if r is not None:
            check_int_argument(r)
            if r < 0:
                raise ScriptError("ValueError", "r must be non-negative")
            if name == "combinations_with_replacement":
                if r > interp.limits.items:
                    raise limit_error("items", interp.limits)
            elif r > len(pool):  # yields nothing; C would still allocate r slots
                return _lazy(interp, iter(()), name, tuples=True)
        return _lazy(interp, python(pool, r) if r is not None or name != "permutations" else python(pool), name, tuples=True)
    return impl


# ---------------------------------------------------------------- with callbacks


def i_groupby(interp, args, kwargs):
    _no_kwargs("groupby", kwargs, ("iterable", "key"))
    values = dict(zip(("iterable", "key"), args))
    values.update(kwargs)
    if "iterable" not in values:
        raise ScriptError("TypeError", "groupby() missing required argument 'iterable' (pos 1)")
    key = values.get("key")
    grouped = itertools.groupby(iterable(values["iterable"]), callback(interp, key) if key is not None else None)

    def produce():
        for value, group in grouped:
            yield value, _lazy(interp, group, "_grouper")
    return _lazy(interp, produce(), "groupby")


def i_accumulate(interp, args, kwargs):
    _no_kwargs("accumulate", kwargs, ("iterable", "func", "initial"))
    values = dict(zip(("iterable", "func"), args))
    if len(args) > 2:
        raise ScriptError("TypeError", f"accumulate() takes at most 2 arguments ({len(args)} given)")
    values.update(kwargs)
    if "iterable" not in values:
        raise ScriptError("TypeError", "accumulate() missing required argument 'iterable' (pos 1)")
    limits = interp.limits
    func = values.get("func")
    add = callback(interp, func) if func is not None else (lambda a, b: BINARY["+"](a, b, limits))
    return _lazy(interp, itertools.accumulate(iterable(values["iterable"]), add, initial=values.get("initial")), "accumulate")


def _predicate_iterator(name: str, python):
    def impl(interp, args, kwargs):
        _no_kwargs(name, kwargs)
        _count_args(name, args, 2, 2)
        predicate, source = args
        test = callback(interp, predicate) if predicate is not None or name != "filterfalse" else None
        return _lazy(interp, python(test, iterable(source)), name)
    return impl


def i_starmap(interp, args, kwargs):
    _no_kwargs("starmap", kwargs)
    _count_args("starmap", args, 2, 2)
    call = callback(interp, args[0])
    return _lazy(interp, itertools.starmap(call, (list(iterable(a)) for a in iterable(args[1]))), "starmap")


def i_compress(interp, args, kwargs):
    _no_kwargs("compress", kwargs, ("data", "selectors"))
    values = dict(zip(("data", "selectors"), args))
    values.update(kwargs)
    return _lazy(interp, itertools.compress(iterable(values.get("data")), iterable(values.get("selectors"))), "compress")


# ---------------------------------------------------------------- infinite


def i_count(interp, args, kwargs):
    _no_kwargs("count", kwargs, ("start", "step"))
    values = dict(zip(("start", "step"), args))
    values.update(kwargs)
    start, step = values.get("start", 0), values.get("step", 1)
    for number in (start, step):
        if type(number) not in (int, float, bool):
            raise ScriptError("TypeError", "a number is required")
    limits = interp.limits

    def produce():
        value = start
        while True:
            yield value
            value = BINARY["+"](value, step, limits)  # ints stay within the bit limit
    return _lazy(interp, produce(), "count")


def i_cycle(interp, args, kwargs):
    _no_kwargs("cycle", kwargs)
    _count_args("cycle", args, 1, 1)
    return _lazy(interp, itertools.cycle(bounded_items(args[0], interp.limits)), "cycle")


def i_repeat(interp, args, kwargs):
    _no_kwargs("repeat", kwargs, ("object", "times"))
    values = dict(zip(("object", "times"), args))
    values.update(kwargs)
    if "object" not in values:
        raise ScriptError("TypeError", "repeat() missing required argument 'object' (pos 1)")
    if "times" in values:
        return _lazy(interp, itertools.repeat(values["object"], check_int_argument(values["times"])), "repeat")
    return _lazy(interp, itertools.repeat(values["object"]), "repeat")


def itertools_members() -> dict[str, Any]:
    impls = {
        "islice": i_islice, "groupby": i_groupby, "product": i_product,
        "combinations": _combinatoric("combinations", itertools.combinations, True),
        "combinations_with_replacement": _combinatoric("combinations_with_replacement",
                                                       itertools.combinations_with_replacement, True),
        "permutations": _combinatoric("permutations", itertools.permutations, False),
        "zip_longest": i_zip_longest, "accumulate": i_accumulate, "pairwise": i_pairwise, "batched": i_batched,
        "count": i_count, "cycle": i_cycle, "repeat": i_repeat, "starmap": i_starmap,
        "takewhile": _predicate_iterator("takewhile", itertools.takewhile),
        "dropwhile": _predicate_iterator("dropwhile", itertools.dropwhile),
        "filterfalse": _predicate_iterator("filterfalse", itertools.filterfalse),
        "compress": i_compress,
    }
    return {"chain": ChainType(), **{name: BuiltinFunction(name, impl) for name, impl in impls.items()}}
