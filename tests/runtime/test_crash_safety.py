"""Crash safety (RUNTIME §5, §5.1) with real processes: `dwfc run` is SIGKILLed at 20 moments
spread over a run (a fan-out, a pipeline and a sequential loop of asks with seeded random
delays, then a saved workflow called inline with asks of its own; and a loop of `world.run`
commands), then `dwfc resume` finishes it. No ask or command
that had completed before the kill runs again (only one still in flight may), the final value and
the reports equal an uninterrupted run's, and every effect ran at most twice."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path


from dwf.runtime.journal.sqlite import SqliteJournal

DWFC = Path(sys.executable).parent / "dwfc"
KILLS = 20
THREADS = 4
MAX_CONCURRENCY = 4

ASKS_SCRIPT = '''meta = {"name": "crash", "description": "Fan-out, pipeline and loop.", "phases": [{"title": "Work", "detail": "asks"}]}
phase("Work")
fan = await parallel(agent(f"f{i}").ask(f"fan {i}") for i in range(6))
report({"fan": fan})


async def first(item, same, index):
    return await agent(f"p{index}").ask(f"pipe1 {item}")


async def second(previous, item, index):
    return await agent(f"q{index}").ask(f"pipe2 {item} {previous}")


piped = await pipeline(["a", "b", "c"], first, second)
report({"piped": piped})
worker = agent("seq")
seq = []
for i in range(4):
    seq.append(await worker.ask(f"seq {i} {len(seq)}"))
report({"seq": seq})
called = await workflow("child", {"n": 3})
return {"fan": fan, "piped": piped, "seq": seq, "called": called}
'''

# A saved workflow the asks script calls inline: its asks are journaled under the call.
CHILD_SCRIPT = '''meta = {"name": "child", "description": "Asks of a called workflow.", "args": {"n": {"type": "integer"}}}
phase("Child")
both = await parallel(agent(f"c{i}").ask(f"child fan {i}") for i in range(2))
tail = agent("ctail")
out = []
for i in range(args["n"]):
    out.append(await tail.ask(f"child seq {i}"))
report({"child": out})
return both + out
'''

COMMANDS_SCRIPT = '''meta = {"name": "cmds", "description": "Commands in a loop.", "phases": [{"title": "Work", "detail": "run"}]}
phase("Work")
codes = []
for i in range(6):
    r = await world.run("python3", ["step.py", str(i)])
    codes.append([i, r.exit_code, r.stdout])
return codes
'''

STEP = '''import sys, time
with open("out.txt", "a") as f:
    f.write(sys.argv[1] + "\\n")
    f.flush()
    print("step", sys.argv[1])
time.sleep(0.1)
'''


def asks_fixture(seed: int = 20261130) -> dict:
    rng = random.Random(seed)
    delay = lambda: round(rng.uniform(0.02, 0.15), 3)
    rules = [{"instructions": f"^fan {i}$", "result": f"F{i}", "delay_s": delay()} for i in range(6)]
    rules += [{"instructions": f"^pipe1 {x}$", "result": f"P{x}", "delay_s": delay()} for x in "abc"]
    rules += [{"instructions": f"^pipe2 {x} ", "result": f"Q{x}", "delay_s": delay()} for x in "abc"]
    rules += [{"instructions": f"^seq {i} ", "result": f"S{i}", "delay_s": delay()} for i in range(4)]
    rules += [{"instructions": f"^child fan {i}$", "result": f"CF{i}", "delay_s": delay()} for i in range(2)]
    rules += [{"instructions": f"^child seq {i}$", "result": f"CS{i}", "delay_s": delay()} for i in range(3)]
    return {"rules": rules}


def env(call_log: Path | None) -> dict:
    environment = {k: v for k, v in os.environ.items() if k != "DWF_SCRIPTED_CALL_LOG"}
    if call_log is not None:
        environment["DWF_SCRIPTED_CALL_LOG"] = str(call_log)
    return environment


def make_workspace(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "asks.dwf.py").write_text(ASKS_SCRIPT)
    (root / ".dwf" / "workflows").mkdir(parents=True)
    (root / ".dwf" / "workflows" / "child.dwf.py").write_text(CHILD_SCRIPT)
    (root / "cmds.dwf.py").write_text(COMMANDS_SCRIPT)
    (root / "step.py").write_text(STEP)
    (root / "fix.json").write_text(json.dumps(asks_fixture()))
    return root


def start(workspace: Path, script: str, call_log: Path) -> subprocess.Popen:
    return subprocess.Popen([str(DWFC), "run", script, "--yes", "--agent", "scripted:fix.json", "--progress", "json",
                             "--max-concurrency", str(MAX_CONCURRENCY)], cwd=workspace, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env(call_log),
                            start_new_session=True)


def resume(workspace: Path, run_id: str, call_log: Path) -> dict:
    done = subprocess.run([str(DWFC), "resume", run_id, "--agent", "scripted:fix.json", "--progress", "json"],
                          cwd=workspace, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
                          env=env(call_log))
    assert done.returncode in (0, 3), (done.returncode, done.stdout, done.stderr)
    return json.loads(done.stdout)


def logged(call_log: Path) -> list[tuple[str, str]]:
    if not call_log.exists():
        return []
    return [(entry["site"], entry["occurrence"]) for entry in map(json.loads, call_log.read_text().splitlines())]


def signal_file(workspace: Path, kind: str) -> Path:
    return workspace / ("calls-run.jsonl" if kind == "asks" else "out.txt")


@dataclass
class Reference:
    result: dict
    calls: list
    duration: float  # from the first dispatched effect to the process exit


def reference(root: Path, kind: str) -> Reference:
    workspace = make_workspace(root)
    call_log = workspace / "calls-run.jsonl"
    process = start(workspace, f"{kind}.dwf.py", call_log)
    first = None
    while process.poll() is None:
        if first is None and signal_file(workspace, kind).exists():
            first = time.monotonic()
        time.sleep(0.002)
    end = time.monotonic()
    out, err = process.communicate()
    assert process.returncode == 0, (out, err)
    assert first is not None
    return Reference(json.loads(out), logged(call_log), end - first)


@dataclass
class Outcome:
    interrupted: bool  # the run was still going when it was killed
    completed_at_kill: set = field(default_factory=set)
    running_at_kill: set = field(default_factory=set)
    killed_calls: list = field(default_factory=list)
    resumed_calls: list = field(default_factory=list)
    result: dict | None = None
    lines: list = field(default_factory=list)  # out.txt (commands)
    resumes: int = 0


def kill_point(root: Path, kind: str, offset: float) -> Outcome:
    workspace = make_workspace(root)
    call_log = workspace / "calls-run.jsonl"
    process = start(workspace, f"{kind}.dwf.py", call_log)
    deadline = time.monotonic() + 30
    while not signal_file(workspace, kind).exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the run never dispatched anything"
        time.sleep(0.002)
    time.sleep(offset)
    finished = process.poll() is not None
    if not finished:
        os.killpg(process.pid, signal.SIGKILL)
    out, _ = process.communicate()
    with SqliteJournal(workspace / ".dwf" / "state.db") as journal:
        (row,) = journal.list_runs()
        effect = "ask" if kind == "asks" else "run"
        nodes = [n for n in journal.list_nodes(row.id) if n.kind == effect]
        outcome = Outcome(interrupted=row.status == "running",
                          completed_at_kill={(n.site, n.key) for n in nodes if n.status in ("completed", "failed")},
                          running_at_kill={(n.site, n.key) for n in nodes if n.status == "running"},
                          killed_calls=logged(call_log))
    if row.status == "completed":  # the kill landed after the run had settled
        outcome.result = (json.loads(out) if finished and out.strip() else
                          {"status": row.status, "value": row.result, "reports": None})
    for attempt in range(3):
        resume_log = workspace / f"calls-resume{attempt}.jsonl"
        if outcome.result is not None and outcome.result["status"] == "completed":
            break
        outcome.result = resume(workspace, row.id, resume_log)
        outcome.resumes += 1
        outcome.resumed_calls += logged(resume_log)
    if kind == "cmds":
        outcome.lines = (workspace / "out.txt").read_text().splitlines()
    return outcome


def run_kill_points(tmp_path: Path, kind: str) -> tuple[Reference, list[Outcome]]:
    ref = reference(tmp_path / "reference", kind)
    offsets = [i * ref.duration / (KILLS + 1) for i in range(1, KILLS + 1)]
    with ThreadPoolExecutor(THREADS) as pool:
        outcomes = list(pool.map(lambda item: kill_point(tmp_path / f"kill{item[0]}", kind, item[1]),
                                 enumerate(offsets, 1)))
    interrupted = sum(o.interrupted for o in outcomes)
    assert interrupted >= KILLS // 2, f"only {interrupted} of {KILLS} kills landed while the run was going"
    return ref, outcomes


def test_sigkilled_asks_are_never_redispatched_once_completed(tmp_path):
    ref, outcomes = run_kill_points(tmp_path, "asks")
    assert ref.result["status"] == "completed"
    expected = set(ref.calls)
    assert len(expected) == len(ref.calls) == 6 + 6 + 4 + 2 + 3  # the called workflow's asks too
    assert ref.result["value"]["called"] == ["CF0", "CF1", "CS0", "CS1", "CS2"]
    for i, o in enumerate(outcomes, 1):
        where = f"kill point {i}"
        assert o.result["status"] == "completed", (where, o.result)
        assert o.result["value"] == ref.result["value"], where
        if o.result.get("reports") is not None:
            assert o.result["reports"] == ref.result["reports"], where  # not duplicated, not lost
        killed, resumed = set(o.killed_calls), set(o.resumed_calls)
        assert len(killed) == len(o.killed_calls) and len(resumed) == len(o.resumed_calls), where
        assert killed | resumed == expected, where
        # written ahead: every dispatched ask has a journal row
        assert killed <= o.completed_at_kill | o.running_at_kill, where
        assert not resumed & o.completed_at_kill, (where, resumed & o.completed_at_kill)
        in_flight = killed - o.completed_at_kill
        # at most the asks holding a slot, plus one whose outcome settled while the next
        # dispatch waited for its commit (committed at the end of that tick, see design.md)
        assert len(in_flight) <= MAX_CONCURRENCY + 1, where
        assert killed & resumed <= in_flight, (where, killed & resumed, in_flight)
        assert o.resumes == (1 if o.interrupted else 0), where  # one resume finishes the run


def test_sigkilled_commands_are_never_rerun_once_completed(tmp_path):
    ref, outcomes = run_kill_points(tmp_path, "cmds")
    assert ref.result["status"] == "completed"
    assert [entry[:2] for entry in ref.result["value"]] == [[i, 0] for i in range(6)]
    index = lambda key: int(re.findall(r"\[(\d+)\]", key)[-1])
    for i, o in enumerate(outcomes, 1):
        where = f"kill point {i}"
        assert o.result["status"] == "completed", (where, o.result)
        assert o.result["value"] == ref.result["value"], where
        completed = {index(key) for _, key in o.completed_at_kill}
        running = {index(key) for _, key in o.running_at_kill}
        assert len(running) <= 1, where  # a sequential loop: one command at a time
        counts = {n: o.lines.count(str(n)) for n in range(6)}
        for n in range(6):
            if n in running:
                assert 1 <= counts[n] <= 2, (where, n, o.lines)
            else:
                assert counts[n] == 1, (where, n, o.lines, completed, running)
        assert len(o.lines) == 6 + sum(counts[n] - 1 for n in running), where
