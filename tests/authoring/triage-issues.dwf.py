"""Triage the exported open issues: classify each one, check suspected code, and draft a triage note."""
from typing import Literal, Optional, TypedDict

import json

meta = {
    "name": "triage-open-issues",
    "description": "Classify every open issue of an export, confirm the suspected code, and publish a triage note.",
    "when_to_use": "Before a planning meeting, when the issue export has new untriaged issues.",
    "args": {
        "issues_file": {"type": "string", "description": "JSON export of the open issues.",
                        "default": "triage/open-issues.json"},
        "max_issues": {"type": "integer", "description": "Triage at most this many issues.", "default": 20},
    },
    "phases": [
        {"title": "Load issues"},
        {"title": "Triage"},
        {"title": "Confirm suspects"},
        {"title": "Write the note"},
    ],
}


class Triage(TypedDict):
    kind: Literal["bug", "feature", "question", "docs", "chore"]
    severity: Literal["critical", "major", "minor"]
    component: str
    suspected_files: list[str]
    duplicate_of: Optional[int]
    needs_more_info: bool
    summary: str


class Confirmation(TypedDict):
    confirmed: bool
    evidence: str


phase("Load issues")
raw = await files.read(args["issues_file"])
try:
    issues = json.loads(raw)
except ValueError as error:
    raise WorkflowError(f"{args['issues_file']} is not valid JSON: {error}")
components = sorted({p.split("/")[1] for p in await files.glob("src/*/__init__.py")})
issues = [i for i in issues if "chore" not in [label["name"] for label in i.get("labels", [])]]
issues = issues[: args["max_issues"]]
titles = "\n".join(f"#{i['number']}: {i['title']}" for i in issues)
log(f"{len(issues)} issues to triage; components: {', '.join(components)}")

phase("Triage")
triages = await parallel(
    agent(f"triager-{issue['number']}", system="You triage bug reports for a small Python CLI project.").ask(
        f"Issue #{issue['number']}: {issue['title']}\n\n{issue.get('body', '')[:4000]}\n\n"
        f"Comments: {json.dumps(issue.get('comments', []))[:2000]}\n\n"
        f"Pick the component from: {', '.join(components)} (or 'unknown'). List the source files you "
        f"suspect, if any. Other open issues, for duplicates:\n{titles}",
        returns=Triage,
        label=f"triage #{issue['number']}",
    )
    for issue in issues
)

triaged = []
for issue, t in zip(issues, triages):
    if t is None:
        log(f"could not triage #{issue['number']}")
        continue
    row = {"number": issue["number"], "title": issue["title"], "kind": t["kind"], "severity": t["severity"],
           "component": t["component"] if t["component"] in components else "unknown",
           "suspects": t["suspected_files"], "duplicate_of": t["duplicate_of"],
           "needs_more_info": t["needs_more_info"], "summary": t["summary"]}
    triaged.append(row)
    report(row)

phase("Confirm suspects")
to_confirm = [r for r in triaged if r["kind"] == "bug" and r["severity"] != "minor" and r["suspects"]]
sources = {}
for r in to_confirm:
    for path in r["suspects"][:3]:
        if path not in sources:
            try:
                sources[path] = await files.read(path)
            except WorldError as error:
                log(f"#{r['number']}: cannot read {path}: {error}")
confirmations = await parallel(
    agent(f"checker-{r['number']}", system="You confirm bug reports by reading code. Do not edit files.").ask(
        f"Bug #{r['number']}: {r['summary']}\n\n"
        + "\n\n".join(f"--- {p}\n{sources[p][:8000]}" for p in r["suspects"][:3] if p in sources)
        + "\n\nDoes this code explain the bug? Quote the lines that do.",
        returns=Confirmation,
        label=f"confirm #{r['number']}",
    )
    for r in to_confirm
)
confirmed = [r["number"] for r, c in zip(to_confirm, confirmations) if c is not None and c["confirmed"]]

phase("Write the note")
by_component = {}
for r in triaged:
    by_component[r["component"]] = by_component.get(r["component"], 0) + 1
note = await agent("triage-writer", system="You write short, factual triage notes in Markdown.").ask(
    f"Write the triage note for this week.\nTriaged issues (JSON):\n{json.dumps(triaged, indent=2)}\n"
    f"Bugs confirmed in the code: {confirmed or 'none'}\n"
    "Sections: Critical first, Duplicates to close, Needs more info, Everything else (one line each).",
    label="triage note",
)
ref = await artifact.markdown("triage-note", note, title="Weekly triage", primary=True)

return {
    "triaged": len(triaged),
    "failed": len(issues) - len(triaged),
    "by_component": by_component,
    "critical": [r["number"] for r in triaged if r["severity"] == "critical"],
    "duplicates": [r["number"] for r in triaged if r["duplicate_of"] is not None],
    "confirmed": confirmed,
    "note": ref,
}
