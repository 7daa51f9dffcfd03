"""Audit the clarity of error messages raised in src/."""
from typing import Literal, TypedDict

import re
from collections import defaultdict

meta = {
    "name": "error-message-audit",
    "description": "Find raised exceptions in src/, rate the clarity of each message and report the unclear ones.",
    "args": {
        "glob": {"type": "string", "default": "src/**/*.py"},
        "batch_size": {"type": "integer", "default": 20},
    },
    "phases": [{"title": "Collect"}, {"title": "Rate"}, {"title": "Report"}],
}


class Rating(TypedDict):
    index: int
    rating: Literal["clear", "vague", "misleading", "missing-context"]
    suggestion: str


RAISE = re.compile(r"raise\s+(\w+Error)\((.*)\)")
STRING = re.compile(r"""[fbr]*(["'])(.*?)\1""")

phase("Collect")
matches = await files.grep(r"raise .*Error\(", glob=args["glob"])
raises = []
for m in matches:
    found = RAISE.search(m.text)
    if not found:
        continue
    exc, inner = found.group(1), found.group(2)
    s = STRING.search(inner)
    message = s.group(2) if s else inner.strip()
    raises.append({"path": m.path, "line": m.line, "exception": exc, "message": message})
log(f"{len(raises)} raise statements with messages in {len({r['path'] for r in raises})} files")

if not raises:
    return {"raises": 0, "bad": {}}

phase("Rate")
batches = [raises[i:i + args["batch_size"]] for i in range(0, len(raises), args["batch_size"])]


def prompt_for(batch, offset):
    rows = "\n".join(
        f"{offset + i}. {r['path']}:{r['line']} {r['exception']}: {r['message']!r}" for i, r in enumerate(batch)
    )
    return (
        "Rate each error message for a user who sees it without reading the code. "
        "Return one rating per numbered message, using its number as index.\n\n" + rows
    )


ratings_per_batch = await parallel(
    agent(f"reviewer-{n}", system="You review error messages for clarity.").ask(
        prompt_for(batch, n * args["batch_size"]), returns=list[Rating], label=f"rate batch {n + 1}")
    for n, batch in enumerate(batches)
)

ratings = {}
for batch_ratings in ratings_per_batch:
    if batch_ratings is None:
        continue
    for r in batch_ratings:
        ratings[r["index"]] = r

phase("Report")
bad_by_file = defaultdict(list)
unrated = 0
for i, r in enumerate(raises):
    rating = ratings.get(i)
    if rating is None:
        unrated += 1
        continue
    if rating["rating"] != "clear":
        entry = {**r, "rating": rating["rating"], "suggestion": rating["suggestion"]}
        bad_by_file[r["path"]].append(entry)
        report(entry)

lines = ["# Error message audit", ""]
for path in sorted(bad_by_file):
    lines.append(f"## `{path}`")
    lines.append("")
    for e in bad_by_file[path]:
        lines.append(f"- line {e['line']} `{e['exception']}` ({e['rating']}): {e['message']!r} → {e['suggestion']}")
    lines.append("")
if not bad_by_file:
    lines.append("All rated messages are clear.")
await artifact.markdown("error-audit", "\n".join(lines), title="Error message audit", primary=True)

return {
    "raises": len(raises),
    "rated": len(raises) - unrated,
    "bad": {path: len(entries) for path, entries in sorted(bad_by_file.items())},
}
