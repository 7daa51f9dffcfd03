"""Compare the public API between a tag and HEAD, classify breaking changes, publish a Markdown report."""
import re
from typing import Literal, TypedDict

meta = {
    "name": "api-breaks",
    "description": "Diff the public API of the package between a release tag and HEAD and classify breaking changes.",
    "when_to_use": "Before cutting a release, to choose the version bump.",
    "args": {
        "tag": {"type": "string", "description": "The previous release tag.", "default": "v2.4.0"},
        "package_glob": {"type": "string", "default": "src/**/*.py"},
    },
    "phases": [
        {"title": "Diff"},
        {"title": "Classify"},
        {"title": "Publish"},
    ],
}


class Change(TypedDict):
    symbol: str
    path: str
    kind: Literal["breaking", "addition", "deprecation", "internal"]
    description: str
    migration: str
    "How callers should adapt; empty if nothing to do."


class ApiReport(TypedDict):
    changes: list[Change]
    recommended_bump: Literal["major", "minor", "patch"]
    summary: str


DEF_RE = re.compile(r"^[+-]\s*(?:async\s+)?(def|class)\s+([A-Za-z]\w*)\s*(\(.*)?", re.MULTILINE)

tag = args["tag"]

phase("Diff")
changed = [p for p in await git.changed_files(tag) if p.startswith("src/") and p.endswith(".py")]
current = await files.glob(args["package_glob"])
log(f"{len(changed)} source files changed since {tag}")

diffs = {}
signatures = {}
for path in changed:
    try:
        d = await git.diff(tag, path)
    except WorldError as error:
        log(f"no diff for {path}: {error}")
        continue
    if not d.strip():
        continue
    diffs[path] = d
    # public definitions touched by the diff (names not starting with an underscore)
    touched = []
    for kind, name, rest in DEF_RE.findall(d):
        if not name.startswith("_"):
            touched.append(f"{kind} {name}{rest or ''}".strip())
    signatures[path] = touched

removed_files = [p for p in changed if p not in current]

if not diffs:
    await artifact.markdown("api-breaks", f"# API changes since {tag}\n\nNo source changes.\n", title="API changes", primary=True)
    return {"tag": tag, "breaking": [], "bump": "patch"}

phase("Classify")
sections = []
for path, d in diffs.items():
    sig = "\n".join(signatures[path]) or "(no def/class lines touched)"
    sections.append(f"### {path}\nTouched public definitions:\n{sig}\n\n```diff\n{d[:12000]}\n```")
material = "\n\n".join(sections)
removed_note = f"Files removed since {tag}: {', '.join(removed_files)}\n" if removed_files else ""

analyst = agent("api-analyst", system="You are a maintainer who judges semantic-versioning impact of API changes.")
try:
    result = await analyst.ask(
        f"Here are the source changes between `{tag}` and HEAD. {removed_note}"
        "The public API is every name without a leading underscore in src/tasktool. "
        "Classify each change to the public API (ignore purely internal edits unless they change behaviour "
        "callers depend on), and recommend the version bump.\n\n" + material[:60000],
        returns=ApiReport,
    )
except AskFailed as error:
    raise WorkflowError(f"classification failed: {error}") from error

breaking = [c for c in result["changes"] if c["kind"] == "breaking"]
for c in breaking:
    report({"symbol": c["symbol"], "path": c["path"], "description": c["description"]})

phase("Publish")
order = ["breaking", "deprecation", "addition", "internal"]
headings = {"breaking": "Breaking changes", "deprecation": "Deprecations", "addition": "Additions", "internal": "Internal changes"}
md = [f"# API changes since {tag}", "", f"Recommended bump: **{result['recommended_bump']}**", "", result["summary"], ""]
for kind in order:
    group = [c for c in result["changes"] if c["kind"] == kind]
    if not group:
        continue
    md.append(f"## {headings[kind]}")
    md.append("")
    md.append("| Symbol | File | Change | Migration |")
    md.append("|---|---|---|---|")
    for c in sorted(group, key=lambda c: (c["path"], c["symbol"])):
        desc = c["description"].replace("|", "\\|").replace("\n", " ")
        mig = (c["migration"] or "-").replace("|", "\\|").replace("\n", " ")
        md.append(f"| `{c['symbol']}` | `{c['path']}` | {desc} | {mig} |")
    md.append("")
ref = await artifact.markdown("api-breaks", "\n".join(md), title=f"API changes since {tag}", primary=True)

return {
    "tag": tag,
    "files": sorted(diffs),
    "breaking": [c["symbol"] for c in breaking],
    "bump": result["recommended_bump"],
    "artifact": ref.id,
}
