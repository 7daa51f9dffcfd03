"""Derive a CODEOWNERS file from git history."""
from collections import Counter, defaultdict

meta = {
    "name": "code-owners",
    "description": "Map each source file to the people who changed it and publish a CODEOWNERS proposal.",
    "args": {
        "glob": {"type": "string", "default": "src/**/*.py"},
        "max_owners": {"type": "integer", "description": "Owners listed per file.", "default": 2},
        "emails": {"type": "json", "description": "Optional map of author name to handle.", "default": {}},
    },
}

phase("History")
paths = await files.glob(args["glob"])
if not paths:
    raise WorkflowError(f"no files match {args['glob']}")


async def authors_of(path):
    result = await world.run("git", ["log", "--format=%an", "--follow", "--", path])
    if result.exit_code != 0:
        raise WorldError(f"git log failed for {path}: {result.stderr.strip()}")
    return [line.strip() for line in result.stdout.splitlines() if line.strip()]


histories = await parallel(authors_of(p) for p in paths)

owners = defaultdict(set)
commit_counts = defaultdict(Counter)
for path, authors in zip(paths, histories):
    if authors is None:
        log(f"no history for {path}")
        continue
    for author in authors:
        owners[path].add(author)
        commit_counts[path][author] += 1

phase("CODEOWNERS")


def handle(author):
    mapped = args["emails"].get(author)
    return mapped if mapped else "@" + author.lower().replace(" ", "-")


lines = ["# CODEOWNERS proposal", "", "Generated from `git log`; the most active authors own each file.", "", "```"]
table = []
for path in sorted(owners):
    top = [a for a, _ in commit_counts[path].most_common(args["max_owners"])]
    lines.append(f"/{path} " + " ".join(handle(a) for a in top))
    table.append({"path": path, "owners": top, "authors": sorted(owners[path])})
lines.append("```")

everyone = Counter()
for counts in commit_counts.values():
    everyone.update(counts)
lines.append("")
lines.append("## Authors by commits touching these files")
lines.append("")
for author, n in everyone.most_common():
    lines.append(f"- {author}: {n}")

unowned = [p for p in paths if p not in owners]
if unowned:
    lines.append("")
    lines.append("## Files without history")
    lines.extend(f"- `{p}`" for p in unowned)

ref = await artifact.markdown("codeowners", "\n".join(lines) + "\n", title="CODEOWNERS", primary=True)
return {"files": len(paths), "owned": len(table), "unowned": unowned, "owners": table}
