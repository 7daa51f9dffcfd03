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

from dwf.compiler import ir
from dwf.grammar import facade as F

from dwf.runtime.interpreter import sandbox
from dwf.runtime.interpreter.builtins import make_builtins, make_modules
from dwf.runtime.interpreter.calls import bind_arguments, call_method, call_unbound
from dwf.runtime.values.errors import DwfError, FatalError, ScriptError, is_subclass
from dwf.runtime.interpreter.exceptions import instantiate
from dwf.runtime.interpreter.formatting import ascii_text
from dwf.runtime.interpreter.frames import (_PYTHON_ERRORS, Code, Frame_, _collect_args, add_keywords, star_arguments, _convert, _ev, _get_item, _iterate,
                     _made, _mapping, _out_of_memory, _Return, _sync_or_async, _with_frame, unbound)
from dwf.runtime.interpreter.limits import Limits
from dwf.runtime.interpreter.statements import StatementCompiler
from dwf.runtime.values.objects import (BoundMethod, BuiltinFunction, DwfIterator, ExceptionType, Facade, LazyAwaitable, OrderedSet,
                     ReadOnlyMapping, ScriptFunction, UnboundMethod, class_name, type_name)

# Python frames used per script call level are well below this; DWF's own recursion limit
# (Limits.recursion) stops scripts long before Python's would.
sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))


class Interpreter:
    """Runs one program. `host` implements the effect calls (see `runtime.engine.engine.RunHost`)."""

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
        if isinstance(fn, (BuiltinFunction, BoundMethod, UnboundMethod)):
            previous, self.caller = self.caller, frame
            try:
                if isinstance(fn, BuiltinFunction):
                    return fn.fn(self, args, kwargs)
                if isinstance(fn, UnboundMethod):
                    return call_unbound(self, fn, args, kwargs)
                return call_method(self, fn, args, kwargs)
            finally:
                self.caller = previous
        if isinstance(fn, ExceptionType):
            return instantiate(fn, args, kwargs, self.limits)
        raise ScriptError("TypeError", f"'{type_name(fn)}' object is not callable")

    def _new_frame(self, fn: ScriptFunction, args: list, kwargs: dict, caller: Frame_ | None, call_id: str) -> Frame_:
        depth = (caller.depth if caller else 0) + 1
        if depth > self.limits.recursion:
            raise sandbox.limit_error("recursion", self.limits)
        self.steps += 1  # a call is a step, so lambdas called by builtins count too
        if self.steps > self.limits.steps:
            raise self.step_limit()
        signature, _, _ = fn.code
        path = (caller.path if caller else ()) + (call_id,)
        frame = Frame_(bind_arguments(fn, signature, args, kwargs, self.limits), fn.env, path, depth, f"{fn.name}()")
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


class Compiler(StatementCompiler):
    """Compiles IR nodes to closures; one method per node type (`EXPRESSIONS`, `STATEMENTS`)."""

    def __init__(self, interp: Interpreter):
        self.interp = interp
        # What CPython's `__qualname__` of a function defined here starts with: "" at the top
        # level, "f.<locals>." inside `f`, "f.<locals>.<listcomp>." inside a comprehension.
        self.qualname_prefix = ""

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
                    except _STATEMENT_FAILURES as error:
                        raise _located(interp, error, line, column, frame) from None

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
                except _STATEMENT_FAILURES as error:
                    raise _located(interp, error, line, column, frame) from None

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
                    raise unbound(name, ir.LOCAL) from None
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
                raise unbound(name, ir.FREE)
            return load_free, False
        if scope in (ir.GLOBAL, ir.MODULE):
            globals_ = interp.globals

            def load_global(frame):
                try:
                    return globals_[name]
                except KeyError:
                    raise unbound(name, ir.GLOBAL) from None
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
                value = ascii_text(value, limits)
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
            limits = self.interp.limits

            def get(container, key):
                result = _get_item(container, key)
                if type(key) is slice:  # `xs[slice(1, 3)]` copies like `xs[1:3]`
                    sandbox.charge(limits, sandbox.work(result))
                return result
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
        return self.function_maker("<lambda>", self.qualname_prefix + "<lambda>", node.params,
                                   lambda: self.expr(node.body)[0], False, is_expression=True)

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
        # Only the first iterable is evaluated outside the comprehension's own scope (which
        # CPython names `<listcomp>` and so on in the qualnames of lambdas made inside it).
        outer_prefix = self.qualname_prefix
        inner_prefix = outer_prefix + _COMPREHENSION_NAMES[type(node)] + "."
        try:
            for index, generator in enumerate(node.generators):
                comp_id = generator.loop_id
                self.qualname_prefix = inner_prefix
                store, store_is_async = self.target(generator.target)
                if store_is_async:  # rare: `for d[await k()] in ...`; run the store from the async path
                    sync_store, async_store = None, store
                else:
                    sync_store, async_store = store, None
                self.qualname_prefix = outer_prefix if index == 0 else inner_prefix
                iterable = self.expr(generator.iter)
                self.qualname_prefix = inner_prefix
                clauses.append((comp_id, sync_store, iterable, [self.expr(c) for c in generator.ifs], async_store))
            if isinstance(node, ir.DictComp):
                key, value = self.expr(node.key), self.expr(node.value)
                element_codes = [key, value]
            else:
                element = self.expr(node.elt)
                element_codes = [element]
        finally:
            self.qualname_prefix = outer_prefix
        kind = {ir.ListComp: list, ir.SetComp: OrderedSet, ir.GeneratorExp: list, ir.DictComp: dict}[type(node)]
        tracked = node.has_effects
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
                return DwfIterator(_no_stop_iteration(level(0, _iterate(clauses[0][2][0](frame)))), "generator")
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
        call_id = node.call_id
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
                fn = func_fn(frame)  # the callee is evaluated before its arguments, as in CPython
                positional, named = _collect_args(frame, args, keywords, fn)
                return interp.call_sync(fn, positional, named, frame, call_id)
            return run, False

        alone = len(args) == 1

        async def run_async(frame):
            fn = await _ev(func, frame)
            positional, named = [], {}
            for code, starred in args:
                value = await _ev(code, frame)
                positional.extend(star_arguments(value, fn, alone)) if starred else positional.append(value)
            for name, code in keywords:
                add_keywords(named, name, await _ev(code, frame), fn)
            return interp.call_sync(fn, positional, named, frame, call_id)
        return run_async, True

    def e_facade(self, node: ir.FacadeCall) -> Code:
        from dwf.runtime.interpreter.facade_calls import compile_facade_call

        return compile_facade_call(self, node)

    def e_type_name(self, node: ir.TypeName) -> Code:
        value = self.expr(node.value)
        if value[1]:
            async def run_async(frame):
                return class_name(await value[0](frame))
            return run_async, True
        fn = value[0]
        return (lambda frame: class_name(fn(frame))), False

    def e_invalid(self, node: ir.Invalid) -> Code:
        raise TypeError(f"invalid IR reached the interpreter: {node.what}")


def _no_stop_iteration(generator):
    """A StopIteration escaping a generator expression's body is CPython's RuntimeError (PEP 479),
    never a silent end of the generator."""
    try:
        yield from generator
    except ScriptError as error:
        if is_subclass(error.type_name, "StopIteration"):
            raise ScriptError("RuntimeError", "generator raised StopIteration") from None
        raise


_COMPREHENSION_NAMES = {ir.ListComp: "<listcomp>", ir.SetComp: "<setcomp>", ir.GeneratorExp: "<genexpr>",
                        ir.DictComp: "<dictcomp>"}
_STATEMENT_FAILURES = (DwfError, RecursionError, MemoryError, *_PYTHON_ERRORS)


def _located(interp: Interpreter, error: BaseException, line: int, column: int, frame: Frame_) -> DwfError:
    """The DWF error a failing statement ends with, carrying this statement as a traceback frame:
    DWF errors as they are, Python errors of allowed operations as script exceptions, runaway
    recursion and memory as limit errors."""
    if isinstance(error, DwfError):
        failure = error
    elif isinstance(error, RecursionError):
        failure = sandbox.limit_error("recursion", interp.limits)
    elif isinstance(error, MemoryError):
        failure = _out_of_memory()
    else:
        failure = _convert(error)
    return _with_frame(failure, line, column, frame)


STATEMENTS: dict[type, Callable] = {
    ir.ExprStmt: Compiler.s_expr, ir.Pass: Compiler.s_pass, ir.Break: Compiler.s_break,
    ir.Continue: Compiler.s_continue, ir.Return: Compiler.s_return, ir.Assign: Compiler.s_assign,
    ir.AnnAssign: Compiler.s_ann_assign, ir.AugAssign: Compiler.s_aug_assign, ir.If: Compiler.s_if,
    ir.For: Compiler.s_for, ir.While: Compiler.s_while, ir.Try: Compiler.s_try, ir.Raise: Compiler.s_raise,
    ir.Assert: Compiler.s_assert, ir.Delete: Compiler.s_delete, ir.FunctionDef: Compiler.s_function,
    ir.Phase: Compiler.s_phase, ir.Import: Compiler.s_import, ir.ExceptionClass: Compiler.s_exception_class,
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
    ir.Call: Compiler.e_call, ir.FacadeCall: Compiler.e_facade, ir.TypeName: Compiler.e_type_name,
    ir.Invalid: Compiler.e_invalid,
}
