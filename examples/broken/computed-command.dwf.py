"""Mistake: `world.run` with a command taken from a variable.

The set of commands a script can run is fixed at compile time and shown on the approval screen,
so the first argument of `world.run` must be a string literal. Write one `world.run("ruff", ...)`
and one `world.run("pytest", ...)` instead of looping over a table of commands.
"""
meta = {"name": "computed-command", "description": "Run each check and fix what fails."}

CHECKS = [["ruff", "check", "."], ["pytest", "-q"]]

phase("Run checks")
fixer = agent("fixer", system="You fix code so that lint and tests pass.")
for check in CHECKS:
    result = await world.run(check[0], check[1:])  # error: DWF303:30  # `world.run` command must be a string literal
    if result.exit_code != 0:
        await fixer.ask(f"`{' '.join(check)}` failed:\n{result.stdout[-4000:]}\nFix it.")
