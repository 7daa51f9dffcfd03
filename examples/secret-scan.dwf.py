"""Find hard-coded secrets: a cheap grep, then per-file judgement, then a remediation plan.

`files.grep` casts a wide net for things that look like credentials; a scanner per file
(`f"scanner-{path}"`) separates real secrets from test fixtures and placeholders, returning a
result validated against a literal JSON Schema; `git log` shows who last touched each affected
file, and a security lead writes the rotation plan.

Language features shown: `returns=` given as a literal JSON Schema dict built from a top-level
constant (`CATEGORIES`), a `TypedDict` with `total=False` and `Required[...]`, `files.grep`
with a regular expression, a dict of lists built from `GrepMatch` records, `parallel()` over
`dict.items()`, `world.run("git", [...])` inside a loop, and `report()` of each real secret.
"""
from typing import Required, TypedDict

import json

meta = {
    "name": "secret-scan",
    "description": "Find hard-coded credentials, separate real ones from fixtures, and plan "
    "their rotation.",
    "when_to_use": "Before open-sourcing a repository, after a leak scare, or as a periodic audit.",
    "phases": [
        {"title": "Scan files", "detail": "Grep for credential-like strings, then judge each file."},
        {"title": "Plan remediation", "detail": "Find the last author of each file and plan rotation."},
    ],
}

CATEGORIES = ["api-key", "password", "private-key", "token", "connection-string", "other"]
SCAN = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "line": {"type": "integer", "minimum": 1},
            "category": {"enum": CATEGORIES},
            "verdict": {"enum": ["real", "test-fixture", "placeholder", "false-positive"]},
            "reason": {"type": "string"},
        },
        "required": ["line", "category", "verdict", "reason"],
        "additionalProperties": False,
    },
}


class Remediation(TypedDict, total=False):
    """How to clean up the real secrets."""

    rotate: Required[list[str]]
    "Credentials to revoke and reissue, most urgent first."
    remove_from_history: Required[bool]
    add_to_ci: list[str]
    "Checks to add so this cannot happen again."
    notes: str


SUSPICIOUS = (
    r"(?i)(api[_-]?key|secret|passw(or)?d|token)\s*[:=]\s*['\"][^'\"]{8,}['\"]"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----"
    r"|AKIA[0-9A-Z]{16}"
    r"|(postgres|mysql|mongodb)(\+\w+)?://[^\s:@]+:[^\s@]+@"
)

phase("Scan files")
hits = await files.grep(SUSPICIOUS)
by_file = {}
for m in hits:
    if "/node_modules/" in m.path or m.path.endswith(".lock"):
        continue
    by_file.setdefault(m.path, []).append(f"{m.line}: {m.text.strip()[:160]}")
log(f"{len(hits)} suspicious lines in {len(by_file)} files")
if not by_file:
    return {"files": 0, "real": []}

judged = await parallel(
    agent(f"scanner-{path}", system="You are an application security engineer.",
          tools=["read", "list", "grep"]).ask(
        f"These lines of `{path}` look like credentials:\n" + "\n".join(lines) + "\n\n"
        "Open the file and judge each one. Test fixtures, documented examples and obvious "
        "placeholders such as 'changeme' are not real secrets. Never repeat a secret's value "
        "in your answer.",
        returns=SCAN,
        label=f"judge {path}",
    )
    for path, lines in by_file.items()
)

real = []
for path, verdicts in zip(by_file, judged):
    for v in verdicts or []:
        if v["verdict"] == "real":
            item = {"path": path, "line": v["line"], "category": v["category"], "reason": v["reason"]}
            real.append(item)
            if len(real) <= 200:
                report(item)
unjudged = [p for p, v in zip(by_file, judged) if v is None]
if not real:
    log("No real secrets found.")
    return {"files": len(by_file), "real": [], "unjudged": unjudged}

phase("Plan remediation")
owners = {}
for path in sorted(set(r["path"] for r in real)):
    last = await world.run("git", ["log", "-n", "1", "--format=%an <%ae> %h %as", "--", path])
    owners[path] = last.stdout.strip() if last.exit_code == 0 else "unknown"
plan = await agent("security-lead", system="You lead incident response for leaked credentials.").ask(
    f"Real secrets found (values withheld):\n{json.dumps(real, indent=2)}\n"
    f"Last author of each file: {json.dumps(owners, indent=2)}\n"
    f"Files that could not be judged: {', '.join(unjudged) or 'none'}\n\n"
    "Plan the remediation: which credentials to rotate first, whether the git history must be "
    "rewritten, and which CI checks would have caught this.",
    returns=Remediation,
    label="remediation plan",
)

return {"files": len(by_file), "real": real, "unjudged": unjudged, "owners": owners,
        "rotate": plan["rotate"], "rewrite_history": plan["remove_from_history"]}
