"""This module defines the three graphs of the approval screen, built with networkx from the
data-flow facts (`compiler.plan.dataflow`) and the temporal walk (`compiler.plan.trace`):

- the **causal graph**: one node per step (ask, read, run; node id = site ID) in issue order,
  with `data`, `control`, `fifo`, `seq` and `carry` edges after the typed transitive reduction
  below;
- the **phase graph**: one node per phase in first-reach order (the unphased group only when
  it has steps), each listing its steps, with `sequence`, `branch` and `loop` edges;
- the **hand-off graph**: one card per actor (or the workspace, for reads and commands) per
  phase, a literal fan-out of at most 8 expanded to one card per element, with the causal
  edges between different cards merged per pair.

The typed transitive reduction
------------------------------

Nodes carry an issue order; an edge is *forward* when its source comes first and a *back*
edge (a loop carry) otherwise. Each edge has one kind, the strongest of the facts behind it
(`data` > `control` > `fifo` > `seq` > `carry`).

1. A forward edge `u -> v` of kind `k` is dropped when another path from `u` to `v` of at least
   two forward hops exists whose every edge has a kind that justifies `k`:
   `data` and `control` are justified by `data` and `control` paths only (an ordering never
   explains a data dependency away), `fifo` also by `fifo`, and `seq` by every kind. The
   justifying sets are nested (`J(data) ⊆ J(fifo) ⊆ J(seq)`, and every kind in `J(k)` has
   `J(kind) ⊆ J(k)`), so dropping edges one at a time or all at once gives the same result:
   a dropped edge on a justifying path can always be replaced by the path that justified it.
   Forward edges form a DAG (they follow the issue order), so reachability per kind class is
   one pass in reverse order with bitsets (Python integers).
2. A back edge `u -> v` of loop `R` is dropped when another surviving back edge `u' -> v'` of
   the same loop exists with `u ->* u'` and `v' ->* v` along forward edges (at least one of the
   two non-empty): the other edge already shows that `v` follows `u` around the loop. Two back
   edges cannot justify each other (that would need forward paths both ways), so the order of
   the checks does not matter either.

The reduction is blind to certainty on purpose: "may" edges justify like "must" edges, because
the picture is about order, not about probability.

Nodes and edges are inserted in a deterministic order (issue order, then target order, then
kind), so a graph renders to the same text every time. Display caps (`Caps`) fold what does not
fit and record what they folded in `graph.graph["folded"]`.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

import networkx as nx

from dwf.compiler import ir
from dwf.compiler.plan.dataflow import Flow, analyze
from dwf.compiler.plan.labels import Labeller
from dwf.compiler.source import SourceFile
from dwf.compiler.plan.trace import UNPHASED, Trace, walk

WORKSPACE, UNKNOWN, OTHER_ACTORS = "workspace", "unknown", "other-actors"
UNPHASED_ID = "unphased"
FANOUT_EXPAND_CAP = 8


@dataclass(frozen=True)
class Caps:
    steps: int = 64
    lanes: int = 32
    phases: int = 32


@dataclass
class Graphs:
    program: ir.Program
    flow: Flow
    trace: Trace
    causal: nx.DiGraph
    phase: nx.DiGraph
    handoff: nx.DiGraph
    phase_ids: dict  # phase name (None: unphased) -> node id
    lanes: dict  # step -> tuple of lanes
    data_edges: dict = field(default_factory=dict)  # (producer, consumer) -> exact, realizable only
    instances: dict = field(default_factory=dict)  # actor site -> int or None (one per item)

    def get(self, kind: str) -> nx.DiGraph:
        return {"causal": self.causal, "phase": self.phase, "handoff": self.handoff}[kind]


def build_graphs(program: ir.Program, source: SourceFile | None = None, caps: Caps = Caps()) -> Graphs:
    """Analyse a compiled program and build its three graphs, folded to `caps`. `source` gives
    labels the text of computed parts (`{path}`); without it they show `…`."""
    flow = analyze(program)
    trace = walk(program, flow)
    labeller = Labeller(program, source, trace)
    phase_ids = _phase_ids(program, trace)
    lanes = {s: (flow.receivers.get(s) or (UNKNOWN,)) if info.kind == "ask" else (WORKSPACE,)
             for s, info in trace.steps.items()}
    causal, data_edges = _causal(program, flow, trace, lanes, phase_ids, labeller)
    instances = {a: _multiplicity(trace, info.regions) for a, info in trace.actors.items()}
    graphs = Graphs(program, flow, trace, causal, nx.DiGraph(), nx.DiGraph(), phase_ids, lanes, data_edges, instances)
    graphs.phase = _phase_graph(program, trace, phase_ids, caps)
    graphs.handoff = _handoff(graphs, labeller, caps)
    graphs.causal = fold_steps(causal, caps.steps)
    return graphs


def _phase_ids(program: ir.Program, trace: Trace) -> dict:
    ids, number = {}, 0
    names = list(trace.phase_order) + [p for p in program.phases if p not in trace.phase_order]
    for name in names:
        if name is UNPHASED:
            ids[name] = UNPHASED_ID
        else:
            number += 1
            ids[name] = f"phase#{number}"
    ids.setdefault(UNPHASED, UNPHASED_ID)
    return ids


# ---------------------------------------------------------------- typed transitive reduction



RANK = {"data": 4, "control": 3, "fifo": 2, "seq": 1, "carry": 0}
KINDS = ("data", "control", "fifo", "seq", "carry")
JUSTIFIED_BY = {
    "data": frozenset({"data", "control"}),
    "control": frozenset({"data", "control"}),
    "fifo": frozenset({"data", "control", "fifo"}),
    "seq": frozenset({"data", "control", "fifo", "seq"}),
}
CLASSES = tuple(sorted(set(JUSTIFIED_BY.values()), key=len))


def strongest(kinds) -> str:
    return max(kinds, key=RANK.__getitem__)


def reduce_edges(nodes: Sequence[Hashable], edges: dict, back_group=lambda edge: None) -> dict:
    """Reduce `edges` ((u, v) -> attribute dict with a "kind") over `nodes` in issue order.

    Forward edges (u before v in `nodes`) are reduced by kind; back edges (u at or after v)
    are reduced against each other within the group `back_group((u, v))` gives them (their
    loop). Returns the surviving edges, in the order of `edges`."""
    index = {node: i for i, node in enumerate(nodes)}
    forward = {e: a for e, a in edges.items() if index[e[0]] < index[e[1]]}
    back = {e: a for e, a in edges.items() if index[e[0]] >= index[e[1]]}
    successors: dict[frozenset, list[list[int]]] = {c: [[] for _ in nodes] for c in CLASSES}
    everything: list[list[int]] = [[] for _ in nodes]
    for (u, v), attrs in forward.items():
        i, j = index[u], index[v]
        everything[i].append(j)
        for c in CLASSES:
            if attrs["kind"] in c:
                successors[c][i].append(j)
    reach = {c: _reach(successors[c]) for c in CLASSES}
    reach_all = _reach(everything)
    kept = {}
    for edge, attrs in forward.items():
        c = JUSTIFIED_BY.get(attrs["kind"])
        if c is None:
            kept[edge] = attrs
            continue
        i, j = index[edge[0]], index[edge[1]]
        bit = 1 << j
        if not any(w != j and reach[c][w] & bit for w in successors[c][i]):
            kept[edge] = attrs
    surviving = list(back)
    for edge in list(back):
        u, v = index[edge[0]], index[edge[1]]
        group = back_group(edge)
        for other in surviving:
            if other == edge or back_group(other) != group:
                continue
            u2, v2 = index[other[0]], index[other[1]]
            if (u2 == u or reach_all[u] >> u2 & 1) and (v2 == v or reach_all[v2] >> v & 1):
                surviving.remove(edge)
                break
    keep_back = set(surviving)
    return {e: a for e, a in edges.items() if e in kept or e in keep_back}


def _reach(successors: list[list[int]]) -> list[int]:
    """For each node, the bitset of nodes reachable by one or more forward hops."""
    reach = [0] * len(successors)
    for i in range(len(successors) - 1, -1, -1):
        bits = 0
        for j in successors[i]:
            bits |= (1 << j) | reach[j]
        reach[i] = bits
    return reach


# ---------------------------------------------------------------- causal graph


def _causal(program, flow: Flow, trace: Trace, lanes: dict, phase_ids: dict, labeller) -> tuple[nx.DiGraph, dict]:
    steps = trace.steps
    order = {s: info.order for s, info in steps.items()}
    raw: dict[tuple[str, str], dict] = {}

    def add(u, v, kind, exact=True, region=None):
        if u not in steps or v not in steps:
            return
        attrs = raw.setdefault((u, v), {"kinds": set(), "exact": False, "region": None})
        attrs["kinds"].add(kind)
        attrs["exact"] = attrs["exact"] or exact
        if region is not None:
            attrs["region"] = region

    for consumer, producers in flow.data.items():
        for producer, exact in sorted(producers.items()):
            add(producer, consumer, "data", exact)
    for v, info in steps.items():
        for u, late in sorted(info.control):
            if not late or order.get(u, -1) >= order[v]:  # a late read only reaches later iterations
                add(u, v, "control")
    by_lane: dict[str, list[str]] = {}
    for s in steps:
        for lane in lanes[s]:
            if lane.startswith("actor#"):
                by_lane.setdefault(lane, []).append(s)
    for lane, members in by_lane.items():
        for u, v in zip(members, members[1:]):
            add(u, v, "fifo", len(lanes[u]) == 1 and len(lanes[v]) == 1)
    for u, v in trace.seq:
        add(u, v, "seq")
    for (u, v), region in trace.carry.items():
        add(u, v, "carry", region=region)

    edges: dict[tuple[str, str], dict] = {}
    data_edges: dict[tuple[str, str], bool] = {}
    for (u, v), attrs in raw.items():
        kinds = attrs["kinds"]
        if order[u] < order[v]:
            kinds = kinds - {"carry"}
            edges[(u, v)] = {"kind": strongest(kinds), "kinds": kinds, "exact": attrs["exact"]}
            if "data" in kinds:
                data_edges[(u, v)] = attrs["exact"]
            continue
        region = attrs["region"] or _common_loop(trace, u, v)
        if region is None:
            continue  # a back edge outside any loop cannot happen (flow-insensitivity made it up)
        via = kinds - {"carry"}
        edges[(u, v)] = {"kind": "carry", "kinds": kinds, "exact": attrs["exact"], "region": region,
                         "via": strongest(via) if via else "seq"}
        if "data" in kinds:
            data_edges[(u, v)] = attrs["exact"]
    for consumer, producers in flow.data.items():  # exactness of data edges comes from the flow
        for producer, exact in producers.items():
            if (producer, consumer) in data_edges:
                data_edges[(producer, consumer)] = exact
    node_order = sorted(steps, key=order.__getitem__)
    reduced = reduce_edges(node_order, edges, back_group=lambda e: edges[e].get("region"))

    graph = nx.DiGraph(kind="causal", name=program.meta.get("name", ""))
    for s in node_order:
        info = steps[s]
        graph.add_node(s, kind=info.kind, label=labeller.step(s), lanes=list(lanes[s]),
                       actor=labeller.lane_names(lanes[s]) if info.kind == "ask" else "",
                       phase=phase_ids[info.phases[0]] if info.phases else UNPHASED_ID,
                       phases=[phase_ids[p] for p in info.phases], line=info.span.line,
                       regions=list(info.regions), conditional=info.conditional, reached=info.reached,
                       order=info.order)
    for (u, v) in sorted(reduced, key=lambda e: (order[e[0]], order[e[1]], -RANK[reduced[e]["kind"]])):
        attrs = reduced[(u, v)]
        extra = {"region": attrs["region"], "via": attrs["via"]} if attrs["kind"] == "carry" else {}
        graph.add_edge(u, v, kind=attrs["kind"], kinds=sorted(attrs["kinds"], key=lambda k: -RANK[k]),
                       exact=attrs["exact"], **extra)
    graph.graph["folded"] = {}
    return graph, dict(sorted(data_edges.items(), key=lambda e: (order[e[0][1]], order[e[0][0]])))


def _common_loop(trace: Trace, u: str, v: str) -> str | None:
    """The innermost loop (not fan-out) that encloses both steps."""
    outer = set(trace.steps[u].regions)
    for region in reversed(trace.steps[v].regions):
        if region in outer and trace.regions[region].kind == "loop":
            return region
    return None


def fold_steps(graph: nx.DiGraph, cap: int) -> nx.DiGraph:
    """Keep the first `cap` steps in issue order; fold the others into one node per phase."""
    nodes = list(graph.nodes)
    if len(nodes) <= cap:
        return graph
    keep = set(nodes[:cap])
    target = {n: n if n in keep else f"fold:{graph.nodes[n]['phase']}" for n in nodes}
    folded = nx.DiGraph(**graph.graph)
    groups: dict[str, list[str]] = {}
    for n in nodes:
        if n in keep:
            folded.add_node(n, **graph.nodes[n])
        else:
            groups.setdefault(target[n], []).append(n)
    for fold, members in groups.items():
        counts = {k: sum(1 for m in members if graph.nodes[m]["kind"] == k) for k in ("ask", "read", "run")}
        detail = ", ".join(f"{n} {k}{'s' if n != 1 else ''}" for k, n in counts.items() if n)
        folded.add_node(fold, kind="fold", label=f"+{len(members)} more steps ({detail})", lanes=[], actor="",
                        phase=graph.nodes[members[0]]["phase"], phases=[graph.nodes[members[0]]["phase"]],
                        line=graph.nodes[members[0]]["line"], regions=[], conditional=False, reached=True,
                        order=graph.nodes[members[0]]["order"], members=members)
    for u, v, attrs in graph.edges(data=True):
        a, b = target[u], target[v]
        if a == b and a not in keep:
            continue
        if folded.has_edge(a, b):
            if RANK[attrs["kind"]] > RANK[folded.edges[a, b]["kind"]]:
                folded.edges[a, b].update(attrs)
            continue
        folded.add_edge(a, b, **attrs)
    folded.graph["folded"] = dict(graph.graph.get("folded", {}), steps=len(nodes) - cap)
    return folded


# ---------------------------------------------------------------- phase graph


def _phase_graph(program, trace: Trace, phase_ids: dict, caps: Caps) -> nx.DiGraph:
    details = {entry["title"].strip(): entry.get("detail") or "" for entry in program.meta.get("phases", [])}
    members: dict = {}
    for s, info in trace.steps.items():
        for p in info.phases:
            members.setdefault(p, []).append(s)
    graph = nx.DiGraph(kind="phase", name=program.meta.get("name", ""))
    names = [n for n in phase_ids if n is not UNPHASED or members.get(UNPHASED)]
    folded_names = names[caps.phases - 1:] if len(names) > caps.phases else []
    fold_id = "fold:phases"
    node_of = {n: (fold_id if n in folded_names else phase_ids[n]) for n in names}
    for name in names:
        if name in folded_names:
            continue
        steps = members.get(name, [])
        graph.add_node(phase_ids[name], title=name if name is not UNPHASED else "(unphased)",
                       detail=details.get(name, ""), steps=steps, unphased=name is UNPHASED,
                       early_exit=name in trace.early_exits, reached=name in trace.phase_order)
    if folded_names:
        steps = [s for n in folded_names for s in members.get(n, [])]
        graph.add_node(fold_id, title=f"+{len(folded_names)} more phases", detail="", steps=steps,
                       unphased=False, early_exit=False, reached=True, members=[phase_ids[n] for n in folded_names])
        graph.graph["folded"] = {"phases": len(folded_names)}
    else:
        graph.graph["folded"] = {}
    position = {node: i for i, node in enumerate(graph.nodes)}
    entered = any(UNPHASED in info.phases and info.reached for info in trace.steps.values())
    edges: dict = {}
    for (q, p), kind in trace.phase_edges.items():
        if q not in node_of or p not in node_of or (q is UNPHASED and not entered):
            continue  # the unphased group only leads somewhere when a step really runs in it
        a, b = node_of[q], node_of[p]
        if a == b and kind != "loop":
            continue
        if edges.get((a, b)) in (None, "sequence") or kind == "loop":
            edges[(a, b)] = kind
    for (a, b) in sorted(edges, key=lambda e: (position[e[0]], position[e[1]])):
        graph.add_edge(a, b, kind=edges[(a, b)])
    return graph


# ---------------------------------------------------------------- hand-off graph


def _multiplicity(trace: Trace, regions) -> int | None:
    """How many actors one `agent()` site makes: the product of its enclosing regions' sizes."""
    count = 1
    for region in regions:
        bound = trace.regions[region].bound
        if bound is None:
            return None
        count *= bound
    return count


def _handoff(graphs: Graphs, labeller, caps: Caps) -> nx.DiGraph:
    trace, causal = graphs.trace, graphs.causal
    actor_order = list(trace.actors)
    shown = set(actor_order[:caps.lanes])
    extra_actors = [a for a in actor_order if a not in shown]
    phase_nodes = set(graphs.phase.nodes)

    def lane_of(lane: str) -> str:
        return lane if not lane.startswith("actor#") or lane in shown else OTHER_ACTORS

    def phase_of(name) -> str:
        node = graphs.phase_ids.get(name, UNPHASED_ID)
        return node if node in phase_nodes else "fold:phases"

    lane_rank = {a: i for i, a in enumerate(actor_order)}
    lane_rank.update({OTHER_ACTORS: len(actor_order), WORKSPACE: len(actor_order) + 1, UNKNOWN: len(actor_order) + 2})
    cards: dict[tuple[str, str], list[str]] = {}
    for s in causal.nodes:
        for name in graphs.trace.steps[s].phases:
            for lane in graphs.lanes[s]:
                cards.setdefault((phase_of(name), lane_of(lane)), []).append(s)
    phase_rank = {p: i for i, p in enumerate(graphs.phase.nodes)}
    order = {s: i for i, s in enumerate(causal.nodes)}
    keys = sorted(cards, key=lambda k: (phase_rank.get(k[0], len(phase_rank)), order[cards[k][0]], lane_rank[k[1]]))

    graph = nx.DiGraph(kind="handoff", name=causal.graph.get("name", ""))
    card_ids: dict[tuple[str, str], list[str]] = {}
    for phase, lane in keys:
        steps = cards[(phase, lane)]
        title = graphs.phase.nodes[phase]["title"] if phase in graphs.phase.nodes else ""
        ids = []
        if lane.startswith("actor#"):
            count = graphs.instances.get(lane)
            elements = labeller.element_names(lane, count) if count is not None and 1 < count <= FANOUT_EXPAND_CAP else None
            if elements is not None and trace.actors[lane].regions:
                for index, name in enumerate(elements):
                    card = f"{lane}[{index}]@{phase}"
                    graph.add_node(card, lane=lane, kind="actor", phase=phase, phase_title=title, name=name,
                                   element=index, instances=1, steps=steps, family=list(trace.actors[lane].regions))
                    ids.append(card)
            else:
                card = f"{lane}@{phase}"
                many = bool(trace.actors[lane].regions) and (count is None or count > FANOUT_EXPAND_CAP)
                graph.add_node(card, lane=lane, kind="actor", phase=phase, phase_title=title,
                               name=labeller.actor_name(lane), element=None,
                               instances=count if not many else None, count=count, one_per_item=many, steps=steps)
                ids.append(card)
        else:
            card = f"{lane}@{phase}"
            name = {WORKSPACE: "workspace", UNKNOWN: "unknown actor",
                    OTHER_ACTORS: f"{len(extra_actors)} more actors"}[lane]
            graph.add_node(card, lane=lane, kind=lane, phase=phase, phase_title=title, name=name,
                           element=None, instances=None, steps=steps)
            ids.append(card)
        card_ids[(phase, lane)] = ids

    def cards_of(step: str) -> list[str]:
        out = []
        for name in graphs.trace.steps[step].phases:
            for lane in graphs.lanes[step]:
                out.extend(card_ids.get((phase_of(name), lane_of(lane)), ()))
        return out

    edges: dict[tuple[str, str], set] = {}
    for u, v, attrs in causal.edges(data=True):
        if u not in graphs.trace.steps or v not in graphs.trace.steps:
            continue
        for a in cards_of(u):
            for b in cards_of(v):
                if a == b or not _paired(graph, a, b):
                    continue
                edges.setdefault((a, b), set()).add(attrs["kind"])
    merged = {}
    for edge, kinds in edges.items():
        forward = kinds - {"carry"}
        merged[edge] = {"kind": strongest(forward) if forward else "carry", "back": not forward}
    node_list = list(graph.nodes)
    position = {n: i for i, n in enumerate(node_list)}
    reduced = reduce_edges(node_list, {e: a for e, a in merged.items() if position[e[0]] != position[e[1]]},
                           back_group=lambda e: "loop")
    for (a, b) in sorted(reduced, key=lambda e: (position[e[0]], position[e[1]])):
        graph.add_edge(a, b, **reduced[(a, b)])
    graph.graph["folded"] = {"actors": len(extra_actors)} if extra_actors else {}
    if "phases" in graphs.phase.graph.get("folded", {}):
        graph.graph["folded"]["phases"] = graphs.phase.graph["folded"]["phases"]
    return graph


def _paired(graph: nx.DiGraph, a: str, b: str) -> bool:
    """Element cards of one fan-out pair up by index (element 2 hands off to element 2); all
    other pairs of cards are connected."""
    x, y = graph.nodes[a], graph.nodes[b]
    if x.get("element") is None or y.get("element") is None:
        return True
    if set(x["family"]) & set(y["family"]):
        return x["element"] == y["element"]
    return True
