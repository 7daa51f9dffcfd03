"""No hangs (issue #19): the cases the escape corpus (`escapes/hangs.py`) cannot express — a
`files.grep` timeout caught in a loop against the real world port and its grep worker, the
per-run memory limit measured in a real subprocess (capped with RLIMIT_AS, so a failure cannot
take the machine's memory), and `Interpreter.interrupt` stopping synchronous code even when the
script's own step count writes over it."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import threading

import anyio

from dwf.runtime.engine import Engine, StartRequest
from dwf.runtime.interpreter.limits import Limits
from dwf.runtime.ports.world import LocalWorld
from runner import EchoPort, run, script_of

RUNTIME_TESTS = Path(__file__).parent


def test_a_caught_grep_timeout_in_a_loop_ends_at_the_step_limit(tmp_path):
    """Each timed-out grep spent its whole time limit matching in a worker process; it is charged
    (`GREP_STEPS_PER_SECOND`), so the loop ends at the step limit instead of running for days."""
    (tmp_path / "a.txt").write_text("a" * 40 + "b\n")
    world = LocalWorld(tmp_path, grep_timeout_s=0.3)
    script = ("n = 0\nwhile True:\n    try:\n        await files.grep('(a*)*$', '*.txt')\n"
              "    except WorldError as e:\n        n += 1\n        last = str(e)\n")
    result = run(script, Limits(steps=200_000), world=world, timeout=60)
    assert result.status == "errored"
    assert result.error.startswith("LimitExceeded: the step limit (200,000) was exceeded"), result.error


PROBE = textwrap.dedent('''
    import json, resource, sys
    sys.path.insert(0, {tests!r})
    cap = 3 * 1024 ** 3  # a safety net for the machine: the memory limit below must act first
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    from runner import run
    from dwf.runtime.interpreter.limits import Limits
    script = sys.argv[1]
    result = run(script, Limits(memory_bytes=int(sys.argv[2])), timeout=120)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(json.dumps({{"status": result.status, "error": result.error, "peak": peak}}))
''')


def _probe(script: str, bound: int) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE.format(tests=str(RUNTIME_TESTS)), script, str(bound)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_the_memory_limit_ends_a_run_that_keeps_allocating():
    """`dict.fromkeys(range(10 ** 6))` costs 62,500 steps and holds about 100 MB: within the step
    limit such a loop held about 11 GB. The watchdog ends it at the memory limit instead."""
    bound = 700 * 1024 ** 2
    result = _probe("xs = []\nwhile True:\n    xs.append(dict.fromkeys(range(10 ** 6)))", bound)
    assert result["status"] == "errored"
    assert result["error"].startswith(f"LimitExceeded: the memory limit ({bound:,} bytes resident) was exceeded"), result
    assert result["peak"] < bound + 400 * 1024 ** 2  # overshoot: what ten polls a second let through


def test_running_out_of_address_space_is_the_limit_error_not_a_traceback():
    """Under an RLIMIT_AS below the memory limit, the allocation that fails is a clean run error."""
    result = _probe("xs = []\nwhile True:\n    xs.append(dict.fromkeys(range(10 ** 6)))", 8 * 1024 ** 3)
    assert result["status"] == "errored"
    assert result["error"].startswith("LimitExceeded: the run ran out of memory"), result


def test_an_interrupt_written_over_by_the_scripts_own_count_still_stops_it():
    """`Interpreter.interrupt` from another thread sets the step counter past every limit, but
    the script's `steps += 1` (a read, then a write) can write its old count plus one over it.
    Here that lost write is forced: the run's watchdog renews the stop, so the run ends as
    stopped rather than running on to the step limit."""
    async def main():
        request = StartRequest(script=script_of("n = 0\nwhile True:\n    n += 1\n"), agent_port=EchoPort(),
                               path="test.dwf.py", limits=Limits(steps=10 ** 9), grace_period_s=1.0)
        async with Engine() as engine:
            run = engine.start(request)
            interpreter = run.host.interpreter

            def stop_then_lose_it():
                while interpreter.steps < 10_000:  # the loop is running
                    pass
                run.interrupt("user")
                interpreter.steps = 10_000  # what a racing `steps += 1` writes back

            threading.Thread(target=stop_then_lose_it, daemon=True).start()
            with anyio.fail_after(60):
                return await run.result

    outcome = anyio.run(main)
    assert outcome.status == "stopped", outcome
