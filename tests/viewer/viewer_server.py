"""What the viewer tests share: a workspace with the scripts they run, `dwfc ui` started as its
own process on a free port of 127.0.0.1 (its URL read from the line it prints) and stopped with
SIGTERM, `dwfc run` started in another process, and the journal read the way a test checks it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

DWFC = Path(sys.executable).parent / "dwfc"
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"  # screenshots (git-ignored)

# A live run: "Gather" holds one slow ask, then "Decide" asks its owner a question.
LIVE = '''"""A run the viewer follows live."""
meta = {"name": "live-demo", "description": "Gather slowly, then ask the owner.",
        "phases": [{"title": "Gather"}, {"title": "Decide"}]}
phase("Gather")
notes = await agent("scout").ask("List three things.", label="gather notes")
phase("Decide")
choice = await agent("judge").ask("Pick one; ask the owner first.", label="decide")
return {"notes": notes, "choice": choice}
'''
LIVE_FIXTURE = {"rules": [{"actor": "scout", "delay_s": 2.0, "result": "one, two, three"},
                          {"actor": "judge", "escalate": "Which one do you prefer?"}]}

# A slow run to cancel (and resume).
SLOW = '''"""A run that takes a while."""
meta = {"name": "slow-demo", "description": "One slow ask.", "phases": [{"title": "Wait"}]}
phase("Wait")
first = await agent("sleeper").ask("Take your time.", label="slow ask")
return first
'''
SLOW_FIXTURE = {"rules": [{"actor": "sleeper", "delay_s": 2.5, "result": "rested"}]}

# Every string a script or an agent controls carries markup (#15 point 6).
XSS = '''"""Markup in every string a script or an agent controls."""
meta = {
    "name": "xss-probe",
    "description": "<script>window.__xss = 1</script>",
    "phases": [{"title": "Probe \\"><img src=x onerror=window.__xss=2>"}],
}
artifact.table("rows", {"title": "<b>rows</b>", "columns": ["cell"]})
artifact.metrics("health", {"title": "Health", "metrics": ["<i>m</i>"]})
phase("Probe \\"><img src=x onerror=window.__xss=2>")
log("<script>alert(3)</script>")
said = await agent("\\"><img src=x onerror=alert(4)>").ask("Say <script>window.__xss=5</script>",
                                                                  label="<i>probe</i>")
count = await agent("counter").ask("Count to three.", returns=int, label="count")
report({"cell": "\\"><img src=x onerror=window.__xss=6>"}, artifact="rows")
report({"<i>m</i>": "<img src=x onerror=window.__xss=13>"}, artifact="health")
report("<script>window.__xss = 7</script>")
await artifact.markdown("notes", "# Notes <script>window.__xss=8</script>\\n\\n- \\"><img src=x onerror=window.__xss=9>\\n"
                        "- **bold** and `code`\\n\\n| a | b |\\n|---|---|\\n| <b>1</b> | 2 |\\n", title="Notes")
return {"said": said, "count": count, "html": "<img src=x onerror=window.__xss=10>"}
'''
XSS_RESULT = "<script>window.__xss = 11</script>\"><img src=x onerror=window.__xss=12>"
XSS_FIXTURE = {"rules": [{"actor": "counter", "invalid_first": 1, "result": 3}], "default": {"result": XSS_RESULT}}

# A run that errors with markup in its message (the page shows the DWF traceback).
BOOM = '''"""A run that fails."""
meta = {"name": "boom", "description": "Fails at once."}


def explode(what):
    raise ValueError(what)


explode("<img src=x onerror=window.__xss=14>")
'''


def make_workspace(root: Path) -> Path:
    """A workspace holding the three scripts and their fixtures."""
    root.mkdir(parents=True, exist_ok=True)
    for name, script, fixture in (("live", LIVE, LIVE_FIXTURE), ("slow", SLOW, SLOW_FIXTURE),
                                  ("xss", XSS, XSS_FIXTURE), ("boom", BOOM, {"rules": []})):
        (root / f"{name}.dwf.py").write_text(script, encoding="utf-8")
        (root / f"{name}.fixture.json").write_text(json.dumps(fixture), encoding="utf-8")
    return root


def start_run(workspace: Path, name: str) -> subprocess.Popen:
    """`dwfc run NAME.dwf.py` in its own process, headless (questions go to `.dwf/questions/`)."""
    return subprocess.Popen([str(DWFC), "run", f"{name}.dwf.py", "--yes", "--agent", f"scripted:{name}.fixture.json",
                             "--progress", "stream-json"], cwd=workspace, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def run_to_end(workspace: Path, name: str, exit_code: int = 0) -> dict:
    """Run NAME to its end (exiting with `exit_code`); its result object."""
    done = subprocess.run([str(DWFC), "run", f"{name}.dwf.py", "--yes", "--agent", f"scripted:{name}.fixture.json",
                           "--progress", "json"], cwd=workspace, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == exit_code, done.stderr
    return json.loads(done.stdout)


def run_id_of(process: subprocess.Popen, timeout: float = 30) -> str:
    """The run id of a `start_run` process, from its first progress line."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if line:
            return json.loads(line)["event"]["run_id"]
    raise AssertionError("the run printed no progress")


@contextmanager
def viewer(workspace: Path, *extra: str, env: dict | None = None):
    """`dwfc ui` over `workspace`: yields (base URL, the URL with its token); stopped on exit."""
    process = subprocess.Popen([str(DWFC), "ui", "--workspace", str(workspace), "--port", "0", *extra],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = process.stdout.readline()
        assert "http://127.0.0.1:" in line, (line, process.stderr.read() if process.poll() is not None else "")
        url = line.split(" at ", 1)[1].strip()
        yield url.split("?", 1)[0].rstrip("/"), url
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGKILL)
            process.wait()


def run_row(workspace: Path, run_id: str) -> dict:
    """`dwfc show RUN --json`."""
    done = subprocess.run([str(DWFC), "show", run_id, "--json", "--workspace", str(workspace)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
