"""Mistake: a phase that contains no ask and no `world.run`.

A phase is a stage of work shown to the human; one that only reads files or logs is noise on the
approval screen. Keep the reads in the phase that uses them.
"""
meta = {"name": "phase-without-ask", "description": "Review every Python module under src/."}

phase("Collect files")  # error: DWF307:1  # phase "Collect files" contains no ask or world.run
paths = await files.glob("src/**/*.py")
log(f"{len(paths)} modules")

phase("Review")
reviews = await parallel(agent(f"reviewer-{p}").ask(f"Review {p} for bugs.") for p in paths)
return [r for r in reviews if r is not None]
