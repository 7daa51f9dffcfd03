"""Summarize an incident from captured test output: errors, a timeline and a root-cause hypothesis."""
from typing import Literal, TypedDict

import re

meta = {
    "name": "incident-summary",
    "description": "Capture test output, extract the errors into a timeline and ask for a root-cause hypothesis.",
    "args": {
        "log_path": {"type": "string", "description": "A log file to read instead of running pytest.", "default": ""},
        "attempts": {"type": "integer", "default": 3},
    },
    "phases": [{"title": "Capture"}, {"title": "Extract"}, {"title": "Hypothesize"}, {"title": "Publish"}],
}


class Hypothesis(TypedDict):
    root_cause: str
    confidence: Literal["low", "medium", "high"]
    evidence: list[str]
    next_steps: list[str]


class GaveUp(Exception):
    """No hypothesis could be obtained after all attempts."""


ERROR_RE = re.compile(r"^(?:E\s+)?(?P<kind>[A-Z]\w*(?:Error|Exception|Failure))(?::\s*(?P<msg>.*))?$")
FAILED_RE = re.compile(r"^(FAILED|ERROR) (\S+?)(?: - (.*))?$")
LOCATION_RE = re.compile(r"^(\S+\.py):(\d+): (\w+)")

phase("Capture")
if args["log_path"]:
    try:
        text = await files.read(args["log_path"])
    except WorldError as error:
        raise WorkflowError(f"cannot read {args['log_path']}: {error}")
    source = args["log_path"]
else:
    run = await world.run("pytest", ["-q", "--no-header", "-rfE", "--tb=short"], timeout_s=900)
    text = run.stdout + "\n" + run.stderr
    source = f"pytest (exit {run.exit_code})"
lines = text.splitlines()
log(f"{len(lines)} lines from {source}")

phase("Extract")
timeline = []
for number, raw in enumerate(lines, 1):
    line = raw.strip()
    if m := FAILED_RE.match(line):
        timeline.append({"line": number, "event": m.group(1).lower(), "where": m.group(2), "detail": m.group(3) or ""})
    elif m := LOCATION_RE.match(line):
        timeline.append({"line": number, "event": "location", "where": f"{m[1]}:{m[2]}", "detail": m[3]})
    elif m := ERROR_RE.match(line):
        timeline.append({"line": number, "event": "error", "where": m["kind"], "detail": (m["msg"] or "").strip()})

errors = [e for e in timeline if e["event"] in ("error", "failed")]
kinds = sorted({e["where"] for e in timeline if e["event"] == "error"})
log(f"{len(timeline)} events, {len(errors)} errors ({', '.join(kinds) or 'none'})")
if not errors:
    return {"source": source, "events": 0, "status": "no errors found"}

timeline_text = "\n".join(f"[{e['line']:>5}] {e['event']:<8} {e['where']} {e['detail']}" for e in timeline[:200])
excerpt = text[-6000:]

phase("Hypothesize")
analyst = agent("incident-analyst", system="You investigate failures and propose root causes from evidence.")


async def hypothesize():
    failures = []
    for attempt in range(1, args["attempts"] + 1):
        try:
            return await analyst.ask(
                f"Here is the timeline of events extracted from {source}:\n{timeline_text}\n\n"
                f"And the end of the output:\n{excerpt}\n\n"
                "Propose the most likely root cause. You may read the code, but do not edit it.",
                returns=Hypothesis, label=f"hypothesis attempt {attempt}")
        except AskFailed as error:
            failures.append(str(error))
            log(f"attempt {attempt} failed: {error}")
    raise GaveUp(f"no hypothesis after {args['attempts']} attempts: {'; '.join(failures)}")


try:
    hypothesis = await hypothesize()
except GaveUp as error:
    hypothesis = None
    log(str(error))

phase("Publish")
md = ["# Incident summary", "", f"Source: {source}", "", "## Timeline", "", "```", timeline_text, "```", ""]
if hypothesis is not None:
    md += ["## Root-cause hypothesis", "", f"**{hypothesis['root_cause']}** (confidence: {hypothesis['confidence']})", ""]
    md += ["Evidence:", ""] + [f"- {e}" for e in hypothesis["evidence"]] + [""]
    md += ["Next steps:", ""] + [f"1. {s}" for s in hypothesis["next_steps"]]
else:
    md.append("No root-cause hypothesis could be produced.")
await artifact.markdown("incident", "\n".join(md), title="Incident summary", primary=True)

return {
    "source": source,
    "events": len(timeline),
    "errors": len(errors),
    "error_kinds": kinds,
    "hypothesis": hypothesis,
}
