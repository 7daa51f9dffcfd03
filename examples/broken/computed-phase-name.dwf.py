"""Mistake: `phase()` with a computed name.

Phases are drawn on the approval screen before anything runs, so `phase()` takes a non-empty
string literal. Write one literal `phase("...")` per stage instead of naming phases in a loop.
"""
meta = {"name": "computed-phase-name", "description": "Review the API, then the CLI."}

for area in ["api", "cli"]:
    phase(f"Review {area}")  # error: DWF305:11  # `phase()` argument must be a string literal
    notes = await agent(f"reviewer-{area}").ask(f"Review the code under src/{area}/ for bugs.")
    log(notes[:200])
