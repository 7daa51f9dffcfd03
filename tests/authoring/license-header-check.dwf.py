"""Check that every source file starts with a license header and draft the missing ones."""
from typing import TypedDict

import itertools
import re

meta = {
    "name": "license-header-check",
    "description": "Check source files for a license header and have an agent draft headers for the files without one.",
    "args": {
        "globs": {"type": "json", "default": ["src/**/*.py", "tests/**/*.py"]},
        "license": {"type": "string", "description": "SPDX identifier expected in the header.", "default": "MIT"},
        "batch_size": {"type": "integer", "default": 10},
        "header_lines": {"type": "integer", "description": "How many leading lines to inspect.", "default": 5},
    },
    "phases": [{"title": "Scan"}, {"title": "Draft headers"}, {"title": "Report"}],
}


class DraftedHeader(TypedDict):
    path: str
    header: str


SPDX = re.compile(r"SPDX-License-Identifier:\s*(\S+)")

phase("Scan")
paths = []
for pattern in args["globs"]:
    for p in await files.glob(pattern):
        if p not in paths:
            paths.append(p)


async def header_of(path):
    text = await files.read(path)
    head = text.splitlines()[: args["header_lines"]]
    if head and head[0].startswith("#!"):
        head = head[1:]
    return "\n".join(head)


heads = await parallel(header_of(p) for p in paths)

ok, wrong, missing, unreadable = [], [], [], []
for path, head in zip(paths, heads):
    if head is None:
        unreadable.append(path)
        continue
    m = SPDX.search(head)
    if m and m.group(1) == args["license"]:
        ok.append(path)
    elif m:
        wrong.append({"path": path, "found": m.group(1)})
    elif "copyright" in head.lower() or "license" in head.lower():
        ok.append(path)
    else:
        missing.append(path)
log(f"{len(paths)} files: {len(ok)} ok, {len(wrong)} wrong license, {len(missing)} missing")

phase("Draft headers")
drafts = {}
if missing:
    batches = list(itertools.batched(missing, args["batch_size"]))
    results = await parallel(
        agent(f"header-writer-{n}", system="You write concise license headers for source files.").ask(
            f"Draft a license header for each of these files, using `# SPDX-License-Identifier: {args['license']}` "
            f"and one copyright line. Look at each file to match its comment style.\n"
            + "\n".join(f"- {p}" for p in batch),
            returns=list[DraftedHeader], label=f"headers batch {n + 1}/{len(batches)}")
        for n, batch in enumerate(batches)
    )
    for batch, result in zip(batches, results):
        if result is None:
            log(f"no drafts for batch starting at {batch[0]}")
            continue
        for d in result:
            if d["path"] in missing:
                drafts[d["path"]] = d["header"]

phase("Report")
total = len(paths)


def pct(n):
    return "%.1f%%" % (100.0 * n / total) if total else "n/a"


summary = "%d files checked: %d with header (%s), %d wrong license (%s), %d missing (%s), %d drafted" % (
    total, len(ok), pct(len(ok)), len(wrong), pct(len(wrong)), len(missing), pct(len(missing)), len(drafts))
log(summary)
for w in wrong:
    report({"path": w["path"], "problem": "wrong license", "found": w["found"]})
for p in missing:
    report({"path": p, "problem": "missing header", "drafted": p in drafts})

md = ["# License headers", "", summary, ""]
if drafts:
    md.append("## Drafted headers")
    for p in sorted(drafts):
        md += ["", f"### `{p}`", "", "```", drafts[p].rstrip(), "```"]
await artifact.markdown("license-headers", "\n".join(md) + "\n", title="License headers", primary=True)

return {
    "files": total,
    "ok": len(ok),
    "wrong": wrong,
    "missing": missing,
    "drafted": len(drafts),
    "unreadable": unreadable,
    "coverage": pct(len(ok)),
}
