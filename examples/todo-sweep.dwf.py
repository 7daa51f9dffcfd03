"""Sweep TODO/FIXME comments: classify them all, then fix the trivial ones while budget lasts.

`files.grep` finds every marker; the matches are split into batches that classifiers handle in
parallel (typed verdicts per marker). Then a fixer resolves the trivial ones one at a time,
checking the remaining token budget before each ask, skipping a marker whose ask fails, and
byte-compiling every file it touched.

Language features shown: `files.grep` and `GrepMatch` attributes, `math.ceil` for batching,
`budget.remaining()` (which is `None` when the run has no budget), `try/except AskFailed` and
`except BudgetExceeded`, anonymous actors (no name, so they may be created in a fan-out),
`continue`/`break`, and `world.run("python", [...])` per fixed file.
"""
from typing import Literal, TypedDict

import math

meta = {
    "name": "todo-sweep",
    "description": "Classify every TODO/FIXME in the code base and resolve the trivial ones.",
    "when_to_use": "During a cleanup day, or when TODO comments have piled up for a few releases.",
    "args": {
        "glob": {"type": "string", "description": "Which files to sweep.", "default": "src/**/*.py"},
        "max_fixes": {"type": "integer", "description": "Fix at most this many markers.", "default": 10},
        "reserve_tokens": {
            "type": "integer",
            "description": "Stop fixing when fewer output tokens than this remain in the budget.",
            "default": 20000,
        },
    },
    "phases": [
        {"title": "Classify markers", "detail": "Batches of TODOs classified in parallel."},
        {"title": "Fix trivial markers", "detail": "One at a time, while budget remains."},
    ],
}


class Verdict(TypedDict):
    path: str
    line: int
    kind: Literal["bug", "debt", "feature", "obsolete"]
    effort: Literal["trivial", "small", "large"]
    note: str
    "What resolving it would take, in one sentence."


BATCH_SIZE = 40

phase("Classify markers")
matches = await files.grep(r"\b(TODO|FIXME|XXX|HACK)\b", glob=args["glob"])
markers = [{"path": m.path, "line": m.line, "text": m.text.strip()[:200]} for m in matches]
batch_count = math.ceil(len(markers) / BATCH_SIZE)
batches = [markers[i * BATCH_SIZE:(i + 1) * BATCH_SIZE] for i in range(batch_count)]
log(f"{len(markers)} markers in {batch_count} batches")

verdict_lists = await parallel(
    agent(system="You classify TODO comments by reading the code around them.", tools=["read", "list", "grep"]).ask(
        "For each marker below, read the surrounding code and classify it. 'obsolete' means the "
        "TODO is already done or no longer applies; 'trivial' means under ten lines, no design "
        "decision.\n" + "\n".join(f"{m['path']}:{m['line']}: {m['text']}" for m in batch),
        returns=list[Verdict],
        label=f"classify batch {n + 1} of {batch_count}",
    )
    for n, batch in enumerate(batches)
)
verdicts = [v for vs in verdict_lists if vs is not None for v in vs]
unclassified = sum(len(b) for b, vs in zip(batches, verdict_lists) if vs is None)
notable = [v for v in verdicts if v["kind"] == "bug" or v["effort"] == "trivial"]
for v in notable[:200]:
    report(v)

phase("Fix trivial markers")
candidates = [v for v in verdicts if v["effort"] == "trivial" or v["kind"] == "obsolete"]
fixer = agent("todo-fixer", system="You resolve small TODOs with minimal, careful edits.")
fixed = []
failed = []
for v in candidates[: args["max_fixes"]]:
    remaining = budget.remaining()
    if remaining is not None and remaining < args["reserve_tokens"]:
        log(f"Stopping with {remaining} tokens left in the budget")
        break
    try:
        await fixer.ask(
            f"Resolve the marker at {v['path']}:{v['line']} ({v['kind']}): {v['note']}\n"
            "If it is obsolete, delete the comment. Otherwise make the change and remove the "
            "comment. Touch nothing else.",
            label=f"fix {v['path']}:{v['line']}",
        )
    except BudgetExceeded:
        log("Token budget exhausted")
        break
    except AskFailed as err:
        failed.append(f"{v['path']}:{v['line']}")
        log(f"Could not resolve {v['path']}:{v['line']}: {err}")
        continue
    check = await world.run("python", ["-m", "py_compile", v["path"]])
    if check.exit_code != 0:
        failed.append(f"{v['path']}:{v['line']} (no longer compiles)")
        continue
    fixed.append(f"{v['path']}:{v['line']}")

return {
    "markers": len(markers),
    "classified": len(verdicts),
    "unclassified": unclassified,
    "by_kind": {k: sum(1 for v in verdicts if v["kind"] == k) for k in ("bug", "debt", "feature", "obsolete")},
    "fixed": fixed,
    "failed": failed,
    "tokens_spent": budget.spent(),
}
