"""This module defines how a block without `await` compiles to one Python function generated as
source (`compile_block`, `compile_expression`), the interpreter's fast path.

Why. A closure per IR node costs a Python call per node evaluated (about 28 per iteration of a
small arithmetic loop); a generated function runs the same block with the operands in Python
locals, nested `if`/`while`/`for` bodies inline and native `break`/`continue`. What it emits is
the same sequence of checks the closures make, in the same order:
- a step is counted before each statement and each `while` test that passes, and the step
  limit is tested then, with the same error and traceback frame;
- each statement is wrapped in `try`/`except` that turns a Python error into the located DWF
  error (`frames.located`), so tracebacks keep one frame per statement as before;
- `int` arithmetic and comparisons run inline only when the operands' types make the result
  provably the one `operators.py` computes and nothing would be charged: `+`/`-` only for
  operands below 2**min(pow_bits - 1, 62), `*` below 2**min(pow_bits // 2, 31), `%` and `//`
  below 2**62, so no result can reach the power size limit; every other
  operand (bool, float, str, containers, script values) goes through the same operator table
  entry the closures call, which checks sizes and charges work;
- every node the generator does not inline is compiled to its closure (expressions.py,
  statements.py) and called from the generated code, so its behaviour is unchanged.

The generated source only ever names values through the namespace this module builds (the
closures, the operator functions, constants, `interp`), never script text: a name or string of
the script becomes a Python literal through `repr`, so nothing a script says is executed as
Python.
"""

from __future__ import annotations

import re
from typing import Any

from dwf.compiler import ir

from dwf.runtime.interpreter import operators, sandbox
from dwf.runtime.interpreter.calls import call_value_method
from dwf.runtime.interpreter.sandbox import plain_method
from dwf.runtime.values.objects import BuiltinFunction
from dwf.runtime.values.sets import OrderedSet
from dwf.runtime.interpreter.frames import (STATEMENT_FAILURES, BreakSignal, Code, ContinueSignal, Frame, ReturnSignal,
                                            iterate, located, set_item, subscript, unbound, unpack,
                                            with_frame)

# Constants a generated function may carry as Python literals (others go in its namespace).
_LITERAL_TYPES = (int, str, bool, type(None))
# The only Python builtins generated code uses (script names never become Python names).
_PYTHON_NAMES = {"type": type, "len": len, "str": str, "enumerate": enumerate, "slice": slice, "dict": dict,
                 "list": list, "int": int, "KeyError": KeyError}
_PLAIN_ID = re.compile(r"[a-z]+#[0-9]+")
_FUSED_OPS = frozenset({"+", "-", "*", "%", "//"})
_DIVISION_BOUND = 1 << 62  # operands of an inline `%` or `//`: a few machine words
_COMPREHENSIONS = {ir.ListComp: "<listcomp>", ir.SetComp: "<setcomp>", ir.DictComp: "<dictcomp>"}
# Below Python's limits of 20 statically nested blocks and 100 indentation levels, with room
# for the blocks one statement opens; a statement past them is compiled as its own closure.
_MAX_BLOCKS = 12
_MAX_INDENT = 60
# Operators with an inline `int` path; the rest always call their table entry.
_INT_COMPARE = {"<": "<", "<=": "<=", ">": ">", ">=": ">=", "==": "==", "!=": "!="}


class NotGenerated(Exception):
    """A node the generator cannot emit (an awaiting part reached it): the caller compiles the
    block with closures instead."""


def awaits(node: Any, memo: dict) -> bool:
    """Whether running `node` may await: it contains an `Await` outside the bodies of nested
    functions and lambdas (a definition awaits only through a default that does)."""
    key = id(node)
    known = memo.get(key)
    if known is not None:
        return known[1]
    if isinstance(node, ir.Await):
        result = True
    elif isinstance(node, ir.FunctionDef):
        result = any(awaits(p.default, memo) for p in node.params if p.default is not None)
    elif isinstance(node, ir.Lambda):
        result = any(awaits(p.default, memo) for p in node.params if p.default is not None)
    elif isinstance(node, ir.Node):
        result = any(awaits(getattr(node, name), memo) for name in node.__slots__ if name != "span")
    elif isinstance(node, tuple):
        result = any(awaits(item, memo) for item in node)
    else:
        result = False
    memo[key] = (node, result)  # the node is kept so that its id is not reused
    return result


class _Emitter:
    """Source lines under construction, the namespace they refer to, and fresh local names."""

    def __init__(self, compiler):
        self.compiler = compiler
        interp = compiler.interp
        self.interp = interp
        self.limits = interp.limits
        self.lines: list[str] = []
        self.indent = 1
        self.counter = 0
        self.namespace: dict[str, Any] = {
            "interp": interp, "limits": interp.limits, "G": interp.globals,
            "_located": located, "_with_frame": with_frame, "_Break": BreakSignal,
            "_Continue": ContinueSignal, "_Return": ReturnSignal, "_iterate": iterate, "_unbound": unbound,
            "_unpack": unpack, "_set_item": set_item, "_limit_error": sandbox.limit_error,
            "_FAILURES": STATEMENT_FAILURES, "_check_tuple": sandbox.check_tuple,
            "_check_items": sandbox.check_items, "_get_attribute": sandbox.get_attribute,
            "_subscript": subscript, "__builtins__": _PYTHON_NAMES, "_Frame": Frame, "_OrderedSet": OrderedSet,
            "_call_value_method": call_value_method, "_HASHED": sandbox.HASHED_BY_WALK,
            "_charge_key": sandbox.charge_key, "_charge_keys": sandbox.charge_keys,
        }
        self.loop_depth = 0  # > 0: a `break`/`continue` here is a native one of a generated loop
        self.blocks = 0  # Python blocks (`try`, loops) open around the current line
        # The frame expressions run in and its variables: the function's, or a comprehension's.
        self.frame, self.vars = "frame", "V"
        self.step_limit = interp.limits.steps
        # Small bounds keep the inline tests on one-digit ints; a larger int takes the exact test.
        self.pow_bits = bits = interp.limits.pow_bits
        self.sum_bound = 1 << max(0, min(bits - 1, 62))  # both terms below it: the sum is within pow_bits
        self.half_bound = 1 << min(bits // 2, 31)  # both factors below it: the product is too

    def fresh(self, stem: str = "t") -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    def bind(self, value: Any, stem: str = "_k") -> str:
        name = self.fresh(stem)
        self.namespace[name] = value
        return name

    def line(self, text: str) -> None:
        self.lines.append("    " * self.indent + text)

    def literal(self, value: Any) -> str:
        if type(value) in _LITERAL_TYPES:
            return repr(value)
        return self.bind(value)

    # ------------------------------------------------------------ blocks and statements

    def block(self, statements: tuple) -> None:
        if not statements:
            self.line("pass")
        for statement in statements:
            self.statement(statement)

    def count_step(self, error: str) -> None:
        # One step, tested against the limit at once. `steps` only carries the new count to the
        # test: the count itself lives in `interp.steps`, read afresh each time (charges made by
        # callees and `Interpreter.interrupt` change it).
        self.line("steps = interp.steps + 1")
        self.line("interp.steps = steps")
        self.line(f"if steps > {self.step_limit}:")
        self.line(f"    raise {error}")

    def statement(self, node: ir.Node) -> None:
        line, column = node.span.line, node.span.column
        self.count_step(f"_with_frame(interp.step_limit(), {line}, {column}, frame)")
        self.line("try:")
        self.indent += 1
        self.blocks += 1
        start = len(self.lines)
        self.statement_body(node)
        if len(self.lines) == start:
            self.line("pass")
        self.blocks -= 1
        self.indent -= 1
        self.line("except _FAILURES as error:")
        self.line(f"    raise _located(limits, error, {line}, {column}, frame) from None")

    def statement_body(self, node: ir.Node) -> None:
        kind = type(node)
        if kind in (ir.If, ir.While, ir.For) and (self.blocks > _MAX_BLOCKS or self.indent > _MAX_INDENT):
            kind = None  # Python's static nesting limits: the statement runs as its own closure
        if kind is ir.ExprStmt:
            self.expr(node.value)
        elif kind is ir.Pass:
            pass
        elif kind is ir.Assign:
            self.assign(node)
        elif kind is ir.AnnAssign and node.value is not None:
            self.assign(ir.Assign(node.span, (node.target,), node.value))
        elif kind is ir.AugAssign and isinstance(node.target, (ir.Name, ir.Subscript)) and not (
                isinstance(node.target, ir.Name) and node.target.scope == ir.FREE):
            self.aug_assign(node)
        elif kind is ir.If:
            test = self.expr(node.test)
            self.line(f"if {test}:")
            self.nested(node.body)
            if node.orelse:
                self.line("else:")
                self.nested(node.orelse)
        elif kind is ir.While and not node.orelse:
            self.while_loop(node)
        elif kind is ir.For and not node.orelse:
            self.for_loop(node)
        elif kind is ir.Return:
            value = self.expr(node.value) if node.value is not None else "None"
            self.line(f"raise _Return({value})")
        elif kind is ir.Break:
            self.line("break" if self.loop_depth else "raise _Break()")
        elif kind is ir.Continue:
            self.line("continue" if self.loop_depth else "raise _Continue()")
        else:
            self.line(f"{self.closure(self.compiler.statement(node))}(frame)")

    def nested(self, statements: tuple) -> None:
        self.indent += 1
        self.block(statements)
        self.indent -= 1

    def closure(self, code: Code) -> str:
        run, is_async = code
        if is_async:
            raise NotGenerated("an awaiting part")
        return self.bind(run, "_c")

    def loop_body(self, body: tuple) -> None:
        """A loop body: `break`/`continue` raised by closures inside it (a `try` statement, say)
        end or continue this loop, as native ones do."""
        self.line("try:")
        self.loop_depth += 1
        self.blocks += 2  # the loop and this `try`
        self.nested(body)
        self.blocks -= 2
        self.loop_depth -= 1
        self.line("except _Continue:")
        self.line("    continue")
        self.line("except _Break:")
        self.line("    break")

    def tracked_path(self, loop_id: str, base: str, index: str, frame: str = "frame") -> None:
        # The occurrence path of this iteration: `for#2[3]` (see interpreter.py).
        self.line(f"{frame}.path = {base} + ({path_part(loop_id, index)},)")

    def end_loop(self, body: tuple, tracked: bool, base: str) -> None:
        """The loop's body, then (a tracked loop) the `finally` that restores the frame's path."""
        self.loop_body(body)
        self.indent -= 1
        if tracked:
            self.indent -= 1
            self.line("finally:")
            self.line(f"    frame.path = {base}")

    def while_loop(self, node: ir.While) -> None:
        tracked = node.has_effects
        base, index = self.fresh("base"), self.fresh("i")
        if tracked:
            self.line(f"{base} = frame.path")
            self.line(f"{index} = 0")
            self.line("try:")
            self.indent += 1
        self.line("while True:")
        self.indent += 1
        test = self.expr(node.test)
        self.line(f"if not {test}:")
        self.line("    break")
        self.count_step("interp.step_limit()")
        if tracked:
            self.tracked_path(node.loop_id, base, index)
            self.line(f"{index} += 1")
        self.end_loop(node.body, tracked, base)

    def for_loop(self, node: ir.For) -> None:
        tracked = node.has_effects
        source = self.expr(node.iter)
        items, item = self.fresh("items"), self.fresh("item")
        base, index = self.fresh("base"), self.fresh("i")
        self.line(f"{items} = {source} if type({source}) is list else _iterate({source})")
        if tracked:
            self.line(f"{base} = frame.path")
            self.line("try:")
            self.indent += 1
            self.line(f"for {index}, {item} in enumerate({items}):")
        else:
            self.line(f"for {item} in {items}:")
        self.indent += 1
        if tracked:
            self.tracked_path(node.loop_id, base, index)
        self.store(node.target, item)
        self.end_loop(node.body, tracked, base)

    def assign(self, node: ir.Assign) -> None:
        value = self.expr(node.value)
        for target in node.targets:
            self.store(target, value)

    def store(self, target: ir.Node, value: str) -> None:
        """Store `value` (a local name of the generated code) into an assignment target, in
        CPython's order: a subscript target's container, then its index, after the value."""
        if isinstance(target, ir.Name) and target.scope != ir.FREE:
            holder = "G" if target.scope == ir.GLOBAL else self.vars
            self.line(f"{holder}[{target.id!r}] = {value}")
            return
        if isinstance(target, ir.Subscript) and not awaits(target, self.compiler.await_memo):
            container, index = self.expr(target.value), self.expr(target.index)
            self.set_item(container, index, value)
            return
        if isinstance(target, (ir.Tuple, ir.List)) and all(isinstance(e, ir.Name) and e.scope != ir.FREE
                                                           for e in target.elts):
            names = [self.fresh() for _ in target.elts]
            self.line(f"{', '.join(names)}, = _unpack({value}, {len(names)}, None)")
            for element, name in zip(target.elts, names):
                self.store(element, name)
            return
        store, is_async = self.compiler.target(target)
        if is_async:
            raise NotGenerated("an awaiting target")
        self.line(f"{self.bind(store, '_store')}({self.frame}, {value})")

    def set_item(self, container: str, index: str, value: str) -> None:
        # `frames.set_item` for a plain dict (any key but a slice) or a list at an int index.
        self.line(f"if type({container}) is dict and type({index}) is not slice and type({index}) not in _HASHED:")
        self.line(f"    {container}[{index}] = {value}")
        self.line(f"    if len({container}) > {self.limits.items}:")
        self.line("        raise _limit_error('items', limits)")
        self.line(f"elif type({container}) is list and type({index}) is int:")
        self.line(f"    {container}[{index}] = {value}")
        self.line(f"    if len({container}) > {self.limits.items}:")
        self.line("        raise _limit_error('items', limits)")
        self.line("else:")
        self.line(f"    _set_item({container}, {index}, {value}, limits)")

    def aug_assign(self, node: ir.AugAssign) -> None:
        target = node.target
        if isinstance(target, ir.Subscript):
            container, index = self.expr(target.value), self.expr(target.index)
            left = self.fresh()
            self.line(f"{left} = {container}[{index}] if type({container}) is dict and type({index}) not in _HASHED "
                      f"else _subscript({container}, {index}, limits)")
            right = self.expr(node.value)
            result = self.binary(node.op, left, right, operators.INPLACE)
            self.set_item(container, index, result, )
            return
        left = self.expr(target)
        right = self.expr(node.value)
        result = self.binary(node.op, left, right, operators.INPLACE)
        self.store(target, result)

    # ------------------------------------------------------------ expressions

    def expr(self, node: ir.Node) -> str:
        """Emit the evaluation of `node`; returns a Python literal or a local holding its value
        (never an expression with effects, so evaluation order is the order of emission)."""
        kind = type(node)
        if self.indent > _MAX_INDENT:
            kind = None  # Python's indentation limit: the rest of the expression runs as its closure
        if kind is ir.Const:
            return self.literal(node.value)
        if kind is ir.Name and node.scope in (ir.LOCAL, ir.GLOBAL, ir.MODULE, ir.BUILTIN):
            return self.name(node)
        if kind is ir.BinOp:
            fused = self.fused_arithmetic(node)
            if fused is not None:
                return fused
            left = self.expr(node.left)
            right = self.expr(node.right)
            return self.binary(node.op, left, right, operators.BINARY)
        if kind is ir.Compare:
            return self.compare(node)
        if kind is ir.BoolOp:
            result = self.fresh()
            self.boolean(node.op, list(node.values), result)
            return result
        if kind is ir.UnaryOp and node.op == "not":
            operand = self.expr(node.operand)
            result = self.fresh()
            self.line(f"{result} = not {operand}")
            return result
        if kind is ir.IfExp:
            test, result = self.expr(node.test), self.fresh()
            self.line(f"if {test}:")
            self.indent += 1
            self.line(f"{result} = {self.expr(node.body)}")
            self.indent -= 1
            self.line("else:")
            self.indent += 1
            self.line(f"{result} = {self.expr(node.orelse)}")
            self.indent -= 1
            return result
        if kind is ir.Subscript and not isinstance(node.index, ir.Slice):
            container, index, result = self.expr(node.value), self.expr(node.index), self.fresh()
            self.line(f"if type({container}) is dict and type({index}) not in _HASHED or "
                      f"type({container}) is list and type({index}) is int:")
            self.line(f"    {result} = {container}[{index}]")
            self.line("else:")
            self.line(f"    {result} = _subscript({container}, {index}, limits)")
            return result
        if kind is ir.Attribute and node.attr != "total" and not node.attr.startswith("__"):
            value, result = self.expr(node.value), self.fresh()
            self.line(f"{result} = _get_attribute({value}, {node.attr!r})")
            return result
        if kind is ir.Call and not node.keywords and not any(isinstance(a, ir.Starred) for a in node.args):
            return self.call(node)
        if kind is ir.UnaryOp and node.op == "-":
            operand, result = self.expr(node.operand), self.fresh()
            self.line(f"{result} = -{operand} if type({operand}) is int else {self.bind(operators.UNARY['-'], '_op')}({operand})")
            return result
        if (kind in _COMPREHENSIONS and self.indent < _MAX_INDENT - 20
                and self.blocks + len(node.generators) <= _MAX_BLOCKS):
            return self.comprehension(node)
        if kind is ir.List and not any(isinstance(e, ir.Starred) for e in node.elts):
            items, result = [self.expr(e) for e in node.elts], self.fresh()
            self.line(f"{result} = [{', '.join(items)}]")
            return result
        if kind is ir.Tuple and not any(isinstance(e, ir.Starred) for e in node.elts):
            items, result = [self.expr(e) for e in node.elts], self.fresh()
            self.line(f"{result} = _check_tuple(({''.join(i + ', ' for i in items)}), limits)")
            return result
        result = self.fresh()
        self.line(f"{result} = {self.closure(self.compiler.expr(node))}({self.frame})")
        return result

    def call(self, node: ir.Call) -> str:
        """A call with plain positional arguments. A builtin (a name the compiler resolved to
        one, never shadowed) runs inline as `Interpreter.call_sync` runs it, with the caller
        frame set for the calls it makes; a method of a plain str, list or dict skips the
        attribute object (`sandbox.plain_method` decides, once, that the attribute exists)."""
        func = node.func
        result = self.fresh()
        if isinstance(func, ir.Name) and func.scope == ir.BUILTIN and type(self.interp.builtins[func.id]) is BuiltinFunction:
            implementation = self.bind(self.interp.builtins[func.id].fn, "_builtin")
            args = [self.expr(a) for a in node.args]
            if func.id == "len" and len(args) == 1:  # builtins.b_len of a plain container: C's len, O(1)
                self.line(f"if type({args[0]}) is str or type({args[0]}) is list or type({args[0]}) is dict:")
                self.line(f"    {result} = len({args[0]})")
                self.line("else:")
                self.indent += 1
            previous = self.fresh("caller")
            self.line(f"{previous} = interp.caller")
            self.line(f"interp.caller = {self.frame}")
            self.line("try:")
            self.line(f"    {result} = {implementation}(interp, [{', '.join(args)}], {{}})")
            self.line("finally:")
            self.line(f"    interp.caller = {previous}")
            if func.id == "len" and len(args) == 1:
                self.indent -= 1
            return result
        kinds = [kind for kind in (str, list, dict) if isinstance(func, ir.Attribute)
                 and plain_method(kind, func.attr)]
        if kinds:
            assert func.attr.isidentifier()
            receiver, previous = self.expr(func.value), self.fresh("caller")
            test = " or ".join(f"type({receiver}) is {kind.__name__}" for kind in kinds)
            method = self.fresh()
            self.line(f"if {test}:")
            self.line(f"    {method} = None")
            self.line("else:")
            self.line(f"    {method} = _get_attribute({receiver}, {func.attr!r})")
            args = [self.expr(a) for a in node.args]
            # As `Interpreter.call_sync` of the bound method; `attr` is an allowed method name.
            self.line(f"if {method} is None:")
            self.line(f"    {previous} = interp.caller")
            self.line(f"    interp.caller = {self.frame}")
            self.line("    try:")
            self.line(f"        {result} = _call_value_method(interp, {receiver}, {func.attr!r}, ({receiver}).{func.attr}, "
                      f"[{', '.join(args)}], {{}})")
            self.line("    finally:")
            self.line(f"        interp.caller = {previous}")
            self.line("else:")
            self.line(f"    {result} = interp.call_sync({method}, [{', '.join(args)}], {{}}, {self.frame}, {node.call_id!r})")
            return result
        callee = self.expr(func)  # the callee is evaluated before its arguments, as in CPython
        args = [self.expr(a) for a in node.args]
        self.line(f"{result} = interp.call_sync({callee}, [{', '.join(args)}], {{}}, {self.frame}, {node.call_id!r})")
        return result

    def comprehension(self, node) -> str:
        """A list, set or dict comprehension (a generator expression stays lazy, as its closure),
        as `ExpressionCompiler.e_comprehension` runs it: a new frame for its variables, the first
        iterable evaluated in the enclosing one, a step per item, the size limit after each."""
        compiler = self.compiler
        outer_prefix = compiler.qualname_prefix
        inner_prefix = outer_prefix + _COMPREHENSIONS[type(node)] + "."
        result, inner = self.fresh("out"), self.fresh("inner")
        self.line(f"{inner} = _Frame({{}}, {self.frame}, {self.frame}.path, {self.frame}.depth, {self.frame}.where, False)")
        self.line(f"{result} = {{}}" if isinstance(node, ir.DictComp) else f"{result} = []")
        saved = self.frame, self.vars
        depth = self.indent
        bases = []
        try:
            for position, generator in enumerate(node.generators):
                compiler.qualname_prefix = outer_prefix if position == 0 else inner_prefix
                source = self.expr(generator.iter)
                if position == 0:
                    self.frame, self.vars = inner, inner + ".vars"
                compiler.qualname_prefix = inner_prefix
                items, item, index, base = self.fresh("items"), self.fresh("item"), self.fresh("i"), self.fresh("base")
                self.line(f"{items} = {source} if type({source}) is list else _iterate({source})")
                self.line(f"{base} = {inner}.path")
                bases.append((self.indent, base))
                self.line(f"for {index}, {item} in enumerate({items}):" if node.has_effects else f"for {item} in {items}:")
                self.indent += 1
                self.blocks += 1
                self.count_step("interp.step_limit()")
                if node.has_effects:
                    self.tracked_path(generator.loop_id, base, index, inner)
                self.store(generator.target, item)
                for condition in generator.ifs:
                    held = self.expr(condition)
                    self.line(f"if not {held}:")
                    self.line("    continue")
            if isinstance(node, ir.DictComp):
                value = self.expr(node.value)  # the value first, as the closure does
                key = self.expr(node.key)
                self.line(f"if type({key}) in _HASHED:")
                self.line(f"    _charge_key(limits, {key})")
                self.line(f"{result}[{key}] = {value}")
            else:
                self.line(f"{result}.append({self.expr(node.elt)})")
            self.line(f"if len({result}) > {self.limits.items}:")
            self.line("    raise _limit_error('items', limits)")
            for indent, base in reversed(bases):
                self.indent = indent
                self.line(f"{inner}.path = {base}")
        finally:
            compiler.qualname_prefix = outer_prefix
            self.frame, self.vars = saved
            self.indent = depth
            self.blocks -= len(bases)
        if isinstance(node, ir.SetComp):
            self.line(f"_charge_keys(limits, {result})")
            self.line(f"{result} = _OrderedSet({result})")
        return result

    def name(self, node: ir.Name) -> str:
        if node.scope == ir.BUILTIN:
            return self.bind(self.interp.builtins[node.id])
        holder = self.vars if node.scope == ir.LOCAL else "G"
        scope = ir.LOCAL if node.scope == ir.LOCAL else ir.GLOBAL
        result = self.fresh()
        self.line("try:")
        self.line(f"    {result} = {holder}[{node.id!r}]")
        self.line("except KeyError:")
        self.line(f"    raise _unbound({node.id!r}, {scope!r}) from None")
        return result

    def is_int(self, operand: str) -> str:
        """The test that `operand` is an int (not a bool): none for an int literal."""
        return "" if _is_int_literal(operand) else f"type({operand}) is int"

    def all_of(self, *tests: str) -> str:
        return " and ".join(t for t in tests if t) or "True"

    def small(self, operand: str, bound: int) -> str:
        """The test that |operand| < bound, decided now for a literal."""
        if _is_int_literal(operand):
            return "" if abs(int(operand)) < bound else "False"
        return f"-{bound} < {operand} < {bound}"

    def fused_arithmetic(self, node: ir.BinOp) -> str | None:
        """A tree of `+ - * % //` over local or global names and int literals, as one Python
        expression when every name holds an int below a bound that keeps each operation inside
        its own inline condition (`binary`), else operation by operation. Only trees whose
        names are all read before the first operation runs (as the closures read them) are
        fused, and only with non-zero literal divisors, so the fused path raises nothing the
        closures would raise elsewhere."""
        order: list = []  # the post-order of the tree: what the closures evaluate, in order

        def walk(n) -> bool:
            if type(n) is ir.BinOp and n.op in _FUSED_OPS:
                return walk(n.left) and walk(n.right) and not order.append(n)
            if type(n) is ir.Const and type(n.value) is int:
                return not order.append(n)
            if type(n) is ir.Name and n.scope in (ir.LOCAL, ir.GLOBAL, ir.MODULE):
                if any(type(o) is ir.BinOp for o in order):
                    return False  # a name read after an operation: keep the closures' order
                return not order.append(n)
            return False

        if not walk(node) or len(order) < 5:  # a single operation gains nothing
            return None
        names = [n for n in order if type(n) is ir.Name]
        if not names:
            return None
        bits = next((m for m in range(62, 7, -1) if self.fits(node, 1 << m)), None)
        if bits is None:
            return None
        temps: dict[int, str] = {}
        for leaf in order:
            if type(leaf) is ir.Name:
                temps[id(leaf)] = self.name(leaf)
            elif type(leaf) is ir.Const:
                temps[id(leaf)] = repr(leaf.value)

        def text(n) -> str:
            if type(n) is ir.BinOp:
                return f"({text(n.left)} {n.op} {text(n.right)})"
            return temps[id(n)]

        bound = 1 << bits
        tests = [f"type({temps[id(n)]}) is int and -{bound} < {temps[id(n)]} < {bound}" for n in names]
        result = self.fresh()
        self.line(f"if {' and '.join(tests)}:")
        self.line(f"    {result} = {text(node)}")
        self.line("else:")
        self.indent += 1
        for n in order:
            if type(n) is ir.BinOp:
                temps[id(n)] = self.binary(n.op, temps[id(n.left)], temps[id(n.right)], operators.BINARY)
        self.line(f"{result} = {temps[id(node)]}")
        self.indent -= 1
        return result

    def fits(self, node, leaf_bound: int) -> int | None:
        """The bound on |value| of `node` when every name in it is below `leaf_bound`, if each
        operation then meets its inline condition (see `binary`); else None."""
        if type(node) is ir.Const:
            return abs(node.value) + 1
        if type(node) is ir.Name:
            return leaf_bound
        left, right = self.fits(node.left, leaf_bound), self.fits(node.right, leaf_bound)
        if left is None or right is None:
            return None
        op = node.op
        if op in ("+", "-"):
            return left + right if left <= self.sum_bound and right <= self.sum_bound else None
        if op == "*":
            return left * right if left <= self.half_bound and right <= self.half_bound else None
        # % and //: a non-zero literal divisor; |a % b| < |b|, |a // b| <= |a|.
        if type(node.right) is not ir.Const or node.right.value == 0:
            return None
        if left > _DIVISION_BOUND or right > _DIVISION_BOUND:
            return None
        return right if op == "%" else left

    def binary(self, op: str, left: str, right: str, table: dict) -> str:
        result = self.fresh()
        fallback = f"{self.bind(table[op], '_op')}({left}, {right}, limits)"
        both_int = self.all_of(self.is_int(left), self.is_int(right))
        if op in ("+", "-"):
            # Both operands below 2**k with k < pow_bits: the result has at most k + 1 bits, so
            # sandbox.check_int cannot fail; bigger ints take the table (and any charge it makes).
            bound = self.sum_bound
            self.line(f"if {self.all_of(both_int, self.small(left, bound), self.small(right, bound))}:")
            self.line(f"    {result} = {left} {op} {right}")
        elif op == "*":
            # Factors below 2**h with 2h <= pow_bits: neither operators._mul's precheck nor
            # check_int can fail, so the product is computed inline.
            bound = self.half_bound
            self.line(f"if {self.all_of(both_int, self.small(left, bound), self.small(right, bound))}:")
            self.line(f"    {result} = {left} * {right}")
        elif op in ("%", "//"):
            # Bounded like `*`: a division of big ints does work that grows with their size.
            bound = _DIVISION_BOUND
            self.line(f"if {self.all_of(both_int, self.small(left, bound), self.small(right, bound))}:")
            self.line(f"    {result} = {left} {op} {right}")
        else:
            self.line(f"{result} = {fallback}")
            return result
        self.line("else:")
        self.line(f"    {result} = {fallback}")
        return result

    def compare(self, node: ir.Compare) -> str:
        result = self.fresh()
        left = self.expr(node.left)
        if len(node.ops) == 1:
            self.single_compare(node.ops[0], left, self.expr(node.comparators[0]), result)
            return result
        # A chain is True or False, each comparison run only while the previous ones held.
        self.line(f"{result} = False")
        depth = self.indent
        for op, comparator in zip(node.ops, node.comparators):
            right, held = self.expr(comparator), self.fresh()
            self.single_compare(op, left, right, held)
            self.line(f"if {held}:")
            self.indent += 1
            left = right
        self.line(f"{result} = True")
        self.indent = depth
        return result

    def single_compare(self, op: str, left: str, right: str, result: str) -> None:
        if op in ("is", "is not"):
            self.line(f"{result} = {left} {op} {right}")
            return
        fallback = f"{self.bind(operators.COMPARE[op], '_cmp')}({left}, {right}, limits)"
        if op in _INT_COMPARE:
            self.line(f"if {self.all_of(self.is_int(left), self.is_int(right))}:")
            self.line(f"    {result} = {left} {op} {right}")
            self.line("else:")
            self.line(f"    {result} = {fallback}")
            return
        self.line(f"{result} = {fallback}")

    def boolean(self, op: str, values: list, result: str) -> None:
        first = self.expr(values[0])
        self.line(f"{result} = {first}")
        if len(values) == 1:
            return
        self.line(f"if {result}:" if op == "and" else f"if not {result}:")
        self.indent += 1
        self.boolean(op, values[1:], result)
        self.indent -= 1


def path_part(loop_id: str, index: str) -> str:
    """The Python expression of one iteration's part of an occurrence path, `for#2[3]`: an
    f-string when the compiler-minted ID is plain (`kind#N`), else a concatenation."""
    if _PLAIN_ID.fullmatch(loop_id):
        return f"f'{loop_id}[{{{index}}}]'"
    return f"{loop_id!r} + '[' + str({index}) + ']'"


def _is_int_literal(operand: str) -> bool:
    # Literals are emitted by `repr`; locals and namespace names start with a letter or `_`.
    return operand.lstrip("-").isdigit()


def _finish(emitter: _Emitter, filename: str):
    # `V`: the frame's variables (a frame keeps its dict for life).
    # `interp`, `G` and `limits` as parameters' defaults: locals are the fastest names to read.
    source = ("def _generated(frame, interp=interp, G=G, limits=limits):\n    V = frame.vars\n"
              + "\n".join(emitter.lines) + "\n")
    namespace = emitter.namespace
    try:
        code = compile(source, filename, "exec")
    except (SyntaxError, RecursionError, MemoryError) as error:  # a nesting limit of Python's compiler
        raise NotGenerated(str(error)) from None
    exec(code, namespace)  # noqa: S102 (source built above from IR only)
    return namespace["_generated"]


def compile_block(compiler, statements: tuple) -> Code:
    """A block (no statement of which awaits) as one generated function of the frame."""
    emitter = _Emitter(compiler)
    emitter.block(statements)
    return Code(_finish(emitter, "<dwf block>"), False)


def compile_expression(compiler, node: ir.Node):
    """An expression without `await` (a lambda's body) as one generated function of the frame."""
    emitter = _Emitter(compiler)
    emitter.line(f"return {emitter.expr(node)}")
    return _finish(emitter, "<dwf expression>")
