"""This module defines the data-flow analysis of the approval screen: which effects' results may
reach which effect's inputs.

The algorithm
-------------

A **may-flow taint analysis** over the IR: flow-insensitive (one abstract value per variable,
the join of everything ever assigned to it), field-sensitive for the structures scripts build
by hand (dict literals, tuples, `parallel`/`gather` results by position), and
context-sensitive for helper functions through summaries.

*Labels* (`compiler.plan.taint`): every step site (ask, read, run) puts one label on its result;
`agent()` puts an actor label on the handle it returns; a function or lambda value carries a
function label; a helper's parameter carries a parameter label while its body is analysed.
Labels remember where in a value they sit (a dict field, a tuple position, some element) and
whether a widening touched them; an edge is exact when some label behind it is, and an inexact
edge ("may") is one a computed index or a lost position made up.

*Transfer.* Operators, f-strings, comparisons and calls of builtins and methods consume their
operands whole (`collapse`: positions dropped, exactness kept); `x[k]`, `x.k`, `for t in x`,
tuple unpacking and `.get(k)` select (`select`); literals, comprehensions and joins build
(`prefix`); `append`/`extend`/`x[k] = v`/`setdefault` add to the variable they mutate (a weak
update: nothing is ever removed). A call of a script function applies its summary (its return
value over parameter labels), substituting the call's arguments for the parameter labels.

*Fixpoint.* Every pass walks the whole program once (function bodies where they are defined);
values only grow, paths are capped at `PATH_CAP` elements, so the passes reach a fixpoint.
Sinks (ask instructions and receivers, read and run arguments, the top-level `return`) are
recorded on every pass; the last pass sees the converged values.

*Resolution.* A sink inside a helper holds parameter labels. Afterwards each parameter gets the
union of the (resolved) arguments of every recorded call, iterated to a fixpoint for helpers
that call helpers; a sink then resolves to step and actor labels only. This is deliberately one
answer per site, not per call path: the site is one node on the screen.

Invariants: values are frozensets and never shrink; nothing here evaluates the script; the
analysis also records, for the temporal walk (`compiler.plan.trace`), the callee functions of every
call node and the converged value of every condition and loop iterable.
"""

from __future__ import annotations

from dataclasses import dataclass

from dwf.compiler import ir
from dwf.compiler.plan.statics import iter_nodes, site_order
from dwf.compiler.plan.taint import (ANY, EMPTY, Value, bind_arguments, builtin_call, collapse, gather_result, is_step, method_call,
                    prefix, prefix_path, resolve_parameters, select, substitute, union, widen_positions)

MAX_PASSES = 60

# ---------------------------------------------------------------- results


@dataclass
class Flow:
    """The converged facts, resolved to step and actor labels."""

    data: dict[str, dict[str, bool]]  # consumer site -> producer step -> exact
    receivers: dict[str, tuple[str, ...]]  # ask site -> actor sites it may be asked on (sorted)
    returned: dict[str, bool]  # producer step -> exact, for the top-level `return`
    callees: dict[int, tuple[int, ...]]  # id(call node) (or (id, stage)) -> function keys
    functions: dict[int, ir.Node]  # function key -> FunctionDef or Lambda
    conditions: dict[int, dict[str, bool]]  # id(condition or iterable node) -> producer steps
    passes: int = 0


@dataclass
class _Function:
    key: int
    node: ir.Node  # FunctionDef | Lambda
    params: tuple[ir.Param, ...]
    labels: tuple[str, ...]  # the parameter label of each param


@dataclass
class _Scope:
    key: int
    names: frozenset
    function: int | None  # the function key when this is a function or lambda body


# ---------------------------------------------------------------- the analysis


def _no_flow(stmt: ir.Node) -> None:
    return None


class FlowAnalysis:
    def __init__(self, program: ir.Program):
        self.program = program
        self.env: dict[tuple[int, str], Value] = {}
        self.returns: dict[int, Value] = {}
        self.functions: dict[int, _Function] = {}
        self.function_keys: dict[int, int] = {}  # id(node) -> key
        self.sinks: dict[str, Value] = {}
        self.ask_receivers: dict[str, Value] = {}
        self.top_return: Value = EMPTY
        self.calls: dict[tuple, list[Value]] = {}
        self.callees: dict = {}
        self.conditions: dict[int, Value] = {}
        self.thrown_cache: dict[int, Value] = {}
        self.changed = False
        self.scopes: list[_Scope] = [_Scope(0, frozenset(program.globals), None)]
        self.function_stack: list[int] = []
        # The data-flow case of each IR node type (tests/runtime/test_ir_coverage.py checks that
        # every expression and statement type has one).
        self.expression_cases = {
            ir.Const: lambda n: EMPTY, ir.Slice: lambda n: EMPTY, ir.Invalid: lambda n: EMPTY,
            ir.FString: self._fstring, ir.Name: self._name, ir.Attribute: self._attribute,
            ir.Subscript: self._subscript, ir.Starred: lambda n: self.eval(n.value),
            ir.Call: self._call, ir.FacadeCall: self._facade, ir.BinOp: self._binop,
            ir.UnaryOp: lambda n: collapse(self.eval(n.operand)), ir.BoolOp: self._boolop,
            ir.Compare: self._compare, ir.IfExp: self._ifexp, ir.Lambda: self._lambda,
            ir.ListComp: self._comprehension, ir.SetComp: self._comprehension,
            ir.GeneratorExp: self._comprehension, ir.DictComp: self._comprehension,
            ir.Await: lambda n: self.eval(n.value), ir.NamedExpr: self._named,
            ir.List: self._sequence, ir.Tuple: self._sequence, ir.Set: self._set, ir.Dict: self._dict,
            ir.TypeName: lambda n: collapse(self.eval(n.value)),
        }
        self.statement_cases = {
            ir.ExprStmt: lambda s: self.eval(s.value), ir.Assign: self._assign_stmt,
            ir.AugAssign: self._aug_assign, ir.AnnAssign: self._ann_assign, ir.If: self._if,
            ir.For: self._for, ir.While: self._while, ir.Try: self._try, ir.Return: self._return,
            ir.Raise: self._raise, ir.Assert: self._assert, ir.Delete: self._delete,
            ir.FunctionDef: self._function_def, ir.ExceptionClass: lambda s: self.eval(s.base),
            # No data flows through these (an import binds a module, which carries no data).
            ir.Pass: _no_flow, ir.Break: _no_flow, ir.Continue: _no_flow, ir.Phase: _no_flow, ir.Import: _no_flow,
        }

    # ------------------------------------------------------------ driver

    def run(self) -> Flow:
        passes = 0
        for passes in range(1, MAX_PASSES + 1):
            self.changed = False
            self.block(self.program.body)
            if not self.changed:
                break
        return self._resolve(passes)

    def block(self, body) -> None:
        execute = self.statement_cases
        for stmt in body:
            handler = execute.get(type(stmt))
            if handler is None:  # as the interpreter: an IR statement without a case is a compiler bug
                raise TypeError(f"no data-flow case for IR statement {type(stmt).__name__}")
            handler(stmt)

    def eval(self, node) -> Value:
        if node is None:
            return EMPTY
        handler = self.expression_cases.get(type(node))
        if handler is None:
            raise TypeError(f"no data-flow case for IR expression {type(node).__name__}")
        return handler(node)

    # ------------------------------------------------------------ variables

    def _key(self, name: str, scope: str) -> tuple[int, str] | None:
        if scope == ir.GLOBAL:
            return (0, name)
        if scope == ir.LOCAL:
            for frame in reversed(self.scopes):
                if name in frame.names:
                    return (frame.key, name)
            return (self.scopes[-1].key, name)
        if scope == ir.FREE:
            for frame in reversed(self.scopes[:-1]):
                if name in frame.names:
                    return (frame.key, name)
            return (0, name)
        return None

    def _add(self, key: tuple[int, str] | None, value: Value) -> None:
        if key is None or not value:
            return
        old = self.env.get(key, EMPTY)
        if not value <= old:
            self.env[key] = old | value
            self.changed = True

    def assign(self, target, value: Value) -> None:
        kind = type(target)
        if kind is ir.Name:
            self._add(self._key(target.id, target.scope), value)
        elif kind is ir.Tuple or kind is ir.List:
            starred = False
            for index, element in enumerate(target.elts):
                if type(element) is ir.Starred:
                    starred = True
                    self.assign(element.value, prefix(ANY, select(value, ANY)))
                else:
                    self.assign(element, select(value, ANY if starred else index))
        elif kind is ir.Subscript:
            key = self._index_key(target.index)
            self.eval(target.index)
            extra = prefix(ANY, collapse(self.eval(target.index))) if key == ANY else EMPTY
            self._mutate(target.value, (key,), value | extra)
        elif kind is ir.Starred:
            self.assign(target.value, value)
        elif kind is ir.Attribute:
            self._mutate(target.value, ("." + target.attr,), value)

    def _mutate(self, receiver, path: tuple, value: Value) -> None:
        """A weak update of the variable at the base of `receiver` (`x`, `x[k]`, `x.setdefault(k, d)`)."""
        while True:
            kind = type(receiver)
            if kind is ir.Name:
                self._add(self._key(receiver.id, receiver.scope), prefix_path(path, value))
                return
            if kind is ir.Subscript:
                path = (self._index_key(receiver.index),) + path
                receiver = receiver.value
            elif kind is ir.Call and type(receiver.func) is ir.Attribute and receiver.func.attr in ("setdefault", "get"):
                key = self._index_key(receiver.args[0]) if receiver.args else ANY
                path = (key,) + path
                receiver = receiver.func.value
            else:
                return

    @staticmethod
    def _index_key(index):
        if type(index) is ir.Const and isinstance(index.value, (str, int)) and not isinstance(index.value, bool):
            if isinstance(index.value, int) and index.value < 0:
                return ANY
            return index.value
        return ANY

    # ------------------------------------------------------------ statements

    def _assign_stmt(self, stmt: ir.Assign) -> None:
        value = self.eval(stmt.value)
        for target in stmt.targets:
            self.assign(target, value)

    def _ann_assign(self, stmt: ir.AnnAssign) -> None:
        if stmt.value is not None:
            self.assign(stmt.target, self.eval(stmt.value))

    def _aug_assign(self, stmt: ir.AugAssign) -> None:
        value = widen_positions(self.eval(stmt.value))
        target = stmt.target
        if type(target) is ir.Subscript:
            self.eval(target.index)
            self._mutate(target.value, (self._index_key(target.index),), collapse(value))
        else:
            self.assign(target, value)

    def _condition(self, node) -> Value:
        value = self.eval(node)
        self._note_condition(node, value)
        return value

    def _note_condition(self, node, value: Value) -> None:
        if node is not None:
            old = self.conditions.get(id(node), EMPTY)
            if not value <= old:
                self.conditions[id(node)] = old | value

    def _if(self, stmt: ir.If) -> None:
        self._condition(stmt.test)
        self.block(stmt.body)
        self.block(stmt.orelse)

    def _for(self, stmt: ir.For) -> None:
        iterable = self._condition(stmt.iter)
        self.assign(stmt.target, select(iterable, ANY))
        self.block(stmt.body)
        self.block(stmt.orelse)

    def _while(self, stmt: ir.While) -> None:
        self._condition(stmt.test)
        self.block(stmt.body)
        self.block(stmt.orelse)

    def _try(self, stmt: ir.Try) -> None:
        self.block(stmt.body)
        for handler in stmt.handlers:
            if handler.name:
                self._add(self._key(handler.name, ir.LOCAL if len(self.scopes) > 1 else ir.GLOBAL), self._thrown(stmt))
            self.block(handler.body)
        self.block(stmt.orelse)
        self.block(stmt.finalbody)

    def _thrown(self, stmt: ir.Try) -> Value:
        """What an exception caught around `stmt.body` may carry: the steps issued there."""
        cached = self.thrown_cache.get(id(stmt))
        if cached is None:
            sites = [n.site for n in iter_nodes(stmt.body) if type(n) is ir.FacadeCall and n.site and is_step(n.site)]
            cached = frozenset((site, (), (), False) for site in sites)
            self.thrown_cache[id(stmt)] = cached
        return cached

    def _return(self, stmt: ir.Return) -> None:
        value = self.eval(stmt.value)
        if self.function_stack:
            key = self.function_stack[-1]
            old = self.returns.get(key, EMPTY)
            if not value <= old:
                self.returns[key] = old | value
                self.changed = True
        else:
            self.top_return = self.top_return | value

    def _raise(self, stmt: ir.Raise) -> None:
        self.eval(stmt.exc)
        self.eval(stmt.cause)

    def _assert(self, stmt: ir.Assert) -> None:
        self._condition(stmt.test)
        self.eval(stmt.msg)

    def _delete(self, stmt: ir.Delete) -> None:
        for target in stmt.targets:
            self.eval(target)

    def _function_def(self, stmt: ir.FunctionDef) -> None:
        function = self._register(stmt, stmt.params)
        defaults = self._defaults(stmt.params)
        scope = ir.GLOBAL if stmt.scope == ir.GLOBAL else ir.LOCAL
        self._add(self._key(stmt.name, scope), frozenset({(f"fn:{function.key}", (), (), True)}))
        self._enter(function, frozenset(stmt.locals) | {p.name for p in stmt.params}, defaults)
        try:
            self.block(stmt.body)
        finally:
            self._leave()

    def _register(self, node, params) -> _Function:
        key = self.function_keys.get(id(node))
        if key is None:
            key = len(self.functions) + 1
            self.function_keys[id(node)] = key
            labels = tuple(f"p:{key}:{i}" for i in range(len(params)))
            self.functions[key] = _Function(key, node, params, labels)
        return self.functions[key]

    def _defaults(self, params: tuple[ir.Param, ...]) -> list[Value]:
        """What each parameter's default holds: evaluated where the `def` or `lambda` is, in
        the enclosing scope, before the body's scope is entered."""
        return [self.eval(param.default) for param in params]

    def _enter(self, function: _Function, names: frozenset, defaults: list[Value]) -> None:
        self.scopes.append(_Scope(function.key * 2 + 1, names, function.key))  # odd keys: bodies
        self.function_stack.append(function.key)
        for param, label, default in zip(function.params, function.labels, defaults):
            self._add((function.key * 2 + 1, param.name), frozenset({(label, (), (), True)}) | default)

    def _leave(self) -> None:
        self.scopes.pop()
        self.function_stack.pop()

    # ------------------------------------------------------------ expressions

    def _fstring(self, node: ir.FString) -> Value:
        values = []
        for part in node.parts:
            if type(part) is ir.FormattedValue:
                values.append(collapse(self.eval(part.value)))
                if part.format_spec is not None:
                    values.append(self._fstring(part.format_spec))
        return union(values)

    def _name(self, node: ir.Name) -> Value:
        key = self._key(node.id, node.scope)
        return self.env.get(key, EMPTY) if key is not None else EMPTY

    def _attribute(self, node: ir.Attribute) -> Value:
        if type(node.value) is ir.Name and node.value.scope in (ir.MODULE, ir.FACADE):
            return EMPTY
        return select(self.eval(node.value), "." + node.attr)

    def _subscript(self, node: ir.Subscript) -> Value:
        value = self.eval(node.value)
        if type(node.index) is ir.Slice:
            for bound in (node.index.lower, node.index.upper, node.index.step):
                self.eval(bound)
            return widen_positions(value)
        self.eval(node.index)
        return select(value, self._index_key(node.index))

    def _binop(self, node: ir.BinOp) -> Value:
        return widen_positions(self.eval(node.left) | self.eval(node.right))

    def _boolop(self, node: ir.BoolOp) -> Value:
        return union(self.eval(v) for v in node.values)

    def _compare(self, node: ir.Compare) -> Value:
        return collapse(union([self.eval(node.left)] + [self.eval(c) for c in node.comparators]))

    def _ifexp(self, node: ir.IfExp) -> Value:
        test = self._condition(node.test)
        return self.eval(node.body) | self.eval(node.orelse) | collapse(test)

    def _named(self, node: ir.NamedExpr) -> Value:
        value = self.eval(node.value)
        self.assign(node.target, value)
        return value

    def _sequence(self, node) -> Value:
        values, starred = [], False
        for index, element in enumerate(node.elts):
            if type(element) is ir.Starred:
                starred = True
                values.append(prefix(ANY, select(self.eval(element.value), ANY)))
            else:
                values.append(prefix(ANY if starred else index, self.eval(element)))
        return union(values)

    def _set(self, node: ir.Set) -> Value:
        return union(prefix(ANY, select(self.eval(e.value), ANY) if type(e) is ir.Starred else self.eval(e))
                      for e in node.elts)

    def _dict(self, node: ir.Dict) -> Value:
        values = []
        for key, item in zip(node.keys, node.values):
            value = self.eval(item)
            if key is None:
                values.append(value)
                continue
            index = self._index_key(key)
            values.append(prefix(index, value))
            if index == ANY:
                values.append(prefix(ANY, collapse(self.eval(key))))
        return union(values)

    def _lambda(self, node: ir.Lambda) -> Value:
        function = self._register(node, node.params)
        self._enter(function, frozenset(node.locals) | {p.name for p in node.params}, self._defaults(node.params))
        try:
            value = self.eval(node.body)
            old = self.returns.get(function.key, EMPTY)
            if not value <= old:
                self.returns[function.key] = old | value
                self.changed = True
        finally:
            self._leave()
        return frozenset({(f"fn:{function.key}", (), (), True)})

    def _comprehension(self, node) -> Value:
        names = set()
        for generator in node.generators:
            names.update(n.id for n in iter_nodes(generator.target) if type(n) is ir.Name)
        scope = _Scope(-id(node), frozenset(names), None)
        pushed = False
        for index, generator in enumerate(node.generators):
            iterable = self._condition(generator.iter)  # the first iterable is evaluated outside
            if not pushed:
                self.scopes.append(scope)
                pushed = True
            self.assign(generator.target, select(iterable, ANY))
            for test in generator.ifs:
                self._condition(test)
        try:
            if type(node) is ir.DictComp:
                return prefix(ANY, self.eval(node.value)) | prefix(ANY, collapse(self.eval(node.key)))
            return prefix(ANY, self.eval(node.elt))
        finally:
            self.scopes.pop()

    # ------------------------------------------------------------ calls

    def _arguments(self, node) -> tuple[list[Value], list[bool], dict[str | None, Value]]:
        args, starred = [], []
        for arg in node.args:
            is_star = type(arg) is ir.Starred
            args.append(self.eval(arg.value if is_star else arg))
            starred.append(is_star)
        keywords: dict[str | None, Value] = {}
        for keyword in node.keywords:
            keywords[keyword.name] = keywords.get(keyword.name, EMPTY) | self.eval(keyword.value)
        return args, starred, keywords

    def _call(self, node: ir.Call) -> Value:
        args, starred, keywords = self._arguments(node)
        everything = collapse(union(args) | union(keywords.values()))
        func = node.func
        if type(func) is ir.Name and func.scope == ir.BUILTIN:
            return builtin_call(func.id, args, starred, keywords, everything,
                                lambda callee, values, tag: self._callback(callee, values, (tag, id(node))))
        if type(func) is ir.Attribute:
            if type(func.value) is ir.Name and func.value.scope in (ir.MODULE, ir.FACADE):
                return everything
            key = self._index_key(node.args[0]) if node.args else ANY
            return method_call(func.attr, self.eval(func.value), args, keywords, everything, key,
                               lambda path, value: self._mutate(func.value, path, value),
                               lambda callee, values, tag: self._callback(callee, values, (tag, id(node))))
        return self.apply(self.eval(func), args, starred, keywords, id(node))

    def apply(self, callee: Value, args: list[Value], starred: list[bool], keywords: dict, call_id) -> Value:
        """Call every function `callee` may be: summaries for script functions, and the union
        of the arguments for anything unknown."""
        results, keys, unknown = [], [], False
        for source, _, _, _ in callee:
            if source.startswith("fn:"):
                function = self.functions[int(source[3:])]
                keys.append(function.key)
                bound = bind_arguments(function.params, args, starred, keywords)
                record = self.calls.setdefault((call_id, function.key), [EMPTY] * len(bound))
                for i, value in enumerate(bound):
                    if not value <= record[i]:
                        record[i] = record[i] | value
                        self.changed = True
                results.append(substitute(self.returns.get(function.key, EMPTY), function.labels, bound))
            else:
                unknown = True
        if keys:
            old = self.callees.get(call_id, ())
            merged = tuple(sorted(set(old) | set(keys)))
            if merged != old:
                self.callees[call_id] = merged
        if unknown or not keys:
            results.append(collapse(callee | union(args) | union(keywords.values())))
        return union(results)

    def _callback(self, callee: Value, args: list[Value], call_id) -> Value:
        if not any(source.startswith("fn:") for source, _, _, _ in callee):
            return collapse(union(args))
        return self.apply(frozenset(l for l in callee if l[0].startswith("fn:")), args, [False] * len(args), {}, call_id)

    # ------------------------------------------------------------ facade calls

    def _facade(self, node: ir.FacadeCall) -> Value:
        receiver = self.eval(node.receiver) if node.receiver is not None else EMPTY
        args, starred, keywords = self._arguments(node)
        op, site = node.op, node.site
        everything = collapse(union(args) | union(keywords.values()))
        if op == "agent":
            return frozenset({(site, (), (), True)}) | everything
        if op == "ask":
            instructions = args[0] if args else keywords.get("instructions", EMPTY)
            self._sink(site, collapse(instructions))
            old = self.ask_receivers.get(site, EMPTY)
            if not receiver <= old:
                self.ask_receivers[site] = old | receiver
            return frozenset({(site, (), (), True)})
        if site and site.startswith(("read#", "run#", "workflow#")):  # a saved workflow's result is its own
            self._sink(site, everything)
            return frozenset({(site, (), (), True)})
        if op == "parallel":
            return args[0] if args else keywords.get("awaitables", EMPTY)
        if op == "gather":
            return gather_result(args, starred)
        if op == "pipeline":
            return self._pipeline(node, args, starred)
        if op in ("report", "log", "phase") or op.startswith("budget."):
            return EMPTY
        return everything  # artifact.*, hole

    def _sink(self, site: str, value: Value) -> None:
        old = self.sinks.get(site, EMPTY)
        if not value <= old:
            self.sinks[site] = old | value

    def _pipeline(self, node: ir.FacadeCall, args: list[Value], starred: list[bool]) -> Value:
        if not args:
            return EMPTY
        self._note_condition(node.args[0], args[0])
        item = select(args[0], ANY)
        previous = item
        for index, stage in enumerate(args[1:], start=1):
            if starred[index]:
                stage = select(stage, ANY)
            previous = self.apply(stage, [previous, item, EMPTY], [False] * 3, {}, (id(node), index))
        return prefix(ANY, previous)

    # ------------------------------------------------------------ resolution

    def _resolve(self, passes: int) -> Flow:
        params: dict[str, Value] = {}
        for _ in range(MAX_PASSES):
            grown = False
            for (call_id, key), bound in self.calls.items():
                function = self.functions[key]
                for label, value in zip(function.labels, bound):
                    resolved = resolve_parameters(value, params)
                    old = params.get(label, EMPTY)
                    if not resolved <= old:
                        params[label] = old | resolved
                        grown = True
            if not grown:
                break

        def steps(value: Value) -> dict[str, bool]:
            out: dict[str, bool] = {}
            for source, _, _, exact in resolve_parameters(value, params):
                if is_step(source):
                    out[source] = out.get(source, False) or exact
            return out

        data = {}
        receivers = {}
        for site, value in self.sinks.items():
            data[site] = steps(value)
        for site, value in self.ask_receivers.items():
            resolved = resolve_parameters(value, params)
            receivers[site] = tuple(sorted({s for s, _, _, _ in resolved if s.startswith("actor#")}, key=site_order))
            for source, _, _, exact in resolved:  # what the actor was made from feeds its asks
                if is_step(source):
                    data.setdefault(site, {})
                    data[site][source] = data[site].get(source, False) or exact
        conditions = {node_id: steps(value) for node_id, value in self.conditions.items()}
        functions = {key: f.node for key, f in self.functions.items()}
        return Flow(data, receivers, steps(self.top_return), dict(self.callees), functions, conditions, passes)

def analyze(program: ir.Program) -> Flow:
    """Run the data-flow analysis over a compiled program."""
    return FlowAnalysis(program).run()
