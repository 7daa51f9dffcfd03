"""Mistake: an ask that is never awaited.

Awaitables are lazy in DWF: `fixer.ask(...)` only creates the task, and nothing runs until it is
awaited (or handed to `parallel`/`gather`/`pipeline`). Write `await fixer.ask(...)`.
"""
meta = {"name": "unawaited-ask", "description": "Fix the failing tests, then re-run them."}

phase("Fix")
fixer = agent("fixer")
fixer.ask("The test suite fails. Find the cause and fix the code, not the tests.")  # error: DWF317:1  # awaitable is never awaited
result = await world.run("pytest", ["-q"])
return {"tests_pass": result.exit_code == 0}
