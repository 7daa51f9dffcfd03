"""Mistake: reading the wall clock with the `time` module.

A resumed or amended run must see the same values as the original, so nothing may observe time,
randomness or the environment. Pass the date in as an argument (`args`), or ask an actor.
"""
import time  # error: DWF204:8  # import of `time` is not allowed (nondeterministic)

meta = {"name": "wall-clock-time", "description": "Draft a dated status update from recent commits."}

phase("Draft the update")
commits = await git.log(30)
today = time.strftime("%Y-%m-%d")  # error: DWF204:9  # reference to module `time`
update = await agent("writer").ask(
    f"Write a status update dated {today} from these commits:\n"
    + "\n".join(c.subject for c in commits)
)
return update
