"""Mistake: a read used without `await`.

`git.changed_files()` and `files.read(path)` return awaitables: nothing has been read until they
are awaited, so looping over one, or calling `.splitlines()` on one, fails. Write
`for path in await git.changed_files():` and `(await files.read(path)).splitlines()`.
"""
meta = {"name": "missing-await", "description": "Count the lines of every changed Python file."}

phase("Count")
counts = {}
for path in git.changed_files():  # error: DWF328:13  # awaitable iterated without `await`
    if path.endswith(".py"):
        counts[path] = len(files.read(path).splitlines())  # error: DWF328:28  # `.splitlines()` on an awaitable
longest = await agent("reader").ask(f"Which of these files needs splitting? {counts}")
return {"counts": counts, "advice": longest}
