"""This module defines `phase_graph`, the approval screen's phase graph of a run's script for the
run page: the SVG the plan draws (`dwfc plan --format html`) when a renderer is given and works,
and always the text graph it degrades to when Graphviz is missing. The script is the one stored
with the run, compiled again here (a run's script never changes, so the viewer keeps the result).
"""

from __future__ import annotations

from typing import Callable

from dwf.compiler.compile import compile_source
from dwf.compiler.plan.graph_render import to_dot, to_text
from dwf.compiler.plan.graphs import build_graphs


def phase_graph(script: str, render_svg: Callable[[str], str | None] | None) -> dict:
    """{"text": the text graph, "svg": SVG text or None, "problem": why there is no graph, or None}."""
    compiled = compile_source(script, "<run script>")
    if compiled.program is None:
        return {"text": "", "svg": None, "problem": "the run's script no longer compiles with this dwf"}
    graphs = build_graphs(compiled.program, compiled.source)
    titles = {node: attrs["title"] for node, attrs in graphs.phase.nodes(data=True)}
    svg = render_svg(to_dot(graphs.phase, titles)) if render_svg is not None else None
    return {"text": to_text(graphs.phase, titles), "svg": svg, "problem": None}


__all__ = ["phase_graph"]
