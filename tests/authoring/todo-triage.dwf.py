"""Collect TODO and FIXME comments, deduplicate them, and have an agent rank them in batches."""
import itertools
import re
from typing import Literal, TypedDict

meta = {
    "name": "todo-triage",
    "description": "Collect TODO/FIXME comments, deduplicate them and rank them by priority in batches.",
    "when_to_use": "When planning a cleanup sprint.",
    "args": {
        "glob": {"type": "string", "default": "**/*.py"},
        "batch_size": {"type": "integer", "description": "TODOs per ask.", "default": 25},
    },
    "phases": [
        {"title": "Collect"},
        {"title": "Rank"},
        {"title": "Report"},
    ],
    "max_concurrency": 4,
}


class Ranked(TypedDict):
    id: int
    priority: Literal["P0", "P1", "P2", "P3"]
    category: Literal["bug", "performance", "cleanup", "feature", "docs", "test"]
    rationale: str


class RankedBatch(TypedDict):
    items: list[Ranked]


TAG_RE = re.compile(r"\b(TODO|FIXME|XXX|HACK)\b[:(]?\s*(?:\([^)]*\))?:?\s*(.*)", re.IGNORECASE)

artifact.table("todos", {
    "title": "Ranked TODOs",
    "columns": ["priority", "category", "text", "locations", "rationale"],
})

phase("Collect")
matches = await files.grep(r"\b(TODO|FIXME|XXX|HACK)\b", glob=args["glob"])
unique = {}
for m in matches:
    if m.path.startswith((".venv/", "build/", "dist/")):
        continue
    tm = TAG_RE.search(m.text)
    if not tm:
        continue
    text = tm[2].strip().rstrip("*/#\"' ").strip()
    key = (tm[1].upper(), re.sub(r"\s+", " ", text.lower()))
    entry = unique.setdefault(key, {"tag": tm[1].upper(), "text": text or "(no text)", "locations": []})
    entry["locations"].append(f"{m.path}:{m.line}")

todos = [dict(id=i, **v) for i, v in enumerate(unique.values())]
log(f"{len(matches)} matches, {len(todos)} unique TODOs")
if not todos:
    return {"total": 0, "ranked": []}

phase("Rank")
batches = list(itertools.batched(todos, args["batch_size"]))


def batch_prompt(batch):
    lines = [f"[{t['id']}] {t['tag']}: {t['text']} (at {', '.join(t['locations'][:3])})" for t in batch]
    return (
        "Rank these TODO/FIXME comments from the tasktool repository. Open the code around each location "
        "if you need context. P0 = causes wrong behaviour now, P1 = should be fixed this cycle, "
        "P2 = nice to have, P3 = obsolete or trivial. Return one item per id.\n" + "\n".join(lines)
    )


ranked_batches = await parallel(
    agent(f"ranker-{n}", system="You triage technical debt pragmatically.").ask(
        batch_prompt(batch), returns=RankedBatch, label=f"rank batch {n + 1} of {len(batches)}"
    )
    for n, batch in enumerate(batches)
)

ranks = {}
for batch, rb in zip(batches, ranked_batches):
    if rb is None:
        log(f"batch starting at id {batch[0]['id']} could not be ranked")
        continue
    for r in rb["items"]:
        ranks[r["id"]] = r

phase("Report")
order = {"P0": 0, "P1": 1, "P2": 2, "P3": 3}
ranked = []
unranked = []
for t in todos:
    r = ranks.get(t["id"])
    if r is None:
        unranked.append(t)
        continue
    ranked.append({**t, "priority": r["priority"], "category": r["category"], "rationale": r["rationale"]})
ranked.sort(key=lambda t: (order[t["priority"]], t["id"]))
for t in ranked:
    report({"priority": t["priority"], "category": t["category"], "text": t["text"],
            "locations": ", ".join(t["locations"]), "rationale": t["rationale"]}, artifact="todos")

counts = {p: sum(1 for t in ranked if t["priority"] == p) for p in order}
return {
    "total": len(todos),
    "counts": counts,
    "top": ranked[:10],
    "unranked": [t["text"] for t in unranked],
}
