"""This module defines the renderings of the approval screen's graphs (`compiler.plan.graphs`): DOT
text through the `graphviz` package (never hand-built strings), Mermaid flowchart text, and a
plain text view for terminals. SVG and PNG come from running Graphviz's `dot` on the DOT text,
which is the runtime's job (`dwf.runtime.cli.graphviz`): the compiler starts no processes.

All three renderings walk the graph in its insertion order, which `compiler.plan.graphs` makes
deterministic, and escape every string that came from the script: DOT labels through
`graphviz.escape` (so a backslash or `<...>` in an instruction means nothing to `dot`),
Mermaid labels through entity codes.
"""

from __future__ import annotations

import re

import graphviz
import networkx as nx

from dwf.compiler.inert import flatten, screen

FONT = "Helvetica,Arial,sans-serif"
STEP_FILL = {"ask": "#dbeafe", "read": "#dcfce7", "run": "#fef3c7", "fold": "#e5e7eb"}
CARD_FILL = {"actor": "#dbeafe", "workspace": "#fef3c7", "unknown": "#fee2e2", "other-actors": "#e5e7eb"}
EDGE_STYLE = {
    "data": {"color": "#111827"},
    "control": {"color": "#7c3aed", "style": "dashed", "label": "control"},
    "fifo": {"color": "#2563eb", "style": "dotted", "label": "fifo"},
    "seq": {"color": "#9ca3af", "style": "dotted"},
    "carry": {"color": "#dc2626", "style": "bold", "label": "carry", "constraint": "false"},
    "sequence": {"color": "#111827"},
    "branch": {"color": "#111827", "style": "dashed", "label": "branch"},
    "loop": {"color": "#dc2626", "style": "bold", "label": "loop", "constraint": "false"},
}
KINDS = ("phase", "causal", "handoff")


def _label(*lines: str) -> str:
    return graphviz.nohtml(r"\n".join(graphviz.escape(line) for line in lines if line))


def folded_note(graph: nx.DiGraph) -> str:
    parts = [f"{n} {what}" for what, n in sorted(graph.graph.get("folded", {}).items()) if n]
    return ("folded beyond the display caps: " + ", ".join(parts)) if parts else ""


# ---------------------------------------------------------------- DOT


def to_dot(graph: nx.DiGraph, phase_titles: dict | None = None) -> str:
    """DOT text of a causal, phase or hand-off graph."""
    kind = graph.graph["kind"]
    name = flatten(graph.graph.get("name") or "workflow")  # it is also a `//` comment: one line
    dot = graphviz.Digraph(name=f"{kind}", comment=f"{kind} graph of {name}",
                           graph_attr={"rankdir": "TB", "fontname": FONT, "fontsize": "11", "labelloc": "b",
                                       "label": _label(f"{kind} graph of {name}", folded_note(graph)),
                                       "newrank": "true", "nodesep": "0.3", "ranksep": "0.4"},
                           node_attr={"fontname": FONT, "fontsize": "10", "shape": "box", "style": "rounded,filled",
                                      "fillcolor": "#ffffff", "color": "#6b7280"},
                           edge_attr={"fontname": FONT, "fontsize": "9", "arrowsize": "0.7"})
    if kind == "phase":
        _phase_dot(dot, graph)
    else:
        _clustered_dot(dot, graph, phase_titles or {}, kind)
    for u, v, attrs in graph.edges(data=True):
        style = dict(EDGE_STYLE.get(attrs["kind"], {}))
        if attrs["kind"] == "data" and not attrs.get("exact", True):
            style.update(style="dashed", label="may")
        if attrs.get("back") and attrs["kind"] != "carry":
            style.update(EDGE_STYLE["carry"])
        dot.edge(u, v, **style)
    return screen(dot.source)


def _phase_dot(dot: graphviz.Digraph, graph: nx.DiGraph) -> None:
    for index, (node, attrs) in enumerate(graph.nodes(data=True), start=1):
        count = len(attrs["steps"])
        lines = [attrs["title"] if attrs["unphased"] else f"{node}: {attrs['title']}",
                 f"{count} step{'s' if count != 1 else ''}"]
        if attrs.get("early_exit"):
            lines.append("may end the run early")
        dot.node(node, label=_label(*lines), fillcolor="#f3f4f6" if attrs["unphased"] else "#e0e7ff")


def _clustered_dot(dot: graphviz.Digraph, graph: nx.DiGraph, titles: dict, kind: str) -> None:
    groups: dict[str, list[str]] = {}
    for node, attrs in graph.nodes(data=True):
        groups.setdefault(attrs["phase"], []).append(node)
    for number, (phase, nodes) in enumerate(groups.items()):
        with dot.subgraph(name=f"cluster_{number}") as cluster:
            title = titles.get(phase, phase)
            cluster.attr(label=_label(f"{phase}: {title}" if phase.startswith("phase#") else title),
                         style="rounded", color="#c7d2fe", fontname=FONT, fontsize="10", labeljust="l")
            for node in nodes:
                attrs = graph.nodes[node]
                if kind == "causal":
                    cluster.node(node, label=_label(*_step_lines(node, attrs)), fillcolor=STEP_FILL.get(attrs["kind"], "#ffffff"))
                else:
                    cluster.node(node, label=_label(*_card_lines(attrs)), fillcolor=CARD_FILL.get(attrs["kind"], "#ffffff"),
                                 shape="component" if attrs["kind"] == "workspace" else "box")


def _step_lines(node: str, attrs: dict) -> list[str]:
    if attrs["kind"] == "fold":
        return [attrs["label"]]
    head = f"{node} · {attrs['actor']}" if attrs.get("actor") else node
    repeat = _repeat_text(attrs)
    return [head, attrs["label"], repeat]


def _repeat_text(attrs: dict) -> str:
    regions = attrs.get("regions") or []
    if any(r.startswith("loop#") for r in regions):
        return "(repeats in a loop)"
    if regions:
        return "(once per item)"
    return "(may be skipped)" if attrs.get("conditional") else ""


def _card_lines(attrs: dict) -> list[str]:
    if attrs.get("one_per_item"):
        count = attrs.get("count")
        many = f"one per item ({count})" if count else "one per item"
    else:
        many = ""
    steps = ", ".join(attrs["steps"][:6]) + (f" +{len(attrs['steps']) - 6}" if len(attrs["steps"]) > 6 else "")
    return [attrs["name"], many, steps]


# ---------------------------------------------------------------- Mermaid


_UNSAFE = re.compile(r"[^A-Za-z0-9_]")


def _mermaid_text(text: str) -> str:
    out = []
    for ch in text:
        if ch in '"#<>&' or ord(ch) < 32:
            out.append(f"#{ord(ch)};")
        else:
            out.append(ch)
    return "".join(out)


def to_mermaid(graph: nx.DiGraph, phase_titles: dict | None = None) -> str:
    """Mermaid flowchart text of a causal, phase or hand-off graph."""
    kind, titles = graph.graph["kind"], phase_titles or {}
    ids: dict[str, str] = {}
    for node in graph.nodes:
        base = _UNSAFE.sub("_", node)
        candidate, n = base, 1
        while candidate in ids.values():
            n += 1
            candidate = f"{base}_{n}"
        ids[node] = candidate
    lines = ["flowchart TB"]
    if kind == "phase":
        for node, attrs in graph.nodes(data=True):
            count = len(attrs["steps"])
            title = attrs["title"] if attrs["unphased"] else f"{node}: {attrs['title']}"
            lines.append(f'  {ids[node]}["{_mermaid_text(title)}<br/>{count} step{"s" if count != 1 else ""}"]')
    else:
        groups: dict[str, list[str]] = {}
        for node, attrs in graph.nodes(data=True):
            groups.setdefault(attrs["phase"], []).append(node)
        for number, (phase, nodes) in enumerate(groups.items()):
            lines.append(f'  subgraph g{number}["{_mermaid_text(titles.get(phase, phase))}"]')
            for node in nodes:
                attrs = graph.nodes[node]
                rows = _step_lines(node, attrs) if kind == "causal" else _card_lines(attrs)
                lines.append(f'    {ids[node]}["{"<br/>".join(_mermaid_text(r) for r in rows if r)}"]')
            lines.append("  end")
    arrows = {"data": "-->", "sequence": "-->", "control": "-. control .->", "branch": "-. branch .->",
              "fifo": "-- fifo -->", "seq": "-.->", "carry": "== carry ==>", "loop": "== loop ==>"}
    for u, v, attrs in graph.edges(data=True):
        arrow = arrows.get(attrs["kind"], "-->")
        if attrs["kind"] == "data" and not attrs.get("exact", True):
            arrow = "-. may .->"
        lines.append(f"  {ids[u]} {arrow} {ids[v]}")
    note = folded_note(graph)
    if note:
        lines.append(f"  %% {note}")
    return screen("\n".join(lines) + "\n")


# ---------------------------------------------------------------- text


def to_text(graph: nx.DiGraph, phase_titles: dict | None = None) -> str:
    """A plain text view for terminals: one block per phase, each node with its incoming edges."""
    kind, titles = graph.graph["kind"], phase_titles or {}
    name = graph.graph.get("name") or "workflow"
    edges_in: dict[str, list[tuple[str, dict]]] = {}
    for u, v, attrs in graph.edges(data=True):
        edges_in.setdefault(v, []).append((u, attrs))
    out = [f"{kind} graph of {name}: {graph.number_of_nodes()} nodes, {graph.number_of_edges()} edges"]
    if kind == "phase":
        for node, attrs in graph.nodes(data=True):
            count = len(attrs["steps"])
            exit_note = "; may end the run early" if attrs.get("early_exit") else ""
            out.append(f"  {node}  {attrs['title']}  ({count} step{'s' if count != 1 else ''}{exit_note})")
            for u, e in edges_in.get(node, []):
                out.append(f"      <- {u} ({e['kind']})")
    else:
        current = None
        for node, attrs in graph.nodes(data=True):
            if attrs["phase"] != current:
                current = attrs["phase"]
                out.append(f"{current}: {titles.get(current, current)}" if current.startswith("phase#") else titles.get(current, current))
            rows = _step_lines(node, attrs) if kind == "causal" else _card_lines(attrs)
            ident = node if kind == "causal" else node.split("@")[0]
            width = max(len(ident), 8)
            first = " · ".join(r for r in rows[1:] if r) if kind == "causal" else " · ".join(r for r in rows if r)
            out.append(f"  {ident.ljust(width)}  {first}" + (f"  [{attrs['actor']}]" if kind == "causal" and attrs.get("actor") else ""))
            for u, e in edges_in.get(node, []):
                what = e["kind"] + (" may" if e["kind"] == "data" and not e.get("exact", True) else "")
                out.append(f"  {' ' * width}    <- {u} ({what})")
    note = folded_note(graph)
    if note:
        out.append(note)
    return screen("\n".join(out) + "\n")


RENDERERS = {"dot": to_dot, "mermaid": to_mermaid, "text": to_text}
