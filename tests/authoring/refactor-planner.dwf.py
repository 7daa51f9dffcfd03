"""Plan a refactoring of one function by analysing each of its call sites."""
from typing import Literal, TypedDict

import re

meta = {
    "name": "refactor-planner",
    "description": "Find every call site of a function, analyse each one, and plan the refactoring step by step.",
    "args": {
        "function": {"type": "string", "description": "Name of the function to refactor.", "required": True},
        "goal": {"type": "string", "description": "What the refactoring should achieve.",
                 "default": "Simplify the signature and make it easier to test."},
        "glob": {"type": "string", "default": "**/*.py"},
    },
    "phases": [{"title": "Find call sites"}, {"title": "Analyse"}, {"title": "Plan"}],
}


class CallSite(TypedDict):
    path: str
    line: int
    usage: str
    impact: Literal["trivial", "moderate", "hard"]
    notes: str


class Step(TypedDict):
    title: str
    files: list[str]
    description: str


name = args["function"]
if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
    raise ValueError(f"not a function name: {name!r}")

phase("Find call sites")
matches = await files.grep(rf"\b{re.escape(name)}\s*\(", glob=args["glob"])
definitions = [m for m in matches if re.match(rf"\s*(async\s+)?def\s+{re.escape(name)}\b", m.text)]
calls = [m for m in matches if m not in definitions]
log(f"{len(definitions)} definitions, {len(calls)} call sites of {name}")
if not calls:
    return {"function": name, "call_sites": 0, "steps": []}

definition_text = "\n".join(f"{d.path}:{d.line}: {d.text.strip()}" for d in definitions) or "not found"

phase("Analyse")
analyses = await parallel(
    agent(f"analyst-{m.path}-{m.line}", system="You analyse how code uses a function.").ask(
        f"`{name}` is defined at:\n{definition_text}\n\n"
        f"It is called at {m.path}:{m.line}:\n    {m.text.strip()}\n\n"
        f"Read the surrounding code. Goal of the refactoring: {args['goal']}\n"
        "Describe how this call site uses the function and how hard it is to adapt.",
        returns=CallSite, label=f"analyse {m.path}:{m.line}")
    for m in calls
)
analysed = [a for a in analyses if a is not None]
failed = len(analyses) - len(analysed)
if failed:
    log(f"{failed} call sites could not be analysed")

phase("Plan")
site_notes = "\n".join(
    f"- {a['path']}:{a['line']} ({a['impact']}): {a['usage']} {a['notes']}" for a in analysed
)
planner = agent("planner", system="You plan safe, incremental refactorings.")
try:
    steps = await planner.ask(
        f"Plan the refactoring of `{name}`. Goal: {args['goal']}\n\nCall sites:\n{site_notes}\n\n"
        "Give ordered steps; each step should leave the tests passing.",
        returns=list[Step],
    )
except AskFailed as error:
    raise WorkflowError(f"planning failed: {error}")

for i, step in enumerate(steps, 1):
    report({"step": i, "title": step["title"], "files": step["files"]})

hard = [f"{a['path']}:{a['line']}" for a in analysed if a["impact"] == "hard"]
return {
    "function": name,
    "call_sites": len(calls),
    "analysed": len(analysed),
    "hard_sites": hard,
    "steps": steps,
}
