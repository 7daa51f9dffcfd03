"""This module defines the interpreter: it runs an analyzed IR program against an effect host.

How it works. The IR is compiled once, before the run, into Python closures: a dispatch table
maps each IR node type to a compile method (a node type without one is a compiler bug), and
each method returns a `Code`: a closure plus a flag saying whether the closure is async. Only code that
contains `await` is async; a pure expression or statement, and every plain `def` and `lambda`
body (which cannot await), runs as an ordinary synchronous call. That keeps the interpreter's
hot path free of coroutine overhead while the awaiting parts still run under anyio.

State lives in `Frame`s passed explicitly (never in globals): the variables of one function
invocation or comprehension, the frame it was defined in (for free variables), the occurrence
path and the recursion depth. Control flow (`break`, `continue`, `return`) uses signal
exceptions (`frames.BreakSignal`, ...) that never leave the interpreter. The compile methods live
in two mixins, `StatementCompiler` (statements.py) and `ExpressionCompiler` (expressions.py);
`ClosureCompiler` here combines them with the dispatch tables and blocks.

Effects. Facade calls go to the host (`host.EffectHost`, the engine), which journals and
schedules them. Effect calls that return awaitables build a `LazyAwaitable` whose occurrence
key is fixed when it is *created*: `site/path...`, where the path lists, outermost first, each
enclosing loop or comprehension iteration (`for#2[3]`) and helper call site (`call#5`), IDs the
compiler mints into the IR (`compiler/lower/occurrences.py`), plus `@n` when the same site runs
again at the same path (sequential repeats, e.g. a builtin `map` calling a lambda).
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
from dwf.runtime.interpreter.calls import bind_arguments, call_method, call_unbound, instantiate
from dwf.runtime.interpreter.expressions import ExpressionCompiler
from dwf.runtime.interpreter.codegen import NotGenerated, awaits, compile_block
from dwf.runtime.interpreter.frames import STATEMENT_FAILURES, Code, Frame, ReturnSignal, any_async, located, with_frame
from dwf.runtime.interpreter.host import EffectHost
from dwf.runtime.interpreter.limits import Limits
from dwf.runtime.interpreter.statements import StatementCompiler
from dwf.runtime.values.errors import FatalError, ScriptError
from dwf.runtime.values.objects import (BoundMethod, BuiltinFunction, ExceptionType, Facade, LazyAwaitable,
                                        ReadOnlyMapping, ScriptFunction, UnboundMethod, type_name)

# Python frames used per script call level are well below this; DWF's own recursion limit
# (Limits.recursion) stops scripts long before Python's would.
PYTHON_RECURSION_LIMIT = 20_000
INTERRUPTED_STEPS = 1 << 62  # past any step limit: the next check stops the script (`Interpreter.interrupt`)


class Interpreter:
    """Interpreter: runs one program against `host`, which performs its effects. `source_lines`
    (the script's text by line) only serve tracebacks."""

    def __init__(self, program: ir.Program, host: EffectHost, *, limits: Limits | None = None, args: dict | None = None,
                 source_lines: list[str] | None = None):
        sys.setrecursionlimit(max(sys.getrecursionlimit(), PYTHON_RECURSION_LIMIT))
        self.program = program
        self.host = host
        # The run's limits, plus this interpreter's step counter for work-proportional charges.
        self.limits = sandbox.RunLimits(limits or Limits(), self)
        self.steps = 0
        self.stop_reason: str | None = None  # set by `interrupt`
        self.stop_error: FatalError | None = None
        self.globals: dict[str, Any] = {}
        self.builtins = make_builtins()
        self.modules = make_modules()
        self.args = ReadOnlyMapping(args or {})
        self.facades = {name: Facade(name) for name in F.CONTAINERS}
        self.occurrences: dict[str, int] = {}
        # The frame on whose behalf a builtin is running (builtins are synchronous, so this is
        # exact): calls the builtin makes (`key=`, `map`, `filter`) are nested in that frame.
        self.caller: Frame | None = None
        self.source_lines = source_lines or []
        self._body = ClosureCompiler(self).block(program.body)

    # ------------------------------------------------------------ running

    async def run(self) -> Any:
        """Run the script body; returns its JSON return value (None without `return`)."""
        frame = Frame(self.globals, None, (), 0, "<script>")
        run, is_async = self._body
        try:
            if is_async:
                await run(frame)
            else:
                run(frame)
        except ReturnSignal as done:
            return sandbox.to_json(done.value, "workflow's return value", self.limits)
        except RecursionError:
            raise FatalError("LimitExceeded", "the script is nested too deeply to run") from None
        return None

    def step_limit(self) -> FatalError:
        """The error a run past its step limit ends with (after `interrupt`: the stop)."""
        if self.stop_error is not None:
            return self.stop_error
        if self.stop_reason is not None:
            return FatalError("Stopped", f"the run was stopped ({self.stop_reason})")
        return sandbox.limit_error("steps", self.limits)

    def interrupt(self, reason: str | None, error: FatalError | None = None) -> None:
        """Stop the script at its next step or charge, even in synchronous code that never
        awaits (a long loop, or between the charged units of a builtin): as stopped for
        `reason`, or failing with `error` (a limit a watchdog measures). It only sets
        attributes, so a signal handler or another thread may call it: the counter jumps past
        every step limit and `step_limit` then gives the stop instead of the limit."""
        if error is not None:
            self.stop_error = error
        else:
            self.stop_reason = reason
        self.steps = INTERRUPTED_STEPS

    def renew_interrupt(self) -> None:
        """After `interrupt`, jump the counter past every limit again. The script counts with
        `steps += 1`, a read then a write: when the interrupt's write lands between the two, the
        script writes its old count plus one over it and runs on. The run's watchdog calls this
        at every poll until the run settles, so a stop is lost for at most one poll, and the
        hot path stays one add and one compare."""
        if self.stop_reason is not None or self.stop_error is not None:
            self.steps = INTERRUPTED_STEPS

    def occurrence_key(self, site: str, path: tuple) -> str:
        """The occurrence key of an effect created at `site` under `path` (see the module
        docstring); a repeat at the same path gets `@n`."""
        key = site if not path else site + "/" + "/".join(path)
        count = self.occurrences.get(key, 0) + 1
        self.occurrences[key] = count
        return key if count == 1 else f"{key}@{count}"

    # ------------------------------------------------------------ calls

    def call_sync(self, fn: Any, args: list, kwargs: dict, frame: Frame | None = None, call_id: str = "call") -> Any:
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

    def _new_frame(self, fn: ScriptFunction, args: list, kwargs: dict, caller: Frame | None, call_id: str) -> Frame:
        depth = (caller.depth if caller else 0) + 1
        if depth > self.limits.recursion:
            raise sandbox.limit_error("recursion", self.limits)
        self.steps += 1  # a call is a step, so lambdas called by builtins count too
        if self.steps > self.limits.steps:
            raise self.step_limit()
        signature, _, _ = fn.code
        path = (caller.path if caller else ()) + (call_id,)
        frame = Frame(bind_arguments(fn, signature, args, kwargs, self.limits), fn.env, path, depth, f"{fn.name}()")
        return frame

    def _run_sync_function(self, fn: ScriptFunction, args, kwargs, caller, call_id) -> Any:
        frame = self._new_frame(fn, args, kwargs, caller, call_id)
        _, body, is_expression = fn.code
        if is_expression:  # lambda
            return body(frame)
        try:
            body(frame)
        except ReturnSignal as done:
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
            except ReturnSignal as done:
                return done.value
            return None

        return LazyAwaitable(start, f"{fn.name}()")


class ClosureCompiler(StatementCompiler, ExpressionCompiler):
    """ClosureCompiler: compiles IR nodes to closures, one method per node type (`STATEMENTS`,
    `EXPRESSIONS`); a node type without one is a compiler bug."""

    # Blocks and lambda bodies without `await` run as generated functions (codegen.py); False
    # compiles everything to closures (tests compare the two).
    generate = True

    def __init__(self, interp: Interpreter):
        self.interp = interp
        # What CPython's `__qualname__` of a function defined here starts with: "" at the top
        # level, "f.<locals>." inside `f`, "f.<locals>.<listcomp>." inside a comprehension.
        self.qualname_prefix = ""
        self.await_memo: dict = {}  # id(node) -> (node, whether it awaits): see codegen.awaits

    def block(self, statements: tuple) -> Code:
        """A block: one generated function when no statement awaits (`codegen.py`), else a
        closure that runs the statements' closures, awaiting those that await."""
        if self.generate and not any(awaits(s, self.await_memo) for s in statements):
            try:
                return compile_block(self, statements)
            except NotGenerated:
                pass
        interp = self.interp
        limits_ = interp.limits
        entries = [(s.span.line, s.span.column, *self.statement(s)) for s in statements]
        limit = interp.limits.steps
        if not any_async([(fn, a) for _, _, fn, a in entries]):
            plain = [(line, column, fn) for line, column, fn, _ in entries]

            def run_sync(frame):
                for line, column, fn in plain:
                    interp.steps += 1
                    if interp.steps > limit:
                        raise with_frame(interp.step_limit(), line, column, frame)
                    try:
                        fn(frame)
                    except STATEMENT_FAILURES as error:
                        raise located(limits_, error, line, column, frame) from None

            return Code(run_sync, False)

        async def run_async(frame):
            for line, column, fn, is_async in entries:
                interp.steps += 1
                if interp.steps > limit:
                    raise with_frame(interp.step_limit(), line, column, frame)
                try:
                    if is_async:
                        await fn(frame)
                    else:
                        fn(frame)
                except STATEMENT_FAILURES as error:
                    raise located(limits_, error, line, column, frame) from None

        return Code(run_async, True)

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


STATEMENTS: dict[type, Callable] = {
    ir.ExprStmt: ClosureCompiler.s_expr, ir.Pass: ClosureCompiler.s_pass, ir.Break: ClosureCompiler.s_break,
    ir.Continue: ClosureCompiler.s_continue, ir.Return: ClosureCompiler.s_return, ir.Assign: ClosureCompiler.s_assign,
    ir.AnnAssign: ClosureCompiler.s_ann_assign, ir.AugAssign: ClosureCompiler.s_aug_assign, ir.If: ClosureCompiler.s_if,
    ir.For: ClosureCompiler.s_for, ir.While: ClosureCompiler.s_while, ir.Try: ClosureCompiler.s_try, ir.Raise: ClosureCompiler.s_raise,
    ir.Assert: ClosureCompiler.s_assert, ir.Delete: ClosureCompiler.s_delete, ir.FunctionDef: ClosureCompiler.s_function,
    ir.Phase: ClosureCompiler.s_phase, ir.Import: ClosureCompiler.s_import, ir.ExceptionClass: ClosureCompiler.s_exception_class,
}
EXPRESSIONS: dict[type, Callable] = {
    ir.Const: ClosureCompiler.e_const, ir.Name: ClosureCompiler.e_name, ir.FString: ClosureCompiler.e_fstring,
    ir.Attribute: ClosureCompiler.e_attribute, ir.Subscript: ClosureCompiler.e_subscript, ir.Slice: ClosureCompiler.e_slice,
    ir.BinOp: ClosureCompiler.e_binop, ir.UnaryOp: ClosureCompiler.e_unary, ir.BoolOp: ClosureCompiler.e_boolop,
    ir.Compare: ClosureCompiler.e_compare, ir.IfExp: ClosureCompiler.e_ifexp, ir.Lambda: ClosureCompiler.e_lambda,
    ir.Await: ClosureCompiler.e_await, ir.NamedExpr: ClosureCompiler.e_named, ir.List: ClosureCompiler.e_list,
    ir.Tuple: ClosureCompiler.e_tuple, ir.Set: ClosureCompiler.e_set, ir.Dict: ClosureCompiler.e_dict,
    ir.ListComp: ClosureCompiler.e_comprehension, ir.SetComp: ClosureCompiler.e_comprehension,
    ir.GeneratorExp: ClosureCompiler.e_comprehension, ir.DictComp: ClosureCompiler.e_comprehension,
    ir.Call: ClosureCompiler.e_call, ir.FacadeCall: ClosureCompiler.e_facade, ir.TypeName: ClosureCompiler.e_type_name,
    ir.Invalid: ClosureCompiler.e_invalid,
}
