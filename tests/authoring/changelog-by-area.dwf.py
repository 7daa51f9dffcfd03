"""Collect the commits since a tag, group them by area, and have an agent write changelog notes per area."""
import itertools
import re
from typing import TypedDict

meta = {
    "name": "changelog-by-area",
    "description": "Group the commits since a release tag by area and write changelog notes for each area.",
    "when_to_use": "When preparing release notes.",
    "args": {
        "tag": {"type": "string", "description": "The last release tag.", "default": "v2.4.0"},
        "version": {"type": "string", "description": "The version being released.", "default": "Unreleased"},
    },
    "phases": [
        {"title": "Collect commits"},
        {"title": "Write notes"},
        {"title": "Assemble"},
    ],
}


class AreaNotes(TypedDict):
    area: str
    bullets: list[str]
    "User-facing changelog entries, one sentence each."


AREA_RE = re.compile(r"^(?P<type>\w+)(?:\((?P<scope>[^)]+)\))?!?:\s*(?P<rest>.*)$")

tag = args["tag"]

phase("Collect commits")
try:
    rev = await world.run("git", ["rev-parse", f"{tag}^{{commit}}"])
except WorldError as error:
    raise WorkflowError(f"git rev-parse failed: {error}") from error
if rev.exit_code != 0:
    raise WorkflowError(f"unknown tag {tag}: {rev.stderr.strip()}")
tag_hash = rev.stdout.strip()

log_entries = await git.log(100)
commits = []
for c in log_entries:
    if c.hash == tag_hash or tag_hash.startswith(c.hash) or c.hash.startswith(tag_hash):
        break
    commits.append(c)
else:
    log(f"{tag} not found in the last {len(log_entries)} commits; using all of them")
log(f"{len(commits)} commits since {tag}")
if not commits:
    return {"tag": tag, "commits": 0, "areas": {}}


def area_of(subject):
    m = AREA_RE.match(subject)
    if m and m["scope"]:
        return m["scope"].lower()
    if m:
        return m["type"].lower()
    if ":" in subject:
        return subject.split(":", 1)[0].strip().lower()
    return "other"


rows = [{"hash": c.hash[:10], "subject": c.subject, "author": c.author, "area": area_of(c.subject)} for c in commits]
rows.sort(key=lambda r: r["area"])
by_area = {area: list(group) for area, group in itertools.groupby(rows, key=lambda r: r["area"])}
for area, group in by_area.items():
    report({"area": area, "commits": len(group)})

phase("Write notes")
areas = sorted(by_area)
notes = await parallel(
    agent(f"writer-{area}", system="You write concise, user-facing changelog entries.").ask(
        f"Write changelog entries for the `{area}` area of tasktool from these commits since {tag}. "
        "Inspect the commits with git if the subjects are unclear. Skip purely internal changes.\n"
        + "\n".join(f"- {r['hash']} {r['subject']} ({r['author']})" for r in by_area[area])
        + f"\nSet `area` to `{area}`.",
        returns=AreaNotes,
        label=f"notes for {area}",
    )
    for area in areas
)

phase("Assemble")
md = [f"# {args['version']}", "", f"Changes since {tag}.", ""]
missing = []
for area, n in zip(areas, notes):
    if n is None:
        missing.append(area)
        bullets = [r["subject"] for r in by_area[area]]
    else:
        bullets = n["bullets"]
    if not bullets:
        continue
    md.append(f"## {area.capitalize()}")
    md.extend(f"- {b}" for b in bullets)
    md.append("")
changelog = "\n".join(md)
ref = await artifact.markdown("changelog", changelog, title=f"Changelog {args['version']}", primary=True)

return {
    "tag": tag,
    "commits": len(commits),
    "areas": {a: len(g) for a, g in by_area.items()},
    "fallback_areas": missing,
    "changelog": changelog,
    "artifact": ref.id,
}
