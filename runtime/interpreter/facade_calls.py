"""This module defines how facade calls run: each `FacadeCall` of the IR compiles to a closure
that evaluates its arguments, fixes the occurrence key, and hands the effect to the host (the
engine). Calls that are awaitable return a `LazyAwaitable`; `parallel`, `gather` and
`pipeline` are implemented here on asyncio tasks (`_run_all`).

Join semantics (LANGUAGE §6.3): `parallel` returns results in input order and turns an item
that fails with a script error into `None`; `gather` is strict (the first failure cancels the
siblings and raises); `pipeline` streams each item through the stages with no barrier, and an
item whose stage raises becomes `None`. Fatal errors and `BudgetExceeded` are never turned into
`None`: they cancel the join and propagate.
"""

from __future__ import annotations

import asyncio
import time

from dwf.compiler import ir
from dwf.grammar import facade as F

from dwf.runtime.interpreter import sandbox
from dwf.runtime.interpreter.frames import Code, any_async, collect_args, collect_args_async, evaluate, iterate
from dwf.runtime.values.errors import FatalError, ScriptError
from dwf.runtime.values.objects import ActorHandle, LazyAwaitable, ScriptFunction, BuiltinFunction, type_name


def compile_facade_call(compiler, node: ir.FacadeCall) -> Code:
    """The closure of one facade call: it evaluates the receiver, then the arguments (with
    CPython's checks of `*` and `**`, naming the member), fixes the occurrence key and runs the
    member's action (`ACTIONS`)."""
    interp = compiler.interp
    args = [(compiler.expr(a.value), True) if isinstance(a, ir.Starred) else (compiler.expr(a), False) for a in node.args]
    keywords = [(k.name, compiler.expr(k.value)) for k in node.keywords]
    receiver = compiler.expr(node.receiver) if node.receiver is not None else None
    codes = [c for c, _ in args] + [c for _, c in keywords] + ([receiver] if receiver else [])
    action = ACTIONS[node.op]
    site = node.site
    callee = node.op

    def perform(frame, actor, positional, named):
        key = interp.occurrence_key(site, frame.path) if site else None
        return action(interp, node, site, key, frame, actor, positional, named)

    if any_async(codes):
        async def run_async(frame):
            actor = await evaluate(receiver, frame) if receiver else None
            positional, named = await collect_args_async(frame, args, keywords, callee)
            return perform(frame, actor, positional, named)
        return Code(run_async, True)

    def run(frame):
        actor = receiver.run(frame) if receiver else None
        positional, named = collect_args(frame, args, keywords, callee)
        return perform(frame, actor, positional, named)
    return Code(run, False)


def _bind(op: str, names: tuple[str, ...], positional: list, named: dict, defaults: dict) -> dict:
    if len(positional) > len(names):
        raise ScriptError("TypeError", f"{op}() takes at most {len(names)} positional arguments")
    values = dict(defaults)
    values.update(zip(names, positional))
    for name, value in named.items():
        if name not in values and name not in names:
            raise ScriptError("TypeError", f"{op}() got an unexpected keyword argument '{name}'")
        values[name] = value
    for name in names[len(positional):]:  # those given positionally are bound
        if name not in values:
            raise ScriptError("TypeError", f"{op}() missing required argument '{name}'")
    return values


def _str(value, what: str) -> str:
    if not isinstance(value, str):
        raise ScriptError("TypeError", f"{what} must be a str, not {type_name(value)}")
    return value


def _optional_str(value, what: str) -> str | None:
    return None if value is None else _str(value, what)


# ---------------------------------------------------------------- actions


AGENT_DEFAULTS = {"name": None, "system": None, "model": None, "agent_type": None, "isolation": None, "tools": None}


def do_agent(interp, node, site, key, frame, actor, positional, named):
    v = _bind("agent", ("name", "system"), positional, named, AGENT_DEFAULTS)
    isolation = _optional_str(v["isolation"], "isolation")
    if isolation not in (None, *F.ISOLATIONS):
        raise ScriptError("ValueError", f"agent() isolation must be \"worktree\" or None, not {isolation!r}")
    return interp.host.create_actor(site, key, _optional_str(v["name"], "agent name"),
                                    _optional_str(v["system"], "system"), _optional_str(v["model"], "model"),
                                    _optional_str(v["agent_type"], "agent_type"), isolation, _actor_tools(v["tools"]))


def _actor_tools(value) -> tuple[str, ...] | None:
    """`agent(tools=[...])` as the actor tools it names (`grammar.facade.ACTOR_TOOL_NAMES`)."""
    if value is None:
        return None
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise ScriptError("TypeError", "agent() tools must be a list of tool names")
    unknown = [v for v in value if v not in F.ACTOR_TOOL_NAMES]
    if unknown:
        raise ScriptError("ValueError", f"agent() tools: {unknown[0]!r} is not an actor tool "
                                        f"(the tools are {', '.join(F.ACTOR_TOOLS)})")
    named = {F.ACTOR_TOOL_NAMES[v] for v in value}
    return tuple(t for t in F.ACTOR_TOOLS if t in named)


def do_git_worktree(interp, node, site, key, frame, actor, positional, named):
    v = _bind("git.worktree", ("actor",), positional, named, {})
    handle = v["actor"]
    if not isinstance(handle, ActorHandle):
        raise ScriptError("TypeError", f"git.worktree() needs an agent, not {type_name(handle)}")
    host = interp.host
    return LazyAwaitable(lambda: host.git_worktree(site, key, handle), f"git.worktree {site}")


def do_ask(interp, node, site, key, frame, actor, positional, named):
    if not isinstance(actor, ActorHandle):
        raise ScriptError("TypeError", f"`.ask()` needs an agent, not {type_name(actor)}")
    v = _bind("ask", ("instructions",), positional, named, {"label": None})
    instructions = _str(v["instructions"], "ask instructions")
    label = _optional_str(v["label"], "label")
    return AskAwaitable(interp.host, site, key, actor, instructions, node.schema, label)


class AskAwaitable(LazyAwaitable):
    """`actor.ask(...)`, its arguments kept in slots rather than in closures: a fan-out holds
    thousands until each runs, and every closure cell was one more object for each garbage
    collection to walk (#18)."""

    __slots__ = ("host", "site", "key", "actor", "instructions", "schema", "label")

    def __init__(self, host, site: str, key: str, actor: ActorHandle, instructions: str, schema: str | None,
                 label: str | None):
        super().__init__(None, f"ask {site}")
        self.host, self.site, self.key, self.actor = host, site, key, actor
        self.instructions, self.schema, self.label = instructions, schema, label

    def begin(self):
        return self.host.ask(self.site, self.key, self.actor, self.instructions, self.schema, self.label)

    def replayed(self) -> tuple[bool, object]:
        return self.host.replay_now(self.site, self.key, "ask", self.inputs)

    def inputs(self) -> dict:
        return self.host.ask_inputs(self.actor, self.instructions, self.schema)


READ_SIGNATURES = {
    "files.glob": (("pattern",), {}), "files.read": (("path",), {}),
    "files.grep": (("pattern", "glob"), {"glob": None}),
    "git.changed_files": (("base",), {"base": None}), "git.diff": (("base", "path"), {"base": None, "path": None}),
    "git.status": ((), {}), "git.log": (("count",), {"count": 20}),
}


def do_read(interp, node, site, key, frame, actor, positional, named):
    names, defaults = READ_SIGNATURES[node.op]
    v = _bind(node.op, names, positional, named, defaults)
    arguments = [sandbox.to_json(v[n], f"argument `{n}` of {node.op}", interp.limits) for n in names]
    host = interp.host
    if node.op == "files.grep":
        return LazyAwaitable(lambda: _charged_grep(interp, host.world_read(site, key, node.op, arguments)), f"{node.op} {site}")
    return LazyAwaitable(lambda: host.world_read(site, key, node.op, arguments), f"{node.op} {site}")


GREP_TIMED_OUT = "files.grep: pattern took too long"


async def _charged_grep(interp, read):
    """A grep that timed out spent its whole time limit matching in a worker: charged as steps
    (`sandbox.GREP_STEPS_PER_SECOND`), so catching the timeout in a loop ends at the step limit."""
    started = time.monotonic()
    try:
        return await read
    except ScriptError as error:
        if error.type_name == "WorldError" and error.message.startswith(GREP_TIMED_OUT):
            sandbox.charge_seconds(interp.limits, time.monotonic() - started, sandbox.GREP_STEPS_PER_SECOND)
        raise


def do_run(interp, node, site, key, frame, actor, positional, named):
    v = _bind("world.run", ("cmd", "args"), positional, named, {"args": [], "timeout_s": 300})
    cmd = _str(v["cmd"], "the command")
    arguments = v["args"]
    if not isinstance(arguments, (list, tuple)) or not all(isinstance(a, str) for a in arguments):
        raise ScriptError("TypeError", "world.run() args must be a list of str")
    timeout = v["timeout_s"]
    if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
        raise ScriptError("TypeError", "timeout_s must be a positive number")
    host = interp.host
    return LazyAwaitable(lambda: host.world_run(site, key, cmd, list(arguments), float(timeout)), f"world.run {site}")


def do_report(interp, node, site, key, frame, actor, positional, named):
    v = _bind("report", ("item", "artifact"), positional, named, {"artifact": None})
    item = sandbox.to_json(v["item"], "reported item", interp.limits)
    interp.host.report(site, key, item, _optional_str(v["artifact"], "artifact"))
    return None


def do_artifact(interp, node, site, key, frame, actor, positional, named):
    kind = node.op.split(".", 1)[1]
    host = interp.host
    if kind in ("file", "markdown"):
        second = "path" if kind == "file" else "content"
        v = _bind(node.op, ("id", second), positional, named, {"title": None, "description": None, "primary": False})
        values = {k: sandbox.to_json(val, f"argument `{k}`", interp.limits) for k, val in v.items()}
        return LazyAwaitable(lambda: host.publish_artifact(site, key, kind, values), f"{node.op} {site}")
    v = _bind(node.op, ("id", "spec"), positional, named, {})
    host.declare_artifact(site, key, kind, sandbox.to_json(v["id"], "id", interp.limits),
                          sandbox.to_json(v["spec"], "dashboard spec", interp.limits))
    return None


def do_workflow(interp, node, site, key, frame, actor, positional, named):
    v = _bind("workflow", ("name", "args"), positional, named, {"args": None})
    name = _str(v["name"], "workflow name")
    arguments = sandbox.to_json(v["args"] or {}, "workflow args", interp.limits)
    host = interp.host
    return LazyAwaitable(lambda: host.workflow(site, key, name, arguments), f"workflow {site}")


def do_log(interp, node, site, key, frame, actor, positional, named):
    v = _bind("log", ("message",), positional, named, {})
    interp.host.log(sandbox.check_string(sandbox.display(v["message"], interp.limits), interp.limits))
    return None


def do_budget(interp, node, site, key, frame, actor, positional, named):
    _bind(node.op, (), positional, named, {})
    spent = interp.host.budget_spent()
    if node.op == "budget.spent":
        return spent
    total = interp.host.budget_total()
    return None if total is None else max(0, total - spent)


def do_hole(interp, node, site, key, frame, actor, positional, named):
    raise FatalError("NotSupported", "hole() is not supported yet")


# ---------------------------------------------------------------- joins


def _bounded(interp, items) -> list:
    """The items of a join, refused as soon as there are more than the fan-out limit (a
    generator is never run past it)."""
    out = []
    for item in items:
        out.append(item)
        if len(out) > interp.limits.fanout:
            raise sandbox.limit_error("fanout", interp.limits)
    return out


def _awaitables(interp, items, op: str) -> list[LazyAwaitable]:
    items = _bounded(interp, items)
    for item in items:
        if not isinstance(item, LazyAwaitable):
            raise ScriptError("TypeError", f"{op}() needs awaitables (asks, reads, async calls), got {type_name(item)}")
    return items


# Items of a fan-out started before the event loop gets a turn. Each started item runs its first
# step (journaled as queued, then waiting for its actor and a slot) at the loop's next turn, and
# an ask whose wait ended in that turn is settled, and its slot's next ask dispatched, only after
# them: 8 items are about half a millisecond of that; 32 held every slot for 2-3 ms (#18).
SPAWN_BATCH = 8


def _is_fatal(error: BaseException) -> bool:
    return not isinstance(error, ScriptError) or error.type_name == "BudgetExceeded"


async def _run_all(items: list, runner, awaitables: bool = False) -> list:
    """Run `runner(index, item)` for every item concurrently; a fatal error cancels the rest.
    When the items are awaitables, those a resumed run replays from its journal are settled
    first, in order, without a task each (`runner` then returns without suspending).

    Each item is a plain asyncio task, not an anyio task group's: anyio's task handle, cancel
    scope and finished event per task were about a quarter of an ask's CPU (#18). The join keeps
    a task group's guarantees: it returns only when every task it started has ended, and being
    cancelled (the run stopped, a sibling join failed) cancels them all first."""
    results: list = [None] * len(items)
    failure: list[BaseException] = []
    if awaitables:
        live = []
        for index, item in enumerate(items):
            if item.settle_now():
                results[index] = await runner(index, item)
            else:
                live.append((index, item))
    else:
        live = list(enumerate(items))
    if not live:
        return results
    tasks: list[asyncio.Task] = []

    async def one(index, item):
        try:
            results[index] = await runner(index, item)
        except asyncio.CancelledError:
            raise
        except BaseException as error:  # noqa: BLE001 - collected and re-raised below
            if not failure:
                failure.append(error)
                _cancel(tasks, asyncio.current_task())

    try:
        spawn = asyncio.get_running_loop().create_task
        for count, (index, item) in enumerate(live, 1):
            tasks.append(spawn(one(index, item)))
            if count % SPAWN_BATCH == 0:
                # Let the event loop run between batches: the asks dispatched first finish on
                # time instead of after every item of a wide fan-out was queued (#18).
                await asyncio.sleep(0)
                if failure:
                    break
        await asyncio.wait(tasks)
    except BaseException:  # cancelled (or interrupted while spawning): no task outlives the join
        _cancel(tasks)
        await _wait_out(tasks)
        raise
    if failure:
        raise failure[0]
    return results


def _cancel(tasks: list, spare: asyncio.Task | None = None) -> None:
    for task in tasks:
        if task is not spare and not task.done():
            task.cancel()


async def _wait_out(tasks: list) -> None:
    """Wait until every task has ended, though cancelled meanwhile (anyio cancels a scope's
    host task again at each turn of the loop until it leaves the scope)."""
    pending = [task for task in tasks if not task.done()]
    while pending:
        try:
            await asyncio.wait(pending)
        except asyncio.CancelledError:
            _cancel(pending)
        pending = [task for task in pending if not task.done()]


def do_parallel(interp, node, site, key, frame, actor, positional, named):
    v = _bind("parallel", ("awaitables",), positional, named, {})
    items = _awaitables(interp, iterate(v["awaitables"]), "parallel")

    async def runner(index, item):
        try:
            return await item.wait()
        except ScriptError as error:
            if _is_fatal(error):
                raise
            return None

    return LazyAwaitable(lambda: _run_all(items, runner, awaitables=True), f"parallel {site}")


def do_gather(interp, node, site, key, frame, actor, positional, named):
    if named:
        raise ScriptError("TypeError", "gather() takes no keyword arguments")
    items = _awaitables(interp, positional, "gather")

    async def runner(index, item):
        return await item.wait()

    return LazyAwaitable(lambda: _run_all(items, runner, awaitables=True), f"gather {site}")


def do_pipeline(interp, node, site, key, frame, actor, positional, named):
    if named or not positional:
        raise ScriptError("TypeError", "pipeline(items, *stages) takes the items and the stages positionally")
    items, *stages = positional
    items = _bounded(interp, iterate(items))
    for stage in stages:
        if not isinstance(stage, (ScriptFunction, BuiltinFunction)):
            raise ScriptError("TypeError", f"pipeline stages must be functions, got {type_name(stage)}")
    base = frame.path

    async def runner(index, item):
        previous = item
        try:
            for number, stage in enumerate(stages, start=1):
                stage_frame = _PathFrame(frame, base + (f"{site}[{index}]",))
                result = interp.call_sync(stage, [previous, item, index], {}, stage_frame, f"stage{number}")
                previous = await result.wait() if isinstance(result, LazyAwaitable) else result
        except ScriptError as error:
            if _is_fatal(error):
                raise
            return None
        return previous

    return LazyAwaitable(lambda: _run_all(items, runner), f"pipeline {site}")


class _PathFrame:
    """A caller frame stand-in that carries a path (stages are called by the join, not by a
    script call site)."""

    __slots__ = ("path", "depth")

    def __init__(self, frame, path):
        self.path = path
        self.depth = frame.depth


ACTIONS = {
    "agent": do_agent, "ask": do_ask, "report": do_report, "log": do_log, "workflow": do_workflow,
    "parallel": do_parallel, "gather": do_gather, "pipeline": do_pipeline, "world.run": do_run,
    "budget.spent": do_budget, "budget.remaining": do_budget, "hole": do_hole,
    **{op: do_read for op in READ_SIGNATURES}, "git.worktree": do_git_worktree,
    **{f"artifact.{k}": do_artifact for k in ("file", "markdown", "chart", "table", "metrics", "board")},
}
