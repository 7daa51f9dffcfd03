"""Review every file changed since a base ref, in parallel, and report the findings.

Each changed file gets its own reviewer actor (`f"reviewer-{path}"`), which sees the file's diff
and returns a typed `FileReview`; a lead reviewer then turns the serious findings into a verdict
for the pull request description.

Shows: an arg with a default, `git.changed_files`/`git.diff`, an `async def` helper fanned out
with `parallel()` (a failed review becomes `None`), per-item named actors, typed results
(`TypedDict`, `Literal` severity, `NotRequired`, field docstrings), `label=`, `report()` of
every finding, `json.dumps`, and top-level `return`.
"""
from typing import Literal, NotRequired, TypedDict

import json

meta = {
    "name": "review-changed-files",
    "description": "Review each changed file in parallel and report concrete findings by severity.",
    "when_to_use": "Before opening a pull request, or after a large refactor, to get a focused "
    "per-file review with line-level findings.",
    "args": {"base": {"type": "string", "description": "Git ref to diff against.", "default": "HEAD"}},
    "phases": [
        {"title": "Review changed files", "detail": "One reviewer per file returns typed findings."},
        {"title": "Summarize for the pull request", "detail": "A lead turns serious findings into a verdict."},
    ],
}


class Finding(TypedDict):
    """One concrete problem in a changed file."""
    line: int
    "1-based line number in the new version of the file."
    severity: Literal["low", "medium", "high", "critical"]
    category: Literal["bug", "security", "performance", "readability", "tests"]
    summary: str
    "One sentence a maintainer can act on."
    suggestion: NotRequired[str]
    "A minimal fix, as prose or a short code snippet."


class FileReview(TypedDict):
    """The verdict on one file."""
    verdict: Literal["approve", "comment", "request-changes"]
    findings: list[Finding]


SKIPPED_SUFFIXES = (".lock", ".min.js", ".svg", ".png", ".snap")
SEVERITY_RANK = {"critical": 0, "high": 1, "medium": 2, "low": 3}
REVIEWER = (
    "You are a senior engineer reviewing a pull request. Report real defects: wrong logic, "
    "unhandled errors, security holes, missing tests for new behaviour. Do not report style "
    "preferences that a formatter or linter would catch."
)


async def review(path):
    diff = await git.diff(args["base"], path)
    return await agent(f"reviewer-{path}", system=REVIEWER, tools=["read", "list", "grep"]).ask(
        f"Review the change to `{path}`. The diff against `{args['base']}` is:\n\n"
        f"{diff[:20000]}\n\n"
        "Open the file if you need more context. Give each finding the line number in the new "
        "version of the file. An empty findings list is a perfectly good answer.",
        returns=FileReview,
        label=f"review {path}",
    )


phase("Review changed files")
changed = await git.changed_files(args["base"])
paths = [p for p in changed if not p.endswith(SKIPPED_SUFFIXES) and not p.startswith("vendor/")]
if not paths:
    log(f"No reviewable changes against {args['base']}.")
    return {"files": 0, "findings": 0, "verdict": "approve"}

log(f"Reviewing {len(paths)} of {len(changed)} changed files")
reviews = await parallel(review(path) for path in paths)

findings = []
unreviewed = []
blocking_files = []
for path, file_review in zip(paths, reviews):
    if file_review is None:
        unreviewed.append(path)
        continue
    if file_review["verdict"] == "request-changes":
        blocking_files.append(path)
    for f in file_review["findings"]:
        findings.append({"path": path, "line": f["line"], "severity": f["severity"],
                         "category": f["category"], "summary": f["summary"]})

findings = sorted(findings, key=lambda f: (SEVERITY_RANK[f["severity"]], f["path"], f["line"]))
for item in findings[:200]:
    report(item)
if unreviewed:
    log(f"Review failed for {len(unreviewed)} files: {', '.join(unreviewed)}")

phase("Summarize for the pull request")
serious = [f for f in findings if f["severity"] in ("critical", "high")]
lead = agent("lead-reviewer", system="You write short, accurate pull request review summaries.")
summary = await lead.ask(
    f"{len(findings)} findings across {len(paths)} files; {len(serious)} are high or critical:\n"
    f"{json.dumps(serious, indent=2)}\n\n"
    f"Reviewers requested changes on: {', '.join(blocking_files) or 'no files'}.\n"
    "Write at most 8 lines for the PR description: what must be fixed before merging, and what "
    "can wait for a follow-up.",
    label="merge verdict",
)

return {
    "files": len(paths),
    "findings": len(findings),
    "serious": len(serious),
    "unreviewed": unreviewed,
    "verdict": "request-changes" if serious or blocking_files else "approve",
    "summary": summary,
}
