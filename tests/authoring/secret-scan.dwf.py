"""Scan the repository for secret-looking strings, have an agent classify each hit, report real ones."""
import re
from typing import Literal, TypedDict

meta = {
    "name": "secret-scan",
    "description": "Find secret-looking strings with regular expressions, classify them with an agent and report the real ones.",
    "when_to_use": "Before publishing a repository or after a suspected leak.",
    "args": {
        "globs": {"type": "json", "description": "Files to scan.", "default": ["**/*.py", "**/*.toml", "**/*.json", "**/*.cfg", "**/*.md", "**/*.yml", "**/*.yaml", "**/*.env"]},
        "batch_size": {"type": "integer", "default": 20},
    },
    "phases": [
        {"title": "Scan"},
        {"title": "Classify"},
        {"title": "Report"},
    ],
}

PATTERNS = {
    "aws-access-key": re.compile(r"\bAKIA[0-9A-Z]{16}\b"),
    "github-token": re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b"),
    "stripe-key": re.compile(r"\b[sr]k_(?:live|test)_[0-9A-Za-z]{16,}\b"),
    "slack-token": re.compile(r"\bxox[baprs]-[A-Za-z0-9-]{10,}\b"),
    "private-key": re.compile(r"-----BEGIN (?:RSA |EC |OPENSSH |DSA )?PRIVATE KEY-----"),
    "assignment": re.compile(
        r"""(?i)\b\w*(password|passwd|secret|api[_-]?key|token|auth)\b\s*[:=]\s*["']([^"'\s]{8,})["']"""
    ),
}


class Verdict(TypedDict):
    id: int
    kind: Literal["real-secret", "test-fixture", "placeholder", "false-positive"]
    reason: str


class Classification(TypedDict):
    verdicts: list[Verdict]


def redact(value):
    if len(value) <= 8:
        return "*" * len(value)
    return value[:4] + "*" * (len(value) - 8) + value[-4:]


artifact.table("secrets", {
    "title": "Likely secrets",
    "columns": ["path", "line", "rule", "excerpt", "reason"],
})

phase("Scan")
paths = []
for pattern in args["globs"]:
    for p in await files.glob(pattern):
        if p not in paths and not p.startswith((".venv/", "node_modules/")):
            paths.append(p)
log(f"scanning {len(paths)} files")

hits = []
for path in paths:
    try:
        text = await files.read(path)
    except WorldError as error:
        log(f"skipping {path}: {error}")
        continue
    for line_no, line in enumerate(text.splitlines(), start=1):
        for rule, rx in PATTERNS.items():
            for m in rx.finditer(line):
                secret = m.group(m.lastindex or 0)
                hits.append({
                    "id": len(hits),
                    "path": path,
                    "line": line_no,
                    "rule": rule,
                    "excerpt": line.strip().replace(secret, redact(secret))[:200],
                })
log(f"{len(hits)} candidate hits")
if not hits:
    return {"scanned": len(paths), "hits": 0, "real": []}

phase("Classify")
batches = [hits[i:i + args["batch_size"]] for i in range(0, len(hits), args["batch_size"])]


def describe(batch):
    return "\n".join(f"[{h['id']}] {h['path']}:{h['line']} ({h['rule']}): {h['excerpt']}" for h in batch)


classifications = await parallel(
    agent(f"classifier-{n}", system="You are a security engineer who triages secret-scanner hits.").ask(
        "Classify each of these secret-scanner hits. Open the files for context if needed. "
        "Return one verdict per id.\n" + describe(batch),
        returns=Classification,
        label=f"classify batch {n + 1}/{len(batches)}",
    )
    for n, batch in enumerate(batches)
)

verdicts = {}
unclassified = []
for batch, c in zip(batches, classifications):
    if c is None:
        unclassified.extend(h["id"] for h in batch)
        continue
    for v in c["verdicts"]:
        verdicts[v["id"]] = v

phase("Report")
real = []
for h in hits:
    v = verdicts.get(h["id"])
    if v is None:
        if h["id"] not in unclassified:
            unclassified.append(h["id"])
        continue
    if v["kind"] == "real-secret":
        row = {"path": h["path"], "line": h["line"], "rule": h["rule"], "excerpt": h["excerpt"], "reason": v["reason"]}
        real.append(row)
        report(row, artifact="secrets")

kinds = {}
for v in verdicts.values():
    kinds[v["kind"]] = kinds.get(v["kind"], 0) + 1

return {
    "scanned": len(paths),
    "hits": len(hits),
    "by_kind": kinds,
    "real": real,
    "unclassified": [f"{hits[i]['path']}:{hits[i]['line']}" for i in sorted(unclassified)],
}
