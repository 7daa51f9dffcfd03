"""Read requirements and pyproject files, parse the version constraints, ask an agent about the risky ones."""
import re
from typing import Literal, Optional, TypedDict

meta = {
    "name": "dependency-audit",
    "description": "Parse the project's dependency declarations and have an agent assess the risky ones.",
    "when_to_use": "Periodically, or before a release.",
    "args": {
        "extra_files": {"type": "json", "description": "More requirement files to read.", "default": []},
    },
    "phases": [
        {"title": "Collect"},
        {"title": "Assess"},
        {"title": "Report"},
    ],
}


class Risk(TypedDict):
    name: str
    risk: Literal["none", "low", "medium", "high"]
    reason: str
    recommendation: Optional[str]


class Audit(TypedDict):
    risks: list[Risk]
    summary: str


REQ_RE = re.compile(
    r"^\s*(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(?P<spec>(?:[<>=!~]=?|===)\s*[^;#\s,]+(?:\s*,\s*(?:[<>=!~]=?|===)\s*[^;#\s,]+)*)?\s*(?:;(?P<marker>[^#]*))?"
)
QUOTED_RE = re.compile(r"""["']([^"']+)["']""")
SECTION_RE = re.compile(r"^\[([^\]]+)\]\s*$", re.MULTILINE)


def parse_requirement(line, source):
    line = line.split("#", 1)[0].strip()
    if not line or line.startswith(("-", "git+", "http")):
        return None
    m = REQ_RE.match(line)
    if not m:
        return None
    spec = (m["spec"] or "").replace(" ", "")
    return {
        "name": m["name"].lower().replace("_", "-"),
        "spec": spec,
        "pinned": spec.startswith("==") and "," not in spec,
        "unbounded": spec == "" or not any(op in spec for op in ("<", "==", "~=")),
        "marker": (m["marker"] or "").strip(),
        "source": source,
    }


def pyproject_requirements(text):
    """Pull dependency strings out of [project] dependencies and optional-dependencies."""
    reqs = []
    sections = SECTION_RE.split(text)
    # split gives [before, name1, body1, name2, body2, ...]
    for i in range(1, len(sections), 2):
        name, body = sections[i].strip(), sections[i + 1]
        if name == "project":
            m = re.search(r"^dependencies\s*=\s*\[(.*?)\]", body, re.MULTILINE | re.DOTALL)
            if m:
                reqs.extend((s, "project") for s in QUOTED_RE.findall(m[1]))
        elif name == "project.optional-dependencies" or name.startswith("dependency-groups"):
            for group, items in re.findall(r"^([\w-]+)\s*=\s*\[(.*?)\]", body, re.MULTILINE | re.DOTALL):
                reqs.extend((s, f"{name}:{group}") for s in QUOTED_RE.findall(items))
    return reqs


phase("Collect")
candidates = ["pyproject.toml"] + await files.glob("requirements*.txt") + await files.glob("requirements/*.txt") + list(args["extra_files"])
deps = []
read_files = []
for path in candidates:
    try:
        text = await files.read(path)
    except WorldError:
        continue
    read_files.append(path)
    if path.endswith(".toml"):
        entries = pyproject_requirements(text)
    else:
        entries = [(line, path) for line in text.splitlines()]
    for raw, source in entries:
        dep = parse_requirement(raw, source if path.endswith(".toml") else path)
        if dep is not None:
            deps.append(dep)

log(f"{len(deps)} dependencies in {len(read_files)} files")
if not deps:
    return {"files": read_files, "dependencies": 0, "risky": []}

phase("Assess")
table = "\n".join(
    f"- {d['name']} `{d['spec'] or '(any)'}`{' ; ' + d['marker'] if d['marker'] else ''} [{d['source']}]"
    + (" UNBOUNDED" if d["unbounded"] else "") + (" PINNED" if d["pinned"] else "")
    for d in deps
)
auditor = agent("auditor", system="You are a Python supply-chain and dependency expert.")
try:
    audit = await auditor.ask(
        "Assess the risk of each of these dependency declarations: unbounded or overly loose ranges, "
        "exact pins that block security fixes, abandoned or known-vulnerable packages, duplicate or conflicting "
        "constraints. Return one entry per dependency name.\n\n" + table,
        returns=Audit,
    )
except AskFailed as error:
    log(f"audit failed: {error}")
    audit = {"risks": [], "summary": f"The audit could not be completed: {error}"}

phase("Report")
rank = {"high": 0, "medium": 1, "low": 2, "none": 3}
risky = sorted((r for r in audit["risks"] if r["risk"] in ("medium", "high")), key=lambda r: (rank[r["risk"]], r["name"]))
specs = {d["name"]: d["spec"] for d in deps}
for r in risky:
    report({"name": r["name"], "spec": specs.get(r["name"], "?"), "risk": r["risk"], "reason": r["reason"],
            "recommendation": r["recommendation"] or ""})

return {
    "files": read_files,
    "dependencies": len(deps),
    "unbounded": sorted({d["name"] for d in deps if d["unbounded"]}),
    "risky": risky,
    "summary": audit["summary"],
}
