"""Collect code-quality signals into a live dashboard and publish a written quality report.

The script runs the linter and the test suite, counts TODO markers, streams every lint finding
into a `findings` table and the headline numbers into a `health` metrics panel while the run is
still going, asks an analyst to pick the hotspots worth fixing first, and publishes a Markdown
report as the run's primary deliverable.

Language features shown: dashboard declarations at top level (`artifact.table`,
`artifact.metrics`), `report(item, artifact="...")` routing, `await artifact.markdown(...,
primary=True)`, `try/except WorldError` for a tool that may be missing, `re.findall` to parse
command output, `files.grep` for a count, `math.ceil`, and a typed analysis ask.
"""
from typing import Literal, TypedDict

import json
import math
import re

meta = {
    "name": "quality-dashboard",
    "description": "Run ruff and pytest, stream findings to a dashboard, and publish a code "
    "quality report with the hotspots to fix first.",
    "when_to_use": "Weekly health check of a Python repository, or before planning a cleanup sprint.",
    "phases": [
        {"title": "Collect signals", "detail": "ruff, pytest and a TODO count, streamed to the dashboard."},
        {"title": "Find hotspots", "detail": "An analyst ranks the files where fixes pay off most."},
        {"title": "Publish the report", "detail": "Write the Markdown report and publish it."},
    ],
}

artifact.table("findings", {"title": "Lint findings", "sort_by": "severity",
                             "columns": ["path", "line", "rule", "severity", "message"]})
artifact.metrics("health", {"title": "Code health", "metrics": [
    "lint_findings", "high_severity", "tests_failed", "tests_passed", "todos"]})


class Hotspot(TypedDict):
    path: str
    why: str
    effort: Literal["small", "medium", "large"]
    first_fix: str


# path:line:column: RULE message, as printed by `ruff check --output-format concise`.
RUFF_LINE = r"^([^:\s]+):(\d+):\d+: ([A-Z]+\d+) (.*)$"
MAX_REPORTED = 150


def severity(rule):
    if rule.startswith(("F", "E9", "S")):
        return "high"
    if rule.startswith(("B", "PL", "ASYNC")):
        return "medium"
    return "low"


def count(pattern, text):
    found = re.findall(pattern, text)
    return int(found[0]) if found else 0


phase("Collect signals")
findings = []
try:
    lint = await world.run("ruff", ["check", ".", "--output-format", "concise", "--exit-zero"])
    for line in lint.stdout.splitlines():
        for path, line_no, rule, message in re.findall(RUFF_LINE, line):
            findings.append({"path": path, "line": int(line_no), "rule": rule,
                             "severity": severity(rule), "message": message})
except WorldError as err:
    log(f"ruff is not available, skipping lint: {err}")

rank = {"high": 0, "medium": 1, "low": 2}
findings = sorted(findings, key=lambda f: (rank[f["severity"]], f["path"], f["line"]))
for f in findings[:MAX_REPORTED]:
    report(f, artifact="findings")
if len(findings) > MAX_REPORTED:
    log(f"Showing {MAX_REPORTED} of {len(findings)} findings in the dashboard")

tests = await world.run("pytest", ["-q", "--no-header", "-p", "no:cacheprovider"], timeout_s=1800)
summary = tests.stdout.strip().splitlines()[-1] if tests.stdout.strip() else ""
todos = await files.grep(r"\b(TODO|FIXME|XXX)\b", glob="**/*.py")
health = {
    "lint_findings": len(findings),
    "high_severity": sum(1 for f in findings if f["severity"] == "high"),
    "tests_failed": count(r"(\d+) failed", summary) + count(r"(\d+) error", summary),
    "tests_passed": count(r"(\d+) passed", summary),
    "todos": len(todos),
}
report(health, artifact="health")

phase("Find hotspots")
per_file = {}
for f in findings:
    per_file[f["path"]] = per_file.get(f["path"], 0) + 1
for t in todos:
    per_file[t.path] = per_file.get(t.path, 0) + 1
worst = sorted(per_file, key=lambda p: -per_file[p])[:15]
hotspots = await agent("analyst", system="You are a pragmatic tech lead planning a cleanup.").ask(
    "Files with the most lint findings and TODOs (path: count):\n"
    + "\n".join(f"{p}: {per_file[p]}" for p in worst)
    + f"\n\nTest summary: {summary or 'no output'}\n"
    "Look at these files and pick at most 5 hotspots where a fix pays off most. For each, "
    "say why, estimate the effort, and name the first concrete fix.",
    returns=list[Hotspot], label="rank hotspots",
)

phase("Publish the report")
sprint_days = math.ceil(sum({"small": 0.5, "medium": 2, "large": 5}[h["effort"]] for h in hotspots))
report_md = await agent("report-writer", system="You write crisp engineering reports in Markdown.").ask(
    f"Write a one-page code quality report.\nHealth numbers: {json.dumps(health)}\n"
    f"Hotspots: {json.dumps(hotspots, indent=2)}\nEstimated cleanup: {sprint_days} engineer-days.\n"
    "Sections: Summary (3 bullets), Hotspots (a table), Suggested next sprint. No preamble.",
    label="write report",
)
ref = await artifact.markdown("quality-report", report_md, title="Code quality report",
                              description="Lint, tests and TODOs, with hotspots.", primary=True)

return {"health": health, "hotspots": [h["path"] for h in hotspots], "report": ref}
