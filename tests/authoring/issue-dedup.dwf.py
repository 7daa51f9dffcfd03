"""Find likely duplicate issues by title similarity and confirm them with an agent."""
from typing import Literal, TypedDict

import difflib
import json
import re

meta = {
    "name": "issue-dedup",
    "description": "Find likely duplicate open issues by title similarity and confirm each pair with an agent.",
    "when_to_use": "Before triage, to close duplicates early.",
    "args": {
        "issues_path": {"type": "string", "description": "JSON file with the open issues.",
                        "default": "triage/open-issues.json"},
        "cutoff": {"type": "number", "description": "Similarity cutoff between 0 and 1.", "default": 0.6},
    },
    "phases": [
        {"title": "Load issues"},
        {"title": "Find candidates"},
        {"title": "Confirm"},
        {"title": "Report"},
    ],
}


class Verdict(TypedDict):
    duplicate: bool
    confidence: Literal["low", "medium", "high"]
    reason: str


STOPWORDS = {"a", "an", "the", "is", "when", "on", "in", "of", "to", "for", "with", "not"}


def normalize(title):
    words = re.findall(r"[a-z0-9]+", title.lower())
    return " ".join(w for w in words if w not in STOPWORDS)


phase("Load issues")
try:
    raw = await files.read(args["issues_path"])
    data = json.loads(raw)
except WorldError as error:
    raise WorkflowError(f"cannot read {args['issues_path']}: {error}")
except json.JSONDecodeError as error:
    raise WorkflowError(f"{args['issues_path']} is not valid JSON: {error}")

issues = data["issues"] if isinstance(data, dict) else data
by_number = {issue["number"]: issue for issue in issues}
log(f"loaded {len(issues)} issues")

phase("Find candidates")
normalized = {issue["number"]: normalize(issue["title"]) for issue in issues}
keys = list(normalized.values())
pairs = []
seen = set()
for number, key in normalized.items():
    others = [k for k in keys if k != key]
    for match in difflib.get_close_matches(key, others, n=3, cutoff=args["cutoff"]):
        for other, other_key in normalized.items():
            if other_key == match and other != number:
                pair = tuple(sorted((number, other)))
                if pair not in seen:
                    seen.add(pair)
                    pairs.append(pair)
# identical normalized keys are candidates too
groups = {}
for number, key in normalized.items():
    groups.setdefault(key, []).append(number)
for key, numbers in groups.items():
    for i in range(len(numbers)):
        for j in range(i + 1, len(numbers)):
            pair = tuple(sorted((numbers[i], numbers[j])))
            if pair not in seen:
                seen.add(pair)
                pairs.append(pair)
log(f"{len(pairs)} candidate pairs")

phase("Confirm")


def describe(issue):
    body = issue.get("body", "") or ""
    return f"#{issue['number']}: {issue['title']}\n{body[:1500]}"


verdicts = await parallel(
    agent(f"dedup-{a}-{b}", system="You decide whether two bug reports describe the same problem.").ask(
        f"Are these two issues duplicates?\n\n{describe(by_number[a])}\n\n---\n\n{describe(by_number[b])}",
        returns=Verdict, label=f"compare #{a} and #{b}")
    for a, b in pairs
)

phase("Report")
duplicates = []
for (a, b), verdict in zip(pairs, verdicts):
    if verdict is None:
        log(f"could not compare #{a} and #{b}")
        continue
    if verdict["duplicate"]:
        item = {"issue": b, "duplicate_of": a, "confidence": verdict["confidence"], "reason": verdict["reason"]}
        duplicates.append(item)
        report(item)

lines = ["# Duplicate issues", ""]
if duplicates:
    for d in duplicates:
        lines.append(f"- #{d['issue']} duplicates #{d['duplicate_of']} ({d['confidence']}): {d['reason']}")
else:
    lines.append("No duplicates found.")
await artifact.markdown("duplicates", "\n".join(lines), title="Duplicate issues", primary=True)

return {"issues": len(issues), "candidates": len(pairs), "duplicates": duplicates}
