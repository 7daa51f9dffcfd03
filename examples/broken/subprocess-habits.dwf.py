"""Mistake: `subprocess` habits on a `RunResult`.

`world.run(...)` returns a `RunResult` with `exit_code`, `stdout` and `stderr`; its output is
already text. `result.returncode` and `result.stdout.decode()` fail when the run reaches them,
after the tests ran.
"""
meta = {"name": "subprocess-habits", "description": "Run the tests and summarize the failures."}

phase("Test")
result = await world.run("pytest", ["-q"])
if result.returncode != 0:  # error: DWF207:11  # `RunResult` has `exit_code`
    output = result.stdout.decode()  # error: DWF207:28  # `stdout` is already a str
    summary = await agent("summarizer").ask(f"Summarize these failures:\n{output[-4000:]}")
    return {"passed": False, "summary": summary}
return {"passed": True}
