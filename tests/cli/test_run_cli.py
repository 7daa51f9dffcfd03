"""`dwfc run` as a real subprocess (TOOLS §1): the `--progress json` result object, stream-json
NDJSON, text mode, rejected scripts, usage errors, approval without a terminal, and the exit
codes 0 completed / 1 errored (or rejected) / 2 usage / 3 stopped (Ctrl-C)."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dwf.runtime.cli.main import main
from dwf.runtime.engine import RunOutcome
from dwf.runtime.engine.events import EVENT_TYPES
from dwf.runtime.cli.progress import StreamJsonProgress, TextProgress
from dwf.runtime.values.records import Record

DWFC = Path(sys.executable).parent / "dwfc"
RESULT_KEYS = {"run_id", "status", "value", "error", "stop_reason", "agents_started", "usage", "reports"}

GREETING = '''"""Greets, reads a file, asks twice and reports."""
from typing import TypedDict

meta = {
    "name": "greeting",
    "description": "A tiny workflow for the CLI tests.",
    "args": {"who": {"type": "string", "default": "world"}, "times": {"type": "integer", "default": 1}},
    "phases": [{"title": "Greet", "detail": "Ask for a greeting."}],
}


class Greeting(TypedDict):
    text: str
    excited: bool


phase("Greet")
note = await files.read("note.txt")
log(f"note says: {note.strip()}")
g = await agent("greeter").ask(f"Greet {args['who']} {args['times']} times", returns=Greeting)
extra = await agent().ask("Say something else")
report({"greeted": args["who"]})
return {"greeting": g["text"], "excited": g["excited"], "extra": extra, "note": note.strip()}
'''

GREETING_FIXTURE = {"rules": [
    {"actor": "greeter", "output_tokens": 50, "result": {"text": "Hello!", "excited": True}},
    {"actor": "", "result": "Nice weather."},
]}

FAILING = '''meta = {"name": "failing", "description": "Raises after one ask."}
answer = await agent("a").ask("anything")
raise ValueError(f"cannot use {answer}")
'''

SLOW = '''meta = {"name": "slow", "description": "One slow ask."}
phase("Wait")
return await agent("sloth").ask("take your time")
'''

BROKEN = '''meta = {"name": "broken", "description": "Does not compile."}
import subprocess
x = await agent("a").ask("hi")
'''


@pytest.fixture
def workspace(tmp_path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "note.txt").write_text("remember the milk\n")
    (root / "greeting.dwf.py").write_text(GREETING)
    (root / "greeting.fixture.json").write_text(json.dumps(GREETING_FIXTURE))
    (root / "failing.dwf.py").write_text(FAILING)
    (root / "slow.dwf.py").write_text(SLOW)
    (root / "broken.dwf.py").write_text(BROKEN)
    (root / "any.fixture.json").write_text(json.dumps({"rules": [], "default": {"result": "ok"}}))
    (root / "slow.fixture.json").write_text(json.dumps({"rules": [{"delay_s": 60, "result": "never"}]}))
    return root


def dwfc(*argv: str, cwd: Path, stdin=subprocess.DEVNULL, env=None, timeout: float = 30) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k != "DWF_SCRIPTED_CALL_LOG"}
    environment.update(env or {})
    return subprocess.run([str(DWFC), *argv], cwd=cwd, stdin=stdin, capture_output=True, text=True,
                          timeout=timeout, env=environment)


def run_greeting(workspace: Path, *extra: str, progress: str = "json") -> subprocess.CompletedProcess:
    return dwfc("run", "greeting.dwf.py", "--yes", "--agent", "scripted:greeting.fixture.json",
                "--progress", progress, *extra, cwd=workspace)


class InProcess:
    """`dwfc` called in this process (`cli.main`), for the many small usage-error cases where a
    subprocess would only add interpreter start-up time; the subprocess tests cover the wiring."""

    def __init__(self, monkeypatch, capsys, cwd: Path):
        self.monkeypatch, self.capsys, self.cwd = monkeypatch, capsys, cwd

    def __call__(self, *argv: str) -> subprocess.CompletedProcess:
        self.monkeypatch.chdir(self.cwd)
        self.monkeypatch.delenv("DWF_SCRIPTED_CALL_LOG", raising=False)
        try:
            code = main(list(argv))
        except SystemExit as exit:  # argparse errors
            code = exit.code
        out, err = self.capsys.readouterr()
        return subprocess.CompletedProcess(argv, code, out, err)

    def greeting(self, *extra: str, progress: str = "json") -> subprocess.CompletedProcess:
        return self("run", "greeting.dwf.py", "--yes", "--agent", "scripted:greeting.fixture.json",
                    "--progress", progress, *extra)


@pytest.fixture
def inproc(monkeypatch, capsys, workspace) -> InProcess:
    return InProcess(monkeypatch, capsys, workspace)


# ---------------------------------------------------------------- json


def test_json_progress_prints_exactly_the_result_object(workspace):
    done = run_greeting(workspace, "--args", '{"who": "Ada", "times": 2}')
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)  # exactly one JSON document on stdout
    assert set(result) == RESULT_KEYS
    assert result["run_id"].startswith("dwfrun-") and len(result["run_id"]) == len("dwfrun-") + 32
    assert result["status"] == "completed"
    assert result["value"] == {"greeting": "Hello!", "excited": True, "extra": "Nice weather.", "note": "remember the milk"}
    assert result["error"] is None and result["stop_reason"] is None
    assert result["agents_started"] == 2
    assert result["usage"] == {"output_tokens": 50 + len(json.dumps("Nice weather.")) // 4}
    assert result["reports"] == [{"greeted": "Ada"}]
    assert done.stderr == ""  # --yes and json: nothing on stderr


def test_args_from_a_file_and_workspace_option(workspace, tmp_path, monkeypatch, capsys):
    (tmp_path / "args.json").write_text('{"who": "Grace"}')
    done = InProcess(monkeypatch, capsys, tmp_path)(
        "run", str(workspace / "greeting.dwf.py"), "--yes", "--agent", f"scripted:{workspace / 'greeting.fixture.json'}",
        "--progress", "json", "--args", f"@{tmp_path / 'args.json'}", "--workspace", str(workspace))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["reports"] == [{"greeted": "Grace"}] and result["value"]["note"] == "remember the milk"


def test_errored_run_exits_1_with_the_error(workspace):  # a real process: exit code 1
    done = dwfc("run", "failing.dwf.py", "--yes", "--agent", "scripted:any.fixture.json", "--progress", "json",
                cwd=workspace)
    assert done.returncode == 1
    result = json.loads(done.stdout)
    assert result["status"] == "errored" and result["value"] is None
    assert result["error"] == "ValueError: cannot use ok"


def test_failed_ask_without_a_matching_rule_errors_the_run(workspace, inproc):
    (workspace / "empty.fixture.json").write_text('{"rules": []}')
    done = inproc("run", "failing.dwf.py", "--yes", "--agent", "scripted:empty.fixture.json", "--progress", "json")
    assert done.returncode == 1
    error = json.loads(done.stdout)["error"]
    assert error.startswith("AskFailed") and "ask#1" in error and '"a"' in error


def test_budget_and_max_concurrency_reach_the_run(inproc):
    done = inproc.greeting("--budget", "10", "--max-concurrency", "3", progress="stream-json")
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    started = lines[0]["event"]
    assert started["type"] == "run-started"
    assert started["caps"]["max_concurrency"] == 3 and started["caps"]["budget"] == 10
    result = lines[-1]
    assert result["status"] == "errored" and result["error"].startswith("BudgetExceeded")  # 50 > 10 after the first ask
    assert done.returncode == 1


# ---------------------------------------------------------------- stream-json and text


def test_stream_json_is_one_event_per_line_then_the_result(workspace):
    done = run_greeting(workspace, progress="stream-json")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    events, result = lines[:-1], lines[-1]
    assert set(result) == RESULT_KEYS and result["status"] == "completed"
    assert all(set(line) == {"type", "event"} and line["type"] == "workflow.run.progress" for line in events)
    types = [line["event"]["type"] for line in events]
    assert set(types) <= set(EVENT_TYPES)
    assert types[0] == "run-started" and types[-1] == "run-settled" and types.count("run-settled") == 1
    for expected in ("phase-entered", "log", "actor-created", "node-queued", "node-started", "node-settled",
                     "usage-updated", "report"):
        assert expected in types
    sequence = [line["event"]["seq"] for line in events]
    assert sequence == sorted(sequence) and len(set(sequence)) == len(sequence)
    assert {line["event"]["run_id"] for line in events} == {result["run_id"]}
    assert types.count("node-started") == types.count("node-settled")


def test_text_mode_prints_lines_on_stderr_and_the_value_on_stdout(workspace):
    done = run_greeting(workspace, progress="text")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["greeting"] == "Hello!"
    err = done.stderr
    assert "Plan: greeting" in err and "1. Greet" in err  # the plan summary
    assert "This script runs no commands." in err and "who" in err and '"world"' in err
    assert "started: greeting" in err
    assert "phase: Greet" in err
    assert "log: note says: remember the milk" in err
    assert "completed after" in err and "2 asks done" in err
    assert "\x1b[" not in err  # no live status line when stderr is not a terminal


def test_text_mode_errored_run_prints_the_dwf_traceback(inproc):
    done = inproc("run", "failing.dwf.py", "--yes", "--agent", "scripted:any.fixture.json")
    assert done.returncode == 1
    assert done.stdout == ""
    assert "Traceback (most recent call last):" in done.stderr
    assert "line 3" in done.stderr and 'raise ValueError(f"cannot use {answer}")' in done.stderr
    assert done.stderr.rstrip().endswith("ValueError: cannot use ok")
    assert "interpreter.py" not in done.stderr  # DWF frames, never Python frames


# ---------------------------------------------------------------- rejected scripts


def test_rejected_script_json_is_exactly_status_and_diagnostics(workspace, inproc):
    done = dwfc("run", "broken.dwf.py", "--yes", "--agent", "scripted:any.fixture.json", "--progress", "json",
                cwd=workspace)
    assert done.returncode == 1
    rejected = json.loads(done.stdout)
    assert set(rejected) == {"status", "diagnostics"} and rejected["status"] == "rejected"
    check = inproc("check", "broken.dwf.py", "--format", "json")
    assert rejected["diagnostics"] == json.loads(check.stdout)["files"][0]["diagnostics"]
    assert rejected["diagnostics"] and any(d["severity"] == "error" for d in rejected["diagnostics"])


def test_rejected_script_text_prints_diagnostics_on_stderr(inproc):
    done = inproc("run", "broken.dwf.py", "--yes", "--agent", "scripted:any.fixture.json")
    assert done.returncode == 1
    assert done.stdout == ""
    assert "broken.dwf.py:2:" in done.stderr and "was not run" in done.stderr


def test_rejected_script_is_reported_before_usage_problems(inproc):
    done = inproc("run", "broken.dwf.py", "--progress", "json")  # no --agent, no --yes
    assert done.returncode == 1
    assert json.loads(done.stdout)["status"] == "rejected"


# ---------------------------------------------------------------- usage errors (exit 2)


@pytest.mark.parametrize("extra, messages", [
    (["--args", "{not json"], ["--args is not valid JSON"]),
    (["--args", "[1, 2]"], ["must be a JSON object"]),
    (["--args", '{"whom": "x", "times": "two"}'],
     ["unknown argument `whom` (did you mean `who`?)", "argument `times` must be of type integer"]),
    (["--args", "@missing-args.json"], ["cannot read the arguments file missing-args.json"]),
])
def test_bad_arguments_list_every_problem(inproc, extra, messages):
    done = inproc.greeting(*extra)
    assert done.returncode == 2
    assert done.stdout == ""
    for message in messages:
        assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_all_usage_problems_are_reported_together(inproc):
    done = inproc("run", "greeting.dwf.py", "--yes", "--agent", "scripted:nope.json", "--args", '{"x": 1}',
                  "--progress", "json")
    assert done.returncode == 2 and done.stdout == ""
    assert "nope.json: no such fixture file" in done.stderr
    assert "unknown argument `x`" in done.stderr


@pytest.mark.parametrize("agent, message", [
    (None, "no agent port given; pass --agent scripted:FIXTURE.json"),
    ("anthropic", "ANTHROPIC_API_KEY"),
    ("command:", "--agent command needs a command"),
    ("scripted", "needs a fixture file"),
    ("scripted:missing.json", "missing.json: no such fixture file"),
    ("mystery", "unknown agent port 'mystery'"),
])
def test_agent_port_problems(inproc, agent, message, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    argv = ["run", "greeting.dwf.py", "--yes"] + (["--agent", agent] if agent else [])
    done = inproc(*argv)
    assert done.returncode == 2
    assert message in done.stderr


def test_bad_fixture_is_a_usage_error_naming_file_and_path(workspace, inproc):
    (workspace / "bad.fixture.json").write_text(json.dumps({"rules": [{"actor": "a", "result": 1, "fail": "x"}]}))
    done = inproc("run", "greeting.dwf.py", "--yes", "--agent", "scripted:bad.fixture.json")
    assert done.returncode == 2
    assert "bad.fixture.json: $.rules[0]: has two outcomes" in done.stderr


def test_missing_script_workspace_and_bad_numbers(workspace, inproc):
    done = inproc("run", "nothing.dwf.py", "--yes", "--agent", "scripted:any.fixture.json")
    assert done.returncode == 2 and "cannot read nothing.dwf.py" in done.stderr
    done = inproc.greeting("--workspace", str(workspace / "nowhere"))
    assert done.returncode == 2 and "is not a directory" in done.stderr
    done = inproc.greeting("--max-concurrency", "0")
    assert done.returncode == 2 and "must be at least 1" in done.stderr
    done = inproc.greeting("--budget", "-5")
    assert done.returncode == 2 and "must not be negative" in done.stderr


def test_approval_is_refused_without_yes_and_without_a_terminal(workspace):
    done = dwfc("run", "greeting.dwf.py", "--agent", "scripted:greeting.fixture.json", "--progress", "json",
                cwd=workspace)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "standard input is not a terminal" in done.stderr and "--yes" in done.stderr
    assert "Plan: greeting" in done.stderr  # the plan it would have asked about
    assert not (workspace / ".dwf").exists()  # nothing ran


# ---------------------------------------------------------------- Ctrl-C (exit 3)


def test_sigint_stops_the_run_as_interrupted(workspace, tmp_path):
    progress = "stream-json"
    log = tmp_path / "calls.jsonl"
    environment = {k: v for k, v in os.environ.items() if k != "DWF_SCRIPTED_CALL_LOG"}
    environment["DWF_SCRIPTED_CALL_LOG"] = str(log)
    process = subprocess.Popen([str(DWFC), "run", "slow.dwf.py", "--yes", "--agent", "scripted:slow.fixture.json",
                                "--progress", progress], cwd=workspace, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment)
    try:
        deadline = time.monotonic() + 20
        while not (log.exists() and log.read_text().strip()):  # the slow ask has been dispatched
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the ask never started"
            time.sleep(0.02)
        sent = time.monotonic()
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 3, stderr
    assert time.monotonic() - sent < 15
    lines = stdout.splitlines()
    result = json.loads(lines[-1])
    assert result["status"] == "stopped" and result["stop_reason"] == "interrupted"
    assert result["value"] is None and "interrupted" in result["error"]
    assert "Traceback" not in stderr
    assert set(result) == RESULT_KEYS
    events = [json.loads(line)["event"] for line in lines[:-1]]
    settled = [e for e in events if e["type"] == "node-settled"]
    assert [e["outcome"] for e in settled] == ["cancelled"]
    assert events[-1]["type"] == "run-settled" and events[-1]["stop_reason"] == "interrupted"


# ---------------------------------------------------------------- approval prompt (in process)


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("answer, code", [("y\n", 0), ("yes\n", 0), ("n\n", 2), ("\n", 2)])
def test_interactive_approval(inproc, monkeypatch, answer, code):
    monkeypatch.setattr(sys, "stdin", FakeTerminal(answer))
    done = inproc("run", "greeting.dwf.py", "--agent", "scripted:greeting.fixture.json", "--progress", "json")
    assert done.returncode == code
    assert "Plan: greeting" in done.stderr and "Run this workflow? [y/N]" in done.stderr
    if code == 0:
        assert json.loads(done.stdout)["status"] == "completed"
    else:
        assert done.stdout == "" and "not approved; nothing ran" in done.stderr


# ---------------------------------------------------------------- progress renderers (unit)


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def node_events(n: int) -> list[dict]:
    events = []
    for i in range(n):
        key = f"ask#1/for#1[{i}]"
        events += [{"type": "node-queued", "key": key, "kind": "ask", "actor": f"w-{i}", "label": f"task {i}"},
                   {"type": "node-started", "key": key, "kind": "ask"},
                   {"type": "node-settled", "key": key, "kind": "ask", "outcome": "ok"}]
    return events


def test_text_progress_throttles_node_lines_but_not_logs():
    clock, err, out = Clock(), io.StringIO(), io.StringIO()
    progress = TextProgress(out, err, live=False, clock=clock)
    progress({"type": "run-started", "run_id": "dwfrun-x", "meta": {"name": "demo"}, "caps": {"max_concurrency": 2}})
    for event in node_events(3):  # nine node events at the same instant: one line
        progress(event)
    progress({"type": "log", "message": "half way"})
    progress({"type": "log", "message": "still going"})
    clock.now += 0.41
    for event in node_events(1):
        progress(event)
    progress({"type": "usage-updated", "run": {"output_tokens": 1234}})
    progress({"type": "run-settled", "status": "completed", "stop_reason": None, "error": None, "value": 1})
    lines = err.getvalue().splitlines()
    assert lines[0] == "run dwfrun-x started: demo (max 2 asks in flight)"
    assert lines[1] == "ask queued: ask#1/for#1[0] task 0 [w-0] (asks: 0 running, 0 done)"
    assert lines[2:4] == ["log: half way", "log: still going"]
    assert lines[4] == "ask queued: ask#1/for#1[0] task 0 [w-0] (asks: 0 running, 3 done)"
    assert lines[5] == "run dwfrun-x completed after 0.4s: 4 asks done, 1,234 output tokens"
    assert len(lines) == 6


def test_text_progress_live_line_is_redrawn_in_place():
    clock, err, out = Clock(), io.StringIO(), io.StringIO()
    progress = TextProgress(out, err, live=True, clock=clock)
    progress({"type": "run-started", "run_id": "dwfrun-x", "meta": {"name": "demo"}, "caps": {}})
    progress({"type": "phase-entered", "name": "Review"})
    progress(node_events(1)[0])
    clock.now += 0.2
    progress(node_events(1)[1])
    text = err.getvalue()
    assert "\r\x1b[2K[Review] asks 1 running, 0 waiting, 0 done | 0 tokens" in text
    progress({"type": "run-settled", "status": "stopped", "stop_reason": "interrupted", "error": "stopped", "value": None})
    assert err.getvalue().endswith("run dwfrun-x stopped (interrupted) after 0.2s: 0 asks done, 0 output tokens\nstopped\n")
    progress.finish(RunOutcome("dwfrun-x", "stopped", error="stopped", stop_reason="interrupted"))
    assert out.getvalue() == ""


def test_stream_json_progress_wraps_each_event_and_serializes_records():
    out = io.StringIO()
    progress = StreamJsonProgress(out, io.StringIO())
    progress({"type": "report", "item": {"ref": Record("ArtifactRef", id="r", version=2)}})
    progress.finish(RunOutcome("dwfrun-x", "completed", value=[1]))
    first, last = [json.loads(line) for line in out.getvalue().splitlines()]
    assert first == {"type": "workflow.run.progress", "event": {"type": "report", "item": {"ref": {"id": "r", "version": 2}}}}
    assert last["status"] == "completed" and last["value"] == [1]


def test_run_is_journaled_in_the_workspace_state_db(workspace):
    from dwf.runtime.journal.sqlite import SqliteJournal

    done = run_greeting(workspace)
    result = json.loads(done.stdout)
    with SqliteJournal(workspace / ".dwf" / "state.db") as journal:
        row = journal.get_run(result["run_id"])
        assert row is not None and row.status == "completed" and row.result == result["value"]
        nodes = journal.list_nodes(result["run_id"])
        assert [n.kind for n in nodes].count("ask") == 2 and all(n.status == "completed" for n in nodes)
        events = journal.events(result["run_id"])
        assert events[0]["type"] == "run-started" and events[-1]["type"] == "run-settled"
