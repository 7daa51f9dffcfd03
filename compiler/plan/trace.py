"""This module defines the temporal walk of the approval screen: in which order the steps of a
script are issued, which awaits order them, which loops and fan-outs repeat them, which phase
each one runs in, and which conditions decide whether they run.

The algorithm
-------------

One walk over the IR in evaluation order, with helper functions **inlined at each call site**
(the data-flow analysis, `compiler.plan.dataflow`, says which functions a call may reach; recursion
is cut at the second entry). Only functions that can reach an effect or a phase marker are
entered, so pure helpers cost nothing. The walk keeps a small abstract state:

- `frontier`: the steps settled by the most recent await (`None` when the path is dead after a
  `return`, `raise`, `break` or `continue`). Issuing a step adds a **seq** edge from every
  frontier step; an `await` settles every step issued and not yet settled (lazy awaitables start
  when awaited, so a `parallel` of a generator settles all of its elements at once).
- `regions`: the enclosing loops (`for`, `while`, a comprehension that awaits inside) and
  fan-outs (a comprehension of awaitables, the items of a `pipeline`), each with its static
  size when the iterable is a literal, a `range()` of constants or a top-level constant.
- `control`: the steps whose results a condition reads: `if`/`while` tests, loop and
  comprehension iterables, comprehension filters, and the tests of an `if` that may leave the
  block early (`return`, `raise`, `break`, `continue`), which guard the rest of the block.
- `phase` and `last`: the phase new steps belong to (a marker holds for the rest of its block)
  and the phases control was last in, from which a marker or a step of another phase draws a
  phase edge (`branch` when reached under a condition, else `sequence`).

Branches walk each arm from the same state and join the results; a loop walks its body once,
then closes it with **carry** edges from the steps settled at the end of the body (and at each
`continue`) to the body's entry steps (issued before its first await), and with a phase `loop`
edge; a loop that may run zero times joins the state from before it.

Invariants: every step of the site table gets a `StepInfo` (those nothing calls come last,
unreached); steps are numbered in first-issue order; a region is keyed by its syntax node.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dwf.compiler import ir
from dwf.compiler.plan.dataflow import Flow
from dwf.compiler.plan.statics import children, iter_nodes, module_constants, static_items
from dwf.compiler.source import Span
from dwf.compiler.plan.taint import is_step

UNPHASED = None
STEP_OPS = ("ask", "read", "run", "workflow")


@dataclass
class Region:
    id: str | None  # "loop#1", "fanout#2": numbered when the first step or actor inside is reached
    kind: str  # "loop" | "fanout"
    span: Span
    bound: int | None  # static number of iterations or items
    outer: Region | None  # the enclosing region (which may have no id: nothing inside it runs)
    join: str | None  # the join site a fan-out feeds
    iterable: ir.Node | None
    target: ir.Node | None
    elements: tuple | None  # the literal items, when the iterable is a literal of constants
    filtered: bool = False  # a comprehension with `if` clauses


@dataclass
class StepInfo:
    id: str
    kind: str  # "ask" | "read" | "run"
    node: ir.FacadeCall | None
    span: Span
    order: int
    phases: list = field(default_factory=list)  # phase names (None: unphased), first reach first
    regions: tuple[str, ...] = ()
    control: set = field(default_factory=set)  # (step, late) pairs
    conditional: bool = False
    reached: bool = True
    joins: set = field(default_factory=set)  # the `parallel`/`gather`/`pipeline` sites it runs under


@dataclass
class ActorInfo:
    id: str
    node: ir.FacadeCall | None
    span: Span
    order: int
    phase: str | None
    regions: tuple[str, ...] = ()
    reached: bool = True


@dataclass
class Trace:
    steps: dict[str, StepInfo]  # in issue order
    actors: dict[str, ActorInfo]  # in creation order
    regions: dict[str, Region]
    seq: set  # (u, v)
    carry: dict  # (u, v) -> region id
    phase_order: list  # phase names (None: unphased) in first-reach order
    phase_edges: dict  # (from, to) -> "sequence" | "branch" (reached under a condition) | "loop"
    early_exits: set  # phases in which a conditional top-level `return` may end the run
    constants: dict[str, object]


@dataclass
class _State:
    frontier: frozenset | None
    last: frozenset


@dataclass
class _Loop:
    region: Region
    entry_open: bool = True
    entry_steps: list = field(default_factory=list)
    entry_phases: list = field(default_factory=list)
    breaks: list = field(default_factory=list)
    continues: list = field(default_factory=list)
    inside: set = field(default_factory=set)  # steps issued in the body


def _join(states: list[_State]) -> _State:
    alive = [s for s in states if s.frontier is not None]
    if not alive:
        return _State(None, frozenset())
    return _State(frozenset().union(*(s.frontier for s in alive)), frozenset().union(*(s.last for s in alive)))


class TraceWalk:
    def __init__(self, program: ir.Program, flow: Flow):
        self.program, self.flow = program, flow
        self.constants = module_constants(program)
        self.sites = {s.id: s for s in program.sites}
        self.steps: dict[str, StepInfo] = {}
        self.actors: dict[str, ActorInfo] = {}
        self.regions: dict[str, Region] = {}
        self.region_by_node: dict[int, Region] = {}
        self.counters = {"loop": 0, "fanout": 0}
        self.seq: set = set()
        self.carry: dict = {}
        self.phase_order: list = []
        self.phase_edges: dict = {}
        self.early_exits: set = set()
        self.state = _State(frozenset(), frozenset({UNPHASED}))
        self.pending: list[str] = []
        self.phase: str | None = UNPHASED
        self.region_stack: list[Region] = []
        self.loops: list[_Loop] = []
        self.control: frozenset = frozenset()
        self.cond = 0
        self.inlined: list[int] = []
        self.returns: list[list[_State]] = []
        self.join_site: str | None = None
        self.join_stack: list[str] = []  # every join being walked, outermost first (comprehensions included)
        self.recursive: set[int] = set()
        self.effectful = self._effectful_functions()

    # ------------------------------------------------------------ driver

    def run(self) -> Trace:
        self.block(self.program.body)
        self._mark_recursion()
        for site in self.program.sites:  # steps and actors in helpers that nothing calls
            if site.kind in STEP_OPS and site.id not in self.steps:
                self.steps[site.id] = StepInfo(site.id, site.kind, None, site.span, len(self.steps), [UNPHASED], reached=False)
            elif site.kind == "actor" and site.id not in self.actors:
                self.actors[site.id] = ActorInfo(site.id, None, site.span, len(self.actors), UNPHASED, reached=False)
        if any(UNPHASED in s.phases for s in self.steps.values()) and UNPHASED not in self.phase_order:
            self.phase_order.insert(0, UNPHASED)
        return Trace(self.steps, self.actors, self.regions, self.seq, self.carry, self.phase_order,
                     self.phase_edges, self.early_exits, self.constants)

    def _mark_recursion(self) -> None:
        """Steps in a function that calls itself (directly or not) repeat without a static
        bound: each such function becomes one loop region of unknown size."""
        for key in sorted(self.recursive):
            function = self.flow.functions[key]
            sites = {n.site for n in iter_nodes(function.body) if type(n) is ir.FacadeCall and n.site}
            members = [s for s in sites if s in self.steps or s in self.actors]
            if not members:
                continue
            self.counters["loop"] += 1
            region = Region(f"loop#{self.counters['loop']}", "loop", function.span, None, None, None, None, None, None)
            self.regions[region.id] = region
            for site in members:
                info = self.steps.get(site) or self.actors.get(site)
                info.regions = info.regions + (region.id,)

    def _effectful_functions(self) -> set[int]:
        """Function keys that can reach an effect or a phase marker, through calls."""
        direct, calls = set(), {}
        for key, node in self.flow.functions.items():
            body = node.body
            callees = set()
            for n in iter_nodes(body):
                kind = type(n)
                if kind is ir.Phase or (kind is ir.FacadeCall and n.site and not n.site.startswith(("report#", "artifact#"))):
                    direct.add(key)
                elif kind is ir.Call or kind is ir.FacadeCall:
                    for call_id in (id(n), ("key", id(n)), ("map", id(n))):
                        callees.update(self.flow.callees.get(call_id, ()))
            calls[key] = callees
        effectful = set(direct)
        grown = True
        while grown:
            grown = False
            for key, callees in calls.items():
                if key not in effectful and callees & effectful:
                    effectful.add(key)
                    grown = True
        return effectful

    # ------------------------------------------------------------ statements

    def block(self, body) -> tuple:
        """Walk a block; returns (return guard, loop-jump guard): the control labels under which
        the block may leave early, or None when it cannot."""
        saved_control, saved_phase = self.control, self.phase
        ret = brk = None
        for stmt in body:
            handler = getattr(self, "s_" + type(stmt).__name__, None)
            result = handler(stmt) if handler is not None else None
            if result is not None:
                r, b = result
                if r is not None:
                    ret = (ret or frozenset()) | r
                    self.control = self.control | r
                if b is not None:
                    brk = (brk or frozenset()) | b
                    self.control = self.control | b
        self.control, self.phase = saved_control, saved_phase
        return ret, brk

    def s_ExprStmt(self, stmt):  # also AugAssign and AnnAssign: only the value can issue steps
        self.expr(stmt.value)

    s_AugAssign = s_AnnAssign = s_ExprStmt

    def s_Assign(self, stmt):
        self.expr(stmt.value)
        for target in stmt.targets:
            self.expr(target)

    def s_Phase(self, stmt):
        for q in self.state.last:
            if q != stmt.name:
                self._phase_edge(q, stmt.name)
        if self.state.frontier is not None:
            self.state = _State(self.state.frontier, frozenset({stmt.name}))
        self.phase = stmt.name
        if stmt.name not in self.phase_order:
            self.phase_order.append(stmt.name)

    def s_Return(self, stmt):
        self.expr(stmt.value)
        if self.returns:
            self.returns[-1].append(self.state)
        elif self.cond > 0:
            self.early_exits.add(self.phase)
        self.state = _State(None, frozenset())
        return frozenset(), None

    def s_Raise(self, stmt):
        self.expr(stmt.exc)
        self.state = _State(None, frozenset())
        return frozenset(), None

    def s_Break(self, stmt):
        if self.loops:
            (self.loops[-1].breaks if type(stmt) is ir.Break else self.loops[-1].continues).append(self.state)
        self.state = _State(None, frozenset())
        return None, frozenset()

    s_Continue = s_Break

    def s_Assert(self, stmt):
        self.expr(stmt.test)

    def s_If(self, stmt):
        self.expr(stmt.test)
        labels = self._labels(stmt.test)
        before, flags = self.state, self._entry_flags()
        self.cond += 1
        saved = self.control
        self.control = saved | labels
        r1, b1 = self.block(stmt.body)
        after_body, flags_body = self.state, self._entry_flags()
        self.state = before
        self._set_entry_flags(flags)
        r2, b2 = self.block(stmt.orelse)
        self.control = saved
        self.cond -= 1
        self._set_entry_flags([a or b for a, b in zip(flags_body, self._entry_flags())])
        self.state = _join([after_body, self.state])
        return self._guard(r1, r2, labels), self._guard(b1, b2, labels)

    @staticmethod
    def _guard(a, b, labels):
        if a is None and b is None:
            return None
        return (a or frozenset()) | (b or frozenset()) | labels

    def s_Try(self, stmt):
        before = self.state
        r, b = self.block(stmt.body)
        states = [self.state]
        self.cond += 1
        for handler in stmt.handlers:
            self.state = _join([before, states[0]])
            self.block(handler.body)
            states.append(self.state)
        self.cond -= 1
        self.state = states[0]
        self.block(stmt.orelse)
        states[0] = self.state
        self.state = _join(states)
        self.block(stmt.finalbody)
        return (r, b) if r is not None or b is not None else None

    def s_For(self, stmt):
        self.expr(stmt.iter)
        region = self._region(stmt, "loop", stmt.iter, stmt.target)
        return self._loop(region, self._labels(stmt.iter), lambda: self.block(stmt.body), stmt.orelse)

    def s_While(self, stmt):
        self.expr(stmt.test)
        region = self._region(stmt, "loop", None, None)
        labels = self._labels(stmt.test)

        def body():
            result = self.block(stmt.body)
            self.expr(stmt.test)
            return result

        return self._loop(region, labels, body, stmt.orelse)

    def _loop(self, region: Region, labels: frozenset, body, orelse=()):
        before = self.state
        loop = _Loop(region)
        self.loops.append(loop)
        self.region_stack.append(region)
        saved = self.control
        self.control = saved | labels
        may_skip = not region.bound
        self.cond += may_skip
        ret, _ = body()
        end = _join([self.state] + loop.continues)
        for u in sorted((end.frontier or frozenset()) & loop.inside):
            for v in loop.entry_steps:
                self.carry.setdefault((u, v), region.id)
        for q in end.last:
            for p in loop.entry_phases:
                self.phase_edges[(q, p)] = "loop"
        self.cond -= may_skip
        self.control = saved
        self.region_stack.pop()
        self.loops.pop()
        self.state = _join([end, before]) if may_skip else end
        if orelse:
            self.block(orelse)
        self.state = _join([self.state] + loop.breaks)
        return (ret, None) if ret is not None else None

    def s_FunctionDef(self, stmt):
        for param in stmt.params:  # defaults run here, when the `def` runs
            self.expr(param.default)
        return None  # bodies are walked where they are called

    # ------------------------------------------------------------ expressions

    def expr(self, node) -> None:
        if node is None:
            return
        kind = type(node)
        if kind is ir.Await:
            self.expr(node.value)
            self._settle()
        elif kind is ir.FacadeCall:
            self._facade(node)
        elif kind is ir.Call:
            self._call(node)
        elif kind in (ir.ListComp, ir.SetComp, ir.GeneratorExp, ir.DictComp):
            self._comprehension(node)
        elif kind is ir.IfExp:
            self.expr(node.test)
            self.cond += 1
            self.expr(node.body)
            self.expr(node.orelse)
            self.cond -= 1
        elif kind is ir.BoolOp:
            self.expr(node.values[0])
            self.cond += 1
            for value in node.values[1:]:
                self.expr(value)
            self.cond -= 1
        elif kind is ir.Lambda:
            for param in node.params:  # defaults run when the lambda is made; its body when called
                self.expr(param.default)
        elif kind is ir.Const or kind is ir.Name:
            return
        else:
            for child in children(node):
                self.expr(child)

    def _call(self, node: ir.Call) -> None:
        self.expr(node.func)
        for arg in node.args:
            self.expr(arg)
        for keyword in node.keywords:
            self.expr(keyword.value)
        for call_id in (id(node), ("key", id(node)), ("map", id(node))):
            for key in self.flow.callees.get(call_id, ()):
                self._inline(key)

    def _inline(self, key: int) -> None:
        if key in self.inlined:
            self.recursive.add(key)
        if key not in self.effectful or key in self.inlined:
            return
        function = self.flow.functions[key]
        self.inlined.append(key)
        saved = (self.control, self.phase)
        self.returns.append([])
        try:
            if type(function) is ir.Lambda:
                self.expr(function.body)
            else:
                self.block(function.body)
            self.state = _join([self.state] + self.returns[-1])
        finally:
            self.returns.pop()
            self.control, self.phase = saved
            self.inlined.pop()

    def _facade(self, node: ir.FacadeCall) -> None:
        outer_join = self.join_site
        joining = node.op in ("parallel", "gather", "pipeline") and node.site is not None
        if joining:
            self.join_site = node.site
            self.join_stack.append(node.site)
        self.expr(node.receiver)
        if node.op == "pipeline":
            self._pipeline(node)
        else:
            for arg in node.args:
                self.expr(arg)
            for keyword in node.keywords:
                self.expr(keyword.value)
        if joining:
            self.join_stack.pop()
        self.join_site = outer_join
        site = node.site
        if site is None:
            return
        if site.startswith("actor#"):
            if site not in self.actors:
                self.actors[site] = ActorInfo(site, node, node.span, len(self.actors), self.phase, self._region_ids())
        elif is_step(site):
            self._issue(site, node)

    def _pipeline(self, node: ir.FacadeCall) -> None:
        items = node.args[0] if node.args else None
        self.expr(items)
        region = self._region(node, "fanout", items, None)
        self.region_stack.append(region)
        saved = self.control
        self.control = saved | self._labels(items)
        for index in range(1, len(node.args)):
            for key in self.flow.callees.get((id(node), index), ()):
                self._inline(key)
            self._settle()
        self.control = saved
        self.region_stack.pop()

    def _comprehension(self, node) -> None:
        generators = node.generators
        self.expr(generators[0].iter)
        awaits = any(type(n) is ir.Await for n in iter_nodes(node.elt if type(node) is not ir.DictComp else (node.key, node.value)))
        region = self._region(node, "loop" if awaits else "fanout", generators[0].iter, generators[0].target)
        labels = frozenset().union(*(self._labels(g.iter) for g in generators),
                                   *(self._labels(test) for g in generators for test in g.ifs))

        def body():
            for index, generator in enumerate(generators):
                if index:
                    self.expr(generator.iter)
                for test in generator.ifs:
                    self.expr(test)
            if type(node) is ir.DictComp:
                self.expr(node.key)
                self.expr(node.value)
            else:
                self.expr(node.elt)
            return None, None

        outer_join, self.join_site = self.join_site, None
        if awaits:
            self._loop(region, labels, body)
        else:
            self.region_stack.append(region)
            saved = self.control
            self.control = saved | labels
            before = self.state
            body()
            if not region.bound:
                self.state = _join([self.state, before])
            self.control = saved
            self.region_stack.pop()
        self.join_site = outer_join

    # ------------------------------------------------------------ steps

    def _issue(self, site: str, node: ir.FacadeCall) -> None:
        info = self.steps.get(site)
        if info is None:
            kind = self.sites[site].kind if site in self.sites else site.partition("#")[0]
            info = StepInfo(site, kind, node, node.span, len(self.steps))
            info.regions = self._region_ids()
            self.steps[site] = info
        else:
            extra = [r for r in self._region_ids() if r not in info.regions]
            info.regions = info.regions + tuple(extra)
        if self.phase not in info.phases:
            info.phases.append(self.phase)
        info.control.update(self.control)
        info.joins.update(self.join_stack)
        info.conditional = info.conditional or self.cond > 0
        for u in self.state.frontier or ():
            if u != site:
                self.seq.add((u, site))
        self.pending.append(site)
        for loop in self.loops:
            loop.inside.add(site)
            if loop.entry_open:
                if site not in loop.entry_steps:
                    loop.entry_steps.append(site)
                if self.phase not in loop.entry_phases:
                    loop.entry_phases.append(self.phase)
        for q in self.state.last:
            if q != self.phase:
                self._phase_edge(q, self.phase)
        if self.phase is UNPHASED and UNPHASED not in self.phase_order:
            self.phase_order.insert(0, UNPHASED)
        self.state = _State(self.state.frontier if self.state.frontier is not None else frozenset(), frozenset({self.phase}))

    def _phase_edge(self, source, target) -> None:
        kind = "branch" if self.cond > 0 else "sequence"
        if self.phase_edges.get((source, target)) in (None, "sequence"):
            self.phase_edges[(source, target)] = kind

    def _settle(self) -> None:
        if self.pending:
            self.state = _State(frozenset(self.pending), self.state.last)
            self.pending = []
            for loop in self.loops:
                loop.entry_open = False

    def _entry_flags(self) -> list[bool]:
        return [loop.entry_open for loop in self.loops]

    def _set_entry_flags(self, flags: list[bool]) -> None:
        for loop, flag in zip(self.loops, flags):
            loop.entry_open = flag

    def _labels(self, node) -> frozenset:
        """The steps a condition reads, as (step, late) pairs: `late` when the step is issued
        only after the condition (in a loop, its result reaches the condition on the next
        iteration, never on this one)."""
        if node is None:
            return frozenset()
        return frozenset((u, u not in self.steps) for u in self.flow.conditions.get(id(node), {}))

    # ------------------------------------------------------------ regions

    def _region(self, node, kind: str, iterable, target) -> Region:
        region = self.region_by_node.get(id(node))
        if region is not None:
            return region
        bound, elements, filtered = None, None, False
        if type(node) in (ir.ListComp, ir.SetComp, ir.GeneratorExp, ir.DictComp):
            filtered = any(g.ifs for g in node.generators)
            sizes = [static_items(g.iter, self.constants) for g in node.generators]
            if not filtered and all(s is not None for s in sizes):
                bound = 1
                for s in sizes:
                    bound *= len(s)
                if len(sizes) == 1:
                    elements = sizes[0]
        elif iterable is not None:
            items = static_items(iterable, self.constants)
            if items is not None:
                bound, elements = len(items), items
        region = Region(None, kind, node.span, bound, self.region_stack[-1] if self.region_stack else None,
                        self.join_site if kind == "fanout" else None, iterable, target, elements, filtered)
        self.region_by_node[id(node)] = region
        return region

    def _region_ids(self) -> tuple[str, ...]:
        """The ids of the enclosing regions, numbering those reached for the first time."""
        for region in self.region_stack:
            if region.id is None:
                self.counters[region.kind] += 1
                region.id = f"{region.kind}#{self.counters[region.kind]}"
                self.regions[region.id] = region
        return tuple(r.id for r in self.region_stack)


def walk(program: ir.Program, flow: Flow) -> Trace:
    """Run the temporal walk over a compiled program with its data-flow facts."""
    return TraceWalk(program, flow).run()
