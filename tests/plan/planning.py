"""Helpers for the approval-screen tests: compile a snippet (a `meta` block is added when it
has none) and build its graphs or plan, failing loudly when the snippet does not compile."""

from __future__ import annotations

import textwrap

from dwf.compiler.compile import CompileResult, compile_source
from dwf.compiler.plan.graphs import Caps, Graphs, build_graphs
from dwf.compiler.plan.document import build_plan

META = 'meta = {"name": "plan-test", "description": "A snippet for the approval-screen tests."}\n'


def compiled(snippet: str) -> CompileResult:
    text = textwrap.dedent(snippet).strip("\n") + "\n"
    if "meta = {" not in text:
        text = META + text
    result = compile_source(text, "snippet.dwf.py")
    errors = [f"{d.span.line}:{d.span.column} {d.code} {d.message}" for d in result.diagnostics if d.is_error]
    assert not errors, "the snippet does not compile:\n" + "\n".join(errors)
    return result


def graphs_of(snippet: str, caps: Caps = Caps()) -> Graphs:
    result = compiled(snippet)
    return build_graphs(result.program, result.source, caps)


def plan_of(snippet: str, caps: Caps = Caps()) -> dict:
    return build_plan(compiled(snippet), caps=caps)


def edges(graphs: Graphs, kind: str | None = None) -> set[tuple[str, str]]:
    """The causal graph's (reduced) edges, optionally of one kind."""
    return {(u, v) for u, v, a in graphs.causal.edges(data=True) if kind is None or a["kind"] == kind}


def data(graphs: Graphs) -> set[tuple[str, str]]:
    """Every realizable data edge, before the reduction."""
    return set(graphs.data_edges)


def feeds(graphs: Graphs, consumer: str) -> dict[str, bool]:
    """The producers the data-flow analysis found for one consumer (step -> exact)."""
    return graphs.flow.data.get(consumer, {})
