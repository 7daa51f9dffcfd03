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


ACTORS_SCRIPT = '''meta = {"name": "actors", "description": "What each actor may do."}
phase("Work")
editor = agent("editor")
reader = agent("reader", tools=["Read", "Grep"])
fixer = agent("fixer", isolation="worktree", tools=["read", "edit", "run"])
helper = agent("helper", agent_type="code-reviewer")
await parallel([editor.ask("Edit."), helper.ask("Edit too."), reader.ask("Read."), fixer.ask("Fix.")])
await world.run("pytest", ["-q"])
'''


def test_each_actors_tools_writes_isolation_and_programs_on_every_screen(snapshot):
    """The approval screen says, per actor, its tool set, whether it can write files, its
    isolation and its programs, in the JSON, text and HTML plans alike; and it warns about the
    two writing actors without isolation that share one working tree in a `parallel`."""
    from dwf.compiler.plan.html import render_html
    from dwf.compiler.plan.text import render_text

    result = compile_source(ACTORS_SCRIPT, "actors.dwf.py")
    plan = build_plan(result)
    fields = ("name", "tools", "can_write_files", "isolation", "programs")
    assert [{k: a[k] for k in fields} for a in plan["actors"]] == snapshot(name="json")
    assert [w["message"] for w in plan["warnings"]] == snapshot(name="warnings")
    text = render_text(plan)
    assert text[text.index("Actors ("):text.index("Commands (")] == snapshot(name="text")
    html = render_html(plan, {"phase": "", "causal": "", "handoff": ""})
    assert html[html.index('<section id="actors">'):html.index("</section>", html.index('<section id="actors">'))] \
        == snapshot(name="html")
    assert "shared-working-tree" in {w["kind"] for w in plan["warnings"]}
    fixer = next(a for a in plan["actors"] if a["name"] == "fixer")
    assert fixer["isolation"] == "worktree" and fixer["programs"] == ["pytest"]
