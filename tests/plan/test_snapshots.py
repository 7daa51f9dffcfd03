"""Snapshots of every example's approval screen: the DOT text of its phase, causal and hand-off
graphs (one `.dot` file each) and its JSON plan (the document host UIs consume). Paths in them
are relative to the repository, so the snapshots hold on any checkout.

Update them with `./dwf test tests/plan --snapshot-update` after a deliberate change, and read
the diff: it is the change a reviewer of a script would see."""

import pytest
from conftest import ROOT
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from dwf.compiler import render
from dwf.compiler.compile import compile_source
from dwf.compiler.plan.graph_render import to_dot
from dwf.compiler.plan.graphs import build_graphs
from dwf.compiler.plan.document import build_plan


class DotSnapshot(SingleFileSnapshotExtension):
    _write_mode = WriteMode.TEXT
    file_extension = "dot"


class PlanSnapshot(SingleFileSnapshotExtension):
    _write_mode = WriteMode.TEXT
    file_extension = "json"


def compiled(path):
    name = path.relative_to(ROOT).as_posix()
    result = compile_source(path.read_text(encoding="utf-8"), name)
    assert result.ok, name
    return result


@pytest.mark.parametrize("kind", ["phase", "causal", "handoff"])
def test_graph_dot(example, kind, snapshot):
    result = compiled(example)
    graphs = build_graphs(result.program, result.source)
    titles = {node: attrs["title"] for node, attrs in graphs.phase.nodes(data=True)}
    assert to_dot(graphs.get(kind), titles) == snapshot(extension_class=DotSnapshot)


def test_plan_json(example, snapshot):
    plan = build_plan(compiled(example))
    assert "/work/" not in render.dumps(plan) and str(ROOT) not in render.dumps(plan)
    assert render.dumps(plan) == snapshot(extension_class=PlanSnapshot)
