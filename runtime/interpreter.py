"""This module defines the interpreter: it runs an analyzed IR program against an effect host.

How it works. The IR is compiled once, before the run, into Python closures: a dispatch table
maps each IR node type to a compile method (a node type without one is a compiler bug), and
each method returns a closure plus a flag saying whether the closure is async. Only code that
contains `await` is async; a pure expression or statement, and every plain `def` and `lambda`
body (which cannot await), runs as an ordinary synchronous call. That keeps the interpreter's
hot path free of coroutine overhead while the awaiting parts still run under anyio.

State lives in `Frame`s passed explicitly (never in globals): the variables of one function
invocation or comprehension, the frame it was defined in (for free variables), the occurrence
path and the recursion depth. Control flow (`break`, `continue`, `return`) uses private
exceptions that never leave this module.

Effects. Facade calls go to the host (the engine), which journals and schedules them. Effect
calls that return awaitables build a `LazyAwaitable` whose occurrence key is fixed when it is
*created*: `site/path...`, where the path lists, outermost first, each enclosing loop or
comprehension iteration (`for#2[3]`) and helper call site (`call#5`), plus `@n` when the same
site runs again at the same path (sequential repeats, e.g. a builtin `map` calling a lambda).
Creation order within one coroutine is deterministic, and a coroutine handed to a join carries
the path of its creation, so keys never depend on completion timing.

Errors. Python exceptions raised by allowed operations become DWF exception values at the
statement that raised them (`sandbox.to_script_error`); every `DwfError` collects one
traceback frame per script statement it passes through.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

import anyio

from dwf.compiler import ir
from dwf.grammar import facade as F

from . import sandbox
from .builtins import make_builtins, make_modules
from .errors import DwfError, FatalError, Frame, ScriptError, is_subclass
from .limits import Limits
from .records import Record
from .values import (ActorHandle, BoundMethod, BuiltinFunction, DwfIterator, ExceptionType, Facade, LazyAwaitable,
                     Module, OrderedSet, ReadOnlyMapping, ScriptFunction, type_name)

# Python frames used per script call level are well below this; DWF's own recursion limit
# (Limits.recursion) stops scripts long before Python's would.
sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))

_PYTHON_ERRORS = (TypeError, ValueError, KeyError, IndexError, ZeroDivisionError, OverflowError,
                  AttributeError, UnicodeError)


class _Break(BaseException):
    pass


class _Continue(BaseException):
    pass


class _Return(BaseException):
    def __init__(self, value: Any):
        self.value = value


class Frame_:
    """The variables of one function call (or comprehension) and where it stands."""

    __slots__ = ("vars", "parent", "path", "depth", "where", "handling", "is_function")

    def __init__(self, vars: dict, parent: Frame_ | None, path: tuple, depth: int, where: str, is_function: bool = True):
        self.vars = vars
        self.parent = parent
        self.path = path
        self.depth = depth
        self.where = where
        self.handling: list[ScriptError] = []  # exceptions being handled, for a bare `raise`
        self.is_function = is_function


Code = tuple[Callable, bool]  # (closure, is_async)


def unbound(name: str) -> FatalError:
    return FatalError("UnboundName", f"`{name}` is used before it is assigned")


class Interpreter:
    """Runs one program. `host` implements the effect calls (see `runtime.engine.RunHost`)."""

    def __init__(self, program: ir.Program, host: Any, *, limits: Limits | None = None, args: dict | None = None):
        self.program = program
        self.host = host
        # The run's limits, plus this interpreter's step counter for work-proportional charges.
        self.limits = sandbox.RunLimits(limits or Limits(), self)
        self.steps = 0
        self.globals: dict[str, Any] = {}
        self.builtins = make_builtins()
        self.modules = make_modules()
        self.args = ReadOnlyMapping(args or {})
        self.facades = {name: Facade(name) for name in F.CONTAINERS}
        self.occurrences: dict[str, int] = {}
        self._counters: dict[str, int] = {}
        # The frame on whose behalf a builtin is running (builtins are synchronous, so this is
        # exact): calls the builtin makes (`key=`, `map`, `filter`) are nested in that frame.
        self.caller: Frame_ | None = None
        self.source_lines: list[str] = []
        self._body = Compiler(self).block(program.body)

    # ------------------------------------------------------------ running

    async def run(self) -> Any:
        """Run the script body; returns its JSON return value (None without `return`)."""
        frame = Frame_(self.globals, None, (), 0, "<script>")
        run, is_async = self._body
        try:
            if is_async:
                await run(frame)
            else:
                run(frame)
        except _Return as done:
            return sandbox.to_json(done.value, "workflow's return value", self.limits)
        except RecursionError:
            raise FatalError("LimitExceeded", "the script is nested too deeply to run") from None
        return None

    def step_limit(self) -> FatalError:
        return sandbox.limit_error("steps", self.limits)

    def occurrence_key(self, site: str, path: tuple) -> str:
        key = site if not path else site + "/" + "/".join(path)
        count = self.occurrences.get(key, 0) + 1
        self.occurrences[key] = count
        return key if count == 1 else f"{key}@{count}"

    # ------------------------------------------------------------ calls

    def call_sync(self, fn: Any, args: list, kwargs: dict, frame: Frame_ | None = None, call_id: str = "call") -> Any:
        """Call a value from synchronous code (builtins calling `key=` functions, plain calls)."""
        if isinstance(fn, ScriptFunction):
            if fn.is_async:
                return self._async_call(fn, args, kwargs, frame, call_id)
            return self._run_sync_function(fn, args, kwargs, frame, call_id)
        if isinstance(fn, (BuiltinFunction, BoundMethod)):
            previous, self.caller = self.caller, frame
            try:
                if isinstance(fn, BuiltinFunction):
                    return fn.fn(self, args, kwargs)
                return call_method(self, fn, args, kwargs)
            finally:
                self.caller = previous
        if isinstance(fn, ExceptionType):
            if kwargs:
                raise ScriptError("TypeError", f"{fn.name}() takes no keyword arguments")
            return ScriptError(fn.name, sandbox.exception_message(fn.name, tuple(args)), args=tuple(args))
        raise ScriptError("TypeError", f"'{type_name(fn)}' object is not callable")

    def _new_frame(self, fn: ScriptFunction, args: list, kwargs: dict, caller: Frame_ | None, call_id: str) -> Frame_:
        depth = (caller.depth if caller else 0) + 1
        if depth > self.limits.recursion:
            raise sandbox.limit_error("recursion", self.limits)
        self.steps += 1  # a call is a step, so lambdas called by builtins count too
        if self.steps > self.limits.steps:
            raise self.step_limit()
        params, _, _ = fn.code
        path = (caller.path if caller else ()) + (call_id,)
        frame = Frame_(bind_arguments(fn, params, args, kwargs, self.limits), fn.env, path, depth, f"{fn.name}()")
        return frame

    def _run_sync_function(self, fn: ScriptFunction, args, kwargs, caller, call_id) -> Any:
        frame = self._new_frame(fn, args, kwargs, caller, call_id)
        _, body, is_expression = fn.code
        if is_expression:  # lambda
            return body(frame)
        try:
            body(frame)
        except _Return as done:
            return done.value
        return None

    def _async_call(self, fn: ScriptFunction, args, kwargs, caller, call_id) -> LazyAwaitable:
        frame = self._new_frame(fn, args, kwargs, caller, call_id)
        _, body, _ = fn.code
        run, is_async = body

        async def start():
            try:
                if is_async:
                    await run(frame)
                else:
                    run(frame)
            except _Return as done:
                return done.value
            return None

        return LazyAwaitable(start, f"{fn.name}()")


def bind_arguments(fn: ScriptFunction, params: tuple, args: list, kwargs: dict, limits: Limits) -> dict:
    values: dict[str, Any] = {}
    positional = list(args)
    plain = [p for p in params if p.kind == "plain"]
    star = next((p for p in params if p.kind == "star"), None)
    double_star = next((p for p in params if p.kind == "double_star"), None)
    defaults = fn.defaults
    for index, param in enumerate(plain):
        if positional:
            values[param.name] = positional.pop(0)
        elif param.name in kwargs:
            values[param.name] = kwargs.pop(param.name)
        elif index in defaults:
            values[param.name] = defaults[index]
        else:
            raise ScriptError("TypeError", f"{fn.name}() missing required argument '{param.name}'")
        if param.name in kwargs:
            raise ScriptError("TypeError", f"{fn.name}() got multiple values for argument '{param.name}'")
    if positional:
        if star is None:
            raise ScriptError("TypeError", f"{fn.name}() takes {len(plain)} positional arguments but {len(args)} were given")
        values[star.name] = sandbox.check_tuple(tuple(positional), limits)
    elif star is not None:
        values[star.name] = ()
    if kwargs:
        if double_star is None:
            raise ScriptError("TypeError", f"{fn.name}() got an unexpected keyword argument '{next(iter(kwargs))}'")
        values[double_star.name] = dict(kwargs)
    elif double_star is not None:
        values[double_star.name] = {}
    return values


GROWING_METHODS = frozenset({"ljust", "rjust", "center", "zfill", "expandtabs", "replace", "join"})
# Methods whose cost does not grow with the receiver, by receiver type; every other method is
# charged the receiver's size, and `extend`/`update` the size of what they add.
CONSTANT_TIME_METHODS = {
    list: frozenset({"append", "pop", "extend"}), str: frozenset({"startswith", "endswith"}),
    dict: frozenset({"get", "pop", "setdefault", "popitem", "update"}),
    OrderedSet: frozenset({"add", "discard", "remove", "pop", "update"}),
}
GROWING_CONTAINER_METHODS = frozenset({"append", "extend", "insert", "update", "add", "setdefault"})
SPLITTING_METHODS = frozenset({"split", "rsplit"})


_KEYS_VIEW, _VALUES_VIEW, _ITEMS_VIEW = type({}.keys()), type({}.values()), type({}.items())


def call_method(interp: Interpreter, method: BoundMethod, args: list, kwargs: dict) -> Any:
    receiver, name = method.receiver, method.name
    limits = interp.limits
    kind = type(receiver)
    if kind is str:
        if name == "join" and args:
            # Materialize (bounded) so the size check sees every piece before joining.
            args = [_bounded_list(args[0], limits)] + list(args[1:])
        if name in GROWING_METHODS:
            _precheck_string_method(receiver, name, args, limits)
        elif name in SPLITTING_METHODS:
            args, kwargs = _bounded_split(args, kwargs, limits)
    elif kind is list:
        if name == "sort" and kwargs.get("key") is not None:
            key, frame = kwargs["key"], interp.caller
            kwargs = dict(kwargs, key=lambda item: interp.call_sync(key, [item], {}, frame))
        elif name == "extend" and args:
            source = sandbox.iterable(args[0])
            if type(source) is not DwfIterator and len(receiver) + len(source) > limits.items:
                raise sandbox.limit_error("items", limits)
            args = [source if type(source) is list else list(source)]
    if name not in CONSTANT_TIME_METHODS.get(kind, ()):
        sandbox.charge(limits, sandbox.work(receiver))
    if name in ("extend", "update"):
        sandbox.charge(limits, sum(sandbox.work(a) for a in args))
    result = method.fn(*args, **kwargs)
    if name in GROWING_CONTAINER_METHODS:
        sandbox.check_value(receiver, limits)
    if result is None:
        return None
    result_kind = type(result)
    if result_kind is str:
        sandbox.charge(limits, sandbox.work(result))
        return sandbox.check_string(result, limits)
    if result_kind is list:
        sandbox.charge(limits, sandbox.work(result))
        return sandbox.check_items(result, limits)
    if result_kind is _KEYS_VIEW or result_kind is _VALUES_VIEW:
        sandbox.charge(limits, len(result) // sandbox.ITEMS_PER_STEP)
        return list(result)  # views would expose live Python objects; a list is plain data
    if result_kind is _ITEMS_VIEW:
        sandbox.charge(limits, len(result) // sandbox.ITEMS_PER_STEP)
        return [sandbox.check_tuple(pair, limits) for pair in result]
    if result_kind is tuple:
        return sandbox.check_tuple(result, limits)  # str.partition, dict.popitem()
    if result_kind is set:
        return OrderedSet(result)
    if result_kind is dict or result_kind is OrderedSet:
        sandbox.charge(limits, sandbox.work(result))  # copy(), union(), ...
    return result


def _bounded_list(value: Any, limits: Limits) -> list:
    if type(sandbox.iterable(value)) is not DwfIterator:  # sized: check, then copy in C
        if len(value) > limits.items:
            raise sandbox.limit_error("items", limits)
        sandbox.charge(limits, sandbox.work(value))
        return list(value)
    items = []
    for item in value:  # a lazy iterator charges its own items
        items.append(item)
        if len(items) > limits.items:
            raise sandbox.limit_error("items", limits)
    return items


def _bounded_split(args: list, kwargs: dict, limits: Limits) -> tuple[list, dict]:
    """`str.split` with `maxsplit` capped at the item limit: the result is the same whenever it
    is within the limit, and a larger one is refused without being built."""
    args, kwargs = list(args), dict(kwargs)
    if len(args) > 1:
        maxsplit = args.pop(1)
    else:
        maxsplit = kwargs.pop("maxsplit", -1)
    if type(maxsplit) is not int:
        raise ScriptError("TypeError", f"'{type_name(maxsplit)}' object cannot be interpreted as an integer")
    kwargs["maxsplit"] = limits.items if maxsplit < 0 else min(maxsplit, limits.items)
    return args, kwargs


def _precheck_string_method(receiver: str, name: str, args: list, limits: Limits) -> None:
    if name in ("ljust", "rjust", "center", "zfill") and args and isinstance(args[0], int):
        if args[0] > limits.string_bytes:
            raise sandbox.limit_error("string_bytes", limits)
    elif name == "expandtabs":
        size = (args[0] if args and isinstance(args[0], int) else 8) * max(1, receiver.count("\t")) + len(receiver)
        if size > limits.string_bytes:
            raise sandbox.limit_error("string_bytes", limits)
    elif name == "replace" and len(args) >= 2 and isinstance(args[0], str) and isinstance(args[1], str):
        count = receiver.count(args[0]) if args[0] else len(receiver) + 1
        if len(args) > 2 and isinstance(args[2], int) and args[2] >= 0:
            count = min(count, args[2])
        if len(receiver) + count * len(args[1]) > limits.string_bytes:
            raise sandbox.limit_error("string_bytes", limits)
    elif name == "join" and args:
        items = args[0]
        total = sum(len(i) for i in items if isinstance(i, str)) + len(receiver) * max(0, len(items) - 1)
        if total > limits.string_bytes:
            raise sandbox.limit_error("string_bytes", limits)


# ---------------------------------------------------------------- the compiler to closures


def _sync_or_async(parts: list[Code]) -> bool:
    return any(is_async for _, is_async in parts)


async def _ev(code: Code, frame: Frame_) -> Any:
    fn, is_async = code
    return await fn(frame) if is_async else fn(frame)


class Compiler:
    """Compiles IR nodes to closures; one method per node type (`EXPRESSIONS`, `STATEMENTS`)."""

    def __init__(self, interp: Interpreter):
        self.interp = interp
        self.counters: dict[str, int] = {}

    def number(self, kind: str) -> str:
        self.counters[kind] = self.counters.get(kind, 0) + 1
        return f"{kind}#{self.counters[kind]}"

    # ------------------------------------------------------------ blocks

    def block(self, statements: tuple) -> Code:
        interp = self.interp
        entries = [(s.span.line, s.span.column, *self.statement(s)) for s in statements]
        limit = interp.limits.steps
        if not _sync_or_async([(fn, a) for _, _, fn, a in entries]):
            plain = [(line, column, fn) for line, column, fn, _ in entries]

            def run_sync(frame):
                for line, column, fn in plain:
                    interp.steps += 1
                    if interp.steps > limit:
                        raise _with_frame(interp.step_limit(), line, column, frame)
                    try:
                        fn(frame)
                    except DwfError as error:
                        raise _with_frame(error, line, column, frame)
                    except _PYTHON_ERRORS as error:
                        raise _with_frame(_convert(error), line, column, frame) from None
                    except RecursionError:
                        raise _with_frame(sandbox.limit_error("recursion", interp.limits), line, column, frame) from None
                    except MemoryError:
                        raise _with_frame(_out_of_memory(), line, column, frame) from None

            return run_sync, False

        async def run_async(frame):
            for line, column, fn, is_async in entries:
                interp.steps += 1
                if interp.steps > limit:
                    raise _with_frame(interp.step_limit(), line, column, frame)
                try:
                    if is_async:
                        await fn(frame)
                    else:
                        fn(frame)
                except DwfError as error:
                    raise _with_frame(error, line, column, frame)
                except _PYTHON_ERRORS as error:
                    raise _with_frame(_convert(error), line, column, frame) from None
                except RecursionError:
                    raise _with_frame(sandbox.limit_error("recursion", interp.limits), line, column, frame) from None
                except MemoryError:
                    raise _with_frame(_out_of_memory(), line, column, frame) from None

        return run_async, True

    def statement(self, node: ir.Node) -> Code:
        handler = STATEMENTS.get(type(node))
        if handler is None:
            raise TypeError(f"no interpreter handler for IR statement {type(node).__name__}")
        return handler(self, node)

    def expr(self, node: ir.Node) -> Code:
        handler = EXPRESSIONS.get(type(node))
        if handler is None:
            raise TypeError(f"no interpreter handler for IR expression {type(node).__name__}")
        return handler(self, node)

    # ------------------------------------------------------------ statements

    def s_expr(self, node: ir.ExprStmt) -> Code:
        return self.expr(node.value)

    def s_pass(self, node) -> Code:
        return (lambda frame: None), False

    def s_break(self, node) -> Code:
        def run(frame):
            raise _Break()
        return run, False

    def s_continue(self, node) -> Code:
        def run(frame):
            raise _Continue()
        return run, False

    def s_return(self, node: ir.Return) -> Code:
        if node.value is None:
            def run_none(frame):
                raise _Return(None)
            return run_none, False
        value, is_async = self.expr(node.value)
        if is_async:
            async def run_async(frame):
                raise _Return(await value(frame))
            return run_async, True

        def run(frame):
            raise _Return(value(frame))
        return run, False

    def s_assign(self, node: ir.Assign) -> Code:
        value, is_async = self.expr(node.value)
        targets = [self.target(t) for t in node.targets]
        if _sync_or_async(targets):
            async def run_targets_async(frame):
                result = await _ev((value, is_async), frame)
                for store, store_is_async in targets:
                    if store_is_async:
                        await store(frame, result)
                    else:
                        store(frame, result)
            return run_targets_async, True
        stores = [store for store, _ in targets]
        if len(stores) == 1:
            store = stores[0]
            if is_async:
                async def run_one_async(frame):
                    store(frame, await value(frame))
                return run_one_async, True

            def run_one(frame):
                store(frame, value(frame))
            return run_one, False

        async def run_many_async(frame):
            result = await _ev((value, is_async), frame)
            for store in stores:
                store(frame, result)

        def run_many(frame):
            result = value(frame)
            for store in stores:
                store(frame, result)
        return (run_many_async, True) if is_async else (run_many, False)

    def s_ann_assign(self, node: ir.AnnAssign) -> Code:
        if node.value is None:
            return self.s_pass(node)
        return self.s_assign(ir.Assign(node.span, (node.target,), node.value))

    def s_aug_assign(self, node: ir.AugAssign) -> Code:
        op = sandbox.INPLACE[node.op]
        limits = self.interp.limits
        value_code = self.expr(node.value)
        target = node.target
        if isinstance(target, ir.Subscript):
            container_code = self.expr(target.value)
            index_code = self.expr(target.index)
            parts = [container_code, index_code, value_code]

            async def run_sub_async(frame):
                container = await _ev(container_code, frame)
                index = await _ev(index_code, frame)
                left = _get_item(container, index)
                _set_item(container, index, op(left, await _ev(value_code, frame), limits), limits)

            def run_sub(frame):
                container = container_code[0](frame)
                index = index_code[0](frame)
                _set_item(container, index, op(_get_item(container, index), value_code[0](frame), limits), limits)
            return (run_sub_async, True) if _sync_or_async(parts) else (run_sub, False)
        load, _ = self.expr(target)
        store = self.store(target)

        async def run_async(frame):
            left = load(frame)
            store(frame, op(left, await _ev(value_code, frame), limits))

        def run(frame):
            store(frame, op(load(frame), value_code[0](frame), limits))
        return (run_async, True) if value_code[1] else (run, False)

    def s_if(self, node: ir.If) -> Code:
        test = self.expr(node.test)
        body = self.block(node.body)
        orelse = self.block(node.orelse)
        if _sync_or_async([test, body, orelse]):
            async def run_async(frame):
                if await _ev(test, frame):
                    await _ev(body, frame)
                else:
                    await _ev(orelse, frame)
            return run_async, True
        test_fn, body_fn, else_fn = test[0], body[0], orelse[0]

        def run(frame):
            if test_fn(frame):
                body_fn(frame)
            else:
                else_fn(frame)
        return run, False

    def s_for(self, node: ir.For) -> Code:
        loop_id = self.number("for")
        tracked = _has_effects(node.body)
        iterable = self.expr(node.iter)
        store, store_is_async = self.target(node.target)
        body = self.block(node.body)
        orelse = self.block(node.orelse)
        interp = self.interp
        if _sync_or_async([iterable, body, orelse, (store, store_is_async)]):
            async def run_async(frame):
                items = _iterate(await _ev(iterable, frame))
                base = frame.path
                broke = False
                try:
                    for index, item in enumerate(items):
                        if tracked:
                            frame.path = base + (f"{loop_id}[{index}]",)
                        if store_is_async:
                            await store(frame, item)
                        else:
                            store(frame, item)
                        try:
                            await _ev(body, frame)
                        except _Continue:
                            continue
                        except _Break:
                            broke = True
                            break
                finally:
                    frame.path = base
                if not broke:
                    await _ev(orelse, frame)
            return run_async, True
        body_fn, else_fn, iter_fn = body[0], orelse[0], iterable[0]

        def run(frame):
            items = _iterate(iter_fn(frame))
            base = frame.path
            try:
                for index, item in enumerate(items):
                    if tracked:
                        frame.path = base + (f"{loop_id}[{index}]",)
                    store(frame, item)
                    try:
                        body_fn(frame)
                    except _Continue:
                        continue
                    except _Break:
                        break
                else:
                    else_fn(frame)
            finally:
                frame.path = base
        return run, False

    def s_while(self, node: ir.While) -> Code:
        loop_id = self.number("while")
        tracked = _has_effects(node.body)
        test = self.expr(node.test)
        body = self.block(node.body)
        orelse = self.block(node.orelse)
        interp = self.interp
        limit = interp.limits.steps
        if _sync_or_async([test, body, orelse]):
            async def run_async(frame):
                base = frame.path
                index = 0
                broke = False
                try:
                    while await _ev(test, frame):
                        interp.steps += 1
                        if interp.steps > limit:
                            raise interp.step_limit()
                        if tracked:
                            frame.path = base + (f"{loop_id}[{index}]",)
                        index += 1
                        try:
                            await _ev(body, frame)
                        except _Continue:
                            continue
                        except _Break:
                            broke = True
                            break
                finally:
                    frame.path = base
                if not broke:
                    await _ev(orelse, frame)
            return run_async, True
        test_fn, body_fn, else_fn = test[0], body[0], orelse[0]

        def run(frame):
            base = frame.path
            index = 0
            try:
                while test_fn(frame):
                    interp.steps += 1
                    if interp.steps > limit:
                        raise interp.step_limit()
                    if tracked:
                        frame.path = base + (f"{loop_id}[{index}]",)
                    index += 1
                    try:
                        body_fn(frame)
                    except _Continue:
                        continue
                    except _Break:
                        break
                else:
                    else_fn(frame)
            finally:
                frame.path = base
        return run, False

    def s_try(self, node: ir.Try) -> Code:
        body = self.block(node.body)
        handlers = [(self.expr(h.type) if h.type is not None else None, h.name, self.block(h.body)) for h in node.handlers]
        orelse = self.block(node.orelse)
        finalbody = self.block(node.finalbody)
        parts = [body, orelse, finalbody] + [h[2] for h in handlers] + [h[0] for h in handlers if h[0]]

        def match(error: ScriptError, kind_value) -> bool:
            kinds = kind_value if isinstance(kind_value, tuple) else (kind_value,)
            for kind in kinds:
                if not isinstance(kind, ExceptionType):
                    raise ScriptError("TypeError", "catching classes that are not exception types is not allowed")
                if is_subclass(error.type_name, kind.name):
                    return True
            return False

        async def run_async(frame):
            try:
                try:
                    await _ev(body, frame)
                except (ScriptError, *_PYTHON_ERRORS) as raised:
                    error = _convert(raised)
                    for kind_code, name, handler_body in handlers:
                        if kind_code is None or match(error, await _ev(kind_code, frame)):
                            if name is not None:
                                frame.vars[name] = error
                            frame.handling.append(error)
                            try:
                                await _ev(handler_body, frame)
                            finally:
                                frame.handling.pop()
                            break
                    else:
                        raise error from None
                else:
                    await _ev(orelse, frame)
            finally:
                await _ev(finalbody, frame)

        def run(frame):
            try:
                try:
                    body[0](frame)
                except (ScriptError, *_PYTHON_ERRORS) as raised:
                    error = _convert(raised)
                    for kind_code, name, handler_body in handlers:
                        if kind_code is None or match(error, kind_code[0](frame)):
                            if name is not None:
                                frame.vars[name] = error
                            frame.handling.append(error)
                            try:
                                handler_body[0](frame)
                            finally:
                                frame.handling.pop()
                            break
                    else:
                        raise error from None
                else:
                    orelse[0](frame)
            finally:
                finalbody[0](frame)
        return (run_async, True) if _sync_or_async(parts) else (run, False)

    def s_raise(self, node: ir.Raise) -> Code:
        exc = self.expr(node.exc) if node.exc is not None else None
        cause = self.expr(node.cause) if node.cause is not None else None

        def check_cause(value):
            # `raise X from Y`: Y is evaluated and must be an exception (or None); DWF
            # tracebacks do not chain, so it is not kept.
            if value is not None and not isinstance(value, (ScriptError, ExceptionType)):
                raise ScriptError("TypeError", "exception causes must derive from BaseException")

        def build(frame, value):
            if value is None:
                if not frame.handling:
                    raise ScriptError("TypeError", "no active exception to re-raise")
                raise frame.handling[-1]
            if isinstance(value, ExceptionType):
                value = ScriptError(value.name, "")
            if not isinstance(value, ScriptError):
                raise ScriptError("TypeError", "exceptions must be exception types or values")
            raise value

        if exc is None:
            return (lambda frame: build(frame, None)), False
        if exc[1] or (cause is not None and cause[1]):
            async def run_async(frame):
                value = await _ev(exc, frame)
                if cause is not None:
                    check_cause(await _ev(cause, frame))
                build(frame, value)
            return run_async, True

        def run(frame):
            value = exc[0](frame)
            if cause is not None:
                check_cause(cause[0](frame))
            build(frame, value)
        return run, False

    def s_assert(self, node: ir.Assert) -> Code:
        limits = self.interp.limits
        test = self.expr(node.test)
        msg = self.expr(node.msg) if node.msg is not None else None

        async def run_async(frame):
            if not await _ev(test, frame):
                message = sandbox.display(await _ev(msg, frame), limits) if msg else ""
                raise ScriptError("AssertionError", message)

        def run(frame):
            if not test[0](frame):
                raise ScriptError("AssertionError", sandbox.display(msg[0](frame), limits) if msg else "")
        return (run_async, True) if _sync_or_async([test] + ([msg] if msg else [])) else (run, False)

    def s_delete(self, node: ir.Delete) -> Code:
        deleters: list[tuple[Callable, bool]] = []
        for target in node.targets:
            if isinstance(target, ir.Name):
                deleters.append((self._delete_name(target), False))
                continue
            container, index = self.expr(target.value), self.expr(target.index)
            if _sync_or_async([container, index]):
                async def delete_async(frame, container=container, index=index):
                    holder = await _ev(container, frame)
                    _del_item(holder, await _ev(index, frame))
                deleters.append((delete_async, True))
            else:
                deleters.append((lambda frame, c=container[0], i=index[0]: _del_item(c(frame), i(frame)), False))

        if _sync_or_async(deleters):
            async def run_async(frame):
                for deleter, is_async in deleters:
                    if is_async:
                        await deleter(frame)
                    else:
                        deleter(frame)
            return run_async, True

        def run(frame):
            for deleter, _ in deleters:
                deleter(frame)
        return run, False

    def _delete_name(self, target: ir.Name):
        interp, name = self.interp, target.id

        def delete(frame):
            scope = interp.globals if target.scope == ir.GLOBAL else frame.vars
            if name not in scope:
                raise unbound(name)
            del scope[name]
        return delete

    def s_function(self, node: ir.FunctionDef) -> Code:
        params = node.params
        defaults = [(i, self.expr(p.default)) for i, p in enumerate(p for p in params if p.kind == "plain") if p.default is not None]
        body = self.block(node.body)
        store = self.store(ir.Name(node.span, node.name, node.scope))
        name, is_async = node.name, node.is_async

        def run(frame):
            values = {index: code[0](frame) for index, code in defaults}
            store(frame, ScriptFunction(name, (params, body if is_async else body[0], False), frame, values, is_async))
        return run, False

    def s_phase(self, node: ir.Phase) -> Code:
        host, name = self.interp.host, node.name
        return (lambda frame: host.enter_phase(name)), False

    def s_import(self, node: ir.Import) -> Code:
        interp = self.interp
        module = interp.modules[node.module]

        def run(frame):
            interp.globals[node.name] = module
        return run, False

    # ------------------------------------------------------------ targets

    def store(self, target: ir.Node) -> Callable[[Frame_, Any], None]:
        interp = self.interp
        if isinstance(target, ir.Name):
            name = target.id
            if target.scope == ir.GLOBAL:
                globals_ = interp.globals

                def store_global(frame, value):
                    globals_[name] = value
                return store_global
            if target.scope == ir.FREE:
                def store_free(frame, value):
                    scope = frame.parent
                    while scope is not None and not scope.is_function and name not in scope.vars:
                        scope = scope.parent
                    (scope or frame).vars[name] = value
                return store_free

            def store_local(frame, value):
                frame.vars[name] = value
            return store_local
        store, is_async = self.target(target)
        if is_async:
            raise TypeError(f"an awaiting assignment target reached a synchronous store: {type(target).__name__}")
        return store

    def target(self, target: ir.Node) -> tuple[Callable, bool]:
        """The store for an assignment target and whether it is async: a subscript target
        whose container or index awaits (`d[await key()] = v`) evaluates them, in order, when
        the value is stored, as CPython does. Names are always synchronous."""
        if isinstance(target, ir.Subscript):
            container, index = self.expr(target.value), self.expr(target.index)
            limits = self.interp.limits
            if _sync_or_async([container, index]):
                async def store_item_async(frame, value):
                    holder = await _ev(container, frame)
                    _set_item(holder, await _ev(index, frame), value, limits)
                return store_item_async, True
            c, i = container[0], index[0]
            return (lambda frame, value: _set_item(c(frame), i(frame), value, limits)), False
        if isinstance(target, (ir.Tuple, ir.List)):
            parts = [self.target(e) for e in target.elts]
            star = next((i for i, e in enumerate(target.elts) if isinstance(e, ir.Starred)), None)
            count = len(parts)
            if _sync_or_async(parts):
                async def unpack_async(frame, value):
                    for (store, is_async), item in zip(parts, _unpack(value, count, star)):
                        if is_async:
                            await store(frame, item)
                        else:
                            store(frame, item)
                return unpack_async, True
            stores = [store for store, _ in parts]

            def unpack(frame, value):
                for store, item in zip(stores, _unpack(value, count, star)):
                    store(frame, item)
            return unpack, False
        if isinstance(target, ir.Starred):
            return self.target(target.value)
        if isinstance(target, ir.Name):
            return self.store(target), False
        raise TypeError(f"cannot store into {type(target).__name__}")

    # ------------------------------------------------------------ expressions

    def e_const(self, node: ir.Const) -> Code:
        value = node.value
        return (lambda frame: value), False

    def e_name(self, node: ir.Name) -> Code:
        interp, name = self.interp, node.id
        scope = node.scope
        if scope == ir.LOCAL:
            def load_local(frame):
                try:
                    return frame.vars[name]
                except KeyError:
                    raise unbound(name) from None
            return load_local, False
        if scope == ir.FREE:
            def load_free(frame):
                current = frame.parent
                while current is not None:
                    vars_ = current.vars
                    if name in vars_:
                        return vars_[name]
                    current = current.parent
                if name in interp.globals:
                    return interp.globals[name]
                raise unbound(name)
            return load_free, False
        if scope in (ir.GLOBAL, ir.MODULE):
            globals_ = interp.globals

            def load_global(frame):
                try:
                    return globals_[name]
                except KeyError:
                    raise unbound(name) from None
            return load_global, False
        if scope == ir.BUILTIN:
            value = interp.builtins[name]
            return (lambda frame: value), False
        if scope == ir.FACADE:
            if name == "args":
                return (lambda frame: interp.args), False
            if name in interp.facades:
                value = interp.facades[name]
                return (lambda frame: value), False
        raise TypeError(f"name `{name}` with scope {scope} cannot be loaded at run time")

    def e_fstring(self, node: ir.FString) -> Code:
        limits = self.interp.limits
        parts: list = []
        for part in node.parts:
            if isinstance(part, str):
                parts.append((None, part))
            else:
                spec = self.e_fstring(part.format_spec) if part.format_spec is not None else None
                parts.append((self.expr(part.value), (part.conversion, spec)))
        codes = [p[0] for p in parts if p[0] is not None] + [p[1][1] for p in parts if p[0] is not None and p[1][1]]

        def convert(value, conversion, spec_text):
            if conversion == "r":
                value = sandbox.dwf_repr(value, limits)
            elif conversion == "s":
                value = sandbox.display(value, limits)
            elif conversion == "a":
                value = ascii(sandbox.dwf_repr(value, limits))[1:-1]
            if spec_text:
                return sandbox.format_value(value, spec_text, limits)
            return value if isinstance(value, str) else sandbox.display(value, limits)

        async def run_async(frame):
            out = []
            for code, extra in parts:
                if code is None:
                    out.append(extra)
                else:
                    conversion, spec = extra
                    spec_text = await _ev(spec, frame) if spec else ""
                    out.append(convert(await _ev(code, frame), conversion, spec_text))
            text = sandbox.check_string("".join(out), limits)
            sandbox.charge(limits, sandbox.work(text))
            return text

        def run(frame):
            out = []
            for code, extra in parts:
                if code is None:
                    out.append(extra)
                else:
                    conversion, spec = extra
                    out.append(convert(code[0](frame), conversion, spec[0](frame) if spec else ""))
            text = sandbox.check_string("".join(out), limits)
            sandbox.charge(limits, sandbox.work(text))
            return text
        return (run_async, True) if _sync_or_async(codes) else (run, False)

    def e_attribute(self, node: ir.Attribute) -> Code:
        value_code = self.expr(node.value)
        attr, host = node.attr, self.interp.host

        def get(value):
            if isinstance(value, Facade) and value.name == "budget" and attr == "total":
                return host.budget_total()
            return sandbox.get_attribute(value, attr)
        if value_code[1]:
            async def run_async(frame):
                return get(await value_code[0](frame))
            return run_async, True
        fn = value_code[0]
        return (lambda frame: get(fn(frame))), False

    def e_subscript(self, node: ir.Subscript) -> Code:
        value, index = self.expr(node.value), self.expr(node.index)
        if isinstance(node.index, ir.Slice):  # a slice copies: charge its length
            limits = self.interp.limits

            def get(container, key):
                result = _get_item(container, key)
                sandbox.charge(limits, sandbox.work(result))
                return result
        else:
            get = _get_item
        if _sync_or_async([value, index]):
            async def run_async(frame):
                return get(await _ev(value, frame), await _ev(index, frame))
            return run_async, True
        v, i = value[0], index[0]
        return (lambda frame: get(v(frame), i(frame))), False

    def e_slice(self, node: ir.Slice) -> Code:
        parts = [self.expr(p) if p is not None else None for p in (node.lower, node.upper, node.step)]
        codes = [p for p in parts if p]
        if _sync_or_async(codes):
            async def run_async(frame):
                return slice(*[await _ev(p, frame) if p else None for p in parts])
            return run_async, True
        return (lambda frame: slice(*[p[0](frame) if p else None for p in parts])), False

    def e_binop(self, node: ir.BinOp) -> Code:
        left, right = self.expr(node.left), self.expr(node.right)
        op, limits = sandbox.BINARY[node.op], self.interp.limits
        if _sync_or_async([left, right]):
            async def run_async(frame):
                a = await _ev(left, frame)
                return op(a, await _ev(right, frame), limits)
            return run_async, True
        l, r = left[0], right[0]
        if node.op == "+":
            max_bits = limits.pow_bits

            def add(frame):
                a, b = l(frame), r(frame)
                if type(a) is int and type(b) is int:
                    result = a + b
                    if result.bit_length() > max_bits:
                        raise sandbox.limit_error("pow_bits", limits)
                    return result
                return op(a, b, limits)
            return add, False
        return (lambda frame: op(l(frame), r(frame), limits)), False

    def e_unary(self, node: ir.UnaryOp) -> Code:
        operand = self.expr(node.operand)
        op = sandbox.UNARY[node.op]
        if operand[1]:
            async def run_async(frame):
                return op(await operand[0](frame))
            return run_async, True
        fn = operand[0]
        return (lambda frame: op(fn(frame))), False

    def e_boolop(self, node: ir.BoolOp) -> Code:
        values = [self.expr(v) for v in node.values]
        is_and = node.op == "and"
        if _sync_or_async(values):
            async def run_async(frame):
                result = None
                for code in values:
                    result = await _ev(code, frame)
                    if bool(result) != is_and:
                        return result
                return result
            return run_async, True
        fns = [v[0] for v in values]

        def run(frame):
            result = None
            for fn in fns:
                result = fn(frame)
                if bool(result) != is_and:
                    return result
            return result
        return run, False

    def e_compare(self, node: ir.Compare) -> Code:
        left = self.expr(node.left)
        comparators = [self.expr(c) for c in node.comparators]
        ops = [sandbox.COMPARE[o] for o in node.ops]
        limits = self.interp.limits
        if _sync_or_async([left] + comparators):
            async def run_async(frame):
                a = await _ev(left, frame)
                for op, code in zip(ops, comparators):
                    b = await _ev(code, frame)
                    if not op(a, b, limits):
                        return False
                    a = b
                return True
            return run_async, True
        if len(ops) == 1:
            op, l, r = ops[0], left[0], comparators[0][0]
            return (lambda frame: op(l(frame), r(frame), limits)), False
        fns = [c[0] for c in comparators]
        l = left[0]

        def run(frame):
            a = l(frame)
            for op, fn in zip(ops, fns):
                b = fn(frame)
                if not op(a, b, limits):
                    return False
                a = b
            return True
        return run, False

    def e_ifexp(self, node: ir.IfExp) -> Code:
        test, body, orelse = self.expr(node.test), self.expr(node.body), self.expr(node.orelse)
        if _sync_or_async([test, body, orelse]):
            async def run_async(frame):
                return await _ev(body, frame) if await _ev(test, frame) else await _ev(orelse, frame)
            return run_async, True
        t, b, o = test[0], body[0], orelse[0]
        return (lambda frame: b(frame) if t(frame) else o(frame)), False

    def e_lambda(self, node: ir.Lambda) -> Code:
        params = node.params
        defaults = [(i, self.expr(p.default)) for i, p in enumerate(p for p in params if p.kind == "plain") if p.default is not None]
        body = self.expr(node.body)[0]

        def run(frame):
            values = {index: code[0](frame) for index, code in defaults}
            return ScriptFunction("<lambda>", (params, body, True), frame, values, False)
        return run, False

    def e_await(self, node: ir.Await) -> Code:
        value = self.expr(node.value)

        async def run(frame):
            awaitable = await _ev(value, frame)
            if not isinstance(awaitable, LazyAwaitable):
                raise ScriptError("TypeError", f"object {type_name(awaitable)} can't be used in 'await' expression")
            return await awaitable.wait()
        return run, True

    def e_named(self, node: ir.NamedExpr) -> Code:
        value = self.expr(node.value)
        store = self.store(node.target)
        if value[1]:
            async def run_async(frame):
                result = await value[0](frame)
                store(frame, result)
                return result
            return run_async, True
        fn = value[0]

        def run(frame):
            result = fn(frame)
            store(frame, result)
            return result
        return run, False

    def e_list(self, node) -> Code:
        return self._display(node.elts, list)

    def e_tuple(self, node) -> Code:
        return self._display(node.elts, tuple)

    def e_set(self, node) -> Code:
        return self._display(node.elts, OrderedSet)

    def _display(self, elts, kind) -> Code:
        codes = [(self.expr(e.value), True) if isinstance(e, ir.Starred) else (self.expr(e), False) for e in elts]
        limits = self.interp.limits
        if _sync_or_async([c for c, _ in codes]):
            async def run_async(frame):
                items = []
                for code, starred in codes:
                    value = await _ev(code, frame)
                    items.extend(_iterate(value)) if starred else items.append(value)
                return _made(kind(items), limits)
            return run_async, True
        if not any(starred for _, starred in codes):
            fns = [c[0] for c, _ in codes]
            if kind is tuple:
                return (lambda frame: sandbox.check_tuple(tuple([fn(frame) for fn in fns]), limits)), False
            return (lambda frame: kind([fn(frame) for fn in fns])), False

        def run(frame):
            items = []
            for code, starred in codes:
                value = code[0](frame)
                items.extend(_iterate(value)) if starred else items.append(value)
            return _made(kind(items), limits)
        return run, False

    def e_dict(self, node: ir.Dict) -> Code:
        pairs = [(self.expr(k) if k is not None else None, self.expr(v)) for k, v in zip(node.keys, node.values)]
        limits = self.interp.limits
        codes = [c for pair in pairs for c in pair if c is not None]

        async def run_async(frame):
            result = {}
            for key, value in pairs:
                if key is None:
                    result.update(_mapping(await _ev(value, frame)))
                else:
                    k = await _ev(key, frame)
                    result[k] = await _ev(value, frame)
            return sandbox.check_items(result, limits)

        def run(frame):
            result = {}
            for key, value in pairs:
                if key is None:
                    result.update(_mapping(value[0](frame)))
                else:
                    result[key[0](frame)] = value[0](frame)
            return sandbox.check_items(result, limits)
        return (run_async, True) if _sync_or_async(codes) else (run, False)

    def e_comprehension(self, node) -> Code:
        """List, set, dict comprehensions and generator expressions. A generator expression
        without `await` is lazy as in CPython (its first iterable is evaluated at once, the rest
        as it is consumed), so `any(...)` stops early and a join refuses a generator past the
        fan-out limit without running it further; one that awaits is evaluated eagerly."""
        interp = self.interp
        limits = interp.limits
        clauses = []
        for generator in node.generators:
            comp_id = self.number("comp")
            store, store_is_async = self.target(generator.target)
            if store_is_async:  # rare: `for d[await k()] in ...`; run the store from the async path
                sync_store, async_store = None, store
            else:
                sync_store, async_store = store, None
            clauses.append((comp_id, sync_store, self.expr(generator.iter), [self.expr(c) for c in generator.ifs], async_store))
        if isinstance(node, ir.DictComp):
            key, value = self.expr(node.key), self.expr(node.value)
            element_codes = [key, value]
        else:
            element = self.expr(node.elt)
            element_codes = [element]
        kind = {ir.ListComp: list, ir.SetComp: OrderedSet, ir.GeneratorExp: list, ir.DictComp: dict}[type(node)]
        tracked = any(_has_effects(c) for c in (node.generators, getattr(node, "elt", None), getattr(node, "value", None)) if c is not None)
        all_codes = element_codes + [c[2] for c in clauses] + [i for c in clauses for i in c[3]]
        all_codes += [(c[4], True) for c in clauses if c[4] is not None]
        limit = limits.steps
        is_async = _sync_or_async(all_codes)

        def new_frame(frame):
            return Frame_({}, frame, frame.path, frame.depth, frame.where, is_function=False)

        if not is_async and isinstance(node, ir.GeneratorExp):
            def run_generator(frame):
                inner = new_frame(frame)

                def level(i, items):
                    comp_id, store, _, ifs, _ = clauses[i]
                    base = inner.path
                    for index, item in enumerate(items):
                        interp.steps += 1
                        if interp.steps > limit:
                            raise interp.step_limit()
                        if tracked:
                            inner.path = base + (f"{comp_id}[{index}]",)
                        store(inner, item)
                        if all(cond[0](inner) for cond in ifs):
                            if i + 1 < len(clauses):
                                yield from level(i + 1, _iterate(clauses[i + 1][2][0](inner)))
                            else:
                                yield element[0](inner)
                    inner.path = base
                return DwfIterator(level(0, _iterate(clauses[0][2][0](frame))), "generator")
            return run_generator, False

        if not is_async:
            def run(frame):
                inner = new_frame(frame)
                out = [] if kind is not dict else {}

                def level(i, source_frame):
                    comp_id, store, iterable, ifs, _ = clauses[i]
                    items = _iterate(iterable[0](source_frame if i == 0 else inner))
                    base = inner.path
                    for index, item in enumerate(items):
                        interp.steps += 1
                        if interp.steps > limit:
                            raise interp.step_limit()
                        if tracked:
                            inner.path = base + (f"{comp_id}[{index}]",)
                        store(inner, item)
                        if all(cond[0](inner) for cond in ifs):
                            if i + 1 < len(clauses):
                                level(i + 1, inner)
                            elif kind is dict:
                                out[key[0](inner)] = value[0](inner)
                            else:
                                out.append(element[0](inner))
                            if len(out) > limits.items:
                                raise sandbox.limit_error("items", limits)
                    inner.path = base
                level(0, frame)
                return OrderedSet(out) if kind is OrderedSet else out
            return run, False

        async def run_async(frame):
            inner = new_frame(frame)
            out = [] if kind is not dict else {}

            async def level(i, source_frame):
                comp_id, store, iterable, ifs, async_store = clauses[i]
                items = _iterate(await _ev(iterable, source_frame if i == 0 else inner))
                base = inner.path
                for index, item in enumerate(items):
                    interp.steps += 1
                    if interp.steps > limit:
                        raise interp.step_limit()
                    if tracked:
                        inner.path = base + (f"{comp_id}[{index}]",)
                    if async_store is not None:
                        await async_store(inner, item)
                    else:
                        store(inner, item)
                    ok = True
                    for cond in ifs:
                        if not await _ev(cond, inner):
                            ok = False
                            break
                    if ok:
                        if i + 1 < len(clauses):
                            await level(i + 1, inner)
                        elif kind is dict:
                            k = await _ev(key, inner)
                            out[k] = await _ev(value, inner)
                        else:
                            out.append(await _ev(element, inner))
                        if len(out) > limits.items:
                            raise sandbox.limit_error("items", limits)
                inner.path = base
            await level(0, frame)
            return OrderedSet(out) if kind is OrderedSet else out
        return run_async, True

    def e_call(self, node: ir.Call) -> Code:
        call_id = self.number("call")
        func = self.expr(node.func)
        args = [(self.expr(a.value), True) if isinstance(a, ir.Starred) else (self.expr(a), False) for a in node.args]
        keywords = [(k.name, self.expr(k.value)) for k in node.keywords]
        interp = self.interp
        codes = [func] + [c for c, _ in args] + [c for _, c in keywords]
        simple = not any(starred for _, starred in args) and not keywords

        if not _sync_or_async(codes):
            func_fn = func[0]
            if simple:
                arg_fns = [c[0] for c, _ in args]

                def run_simple(frame):
                    return interp.call_sync(func_fn(frame), [fn(frame) for fn in arg_fns], {}, frame, call_id)
                return run_simple, False

            def run(frame):
                positional, named = _collect_args(frame, args, keywords)
                return interp.call_sync(func_fn(frame), positional, named, frame, call_id)
            return run, False

        async def run_async(frame):
            fn = await _ev(func, frame)
            positional, named = [], {}
            for code, starred in args:
                value = await _ev(code, frame)
                positional.extend(_iterate(value)) if starred else positional.append(value)
            for name, code in keywords:
                value = await _ev(code, frame)
                if name is None:
                    named.update(_mapping(value))
                else:
                    named[name] = value
            return interp.call_sync(fn, positional, named, frame, call_id)
        return run_async, True

    def e_facade(self, node: ir.FacadeCall) -> Code:
        from .effects import compile_facade_call

        return compile_facade_call(self, node)

    def e_invalid(self, node: ir.Invalid) -> Code:
        raise TypeError(f"invalid IR reached the interpreter: {node.what}")


def _unpack(value: Any, count: int, star: int | None) -> list:
    """The values for `count` unpacking targets (the starred one, at `star`, gets a list)."""
    items = list(_iterate(value))
    if star is None:
        if len(items) > count:
            raise ScriptError("ValueError", f"too many values to unpack (expected {count})")
        if len(items) < count:
            raise ScriptError("ValueError", f"not enough values to unpack (expected {count}, got {len(items)})")
        return items
    if len(items) < count - 1:
        raise ScriptError("ValueError", f"not enough values to unpack (expected at least {count - 1}, got {len(items)})")
    after = len(items) - (count - star - 1)
    return items[:star] + [items[star:after]] + items[after:]


def _made(value: Any, limits: Limits) -> Any:
    sandbox.check_items(value, limits)
    sandbox.charge(limits, sandbox.work(value))
    return sandbox.check_tuple(value, limits) if type(value) is tuple else value


def _collect_args(frame, args, keywords):
    positional, named = [], {}
    for code, starred in args:
        value = code[0](frame)
        positional.extend(_iterate(value)) if starred else positional.append(value)
    for name, code in keywords:
        value = code[0](frame)
        if name is None:
            named.update(_mapping(value))
        else:
            named[name] = value
    return positional, named


def _with_frame(error: DwfError, line: int, column: int, frame: Frame_) -> DwfError:
    if isinstance(error, FatalError) and not error.frames:
        error.message += f" at line {line}"  # the innermost script line: fatal errors name it
    error.add_frame(Frame(line, column, frame.where))
    return error


def _out_of_memory() -> FatalError:
    return FatalError("LimitExceeded", "the run ran out of memory")


def _convert(error: BaseException) -> ScriptError:
    converted = sandbox.to_script_error(error)
    if converted is None:
        raise FatalError("InternalError", f"{type(error).__name__}: {error}")
    return converted


def _iterate(value: Any):
    return sandbox.iterable(value)


def _mapping(value: Any) -> dict:
    if isinstance(value, dict):
        return value
    raise ScriptError("TypeError", f"argument after ** must be a mapping, not {type_name(value)}")


def _get_item(container: Any, index: Any) -> Any:
    if isinstance(container, (list, tuple, str, dict, range)):
        return container[index]
    raise ScriptError("TypeError", f"'{type_name(container)}' object is not subscriptable")


def _set_item(container: Any, index: Any, value: Any, limits: Limits) -> None:
    if isinstance(container, ReadOnlyMapping):
        raise ScriptError("TypeError", "`args` is read-only")
    if isinstance(container, (list, dict)):
        if type(index) is slice:
            if not isinstance(container, list):
                raise ScriptError("TypeError", "unhashable type: 'slice'")
            value = _bounded_list(value, limits)  # slice assignment can grow a list
        container[index] = value
        if len(container) > limits.items:
            raise sandbox.limit_error("items", limits)
        return
    raise ScriptError("TypeError", f"'{type_name(container)}' object does not support item assignment")


def _del_item(container: Any, index: Any) -> None:
    if isinstance(container, ReadOnlyMapping):
        raise ScriptError("TypeError", "`args` is read-only")
    if isinstance(container, (list, dict)):
        del container[index]
        return
    raise ScriptError("TypeError", f"'{type_name(container)}' object does not support item deletion")


def _has_effects(value: Any) -> bool:
    """Whether an IR subtree contains an effect or a call of a script function (so loops
    around it must extend the occurrence path)."""
    if isinstance(value, ir.FacadeCall):
        return True
    if isinstance(value, ir.Call):
        if not (isinstance(value.func, ir.Name) and value.func.scope == ir.BUILTIN):
            return True
    if isinstance(value, ir.Node):
        return any(_has_effects(getattr(value, f)) for f in value.__dataclass_fields__ if f != "span")
    if isinstance(value, tuple):
        return any(_has_effects(v) for v in value)
    return False


STATEMENTS: dict[type, Callable] = {
    ir.ExprStmt: Compiler.s_expr, ir.Pass: Compiler.s_pass, ir.Break: Compiler.s_break,
    ir.Continue: Compiler.s_continue, ir.Return: Compiler.s_return, ir.Assign: Compiler.s_assign,
    ir.AnnAssign: Compiler.s_ann_assign, ir.AugAssign: Compiler.s_aug_assign, ir.If: Compiler.s_if,
    ir.For: Compiler.s_for, ir.While: Compiler.s_while, ir.Try: Compiler.s_try, ir.Raise: Compiler.s_raise,
    ir.Assert: Compiler.s_assert, ir.Delete: Compiler.s_delete, ir.FunctionDef: Compiler.s_function,
    ir.Phase: Compiler.s_phase, ir.Import: Compiler.s_import,
}
EXPRESSIONS: dict[type, Callable] = {
    ir.Const: Compiler.e_const, ir.Name: Compiler.e_name, ir.FString: Compiler.e_fstring,
    ir.Attribute: Compiler.e_attribute, ir.Subscript: Compiler.e_subscript, ir.Slice: Compiler.e_slice,
    ir.BinOp: Compiler.e_binop, ir.UnaryOp: Compiler.e_unary, ir.BoolOp: Compiler.e_boolop,
    ir.Compare: Compiler.e_compare, ir.IfExp: Compiler.e_ifexp, ir.Lambda: Compiler.e_lambda,
    ir.Await: Compiler.e_await, ir.NamedExpr: Compiler.e_named, ir.List: Compiler.e_list,
    ir.Tuple: Compiler.e_tuple, ir.Set: Compiler.e_set, ir.Dict: Compiler.e_dict,
    ir.ListComp: Compiler.e_comprehension, ir.SetComp: Compiler.e_comprehension,
    ir.GeneratorExp: Compiler.e_comprehension, ir.DictComp: Compiler.e_comprehension,
    ir.Call: Compiler.e_call, ir.FacadeCall: Compiler.e_facade, ir.Invalid: Compiler.e_invalid,
}
