"""This module defines how statements compile to closures: `StatementCompiler`, the half of the
interpreter's compiler that handles assignments, control flow, `try`, definitions and targets
(see `runtime.interpreter.interpreter` for the design)."""

from __future__ import annotations

from typing import Any, Callable

from dwf.compiler import ir

from dwf.runtime.interpreter import operators, sandbox
from dwf.runtime.values.errors import ScriptError
from dwf.runtime.interpreter.frames import (PYTHON_ERRORS, BreakSignal, Code, ContinueSignal, Frame, ReturnSignal,
                                            any_async, convert_error, del_item, evaluate, iterate, set_item, subscript,
                                            unbound, unpack)
from dwf.runtime.interpreter.calls import Signature, instantiate
from dwf.runtime.values.objects import ExceptionType, ScriptFunction


class StatementCompiler:
    """Statement handlers; mixed into `ClosureCompiler`, which provides `interp`, `expr`, `block`
    and `qualname_prefix`."""

    def s_expr(self, node: ir.ExprStmt) -> Code:
        return self.expr(node.value)

    def s_pass(self, node) -> Code:
        return Code(lambda frame: None, False)

    def s_break(self, node) -> Code:
        def run(frame):
            raise BreakSignal()
        return Code(run, False)

    def s_continue(self, node) -> Code:
        def run(frame):
            raise ContinueSignal()
        return Code(run, False)

    def s_return(self, node: ir.Return) -> Code:
        if node.value is None:
            def run_none(frame):
                raise ReturnSignal(None)
            return Code(run_none, False)
        value, is_async = self.expr(node.value)
        if is_async:
            async def run_async(frame):
                raise ReturnSignal(await value(frame))
            return Code(run_async, True)

        def run(frame):
            raise ReturnSignal(value(frame))
        return Code(run, False)

    def s_assign(self, node: ir.Assign) -> Code:
        value, is_async = self.expr(node.value)
        targets = [self.target(t) for t in node.targets]
        if any_async(targets):
            async def run_targets_async(frame):
                result = await evaluate((value, is_async), frame)
                for store, store_is_async in targets:
                    if store_is_async:
                        await store(frame, result)
                    else:
                        store(frame, result)
            return Code(run_targets_async, True)
        stores = [store for store, _ in targets]
        if len(stores) == 1:
            store = stores[0]
            if is_async:
                async def run_one_async(frame):
                    store(frame, await value(frame))
                return Code(run_one_async, True)

            def run_one(frame):
                store(frame, value(frame))
            return Code(run_one, False)

        async def run_many_async(frame):
            result = await evaluate((value, is_async), frame)
            for store in stores:
                store(frame, result)

        def run_many(frame):
            result = value(frame)
            for store in stores:
                store(frame, result)
        return Code(run_many_async, True) if is_async else Code(run_many, False)

    def s_ann_assign(self, node: ir.AnnAssign) -> Code:
        if node.value is None:
            return self.s_pass(node)
        return self.s_assign(ir.Assign(node.span, (node.target,), node.value))

    def s_aug_assign(self, node: ir.AugAssign) -> Code:
        op = operators.INPLACE[node.op]
        limits = self.interp.limits
        value_code = self.expr(node.value)
        target = node.target
        if isinstance(target, ir.Subscript):
            container_code = self.expr(target.value)
            index_code = self.expr(target.index)
            parts = [container_code, index_code, value_code]

            async def run_sub_async(frame):
                container = await evaluate(container_code, frame)
                index = await evaluate(index_code, frame)
                left = subscript(container, index, limits)
                set_item(container, index, op(left, await evaluate(value_code, frame), limits), limits)

            def run_sub(frame):
                container = container_code.run(frame)
                index = index_code.run(frame)
                set_item(container, index, op(subscript(container, index, limits), value_code.run(frame), limits), limits)
            return Code(run_sub_async, True) if any_async(parts) else Code(run_sub, False)
        load, _ = self.expr(target)
        store = self.store(target)

        async def run_async(frame):
            left = load(frame)
            store(frame, op(left, await evaluate(value_code, frame), limits))

        def run(frame):
            store(frame, op(load(frame), value_code.run(frame), limits))
        return Code(run_async, True) if value_code.is_async else Code(run, False)

    def s_if(self, node: ir.If) -> Code:
        test = self.expr(node.test)
        body = self.block(node.body)
        orelse = self.block(node.orelse)
        if any_async([test, body, orelse]):
            async def run_async(frame):
                if await evaluate(test, frame):
                    await evaluate(body, frame)
                else:
                    await evaluate(orelse, frame)
            return Code(run_async, True)
        test_fn, body_fn, else_fn = test.run, body.run, orelse.run

        def run(frame):
            if test_fn(frame):
                body_fn(frame)
            else:
                else_fn(frame)
        return Code(run, False)

    def s_for(self, node: ir.For) -> Code:
        loop_id, tracked = node.loop_id, node.has_effects
        iterable = self.expr(node.iter)
        store, store_is_async = self.target(node.target)
        body = self.block(node.body)
        orelse = self.block(node.orelse)
        if any_async([iterable, body, orelse, (store, store_is_async)]):
            async def run_async(frame):
                items = iterate(await evaluate(iterable, frame))
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
                            await evaluate(body, frame)
                        except ContinueSignal:
                            continue
                        except BreakSignal:
                            broke = True
                            break
                finally:
                    frame.path = base
                if not broke:
                    await evaluate(orelse, frame)
            return Code(run_async, True)
        body_fn, else_fn, iter_fn = body.run, orelse.run, iterable.run

        def run(frame):
            items = iterate(iter_fn(frame))
            base = frame.path
            try:
                for index, item in enumerate(items):
                    if tracked:
                        frame.path = base + (f"{loop_id}[{index}]",)
                    store(frame, item)
                    try:
                        body_fn(frame)
                    except ContinueSignal:
                        continue
                    except BreakSignal:
                        break
                else:
                    else_fn(frame)
            finally:
                frame.path = base
        return Code(run, False)

    def s_while(self, node: ir.While) -> Code:
        loop_id, tracked = node.loop_id, node.has_effects
        test = self.expr(node.test)
        body = self.block(node.body)
        orelse = self.block(node.orelse)
        interp = self.interp
        limit = interp.limits.steps
        if any_async([test, body, orelse]):
            async def run_async(frame):
                base = frame.path
                index = 0
                broke = False
                try:
                    while await evaluate(test, frame):
                        interp.steps += 1
                        if interp.steps > limit:
                            raise interp.step_limit()
                        if tracked:
                            frame.path = base + (f"{loop_id}[{index}]",)
                        index += 1
                        try:
                            await evaluate(body, frame)
                        except ContinueSignal:
                            continue
                        except BreakSignal:
                            broke = True
                            break
                finally:
                    frame.path = base
                if not broke:
                    await evaluate(orelse, frame)
            return Code(run_async, True)
        test_fn, body_fn, else_fn = test.run, body.run, orelse.run

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
                    except ContinueSignal:
                        continue
                    except BreakSignal:
                        break
                else:
                    else_fn(frame)
            finally:
                frame.path = base
        return Code(run, False)

    def s_try(self, node: ir.Try) -> Code:
        body = self.block(node.body)
        handlers = [(self.expr(h.type) if h.type is not None else None, h.name, self.block(h.body)) for h in node.handlers]
        orelse = self.block(node.orelse)
        finalbody = self.block(node.finalbody)
        parts = [body, orelse, finalbody] + [h[2] for h in handlers] + [h[0] for h in handlers if h[0]]

        def match(error: ScriptError, kind_value) -> bool:
            kinds = kind_value if isinstance(kind_value, tuple) else (kind_value,)
            if not all(isinstance(kind, ExceptionType) for kind in kinds):  # CPython checks them all first
                raise ScriptError("TypeError", "catching classes that do not inherit from BaseException is not allowed")
            return any(error.is_a(kind.name) for kind in kinds)

        async def run_async(frame):
            try:
                try:
                    await evaluate(body, frame)
                except (ScriptError, *PYTHON_ERRORS) as raised:
                    error = convert_error(raised)
                    for kind_code, name, handler_body in handlers:
                        if kind_code is None or match(error, await evaluate(kind_code, frame)):
                            if name is not None:
                                frame.vars[name] = error
                            frame.handling.append(error)
                            try:
                                await evaluate(handler_body, frame)
                            finally:
                                frame.handling.pop()
                                if name is not None:  # as CPython: the name is unbound after the handler
                                    frame.vars.pop(name, None)
                            break
                    else:
                        raise error from None
                else:
                    await evaluate(orelse, frame)
            finally:
                await evaluate(finalbody, frame)

        def run(frame):
            try:
                try:
                    body.run(frame)
                except (ScriptError, *PYTHON_ERRORS) as raised:
                    error = convert_error(raised)
                    for kind_code, name, handler_body in handlers:
                        if kind_code is None or match(error, kind_code.run(frame)):
                            if name is not None:
                                frame.vars[name] = error
                            frame.handling.append(error)
                            try:
                                handler_body.run(frame)
                            finally:
                                frame.handling.pop()
                                if name is not None:  # as CPython: the name is unbound after the handler
                                    frame.vars.pop(name, None)
                            break
                    else:
                        raise error from None
                else:
                    orelse.run(frame)
            finally:
                finalbody.run(frame)
        return Code(run_async, True) if any_async(parts) else Code(run, False)

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
                    raise ScriptError("RuntimeError", "No active exception to reraise")
                raise frame.handling[-1]
            if isinstance(value, ExceptionType):
                value = instantiate(value, [], {})  # no arguments: nothing to render
            if not isinstance(value, ScriptError):
                raise ScriptError("TypeError", "exceptions must derive from BaseException")
            raise value

        if exc is None:
            return Code(lambda frame: build(frame, None), False)
        if exc.is_async or (cause is not None and cause.is_async):
            async def run_async(frame):
                value = await evaluate(exc, frame)
                if cause is not None:
                    check_cause(await evaluate(cause, frame))
                build(frame, value)
            return Code(run_async, True)

        def run(frame):
            value = exc.run(frame)
            if cause is not None:
                check_cause(cause.run(frame))
            build(frame, value)
        return Code(run, False)

    def s_assert(self, node: ir.Assert) -> Code:
        limits = self.interp.limits
        test = self.expr(node.test)
        msg = self.expr(node.msg) if node.msg is not None else None

        def failure(message_value, has_message: bool) -> ScriptError:
            if not has_message:
                return ScriptError("AssertionError", "")
            return ScriptError("AssertionError", sandbox.display(message_value, limits), args=(message_value,))

        async def run_async(frame):
            if not await evaluate(test, frame):
                raise failure(await evaluate(msg, frame) if msg else None, msg is not None)

        def run(frame):
            if not test.run(frame):
                raise failure(msg.run(frame) if msg else None, msg is not None)
        return Code(run_async, True) if any_async([test] + ([msg] if msg else [])) else Code(run, False)

    def s_delete(self, node: ir.Delete) -> Code:
        deleters: list[tuple[Callable, bool]] = []
        limits = self.interp.limits
        for target in node.targets:
            if isinstance(target, ir.Name):
                deleters.append((self._delete_name(target), False))
                continue
            container, index = self.expr(target.value), self.expr(target.index)
            if any_async([container, index]):
                async def delete_async(frame, container=container, index=index):
                    holder = await evaluate(container, frame)
                    del_item(holder, await evaluate(index, frame), limits)
                deleters.append((delete_async, True))
            else:
                deleters.append((lambda frame, c=container.run, i=index.run: del_item(c(frame), i(frame), limits), False))

        if any_async(deleters):
            async def run_async(frame):
                for deleter, is_async in deleters:
                    if is_async:
                        await deleter(frame)
                    else:
                        deleter(frame)
            return Code(run_async, True)

        def run(frame):
            for deleter, _ in deleters:
                deleter(frame)
        return Code(run, False)

    def _delete_name(self, target: ir.Name):
        interp, name = self.interp, target.id

        def delete(frame):
            scope = interp.globals if target.scope == ir.GLOBAL else frame.vars
            if name not in scope:
                raise unbound(name, target.scope)
            del scope[name]
        return delete

    def s_function(self, node: ir.FunctionDef) -> Code:
        qualname = self.qualname_prefix + node.name
        make = self.function_maker(node.name, qualname, node.params, lambda: self.block(node.body), node.is_async)
        store = self.store(ir.Name(node.span, node.name, node.scope))
        make_fn, is_async = make
        if is_async:
            async def run_async(frame):
                store(frame, await make_fn(frame))
            return Code(run_async, True)
        return Code(lambda frame: store(frame, make_fn(frame)), False)

    def function_maker(self, name: str, qualname: str, params: tuple, compile_body: Callable, is_async: bool,
                       is_expression: bool = False) -> Code:
        """Code that makes a `ScriptFunction` when a `def` or `lambda` runs: its defaults are
        evaluated then, once, in the defining frame (as CPython does), so a mutable default is
        shared by every call. Defaults are compiled with the enclosing qualname, the body with
        `qualname.<locals>.`; a default that awaits makes the definition itself async."""
        signature = Signature(params)
        defaults = [(p.name, self.expr(p.default)) for p in params if p.default is not None]
        outer, self.qualname_prefix = self.qualname_prefix, qualname + ".<locals>."
        try:
            body = compile_body()
        finally:
            self.qualname_prefix = outer
        code = (signature, body if is_async or is_expression else body.run, is_expression)
        if not any_async([c for _, c in defaults]):
            plain = [(key, c.run) for key, c in defaults]

            def make(frame):
                return ScriptFunction(name, code, frame, {key: fn(frame) for key, fn in plain}, is_async, qualname)
            return Code(make, False)

        async def make_async(frame):
            values = {}
            for key, c in defaults:
                values[key] = await evaluate(c, frame)
            return ScriptFunction(name, code, frame, values, is_async, qualname)
        return Code(make_async, True)

    def s_exception_class(self, node: ir.ExceptionClass) -> Code:
        base_code = self.expr(node.base)
        globals_, name = self.interp.globals, node.name

        def run(frame):
            base = base_code.run(frame)
            if not isinstance(base, ExceptionType):  # the compiler only lets exception classes through
                raise ScriptError("TypeError", f"the base of `{name}` is not an exception class")
            globals_[name] = ExceptionType(name, (name, *base.lineage))
        return Code(run, False)

    def s_phase(self, node: ir.Phase) -> Code:
        host, name = self.interp.host, node.name
        return Code(lambda frame: host.enter_phase(name), False)

    def s_import(self, node: ir.Import) -> Code:
        interp = self.interp
        module = interp.modules[node.module]
        if node.members:
            members = [(bound, module.members[member]) for member, bound in node.members]

            def run_from(frame):
                interp.globals.update(members)
            return Code(run_from, False)

        def run(frame):
            interp.globals[node.name] = module
        return Code(run, False)

    # ------------------------------------------------------------ targets

    def store(self, target: ir.Node) -> Callable[[Frame, Any], None]:
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
            if any_async([container, index]):
                async def store_item_async(frame, value):
                    holder = await evaluate(container, frame)
                    set_item(holder, await evaluate(index, frame), value, limits)
                return store_item_async, True
            c, i = container[0], index[0]
            return (lambda frame, value: set_item(c(frame), i(frame), value, limits)), False
        if isinstance(target, (ir.Tuple, ir.List)):
            parts = [self.target(e) for e in target.elts]
            star = next((i for i, e in enumerate(target.elts) if isinstance(e, ir.Starred)), None)
            count = len(parts)
            if any_async(parts):
                async def store_each_async(frame, value):
                    for (store, is_async), item in zip(parts, unpack(value, count, star)):
                        if is_async:
                            await store(frame, item)
                        else:
                            store(frame, item)
                return store_each_async, True
            stores = [store for store, _ in parts]

            def store_each(frame, value):
                for store, item in zip(stores, unpack(value, count, star)):
                    store(frame, item)
            return store_each, False
        if isinstance(target, ir.Starred):
            return self.target(target.value)
        if isinstance(target, ir.Name):
            return self.store(target), False
        raise TypeError(f"cannot store into {type(target).__name__}")

