"""Plan a change as a typed, possibly nested list of steps, then execute the steps in order.

A planner returns a recursive `Plan`; the script flattens and orders the steps, and one
implementer actor (keeping its context) executes them until done or blocked. Then pytest and
mypy verify the result (literal commands, never commands suggested by the plan).

Shows: a self-recursive TypedDict (`list["Step"]`, i.e. `$defs`/`$ref`), nested TypedDicts,
`Annotated`/`NotRequired` fields, recursive pure helpers, a `while` loop with a guaranteed
bound, sets, sequential asks on one actor in a `for` loop, and `break`.
"""
from typing import Annotated, Literal, NotRequired, TypedDict

meta = {
    "name": "plan-then-execute",
    "description": "Break a change into ordered steps, execute them one by one, then verify "
    "with the tests and the type checker.",
    "when_to_use": "A change that touches several modules and deserves an explicit plan.",
    "args": {"goal": {"type": "string", "description": "The change to make.",
                      "default": "Add a --format json option to the `report` CLI command."},
             "max_steps": {"type": "integer", "description": "Refuse longer plans.", "default": 12}},
    "phases": [
        {"title": "Plan", "detail": "A planner returns a typed plan whose steps may nest."},
        {"title": "Execute", "detail": "One implementer carries out the steps in dependency order."},
        {"title": "Verify", "detail": "pytest and mypy, then the planner reviews the outcome."},
    ],
}


class Step(TypedDict):
    """One unit of work. Large steps may be broken into substeps."""
    key: Annotated[str, "Short unique slug, e.g. 'add-json-renderer'."]
    title: str
    instructions: str
    kind: Literal["code", "test", "docs", "investigate"]
    depends_on: Annotated[list[str], "Keys of steps that must be done first."]
    substeps: NotRequired[list["Step"]]


class Plan(TypedDict):
    goal: str
    steps: list[Step]


class StepOutcome(TypedDict):
    status: Literal["done", "blocked", "skipped"]
    summary: str
    files_changed: list[str]
    blocker: NotRequired[str]


def flatten(steps):
    """Depth-first: a step's substeps come first, and the step depends on all of them."""
    flat = []
    for step in steps:
        children = flatten(step.get("substeps", []))
        flat += children
        flat.append({"key": step["key"], "title": step["title"], "kind": step["kind"],
                     "instructions": step["instructions"],
                     "depends_on": step["depends_on"] + [c["key"] for c in children]})
    return flat


def in_dependency_order(steps):
    """Kahn's algorithm, stable on plan order; unknown dependencies are ignored."""
    known, done, ordered, pending = set(s["key"] for s in steps), set(), [], list(steps)
    while pending:
        ready = [s for s in pending if all(d in done or d not in known for d in s["depends_on"])]
        if not ready:
            raise ValueError(f"dependency cycle among: {', '.join(s['key'] for s in pending)}")
        done.update(s["key"] for s in ready)
        ordered += ready
        pending = [s for s in pending if s["key"] not in done]
    return ordered


phase("Plan")
planner = agent("planner", system="You are a tech lead who writes small, verifiable plans.")
plan = await planner.ask(
    f"Goal: {args['goal']}\n\nRead the relevant code first. Then plan: each step one focused "
    "change, tests as their own steps, dependencies explicit, substeps only where a step "
    "genuinely splits into parts.",
    returns=Plan, label="write the plan",
)
steps = in_dependency_order(flatten(plan["steps"]))
if len(steps) > args["max_steps"]:
    raise WorkflowError(f"the plan has {len(steps)} steps; the limit is {args['max_steps']}")

phase("Execute")
implementer = agent("implementer", system="You implement one plan step at a time, exactly as "
                    "scoped. If a step cannot be done as written, report it blocked and say why.")
outcomes = []
for n, step in enumerate(steps):
    outcome = await implementer.ask(
        f"Step {n + 1} of {len(steps)}: {step['title']} ({step['kind']})\n\n"
        f"{step['instructions']}\n\nOverall goal, for context: {plan['goal']}",
        returns=StepOutcome,
        label=f"step {step['key']}",
    )
    outcomes.append(dict(outcome, key=step["key"]))
    report({"step": step["key"], "status": outcome["status"], "summary": outcome["summary"]})
    if outcome["status"] == "blocked":
        log(f"Blocked at {step['key']}: {outcome.get('blocker', 'no reason given')}")
        break

phase("Verify")
tests = await world.run("pytest", ["-q", "--no-header"], timeout_s=1200)
typing_run = await world.run("mypy", ["--no-error-summary", "."], timeout_s=600)
changed = sorted(set(f for o in outcomes for f in o["files_changed"]))
review = await planner.ask(
    f"{sum(1 for o in outcomes if o['status'] == 'done')} of {len(steps)} steps done. "
    f"Files changed: {', '.join(changed) or 'none'}.\n"
    f"pytest exit {tests.exit_code}:\n{tests.stdout[-3000:]}\n"
    f"mypy exit {typing_run.exit_code}:\n{typing_run.stdout[-3000:]}\n"
    "Is the goal met? Answer 'yes' or 'no' on the first line, then list what remains.",
    label="review the outcome",
)

return {"goal": plan["goal"], "steps": outcomes, "files_changed": changed,
        "tests_pass": tests.exit_code == 0, "types_clean": typing_run.exit_code == 0,
        "goal_met": review.strip().lower().startswith("yes")}
