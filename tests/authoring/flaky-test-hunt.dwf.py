"""Run the test suite several times, count failures per test, and ask for a diagnosis of flaky ones."""
import collections
import re
from typing import Literal, TypedDict

meta = {
    "name": "flaky-test-hunt",
    "description": "Run the test suite repeatedly, find tests that fail only sometimes and diagnose them.",
    "when_to_use": "When CI fails intermittently.",
    "args": {
        "runs": {"type": "integer", "description": "How many times to run the suite.", "default": 5},
        "test_path": {"type": "string", "default": "tests"},
    },
    "phases": [
        {"title": "Run the suite"},
        {"title": "Diagnose"},
    ],
}


class Diagnosis(TypedDict):
    test: str
    cause: Literal["ordering", "timing", "shared-state", "randomness", "environment", "real-bug", "unknown"]
    explanation: str
    suggested_fix: str


FAILED_RE = re.compile(r"^(?:FAILED|ERROR) (\S+::\S+)", re.MULTILINE)

phase("Run the suite")
failures = collections.Counter()
outputs = {}
completed = 0
for i in range(args["runs"]):
    try:
        res = await world.run("pytest", ["-q", "--no-header", "-rfE", "-p", "no:cacheprovider", args["test_path"]], timeout_s=900)
    except WorldError as error:
        log(f"run {i + 1} did not finish: {error}")
        continue
    completed += 1
    failed_now = set(FAILED_RE.findall(res.stdout))
    failures.update(failed_now)
    for t in failed_now:
        outputs.setdefault(t, res.stdout[-3000:])
    log(f"run {i + 1}: exit {res.exit_code}, {len(failed_now)} failing")

if completed == 0:
    raise WorkflowError("the test suite never completed")

always = sorted(t for t, n in failures.items() if n == completed)
flaky = [t for t, n in failures.most_common() if 0 < n < completed]
for t, n in failures.most_common():
    report({"test": t, "failures": n, "runs": completed, "kind": "flaky" if n < completed else "always"})

if not flaky:
    return {"runs": completed, "flaky": [], "always_failing": always, "diagnoses": []}

phase("Diagnose")
diagnoses = await parallel(
    agent(f"diagnostician-{t}", system="You diagnose flaky tests. Read the test and the code it exercises; do not edit anything.").ask(
        f"`{t}` failed in {failures[t]} of {completed} runs of the suite. "
        f"Output from one failing run:\n{outputs[t]}\n\nWhy is it flaky? Set `test` to `{t}`.",
        returns=Diagnosis,
        label=f"diagnose {t}",
    )
    for t in flaky
)

results = []
for t, d in zip(flaky, diagnoses):
    if d is None:
        results.append({"test": t, "rate": f"{failures[t]}/{completed}", "cause": "unknown", "explanation": "diagnosis failed"})
    else:
        results.append({"test": t, "rate": f"{failures[t]}/{completed}", "cause": d["cause"],
                        "explanation": d["explanation"], "suggested_fix": d["suggested_fix"]})

return {"runs": completed, "flaky": flaky, "always_failing": always, "diagnoses": results}
