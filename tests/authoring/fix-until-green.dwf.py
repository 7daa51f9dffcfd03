"""Run pytest; while it fails, ask a fixer to repair the code, up to N attempts."""
import re

meta = {
    "name": "fix-until-green",
    "description": "Run the test suite and let a fixer repair failures until it is green or attempts run out.",
    "when_to_use": "When the test suite is red and the fix is probably small.",
    "args": {
        "max_attempts": {"type": "integer", "description": "How many fix attempts to allow.", "default": 3},
        "test_path": {"type": "string", "description": "Tests to run.", "default": "tests"},
    },
    "phases": [
        {"title": "Run tests"},
        {"title": "Fix"},
        {"title": "Report"},
    ],
}

FAILED_RE = re.compile(r"^FAILED (\S+?)(?: - (.*))?$", re.MULTILINE)


async def run_pytest():
    result = await world.run("pytest", ["-q", "--no-header", "-rf", args["test_path"]], timeout_s=900)
    failures = [m[1] for m in FAILED_RE.finditer(result.stdout)]
    return result, failures


phase("Run tests")
try:
    result, failures = await run_pytest()
except WorldError as error:
    raise WorkflowError(f"pytest could not run: {error}") from error

initial_failures = list(failures)
log(f"initial run: exit {result.exit_code}, {len(failures)} failing tests")

phase("Fix")
fixer = agent("fixer", system="You fix failing tests with small, careful edits to the product code. "
                               "Do not weaken or delete tests.")
history = []
attempt = 0
while result.exit_code != 0 and attempt < args["max_attempts"]:
    attempt += 1
    output = result.stdout[-6000:]
    failing_list = "\n".join(f"- {f}" for f in failures) or "(could not parse failing tests; see output)"
    try:
        answer = await fixer.ask(
            f"Attempt {attempt} of {args['max_attempts']}. `pytest -q {args['test_path']}` fails.\n"
            f"Failing tests:\n{failing_list}\n\nOutput (tail):\n{output}\n\n"
            "Find the root cause and fix it. Reply with a short description of what you changed.",
            label=f"fix attempt {attempt}",
        )
    except AskFailed as error:
        history.append({"attempt": attempt, "error": str(error), "failing": len(failures)})
        log(f"attempt {attempt}: fixer failed: {error}")
        continue
    result, failures = await run_pytest()
    history.append({"attempt": attempt, "change": answer[:500], "failing": len(failures), "exit_code": result.exit_code})
    log(f"attempt {attempt}: exit {result.exit_code}, {len(failures)} failing")

phase("Report")
green = result.exit_code == 0
fixed = [t for t in initial_failures if t not in failures]
for t in failures:
    report({"test": t, "status": "still failing"})
return {
    "status": "green" if green else "still-failing",
    "attempts": attempt,
    "initially_failing": initial_failures,
    "fixed": fixed,
    "still_failing": failures,
    "history": history,
}
