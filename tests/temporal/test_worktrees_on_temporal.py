"""Isolated actors on Temporal when the worker holding an actor's worktree dies: two `dwfc worker`s
serve a run whose isolated actor writes a file, is read with `git.worktree` and asked again;
the worker that made the worktree (its log says so) is SIGKILLed while the actor's first ask is
in flight. Workers that share the repository: the other one takes the worktree over from its
branch and the run ends with the local run's value. Workers on two clones of the repository: the
branch is not in the survivor's clone, and the run fails with a WorktreeError that says so."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from sample_workspace import git
from temporal_cluster import DWFC, run_on_temporal, start_worker, stop_worker

from dwf.runtime.cli.temporal import AFFINITY_START_ENV

SCRIPT = '''meta = {"name": "takeover", "description": "An isolated actor whose worker may die."}
fixer = agent("fixer", isolation="worktree")
done = await fixer.ask("fix the note", label="fix")
change = await git.worktree(fixer)
again = await fixer.ask("check the note")
return {"done": done, "again": again, "files": change.changed_files, "diff": change.diff}
'''
FIXTURE = {"rules": [
    {"instructions": "^fix", "result": "fixed", "delay_s": 6,
     "tools": [{"tool": "write_file", "input": {"path": "note.txt", "content": "fixed\n"}}]},
    {"instructions": "^check", "result": "checked"},
]}
DEADLINE_S = 240
BRANCH = re.compile(r"\bdwf/[0-9a-f]{12}/")


def repository(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "note.txt").write_text("broken\n")
    git(root, "init", "--quiet", "--initial-branch", "main")
    git(root, "add", "note.txt")
    git(root, "commit", "--quiet", "-m", "a note")
    return root


def comparable(value: dict) -> dict:
    return json.loads(BRANCH.sub("dwf/RUN/", json.dumps(value)))


def holder(workers, run_id: str):
    """The worker whose log says it made the run's worktree, once one does."""
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        for worker in workers:
            if f"worktree of actor fixer of run {run_id}" in worker.log.read_text():
                return worker
        time.sleep(0.1)
    raise AssertionError("no worker made the worktree")


@pytest.mark.parametrize("layout", ["shared", "clones"])
def test_the_worktree_of_a_dead_worker_is_taken_over_or_the_run_says_why(layout, dev_server, tmp_path):
    script, fixture = tmp_path / "takeover.dwf.py", tmp_path / "fixture.json"
    script.write_text(SCRIPT)
    fixture.write_text(json.dumps(FIXTURE))
    local_ws = repository(tmp_path / "local")
    local = subprocess.run([str(DWFC), "run", str(script), "--yes", "--agent", f"scripted:{fixture}", "--progress",
                            "json", "--workspace", str(local_ws)], capture_output=True, text=True, timeout=DEADLINE_S)
    expected = json.loads(local.stdout)
    assert expected["status"] == "completed", expected
    first = repository(tmp_path / "one")
    second = first if layout == "shared" else tmp_path / "two"
    if layout == "clones":
        shutil.copytree(first, second, symlinks=True)  # the same repository: same root commit
    queue = f"takeover-{layout}"
    env = dict(os.environ)
    workers = [start_worker(dev_server.address, queue, first, fixture, env),
               start_worker(dev_server.address, queue, second, fixture, env)]
    try:
        # the take-over waits this long for the dead worker (20 s by default)
        run = run_on_temporal(dev_server.address, queue, script, first, {**env, AFFINITY_START_ENV: "8"},
                              extra=("--progress", "stream-json"))
        run_id = None
        for line in run.stdout:
            item = json.loads(line)
            if "event" in item:
                run_id = item["event"]["run_id"]
                break
        doomed = holder(workers, run_id)
        time.sleep(1)  # the actor's first ask is in flight (its tools ran, its 6 s wait goes on)
        doomed.send_signal(signal.SIGKILL)
        doomed.wait()
        out, err = run.communicate(timeout=DEADLINE_S)
    finally:
        logs = [stop_worker(worker) for worker in workers]
    lines = [json.loads(line) for line in out.splitlines() if line.strip()]
    result = [item for item in lines if "event" not in item][-1]
    notices = [item["event"]["message"] for item in lines
               if "event" in item and item["event"]["type"] == "log"]
    assert any("is gone; another worker takes it over from its branch" in m for m in notices), (notices, logs)
    if layout == "shared":
        assert result["status"] == "completed", (result, err, logs)
        assert comparable(result["value"]) == comparable(expected["value"])
        assert result["value"]["files"] == ["note.txt"]
    else:
        assert result["status"] == "errored", result
        assert "WorktreeError" in result["error"] and "is gone" in result["error"], result["error"]
        assert "isolated actors outlive a worker only when the workers share the repository" in result["error"]


@pytest.mark.parametrize("value", ["soon", "0", "-3", "1e9"])
def test_a_bad_affinity_start_timeout_is_refused_before_submitting(tmp_path, value):
    script = tmp_path / "takeover.dwf.py"
    script.write_text(SCRIPT)
    workspace = repository(tmp_path / "ws")
    # nothing listens on the address: the refusal comes before any connection
    done = subprocess.run([str(DWFC), "run", str(script), "--yes", "--progress", "json", "--workspace", str(workspace),
                           "--temporal", "127.0.0.1:9", "--agent", "scripted:" + str(tmp_path / "none.json")],
                          capture_output=True, text=True, timeout=60, env={**os.environ, AFFINITY_START_ENV: value})
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert f"{AFFINITY_START_ENV} must be a number of seconds above 0" in done.stderr and repr(value) in done.stderr
