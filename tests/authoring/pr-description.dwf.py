"""Write a pull-request description from the diff and the log since a base."""
from typing import TypedDict

meta = {
    "name": "pr-description",
    "description": "Draft a pull-request description (title, summary, risks) from the diff and commits since a base.",
    "args": {
        "base": {"type": "string", "description": "Base ref to compare against.", "default": "main"},
    },
    "phases": [{"title": "Collect changes"}, {"title": "Describe"}, {"title": "Publish"}],
}


class PRDescription(TypedDict):
    title: str
    summary: str
    risks: list[str]


base = args["base"]

phase("Collect changes")
try:
    diff = await git.diff(base)
except WorldError as error:
    raise WorkflowError(f"cannot diff against {base}: {error}")
log_result = await world.run("git", ["log", "--oneline", "--no-decorate", f"{base}..HEAD"])
if log_result.exit_code != 0:
    raise WorkflowError(f"git log failed: {log_result.stderr.strip()}")
commits = [line for line in log_result.stdout.splitlines() if line.strip()]
changed = await git.changed_files(base)
log(f"{len(commits)} commits, {len(changed)} files changed since {base}")

if not diff.strip() and not commits:
    return {"status": "no-changes", "base": base}

phase("Describe")
commit_text = "\n".join(commits[:100])
file_text = "\n".join(f"- {p}" for p in changed)
writer = agent("pr-writer", system="You write clear, honest pull-request descriptions.")
try:
    description = await writer.ask(
        f"Write a pull-request description for the changes since `{base}`.\n\n"
        f"Commits:\n{commit_text}\n\nChanged files:\n{file_text}\n\n"
        f"Diff (possibly truncated):\n{diff[:40000]}\n\n"
        "The title is at most 72 characters; the summary is a few sentences of Markdown; "
        "risks lists what a reviewer should look at carefully (may be empty).",
        returns=PRDescription,
    )
except AskFailed as error:
    raise WorkflowError(f"the writer could not produce a description: {error}")

phase("Publish")
risk_lines = "\n".join(f"- {r}" for r in description["risks"]) or "- None identified."
markdown = (
    f"# {description['title']}\n\n"
    f"{description['summary']}\n\n"
    f"## Risks\n\n{risk_lines}\n\n"
    f"## Commits\n\n" + "\n".join(f"- {c}" for c in commits) + "\n"
)
ref = await artifact.markdown("pr-description", markdown, title=description["title"], primary=True)

return {
    "status": "ok",
    "base": base,
    "title": description["title"],
    "risks": description["risks"],
    "commits": len(commits),
    "files": len(changed),
    "artifact": ref.id,
}
