"""Draft release notes from the commits since the last tag, with migration notes for breaking changes.

The script finds the last tag with `git describe`, walks `git.log` back to it, parses
Conventional Commit subjects with a regular expression, asks a classifier only about the commits
that do not follow the convention, and has a release writer draft the notes. Breaking changes get
the diff of the public API attached so the writer can describe the migration precisely.

Language features shown: `git.log` records (`c.hash`, `c.subject`, `c.author`), `git.diff` with
a base and a path, `world.run("git", [...])` with computed arguments, `re.findall` with groups,
`json.dumps`, an ask made only when needed (inside an `if`), `label=` on every ask, and an
`artifact.markdown` deliverable.
"""
from typing import Literal, TypedDict

import json
import re

meta = {
    "name": "release-notes",
    "description": "Draft user-facing release notes from the commits since the last tag.",
    "when_to_use": "When cutting a release, before editing the changelog by hand.",
    "args": {
        "version": {"type": "string", "description": "Version being released, e.g. 2.6.0.", "default": "next"},
        "api_path": {"type": "string", "description": "Public API folder, diffed for breaking changes.",
                     "default": "src"},
    },
    "phases": [
        {"title": "Collect commits", "detail": "Find the last tag, walk the log, parse commit subjects."},
        {"title": "Draft the notes", "detail": "Write and publish the release notes."},
    ],
}

class Classified(TypedDict):
    commit: str
    "The abbreviated hash, exactly as given."
    kind: Literal["feature", "fix", "performance", "docs", "internal"]
    breaking: bool
    user_facing_summary: str


CONVENTIONAL = r"^(feat|fix|perf|refactor|docs|test|build|ci|chore)(?:\(([^)]*)\))?(!?): (.+)$"
KIND_OF = {"feat": "feature", "fix": "fix", "perf": "performance", "docs": "docs"}

phase("Collect commits")
described = await world.run("git", ["describe", "--tags", "--abbrev=0"])
last_tag = described.stdout.strip() if described.exit_code == 0 else ""
stop_at = ""
if last_tag:
    resolved = await world.run("git", ["rev-list", "-n", "1", last_tag])
    stop_at = resolved.stdout.strip()

history = await git.log(100)
entries = []
free_form = []
for c in history:
    if c.hash == stop_at:
        break
    if c.subject.startswith("Merge "):
        continue
    parsed = re.findall(CONVENTIONAL, c.subject)
    if parsed:
        prefix, scope, bang, text = parsed[0]
        entries.append({"hash": c.hash[:10], "kind": KIND_OF.get(prefix, "internal"),
                        "scope": scope, "breaking": bang == "!", "summary": text, "author": c.author})
    else:
        free_form.append({"hash": c.hash[:10], "subject": c.subject, "author": c.author})
log(f"{len(entries) + len(free_form)} commits since {last_tag or 'the beginning'}; "
    f"{len(free_form)} without a conventional subject")

if free_form:
    classified = await agent("commit-classifier", system="You sort commits for release notes.").ask(
        "Classify these commits. Read a commit with `git show <hash>` when the subject is "
        "unclear. Mark a commit breaking only if users must change their code or config.\n"
        f"{json.dumps(free_form, indent=2)}",
        returns=list[Classified],
        label=f"classify {len(free_form)} free-form commits",
    )
    for c in classified:
        entries.append({"hash": c["commit"], "kind": c["kind"], "scope": "",
                        "breaking": c["breaking"], "summary": c["user_facing_summary"], "author": ""})

phase("Draft the notes")
breaking = [e for e in entries if e["breaking"]]
api_diff = ""
if breaking:
    api_diff = await git.diff(last_tag or None, args["api_path"])
grouped = {}
for e in entries:
    if e["kind"] != "internal":
        grouped.setdefault(e["kind"], []).append(e)
notes = await agent(
    "release-writer",
    system="You write release notes for users, not for the team: what changed for them and "
    "what they must do. No commit hashes in the prose.",
).ask(
    f"Write the release notes for version {args['version']} in Markdown.\n"
    f"Changes by kind (JSON):\n{json.dumps(grouped, indent=2)}\n\n"
    f"Breaking changes:\n{json.dumps(breaking, indent=2)}\n"
    f"Public API diff since {last_tag or 'the first commit'}:\n{api_diff[:40000]}\n\n"
    "Start with a two-sentence highlight, then sections: Breaking changes (with a migration "
    "snippet for each), Features, Fixes, Performance. Omit empty sections.",
    label=f"draft notes for {args['version']}",
)
ref = await artifact.markdown("release-notes", notes, title=f"Release notes {args['version']}",
                              primary=True)

return {
    "version": args["version"],
    "since": last_tag,
    "commits": len(entries),
    "breaking": len(breaking),
    "internal": sum(1 for e in entries if e["kind"] == "internal"),
    "notes": ref,
}
