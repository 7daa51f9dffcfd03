"""Make a failing test suite pass: diagnose once, then fix and re-run in a bounded loop.

A diagnostician reads the first failure and names a root cause; one fixer actor then works on
the code, attempt after attempt, seeing the fresh pytest output each time. The loop is bounded
(`for attempt in range(MAX_ATTEMPTS)`) so the approval screen can show how many asks it may make.

Language features shown: `world.run("pytest", [...])` with a literal command and computed
arguments, `RunResult` attributes (`exit_code`, `stdout`, `stderr`), early top-level `return`,
a typed diagnosis, one actor reused across loop iterations (its context accumulates),
`for ... else`, a pure helper function, and `report()` of each attempt.
"""
from typing import Literal, TypedDict

meta = {
    "name": "fix-until-green",
    "description": "Run the tests, diagnose the failure, then fix and re-run until the suite passes.",
    "when_to_use": "When `pytest` is red on your branch and the fix is in production code, "
    "not in the tests.",
    "phases": [
        {"title": "Run the tests", "detail": "Run pytest once to see whether anything fails."},
        {"title": "Diagnose", "detail": "Name the failing tests, the root cause and the files to change."},
        {"title": "Fix until green", "detail": "Fix, re-run pytest, repeat at most four times."},
    ],
}


class Diagnosis(TypedDict):
    """Why the suite fails, before anyone edits code."""

    failing_tests: list[str]
    "Node ids as pytest prints them, e.g. tests/test_api.py::test_login."
    root_cause: str
    files_to_change: list[str]
    confidence: Literal["low", "medium", "high"]
    test_is_wrong: bool
    "True only if the test asserts behaviour that contradicts the documented contract."


MAX_ATTEMPTS = 4
PYTEST_ARGS = ["-q", "-x", "--no-header", "-p", "no:cacheprovider"]


def tail(text, limit=6000):
    """The end of a long output, where pytest puts the failure summary."""
    if len(text) <= limit:
        return text
    return "[... output truncated ...]\n" + text[-limit:]


phase("Run the tests")
result = await world.run("pytest", PYTEST_ARGS, timeout_s=900)
if result.exit_code == 0:
    log("The suite already passes; nothing to fix.")
    return {"status": "already-green", "attempts": 0}
if result.exit_code == 5:
    log("pytest collected no tests.")
    return {"status": "no-tests", "attempts": 0}

phase("Diagnose")
diagnosis = await agent(
    "diagnostician",
    system="You read test failures carefully and find root causes. You never edit files.",
).ask(
    f"pytest exited with {result.exit_code}. Output:\n\n{tail(result.stdout)}\n\n"
    f"stderr:\n{tail(result.stderr, 2000)}\n\n"
    "Read the failing tests and the code they exercise. Name the root cause and the smallest "
    "set of production files that must change.",
    returns=Diagnosis,
)
log(f"Root cause ({diagnosis['confidence']} confidence): {diagnosis['root_cause']}")
if diagnosis["test_is_wrong"]:
    log("The diagnostician thinks a test is wrong; the fixer is still told to leave tests alone.")

phase("Fix until green")
fixer = agent(
    "fixer",
    system="You fix production code so the test suite passes. Never skip, weaken or delete "
    "tests, and never add special cases that only exist to satisfy a test.",
)
attempts = []
for attempt in range(MAX_ATTEMPTS):
    if attempt == 0:
        context = (
            f"Diagnosis: {diagnosis['root_cause']}\n"
            f"Failing tests: {', '.join(diagnosis['failing_tests'])}\n"
            f"Files to change: {', '.join(diagnosis['files_to_change'])}\n"
        )
    else:
        context = "Your last change did not make the suite pass.\n"
    note = await fixer.ask(
        f"Attempt {attempt + 1} of {MAX_ATTEMPTS}.\n{context}\n"
        f"Latest pytest output:\n{tail(result.stdout)}\n\n"
        "Make the change, then reply with two lines: what you changed and why.",
        label=f"fix attempt {attempt + 1}",
    )
    result = await world.run("pytest", PYTEST_ARGS, timeout_s=900)
    attempts.append({"attempt": attempt + 1, "exit_code": result.exit_code, "change": note[:400]})
    report(attempts[-1])
    if result.exit_code == 0:
        log(f"Green after {attempt + 1} attempt(s).")
        break
else:
    log(f"Still failing after {MAX_ATTEMPTS} attempts; handing back to a human.")

return {
    "status": "green" if result.exit_code == 0 else "still-failing",
    "attempts": len(attempts),
    "root_cause": diagnosis["root_cause"],
    "history": attempts,
    "last_output": "" if result.exit_code == 0 else tail(result.stdout, 3000),
}
