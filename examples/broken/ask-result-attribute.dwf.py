"""Mistake: reading a typed ask result as an object.

`returns=Verdict` makes the ask return a plain dict that matches the `TypedDict`: its fields
are keys, so `verdict.approved` fails after the ask was paid for. Write `verdict["approved"]`.
"""
from typing import TypedDict

meta = {"name": "ask-result-attribute", "description": "Review the change and decide whether to merge it."}


class Verdict(TypedDict):
    approved: bool
    reasons: list[str]


phase("Review")
diff = await git.diff("main")
verdict = await agent("reviewer").ask(f"Review this diff:\n{diff}", returns=Verdict)
if not verdict.approved:  # error: DWF213:16  # attribute access on an ask result (use verdict["approved"])
    log("\n".join(verdict["reasons"]))
return verdict
