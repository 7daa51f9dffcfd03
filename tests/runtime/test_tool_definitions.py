"""The tool definitions a host offers a model (TOOLS §3), snapshotted whole: each tool's name,
description, input schema, approval and read-only hint. A change to any of them is a change to
what every host's model reads, so it shows up here for review (`--snapshot-update` to accept)."""

import re
from pathlib import Path

from dwf.runtime.host.saved import SavedWorkflow
from dwf.runtime.tools.definitions import DEFINITIONS, TOOL_NAMES
from dwf.runtime.tools.prompts import run_saved_message, write_workflow_message


def test_the_tool_definitions_match_the_snapshot(snapshot):
    assert [{"name": d.name, "description": d.description, "input_schema": d.input_schema,
             "approval": d.approval, "read_only": d.read_only} for d in DEFINITIONS] == snapshot


def test_the_descriptions_say_when_to_use_a_tool_and_when_not():
    described = {d.name: d.description for d in DEFINITIONS}
    assert "only when the user asks for one" in described["CreateWorkflow"]
    assert "otherwise do the work directly" in described["CreateWorkflow"]
    assert "Never save unasked" in described["SaveWorkflow"] and "wait for the user" in described["SaveWorkflow"]
    assert "do not resume a run the user stopped (`stopped(user)`" in described["GetWorkflowRun"]


def test_the_prompts_name_only_real_tools():
    workflow = SavedWorkflow("triage", "project", Path("triage.dwf.py"), "Triage.", None, {})
    for text in (write_workflow_message("Review the diff."), run_saved_message(workflow, {})):
        instructions = text.split("</dwf-language-guide>")[-1]
        named = set(re.findall(r"\b[A-Z][a-z]+(?:[A-Z][a-z]+)+\b", instructions))
        assert named and named <= set(TOOL_NAMES), named - set(TOOL_NAMES)
    assert {"ListSavedWorkflows", "EvalWorkflowSnippet", "CreateWorkflow", "GetWorkflowRun", "SaveWorkflow"} <= \
        set(re.findall(r"\b[A-Z]\w+\b", write_workflow_message()))
