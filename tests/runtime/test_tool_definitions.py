"""The tool definitions a host offers a model (TOOLS §3), snapshotted whole: each tool's name,
description, input schema, approval and read-only hint. A change to any of them is a change to
what every host's model reads, so it shows up here for review (`--snapshot-update` to accept)."""

from dwf.runtime.tools.definitions import DEFINITIONS


def test_the_tool_definitions_match_the_snapshot(snapshot):
    assert [{"name": d.name, "description": d.description, "input_schema": d.input_schema,
             "approval": d.approval, "read_only": d.read_only} for d in DEFINITIONS] == snapshot


def test_the_descriptions_say_when_to_use_a_tool_and_when_not():
    described = {d.name: d.description for d in DEFINITIONS}
    assert "only when the user asks for one" in described["CreateWorkflow"]
    assert "otherwise do the work directly" in described["CreateWorkflow"]
    assert "Never save unasked" in described["SaveWorkflow"] and "wait for the user" in described["SaveWorkflow"]
    assert "do not resume a run the user stopped (`stopped(user)`" in described["GetWorkflowRun"]
