"""Draft release notes for the commits since the last tag, section by section, and update the changelog."""
from typing import Literal, TypedDict

import json
import re

meta = {
    "name": "draft-release-notes",
    "description": "Group the commits since the last tag, draft each section of the release notes, "
    "and have an editor update docs/changelog.md.",
    "when_to_use": "When preparing a release.",
    "args": {"version": {"type": "string", "description": "The version being released.", "required": True}},
    "phases": [
        {"title": "Collect commits"},
        {"title": "Draft sections"},
        {"title": "Update the changelog"},
    ],
}


class Commit(TypedDict):
    hash: str
    section: Literal["features", "fixes", "internal"]
    summary: str


SUBJECT = r"^(feat|fix|perf|docs|refactor|test|chore)(\([\w-]+\))?!?: (.+)$"
SECTION_OF = {"feat": "features", "fix": "fixes", "perf": "fixes"}

phase("Collect commits")
tag = await world.run("git", ["describe", "--tags", "--abbrev=0"])
if tag.exit_code != 0:
    raise WorkflowError(f"no tag to start from: {tag.stderr.strip()}")
last_tag = tag.stdout.strip()
since = await world.run("git", ["log", "--format=%h", f"{last_tag}..HEAD"])
new_hashes = since.stdout.split()
commits = [c for c in await git.log(100) if c.hash[:len(new_hashes[0])] in new_hashes] if new_hashes else []
log(f"{len(commits)} commits since {last_tag}")

entries = []
unclear = []
for c in commits:
    m = re.match(SUBJECT, c.subject)
    if m:
        entries.append({"hash": c.hash[:8], "section": SECTION_OF.get(m.group(1), "internal"),
                        "summary": m.group(3)})
    else:
        unclear.append({"hash": c.hash[:8], "subject": c.subject, "author": c.author})
if unclear:
    sorted_out = await agent("commit-sorter", system="You sort commits for release notes.").ask(
        "Sort each commit into features, fixes or internal, and restate it for users in one line. "
        f"Use `git show <hash>` if the subject is unclear.\n{json.dumps(unclear, indent=2)}",
        returns=list[Commit],
        label=f"sort {len(unclear)} commits",
    )
    entries += sorted_out

phase("Draft sections")
sections = {}
for e in entries:
    if e["section"] != "internal":
        sections.setdefault(e["section"], []).append(e)
names = sorted(sections)
drafts = await parallel(
    agent(f"writer-{name}", system="You write release notes for users: what changed for them.").ask(
        f"Write the '{name}' section of the {args['version']} release notes as Markdown bullets:\n"
        + "\n".join(f"- {e['summary']} ({e['hash']})" for e in sections[name]),
        label=f"draft {name}",
    )
    for name in names
)
notes = f"## {args['version']}\n\n"
for name, draft in zip(names, drafts):
    if draft is None:
        log(f"the {name} section could not be drafted")
        continue
    notes += f"### {name.capitalize()}\n\n{draft.strip()}\n\n"

phase("Update the changelog")
changelog = await files.read("docs/changelog.md")
if f"## {args['version']}" in changelog:
    log(f"docs/changelog.md already has a {args['version']} section; leaving it alone")
    edited = False
else:
    await agent("editor", system="You edit Markdown files carefully.").ask(
        f"Insert this section at the top of docs/changelog.md, below the title, unchanged:\n\n{notes}",
        label="update changelog",
    )
    edited = True
check = await git.diff(None, "docs/changelog.md")
ref = await artifact.markdown("release-notes", notes, title=f"Release notes {args['version']}", primary=True)

return {
    "version": args["version"],
    "since": last_tag,
    "commits": len(commits),
    "sections": {name: len(sections[name]) for name in names},
    "internal": len([e for e in entries if e["section"] == "internal"]),
    "changelog_edited": edited,
    "changelog_diff_lines": len(check.splitlines()),
    "notes": ref,
}
