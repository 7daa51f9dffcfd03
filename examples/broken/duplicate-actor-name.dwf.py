"""Mistake: two `agent()` sites with the same literal name.

An actor's name is the key an amended run uses to find its cached work, so it must be unique
within a run. Reuse the first actor, or give the second one its own name ("editor").
"""
meta = {"name": "duplicate-actor-name", "description": "Draft release notes, then polish them."}

phase("Draft")
writer = agent("writer", system="You draft release notes from commit subjects.")
commits = await git.log(40)
draft = await writer.ask("Draft release notes from:\n" + "\n".join(c.subject for c in commits))

phase("Polish")
polisher = agent("writer", system="You tighten prose.")  # error: DWF310:18  # duplicate actor name "writer"
final = await polisher.ask(f"Tighten this draft without changing its meaning:\n{draft}")
return final
