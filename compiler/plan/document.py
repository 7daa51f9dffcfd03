"""This module defines the plan: what a person approves before a script runs, as one JSON
document built from the compiled program and its graphs (`compiler.plan.graphs`).

The document is what `dwfc plan --format json` prints and what host UIs consume; the text and
HTML views (`compiler.plan.text`, `compiler.plan.html`) render this same document, so the three
never disagree. Its shape is documented in `docs/plan.md`; `PLAN_VERSION` changes when a field
changes meaning or disappears (adding a field does not change it). Everything is
deterministic: lists follow the issue order of steps, the first-reach order of phases and the
creation order of actors; no absolute path, time or address appears in it.
"""

from __future__ import annotations

from dwf.grammar import facade as F

from dwf.compiler import ir
from dwf.compiler.result import CompileResult
from dwf.compiler.plan.commands import command_uses, program_entries
from dwf.compiler.plan.graphs import FANOUT_EXPAND_CAP, Caps, Graphs, build_graphs
from dwf.compiler.plan.labels import Labeller, one_line
from dwf.compiler.plan.trace import UNPHASED
from dwf.compiler.version import COMPILER_VERSION

PLAN_VERSION = 1


def build_plan(result: CompileResult, args: dict | None = None, given: tuple[str, ...] = (), caps: Caps = Caps(),
               graphs: Graphs | None = None) -> dict:
    """The plan of a clean compile result. `args` are the validated run arguments (defaults
    filled in) when the caller gave any; `given` names the ones the caller supplied; `graphs`
    may be passed when the caller built them already (with the same caps)."""
    program = result.program
    if program is None:
        raise ValueError("a script with errors has no plan")
    graphs = graphs if graphs is not None else build_graphs(program, result.source, caps)
    labeller = Labeller(program, result.source, graphs.trace)
    meta = program.meta
    causal = graphs.causal
    steps = [_step(graphs, node, attrs) for node, attrs in causal.nodes(data=True)]
    actors_all = list(graphs.trace.actors)
    actors = [_actor(graphs, labeller, a, program.commands) for a in actors_all[:caps.lanes]]
    counts = {kind: sum(1 for s in graphs.trace.steps.values() if s.kind == kind) for kind in ("ask", "read", "run")}
    folded = {"steps": causal.graph["folded"].get("steps", 0),
              "actors": max(0, len(actors_all) - caps.lanes),
              "phases": graphs.phase.graph["folded"].get("phases", 0)}
    return {
        "plan": PLAN_VERSION,
        "status": "planned",
        "path": result.source.path,
        "sha256": program.source_sha256,
        "compiler_version": COMPILER_VERSION,
        "name": meta.get("name", ""),
        "description": meta.get("description", ""),
        "when_to_use": meta.get("when_to_use"),
        "args": _arguments(meta, args, given),
        "counts": {"steps": len(graphs.trace.steps), "asks": counts["ask"], "reads": counts["read"],
                   "runs": counts["run"], "actors": len(actors_all), "phases": sum(1 for p in graphs.phase_ids if p is not UNPHASED)},
        "phases": [_phase(graphs, node, attrs) for node, attrs in graphs.phase.nodes(data=True)],
        "phase_edges": [{"from": u, "to": v, "kind": a["kind"]} for u, v, a in graphs.phase.edges(data=True)],
        "steps": steps,
        "actors": actors,
        "commands": list(program.commands),
        "programs": program_entries(command_uses([program])),
        "network": bool(meta.get("network", False)),
        "edges": [{"from": u, "to": v, "kind": a["kind"], "exact": a["exact"]} for u, v, a in causal.edges(data=True)],
        "data_flow": _data_flow(graphs),
        "handoff": _handoff(graphs),
        "warnings": warnings(graphs, labeller),
        "diagnostics": [d.to_json() for d in result.diagnostics],
        "folded": folded,
    }


# ---------------------------------------------------------------- parts


def _arguments(meta: dict, values: dict | None, given) -> list[dict]:
    out = []
    for name, spec in meta.get("args", {}).items():
        if values is not None and name in values:
            value, source = values[name], "given" if name in given else "default"
        elif "default" in spec:
            value, source = spec["default"], "default"
        else:
            value, source = None, "missing" if spec.get("required") else "unset"
        out.append({"name": name, "type": spec.get("type", "json"), "description": spec.get("description", ""),
                    "required": bool(spec.get("required")), "value": value, "source": source})
    return out


def _phase(graphs: Graphs, node: str, attrs: dict) -> dict:
    phases = set(attrs.get("members") or ()) | {node}  # a fold of phases lists its members' steps
    shown = [s for s, a in graphs.causal.nodes(data=True) if a["phase"] in phases or phases & set(a["phases"])]
    return {"id": node, "title": attrs["title"], "detail": attrs["detail"], "unphased": attrs["unphased"],
            "early_exit": attrs["early_exit"], "steps": shown, "step_count": len(attrs["steps"])}


def _repeats(graphs: Graphs, regions) -> str | None:
    kinds = [graphs.trace.regions[r].kind for r in regions if r in graphs.trace.regions]
    if "loop" in kinds:
        return "loop"
    return "fan-out" if kinds else None


def _step(graphs: Graphs, node: str, attrs: dict) -> dict:
    if attrs["kind"] == "fold":
        return {"id": node, "kind": "fold", "label": attrs["label"], "phase": attrs["phase"], "members": attrs["members"]}
    info = graphs.trace.steps[node]
    call = info.node
    actors = [lane for lane in attrs["lanes"] if lane.startswith("actor#")]
    return {
        "id": node,
        "kind": attrs["kind"],
        "op": call.op if call is not None else next(s.op for s in graphs.program.sites if s.id == node),
        "label": attrs["label"],
        "actors": actors,
        "actor": attrs["actor"] or None,
        "typed": bool(call is not None and call.schema) if attrs["kind"] == "ask" else None,
        "returns": call.schema if call is not None and attrs["kind"] == "ask" else None,
        "phase": attrs["phase"],
        "phases": attrs["phases"],
        "line": attrs["line"],
        "repeats": _repeats(graphs, attrs["regions"]),
        "conditional": attrs["conditional"],
        "reached": attrs["reached"],
    }


def actor_tools(labeller: Labeller, actor: str) -> tuple[str, ...] | None:
    """The actor tools an `agent(tools=[...])` narrows the actor to (None: the run's whole set);
    the compiler checked that the list is literal names (`compiler.effect_rules`)."""
    node = labeller.actor_call(actor)
    value = labeller.argument(node, None, "tools") if node is not None else None
    if type(value) not in (ir.List, ir.Tuple):
        return None
    named = {F.ACTOR_TOOL_NAMES.get(e.value) for e in value.elts if type(e) is ir.Const}
    return tuple(t for t in F.ACTOR_TOOLS if t in named)


def actor_programs(tools: tuple[str, ...] | list[str] | None, commands) -> list[str]:
    """The programs an actor's `run_command` may start: the run's approved commands, when its
    tools can include `run_command` (without `tools=`, only under `--actor-tools exec`)."""
    return sorted(commands) if tools is None or "run_command" in tools else []


def _actor(graphs: Graphs, labeller: Labeller, actor: str, commands=()) -> dict:
    info = graphs.trace.actors[actor]
    asks = [s for s, lanes in graphs.lanes.items() if actor in lanes]
    schemas = [graphs.trace.steps[s].node.schema if graphs.trace.steps[s].node is not None else None for s in asks]
    typed = "untyped" if not any(schemas) else "typed" if all(schemas) else "mixed"
    count = graphs.instances.get(actor)
    family = bool(info.regions)
    if not family:
        instances_text = "1 instance"
    elif count is None:
        instances_text = "one per item"
    elif count > FANOUT_EXPAND_CAP:
        instances_text = f"one per item ({count})"
    else:
        instances_text = f"{count} instance{'s' if count != 1 else ''}"
    row = labeller.sites.get(actor)
    tools = actor_tools(labeller, actor)
    phases = []
    for s in asks:
        for p in graphs.trace.steps[s].phases:
            if graphs.phase_ids[p] not in phases:
                phases.append(graphs.phase_ids[p])
    return {
        "id": actor,
        "name": labeller.actor_name(actor),
        "named": bool(row and row.actor),
        "pattern": bool(family and row and row.actor and "{" in row.actor),
        "persona": labeller.persona(actor),
        "model": labeller.keyword(actor, "model"),
        "agent_type": labeller.keyword(actor, "agent_type"),
        "isolation": labeller.keyword(actor, "isolation"),
        "tools": list(tools) if tools is not None else None,
        "can_write_files": tools is None or bool(F.FILE_WRITING_TOOLS & set(tools)),
        "programs": actor_programs(tools, commands),
        "typed": typed,
        "returns": sorted({_schema_name(s) for s in schemas if s}),
        "instances": count if family else 1,
        "instances_text": instances_text,
        "elements": labeller.element_names(actor, count) if family and count is not None and count <= FANOUT_EXPAND_CAP else None,
        "phases": phases,
        "asks": asks,
        "line": info.span.line,
    }


def _schema_name(key: str) -> str:
    return "a JSON Schema" if key.startswith("schema:") else key


def _data_flow(graphs: Graphs) -> list[dict]:
    out = [{"from": u, "to": v, "exact": exact} for (u, v), exact in graphs.data_edges.items()]
    order = {s: i.order for s, i in graphs.trace.steps.items()}
    for producer, exact in sorted(graphs.flow.returned.items(), key=lambda p: order.get(p[0], 0)):
        if producer in order:
            out.append({"from": producer, "to": "return", "exact": exact})
    return out


def _handoff(graphs: Graphs) -> dict:
    cards = []
    for node, attrs in graphs.handoff.nodes(data=True):
        cards.append({"id": node, "phase": attrs["phase"], "lane": attrs["lane"], "kind": attrs["kind"],
                      "name": attrs["name"], "element": attrs["element"], "instances": attrs.get("instances"),
                      "one_per_item": bool(attrs.get("one_per_item")), "steps": attrs["steps"]})
    edges = [{"from": u, "to": v, "kind": a["kind"], "back": a["back"]} for u, v, a in graphs.handoff.edges(data=True)]
    return {"cards": cards, "edges": edges}


# ---------------------------------------------------------------- warnings


def warnings(graphs: Graphs, labeller: Labeller) -> list[dict]:
    trace = graphs.trace
    found: list[dict] = []

    def warn(kind: str, site: str | None, line: int, message: str) -> None:
        found.append({"kind": kind, "site": site, "line": line, "message": message})

    phased = any(p is not UNPHASED for p in graphs.phase_ids)  # else the compiler warns (DWF309)
    loops: dict[str, list[str]] = {}
    fanouts: dict[str, list[str]] = {}
    for site, info in trace.steps.items():
        if not info.reached:
            row = labeller.sites.get(site)
            where = f" in `{row.function}()`" if row and row.function else ""
            warn("unreached-step", site, info.span.line, f"{site}{where} is never reached from the script's top "
                                                          "level, so it is not ordered on this screen.")
        elif phased and UNPHASED in info.phases:
            warn("unphased-step", site, info.span.line, f"{site} ({labeller.step(site, 40)}) runs outside any phase.")
        if info.kind != "ask":
            continue
        for region_id in info.regions:
            region = trace.regions[region_id]
            if region.bound is None and region.kind == "loop":
                loops.setdefault(region_id, []).append(site)
            elif region.bound is None and region.kind == "fanout":
                fanouts.setdefault(region_id, []).append(site)
    for region_id, asks in loops.items():
        region = trace.regions[region_id]
        header = one_line(labeller.source.line_text(region.span.line).strip(), 48) if labeller.source else region_id
        warn("unbounded-loop", asks[0], region.span.line,
             f"`{header}` repeats {_list(asks)} with no literal bound on the number of asks.")
    for region_id, asks in fanouts.items():
        region = trace.regions[region_id]
        what = one_line(labeller.snippet(region.iterable.span), 40) if region.iterable is not None else "its items"
        join = f" ({region.join})" if region.join else ""
        filtered = " (filtered)" if region.filtered else ""
        warn("unknown-fanout", asks[0], region.span.line,
             f"Fan-out{join} of unknown size: {_list(asks)} run{'s' if len(asks) == 1 else ''} once per item "
             f"of `{what}`{filtered}.")
    _shared_tree_warnings(graphs, labeller, warn)
    return sorted(found, key=lambda w: (w["line"], w["kind"], w["site"] or ""))


def _shared_tree_warnings(graphs: Graphs, labeller: Labeller, warn) -> None:
    """Warn when two actors that can write files and have no isolation may run at once in one
    `parallel`/`gather`/`pipeline`: they edit one working tree and can clobber each other. One
    `agent()` site in a fan-out under the join counts twice (one actor per item)."""
    trace = graphs.trace
    writers: dict[str, list[str]] = {}  # join site -> actor sites
    for actor in trace.actors:
        if labeller.keyword(actor, "isolation"):
            continue
        tools = actor_tools(labeller, actor)
        if tools is not None and not F.FILE_WRITING_TOOLS & set(tools):
            continue
        for site, lanes in graphs.lanes.items():
            if actor in lanes and site in trace.steps:
                for join in trace.steps[site].joins:
                    if actor not in writers.setdefault(join, []):
                        writers[join].append(actor)
    for join, actors in writers.items():
        fanned = [a for a in actors if any(trace.regions[r].kind == "fanout" for r in trace.actors[a].regions
                                           if r in trace.regions)]
        if len(actors) < 2 and not fanned:
            continue
        names = [f"`{labeller.actor_name(a)}`" for a in actors]
        who = (f"{names[0]} (one actor per item)" if len(actors) == 1 else _list(names))
        line = min(trace.actors[a].span.line for a in actors)
        warn("shared-working-tree", actors[0], line,
             f"{who} can write files and may run at once in {join} without isolation: they share one working tree. "
             "Give each `isolation=\"worktree\"`, or narrow `tools=` to read-only tools.")


def _list(sites: list[str]) -> str:
    return sites[0] if len(sites) == 1 else ", ".join(sites[:-1]) + " and " + sites[-1]


def rejected(result: CompileResult) -> dict:
    """The JSON answer for a script with errors: its diagnostics, nothing planned."""
    return {"plan": PLAN_VERSION, "status": "rejected", "path": result.source.path,
            "errors": result.errors, "warnings": result.warnings,
            "diagnostics": [d.to_json() for d in result.diagnostics]}
