"""This module defines how expressions compile to closures: `ExpressionCompiler`, the half of the
interpreter's closure compiler that handles names, operators, displays, comprehensions, calls and
facade calls (see `runtime.interpreter.interpreter` for the design)."""

from __future__ import annotations

from dwf.compiler import ir

from dwf.runtime.interpreter import operators, sandbox
from dwf.runtime.interpreter.codegen import NotGenerated, compile_expression
from dwf.runtime.interpreter.facade_calls import compile_facade_call
from dwf.runtime.interpreter.formatting import ascii_text
from dwf.runtime.interpreter.frames import (Code, Frame, any_async, as_mapping, collect_args, collect_args_async,
                                            evaluate, iterate, new_container, subscript, unbound)
from dwf.runtime.values.errors import ScriptError, is_subclass
from dwf.runtime.values.objects import DwfIterator, Facade, LazyAwaitable, class_name, type_name
from dwf.runtime.values.sets import OrderedSet


class ExpressionCompiler:
    """Expression handlers; mixed into `ClosureCompiler`, which provides `interp`, `expr`,
    `store`, `target`, `function_maker` and `qualname_prefix`."""

    def e_const(self, node: ir.Const) -> Code:
        value = node.value
        return Code(lambda frame: value, False)

    def e_name(self, node: ir.Name) -> Code:
        interp, name = self.interp, node.id
        scope = node.scope
        if scope == ir.LOCAL:
            def load_local(frame):
                try:
                    return frame.vars[name]
                except KeyError:
                    raise unbound(name, ir.LOCAL) from None
            return Code(load_local, False)
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
            return Code(load_free, False)
        if scope in (ir.GLOBAL, ir.MODULE):
            globals_ = interp.globals

            def load_global(frame):
                try:
                    return globals_[name]
                except KeyError:
                    raise unbound(name, ir.GLOBAL) from None
            return Code(load_global, False)
        if scope == ir.BUILTIN:
            value = interp.builtins[name]
            return Code(lambda frame: value, False)
        if scope == ir.FACADE:
            if name == "args":
                return Code(lambda frame: interp.args, False)
            if name in interp.facades:
                value = interp.facades[name]
                return Code(lambda frame: value, False)
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
        codes = [code for code, _ in parts if code is not None]
        codes += [extra[1] for code, extra in parts if code is not None and extra[1] is not None]

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
                    spec_text = await evaluate(spec, frame) if spec else ""
                    out.append(convert(await evaluate(code, frame), conversion, spec_text))
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
                    out.append(convert(code.run(frame), conversion, spec.run(frame) if spec else ""))
            text = sandbox.check_string("".join(out), limits)
            sandbox.charge(limits, sandbox.work(text))
            return text
        return Code(run_async, True) if any_async(codes) else Code(run, False)

    def e_attribute(self, node: ir.Attribute) -> Code:
        value_code = self.expr(node.value)
        attr, host = node.attr, self.interp.host

        def get(value):
            if isinstance(value, Facade) and value.name == "budget" and attr == "total":
                return host.budget_total()
            return sandbox.get_attribute(value, attr)
        if value_code.is_async:
            async def run_async(frame):
                return get(await value_code.run(frame))
            return Code(run_async, True)
        fn = value_code.run
        return Code(lambda frame: get(fn(frame)), False)

    def e_subscript(self, node: ir.Subscript) -> Code:
        value, index = self.expr(node.value), self.expr(node.index)
        limits = self.interp.limits

        def get(container, key):  # a slice (`xs[1:3]`, `xs[slice(1, 3)]`) copies: its length is charged
            return subscript(container, key, limits)
        if any_async([value, index]):
            async def run_async(frame):
                return get(await evaluate(value, frame), await evaluate(index, frame))
            return Code(run_async, True)
        v, i = value.run, index.run
        return Code(lambda frame: get(v(frame), i(frame)), False)

    def e_slice(self, node: ir.Slice) -> Code:
        parts = [self.expr(p) if p is not None else None for p in (node.lower, node.upper, node.step)]
        codes = [p for p in parts if p]
        if any_async(codes):
            async def run_async(frame):
                return slice(*[await evaluate(p, frame) if p else None for p in parts])
            return Code(run_async, True)
        return Code(lambda frame: slice(*[p.run(frame) if p else None for p in parts]), False)

    def e_binop(self, node: ir.BinOp) -> Code:
        left, right = self.expr(node.left), self.expr(node.right)
        op, limits = operators.BINARY[node.op], self.interp.limits
        if any_async([left, right]):
            async def run_async(frame):
                a = await evaluate(left, frame)
                return op(a, await evaluate(right, frame), limits)
            return Code(run_async, True)
        l, r = left.run, right.run
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
            return Code(add, False)
        return Code(lambda frame: op(l(frame), r(frame), limits), False)

    def e_unary(self, node: ir.UnaryOp) -> Code:
        operand = self.expr(node.operand)
        op = operators.UNARY[node.op]
        if operand.is_async:
            async def run_async(frame):
                return op(await operand.run(frame))
            return Code(run_async, True)
        fn = operand.run
        return Code(lambda frame: op(fn(frame)), False)

    def e_boolop(self, node: ir.BoolOp) -> Code:
        values = [self.expr(v) for v in node.values]
        is_and = node.op == "and"
        if any_async(values):
            async def run_async(frame):
                result = None
                for code in values:
                    result = await evaluate(code, frame)
                    if bool(result) != is_and:
                        return result
                return result
            return Code(run_async, True)
        fns = [v.run for v in values]

        def run(frame):
            result = None
            for fn in fns:
                result = fn(frame)
                if bool(result) != is_and:
                    return result
            return result
        return Code(run, False)

    def e_compare(self, node: ir.Compare) -> Code:
        left = self.expr(node.left)
        comparators = [self.expr(c) for c in node.comparators]
        ops = [operators.COMPARE[o] for o in node.ops]
        limits = self.interp.limits
        if any_async([left] + comparators):
            async def run_async(frame):
                a = await evaluate(left, frame)
                for op, code in zip(ops, comparators):
                    b = await evaluate(code, frame)
                    if not op(a, b, limits):
                        return False
                    a = b
                return True
            return Code(run_async, True)
        if len(ops) == 1:
            op, l, r = ops[0], left.run, comparators[0].run
            return Code(lambda frame: op(l(frame), r(frame), limits), False)
        fns = [c.run for c in comparators]
        l = left.run

        def run(frame):
            a = l(frame)
            for op, fn in zip(ops, fns):
                b = fn(frame)
                if not op(a, b, limits):
                    return False
                a = b
            return True
        return Code(run, False)

    def e_ifexp(self, node: ir.IfExp) -> Code:
        test, body, orelse = self.expr(node.test), self.expr(node.body), self.expr(node.orelse)
        if any_async([test, body, orelse]):
            async def run_async(frame):
                return await evaluate(body, frame) if await evaluate(test, frame) else await evaluate(orelse, frame)
            return Code(run_async, True)
        t, b, o = test.run, body.run, orelse.run
        return Code(lambda frame: b(frame) if t(frame) else o(frame), False)

    def e_lambda(self, node: ir.Lambda) -> Code:
        return self.function_maker("<lambda>", self.qualname_prefix + "<lambda>", node.params,
                                   lambda: self.lambda_body(node.body), False, is_expression=True)

    def lambda_body(self, body: ir.Node):
        """A lambda's body as one generated function (`codegen.py`), else as its closure."""
        if self.generate:
            try:
                return compile_expression(self, body)
            except NotGenerated:
                pass
        return self.expr(body).run

    def e_await(self, node: ir.Await) -> Code:
        value = self.expr(node.value)

        async def run(frame):
            awaitable = await evaluate(value, frame)
            if not isinstance(awaitable, LazyAwaitable):
                raise ScriptError("TypeError", f"object {type_name(awaitable)} can't be used in 'await' expression")
            return await awaitable.wait()
        return Code(run, True)

    def e_named(self, node: ir.NamedExpr) -> Code:
        value = self.expr(node.value)
        store = self.store(node.target)
        if value.is_async:
            async def run_async(frame):
                result = await value.run(frame)
                store(frame, result)
                return result
            return Code(run_async, True)
        fn = value.run

        def run(frame):
            result = fn(frame)
            store(frame, result)
            return result
        return Code(run, False)

    def e_list(self, node) -> Code:
        return self._display(node.elts, list)

    def e_tuple(self, node) -> Code:
        return self._display(node.elts, tuple)

    def e_set(self, node) -> Code:
        return self._display(node.elts, OrderedSet)

    def _display(self, elts, kind) -> Code:
        codes = [(self.expr(e.value), True) if isinstance(e, ir.Starred) else (self.expr(e), False) for e in elts]
        limits = self.interp.limits

        def keyed(items: list) -> list:  # a set hashes its items
            if kind is OrderedSet:
                sandbox.charge_keys(limits, items)
            return items

        if any_async([c for c, _ in codes]):
            async def run_async(frame):
                items = []
                for code, starred in codes:
                    value = await evaluate(code, frame)
                    items.extend(iterate(value)) if starred else items.append(value)
                return new_container(kind(keyed(items)), limits)
            return Code(run_async, True)
        if not any(starred for _, starred in codes):
            fns = [c.run for c, _ in codes]
            if kind is tuple:
                return Code(lambda frame: sandbox.check_tuple(tuple([fn(frame) for fn in fns]), limits), False)
            if kind is OrderedSet:
                return Code(lambda frame: OrderedSet(keyed([fn(frame) for fn in fns])), False)
            return Code(lambda frame: kind([fn(frame) for fn in fns]), False)

        def run(frame):
            items = []
            for code, starred in codes:
                value = code.run(frame)
                items.extend(iterate(value)) if starred else items.append(value)
            return new_container(kind(keyed(items)), limits)
        return Code(run, False)

    def e_dict(self, node: ir.Dict) -> Code:
        pairs = [(self.expr(k) if k is not None else None, self.expr(v)) for k, v in zip(node.keys, node.values)]
        limits = self.interp.limits
        codes = [c for pair in pairs for c in pair if c is not None]

        async def run_async(frame):
            result = {}
            for key, value in pairs:
                if key is None:
                    result.update(as_mapping(await evaluate(value, frame)))
                else:
                    k = await evaluate(key, frame)
                    sandbox.charge_key(limits, k)
                    result[k] = await evaluate(value, frame)
            return sandbox.check_items(result, limits)

        def run(frame):
            result = {}
            for key, value in pairs:
                if key is None:
                    result.update(as_mapping(value.run(frame)))
                else:
                    k = key.run(frame)
                    sandbox.charge_key(limits, k)
                    result[k] = value.run(frame)
            return sandbox.check_items(result, limits)
        return Code(run_async, True) if any_async(codes) else Code(run, False)

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
        is_async = any_async(all_codes)

        def new_frame(frame):
            return Frame({}, frame, frame.path, frame.depth, frame.where, is_function=False)

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
                        if all(cond.run(inner) for cond in ifs):
                            if i + 1 < len(clauses):
                                yield from level(i + 1, iterate(clauses[i + 1][2].run(inner)))
                            else:
                                yield element.run(inner)
                    inner.path = base
                return DwfIterator(_no_stop_iteration(level(0, iterate(clauses[0][2].run(frame)))), "generator")
            return Code(run_generator, False)

        if not is_async:
            def run(frame):
                inner = new_frame(frame)
                out = [] if kind is not dict else {}

                def level(i, source_frame):
                    comp_id, store, iterable, ifs, _ = clauses[i]
                    items = iterate(iterable.run(source_frame if i == 0 else inner))
                    base = inner.path
                    for index, item in enumerate(items):
                        interp.steps += 1
                        if interp.steps > limit:
                            raise interp.step_limit()
                        if tracked:
                            inner.path = base + (f"{comp_id}[{index}]",)
                        store(inner, item)
                        if all(cond.run(inner) for cond in ifs):
                            if i + 1 < len(clauses):
                                level(i + 1, inner)
                            elif kind is dict:
                                k = key.run(inner)
                                sandbox.charge_key(limits, k)
                                out[k] = value.run(inner)
                            else:
                                out.append(element.run(inner))
                            if len(out) > limits.items:
                                raise sandbox.limit_error("items", limits)
                    inner.path = base
                level(0, frame)
                if kind is OrderedSet:
                    sandbox.charge_keys(limits, out)
                    return OrderedSet(out)
                return out
            return Code(run, False)

        async def run_async(frame):
            inner = new_frame(frame)
            out = [] if kind is not dict else {}

            async def level(i, source_frame):
                comp_id, store, iterable, ifs, async_store = clauses[i]
                items = iterate(await evaluate(iterable, source_frame if i == 0 else inner))
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
                        if not await evaluate(cond, inner):
                            ok = False
                            break
                    if ok:
                        if i + 1 < len(clauses):
                            await level(i + 1, inner)
                        elif kind is dict:
                            k = await evaluate(key, inner)
                            sandbox.charge_key(limits, k)
                            out[k] = await evaluate(value, inner)
                        else:
                            out.append(await evaluate(element, inner))
                        if len(out) > limits.items:
                            raise sandbox.limit_error("items", limits)
                inner.path = base
            await level(0, frame)
            if kind is OrderedSet:
                sandbox.charge_keys(limits, out)
                return OrderedSet(out)
            return out
        return Code(run_async, True)

    def e_call(self, node: ir.Call) -> Code:
        call_id = node.call_id
        func = self.expr(node.func)
        args = [(self.expr(a.value), True) if isinstance(a, ir.Starred) else (self.expr(a), False) for a in node.args]
        keywords = [(k.name, self.expr(k.value)) for k in node.keywords]
        interp = self.interp
        codes = [func] + [c for c, _ in args] + [c for _, c in keywords]
        simple = not any(starred for _, starred in args) and not keywords

        if not any_async(codes):
            func_fn = func.run
            if simple:
                arg_fns = [c.run for c, _ in args]

                def run_simple(frame):
                    return interp.call_sync(func_fn(frame), [fn(frame) for fn in arg_fns], {}, frame, call_id)
                return Code(run_simple, False)

            def run(frame):
                fn = func_fn(frame)  # the callee is evaluated before its arguments, as in CPython
                positional, named = collect_args(frame, args, keywords, fn)
                return interp.call_sync(fn, positional, named, frame, call_id)
            return Code(run, False)

        async def run_async(frame):
            fn = await evaluate(func, frame)
            positional, named = await collect_args_async(frame, args, keywords, fn)
            return interp.call_sync(fn, positional, named, frame, call_id)
        return Code(run_async, True)

    def e_facade(self, node: ir.FacadeCall) -> Code:
        return compile_facade_call(self, node)

    def e_type_name(self, node: ir.TypeName) -> Code:
        value = self.expr(node.value)
        if value.is_async:
            async def run_async(frame):
                return class_name(await value.run(frame))
            return Code(run_async, True)
        fn = value.run
        return Code(lambda frame: class_name(fn(frame)), False)

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
