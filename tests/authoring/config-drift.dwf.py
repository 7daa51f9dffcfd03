"""Compare configuration files against a baseline ref with difflib and have an agent explain the drift."""
import difflib
from typing import Literal, TypedDict

meta = {
    "name": "config-drift",
    "description": "Diff configuration files against a baseline ref and explain each difference and its risk.",
    "when_to_use": "When behaviour changed and configuration drift is suspected.",
    "args": {
        "baseline": {"type": "string", "description": "Ref holding the known-good configuration.", "default": "v2.4.0"},
        "paths": {
            "type": "json",
            "description": "Configuration files to compare.",
            "default": ["pyproject.toml", "setup.cfg", "mkdocs.yml", "tox.ini", ".pre-commit-config.yaml"],
        },
    },
    "phases": [
        {"title": "Read configs"},
        {"title": "Explain"},
        {"title": "Report"},
    ],
}


class Difference(TypedDict):
    setting: str
    old: str
    new: str
    impact: Literal["none", "low", "medium", "high"]
    explanation: str


class DriftExplanation(TypedDict):
    path: str
    differences: list[Difference]
    summary: str


baseline = args["baseline"]

phase("Read configs")
diffs = {}
missing = []
for path in args["paths"]:
    try:
        current = await files.read(path)
    except WorldError:
        current = None
    old = await world.run("git", ["show", f"{baseline}:{path}"])
    previous = old.stdout if old.exit_code == 0 else None
    if current is None and previous is None:
        missing.append(path)
        continue
    lines = list(difflib.unified_diff(
        (previous or "").splitlines(keepends=True),
        (current or "").splitlines(keepends=True),
        fromfile=f"{baseline}:{path}",
        tofile=f"working tree:{path}",
        n=3,
    ))
    if lines:
        diffs[path] = "".join(lines)
        report({"path": path, "changed_lines": sum(1 for l in lines if l[:1] in "+-" and not l.startswith(("+++", "---")))})
log(f"{len(diffs)} of {len(args['paths'])} configuration files drifted since {baseline}")
if not diffs:
    return {"baseline": baseline, "drifted": [], "missing": missing}

phase("Explain")
paths = sorted(diffs)
explanations = await parallel(
    agent(f"explainer-{p}", system="You are a build and release engineer who explains configuration changes.").ask(
        f"Explain the changes to `{p}` since `{baseline}`. For each changed setting give the old and new value, "
        f"its likely impact on builds, tests or users, and why.\n```diff\n{diffs[p][:20000]}\n```\nSet `path` to `{p}`.",
        returns=DriftExplanation,
        label=f"explain {p}",
    )
    for p in paths
)

phase("Report")
md = [f"# Configuration drift since {baseline}", ""]
high = []
for p, e in zip(paths, explanations):
    md.append(f"## `{p}`")
    md.append("")
    if e is None:
        md.append("The explanation failed; the raw diff follows.")
        md.append("")
        md.append("```diff\n" + diffs[p][:8000] + "\n```")
        md.append("")
        continue
    md.append(e["summary"])
    md.append("")
    for d in e["differences"]:
        md.append(f"- **{d['setting']}** ({d['impact']}): `{d['old']}` → `{d['new']}`. {d['explanation']}")
        if d["impact"] == "high":
            high.append({"path": p, "setting": d["setting"], "explanation": d["explanation"]})
    md.append("")
await artifact.markdown("config-drift", "\n".join(md), title="Configuration drift", primary=True)

return {"baseline": baseline, "drifted": paths, "missing": missing, "high_impact": high}
