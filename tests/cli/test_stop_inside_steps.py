"""Stopping a run that keeps the event loop busy (issue #19, "No hangs"): `dwfc run` as a real
subprocess, stopped by SIGINT, SIGTERM or `dwfc cancel` from another process while the script
is inside a loop that never awaits, or inside one long builtin call (three-argument `pow` on
8,000-bit ints, charged bit by bit). Before, the signal or the cancel request waited for the
next `await`: the loop ran to the step limit (errored) and the builtin ran to its end (the run
completed). So each test asserts the run *stopped* and the line after the long step never ran —
no timed assertion."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

DWFC = Path(sys.executable).parent / "dwfc"

SPIN = '''meta = {"name": "spin", "description": "Logs, then loops without awaiting."}
log("started")
i = 0
while i < 10 ** 9:
    i += 1
log("finished")
return i
'''
LONG_POW = '''meta = {"name": "long-pow", "description": "Logs, then computes in one long builtin call."}
log("started")
b = 2 ** 7999 + 12345
x = pow(b - 3, b, 2 ** 7999 + 7)
log("finished")
return 1
'''


@pytest.fixture
def workspace(tmp_path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "spin.dwf.py").write_text(SPIN)
    (root / "pow.dwf.py").write_text(LONG_POW)
    (root / "none.json").write_text(json.dumps({"rules": []}))
    return root


def start(workspace: Path, script: str) -> tuple[subprocess.Popen, str]:
    """`dwfc run script` with stream-json progress, once its `started` log line is out: the
    script is then in (or entering) its long step. Returns the process and the run id."""
    environment = {k: v for k, v in os.environ.items() if k != "DWF_SCRIPTED_CALL_LOG"}
    process = subprocess.Popen([str(DWFC), "run", script, "--yes", "--agent", "scripted:none.json",
                                "--progress", "stream-json"], cwd=workspace, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment)
    for line in process.stdout:
        event = json.loads(line).get("event", {})
        if event.get("type") == "log" and event.get("message") == "started":
            return process, event["run_id"]
    process.kill()
    raise AssertionError(f"the run never logged `started`: {process.communicate()}")


def finish(process: subprocess.Popen) -> tuple[dict, list[dict], str]:
    try:
        stdout, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    lines = stdout.splitlines()
    return json.loads(lines[-1]), [json.loads(line)["event"] for line in lines[:-1]], stderr


@pytest.mark.parametrize("script", ["spin.dwf.py", "pow.dwf.py"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_stops_the_run_inside_its_long_step(workspace, script, signum):
    process, _ = start(workspace, script)
    process.send_signal(signum)
    result, events, stderr = finish(process)
    assert process.returncode == 3, stderr
    assert (result["status"], result["stop_reason"]) == ("stopped", "interrupted"), result
    assert "finished" not in [e.get("message") for e in events if e["type"] == "log"]
    assert "Traceback" not in stderr


@pytest.mark.parametrize("script", ["spin.dwf.py", "pow.dwf.py"])
def test_dwfc_cancel_stops_the_run_inside_its_long_step(workspace, script):
    process, run_id = start(workspace, script)
    cancelled = subprocess.run([str(DWFC), "cancel", run_id], cwd=workspace, capture_output=True, text=True, timeout=60)
    result, events, stderr = finish(process)
    assert cancelled.returncode == 0, cancelled.stderr
    assert f"run {run_id} is stopped(user)" in cancelled.stderr
    assert process.returncode == 3, stderr
    assert (result["status"], result["stop_reason"]) == ("stopped", "user"), result
    assert "finished" not in [e.get("message") for e in events if e["type"] == "log"]
    shown = subprocess.run([str(DWFC), "show", run_id, "--json"], cwd=workspace, capture_output=True, text=True, timeout=60)
    assert json.loads(shown.stdout)["status"] == "stopped"
