"""Review each file changed since a base ref in parallel, report high-severity findings, summarize."""
from typing import Literal, TypedDict

meta = {
    "name": "review-changed-files",
    "description": "Review every file changed since a base ref in parallel and summarize the findings.",
    "when_to_use": "Before opening a pull request.",
    "args": {
        "base": {"type": "string", "description": "Base ref to diff against.", "default": "v2.4.0"},
        "max_files": {"type": "integer", "description": "Review at most this many files.", "default": 40},
    },
    "phases": [
        {"title": "Collect changes"},
        {"title": "Review"},
        {"title": "Summarize"},
    ],
}


class Finding(TypedDict):
    """One problem found in a file."""
    line: int
    "1-based line number."
    severity: Literal["low", "medium", "high"]
    title: str
    explanation: str


class FileReview(TypedDict):
    path: str
    findings: list[Finding]
    verdict: Literal["approve", "request-changes"]


REVIEWABLE = (".py", ".toml", ".md", ".json", ".cfg", ".ini", ".yaml", ".yml")

phase("Collect changes")
base = args["base"]
changed = await git.changed_files(base)
to_review = [p for p in changed if p.endswith(REVIEWABLE)][: args["max_files"]]
log(f"{len(changed)} files changed since {base}; reviewing {len(to_review)}")
if not to_review:
    return {"base": base, "files": 0, "high": [], "summary": "Nothing to review."}


async def review(path):
    try:
        diff = await git.diff(base, path)
    except WorldError as error:
        log(f"could not diff {path}: {error}")
        diff = ""
    reviewer = agent(f"reviewer-{path}", system="You are a careful senior code reviewer. Report real problems only.")
    return await reviewer.ask(
        f"Review the changes to `{path}` since `{base}`. Read the file for context.\n"
        f"Diff:\n```diff\n{diff[:30000]}\n```\n"
        f"Set `path` to `{path}`.",
        returns=FileReview,
        label=f"review {path}",
    )


phase("Review")
reviews = await parallel(review(p) for p in to_review)

high = []
failed = []
counts = {"low": 0, "medium": 0, "high": 0}
for path, r in zip(to_review, reviews):
    if r is None:
        failed.append(path)
        continue
    for f in r["findings"]:
        counts[f["severity"]] += 1
        if f["severity"] == "high":
            item = {"path": path, "line": f["line"], "title": f["title"], "explanation": f["explanation"]}
            high.append(item)
            report(item)

phase("Summarize")
lines = []
for path, r in zip(to_review, reviews):
    if r is None:
        continue
    for f in r["findings"]:
        lines.append(f"- [{f['severity']}] {path}:{f['line']} {f['title']}")
findings_text = "\n".join(lines) or "(no findings)"
try:
    summary = await agent("lead", system="You write concise review summaries.").ask(
        f"Summarize this review of {len(to_review)} files changed since {base} in a short paragraph, "
        f"highlighting the high-severity problems first.\n{findings_text[:20000]}"
    )
except AskFailed as error:
    summary = f"Summary unavailable ({error}). {counts['high']} high, {counts['medium']} medium, {counts['low']} low findings."

return {
    "base": base,
    "files": len(to_review),
    "counts": counts,
    "high": high,
    "failed_reviews": failed,
    "needs_changes": [p for p, r in zip(to_review, reviews) if r is not None and r["verdict"] == "request-changes"],
    "summary": summary,
}
