"""Mistake: an actor with a literal name created inside a loop.

A name is an identity, unique within a run; the second iteration would create a second
"reviewer". Give each element its own name (`agent(f"reviewer-{path}")`), or none, or create
one actor before the loop if it should keep its context across files.
"""
meta = {"name": "literal-actor-in-loop", "description": "Review each changed file."}

phase("Review")
notes = []
for path in await git.changed_files():
    reviewer = agent("reviewer", system="You are a careful reviewer.")  # error: DWF311:22  # literal actor name inside a loop
    notes.append(await reviewer.ask(f"Review {path}."))
return notes
