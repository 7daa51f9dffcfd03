"""Same semantics on Temporal: every example runs with its scripted fixture through `dwfc run`
locally and through `dwfc run --temporal` against a `dwfc worker` (each in its own copy of the
sample workspace), and both runs give the same status and value and the same set of
(site, key, input hash) of their effects: the journal of the local run against the `nodes`
query of the workflow. pytest prints its duration ("in 2.27s"), which differs between any two
runs; an ask that quotes it has other inputs, so there the inputs themselves are compared with
the durations masked (and isolated actors' branch names, which carry the run id). `dwfc show` of
the cluster run gives what a local `dwfc show` of the local run gives, section by section.
Every example runs, parallel-fixes (isolated actors in worktrees) too; a run whose task queue's
workers serve another repository is refused before anything is submitted."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from sample_workspace import build_workspace, command_environment, start_run
from temporal_cluster import (inputs_of, local_inputs, local_nodes, nodes_of, run_on_temporal, show, start_worker,
                              stop_worker)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES_DIR = ROOT / "examples"
EXAMPLES = sorted(EXAMPLES_DIR.glob("*.dwf.py"))
ARGS = {"triage-issues": {"team": "platform"}}
# Examples whose commands print how long they took (pytest's "in 2.27s"): two runs of them differ
# there, wherever they run, and so do the input hashes of the asks that quote that output. An
# isolated actor's branch is named after its run (`dwf/<run id, 12 hex digits>/<actor>`), so the
# value and the commands that name it differ by the run id.
TIMED = re.compile(r"\bin \d+\.\d+s\b")
BRANCH = re.compile(r"\bdwf/[0-9a-f]{12}/")


# What `dwfc show` gives of a run that must be the same locally and on the cluster (its times,
# id, caps and event count differ by nature; a cluster run is never resumable).
SHOWN = ("name", "description", "status", "stop_reason", "args", "asks", "tokens", "phases", "nodes",
         "pending_questions", "result", "error")
SECTION = re.compile(r"^  (Status|Started|Usage|Phases|Actors|Question|Reports|Artifacts|Worktrees|Result|Error)\b",
                     re.MULTILINE)


def shown_alike(data: dict) -> dict:
    """The part of a `dwfc show --json` that a local run and a cluster run must share."""
    same = {key: data[key] for key in SHOWN}
    # actors created inside a join, and reports, come in the order their items got there
    same["actors"] = sorted(map(json.dumps, data["actors"]))
    same["reports"] = sorted(map(json.dumps, data["reports"]))
    same["artifacts"] = sorted((a["id"], a["kind"]) for a in data["artifacts"])
    same["worktrees"] = [{k: v for k, v in tree.items() if k not in ("path", "head")} for tree in data["worktrees"]]
    return untimed(same)


def untimed(value):
    """`value` with every duration a command printed replaced by "in N s", and the run id in
    every isolated actor's branch by RUN."""
    return json.loads(BRANCH.sub("dwf/RUN/", TIMED.sub("in N s", json.dumps(value))))



@pytest.fixture(scope="module")
def environment(tmp_path_factory) -> dict[str, str]:
    return command_environment(tmp_path_factory.mktemp("bin"))


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    return build_workspace(tmp_path_factory.mktemp("workspace-template") / "tasktool")


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name.removesuffix(".dwf.py"))
def test_example_gives_the_same_result_on_temporal(example, template, environment, dev_server, tmp_path):
    name = example.name.removesuffix(".dwf.py")
    fixture = EXAMPLES_DIR / f"{name}.fixture.json"
    local_ws, remote_ws = tmp_path / "local" / "tasktool", tmp_path / "remote" / "tasktool"
    shutil.copytree(template, local_ws, symlinks=True)
    shutil.copytree(template, remote_ws, symlinks=True)
    local = start_run(example, fixture, local_ws, environment, ARGS.get(name))  # runs while the worker starts
    worker = start_worker(dev_server.address, f"examples-{name}", remote_ws, fixture, environment)
    try:
        remote = run_on_temporal(dev_server.address, f"examples-{name}", example, remote_ws, environment,
                                 ARGS.get(name))
        remote_out, remote_err = remote.communicate(timeout=300)
        assert remote_out.strip(), f"no result on Temporal; stderr:\n{remote_err}"
        on_temporal = json.loads(remote_out)
        effects = nodes_of(dev_server.address, on_temporal["run_id"])  # a query: answered by a worker
        local_out, local_err = local.communicate(timeout=300)
        here = json.loads(local_out)
        differing = sorted(key for site, key, digest in effects - local_nodes(local_ws, here["run_id"]))
        remote_inputs = inputs_of(dev_server.address, on_temporal["run_id"], differing)
        remote_shown, remote_text = show(remote_ws, on_temporal["run_id"], dev_server.address)
    finally:
        worker_err = stop_worker(worker)
    assert on_temporal["status"] == here["status"], (on_temporal["error"], here["error"], worker_err)
    assert untimed(on_temporal["value"]) == untimed(here["value"])
    # Reports arrive in the order the script reaches `report()`; in a pipeline that is the order
    # items finish their stages, which the agents' timing decides, here as locally.
    assert sorted(map(json.dumps, untimed(on_temporal["reports"]))) == sorted(map(json.dumps, untimed(here["reports"])))
    assert on_temporal["usage"]["output_tokens"] == here["usage"]["output_tokens"]
    expected = local_nodes(local_ws, here["run_id"])
    assert {(site, key) for site, key, _ in effects} == {(site, key) for site, key, _ in expected}
    # Where an input hash differs, the inputs differ only in a duration a command printed.
    inputs = local_inputs(local_ws, here["run_id"])
    for key in differing:
        assert TIMED.search(json.dumps(inputs[key])) or BRANCH.search(json.dumps(inputs[key])), \
            f"{key} has other inputs on Temporal"
        assert untimed(remote_inputs[key]) == untimed(inputs[key]), f"{key} has other inputs on Temporal"
    # `dwfc show` of the cluster run shows what a local show of the same run shows, section by section.
    local_shown, local_text = show(local_ws, here["run_id"])
    assert shown_alike(remote_shown) == shown_alike(local_shown)
    assert SECTION.findall(remote_text) == SECTION.findall(local_text)
    assert f"(on {dev_server.address})" in remote_text.splitlines()[0]


def test_a_run_is_refused_before_anything_is_submitted_when_no_worker_serves_its_repository(
        template, environment, dev_server, tmp_path):
    """The workers of a task queue name their workspace's repository; a run of another one (here
    parallel-fixes, whose fixers need worktrees in it) is refused with what to do."""
    served, other = tmp_path / "served", tmp_path / "other" / "tasktool"
    served.mkdir()
    shutil.copytree(template, other, symlinks=True)
    fixture = EXAMPLES_DIR / "parallel-fixes.fixture.json"
    worker = start_worker(dev_server.address, "refused", served, fixture, environment)
    try:
        refused = run_on_temporal(dev_server.address, "refused", EXAMPLES_DIR / "parallel-fixes.dwf.py", other,
                                  environment)
        out, err = refused.communicate(timeout=120)
    finally:
        stop_worker(worker)
    assert refused.returncode == 2, (out, err)
    assert f"the workers of task queue refused serve `dir {served.resolve()}`" in err
    assert "not this workspace's repository `git " in err and "dwfc worker --workspace DIR" in err
